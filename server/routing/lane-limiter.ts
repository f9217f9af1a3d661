/** A lane's `max_concurrent`: attempts beyond it are not started on that lane (the pool moves on). */
export class LaneLimiter {
  private inFlight = 0;
  private readonly max: number;

  constructor(max: number | undefined) {
    this.max = max ?? Number.POSITIVE_INFINITY;
  }

  tryAcquire(): boolean {
    if (this.inFlight >= this.max) return false;
    this.inFlight++;
    return true;
  }

  release(): void {
    if (this.inFlight > 0) this.inFlight--;
  }

  get current(): number {
    return this.inFlight;
  }
}
