/**
 * The first lines a background thread runs (as eval'd script, before its own code loads): it lowers
 * its own CPU priority to the lowest (nice 19). A reload's candidate is parsed on such a thread (and
 * the embedded store's usage reports are summed on another, governance/usage-thread.ts); at
 * normal priority it takes a whole core while it starts and parses (tens of milliseconds for a
 * large config.yaml, most of a second for the thread's first start), and on a small machine the
 * serving threads then wait for CPU, which shows as a tail of slow requests during reloads. At nice
 * 19 the scheduler gives the loader only what the serving threads leave.
 *
 * Linux only: setpriority() on a thread id (from /proc/thread-self) applies to that thread alone.
 * Elsewhere, or if the kernel refuses, the thread keeps its priority and works the same.
 */
export const LOWEST_PRIORITY_PRELUDE = `try {
  const tid = Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop());
  if (Number.isInteger(tid) && tid > 0) require('node:os').setPriority(tid, 19);
} catch {}
`;
