// What V8's collector did in one process, summed from its --trace-gc-nvp lines (bench/ab-tail.ts,
// bench/upstream-clients.ts).

/** The collector's running totals on one process, from its --trace-gc-nvp lines. */
export class GcTally {
  scavenges = 0;
  /** Bytes allocated, summed over every collection's `allocated` (what was allocated since the one before). */
  allocated = 0;
  promoted = 0;
  markCompacts = 0;
  maxPauseMs = 0;
  line(text: string): void {
    const gc = / gc=(\w+) /.exec(text)?.[1];
    if (gc === undefined) return;
    const pause = Number(/pause=([\d.]+)/.exec(text)?.[1] ?? 0);
    if (pause > this.maxPauseMs) this.maxPauseMs = pause;
    this.allocated += Number(/ allocated=(\d+)/.exec(text)?.[1] ?? 0);
    if (gc === 's') {
      this.scavenges++;
      this.promoted += Number(/ promoted=(\d+)/.exec(text)?.[1] ?? 0);
    } else if (gc === 'mc' || gc === 'mmc') this.markCompacts++;
  }
  snapshot(): { scavenges: number; allocated: number; promoted: number; markCompacts: number } {
    this.maxPauseMs = 0;
    return { scavenges: this.scavenges, allocated: this.allocated, promoted: this.promoted, markCompacts: this.markCompacts };
  }
}
