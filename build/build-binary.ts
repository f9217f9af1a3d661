// make binary: dist/gateway, one executable with everything the gateway needs at run time (no
// node_modules, no checkout), built with the steps in sea.ts:
//   1. bundle   server/main.ts and its dependencies into one CommonJS script, and
//               server/app/worker-entry.ts into another (worker threads), and
//               server/config/config-loader-entry.ts into a third (the reload's loader thread), and
//               server/governance/usage-thread-entry.ts into a fourth (the usage reports' thread),
//               with spec/openapi.json and package.json inlined (they are imports);
//   2-5.        the SEA blob (the script, its code cache, and as assets the shipped catalog and the
//               other threads' scripts: server/config/catalog.ts reads it with node:sea's getAsset),
//               a copy of the pinned node, postject, chmod.
// Run with the repo's Node: `node build/build-binary.ts` (what `make binary` does, followed by
// build/build-cli.ts for dist/gateway-admin).
import { join } from 'node:path';
import { MAIN_THREAD_NODE_FLAGS } from '../server/app/heap-sizing.ts';
import { assertPinnedNode, bundle, DIST, makeExecutable, ROOT, workDirectory } from './sea.ts';

assertPinnedNode();
const work = workDirectory('gateway');

// The gateway, and the data-plane worker's own smaller script (no admin plane, config loading or
// store: each worker thread holds only what serving needs).
// depd (a koa dependency) builds wrappers with eval on purpose; nothing else is expected.
const expected = (code: string | undefined, id: string) => code === 'EVAL' && /[\\/]depd[\\/]/.test(id);
await bundle('server/main.ts', join(work, 'gateway.cjs'), { format: 'cjs', expected });
await bundle('server/app/worker-entry.ts', join(work, 'worker.cjs'), { format: 'cjs', expected });
// The thread that loads a configuration offered to a running gateway (SIGHUP, reload, apply).
await bundle('server/config/config-loader-entry.ts', join(work, 'config-loader.cjs'), { format: 'cjs', expected });
// The thread that answers the admin plane's usage reports from a read-only connection to the store.
await bundle('server/governance/usage-thread-entry.ts', join(work, 'usage-thread.cjs'), { format: 'cjs', expected });

makeExecutable({
  work,
  main: 'gateway.cjs',
  // Asset name -> file; the names are the ones the server asks node:sea for.
  assets: {
    'catalog/providers.yaml': join(ROOT, 'catalog/providers.yaml'),
    'worker.cjs': 'worker.cjs',
    'config-loader.cjs': 'config-loader.cjs',
    'usage-thread.cjs': 'usage-thread.cjs',
  },
  output: join(DIST, 'gateway'),
  // The main thread's heap is made before the bundle runs: its flags go in the executable (the
  // worker threads' limits are set where they are started).
  execArgv: MAIN_THREAD_NODE_FLAGS,
});
