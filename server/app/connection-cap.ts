import { readFileSync } from 'node:fs';

/** Used when the open-file limit cannot be read (not Linux). */
const FALLBACK_CAP = 4096;
/** Share of the descriptors the data plane's client connections may take, all workers together. */
const CLIENT_SHARE = 0.4;

/**
 * `server.max_connections`, per data-plane worker. "auto": 40% of the process's open-file limit,
 * shared among the workers: each client connection may hold an upstream connection too, and the
 * rest is left for the admin plane, the store, hooks and logs, so a full data plane never starves them.
 */
export function connectionCap(configured: number | 'auto', workers: number, limitsFile = '/proc/self/limits'): number {
  if (configured !== 'auto') return configured;
  const limit = openFileLimit(limitsFile);
  if (limit === undefined) return FALLBACK_CAP;
  return Math.max(1, Math.floor((limit * CLIENT_SHARE) / workers));
}

/** The soft RLIMIT_NOFILE (Node raises it to the hard limit as it starts), from /proc on Linux. */
function openFileLimit(file: string): number | undefined {
  try {
    const line = readFileSync(file, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const soft = line?.slice('Max open files'.length).trim().split(/\s+/)[0];
    if (soft === undefined || soft === 'unlimited') return undefined;
    const n = Number(soft);
    return Number.isSafeInteger(n) && n > 0 ? n : undefined;
  } catch {
    return undefined;
  }
}
