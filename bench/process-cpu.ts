import { readFileSync } from 'node:fs';

/**
 * User + system CPU time of a process in microseconds, from /proc: every thread of the process,
 * so a gateway's worker threads are counted. Linux clock ticks are 100 Hz: 10 ms resolution, which
 * is why CPU is read over whole samples of thousands of requests, never per request.
 */
export function processCpuMicros(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of the line)
  return ticks * 10_000;
}

/**
 * Of the RSS, the anonymous part in MiB (RssAnon: heaps, stacks, malloc): what the process costs
 * the machine of its own. The rest is mostly the node executable's own pages (file-backed, shared
 * with every node process and given back under pressure): about 30 MiB for a bare node, 60 MiB
 * for a gateway, which runs more of node's code (its compilers, ICU, OpenSSL).
 */
export function processAnonRssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/RssAnon:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

/** Resident set size in MiB (the whole process, all threads). */
export function processRssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}
