// A gateway with one model per upstream protocol (`m-openai`, `m-responses`, `m-anthropic`,
// `m-gemini`, `m-bedrock`, `m-cohere`), every catalog provider pointed at one test upstream: the
// config the cross-protocol, agent, fuzz and matrix suites share, written as real YAML files and
// loaded the way an operator's deployment is. Bedrock signs with AWS credentials from the environment.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGateway, type RunningGateway } from '../../server/app/start-gateway.ts';
import { loadConfigFile } from '../../server/config/load-config.ts';
import type { ProtocolId } from '../../server/ir/index.ts';
import { PROTOCOL_IDS } from '../../server/protocols/registry.ts';
import { createLogger } from '../../server/shared/logger.ts';
import { LANE_PROVIDER } from './protocol-routes.ts';

export { LANE_PROVIDER };

export const laneModel = (protocol: ProtocolId) => `m-${protocol}`;
export const upstreamModelOf = (protocol: ProtocolId) => `upstream-${protocol}`;

/** The environment variable the keyed providers read their key from, unless a caller names its own. */
export const LANE_KEY_ENV = 'SIX_LANE_KEY';

/** Credentials for `LANE_KEY_ENV` and Bedrock's signing; none of them is real. */
export const SIX_LANE_ENV: Readonly<Record<string, string>> = {
  [LANE_KEY_ENV]: 'upstream-key',
  AWS_ACCESS_KEY_ID: 'AKIDSIXLANE',
  AWS_SECRET_ACCESS_KEY: 'six-lane-secret',
  AWS_REGION: 'us-east-1',
};

export interface SixLaneConfigOptions {
  readonly upstreamUrl: string;
  /** The upstream model name per lane (default `upstream-<protocol>`). */
  readonly upstreamModels?: Partial<Record<ProtocolId, string>>;
  /** More settings on a lane's model line (e.g. a price), after its provider and model. */
  readonly laneExtras?: (protocol: ProtocolId) => string;
  /** Lines added under `models:`, indented two spaces. */
  readonly extraModels?: readonly string[];
  /** Top-level YAML lines after the models (pools, hooks, governance, `workers:` ...). */
  readonly extraYaml?: readonly string[];
  /** Default silent. */
  readonly logLevel?: string;
  /** The variable the keyed providers read their key from (default `LANE_KEY_ENV`). */
  readonly keyEnv?: string;
}

/**
 * A breaker that never opens: a lane a test made fail (or the mock refused) must still take the
 * next test's request.
 */
const LENIENT_BREAKER =
  'breaker: { consecutive_failures: 1000, min_requests: 1000, rate_limit_cooldown_ms: 0, max_rate_limit_cooldown_ms: 0, config_fault_cooldown_ms: 0 }';

/** Writes providers.yaml and config.yaml into `dir`; returns the config.yaml path. */
export function writeSixLaneConfig(dir: string, options: SixLaneConfigOptions): string {
  writeFileSync(
    join(dir, 'providers.yaml'),
    PROTOCOL_IDS.map((p) => `${LANE_PROVIDER[p].name}: { base_url: ${options.upstreamUrl}${LANE_PROVIDER[p].suffix} }`).join('\n') + '\n',
  );
  const keyed = PROTOCOL_IDS.filter((p) => p !== 'bedrock');
  const extras = (p: ProtocolId) => (options.laneExtras === undefined ? '' : `, ${options.laneExtras(p)}`);
  const lines = [
    'listen: 127.0.0.1:0',
    'admin_listen: 127.0.0.1:0',
    'catalog: ./providers.yaml',
    `log_level: ${options.logLevel ?? 'silent'}`,
    LENIENT_BREAKER,
    'providers:',
    ...keyed.map((p) => `  ${LANE_PROVIDER[p].name}: { api_key: { env: ${options.keyEnv ?? LANE_KEY_ENV} } }`),
    'models:',
    ...PROTOCOL_IDS.map(
      (p) => `  ${laneModel(p)}: { provider: ${LANE_PROVIDER[p].name}, model: ${options.upstreamModels?.[p] ?? upstreamModelOf(p)}${extras(p)} }`,
    ),
    ...(options.extraModels ?? []),
    ...(options.extraYaml ?? []),
  ];
  const path = join(dir, 'config.yaml');
  writeFileSync(path, lines.join('\n') + '\n');
  return path;
}

export interface SixLaneGatewayOptions extends Omit<SixLaneConfigOptions, 'keyEnv'> {
  /** Data-plane workers (default: the config's, i.e. the gateway's own default). */
  readonly workers?: number;
}

/** The six-lane gateway in this process (for a gateway in a child process, see the fuzz suite). */
export async function startSixLaneGateway(options: SixLaneGatewayOptions): Promise<RunningGateway> {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-six-lane-'));
  const config = loadConfigFile(writeSixLaneConfig(dir, options), { env: { ...SIX_LANE_ENV } });
  return startGateway(config, { log: createLogger('silent'), ...(options.workers !== undefined && { workers: options.workers }) });
}
