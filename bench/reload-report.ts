// The reload section's numbers and how they are printed (reload.ts measures them). Every phase of
// the same run is shown side by side, with how busy the machine was meanwhile, so a tail that the
// phases without reloads share is seen for the machine's noise it is.
import type { PhaseCpu, ThreadCpu } from './machine-cpu.ts';

/** The stall the target allows: no request slower than this while reloads happen. */
export const RELOAD_STALL_TARGET_MS = 50;

export interface PhaseSummary {
  readonly requests: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly over50: number;
  /** over50 as a share of the phase's requests, in percent. */
  readonly over50Percent: number;
  readonly errors: number;
  /**
   * The main thread's longest event-loop delay in the phase (prom-client's
   * nodejs_eventloop_lag_max_seconds, read once at its end). Each read renders every series of
   * the 200 models and 250 pools on that thread, and the next phase's figure includes that
   * render's own delay: a floor common to every phase.
   */
  readonly mainLoopLagMaxMs: number;
  readonly cpu: PhaseCpu;
  /** The gateway process's CPU in the phase by kind of thread (from /proc, every thread counted), and the phase's length. */
  readonly threads: ThreadCpu;
  readonly seconds: number;
}

/** A request over the target during the reloads: when it was due against the latest SIGHUP before its answer (negative: due before it), and which one. */
export interface SlowRequest {
  readonly reload: number;
  readonly dueAfterSighupMs: number;
  readonly latencyMs: number;
}

export interface ReloadRun {
  readonly models: number;
  readonly pools: number;
  readonly workers: number;
  readonly reloads: number;
  /** From the gateway's log line: SIGHUP to applied (load, check, switch), and the switch alone. */
  readonly applyMs: { readonly median: number; readonly max: number };
  readonly switchMs: { readonly median: number; readonly max: number };
  /** CPU time the reload took on the serving threads (main; the slowest worker), whatever else the machine ran. */
  readonly mainThreadCpuMs: { readonly median: number; readonly max: number };
  readonly workerCpuMs: { readonly median: number; readonly max: number };
  /** No reload yet; then 20 reloads; then none again. */
  readonly before: PhaseSummary;
  readonly during: PhaseSummary;
  readonly after: PhaseSummary;
  readonly slowDuring: readonly SlowRequest[];
}

export function latencySummary(
  latencies: readonly number[],
  errors: number,
  phase: Pick<PhaseSummary, 'mainLoopLagMaxMs' | 'cpu' | 'threads' | 'seconds'>,
): PhaseSummary {
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (q: number) => round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0);
  const over50 = sorted.filter((l) => l > RELOAD_STALL_TARGET_MS).length;
  return {
    requests: sorted.length,
    p50: at(0.5),
    p99: at(0.99),
    max: round(sorted[sorted.length - 1] ?? 0),
    over50,
    over50Percent: percentOf(over50, sorted.length),
    errors,
    ...phase,
    mainLoopLagMaxMs: round(phase.mainLoopLagMaxMs),
  };
}

/** The section's table and its two target lines: the target as written, and against the phases without reloads. */
export function formatReload(run: ReloadRun): string {
  const pad = (value: string | number, width: number) => String(value).padStart(width);
  const row = (name: string, s: PhaseSummary) =>
    `  ${name.padEnd(15)} ${pad(s.requests, 8)} ${pad(s.p50.toFixed(2), 7)} ${pad(s.p99.toFixed(2), 7)} ${pad(s.max.toFixed(2), 7)} ${pad(s.over50, 6)} ${pad(s.over50Percent.toFixed(2), 7)} ${pad(s.errors, 6)} ${pad(s.mainLoopLagMaxMs.toFixed(1), 9)} ${pad(s.cpu.machinePercent.toFixed(0), 8)} ${pad(s.cpu.othersPercent.toFixed(0), 7)}`;
  const strict = run.during.over50 === 0 && run.during.errors === 0;
  const quiet = { over50: run.before.over50 + run.after.over50, requests: run.before.requests + run.after.requests };
  const floorPercent = percentOf(quiet.over50, quiet.requests);
  const withinFloor = run.during.errors === 0 && run.during.over50Percent <= floorPercent;
  const slow = run.slowDuring;
  const when = (lo: number, hi: number) => slow.filter((s) => s.dueAfterSighupMs >= lo && s.dueAfterSighupMs < hi).length;
  return [
    `reload: ${run.models} models, ${run.pools} pools, ${run.workers} workers, ${run.reloads} SIGHUP reloads`,
    `  time to apply (load, check, switch): median ${run.applyMs.median} ms, max ${run.applyMs.max} ms; of which the switch of every thread: median ${run.switchMs.median} ms, max ${run.switchMs.max} ms`,
    `  CPU the reload took on the serving threads: main thread median ${run.mainThreadCpuMs.median} ms, max ${run.mainThreadCpuMs.max} ms; a worker thread median ${run.workerCpuMs.median} ms, max ${run.workerCpuMs.max} ms`,
    `  latency (ms)    requests     p50     p99     max  >50ms  %>50ms errors  loop lag  machine%  others%`,
    row('before reloads', run.before),
    row('during reloads', run.during),
    row('after reloads', run.after),
    `  over ${RELOAD_STALL_TARGET_MS} ms during reloads, by when they were due against the latest SIGHUP before their answer: ${when(Number.NEGATIVE_INFINITY, 0)} before it, ${when(0, 100)} 0-100 ms after, ${when(100, 250)} 100-250 ms after, ${when(250, Number.POSITIVE_INFINITY)} later; ${slow.filter((s) => s.reload === 1).length} around the first`,
    perReload(run),
    `  (machine%: all cores busy; others%: busy with processes outside this benchmark; loop lag: the main thread's longest event-loop delay)`,
    `${strict ? 'PASS' : 'FAIL'} reload: no request over ${RELOAD_STALL_TARGET_MS} ms and none failed during reloads (max ${run.during.max} ms, ${run.during.over50} over, ${run.during.errors} errors)`,
    `${withinFloor ? 'PASS' : 'FAIL'} reload against the phases without reloads: ${run.during.over50Percent.toFixed(2)}% of requests over ${RELOAD_STALL_TARGET_MS} ms during reloads, ${floorPercent.toFixed(2)}% before and after`,
  ].join('\n');
}

/**
 * CPU a reload added on each kind of the gateway's threads: the during phase's CPU less what the
 * same time cost before and after (same request rate), per reload. From /proc's 10 ms ticks over
 * whole phases, so it counts everything (message decoding, garbage collection, V8's helpers) that
 * the gateway's own per-reload figure, taken around its own steps, leaves out.
 */
function perReload(run: ReloadRun): string {
  const quietSeconds = run.before.seconds + run.after.seconds;
  const extra = (kind: keyof ThreadCpu) => {
    const quietRate = (run.before.threads[kind] + run.after.threads[kind]) / quietSeconds;
    return ((run.during.threads[kind] - quietRate * run.during.seconds) / run.reloads).toFixed(1);
  };
  return `  CPU a reload added, from /proc: serving threads ${extra('servingMs')} ms, loader (nice 19) ${extra('backgroundMs')} ms, V8 helper threads ${extra('v8HelpersMs')} ms, other ${extra('otherMs')} ms`;
}

const round = (ms: number) => Math.round(ms * 100) / 100;
const percentOf = (part: number, whole: number) => (whole === 0 ? 0 : Math.round((10_000 * part) / whole) / 100);
