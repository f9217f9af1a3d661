// RSS of the gateway processes (and the peers' process trees) over a run: idle after start (read
// by Fleet), the peak while load runs at each connection count of the throughput section and over
// the whole run (sampled every 250 ms), and after the load has stopped.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Fleet, TargetName } from './fleet.ts';
import { treeRssMiB } from './process-tree.ts';

export interface MemoryRow {
  readonly variant: TargetName;
  /** Data-plane workers (a peer: its worker processes as configured, or 1). */
  readonly workers: number;
  readonly idleMiB: number;
  /** The anonymous part of the idle RSS (without the node executable's own pages); NaN for a peer. */
  readonly idleAnonMiB: number;
  readonly peakMiB: number;
  /** The peak while the throughput section ran at each connection count (absent when it did not run). */
  readonly peakAtMiB: Readonly<Record<number, number>>;
  readonly afterMiB: number;
  /** Idle RSS divided by the data-plane workers (the target is per worker). */
  readonly idlePerWorkerMiB: number;
}

const SAMPLE_MS = 250;
/** After the load, a pause so in-flight work ends and the number is what stays. */
const AFTER_LOAD_PAUSE_MS = 2000;

export class PeakRss {
  private readonly peaks = new Map<number, number>();
  /** Peaks by connection count, while the throughput section runs at that count. */
  private readonly phasePeaks = new Map<number, Map<number, number>>();
  private phase: Map<number, number> | undefined;
  private readonly timer: NodeJS.Timeout;
  private readonly pids: readonly number[];

  constructor(pids: readonly number[]) {
    this.pids = pids;
    this.timer = setInterval(() => this.sample(), SAMPLE_MS);
    this.timer.unref();
  }

  /** From now on, samples also count towards the peak at `connections` (undefined: no phase). */
  enter(connections: number | undefined): void {
    this.sample();
    if (connections === undefined) this.phase = undefined;
    else {
      if (!this.phasePeaks.has(connections)) this.phasePeaks.set(connections, new Map());
      this.phase = this.phasePeaks.get(connections);
    }
  }

  private sample(): void {
    for (const pid of this.pids) {
      try {
        const rss = treeRssMiB(pid);
        this.peaks.set(pid, Math.max(this.peaks.get(pid) ?? 0, rss));
        this.phase?.set(pid, Math.max(this.phase.get(pid) ?? 0, rss));
      } catch {
        // the process has exited; its last peak stands
      }
    }
  }

  peakOf(pid: number): number {
    return this.peaks.get(pid) ?? Number.NaN;
  }

  peaksAt(pid: number): Record<number, number> {
    const out: Record<number, number> = {};
    for (const [connections, peaks] of this.phasePeaks) {
      const v = peaks.get(pid);
      if (v !== undefined) out[connections] = v;
    }
    return out;
  }

  stop(): void {
    this.sample();
    clearInterval(this.timer);
  }
}

export async function memoryRows(fleet: Fleet, peak: PeakRss): Promise<MemoryRow[]> {
  peak.stop();
  await sleep(AFTER_LOAD_PAUSE_MS);
  const row = (variant: TargetName, pid: number, workers: number, idleMiB: number, idleAnonMiB = Number.NaN): MemoryRow => ({
    variant,
    workers,
    idleMiB,
    idleAnonMiB,
    peakMiB: Math.max(idleMiB, peak.peakOf(pid)),
    peakAtMiB: peak.peaksAt(pid),
    afterMiB: treeRssMiB(pid),
    idlePerWorkerMiB: idleMiB / workers,
  });
  return [
    ...[...fleet.gateways.entries()].map(([variant, g]) => row(variant, g.server.pid, g.workers, g.idleRssMiB, g.idleAnonRssMiB)),
    ...[...fleet.peers.entries()].map(([name, p]) => row(name, p.pid, 1, fleet.peerIdleRssMiB.get(name) ?? Number.NaN)),
  ];
}
