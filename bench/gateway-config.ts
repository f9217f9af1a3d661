// The gateway's config.yaml and providers.yaml for a benchmark run: every catalog protocol pointed
// at the mock upstream, one model per egress protocol, and two paced models for the stream-timing runs.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ProtocolId } from '../server/ir/index.ts';
import { PROTOCOL_IDS } from '../server/protocols/registry.ts';
import { LANE_PROVIDER } from '../test/support/protocol-routes.ts';

/** The upstream model the mock is asked for at zero delay. */
export const UPSTREAM_MODEL = 'bench-model';
/** The upstream model that makes the mock pace its stream (see mock-upstream-server.ts). */
export const pacedUpstreamModel = (chunks: number, intervalMs: number) => `paced-${chunks}x${intervalMs}`;
/** The upstream embedding model the mock answers (any name works: it answers by path). */
export const EMBEDDING_UPSTREAM_MODEL = 'bench-embedding';
/** The gateway's embedding models, one per egress protocol that has embeddings. */
export const embeddingGatewayModel = (egress: 'openai' | 'cohere') => `embed-to-${egress}`;
/** The gateway's model names: the egress protocol is in the name. */
export const gatewayModel = (egress: ProtocolId) => `to-${egress}`;
export const pacedGatewayModel = (egress: ProtocolId) => `paced-to-${egress}`;
export const PACED_EGRESS: readonly ProtocolId[] = ['openai', 'anthropic'];
/** The soak's pool: a flaky OpenAI-protocol lane and a steady Anthropic-protocol one. */
export const SOAK_POOL = 'soak-pool';
/** How long the flaky lane may stay silent before the gateway fails over (a hang ends here). */
export const SOAK_FIRST_BYTE_MS = 1000;

/**
 * The upstream key every target sends, shaped like a provider's (not real). A key whose first
 * bytes also start words of the mock's answers (the old `bench-upstream-key` against `resp_bench`,
 * `bench-model`) made every event a candidate for the credential mask to check, about 4 µs a
 * stream that a real key does not cost (bench/RESULTS.md, session 8).
 */
export const BENCH_UPSTREAM_KEY = 'sk-proj-7fQx2bLkP9aZ0cVw3nT8mR4yJ6hE1uD5gSbench';

/** The gateway's environment: credentials (none of them real), and glibc's arena cap as deployed. */
export const GATEWAY_ENV: Readonly<Record<string, string>> = {
  BENCH_UPSTREAM_KEY,
  AWS_ACCESS_KEY_ID: 'AKIDBENCHMARK',
  AWS_SECRET_ACCESS_KEY: 'bench-secret',
  AWS_REGION: 'us-east-1',
  GATEWAY_ADMIN_TOKEN: 'bench-admin-token',
  // As the systemd unit and the container image run it (deploy/): at most two glibc malloc arenas.
  MALLOC_ARENA_MAX: '2',
};

export interface GatewayConfigOptions {
  readonly dir: string;
  readonly mockUrl: string;
  readonly workers: 'auto' | number;
  readonly governance: boolean;
  /** With governance: the store is PostgreSQL at the URL in this environment variable, not a db_path file. */
  readonly databaseUrlEnv?: string;
  readonly paced: { readonly chunks: number; readonly intervalMs: number };
  /** Share of the soak pool's flaky lane's requests the mock fails (500, reset, hang); default 30. */
  readonly soakFailPercent?: number;
}

/** Writes both files into `dir` and returns the config.yaml path. */
export function writeGatewayConfig(options: GatewayConfigOptions): string {
  const { dir, mockUrl, paced } = options;
  writeFileSync(
    join(dir, 'providers.yaml'),
    PROTOCOL_IDS.map((p) => `${LANE_PROVIDER[p].name}: { base_url: ${mockUrl}${LANE_PROVIDER[p].suffix} }`).join('\n') + '\n',
  );
  // Priced, so governance on does the whole admission: price check, reservation, cost at settlement.
  const price = 'price: { input: 1, output: 2 }';
  const lines = [
    'listen: 127.0.0.1:0',
    'admin_listen: 127.0.0.1:0',
    'catalog: ./providers.yaml',
    'log_level: info',
    `workers: ${options.workers}`,
    ...(options.governance
      ? [options.databaseUrlEnv === undefined ? 'db_path: ./gateway.db' : `database_url: { env: ${options.databaseUrlEnv} }`, 'governance: on']
      : []),
    'providers:',
    // Bedrock signs with the AWS credentials of the environment (GATEWAY_ENV).
    ...PROTOCOL_IDS.filter((p) => p !== 'bedrock').map((p) => `  ${LANE_PROVIDER[p].name}: { api_key: { env: BENCH_UPSTREAM_KEY } }`),
    'models:',
    ...PROTOCOL_IDS.map((p) => `  ${gatewayModel(p)}: { provider: ${LANE_PROVIDER[p].name}, model: ${UPSTREAM_MODEL}, ${price} }`),
    ...(['openai', 'cohere'] as const).map(
      (p) =>
        `  ${embeddingGatewayModel(p)}: { provider: ${LANE_PROVIDER[p].name}, model: ${EMBEDDING_UPSTREAM_MODEL}, operations: [embeddings], operation_prices: { embeddings: { input: 0.02 } } }`,
    ),
    ...PACED_EGRESS.map(
      (p) => `  ${pacedGatewayModel(p)}: { provider: ${LANE_PROVIDER[p].name}, model: ${pacedUpstreamModel(paced.chunks, paced.intervalMs)}, ${price} }`,
    ),
    // The soak (soak.ts): the mock fails soakFailPercent of the flaky lane's requests.
    `  soak-flaky: { provider: openai, model: flaky-${options.soakFailPercent ?? 30}, ${price}, timeouts: { first_byte_ms: ${SOAK_FIRST_BYTE_MS} } }`,
    `  soak-steady: { provider: anthropic, model: ${UPSTREAM_MODEL}, ${price} }`,
    'pools:',
    // A breaker that trips on a run of faults and comes back soon, so the flaky lane keeps taking
    // traffic (and failing) all through the soak instead of staying open.
    `  ${SOAK_POOL}: { members: [ { model: soak-flaky }, { model: soak-steady } ], max_attempts: 2, deadline_ms: 20000, breaker: { consecutive_failures: 5, open_ms: 5000, max_open_ms: 20000 } }`,
  ];
  const path = join(dir, 'config.yaml');
  writeFileSync(path, lines.join('\n') + '\n');
  return path;
}
