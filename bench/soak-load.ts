// The soak's client: `connections` loops, each one request at a time on its own keep-alive
// connection, paced so all together send at most `rate` requests per second. Unlike autocannon it
// reads and checks every answer: a 200 whose stream ends in an error event, or lacks its
// terminator or the reply text, is a client error as much as a 5xx or a reset is.
import { Pool } from 'undici';
import type { ClientRequest } from './client-requests.ts';

export interface SoakRequest extends ClientRequest {
  readonly name: string;
  readonly stream: boolean;
  /** Text every complete answer carries (a stream's terminator, the reply). */
  readonly mustContain: readonly string[];
}

export interface LoadResult {
  readonly requests: number;
  readonly clientErrors: number;
  /** The first few errors, for the report. */
  readonly errorSamples: readonly string[];
  readonly latencyMs: readonly number[];
}

const CLIENT_TIMEOUT_MS = 30_000;
const STREAM_ERROR = /^event: ?error\b|"type":"error"|^data: ?\{"error"/m;

function problemWith(request: SoakRequest, status: number, body: string): string | undefined {
  if (status !== 200) return `${request.name}: HTTP ${status} ${body.slice(0, 200)}`;
  if (STREAM_ERROR.test(body)) return `${request.name}: error event in a 200 answer: ${body.slice(-200)}`;
  const missing = request.mustContain.find((text) => !body.includes(text));
  return missing === undefined ? undefined : `${request.name}: answer without ${JSON.stringify(missing)}: ${body.slice(-200)}`;
}

export async function runSoakLoad(
  url: string,
  requests: readonly SoakRequest[],
  options: { connections: number; rate: number; seconds: number },
): Promise<LoadResult> {
  const pool = new Pool(url, { connections: options.connections, pipelining: 1, headersTimeout: CLIENT_TIMEOUT_MS, bodyTimeout: CLIENT_TIMEOUT_MS });
  const started = performance.now();
  const endAt = started + options.seconds * 1000;
  const intervalMs = (options.connections * 1000) / options.rate; // per loop, so all loops add up to `rate`
  let total = 0;
  let clientErrors = 0;
  const errorSamples: string[] = [];
  const latencyMs: number[] = [];
  const note = (problem: string) => {
    clientErrors++;
    if (errorSamples.length < 10) errorSamples.push(problem);
  };
  const loop = async (n: number) => {
    let next = started + (n * intervalMs) / options.connections; // loops start spread over one interval
    let turn = n;
    while (true) {
      const now = performance.now();
      if (next > now) await new Promise((resolve) => setTimeout(resolve, next - now));
      if (performance.now() >= endAt) return;
      next = Math.max(next + intervalMs, performance.now()); // no burst to catch up after a slow answer
      const request = requests[turn++ % requests.length]!;
      const sent = performance.now();
      total++;
      try {
        const res = await pool.request({ method: 'POST', path: request.path, headers: request.headers, body: request.body });
        const body = await res.body.text();
        latencyMs.push(performance.now() - sent);
        const problem = problemWith(request, res.statusCode, body);
        if (problem !== undefined) note(problem);
      } catch (error) {
        note(`${request.name}: ${(error as { code?: string }).code ?? ''} ${(error as Error).message}`);
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: options.connections }, (_, n) => loop(n)));
  } finally {
    await pool.close();
  }
  return { requests: total, clientErrors, errorSamples, latencyMs };
}
