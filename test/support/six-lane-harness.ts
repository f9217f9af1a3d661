// A real gateway with one model per upstream protocol (`m-openai`, `m-responses`, `m-anthropic`,
// `m-gemini`, `m-bedrock`, `m-cohere`), every provider pointed at one scriptable mock upstream.
// Cross-protocol tests script the upstream's wire answer (built with the lane codec's own encoder,
// see `upstreamStream`/`upstreamJson`) and read what the gateway sent it.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGateway, type RunningGateway } from '../../server/app/start-gateway.ts';
import { loadConfigFile } from '../../server/config/load-config.ts';
import { EVENTSTREAM_HEADERS } from '../../server/framing/eventstream-frame.ts';
import { SSE_HEADERS } from '../../server/framing/sse-format.ts';
import { WireBatch } from '../../server/framing/wire-chunks.ts';
import { PROTOCOL_IDS, type ChatResponse, type ProtocolId, type StreamEvent } from '../../server/ir/index.ts';
import { createLogger } from '../../server/observability/logger.ts';
import { codecFor } from '../../server/protocols/registry.ts';
import { startMockUpstream, type MockUpstream, type RecordedRequest, type ScriptedReply } from './mock-upstream.ts';

/** Catalog provider per protocol, and the base-URL suffix its SDKs and paths expect. */
export const LANE_PROVIDER: Record<ProtocolId, { readonly name: string; readonly suffix: string }> = {
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
  lastRequest(): RecordedRequest;
  close(): Promise<void>;
}

export interface SixLaneOptions {
  /** Extra top-level YAML for config.yaml (e.g. `media_fetch:`). */
  readonly extraYaml?: string;
  /** The upstream model name per lane (default `upstream-<protocol>`). */
  readonly upstreamModels?: Partial<Record<ProtocolId, string>>;
}

export async function startSixLaneHarness(options: SixLaneOptions = {}): Promise<SixLaneHarness> {
  const upstream = await startMockUpstream();
  const dir = mkdtempSync(join(tmpdir(), 'gateway-six-'));
  writeFileSync(join(dir, 'providers.yaml'), PROTOCOL_IDS.map((p) => `${LANE_PROVIDER[p].name}: { base_url: ${upstream.url}${LANE_PROVIDER[p].suffix} }`).join('\n') + '\n');
  const keyed = PROTOCOL_IDS.filter((p) => p !== 'bedrock'); // bedrock signs with AWS credentials from the environment
  writeFileSync(join(dir, 'config.yaml'), [
    'listen: 127.0.0.1:0', 'admin_listen: 127.0.0.1:0', 'catalog: ./providers.yaml', 'log_level: silent',
    'breaker: { consecutive_failures: 1000, min_requests: 1000, rate_limit_cooldown_ms: 0, max_rate_limit_cooldown_ms: 0, config_fault_cooldown_ms: 0 }',
    'providers:', ...keyed.map((p) => `  ${LANE_PROVIDER[p].name}: { api_key: { env: SIX_KEY } }`),
    'models:', ...PROTOCOL_IDS.map((p) => `  ${laneModel(p)}: { provider: ${LANE_PROVIDER[p].name}, model: ${options.upstreamModels?.[p] ?? upstreamModelOf(p)} }`),
    options.extraYaml ?? '',
  ].join('\n') + '\n');
  const config = loadConfigFile(join(dir, 'config.yaml'), { env: { SIX_KEY: 'upstream-key', AWS_ACCESS_KEY_ID: 'AKIDSIX', AWS_SECRET_ACCESS_KEY: 'six-secret', AWS_REGION: 'us-east-1' } });
  const gateway = await startGateway(config, { log: createLogger('silent'), workers: 1 });
  return {
    gateway,
    upstream,
    url: gateway.dataUrl,
    lastRequest() {
      const last = upstream.requests[upstream.requests.length - 1];
      if (last === undefined) throw new Error('the upstream received no request');
      return last;
    },
    async close() {
      await gateway.close();
      await upstream.close();
    },
  };
}

/** A lane's streamed answer in its real wire form, encoded by that protocol's own stream encoder. */
export function upstreamStream(protocol: ProtocolId, events: readonly StreamEvent[]): ScriptedReply {
  const codec = codecFor(protocol);
  if (codec === undefined) throw new Error(`no codec for ${protocol}`);
  const encoder = codec.createStreamEncoder({ streamUsage: true });
  const batch = new WireBatch();
  for (const event of events) batch.add(encoder.encode(event));
  const body = batch.take();
  return { headers: protocol === 'bedrock' ? { ...EVENTSTREAM_HEADERS } : { ...SSE_HEADERS }, events: [typeof body === 'string' ? body : Buffer.from(body)] };
}

/** A lane's non-stream answer in its real wire form. */
export function upstreamJson(protocol: ProtocolId, response: ChatResponse): ScriptedReply {
  const codec = codecFor(protocol);
  if (codec === undefined) throw new Error(`no codec for ${protocol}`);
  return { json: codec.encodeResponse(response, { streamUsage: true }).body };
}
