/**
 * Attempts and failures over a sliding time window, kept in fixed buckets so an idle lane costs
 * nothing and old results age out (a count-based window would keep a failure from an hour ago).
 */
export class FailureWindow {
  private readonly bucketMs: number;
  private readonly attempts: number[];
  private readonly failures: number[];
  private readonly stamps: number[];

  constructor(windowMs: number, buckets = 6) {
    this.bucketMs = Math.max(1, Math.ceil(windowMs / buckets));
    this.attempts = new Array<number>(buckets).fill(0);
    this.failures = new Array<number>(buckets).fill(0);
    this.stamps = new Array<number>(buckets).fill(-1);
  }

  record(now: number, failed: boolean): void {
    const slot = this.slot(now);
    this.attempts[slot]! += 1;
    if (failed) this.failures[slot]! += 1;
  }

  totals(now: number): { attempts: number; failures: number } {
    const current = Math.floor(now / this.bucketMs);
    let attempts = 0;
    let failures = 0;
    for (let i = 0; i < this.stamps.length; i++) {
      if (current - this.stamps[i]! < this.stamps.length) {
        attempts += this.attempts[i]!;
        failures += this.failures[i]!;
      }
    }
    return { attempts, failures };
  }

  reset(): void {
    this.stamps.fill(-1);
  }

  private slot(now: number): number {
    const stamp = Math.floor(now / this.bucketMs);
    const slot = stamp % this.stamps.length;
    if (this.stamps[slot] !== stamp) {
      this.stamps[slot] = stamp;
      this.attempts[slot] = 0;
      this.failures[slot] = 0;
    }
    return slot;
  }
}
