import { Counter, Histogram, type Registry } from 'prom-client';
import { overheadMs, type RequestObserver, type RequestRecord } from './request-record.ts';

/** Seconds; from a fast cached answer to a long generation. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
/** Seconds; the gateway's own share is expected in the sub-millisecond to millisecond range. */
const OVERHEAD_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

/** Governance refusals by the code the gateway gave them (the codes are the gateway's own). */
const REJECTION_REASONS: Readonly<Record<string, string>> = {
  rate_limited: 'rate_limit',
  budget_exceeded: 'budget',
  model_price_unknown: 'price_unknown',
};

/**
 * The metrics that come from finished requests, updated from each RequestRecord. Label values
 * come from the configuration only: `model` is the configured model or pool name the client
 * asked for (empty when it named none that is configured), `lane` the configured model that
 * served; protocols, outcomes, kinds and status classes are closed sets.
 */
export class RequestMetrics implements RequestObserver {
  private readonly requests: Counter<'ingress' | 'model' | 'lane' | 'status_class'>;
  private readonly duration: Histogram<'model' | 'lane' | 'stream'>;
  private readonly ttfb: Histogram<'model' | 'lane' | 'stream'>;
  private readonly overhead: Histogram<'ingress' | 'egress' | 'stream'>;
  private readonly attempts: Counter<'lane' | 'provider' | 'outcome'>;
  private readonly failovers: Counter<'model'>;
  private readonly tokens: Counter<'model' | 'lane' | 'type'>;
  private readonly cost: Counter<'model' | 'lane'>;
  private readonly rejections: Counter<'model' | 'reason'>;
  private readonly clientGone: Counter<'model' | 'stage'>;

  constructor(registry: Registry) {
    const registers = [registry];
    this.requests = new Counter({
      name: 'gateway_requests_total',
      help: 'Data-plane chat requests by ingress protocol, requested model or pool, serving lane and status class',
      labelNames: ['ingress', 'model', 'lane', 'status_class'],
      registers,
    });
    this.duration = new Histogram({
      name: 'gateway_request_duration_seconds',
      help: 'Whole request, from its arrival to the last byte written',
      labelNames: ['model', 'lane', 'stream'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.ttfb = new Histogram({
      name: 'gateway_time_to_first_byte_seconds',
      help: 'From the request\'s arrival to the first byte sent to the client',
      labelNames: ['model', 'lane', 'stream'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.overhead = new Histogram({
      name: 'gateway_overhead_seconds',
      help: 'Time of a request spent neither waiting on upstreams nor on a slow client: the gateway\'s own work and queueing',
      labelNames: ['ingress', 'egress', 'stream'],
      buckets: OVERHEAD_BUCKETS,
      registers,
    });
    this.attempts = new Counter({
      name: 'gateway_upstream_attempts_total',
      help: 'Upstream attempts by lane and outcome (success, lane_fault, lane_capacity, lane_config_fault, client_fault, client_gone, gateway_local)',
      labelNames: ['lane', 'provider', 'outcome'],
      registers,
    });
    this.failovers = new Counter({
      name: 'gateway_failovers_total',
      help: 'Attempts on another lane after a failed one, by requested model or pool',
      labelNames: ['model'],
      registers,
    });
    this.tokens = new Counter({
      name: 'gateway_tokens_total',
      help: 'Tokens reported by upstreams, by type (input includes cache_read and cache_write; output includes reasoning)',
      labelNames: ['model', 'lane', 'type'],
      registers,
    });
    this.cost = new Counter({
      name: 'gateway_cost_usd_total',
      help: 'Spend in US dollars: the settled cost under governance, else reported usage at the lane\'s price',
      labelNames: ['model', 'lane'],
      registers,
    });
    this.rejections = new Counter({
      name: 'gateway_rejections_total',
      help: 'Requests refused by governance before any upstream call (authentication, rate_limit, budget, price_unknown)',
      labelNames: ['model', 'reason'],
      registers,
    });
    this.clientGone = new Counter({
      name: 'gateway_client_disconnects_total',
      help: 'Clients that left before their answer ended, before or after the first byte',
      labelNames: ['model', 'stage'],
      registers,
    });
  }

  record(record: RequestRecord): void {
    const model = record.model ?? '';
    const lane = record.lane ?? '';
    const stream = record.stream ? 'true' : 'false';
    this.requests.inc({ ingress: record.ingress, model, lane, status_class: statusClass(record.status) });
    this.duration.observe({ model, lane, stream }, record.latencyMs / 1000);
    if (record.ttfbMs !== undefined) this.ttfb.observe({ model, lane, stream }, record.ttfbMs / 1000);
    if (record.attempts.length > 0) {
      this.overhead.observe({ ingress: record.ingress, egress: record.egress ?? '', stream }, overheadMs(record) / 1000);
    }
    for (const attempt of record.attempts) this.attempts.inc({ lane: attempt.lane, provider: attempt.provider, outcome: attempt.outcome });
    if (record.attempts.length > 1) this.failovers.inc({ model }, record.attempts.length - 1);
    if (record.usage !== null) {
      const { usage } = record;
      this.tokens.inc({ model, lane, type: 'input' }, usage.inputTokens);
      this.tokens.inc({ model, lane, type: 'output' }, usage.outputTokens);
      if (usage.cacheReadTokens > 0) this.tokens.inc({ model, lane, type: 'cache_read' }, usage.cacheReadTokens);
      if (usage.cacheWriteTokens > 0) this.tokens.inc({ model, lane, type: 'cache_write' }, usage.cacheWriteTokens);
      if (usage.reasoningTokens > 0) this.tokens.inc({ model, lane, type: 'reasoning' }, usage.reasoningTokens);
    }
    if (record.costMicrocents !== undefined && record.costMicrocents > 0n) this.cost.inc({ model, lane }, Number(record.costMicrocents) / 1e8);
    const reason = rejectionReason(record);
    if (reason !== undefined) this.rejections.inc({ model, reason });
    if (record.clientGone) this.clientGone.inc({ model, stage: record.ttfbMs === undefined ? 'before_first_byte' : 'after_first_byte' });
  }
}

function statusClass(status: number): string {
  if (status >= 500) return '5xx';
  if (status >= 400) return '4xx';
  if (status >= 300) return '3xx';
  return '2xx';
}

/** A governance refusal: no upstream was tried, and the gateway itself said no to the key. */
function rejectionReason(record: RequestRecord): string | undefined {
  if (record.attempts.length > 0 || record.errorKind === undefined) return undefined;
  if (record.errorKind === 'authentication') return 'authentication';
  return record.errorCode === undefined ? undefined : REJECTION_REASONS[record.errorCode];
}
