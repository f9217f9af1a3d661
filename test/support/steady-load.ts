// Steady traffic for reload tests: a few clients, each the official OpenAI SDK on its own, asking
// one model again and again, streams and whole answers in turn, until stopped. Every request's
// outcome is kept, so a test can say that none failed and what each one was answered by.
import OpenAI from 'openai';

export interface LoadResult {
  readonly stream: boolean;
  readonly startedAt: number;
  readonly endedAt: number;
  /** The upstream model the answer names (the mock echoes the model it was asked for). */
  readonly answeredBy?: string;
  readonly error?: string;
}

export interface SteadyLoad {
  readonly results: LoadResult[];
  /** Stops asking; resolves once every client's last request has ended. */
  stop(): Promise<LoadResult[]>;
}

export function steadyLoad(options: { baseURL: string; apiKey: string; model: string; clients?: number; pauseMs?: number }): SteadyLoad {
  const results: LoadResult[] = [];
  let stopping = false;
  const client = async (n: number) => {
    const sdk = new OpenAI({ baseURL: options.baseURL, apiKey: options.apiKey, maxRetries: 0, timeout: 30_000 });
    for (let i = n; !stopping; i++) {
      const stream = i % 2 === 0;
      const startedAt = Date.now();
      try {
        let answeredBy: string | undefined;
        const messages = [{ role: 'user' as const, content: `steady ${n}.${i}` }];
        if (stream) {
          const chunks = await sdk.chat.completions.create({ model: options.model, messages, stream: true });
          let text = '';
          for await (const chunk of chunks) {
            answeredBy ??= chunk.model;
            text += chunk.choices[0]?.delta.content ?? '';
          }
          if (text === '') throw new Error('a stream without text');
        } else {
          const answer = await sdk.chat.completions.create({ model: options.model, messages });
          answeredBy = answer.model;
          if ((answer.choices[0]?.message.content ?? '') === '') throw new Error('an answer without text');
        }
        results.push({ stream, startedAt, endedAt: Date.now(), ...(answeredBy !== undefined && { answeredBy }) });
      } catch (error) {
        results.push({ stream, startedAt, endedAt: Date.now(), error: String(error) });
      }
      if (options.pauseMs !== undefined) await new Promise((resolve) => setTimeout(resolve, options.pauseMs));
    }
  };
  const running = Promise.all(Array.from({ length: options.clients ?? 4 }, (_, n) => client(n)));
  return {
    results,
    async stop() {
      stopping = true;
      await running;
      return results;
    },
  };
}

/** Share of each upstream model among the answers that ended after `since` (ms since the epoch). */
export function splitAfter(results: readonly LoadResult[], since: number): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of results) if (r.startedAt > since && r.answeredBy !== undefined) counts[r.answeredBy] = (counts[r.answeredBy] ?? 0) + 1;
  return counts;
}

/** Until `check` holds, polling, or throws after `timeoutMs`. */
export async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
