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
  /** Requests sent again on a fresh connection after a reset of a reused one. */
  readonly retried: readonly string[];
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

/**
 * A reused keep-alive connection can be closed by the server's idle timer just as a request goes
 * out on it (likelier when a loaded machine stalls the client): like any HTTP client, a request
 * reset that way is sent once more, on a fresh connection. A gateway that resets a request
 * itself resets the retry too, which then fails the case.
 */
const STALE_CONNECTION = new Set(['ECONNRESET', 'UND_ERR_SOCKET', 'EPIPE']);

async function sendOnce(agent: Agent, base: string, c: FuzzCase): Promise<string | undefined> {
  const res = await request(`${base}${c.path}`, {
    method: c.method as 'POST',
    headers: c.headers,
    body: c.body,
    dispatcher: agent,
    headersTimeout: 20_000,
    bodyTimeout: 20_000,
  });
  const body = Buffer.from(await res.body.arrayBuffer());
  return judgeAnswer(c, { status: res.statusCode, headers: res.headers, body }) ?? String(res.statusCode);
}

async function send(agent: Agent, base: string, c: FuzzCase, retried: () => void): Promise<string | undefined | 'skipped'> {
  try {
    try {
      return await sendOnce(agent, base, c);
    } catch (error) {
      if (!STALE_CONNECTION.has((error as { code?: string }).code ?? '')) throw error;
      retried();
      const fresh = new Agent({ connections: 1 });
      try {
        return await sendOnce(fresh, base, c);
      } finally {
        await fresh.close();
      }
    }
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
  const retried: string[] = [];
  const worker = async () => {
    while (next < indices.length && performance.now() - started < settings.budgetMs) {
      const index = indices[next++]!;
      const c = buildCase(index, corpus, key, caseRng(settings.seed, index));
      const outcome = await send(agent, base, c, () => void retried.push(describeCase(c)));
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
  return { sent, byStatus, failures, retried, elapsedMs: performance.now() - started };
}
