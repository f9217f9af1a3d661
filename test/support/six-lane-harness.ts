// A real gateway with one model per egress protocol (`m-<protocol>` → `upstream-<protocol>`), every
// provider pointed at one scriptable mock upstream, so a test can send any ingress protocol to any
// lane and see the exact bytes the upstream received.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGateway, type RunningGateway } from '../../server/app/start-gateway.ts';
import { loadConfigFile } from '../../server/config/load-config.ts';
import { PROTOCOL_IDS, type ProtocolId } from '../../server/ir/index.ts';
import { createLogger } from '../../server/observability/logger.ts';
import { startMockUpstream, type MockUpstream } from './mock-upstream.ts';

/** Catalog provider per protocol, and the suffix its base URL has. */
export const LANE_PROVIDER: Record<ProtocolId, { name: string; suffix: string }> = {
  openai: { name: 'openai', suffix: '/v1' },
  responses: { name: 'openai-responses', suffix: '/v1' },
  anthropic: { name: 'anthropic', suffix: '' },
  gemini: { name: 'gemini', suffix: '' },
  bedrock: { name: 'bedrock', suffix: '' },
  cohere: { name: 'cohere', suffix: '' },
};

export const laneModel = (protocol: ProtocolId) => `m-${protocol}`;
export const upstreamModelOf = (protocol: ProtocolId) => `upstream-${protocol}`;

export interface SixLaneHarness {
  readonly gateway: RunningGateway;
  readonly upstream: MockUpstream;
  readonly url: string;
  close(): Promise<void>;
}

export async function startSixLaneHarness(): Promise<SixLaneHarness> {
  const upstream = await startMockUpstream();
  const dir = mkdtempSync(join(tmpdir(), 'gateway-six-lane-'));
  writeFileSync(join(dir, 'providers.yaml'), PROTOCOL_IDS.map((p) => `${LANE_PROVIDER[p].name}: { base_url: ${upstream.url}${LANE_PROVIDER[p].suffix} }`).join('\n') + '\n');
  const keyed = PROTOCOL_IDS.filter((p) => p !== 'bedrock'); // bedrock signs with AWS credentials from the environment
  writeFileSync(join(dir, 'config.yaml'), [
    'listen: 127.0.0.1:0', 'admin_listen: 127.0.0.1:0', 'catalog: ./providers.yaml', 'log_level: silent',
    'breaker: { consecutive_failures: 1000, min_requests: 1000, rate_limit_cooldown_ms: 0, max_rate_limit_cooldown_ms: 0, config_fault_cooldown_ms: 0 }',
    'providers:', ...keyed.map((p) => `  ${LANE_PROVIDER[p].name}: { api_key: { env: LANE_KEY } }`),
    'models:', ...PROTOCOL_IDS.map((p) => `  ${laneModel(p)}: { provider: ${LANE_PROVIDER[p].name}, model: ${upstreamModelOf(p)} }`),
  ].join('\n') + '\n');
  const config = loadConfigFile(join(dir, 'config.yaml'), {
    env: { LANE_KEY: 'upstream-key', AWS_ACCESS_KEY_ID: 'AKIDSIXLANE', AWS_SECRET_ACCESS_KEY: 'six-lane-secret', AWS_REGION: 'us-east-1' },
  });
  const gateway = await startGateway(config, { log: createLogger('silent'), workers: 1 });
  return {
    gateway,
    upstream,
    url: gateway.dataUrl,
    async close() {
      await gateway.close();
      await upstream.close();
    },
  };
}
