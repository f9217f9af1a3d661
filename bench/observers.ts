// CPU per request of the request observers a worker runs (the log line, the metrics, /stats's
// totals), in one process, for two source trees: what a change to them buys, without the noise of
// a loaded machine's network path. Non-stream same-protocol records, as the bench sends.
//   OBS_A  the tree before the change [required]; OBS_B  the tree with it [this checkout]
//   OBS_RECORDS [200000] records per round; 3 rounds after a warm-up one, each tree's median
import type { DestinationStream } from 'pino';
import { Registry } from 'prom-client';
import type { RequestObserver } from '../server/observability/request-record.ts';
import { fabricatedRecord } from '../test/hooks/fabricated-record.ts';
import { median } from './stats.ts';

const A = process.env.OBS_A;
if (A === undefined) throw new Error('OBS_A: the gateway tree to compare against');
const B = process.env.OBS_B ?? new URL('..', import.meta.url).pathname.replace(/\/$/, '');
const N = Number(process.env.OBS_RECORDS ?? 200_000);

/** Records that differ in their times, as real ones do (V8 caches the text of a number it printed). */
const records = Array.from({ length: 1024 }, (_, i) =>
  fabricatedRecord({
    stream: false,
    ingress: 'openai',
    egress: 'openai',
    lane: 'gpt',
    provider: 'openai',
    warnings: [],
    latencyMs: 3 + i / 97,
    ttfbMs: 2.5 + i / 101,
    upstreamMs: 2 + i / 103,
    attempts: [{ lane: 'gpt', provider: 'openai', outcome: 'success', status: 200, startMs: 1, ms: 2 + i / 103 }],
  }),
);

/** Like the worker's log relay: lines appended to one string, handed on in batches. */
let pending = '';
const sink: DestinationStream = {
  write(line: string) {
    pending += line;
    if (pending.length > 256 * 1024) pending = '';
  },
};

async function observers(tree: string): Promise<Record<string, RequestObserver>> {
  const { createLogger } = await import(`${tree}/server/shared/logger.ts`);
  const { RequestLog } = await import(`${tree}/server/observability/request-log.ts`);
  const { RequestMetrics } = await import(`${tree}/server/observability/metrics-requests.ts`);
  const { RequestStats } = await import(`${tree}/server/observability/request-stats.ts`);
  return {
    log: new RequestLog(createLogger('info', sink).child({ worker: 1 })),
    metrics: new RequestMetrics(new Registry()),
    stats: new RequestStats(),
  };
}

const trees = { A: await observers(A), B: await observers(B) };
const results: Record<string, number[]> = {};
for (let round = 0; round < 4; round++) {
  for (const [tree, set] of Object.entries(trees)) {
    for (const [name, observer] of Object.entries(set)) {
      const before = process.cpuUsage();
      for (let i = 0; i < N; i++) observer.record(records[i & 1023]!);
      const used = process.cpuUsage(before);
      if (round > 0) (results[`${name} ${tree}`] ??= []).push((used.user + used.system) / N);
    }
  }
}
console.log(`A ${A}, B ${B}: CPU µs per record (median of 3 x ${N})`);
for (const name of Object.keys(trees.A)) {
  const [a, b] = [median(results[`${name} A`] ?? []), median(results[`${name} B`] ?? [])];
  console.log(`${name.padEnd(8)} A ${a.toFixed(3)}  B ${b.toFixed(3)}  B-A ${(b - a).toFixed(3)}`);
}
