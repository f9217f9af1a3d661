// Throughput section: every selected scenario under autocannon at each connection count, repeats
// interleaved (each repeat visits every scenario, so drift on a shared machine hits all alike).
import type { Fleet } from './fleet.ts';
import { runLoad, warmUp, type LoadSample } from './load-runner.ts';
import { requestFor, selected, THROUGHPUT_SCENARIOS, type Scenario } from './scenarios.ts';
import type { Settings } from './settings.ts';
import { median } from './stats.ts';

export interface ThroughputRow {
  readonly scenario: Scenario;
  readonly connections: number;
  /** Medians over the repeats. */
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly cpuMicrosPerRequest: number | null;
  /** Summed over the repeats. */
  readonly errors: number;
  readonly requests: number;
}

export async function runThroughput(fleet: Fleet, settings: Settings, log: (line: string) => void): Promise<ThroughputRow[]> {
  const rows: ThroughputRow[] = [];
  const scenarios = selected(THROUGHPUT_SCENARIOS, settings.filter);
  for (const [index, connections] of settings.connections.entries()) {
    const here = scenarios.filter((s) => index === 0 || !s.comparison);
    const requestOf = (s: Scenario) => requestFor(s, fleet.apiKey(s.target));
    log(`throughput: ${connections} connections, ${here.length} scenarios x ${settings.repeats} repeats x ${settings.seconds} s`);
    for (const s of here) await warmUp({ url: fleet.url(s.target), request: requestOf(s), connections }, settings.warmupRequests);
    const samples = new Map<Scenario, LoadSample[]>(here.map((s) => [s, []]));
    for (let repeat = 0; repeat < settings.repeats; repeat++) {
      for (const s of here) {
        const sample = await runLoad({ url: fleet.url(s.target), request: requestOf(s), connections, seconds: settings.seconds, pid: fleet.pid(s.target) });
        samples.get(s)!.push(sample);
      }
    }
    for (const s of here) rows.push(summarise(s, connections, samples.get(s)!));
  }
  return rows;
}

function summarise(scenario: Scenario, connections: number, xs: readonly LoadSample[]): ThroughputRow {
  const cpu = xs.map((x) => x.cpuMicrosPerRequest).filter((x): x is number => x !== null);
  return {
    scenario,
    connections,
    rps: median(xs.map((x) => x.rps)),
    p50Ms: median(xs.map((x) => x.p50Ms)),
    p99Ms: median(xs.map((x) => x.p99Ms)),
    cpuMicrosPerRequest: cpu.length === 0 ? null : median(cpu),
    errors: xs.reduce((a, x) => a + x.errors, 0),
    requests: xs.reduce((a, x) => a + x.requests, 0),
  };
}
