/**
 * Counters are plain records of numbers: cheap to copy into a snapshot, and a snapshot from each
 * worker thread adds up field by field.
 */
export interface GateCounters {
  /** Questions asked. */
  calls: number;
  /** The gate's own answers. */
  allowed: number;
  denied: number;
  /** Calls without a usable answer (timeout, network, non-2xx, bad JSON); on_error decided those. */
  errors: number;
}

export interface WebhookCounters {
  /** Events waiting in the queue now (not counting those being sent). */
  queued: number;
  /** POSTs in flight now. */
  inFlight: number;
  /** Events the receiver took (a 2xx answer). */
  delivered: number;
  /** Events given up on: retries used up, or an answer not worth retrying (a 4xx other than 408/429). */
  failed: number;
  /** Further tries after a failed one. */
  retries: number;
  /** Events never sent: the queue was full, or the gateway stopped before they could be. */
  dropped: number;
}
