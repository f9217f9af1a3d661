import type { ServerResponse } from 'node:http';

/** Aborts when the client's connection closes before its answer was fully written (it left). */
export function clientGoneSignal(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}
