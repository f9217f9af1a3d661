// The run's report: the scenario table (unloaded probe rows, then throughput rows), the paced-stream
// table, memory, the target lines; and the same numbers as JSON for bench/results/latest.json.
import { addedLatencyVs, cpuVsGovernanceOff, cpuVsProxy, rpsVs } from './baselines.ts';
import type { ProbeRow } from './latency-probe.ts';
import type { MemoryRow } from './memory.ts';
import type { PacedRow } from './paced-streams.ts';
import { round } from './stats.ts';
import type { MeasuredRun, Verdict } from './targets.ts';
import { cell, signed, textTable } from './text-table.ts';
import type { ThroughputRow } from './throughput.ts';

const SCENARIO_HEADERS = [
  'scenario',
  'conns',
  'req/s',
  'p50 ms',
  'p99 ms',
  '+p50 vs direct',
  '+p99 vs direct',
  '+p50 vs proxy',
  'CPU us/req',
  'CPU x proxy',
  'client CPU us/req',
  'req/s x direct',
  'req/s x proxy',
  'errors',
  'note',
];

function probeCells(r: ProbeRow): string[] {
  return [
    `unloaded ${r.scenario.name}`,
    '1 (probe)',
    '-',
    cell(r.p50Ms, 3),
    cell(r.p99Ms, 3),
    signed(r.addedP50Ms, 3),
    signed(r.addedP99Ms, 3),
    signed(r.addedP50VsProxyMs, 3),
    '-',
    '-',
    '-',
    '-',
    '-',
    String(r.errors),
    `${r.samples} requests`,
  ];
}

function throughputCells(rows: readonly ThroughputRow[], r: ThroughputRow): string[] {
  const gov = cpuVsGovernanceOff(rows, r);
  return [
    r.scenario.name,
    String(r.connections),
    cell(r.rps),
    cell(r.p50Ms),
    cell(r.p99Ms),
    signed(addedLatencyVs(rows, r, 'direct', 'p50Ms'), 0),
    signed(addedLatencyVs(rows, r, 'direct', 'p99Ms'), 0),
    signed(addedLatencyVs(rows, r, 'proxy', 'p50Ms'), 0),
    cell(r.cpuMicrosPerRequest),
    cell(cpuVsProxy(rows, r), 2),
    cell(r.clientCpuMicrosPerRequest),
    cell(rpsVs(rows, r, 'direct'), 2),
    cell(rpsVs(rows, r, 'proxy'), 2),
    String(r.errors),
    gov === null ? '' : `CPU x governance off ${gov.toFixed(2)}`,
  ];
}

function pacedCells(r: PacedRow): string[] {
  return [
    r.scenario.name,
    String(r.streams),
    cell(r.ttfbP50Ms, 2),
    cell(r.ttfbP99Ms, 2),
    signed(r.addedTtfbP50Ms, 2),
    cell(r.gapP50Ms, 2),
    cell(r.gapP99Ms, 2),
    `${r.coalesced}/${r.chunks}`,
    String(r.errors),
  ];
}

/** The connection counts the memory table has a peak column for. */
const peakCounts = (rows: readonly MemoryRow[]) => [...new Set(rows.flatMap((m) => Object.keys(m.peakAtMiB).map(Number)))].sort((a, b) => a - b);

function memoryCells(m: MemoryRow, counts: readonly number[]): string[] {
  const at = (c: number) => m.peakAtMiB[c];
  return [
    m.variant,
    String(m.workers),
    cell(m.idleMiB, 1),
    cell(m.idlePerWorkerMiB, 1),
    cell(m.idleAnonMiB, 1),
    ...counts.flatMap((c) => [cell(at(c) ?? null, 1), cell(at(c) === undefined ? null : at(c)! / m.workers, 1)]),
    cell(m.peakMiB, 1),
    cell(m.afterMiB, 1),
  ];
}

export function formatReport(run: MeasuredRun, verdicts: readonly Verdict[], header: string): string {
  const parts = [header];
  if (run.probe.length + run.throughput.length > 0) {
    parts.push(
      '',
      "Scenarios (probe rows in microsecond-resolution ms; load rows: wrk at µs resolution, autocannon at 1 ms; CPU of each target's process tree)",
      textTable(
        SCENARIO_HEADERS,
        [...run.probe.map(probeCells), ...run.throughput.map((r) => throughputCells(run.throughput, r))],
        [SCENARIO_HEADERS.length - 1],
      ),
    );
  }
  if (run.paced.length > 0) {
    parts.push(
      '',
      'Paced streams (ms; gaps between consecutive chunks of a stream; coalesced = chunks that arrived in a read with an earlier one)',
      textTable(['scenario', 'streams', 'TTFB p50', 'TTFB p99', '+TTFB p50 vs direct', 'gap p50', 'gap p99', 'coalesced', 'failed'], run.paced.map(pacedCells)),
    );
  }
  if (run.memory.length > 0) {
    parts.push(
      '',
      'Memory (RSS MiB of the whole process tree; peak @N: while the throughput section ran at N connections)',
      textTable(
        [
          'target',
          'workers',
          'idle',
          'idle/worker',
          'idle anon',
          ...peakCounts(run.memory).flatMap((c) => [`peak @${c}`, `@${c}/worker`]),
          'peak',
          'after load',
        ],
        run.memory.map((m) => memoryCells(m, peakCounts(run.memory))),
      ),
    );
  }
  if (run.soak !== undefined) {
    const s = run.soak;
    parts.push(
      '',
      `Soak: ${s.requests} requests, ${s.errors} client errors, ${s.failovers} failovers, ${s.breakerTrips} breaker trips, ` +
        `${s.flakyLaneFaults} faulted attempts on the flaky lane; latency p50 ${s.latencyP50Ms.toFixed(1)} ms, p99 ${s.latencyP99Ms.toFixed(1)} ms; ` +
        `RSS slope ${s.slopeMiBPerMinute.toFixed(3)} MiB/min`,
      `RSS: ${s.samples.map((x) => `${x.minute.toFixed(2)} ${x.rssMiB.toFixed(0)}`).join(', ')} (minute RSS-MiB)`,
      ...s.errorSamples.map((e) => `  client error: ${e}`),
    );
  }
  parts.push('', 'Targets', ...verdicts.map((v) => `${v.status.padEnd(4)}  ${v.target}: ${v.detail}`));
  return parts.join('\n');
}

/** Plain numbers, rounded, with the ratios the table shows, for latest.json. */
export function resultsJson(run: MeasuredRun, verdicts: readonly Verdict[], meta: Record<string, unknown>): Record<string, unknown> {
  const scenario = (s: ThroughputRow['scenario']) => ({
    scenario: s.name,
    target: s.target,
    ingress: s.ingress,
    egress: s.egress,
    stream: s.stream,
    kind: s.kind,
  });
  return {
    ...meta,
    probe: run.probe.map((r) => ({
      ...scenario(r.scenario),
      p50_ms: round(r.p50Ms, 4),
      p99_ms: round(r.p99Ms, 4),
      added_p50_ms: round(r.addedP50Ms, 4),
      added_p99_ms: round(r.addedP99Ms, 4),
      added_p50_vs_proxy_ms: round(r.addedP50VsProxyMs, 4),
      samples: r.samples,
      errors: r.errors,
    })),
    throughput: run.throughput.map((r) => ({
      ...scenario(r.scenario),
      connections: r.connections,
      rps: round(r.rps, 0),
      p50_ms: r.p50Ms,
      p99_ms: r.p99Ms,
      cpu_us_per_req: round(r.cpuMicrosPerRequest, 1),
      cpu_vs_proxy: round(cpuVsProxy(run.throughput, r), 3),
      client_cpu_us_per_req: round(r.clientCpuMicrosPerRequest, 1),
      cpu_vs_governance_off: round(cpuVsGovernanceOff(run.throughput, r), 3),
      rps_vs_direct: round(rpsVs(run.throughput, r, 'direct'), 3),
      rps_vs_proxy: round(rpsVs(run.throughput, r, 'proxy'), 3),
      added_p50_vs_direct_ms: addedLatencyVs(run.throughput, r, 'direct', 'p50Ms'),
      added_p99_vs_direct_ms: addedLatencyVs(run.throughput, r, 'direct', 'p99Ms'),
      added_p50_vs_proxy_ms: addedLatencyVs(run.throughput, r, 'proxy', 'p50Ms'),
      requests: r.requests,
      errors: r.errors,
    })),
    paced: run.paced.map((r) => ({
      ...scenario(r.scenario),
      streams: r.streams,
      ttfb_p50_ms: round(r.ttfbP50Ms, 3),
      ttfb_p99_ms: round(r.ttfbP99Ms, 3),
      added_ttfb_p50_ms: round(r.addedTtfbP50Ms, 3),
      gap_p50_ms: round(r.gapP50Ms, 3),
      gap_p99_ms: round(r.gapP99Ms, 3),
      coalesced: r.coalesced,
      chunks: r.chunks,
      failed_streams: r.errors,
    })),
    memory: run.memory.map((m) => ({
      gateway: m.variant,
      workers: m.workers,
      rss_idle_mib: round(m.idleMiB, 1),
      rss_idle_per_worker_mib: round(m.idlePerWorkerMiB, 1),
      rss_idle_anon_mib: round(m.idleAnonMiB, 1),
      rss_peak_mib: round(m.peakMiB, 1),
      rss_peak_at_connections_mib: Object.fromEntries(Object.entries(m.peakAtMiB).map(([c, v]) => [c, round(v, 1)])),
      rss_after_mib: round(m.afterMiB, 1),
    })),
    ...(run.soak !== undefined && { soak: { ...run.soak, slopeMiBPerMinute: round(run.soak.slopeMiBPerMinute, 4) } }),
    targets: verdicts,
  };
}
