// A real gateway with one model per egress protocol (`m-openai`, `m-gemini`, ...), every provider
// pointing at one test upstream. Bedrock signs with AWS credentials from the environment.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGateway, type RunningGateway } from '../../../server/app/start-gateway.ts';
import { loadConfigFile } from '../../../server/config/load-config.ts';
import { PROTOCOL_IDS, type ProtocolId } from '../../../server/ir/index.ts';
import { createLogger } from '../../../server/observability/logger.ts';

/** Catalog provider per protocol, and the suffix of its base URL. */
const PROVIDER: Record<ProtocolId, { name: string; suffix: string }> = {
  openai: { name: 'openai', suffix: '/v1' },
  responses: { name: 'openai-responses', suffix: '/v1' },
  anthropic: { name: 'anthropic', suffix: '' },
  gemini: { name: 'gemini', suffix: '' },
  bedrock: { name: 'bedrock', suffix: '' },
  cohere: { name: 'cohere', suffix: '' },
};

/** The upstream model of the lane `m-<protocol>`: real reasoning models, since reasoning settings depend on the model. */
export const UPSTREAM_MODEL: Record<ProtocolId, string> = {
  openai: 'gpt-5',
  responses: 'gpt-5',
  anthropic: 'claude-sonnet-4-5',
  gemini: 'gemini-2.5-pro',
  bedrock: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
  cohere: 'command-a-reasoning-08-2025',
};

export async function startSixLaneGateway(upstreamUrl: string): Promise<RunningGateway> {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-agents-'));
  writeFileSync(join(dir, 'providers.yaml'), PROTOCOL_IDS.map((p) => `${PROVIDER[p].name}: { base_url: ${upstreamUrl}${PROVIDER[p].suffix} }`).join('\n') + '\n');
  const keyed = PROTOCOL_IDS.filter((p) => p !== 'bedrock');
  writeFileSync(join(dir, 'config.yaml'), [
    'listen: 127.0.0.1:0', 'admin_listen: 127.0.0.1:0', 'catalog: ./providers.yaml', 'log_level: silent',
    'providers:', ...keyed.map((p) => `  ${PROVIDER[p].name}: { api_key: { env: AGENTS_KEY } }`),
    'models:', ...PROTOCOL_IDS.map((p) => `  m-${p}: { provider: ${PROVIDER[p].name}, model: ${UPSTREAM_MODEL[p]} }`),
    '  m-gemini-3: { provider: gemini, model: gemini-3-pro-preview }',
    'breaker: { consecutive_failures: 1000, min_requests: 1000, rate_limit_cooldown_ms: 0, max_rate_limit_cooldown_ms: 0, config_fault_cooldown_ms: 0 }',
  ].join('\n') + '\n');
  const config = loadConfigFile(join(dir, 'config.yaml'), { env: { AGENTS_KEY: 'upstream-key', AWS_ACCESS_KEY_ID: 'AKIDAGENTS', AWS_SECRET_ACCESS_KEY: 'agents-secret', AWS_REGION: 'us-east-1' } });
  return startGateway(config, { log: createLogger('silent'), workers: 1 });
}
