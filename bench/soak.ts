// Soak: BENCH_SOAK_MINUTES of a rate-limited load through a pool of two lanes, one of which fails
// BENCH_SOAK_FAIL_PERCENT (30) of its requests (500, connection reset, hang, in equal parts: the
// mock's flaky mode). Failover and the breaker must absorb every fault: zero client errors.
// RSS is sampled every BENCH_SOAK_SAMPLE_SECONDS; the least-squares slope after the warm-up tells
// a leak (steady growth) from a high-water mark (growth that stops once the heap has sized itself).
import { clientRequest } from './client-requests.ts';
import type { Fleet } from './fleet.ts';
import { SOAK_FIRST_BYTE_MS, SOAK_POOL } from './gateway-config.ts';
import { processRssMiB } from './process-cpu.ts';
import { scrapeMetrics, sumOf } from './prometheus-sum.ts';
import type { SoakSettings } from './settings.ts';
import { runSoakLoad, type SoakRequest } from './soak-load.ts';
import { leastSquaresSlope, percentile } from './stats.ts';

export interface SoakResult {
  readonly minutes: number;
  readonly warmupMinutes: number;
  readonly sampleSeconds: number;
  readonly connections: number;
  readonly rate: number;
  readonly failPercent: number;
  readonly scenarios: readonly string[];
  readonly samples: readonly { readonly minute: number; readonly rssMiB: number }[];
  readonly slopeMiBPerMinute: number;
  /** Requests sent by the client. */
  readonly requests: number;
  /** Answers that were not a complete 200 (a status, a reset, a timeout, an error event, a cut stream). */
  readonly errors: number;
  readonly errorSamples: readonly string[];
  readonly failovers: number;
  readonly breakerTrips: number;
  /** Attempts on the flaky lane by outcome, from /metrics. */
  readonly flakyLaneFaults: number;
  readonly latencyP50Ms: number;
  readonly latencyP99Ms: number;
}

/** OpenAI and Anthropic clients, stream and not: with an OpenAI and an Anthropic lane, every path. */
function soakRequests(apiKey: string): SoakRequest[] {
  const reply = 'quick brown fox';
  return [
    { ...clientRequest('openai', SOAK_POOL, false, apiKey), name: 'openai', stream: false, mustContain: [reply] },
    { ...clientRequest('openai', SOAK_POOL, true, apiKey), name: 'openai stream', stream: true, mustContain: [reply, 'data: [DONE]'] },
    { ...clientRequest('anthropic', SOAK_POOL, false, apiKey), name: 'anthropic', stream: false, mustContain: [reply] },
    { ...clientRequest('anthropic', SOAK_POOL, true, apiKey), name: 'anthropic stream', stream: true, mustContain: [reply, 'event: message_stop'] },
  ];
}

export async function runSoak(fleet: Fleet, soak: SoakSettings, log: (line: string) => void): Promise<SoakResult> {
  const gateway = fleet.gateways.get('gateway')!;
  const requests = soakRequests(gateway.apiKey);
  log(
    `soak: ${soak.minutes} min at up to ${soak.rate} req/s over ${soak.connections} connections through ${SOAK_POOL} ` +
      `(a lane failing ${soak.failPercent}%: 500, reset, hang until its ${SOAK_FIRST_BYTE_MS} ms first-byte timeout), ${requests.length} scenarios in turn; RSS every ${soak.sampleSeconds} s`,
  );
  const started = performance.now();
  const minuteNow = () => (performance.now() - started) / 60_000;
  const samples: { minute: number; rssMiB: number }[] = [{ minute: 0, rssMiB: processRssMiB(gateway.server.pid) }];
  const sampler = setInterval(() => {
    const sample = { minute: minuteNow(), rssMiB: processRssMiB(gateway.server.pid) };
    samples.push(sample);
    log(`soak: ${sample.minute.toFixed(1)} min, RSS ${sample.rssMiB.toFixed(1)} MiB`);
  }, soak.sampleSeconds * 1000);
  let load: Awaited<ReturnType<typeof runSoakLoad>>;
  try {
    load = await runSoakLoad(gateway.server.url, requests, { connections: soak.connections, rate: soak.rate, seconds: Math.round(soak.minutes * 60) });
  } finally {
    clearInterval(sampler);
  }
  samples.push({ minute: minuteNow(), rssMiB: processRssMiB(gateway.server.pid) });
  const metrics = await scrapeMetrics(gateway.server.url);
  const flakyFaults = metrics
    .split('\n')
    .filter((l) => l.startsWith('gateway_upstream_attempts_total') && l.includes('soak-flaky') && !l.includes('outcome="success"'))
    .join('\n');
  const afterWarmup = samples.filter((s) => s.minute >= soak.warmupMinutes).map((s) => ({ x: s.minute, y: s.rssMiB }));
  return {
    ...soak,
    scenarios: requests.map((r) => r.name),
    samples,
    slopeMiBPerMinute: leastSquaresSlope(afterWarmup),
    requests: load.requests,
    errors: load.clientErrors,
    errorSamples: load.errorSamples,
    failovers: sumOf(metrics, 'gateway_failovers_total'),
    breakerTrips: sumOf(metrics, 'gateway_breaker_trips_total'),
    flakyLaneFaults: sumOf(flakyFaults, 'gateway_upstream_attempts_total'),
    latencyP50Ms: percentile(load.latencyMs, 50),
    latencyP99Ms: percentile(load.latencyMs, 99),
  };
}
