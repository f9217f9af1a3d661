// Sends the fuzz cases to a gateway, a few at a time, and judges each answer. Each case has its
// own PRNG derived from the run's seed and its index, so FUZZ_SEED=<seed> FUZZ_ONLY=<index>
// replays one case alone.
import { Agent, request } from 'undici';
import { buildCase, describeCase, type FuzzCase } from './fuzz-cases.ts';
import { judgeAnswer } from './judge-answer.ts';
import { Prng } from './prng.ts';
import type { Corpus } from './seed-corpus.ts';

export interface FuzzSettings {
  readonly seed: number;
  readonly cases: number;
  /** Only this case index (a replay), when set. */
  readonly only: number | undefined;
  readonly concurrency: number;
  /** No new case starts after this; the run reports how far it got. */
  readonly budgetMs: number;
}

export interface FuzzReport {
  readonly sent: number;
  readonly byStatus: Readonly<Record<string, number>>;
  readonly failures: readonly string[];
  readonly elapsedMs: number;
}

function intFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name}=${raw}: expected a non-negative integer`);
  return value;
}

/** FUZZ_SEED (default: a fresh one, printed), FUZZ_CASES, FUZZ_ONLY, FUZZ_SECONDS. */
export function fuzzSettingsFromEnv(): FuzzSettings {
  const only = process.env.FUZZ_ONLY;
  return {
    seed: intFromEnv('FUZZ_SEED', Math.floor(Math.random() * 2 ** 31)),
    cases: intFromEnv('FUZZ_CASES', 2500),
    only: only === undefined || only === '' ? undefined : intFromEnv('FUZZ_ONLY', 0),
    concurrency: 6,
    budgetMs: intFromEnv('FUZZ_SECONDS', 60) * 1000,
  };
}

const caseRng = (seed: number, index: number) => new Prng((seed ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0);

/** Errors the client raises before anything is sent (a header value it refuses): not the gateway's doing. */
const CLIENT_SIDE = new Set(['UND_ERR_INVALID_ARG', 'ERR_INVALID_CHAR', 'ERR_INVALID_ARG_TYPE', 'ERR_INVALID_ARG_VALUE']);

async function send(agent: Agent, base: string, c: FuzzCase): Promise<string | undefined | 'skipped'> {
  try {
    const res = await request(`${base}${c.path}`, {
      method: c.method as 'POST', headers: c.headers, body: c.body, dispatcher: agent, headersTimeout: 20_000, bodyTimeout: 20_000,
    });
    const body = Buffer.from(await res.body.arrayBuffer());
    return judgeAnswer(c, { status: res.statusCode, headers: res.headers, body }) ?? String(res.statusCode);
  } catch (error) {
    const code = (error as { code?: string }).code ?? '';
    if (CLIENT_SIDE.has(code)) return 'skipped';
    return `no answer: ${code} ${(error as Error).message}`;
  }
}

export async function runFuzz(base: string, corpus: Corpus, key: string, settings: FuzzSettings): Promise<FuzzReport> {
  const agent = new Agent({ connections: settings.concurrency * 2, keepAliveTimeout: 2_000 });
  const byStatus: Record<string, number> = {};
  const failures: string[] = [];
  const started = performance.now();
  const indices = settings.only === undefined ? Array.from({ length: settings.cases }, (_, i) => i) : [settings.only];
  let next = 0;
  let sent = 0;
  const worker = async () => {
    while (next < indices.length && performance.now() - started < settings.budgetMs) {
      const index = indices[next++]!;
      const c = buildCase(index, corpus, key, caseRng(settings.seed, index));
      const outcome = await send(agent, base, c);
      sent++;
      if (outcome === 'skipped' || (outcome !== undefined && /^\d{3}$/.test(outcome))) {
        byStatus[outcome ?? '?'] = (byStatus[outcome ?? '?'] ?? 0) + 1;
      } else {
        byStatus.failed = (byStatus.failed ?? 0) + 1;
        failures.push(`${describeCase(c)}\n    -> ${outcome}`);
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: settings.concurrency }, worker));
  } finally {
    await agent.close();
  }
  return { sent, byStatus, failures, elapsedMs: performance.now() - started };
}
