// A real HTTP server standing in for a hook's endpoint (a policy service, an audit collector).
// Each request is recorded; the answer comes from the test's `respond` function.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedCall {
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly text: string;
  readonly json: unknown;
}

/** Writes the answer; may wait first. Return 'hang' to never answer (until close). */
export type Respond = (call: ReceivedCall, res: ServerResponse, index: number) => void | 'hang' | Promise<void | 'hang'>;

export interface HookReceiver {
  /** e.g. http://127.0.0.1:43210 */
  readonly url: string;
  readonly calls: ReceivedCall[];
  respond: Respond;
  /** Resolves once `count` calls have arrived (or rejects after `timeoutMs`). */
  waitForCalls(count: number, timeoutMs?: number): Promise<ReceivedCall[]>;
  reset(): void;
  close(): Promise<void>;
}

export const answerJson = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

export async function startHookReceiver(respond: Respond = (_, res) => answerJson(res, 200, { allow: true })): Promise<HookReceiver> {
  const calls: ReceivedCall[] = [];
  let waiters: { count: number; resolve: () => void }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      const call = { path: req.url ?? '', headers: req.headers, text, json };
      calls.push(call);
      const due = waiters.filter((w) => calls.length >= w.count);
      waiters = waiters.filter((w) => calls.length < w.count);
      for (const w of due) w.resolve();
      void Promise.resolve(receiver.respond(call, res, calls.length - 1)).catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const receiver: HookReceiver = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    respond,
    waitForCalls(count, timeoutMs = 5000) {
      if (calls.length >= count) return Promise.resolve(calls.slice());
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`expected ${count} hook calls, got ${calls.length}`)), timeoutMs);
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve(calls.slice());
          },
        });
      });
    },
    reset() {
      calls.length = 0;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return receiver;
}
