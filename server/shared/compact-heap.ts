// A thread's heap given back once its start is done. Starting a thread (loading modules, the
// catalog, validators; the configuration loader's ten warm-up loads) allocates far more than it
// keeps, and nearly all of it survives its first scavenges, so V8 grows the thread's young
// generation to its cap (two 8 MiB semi-spaces, app/heap-sizing.ts) and leaves the old generation
// fragmented. V8 gives that back only when its memory reducer sees the thread idle, 8 s or more
// after start. The configuration loader thread held 38.5 MiB of heap idle, 16.4 after this.
//
// That collection is V8's "last resort" one (CollectAllAvailableGarbage: full collections with
// the reduce-memory flag, the young generation shrunk to its minimum). Node exposes it only through
// the `gc` function of --expose-gc. A regular major collection gives back nothing here.
//
// Where the gc function comes from decides which threads may do it:
// - Started with --expose-gc (the main thread's flags, app/heap-sizing.ts: dist/gateway, make run,
//   the bench), every thread's global has it: it is taken once and cleared from the global, and any
//   thread may compact, serving threads included.
// - Otherwise it is taken from a second V8 context made while the flag is on for a moment (the flag
//   is part of the hash V8 checks code caches against, and later contexts must not get a global
//   `gc`). Only for threads that serve no requests: one more context in a serving isolate, even
//   made and dropped at start, cost that isolate 1.3-1.65x the CPU per request for as long as it
//   ran (bench/RESULTS.md, session 7, mem). So a serving thread without the flag does not compact.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type GcFunction = (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

/** This thread's gc function: undefined until first asked, null when it cannot be had. */
let collect: GcFunction | null | undefined;
/** Whether `collect` came from the global of --expose-gc (no context was made for it). */
let exposed = false;

/**
 * The global gc of --expose-gc, taken once and cleared, so no other code of this thread sees it. V8
 * declares it like a top-level function (not configurable, so `delete` throws in strict code) but
 * writable.
 */
function takeExposedGc(): void {
  if (collect !== undefined) return;
  const global = globalThis as { gc?: unknown };
  if (typeof global.gc !== 'function') return;
  collect = global.gc as GcFunction;
  exposed = true;
  global.gc = undefined;
}

function gcFromContext(): GcFunction | null {
  try {
    setFlagsFromString('--expose-gc');
    const fn: unknown = runInNewContext('gc');
    return typeof fn === 'function' ? (fn as GcFunction) : null;
  } catch {
    return null;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
}

/**
 * Gives back what this thread's start left behind (a few tens of milliseconds of this thread, once).
 * `serving`: the thread serves requests, so it compacts only with the gc of --expose-gc and never
 * makes a context for it (see above). Does nothing where V8's gc function cannot be had.
 */
export function compactHeap(thread: 'serving' | 'helper'): void {
  takeExposedGc();
  if (collect === undefined && thread === 'helper') collect = gcFromContext();
  if (thread === 'serving' && !exposed) return;
  collect?.({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}
