// Every gateway row is read against rows measured in the same run: the client talking to the mock
// directly, the minimal proxy, and (for governance on) the same scenario with governance off.
import { ratio } from './stats.ts';
import type { ThroughputRow } from './throughput.ts';

function baseline(rows: readonly ThroughputRow[], row: ThroughputRow, target: 'direct' | 'proxy'): ThroughputRow | undefined {
  return rows.find((r) => r.scenario.target === target && r.scenario.stream === row.scenario.stream && r.connections === row.connections);
}

export const cpuVsProxy = (rows: readonly ThroughputRow[], row: ThroughputRow) =>
  ratio(row.cpuMicrosPerRequest, baseline(rows, row, 'proxy')?.cpuMicrosPerRequest);

export const rpsVs = (rows: readonly ThroughputRow[], row: ThroughputRow, target: 'direct' | 'proxy') => ratio(row.rps, baseline(rows, row, target)?.rps);

/** Latency added over a baseline at the same connection count (autocannon's 1 ms resolution). */
export function addedLatencyVs(rows: readonly ThroughputRow[], row: ThroughputRow, target: 'direct' | 'proxy', which: 'p50Ms' | 'p99Ms'): number | null {
  if (target === 'proxy' && row.scenario.kind === 'baseline') return null; // direct against proxy says nothing
  const base = baseline(rows, row, target);
  return base === undefined || base === row ? null : row[which] - base[which];
}

/** Governance on: the same scenario on the gateway with governance off. */
export function governanceOffRow(rows: readonly ThroughputRow[], row: ThroughputRow): ThroughputRow | undefined {
  if (row.scenario.target !== 'gateway-gov') return undefined;
  const s = row.scenario;
  return rows.find(
    (r) =>
      r.scenario.target === 'gateway' &&
      r.scenario.ingress === s.ingress &&
      r.scenario.egress === s.egress &&
      r.scenario.stream === s.stream &&
      r.connections === row.connections,
  );
}

export const cpuVsGovernanceOff = (rows: readonly ThroughputRow[], row: ThroughputRow) =>
  ratio(row.cpuMicrosPerRequest, governanceOffRow(rows, row)?.cpuMicrosPerRequest);
