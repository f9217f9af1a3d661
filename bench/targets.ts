// The performance issue's targets, judged on this run's numbers: one PASS/FAIL line each, or n/a
// when the run did not measure it (a filter, a section left out, the soak run is separate).
import { cpuVsGovernanceOff, cpuVsProxy, rpsVs } from './baselines.ts';
import type { EmbeddingsRow } from './embeddings.ts';
import type { ProbeRow } from './latency-probe.ts';
import type { MemoryRow } from './memory.ts';
import type { PacedRow } from './paced-streams.ts';
import type { SoakResult } from './soak.ts';
import { ratio } from './stats.ts';
import type { ThroughputRow } from './throughput.ts';

export interface Verdict {
  readonly target: string;
  readonly status: 'PASS' | 'FAIL' | 'n/a';
  readonly detail: string;
}

export interface MeasuredRun {
  readonly throughput: readonly ThroughputRow[];
  readonly probe: readonly ProbeRow[];
  readonly paced: readonly PacedRow[];
  readonly memory: readonly MemoryRow[];
  readonly soak: SoakResult | undefined;
}

/** The limits, in one place, so the report, the chart and the README agree. */
export const LIMITS = {
  /** Issue 19: CPU per request against the minimal proxy (the floor), non-stream and stream alike. */
  sameProtocolCpuVsProxy: 1.3,
  crossProtocolCpuVsProxy: 1.5,
  /** The default gateway's req/s at least the floor's, at every connection count measured. */
  throughputVsProxy: 1.0,
  /** p99 at this many connections at most this multiple of the floor's p99. */
  p99VsProxy: 2.0,
  p99AtConnections: 32,
  unloadedAddedP50Ms: 0.45,
  unloadedAddedTtfbP50Ms: 1.0,
  errorsAtConnections: 128,
  /** Paced gaps: median within this of direct's, p99 at most this much over direct's. */
  pacedGapP50ToleranceMs: 1.0,
  pacedGapP99ToleranceMs: 2.0,
  /** Coalesced chunks may exceed direct's share by this fraction of all chunks (client-side noise). */
  pacedCoalescedTolerance: 0.01,
  idleRssPerWorkerMiB: 60,
  /** Peak RSS per worker while the throughput section runs at this many connections. */
  loadedRssPerWorkerMiB: 150,
  loadedRssAtConnections: 128,
  soakGrowthMiBPerMinute: 1.0,
  governanceCpuIncrease: 0.25,
  /** Same-protocol embeddings (the bench's 16 x 1,024 batch) against the floor relaying the same. */
  embeddingsCpuVsProxy: 1.3,
} as const;

const fmt = (x: number, digits = 2) => x.toFixed(digits);
const na = (target: string, why: string): Verdict => ({ target, status: 'n/a', detail: why });
const judged = (target: string, pass: boolean, detail: string): Verdict => ({ target, status: pass ? 'PASS' : 'FAIL', detail });

/** The worst (largest) value over rows, with the row's name, so a FAIL says where. */
function worst<T>(
  rows: readonly T[],
  value: (row: T) => number | null,
  name: (row: T) => string,
): { value: number; name: string; over: (limit: number) => number } | undefined {
  const valued = rows.map((r) => ({ v: value(r), n: name(r) })).filter((x): x is { v: number; n: string } => x.v !== null && Number.isFinite(x.v));
  if (valued.length === 0) return undefined;
  const top = valued.reduce((a, b) => (b.v > a.v ? b : a));
  return { value: top.v, name: top.n, over: (limit) => valued.filter((x) => x.v > limit).length };
}

/** The default gateway's judged rows (not workers: 1, governance or the reference protocols). */
function gatewayRows(run: MeasuredRun, stream: boolean, kind?: 'same' | 'cross'): ThroughputRow[] {
  return run.throughput.filter(
    (r) => r.scenario.target === 'gateway' && r.scenario.stream === stream && !r.scenario.comparison && (kind === undefined || r.scenario.kind === kind),
  );
}

const rowName = (r: ThroughputRow) => `${r.scenario.name} @${r.connections}`;
const streamWord = (stream: boolean) => (stream ? 'stream' : 'non-stream');

function cpuRatioTarget(run: MeasuredRun, kind: 'same' | 'cross', stream: boolean, limit: number): Verdict {
  const target = `${kind === 'same' ? 'same-protocol' : 'cross-protocol'} ${streamWord(stream)} CPU/req <= ${limit}x minimal proxy`;
  const rows = gatewayRows(run, stream, kind);
  const w = worst(rows, (r) => cpuVsProxy(run.throughput, r), rowName);
  if (w === undefined) return na(target, 'no such throughput rows in this run');
  return judged(target, w.value <= limit, `worst ${fmt(w.value)}x (${w.name}); ${w.over(limit)} of ${rows.length} rows over`);
}

/** Throughput at least the floor's: the worst (lowest) req/s ratio of the default gateway's rows. */
function throughputTarget(run: MeasuredRun, stream: boolean): Verdict {
  const limit = LIMITS.throughputVsProxy;
  const target = `${streamWord(stream)} req/s >= ${limit}x minimal proxy`;
  const rows = gatewayRows(run, stream);
  // worst() takes the largest value: the lowest throughput ratio is the largest inverse.
  const w = worst(
    rows,
    (r) => {
      const x = rpsVs(run.throughput, r, 'proxy');
      return x === null ? null : 1 / x;
    },
    rowName,
  );
  if (w === undefined) return na(target, 'no such throughput rows in this run');
  return judged(target, 1 / w.value >= limit, `worst ${fmt(1 / w.value)}x (${w.name})`);
}

/** p99 at the judged connection count within a multiple of the floor's p99 there. */
function p99Target(run: MeasuredRun, stream: boolean): Verdict {
  const limit = LIMITS.p99VsProxy;
  const c = LIMITS.p99AtConnections;
  const target = `${streamWord(stream)} p99 @${c} <= ${limit}x minimal proxy's p99`;
  const proxy = run.throughput.find((r) => r.scenario.target === 'proxy' && r.scenario.stream === stream && r.connections === c);
  const rows = gatewayRows(run, stream).filter((r) => r.connections === c);
  if (proxy === undefined || rows.length === 0) return na(target, `no gateway and proxy rows at ${c} connections`);
  const w = worst(rows, (r) => ratio(r.p99Ms, proxy.p99Ms), rowName);
  if (w === undefined) return na(target, 'no p99 to compare');
  return judged(target, w.value <= limit, `worst ${fmt(w.value)}x (${w.name}; the proxy's p99 ${fmt(proxy.p99Ms)} ms)`);
}

/** Two workers cost no more CPU per request than one: the default (all workers) against workers: 1. */
function workersTarget(run: MeasuredRun, stream: boolean): Verdict {
  const target = `${streamWord(stream)} CPU/req with all workers <= workers: 1`;
  const single = run.throughput.find((r) => r.scenario.target === 'gateway-w1' && r.scenario.stream === stream);
  const all =
    single &&
    run.throughput.find(
      (r) =>
        r.scenario.target === 'gateway' &&
        r.scenario.stream === stream &&
        r.scenario.ingress === single.scenario.ingress &&
        r.scenario.egress === single.scenario.egress &&
        r.connections === single.connections,
    );
  const a = all?.cpuMicrosPerRequest;
  const one = single?.cpuMicrosPerRequest;
  if (all === undefined || a === null || a === undefined || one === null || one === undefined)
    return na(target, 'no workers: 1 row with its default twin (and their CPU) in this run');
  return judged(target, a <= one, `${fmt(a, 0)} against ${fmt(one, 0)} us/req (${rowName(all)})`);
}

function probeTarget(run: MeasuredRun, stream: boolean, limit: number): Verdict[] {
  const what = stream ? 'added TTFB p50 (stream)' : 'added p50 (non-stream)';
  const rows = run.probe.filter((r) => r.scenario.stream === stream && r.scenario.kind !== 'baseline');
  if (rows.length === 0) return [na(`unloaded ${what} <= ${limit} ms`, 'probe not run')];
  return rows.map((r) => {
    const target = `unloaded ${what} <= ${limit} ms, ${r.scenario.name}`;
    return r.addedP50Ms === null
      ? na(target, 'no direct baseline')
      : judged(target, r.addedP50Ms <= limit, `${fmt(r.addedP50Ms * 1000, 0)} us (p99 +${fmt((r.addedP99Ms ?? Number.NaN) * 1000, 0)} us)`);
  });
}

function errorsTarget(run: MeasuredRun): Verdict {
  const c = LIMITS.errorsAtConnections;
  const target = `no errors at ${c} connections`;
  const rows = run.throughput.filter((r) => r.connections === c && r.scenario.kind !== 'baseline');
  if (rows.length === 0) return na(target, `no gateway throughput rows at ${c} connections in this run`);
  const failing = rows.filter((r) => r.errors > 0);
  const requests = rows.reduce((a, r) => a + r.requests, 0);
  return judged(
    target,
    failing.length === 0,
    failing.length === 0
      ? `0 errors in ${requests} requests over ${rows.length} gateway scenarios`
      : failing.map((r) => `${r.scenario.name}: ${r.errors}`).join('; '),
  );
}

function pacedTarget(run: MeasuredRun): Verdict[] {
  const direct = run.paced.find((r) => r.scenario.target === 'direct');
  const rows = run.paced.filter((r) => r.scenario.kind !== 'baseline');
  if (direct === undefined || rows.length === 0) return [na('paced streams keep inter-chunk timing', 'paced section not run')];
  const share = (r: PacedRow) => (r.chunks === 0 ? 0 : r.coalesced / r.chunks);
  return rows.map((r) => {
    const pass =
      r.errors === 0 &&
      Math.abs(r.gapP50Ms - direct.gapP50Ms) <= LIMITS.pacedGapP50ToleranceMs &&
      r.gapP99Ms <= direct.gapP99Ms + LIMITS.pacedGapP99ToleranceMs &&
      share(r) <= share(direct) + LIMITS.pacedCoalescedTolerance;
    return judged(
      `paced streams keep inter-chunk timing, ${r.scenario.name}`,
      pass,
      `gaps p50 ${fmt(r.gapP50Ms)} / p99 ${fmt(r.gapP99Ms)} ms (direct ${fmt(direct.gapP50Ms)} / ${fmt(direct.gapP99Ms)}), ` +
        `coalesced ${r.coalesced}/${r.chunks} (direct ${direct.coalesced}/${direct.chunks}), added TTFB p50 ${fmt(r.addedTtfbP50Ms ?? Number.NaN)} ms, ${r.errors} failed streams`,
    );
  });
}

function idleRssTarget(run: MeasuredRun): Verdict {
  const limit = LIMITS.idleRssPerWorkerMiB;
  const target = `idle RSS <= ${limit} MiB per worker`;
  const row = run.memory.find((m) => m.variant === 'gateway');
  if (row === undefined) return na(target, 'gateway not started');
  const single = run.memory.find((m) => m.variant === 'gateway-w1');
  return judged(
    target,
    row.idlePerWorkerMiB <= limit,
    `${fmt(row.idleMiB, 1)} MiB / ${row.workers} workers = ${fmt(row.idlePerWorkerMiB, 1)} MiB` +
      (single === undefined ? '' : `; workers: 1 idles at ${fmt(single.idleMiB, 1)} MiB`),
  );
}

/** Peak RSS at 128 connections per worker, the default gateway judged (workers: 1 shown beside it). */
function loadedRssTarget(run: MeasuredRun): Verdict {
  const limit = LIMITS.loadedRssPerWorkerMiB;
  const c = LIMITS.loadedRssAtConnections;
  const target = `RSS at ${c} connections <= ${limit} MiB per worker`;
  const perWorker = (m: MemoryRow) => (m.peakAtMiB[c] ?? Number.NaN) / m.workers;
  const row = run.memory.find((m) => m.variant === 'gateway');
  if (row === undefined || !Number.isFinite(perWorker(row))) return na(target, `the throughput section did not run at ${c} connections`);
  const single = run.memory.find((m) => m.variant === 'gateway-w1');
  return judged(
    target,
    perWorker(row) <= limit,
    `peak ${fmt(row.peakAtMiB[c]!, 1)} MiB / ${row.workers} workers = ${fmt(perWorker(row), 1)} MiB` +
      (single === undefined || !Number.isFinite(perWorker(single)) ? '' : `; workers: 1 peaks at ${fmt(single.peakAtMiB[c]!, 1)} MiB`),
  );
}

function soakTarget(run: MeasuredRun): Verdict {
  const limit = LIMITS.soakGrowthMiBPerMinute;
  const target = `soak RSS growth < ${limit} MiB/min`;
  if (run.soak === undefined) return na(target, 'measured by make bench-soak');
  const s = run.soak;
  if (!Number.isFinite(s.slopeMiBPerMinute)) return na(target, `too few samples after the warm-up (${s.samples.length} samples)`);
  return judged(
    target,
    s.slopeMiBPerMinute < limit,
    `${fmt(s.slopeMiBPerMinute, 3)} MiB/min over ${fmt(s.minutes - s.warmupMinutes, 1)} min after a ${s.warmupMinutes} min warm-up`,
  );
}

/** Failover and the breaker absorb a lane that fails: no client sees any of it. */
function soakErrorsTarget(run: MeasuredRun): Verdict {
  const target = 'soak: zero client errors with one pool lane failing';
  if (run.soak === undefined) return na(target, 'measured by make bench-soak');
  const s = run.soak;
  return judged(
    target,
    s.errors === 0 && s.requests > 0,
    `${s.errors} client errors in ${s.requests} requests; lane failing ${s.failPercent}% (${s.flakyLaneFaults} faulted attempts), ${s.failovers} failovers, ${s.breakerTrips} breaker trips`,
  );
}

function governanceTarget(run: MeasuredRun): Verdict {
  const limit = LIMITS.governanceCpuIncrease;
  const target = `governance on adds <= ${limit * 100}% CPU/req`;
  const rows = run.throughput.filter((r) => r.scenario.target === 'gateway-gov');
  const w = worst(
    rows,
    (r) => cpuVsGovernanceOff(run.throughput, r),
    (r) => `${r.scenario.name} @${r.connections}`,
  );
  if (w === undefined) return na(target, 'no governance rows with a governance-off twin in this run');
  return judged(target, w.value - 1 <= limit, `worst +${fmt((w.value - 1) * 100, 0)}% (${w.name})`);
}

/** The embeddings section's same-protocol row against the floor's (n/a when the section did not run). */
function embeddingsTarget(rows: readonly EmbeddingsRow[]): Verdict {
  const limit = LIMITS.embeddingsCpuVsProxy;
  const target = `same-protocol embeddings CPU/req <= ${limit}x minimal proxy`;
  const proxy = rows.find((r) => r.name === 'minimal proxy openai embeddings')?.cpuMicrosPerRequest;
  const gateway = rows.find((r) => r.name === 'gateway openai->openai embeddings')?.cpuMicrosPerRequest;
  if (proxy == null || gateway == null) return na(target, 'embeddings section not run');
  const ratio = gateway / proxy;
  return judged(target, ratio <= limit, `${fmt(ratio)}x (${Math.round(gateway)} against ${Math.round(proxy)} us/req @32)`);
}

export function judge(run: MeasuredRun, embeddings: readonly EmbeddingsRow[] = []): Verdict[] {
  return [
    cpuRatioTarget(run, 'same', false, LIMITS.sameProtocolCpuVsProxy),
    cpuRatioTarget(run, 'same', true, LIMITS.sameProtocolCpuVsProxy),
    cpuRatioTarget(run, 'cross', false, LIMITS.crossProtocolCpuVsProxy),
    cpuRatioTarget(run, 'cross', true, LIMITS.crossProtocolCpuVsProxy),
    throughputTarget(run, false),
    throughputTarget(run, true),
    p99Target(run, false),
    p99Target(run, true),
    workersTarget(run, false),
    workersTarget(run, true),
    ...probeTarget(run, false, LIMITS.unloadedAddedP50Ms),
    ...probeTarget(run, true, LIMITS.unloadedAddedTtfbP50Ms),
    errorsTarget(run),
    ...pacedTarget(run),
    idleRssTarget(run),
    loadedRssTarget(run),
    soakTarget(run),
    soakErrorsTarget(run),
    governanceTarget(run),
    embeddingsTarget(embeddings),
  ];
}
