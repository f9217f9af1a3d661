/**
 * A lane's `max_concurrent`: attempts beyond it are not started on that lane (the pool moves on).
 * The count lives in the shared routing memory, so the limit holds across worker threads; each
 * worker also counts what it holds, so the slots of a worker that dies can be given back.
 */
export class LaneLimiter {
  private readonly max: number;
  private readonly total: Int32Array;
  private readonly index: number;
  private readonly mine: Int32Array;
  private readonly mineIndex: number;

  constructor(max: number | undefined, counters?: { total: Int32Array; index: number; mine: Int32Array; mineIndex: number }) {
    this.max = max ?? Number.POSITIVE_INFINITY;
    this.total = counters?.total ?? new Int32Array(new SharedArrayBuffer(4));
    this.index = counters?.index ?? 0;
    this.mine = counters?.mine ?? new Int32Array(new SharedArrayBuffer(4));
    this.mineIndex = counters?.mineIndex ?? 0;
  }

  tryAcquire(): boolean {
    for (;;) {
      const current = Atomics.load(this.total, this.index);
      if (current >= this.max) return false;
      if (Atomics.compareExchange(this.total, this.index, current, current + 1) === current) break;
    }
    Atomics.add(this.mine, this.mineIndex, 1);
    return true;
  }

  release(): void {
    if (Atomics.load(this.mine, this.mineIndex) <= 0) return;
    Atomics.sub(this.mine, this.mineIndex, 1);
    Atomics.sub(this.total, this.index, 1);
  }

  get current(): number {
    return Atomics.load(this.total, this.index);
  }
}
