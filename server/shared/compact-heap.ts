// A helper thread's heap given back once its start is done. Starting a thread (loading modules,
// the catalog, validators; the configuration loader's ten warm-up loads) allocates far more than it
// keeps, and nearly all of it survives its first scavenges, so V8 grows the thread's young
// generation to its cap (two 8 MiB semi-spaces, app/heap-sizing.ts) and leaves the old generation
// fragmented. V8 gives that back only when its memory reducer sees the thread idle, 8 s or more
// after start. The configuration loader thread held 38.5 MiB of heap idle, 16.4 after this.
//
// Only for threads that serve no requests: done on a serving thread at its start (main thread,
// data-plane workers) it gave back 15-20 MiB each, but the thread then served at 1.3-1.65x the CPU
// per request for as long as it ran. The cost is the second V8 context the gc function is taken
// from (below): one context made with `vm` in a serving isolate, even dropped at once, cost that
// much alone (bench/RESULTS.md, session 7, mem). The loader thread serves nothing.
//
// That collection is V8's "last resort" one (CollectAllAvailableGarbage: full collections with
// the reduce-memory flag, the young generation shrunk to its minimum). Node exposes it only through
// the `gc` function of --expose-gc, so the function is taken once per thread from a context made
// while the flag is on, and the flag is set back at once: it is part of the flag hash V8 checks
// code caches against (the single executable's), and it must not give later contexts a global
// `gc`. A regular major collection gives back nothing here.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type GcFunction = (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

/** This thread's gc function: undefined until first asked, null when it cannot be had. */
let collect: GcFunction | null | undefined;

function gcFunction(): GcFunction | null {
  if (collect !== undefined) return collect;
  // Started with --expose-gc (a test, a profile): use it and leave the flag as it is.
  const exposed = (globalThis as { gc?: unknown }).gc;
  if (typeof exposed === 'function') return (collect = exposed as GcFunction);
  try {
    setFlagsFromString('--expose-gc');
    const fn: unknown = runInNewContext('gc');
    collect = typeof fn === 'function' ? (fn as GcFunction) : null;
  } catch {
    collect = null;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
  return collect;
}

/**
 * Gives back what this thread's start left behind (a few tens of milliseconds of this thread, once).
 * Not on a serving thread (see above). Does nothing where V8's gc function cannot be had.
 */
export function compactHeap(): void {
  gcFunction()?.({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}
