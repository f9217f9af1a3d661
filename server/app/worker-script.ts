import { getAsset, isSea } from 'node:sea';
import { WORKER_RESOURCE_LIMITS } from './heap-sizing.ts';

type WorkerArgs = [filename: string | URL, options: { eval?: true; resourceLimits: typeof WORKER_RESOURCE_LIMITS }];

/**
 * What a data-plane worker thread runs, with its heap limits (heap-sizing.ts). From source:
 * worker-entry.ts. In the single executable there is no file to point at, so the worker evaluates
 * worker-entry.ts bundled on its own (the SEA asset `worker.cjs`, see build/build-binary.ts).
 *
 * Not used: Node's module compile cache for the workers' TypeScript (it saved about 6.5 MiB of
 * idle memory with two workers by never loading the type stripper after the first start). Started
 * from an evaluated script, a cold cache once printed a Node warning about a circular CommonJS
 * dependency (@smithy/util-utf8) on a gateway's stderr in CI, which this file's plain entry never did.
 */
export function workerScript(): WorkerArgs {
  const options = { resourceLimits: WORKER_RESOURCE_LIMITS };
  if (isSea()) return [getAsset('worker.cjs', 'utf8'), { ...options, eval: true }];
  return [new URL('./worker-entry.ts', import.meta.url), options];
}
