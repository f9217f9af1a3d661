// One load sample of one scenario: throughput, latency, errors, the CPU the target's process tree
// spent per request (from /proc: every process and thread, user + system), and the generator's
// own CPU per request. wrk when the bench has it (latency at µs resolution), else autocannon
// (1 ms resolution); see load-generator.ts.
import autocannon from 'autocannon';
import type { ClientRequest } from './client-requests.ts';
import type { Generator } from './load-generator.ts';
import { treeCpuMicros } from './process-tree.ts';
import { median } from './stats.ts';
import { runWrk } from './wrk-load.ts';

export interface LoadSample {
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** null for direct: no process in between to charge. */
  readonly cpuMicrosPerRequest: number | null;
  /** The load generator's CPU per request (wrk's process; for autocannon, the bench process's). */
  readonly clientCpuMicrosPerRequest: number;
  readonly requests: number;
  /** Connection errors, timeouts and non-2xx answers. */
  readonly errors: number;
}

/** The repeats of one scenario as one row: medians of the rates and latencies, errors and requests summed. */
export interface LoadSummary {
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly cpuMicrosPerRequest: number | null;
  readonly clientCpuMicrosPerRequest: number;
  readonly errors: number;
  readonly requests: number;
}

export function summariseLoad(xs: readonly LoadSample[]): LoadSummary {
  const cpu = xs.map((x) => x.cpuMicrosPerRequest).filter((x): x is number => x !== null);
  return {
    rps: median(xs.map((x) => x.rps)),
    p50Ms: median(xs.map((x) => x.p50Ms)),
    p99Ms: median(xs.map((x) => x.p99Ms)),
    cpuMicrosPerRequest: cpu.length === 0 ? null : median(cpu),
    clientCpuMicrosPerRequest: median(xs.map((x) => x.clientCpuMicrosPerRequest)),
    errors: xs.reduce((a, x) => a + x.errors, 0),
    requests: xs.reduce((a, x) => a + x.requests, 0),
  };
}

export interface LoadOptions {
  readonly url: string;
  readonly request: ClientRequest;
  readonly connections: number;
  readonly seconds: number;
  readonly pid: number | undefined;
  readonly generator: Generator;
}

export async function runLoad(options: LoadOptions): Promise<LoadSample> {
  const { pid } = options;
  const cpuBefore = pid === undefined ? 0 : treeCpuMicros(pid);
  const measured = options.generator === 'wrk' ? await wrkSample(options) : await autocannonSample(options);
  const { requests } = measured;
  return {
    ...measured,
    cpuMicrosPerRequest: pid === undefined || requests === 0 ? null : (treeCpuMicros(pid) - cpuBefore) / requests,
  };
}

type Measured = Omit<LoadSample, 'cpuMicrosPerRequest'>;

async function wrkSample(options: LoadOptions): Promise<Measured> {
  const r = await runWrk(options.url, options.request, options.connections, options.seconds);
  return {
    rps: r.requests / r.seconds,
    p50Ms: r.p50Ms,
    p99Ms: r.p99Ms,
    clientCpuMicrosPerRequest: r.requests === 0 ? Number.NaN : r.clientCpuMicros / r.requests,
    requests: r.requests,
    errors: r.errors,
  };
}

/** autocannon's options for one scenario's request; `duration` or `amount` says how long. */
function autocannonOptions(options: Omit<LoadOptions, 'seconds' | 'pid'>, length: { duration: number } | { amount: number }): autocannon.Options {
  return {
    url: options.url + options.request.path,
    method: 'POST',
    body: options.request.body,
    headers: { ...options.request.headers },
    connections: options.connections,
    ...length,
  };
}

async function autocannonSample(options: LoadOptions): Promise<Measured> {
  const client = process.cpuUsage();
  const result = await autocannon(autocannonOptions(options, { duration: options.seconds }));
  const used = process.cpuUsage(client);
  const requests = result.requests.total;
  return {
    rps: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    clientCpuMicrosPerRequest: requests === 0 ? Number.NaN : (used.user + used.system) / requests,
    requests,
    errors: result.errors + result.non2xx,
  };
}

/** Enough load that JIT, pools and connections are warm before measuring; fails on any error. */
export async function warmUp(options: Omit<LoadOptions, 'seconds' | 'pid'>, amount: number): Promise<void> {
  let errors: number;
  if (options.generator === 'wrk') {
    // wrk runs for a time, not a count: about `amount` requests at a few thousand a second.
    const r = await runWrk(options.url, options.request, options.connections, Math.max(1, Math.ceil(amount / 2000)));
    errors = r.errors;
  } else {
    const result = await autocannon(autocannonOptions(options, { amount: Math.max(amount, options.connections) }));
    errors = result.errors + result.non2xx;
  }
  if (errors > 0) throw new Error(`warm-up of ${options.url}${options.request.path}: ${errors} errors or non-2xx answers; is the scenario's request valid?`);
}

/** What `measureInterleaved` needs of each scenario: where it goes, what it sends, whose CPU counts. */
export interface LoadTarget {
  readonly url: string;
  readonly request: ClientRequest;
  readonly pid: number | undefined;
}

/**
 * Every scenario warmed up, then `repeats` rounds in which each runs once in turn (interleaved, so
 * a moment's load on a shared machine falls on all of them), summarised per scenario.
 */
export async function measureInterleaved<S>(
  scenarios: readonly S[],
  targetOf: (scenario: S) => LoadTarget,
  run: { readonly connections: number; readonly seconds: number; readonly repeats: number; readonly generator: Generator; readonly warmupRequests: number },
): Promise<Map<S, LoadSummary>> {
  const { connections, generator } = run;
  for (const s of scenarios) {
    const { url, request } = targetOf(s);
    await warmUp({ url, request, connections, generator }, run.warmupRequests);
  }
  const samples = new Map<S, LoadSample[]>(scenarios.map((s) => [s, []]));
  for (let repeat = 0; repeat < run.repeats; repeat++)
    for (const s of scenarios) samples.get(s)!.push(await runLoad({ ...targetOf(s), connections, seconds: run.seconds, generator }));
  return new Map(scenarios.map((s) => [s, summariseLoad(samples.get(s)!)]));
}
