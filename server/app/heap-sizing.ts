// How large V8 lets each serving thread's young generation grow. V8 sizes the semi-spaces from the
// machine's memory: on a 24 GB host each thread's young generation grew to 128 MiB under load
// (64 MiB semi-spaces), about 40% of the gateway's RSS at 128 connections, for garbage that dies
// young anyway (request bodies, parsed JSON, socket reads). Capped at 8 MiB per semi-space, the
// scavenges run more often over the same few MiB of live objects: RSS at 128 connections fell
// from 720 to 452 MiB with two workers (bench/RESULTS.md, issue 19), CPU per request within the
// run's noise.

/** The cap on one semi-space, in MiB (V8's --max-semi-space-size). */
export const SEMI_SPACE_MIB = 8;

/**
 * Node flags the main thread must be started with (the single executable carries them in its SEA
 * configuration; `make run` and the bench pass them to node): the main thread's heap is made
 * before any of the gateway's code runs.
 */
export const MAIN_THREAD_NODE_FLAGS: readonly string[] = [
  `--max-semi-space-size=${SEMI_SPACE_MIB}`,
  // V8's gc function in every thread's global (V8 flags are the process's), so each serving thread
  // gives back what its start left behind without the second V8 context that costs it CPU for as
  // long as it runs (shared/compact-heap.ts takes the function and clears the global).
  '--expose-gc',
];

/**
 * A worker thread's isolate is made by the gateway, which sets its heap itself. V8's young
 * generation is three semi-spaces' worth (the two semi-spaces and as much again for large objects).
 */
export const WORKER_RESOURCE_LIMITS = { maxYoungGenerationSizeMb: 3 * SEMI_SPACE_MIB } as const;
