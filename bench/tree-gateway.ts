// How the A/B tools start a gateway from a source tree: as `make run` starts it, node with that
// tree's own main-thread flags (its server/app/heap-sizing.ts), so a tree that changes the flags is
// measured with them, and neither side runs V8's host-sized young generation, which no user runs.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * The command and arguments that run `<tree>/server/main.ts` with `args`; a file instead of a tree is
 * a gateway executable (`dist/gateway`, its flags inside), run as it is: the checkout against the
 * single executable in one A/B.
 */
export async function treeGateway(tree: string, args: readonly string[]): Promise<[string, string[]]> {
  if (statSync(tree).isFile()) return [tree, [...args]];
  const sizing = (await import(pathToFileURL(join(tree, 'server/app/heap-sizing.ts')).href)) as { MAIN_THREAD_NODE_FLAGS?: readonly string[] };
  return [process.execPath, [...(sizing.MAIN_THREAD_NODE_FLAGS ?? []), join(tree, 'server/main.ts'), ...args]];
}
