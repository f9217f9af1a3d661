/**
 * Attempts and failures over a sliding time window, kept in fixed buckets so an idle lane costs
 * nothing and old results age out (a count-based window would keep a failure from an hour ago).
 * The buckets live in a Float64Array slice (the breaker cell's shared memory): attempts, failures,
 * then each bucket's time stamp plus one, so zeroed memory is an empty window.
 */
export class FailureWindow {
  private readonly bucketMs: number;
  private readonly buckets: number;
  private readonly store: Float64Array;

  /** Float64 fields a window of `buckets` needs. */
  static fields(buckets: number): number {
    return buckets * 3;
  }

  constructor(windowMs: number, store: Float64Array, buckets = 6) {
    if (store.length < FailureWindow.fields(buckets)) throw new Error('failure window storage too small');
    this.bucketMs = Math.max(1, Math.ceil(windowMs / buckets));
    this.buckets = buckets;
    this.store = store;
  }

  record(now: number, failed: boolean): void {
    const slot = this.slot(now);
    this.store[slot] = this.store[slot]! + 1;
    if (failed) this.store[this.buckets + slot] = this.store[this.buckets + slot]! + 1;
  }

  totals(now: number): { attempts: number; failures: number } {
    const current = Math.floor(now / this.bucketMs);
    let attempts = 0;
    let failures = 0;
    for (let i = 0; i < this.buckets; i++) {
      const stamped = this.store[2 * this.buckets + i]!;
      if (stamped !== 0 && current - (stamped - 1) < this.buckets) {
        attempts += this.store[i]!;
        failures += this.store[this.buckets + i]!;
      }
    }
    return { attempts, failures };
  }

  reset(): void {
    this.store.fill(0, 2 * this.buckets, 3 * this.buckets);
  }

  private slot(now: number): number {
    const stamp = Math.floor(now / this.bucketMs);
    const slot = stamp % this.buckets;
    if (this.store[2 * this.buckets + slot] !== stamp + 1) {
      this.store[2 * this.buckets + slot] = stamp + 1;
      this.store[slot] = 0;
      this.store[this.buckets + slot] = 0;
    }
    return slot;
  }
}
