import { getAsset, isSea } from 'node:sea';

type WorkerArgs = [filename: string | URL, options?: { eval: true }];

/**
 * What a data-plane worker thread runs. From source: worker-entry.ts. In the single executable
 * there is no file to point at, so the worker evaluates worker-entry.ts bundled on its own (the
 * SEA asset `worker.cjs`, see build/build-binary.ts).
 */
export function workerScript(): WorkerArgs {
  if (isSea()) return [getAsset('worker.cjs', 'utf8'), { eval: true }];
  return [new URL('./worker-entry.ts', import.meta.url)];
}
