import type { Logger } from '../../shared/logger.ts';

export interface LeaseOptions {
  /** Runs a statement on the pool (failures are the caller's store-outage bookkeeping). */
  readonly query: <R extends Record<string, unknown>>(text: string, values: unknown[]) => Promise<R[]>;
  /** The reservations this node holds now. */
  readonly held: () => Iterable<number>;
  readonly leaseMs: number;
  /** p_now and p_window_now of the PL/pgSQL (null: the database's clock). */
  readonly periodNow: () => number | null;
  readonly windowNow: () => number | null;
  readonly log: Logger;
}

/**
 * The two timers of the lease rule on one node: every third of the lease it renews the leases of
 * the reservations it holds, and about as often (jittered, so a fleet does not sweep in step) it
 * runs gateway_expire_leases, which charges what a dead node left at its worst case. Any node may
 * sweep (the second to lock a key finds its reservations gone). The same timer trims the rpm and
 * tpm windows of keys that stopped asking.
 */
export function startLeases(options: LeaseOptions): { stop(): void } {
  const { query, leaseMs, log } = options;
  const every = Math.max(100, Math.floor(leaseMs / 3));
  const renew = setInterval(() => {
    const ids = [...options.held()];
    if (ids.length === 0) return;
    query("UPDATE gateway_reservations SET lease_until = clock_timestamp() + $2::bigint * interval '1 millisecond' WHERE id = ANY($1::bigint[])", [
      ids,
      leaseMs,
    ]).catch((error: unknown) => log.warn({ err: error }, 'could not renew the leases of the reservations in flight (will retry)'));
  }, every);
  renew.unref();
  const expire = setInterval(
    () => {
      query<Record<string, unknown>>('SELECT gateway_trim_windows($1::bigint)', [options.windowNow()]).catch(() => undefined);
      query<{ n: number }>('SELECT gateway_expire_leases($1::bigint, $2::bigint) AS n', [options.periodNow(), options.windowNow()]).then(
        (rows) => {
          const n = rows[0]?.n ?? 0;
          if (n > 0)
            log.warn({ reservations: n }, 'reservations whose node stopped renewing them expired: charged at their reserved worst case (the lease rule)');
        },
        () => undefined,
      );
    },
    every + Math.floor(Math.random() * every),
  );
  expire.unref();
  return {
    stop() {
      clearInterval(renew);
      clearInterval(expire);
    },
  };
}
