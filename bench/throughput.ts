// Throughput section: every selected scenario (and the peers' rows) under load at each connection
// count, repeats interleaved (each repeat visits every scenario, so drift on a shared machine hits
// all alike). The RSS peaks are noted per connection count (memory.ts).
import type { Fleet } from './fleet.ts';
import { measureInterleaved, type LoadSummary } from './load-runner.ts';
import type { PeakRss } from './memory.ts';
import type { PeerName } from './peers.ts';
import { peerScenarios, requestFor, selected, THROUGHPUT_SCENARIOS, type Scenario } from './scenarios.ts';
import type { Settings } from './settings.ts';

/** Rates and latencies are medians over the repeats; errors and requests are summed. */
export interface ThroughputRow extends LoadSummary {
  readonly scenario: Scenario;
  readonly connections: number;
}

export async function runThroughput(fleet: Fleet, settings: Settings, log: (line: string) => void, peak?: PeakRss): Promise<ThroughputRow[]> {
  const rows: ThroughputRow[] = [];
  const peerRows = peerScenarios([...fleet.peers.keys()]).filter((s) => !s.stream || fleet.peers.get(s.target as PeerName)?.streams === true);
  const scenarios = [...selected(THROUGHPUT_SCENARIOS, settings.filter), ...peerRows];
  const requestOf = (s: Scenario) => fleet.peerRequest(s.target, s.stream) ?? requestFor(s, fleet.apiKey(s.target));
  for (const [index, connections] of settings.connections.entries()) {
    const here = scenarios.filter((s) => index === 0 || !s.comparison);
    log(`throughput: ${connections} connections, ${here.length} scenarios x ${settings.repeats} repeats x ${settings.seconds} s (${settings.generator})`);
    peak?.enter(connections);
    const target = (s: Scenario) => ({ url: fleet.url(s.target), request: requestOf(s), pid: fleet.pid(s.target) });
    const summaries = await measureInterleaved(here, target, { ...settings, connections });
    peak?.enter(undefined);
    for (const s of here) rows.push({ scenario: s, connections, ...summaries.get(s)! });
  }
  return rows;
}
