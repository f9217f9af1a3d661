// Unloaded latency in microseconds, which autocannon (1 ms resolution) cannot give: one keep-alive
// connection per target, one request at a time, targets interleaved within each round (the order
// rotates every round) so a slow moment on the shared machine hits every target alike.
// Non-stream: time to the end of the answer. Stream: time to the first body byte (TTFB).
import { Agent, request } from 'node:http';
import type { ClientRequest } from './client-requests.ts';
import type { Fleet } from './fleet.ts';
import { PROBE_TARGETS, requestFor, selected, type Scenario } from './scenarios.ts';
import type { Settings } from './settings.ts';
import { median, percentile } from './stats.ts';

export interface ProbeRow {
  readonly scenario: Scenario;
  /** Medians over the repeats of each repeat's percentile. */
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Over direct (the client talking to the mock), per repeat, then the median. */
  readonly addedP50Ms: number | null;
  readonly addedP99Ms: number | null;
  readonly addedP50VsProxyMs: number | null;
  readonly samples: number;
  readonly errors: number;
}

/** A hung target fails the request instead of hanging the run. */
const REQUEST_TIMEOUT_MS = 10_000;

interface Timing {
  readonly ttfbMs: number;
  readonly totalMs: number;
  readonly ok: boolean;
}

interface PreparedRequest {
  readonly agent: Agent;
  readonly options: { host: string; port: number; path: string; method: 'POST'; headers: Record<string, string | number> };
  readonly body: Buffer;
}

function prepare(url: string, req: ClientRequest, agent: Agent): PreparedRequest {
  const base = new URL(url);
  const body = Buffer.from(req.body);
  return {
    agent,
    body,
    options: { host: base.hostname, port: Number(base.port), path: req.path, method: 'POST', headers: { ...req.headers, 'content-length': body.length } },
  };
}

function timed(p: PreparedRequest): Promise<Timing> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    let ttfb = Number.NaN;
    const out = request({ ...p.options, agent: p.agent }, (res) => {
      res.on('data', () => {
        if (Number.isNaN(ttfb)) ttfb = performance.now() - start;
      });
      res.once('end', () => {
        const total = performance.now() - start;
        resolve({ ttfbMs: Number.isNaN(ttfb) ? total : ttfb, totalMs: total, ok: res.statusCode === 200 });
      });
      res.once('error', reject);
    });
    out.once('error', reject);
    out.setTimeout(REQUEST_TIMEOUT_MS, () => out.destroy(new Error(`no answer in ${REQUEST_TIMEOUT_MS} ms`)));
    out.end(p.body);
  });
}

/** One pass: warm-up rounds, then `rounds` measured rounds; per target the measured milliseconds. */
async function probePass(prepared: readonly PreparedRequest[], stream: boolean, rounds: number, warmup: number): Promise<{ ms: number[][]; errors: number[] }> {
  const ms = prepared.map((): number[] => []);
  const errors = prepared.map(() => 0);
  for (let round = 0; round < warmup + rounds; round++) {
    for (let k = 0; k < prepared.length; k++) {
      const i = (round + k) % prepared.length;
      const t = await timed(prepared[i]!).catch((): Timing => ({ ttfbMs: Number.NaN, totalMs: Number.NaN, ok: false }));
      if (round < warmup) continue;
      if (!t.ok) errors[i]!++;
      else ms[i]!.push(stream ? t.ttfbMs : t.totalMs);
    }
  }
  return { ms, errors };
}

export async function runLatencyProbe(fleet: Fleet, settings: Settings, log: (line: string) => void): Promise<ProbeRow[]> {
  const targets = selected(PROBE_TARGETS, settings.filter);
  const agents = new Map<string, Agent>();
  const agentOf = (s: Scenario) => {
    let agent = agents.get(s.target);
    if (agent === undefined) agents.set(s.target, (agent = new Agent({ keepAlive: true, maxSockets: 1 })));
    return agent;
  };
  const rows: ProbeRow[] = [];
  try {
    const groups = [false, true].map((stream) => targets.filter((s) => s.stream === stream));
    const perRepeat = groups.map((group) => group.map(() => ({ p50: [] as number[], p99: [] as number[], samples: 0, errors: 0 })));
    log(`probe: ${targets.length} targets x ${settings.probeRounds} rounds x ${settings.repeats} repeats, one request at a time`);
    for (let repeat = 0; repeat < settings.repeats; repeat++) {
      for (const [g, group] of groups.entries()) {
        const prepared = group.map((s) => prepare(fleet.url(s.target), requestFor(s, fleet.apiKey(s.target)), agentOf(s)));
        const { ms, errors } = await probePass(prepared, g === 1, settings.probeRounds, repeat === 0 ? settings.probeWarmupRounds : 0);
        for (const [i, xs] of ms.entries()) {
          const acc = perRepeat[g]![i]!;
          acc.p50.push(percentile(xs, 50));
          acc.p99.push(percentile(xs, 99));
          acc.samples += xs.length;
          acc.errors += errors[i]!;
        }
      }
    }
    for (const [g, group] of groups.entries()) {
      const accs = perRepeat[g]!;
      const baseline = (target: string) => accs[group.findIndex((s) => s.target === target)];
      const direct = baseline('direct');
      const proxy = baseline('proxy');
      const added = (mine: number[], theirs: number[] | undefined) => (theirs === undefined ? null : median(mine.map((x, repeat) => x - theirs[repeat]!)));
      for (const [i, s] of group.entries()) {
        const acc = accs[i]!;
        rows.push({
          scenario: s,
          p50Ms: median(acc.p50),
          p99Ms: median(acc.p99),
          addedP50Ms: s.target === 'direct' ? null : added(acc.p50, direct?.p50),
          addedP99Ms: s.target === 'direct' ? null : added(acc.p99, direct?.p99),
          addedP50VsProxyMs: s.kind === 'baseline' ? null : added(acc.p50, proxy?.p50),
          samples: acc.samples,
          errors: acc.errors,
        });
      }
    }
  } finally {
    for (const agent of agents.values()) agent.destroy();
  }
  return rows;
}
