import { getAsset, isSea } from 'node:sea';
import { WORKER_RESOURCE_LIMITS } from './heap-sizing.ts';

type WorkerArgs = [filename: string, options: { eval: true; resourceLimits: typeof WORKER_RESOURCE_LIMITS }];

/**
 * What a data-plane worker thread runs, with its heap limits (heap-sizing.ts). In the single
 * executable there is no file to point at, so the worker evaluates worker-entry.ts bundled on its
 * own (the SEA asset `worker.cjs`, see build/build-binary.ts).
 *
 * From source, each thread strips the types of every TypeScript file it loads with a WebAssembly
 * parser (amaro) of its own, about 17 MiB that stay for the thread's life. With Node's module
 * compile cache on before the first file loads, a file whose stripped form is cached (by path and
 * content, in NODE_COMPILE_CACHE or the system's temporary folder) never reaches the parser, so
 * after the first start the worker never loads it; the cache is written once the worker's
 * modules have loaded, so the next start finds it.
 */
export function workerScript(): WorkerArgs {
  const options = { eval: true, resourceLimits: WORKER_RESOURCE_LIMITS } as const;
  if (isSea()) return [getAsset('worker.cjs', 'utf8'), options];
  const entry = JSON.stringify(new URL('./worker-entry.ts', import.meta.url).href);
  return [`const m = require('node:module'); m.enableCompileCache(); import(${entry}).then(() => m.flushCompileCache());`, options];
}
