// How busy the whole machine was during a phase of a benchmark, and how much of that was not the
// benchmark's own processes: on a shared machine (other builds and tests on the same cores) a slow
// request may be someone else's doing, and the phase's numbers should say so.
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { processCpuMicros } from './process-cpu.ts';

export interface CpuReading {
  readonly at: number;
  /** Busy CPU time of every core since boot, in µs (user, nice, system, irq, softirq, steal). */
  readonly machineMicros: number;
  /** CPU time of the benchmark's own processes (every thread), in µs. */
  readonly ownMicros: number;
}

export interface PhaseCpu {
  /** Share of all cores that was busy, in percent. */
  readonly machinePercent: number;
  /** Share of all cores busy with processes other than the benchmark's own, in percent. */
  readonly othersPercent: number;
}

export function readCpu(pids: readonly number[]): CpuReading {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal (guest time is already inside user and nice)
  const busyTicks = fields.slice(0, 8).reduce((sum, v, i) => (i === 3 || i === 4 ? sum : sum + v), 0);
  let ownMicros = 0;
  for (const pid of pids) {
    try {
      ownMicros += processCpuMicros(pid);
    } catch {
      // the process has ended: its share is counted as others' (rare, at the very end)
    }
  }
  return { at: performance.now(), machineMicros: busyTicks * 10_000, ownMicros };
}

export function phaseCpu(from: CpuReading, to: CpuReading): PhaseCpu {
  const capacity = (to.at - from.at) * 1000 * availableParallelism();
  const machine = to.machineMicros - from.machineMicros;
  const others = Math.max(0, machine - (to.ownMicros - from.ownMicros));
  const percent = (micros: number) => Math.round((1000 * micros) / Math.max(1, capacity)) / 10;
  return { machinePercent: percent(machine), othersPercent: percent(others) };
}
