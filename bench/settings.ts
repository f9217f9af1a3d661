// The benchmark's knobs, read once from the environment (documented in bench/run.ts and bench/README.md).
// BENCH_QUICK=1 changes only the defaults; any variable given explicitly still wins.
import { existsSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import type { Generator } from './load-generator.ts';
import { peersFrom, type PeerName } from './peers.ts';

export type Section = 'probe' | 'throughput' | 'paced' | 'reload' | 'store' | 'embeddings';
export const ALL_SECTIONS: readonly Section[] = ['probe', 'throughput', 'paced', 'reload', 'store', 'embeddings'];

export interface Settings {
  readonly quick: boolean;
  /** Seconds per load sample. */
  readonly seconds: number;
  /** Interleaved repeats; every reported number is the median over them. */
  readonly repeats: number;
  readonly connections: readonly number[];
  /** Keeps gateway scenarios whose name contains it (baselines always run). */
  readonly filter: string | undefined;
  readonly sections: readonly Section[];
  /** Requests per warm-up of each scenario (wrk: about that many, run for a time). */
  readonly warmupRequests: number;
  /** Measured rounds per probe repeat (each round sends one request to every probe target). */
  readonly probeRounds: number;
  readonly probeWarmupRounds: number;
  /** Rounds of concurrent paced streams per target and repeat. */
  readonly pacedRounds: number;
  readonly pacedStreams: number;
  readonly pacedChunks: number;
  readonly pacedIntervalMs: number;
  /** The gateway command: undefined runs `node server/main.ts`; otherwise this executable (e.g. dist/gateway). */
  readonly gatewayCommand: string | undefined;
  readonly soak: SoakSettings | undefined;
  /** The load generator (resolved, and wrk installed, by run.ts before anything starts: load-generator.ts). */
  readonly generator: Generator;
  /** Peer gateways to run beside this one (BENCH_PEERS, e.g. portkey,litellm): peers.ts. */
  readonly peers: readonly PeerName[];
}

export interface SoakSettings {
  readonly minutes: number;
  readonly warmupMinutes: number;
  readonly sampleSeconds: number;
  readonly connections: number;
  /** Requests per second over all connections: a moderate load, not saturation. */
  readonly rate: number;
  /** Share of the flaky lane's requests the mock fails (500, reset, hang in equal parts). */
  readonly failPercent: number;
}

function numberFrom(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name}=${raw}: expected a positive number`);
  return value;
}

const integerFrom = (name: string, fallback: number) => Math.max(1, Math.round(numberFrom(name, fallback)));

function sectionsFrom(raw: string | undefined): Section[] {
  if (raw === undefined || raw === '') return [...ALL_SECTIONS];
  const names = raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  for (const name of names) {
    if (!ALL_SECTIONS.includes(name as Section)) throw new Error(`BENCH_SECTIONS: unknown section "${name}" (known: ${ALL_SECTIONS.join(', ')})`);
  }
  return names as Section[];
}

function gatewayCommandFrom(raw: string | undefined, root: string): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  const path = isAbsolute(raw) ? raw : join(root, raw);
  if (!existsSync(path)) throw new Error(`BENCH_GATEWAY=${raw}: no such file (build the single executable with \`make binary\`)`);
  return path;
}

export function readSettings(root: string): Settings {
  const quick = process.env.BENCH_QUICK === '1';
  const soakMinutes = process.env.BENCH_SOAK_MINUTES;
  return {
    quick,
    seconds: numberFrom('BENCH_SECONDS', quick ? 1 : 4),
    repeats: integerFrom('BENCH_REPEATS', quick ? 1 : 3),
    connections: (process.env.BENCH_CONNECTIONS ?? '32,128').split(',').map((c) => {
      const n = Number(c);
      if (!Number.isInteger(n) || n < 1 || n > 1024) throw new Error(`BENCH_CONNECTIONS: "${c}" is not a connection count (1..1024)`);
      return n;
    }),
    filter: process.env.BENCH_FILTER === '' ? undefined : process.env.BENCH_FILTER,
    sections: sectionsFrom(process.env.BENCH_SECTIONS),
    warmupRequests: integerFrom('BENCH_WARMUP_REQUESTS', quick ? 200 : 2000),
    probeRounds: integerFrom('BENCH_PROBE_ROUNDS', quick ? 200 : 2000),
    probeWarmupRounds: quick ? 50 : 300,
    pacedRounds: integerFrom('BENCH_PACED_ROUNDS', quick ? 1 : 4),
    pacedStreams: integerFrom('BENCH_PACED_STREAMS', 16),
    pacedChunks: integerFrom('BENCH_PACED_CHUNKS', 20),
    pacedIntervalMs: integerFrom('BENCH_PACED_INTERVAL_MS', 10),
    gatewayCommand: gatewayCommandFrom(process.env.BENCH_GATEWAY, root),
    generator: process.env.BENCH_GENERATOR === 'wrk' ? 'wrk' : 'autocannon',
    peers: peersFrom(process.env.BENCH_PEERS),
    soak:
      soakMinutes === undefined || soakMinutes === ''
        ? undefined
        : {
            minutes: numberFrom('BENCH_SOAK_MINUTES', 10),
            warmupMinutes: process.env.BENCH_SOAK_WARMUP_MINUTES === '0' ? 0 : numberFrom('BENCH_SOAK_WARMUP_MINUTES', 2),
            sampleSeconds: numberFrom('BENCH_SOAK_SAMPLE_SECONDS', 10),
            connections: integerFrom('BENCH_SOAK_CONNECTIONS', 64),
            rate: integerFrom('BENCH_SOAK_RATE', 500),
            failPercent: Math.min(100, integerFrom('BENCH_SOAK_FAIL_PERCENT', 30)),
          },
  };
}
