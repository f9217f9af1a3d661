/** Chat requests being handled now (from arrival to their record), for /stats and metrics. */
export class RequestsInFlight {
  private count = 0;

  enter(): void {
    this.count++;
  }

  leave(): void {
    if (this.count > 0) this.count--;
  }

  get current(): number {
    return this.count;
  }
}
