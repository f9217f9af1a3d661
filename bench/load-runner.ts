// One autocannon sample of one scenario: throughput, latency (1 ms resolution), errors, and the CPU
// the process in the middle spent per request (from /proc: all its threads, user + system).
import autocannon from 'autocannon';
import type { ClientRequest } from './client-requests.ts';
import { processCpuMicros } from './process-cpu.ts';
import { median } from './stats.ts';

export interface LoadSample {
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** null for direct: no process in between to charge. */
  readonly cpuMicrosPerRequest: number | null;
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
}

export async function runLoad(options: LoadOptions): Promise<LoadSample> {
  const { pid } = options;
  const cpuBefore = pid === undefined ? 0 : processCpuMicros(pid);
  const result = await autocannon({
    url: options.url + options.request.path,
    method: 'POST',
    body: options.request.body,
    headers: { ...options.request.headers },
    connections: options.connections,
    duration: options.seconds,
  });
  const requests = result.requests.total;
  return {
    rps: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    cpuMicrosPerRequest: pid === undefined || requests === 0 ? null : (processCpuMicros(pid) - cpuBefore) / requests,
    requests,
    errors: result.errors + result.non2xx,
  };
}

/** A fixed number of requests so JIT, pools and connections are warm before measuring; fails on any error. */
export async function warmUp(options: Omit<LoadOptions, 'seconds' | 'pid'>, amount: number): Promise<void> {
  const result = await autocannon({
    url: options.url + options.request.path,
    method: 'POST',
    body: options.request.body,
    headers: { ...options.request.headers },
    connections: options.connections,
    amount: Math.max(amount, options.connections),
  });
  if (result.errors + result.non2xx > 0) {
    throw new Error(
      `warm-up of ${options.url}${options.request.path}: ${result.errors} errors, ${result.non2xx} non-2xx answers; is the scenario's request valid?`,
    );
  }
}
