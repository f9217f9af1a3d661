import { getAsset, isSea } from 'node:sea';

type WorkerArgs = [filename: string | URL, options?: { eval: true }];

/**
 * What a data-plane worker thread runs. From source: worker-entry.ts. In the single executable
 * there is no file to point at, so the worker evaluates the executable's own bundle (kept as the
 * SEA asset `gateway.cjs`), whose entry starts the worker when it finds itself off the main thread.
 */
export function workerScript(): WorkerArgs {
  if (isSea()) return [getAsset('gateway.cjs', 'utf8'), { eval: true }];
  return [new URL('./worker-entry.ts', import.meta.url)];
}
