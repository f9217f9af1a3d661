// How busy the whole machine was during a phase of a benchmark, and how much of that was not the
// benchmark's own processes: on a shared machine (other builds and tests on the same cores) a slow
// request may be someone else's doing, and the phase's numbers should say so.
import { readdirSync, readFileSync } from 'node:fs';
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

/** CPU time of one process by kind of thread, in ms: what a reload costs where, apart from the machine's noise. */
export interface ThreadCpu {
  /** The threads that serve requests: the main thread and the data-plane workers (normal priority). */
  readonly servingMs: number;
  /** Threads at the lowest priority (nice 19): the configuration loader. */
  readonly backgroundMs: number;
  /** V8's helper threads (garbage collection, compilation), shared by every thread of the process at normal priority. */
  readonly v8HelpersMs: number;
  /** Everything else (libuv's pool, the inspector, ...). */
  readonly otherMs: number;
}

/** Sums a process's threads from /proc/<pid>/task by name and nice value (10 ms ticks: read over seconds, not per request). */
export function readThreadCpu(pid: number): ThreadCpu {
  const sums = { servingMs: 0, backgroundMs: 0, v8HelpersMs: 0, otherMs: 0 };
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    } catch {
      continue; // the thread ended meanwhile
    }
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ms = (Number(fields[11]) + Number(fields[12])) * 10;
    const nice = Number(fields[16]);
    if (nice === 19) sums.backgroundMs += ms;
    else if (name === 'MainThread' || name === 'WorkerThread') sums.servingMs += ms;
    else if (name.startsWith('V8Worker')) sums.v8HelpersMs += ms;
    else sums.otherMs += ms;
  }
  return sums;
}

export function threadCpuBetween(from: ThreadCpu, to: ThreadCpu): ThreadCpu {
  return {
    servingMs: to.servingMs - from.servingMs,
    backgroundMs: to.backgroundMs - from.backgroundMs,
    v8HelpersMs: to.v8HelpersMs - from.v8HelpersMs,
    otherMs: to.otherMs - from.otherMs,
  };
}
