// Soak: a moderate, rate-limited mixed load on the gateway for BENCH_SOAK_MINUTES, RSS sampled
// every BENCH_SOAK_SAMPLE_SECONDS; the least-squares slope after the warm-up tells a leak (steady
// growth) from a high-water mark (growth that stops once the heap has sized itself to the load).
import autocannon from 'autocannon';
import type { Fleet } from './fleet.ts';
import { processRssMiB } from './process-cpu.ts';
import { requestFor, THROUGHPUT_SCENARIOS } from './scenarios.ts';
import type { SoakSettings } from './settings.ts';
import { leastSquaresSlope } from './stats.ts';

export interface SoakResult {
  readonly minutes: number;
  readonly warmupMinutes: number;
  readonly sampleSeconds: number;
  readonly connections: number;
  readonly rate: number;
  readonly scenarios: readonly string[];
  readonly samples: readonly { readonly minute: number; readonly rssMiB: number }[];
  readonly slopeMiBPerMinute: number;
  readonly requests: number;
  readonly errors: number;
}

export async function runSoak(fleet: Fleet, soak: SoakSettings, log: (line: string) => void): Promise<SoakResult> {
  const gateway = fleet.gateways.get('gateway')!;
  // Same and cross protocol, stream and not: every path the gateway would serve in a real mix.
  const mix = THROUGHPUT_SCENARIOS.filter((s) => s.target === 'gateway' && !s.comparison);
  const requests = mix.map((s) => {
    const r = requestFor(s, gateway.apiKey);
    return { method: 'POST' as const, path: r.path, body: r.body, headers: { ...r.headers } };
  });
  log(`soak: ${soak.minutes} min at ${soak.rate} req/s over ${soak.connections} connections, ${mix.length} scenarios in turn; RSS every ${soak.sampleSeconds} s`);
  const started = performance.now();
  const minuteNow = () => (performance.now() - started) / 60_000;
  const samples: { minute: number; rssMiB: number }[] = [{ minute: 0, rssMiB: processRssMiB(gateway.server.pid) }];
  const sampler = setInterval(() => {
    const sample = { minute: minuteNow(), rssMiB: processRssMiB(gateway.server.pid) };
    samples.push(sample);
    log(`soak: ${sample.minute.toFixed(1)} min, RSS ${sample.rssMiB.toFixed(1)} MiB`);
  }, soak.sampleSeconds * 1000);
  let result: autocannon.Result;
  try {
    result = await autocannon({
      url: gateway.server.url, requests, connections: soak.connections, overallRate: soak.rate, duration: Math.round(soak.minutes * 60),
    });
  } finally {
    clearInterval(sampler);
  }
  samples.push({ minute: minuteNow(), rssMiB: processRssMiB(gateway.server.pid) });
  const afterWarmup = samples.filter((s) => s.minute >= soak.warmupMinutes).map((s) => ({ x: s.minute, y: s.rssMiB }));
  return {
    ...soak, scenarios: mix.map((s) => s.name), samples,
    slopeMiBPerMinute: leastSquaresSlope(afterWarmup),
    requests: result.requests.total, errors: result.errors + result.non2xx,
  };
}
