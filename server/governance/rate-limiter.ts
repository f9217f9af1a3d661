/** Milliseconds on a monotonic clock; injected so tests can drive time. */
export interface MillisecondClock {
  now(): number;
}

export const RATE_WINDOW_MS = 60_000;

export type RateDecision =
  | { readonly allowed: true }
  /** retryAfterSeconds is when the oldest counted request leaves the window, rounded up. */
  | { readonly allowed: false; readonly retryAfterSeconds: number; readonly retryAfterMs: number };

/** Admission times of one key, oldest first, in a ring that grows to at most its rpm. */
interface RequestLog {
  times: Float64Array;
  start: number;
  count: number;
}

const INITIAL_CAPACITY = 8;

/**
 * Requests per minute per key, exact: a sliding log. A request is admitted when fewer than `rpm`
 * admitted requests lie in the 60 s before it, so no 60 s window ever holds more than `rpm` (a
 * fixed window lets 2× through across its boundary; GCRA lets a full burst plus the steady rate).
 * Memory: the logs are kept in order of their newest admission, and every take drops the ones
 * whose newest admission has left the window, so only keys active in the last minute hold state.
 * Not persisted: a restart forgets at most one window.
 */
export class RateLimiter {
  readonly #clock: MillisecondClock;
  readonly #logs = new Map<string, RequestLog>();

  constructor(clock: MillisecondClock) {
    this.#clock = clock;
  }

  take(keyId: string, rpm: number): RateDecision {
    if (!Number.isSafeInteger(rpm) || rpm < 1) throw new RangeError(`rpm must be a whole number of at least 1 (got ${rpm})`);
    const now = this.#clock.now();
    this.#sweep(now);
    let log = this.#logs.get(keyId);
    if (log !== undefined) expire(log, now);
    if (log !== undefined && log.count >= rpm) {
      const retryAfterMs = log.times[log.start]! + RATE_WINDOW_MS - now;
      return { allowed: false, retryAfterMs, retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMs / 1000)) };
    }
    if (log === undefined) log = { times: new Float64Array(Math.min(rpm, INITIAL_CAPACITY)), start: 0, count: 0 };
    else this.#logs.delete(keyId); // re-inserted below: the map stays ordered by newest admission
    push(log, Math.max(now, newest(log) ?? now), rpm);
    this.#logs.set(keyId, log);
    return { allowed: true };
  }

  /** Takes back the newest admission: a request refused afterwards for another reason does not count. */
  refund(keyId: string): void {
    const log = this.#logs.get(keyId);
    if (log === undefined || log.count === 0) return;
    log.count--;
    if (log.count === 0) this.#logs.delete(keyId);
  }

  /** Keys holding state (for tests and metrics). */
  get trackedKeys(): number {
    return this.#logs.size;
  }

  /** Drops logs from the front (oldest newest-admission first) until one is still in the window. */
  #sweep(now: number): void {
    for (const [keyId, log] of this.#logs) {
      const last = newest(log);
      if (last !== undefined && last > now - RATE_WINDOW_MS) return;
      this.#logs.delete(keyId);
    }
  }
}

function expire(log: RequestLog, now: number): void {
  while (log.count > 0 && log.times[log.start]! <= now - RATE_WINDOW_MS) {
    log.start = (log.start + 1) % log.times.length;
    log.count--;
  }
}

function newest(log: RequestLog): number | undefined {
  return log.count === 0 ? undefined : log.times[(log.start + log.count - 1) % log.times.length];
}

function push(log: RequestLog, time: number, rpm: number): void {
  if (log.count === log.times.length) {
    const grown = new Float64Array(Math.min(Math.max(rpm, log.count + 1), log.times.length * 2));
    for (let i = 0; i < log.count; i++) grown[i] = log.times[(log.start + i) % log.times.length]!;
    log.times = grown;
    log.start = 0;
  }
  log.times[(log.start + log.count) % log.times.length] = time;
  log.count++;
}
