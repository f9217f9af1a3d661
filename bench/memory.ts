// RSS of the gateway processes over a run: idle after start (read by Fleet), the peak seen while
// load runs (sampled every 250 ms), and after the load has stopped.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Fleet, GatewayVariant } from './fleet.ts';
import { processRssMiB } from './process-cpu.ts';

export interface MemoryRow {
  readonly variant: GatewayVariant;
  readonly workers: number;
  readonly idleMiB: number;
  readonly peakMiB: number;
  readonly afterMiB: number;
  /** Idle RSS divided by the data-plane workers (the target is per worker). */
  readonly idlePerWorkerMiB: number;
}

const SAMPLE_MS = 250;
/** After the load, a pause so in-flight work ends and the number is what stays. */
const AFTER_LOAD_PAUSE_MS = 2000;

export class PeakRss {
  private readonly peaks = new Map<number, number>();
  private readonly timer: NodeJS.Timeout;
  private readonly pids: readonly number[];

  constructor(pids: readonly number[]) {
    this.pids = pids;
    this.timer = setInterval(() => this.sample(), SAMPLE_MS);
    this.timer.unref();
  }

  private sample(): void {
    for (const pid of this.pids) {
      try {
        this.peaks.set(pid, Math.max(this.peaks.get(pid) ?? 0, processRssMiB(pid)));
      } catch {
        // the process has exited; its last peak stands
      }
    }
  }

  peakOf(pid: number): number {
    return this.peaks.get(pid) ?? Number.NaN;
  }

  stop(): void {
    this.sample();
    clearInterval(this.timer);
  }
}

export async function memoryRows(fleet: Fleet, peak: PeakRss): Promise<MemoryRow[]> {
  peak.stop();
  await sleep(AFTER_LOAD_PAUSE_MS);
  return [...fleet.gateways.entries()].map(([variant, g]) => ({
    variant,
    workers: g.workers,
    idleMiB: g.idleRssMiB,
    peakMiB: Math.max(g.idleRssMiB, peak.peakOf(g.server.pid)),
    afterMiB: processRssMiB(g.server.pid),
    idlePerWorkerMiB: g.idleRssMiB / g.workers,
  }));
}
