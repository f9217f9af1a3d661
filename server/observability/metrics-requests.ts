import { Counter, Histogram, type Registry } from 'prom-client';
import { microcentsToUsdNumber } from '../shared/money.ts';
import { BoundLabels } from './bound-labels.ts';
import { failoverCount, overheadMs, type RequestObserver, type RequestRecord } from './request-record.ts';

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
  private readonly requests: Counter<'ingress' | 'operation' | 'model' | 'lane' | 'status_class'>;
  private readonly duration: Histogram<'model' | 'lane' | 'stream'>;
  private readonly ttfb: Histogram<'model' | 'lane' | 'stream'>;
  private readonly overhead: Histogram<'ingress' | 'egress' | 'stream'>;
  private readonly attempts: Counter<'lane' | 'provider' | 'outcome'>;
  private readonly failovers: Counter<'model'>;
  private readonly tokens: Counter<'model' | 'lane' | 'type'>;
  private readonly cost: Counter<'model' | 'lane'>;
  private readonly rejections: Counter<'model' | 'reason'>;
  private readonly clientGone: Counter<'model' | 'stage'>;
  private readonly children = new BoundLabels();

  constructor(registry: Registry) {
    const registers = [registry];
    this.requests = new Counter({
      name: 'gateway_requests_total',
      help: 'Data-plane requests by ingress protocol, operation (chat, embeddings, ...), requested model or pool, serving lane and status class',
      labelNames: ['ingress', 'operation', 'model', 'lane', 'status_class'],
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
      help: "From the request's arrival to the first byte sent to the client",
      labelNames: ['model', 'lane', 'stream'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.overhead = new Histogram({
      name: 'gateway_overhead_seconds',
      help: "Time of a request spent neither waiting on upstreams nor on a slow client: the gateway's own work and queueing",
      labelNames: ['ingress', 'egress', 'stream'],
      buckets: OVERHEAD_BUCKETS,
      registers,
    });
    this.attempts = new Counter({
      name: 'gateway_upstream_attempts_total',
      help: 'Upstream attempts by lane and outcome (success, lane_fault, lane_capacity, lane_config_fault, client_fault, client_gone, gateway_local, skipped: a lane that cannot express the request)',
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
      help: "Spend in US dollars: the settled cost under governance, else reported usage at the lane's price",
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
    // Label sets are bound once and kept (bounded by the configuration): prom-client would
    // otherwise sort and hash the label object on every observation.
    const c = this.children;
    c.get(this.requests, record.ingress, record.operation, model, lane, statusClass(record.status)).inc();
    c.get(this.duration, model, lane, stream).observe(record.latencyMs / 1000);
    if (record.ttfbMs !== undefined) c.get(this.ttfb, model, lane, stream).observe(record.ttfbMs / 1000);
    if (record.attempts.length > 0) c.get(this.overhead, record.ingress, record.egress ?? '', stream).observe(overheadMs(record) / 1000);
    for (const attempt of record.attempts) c.get(this.attempts, attempt.lane, attempt.provider, attempt.outcome).inc();
    const failovers = failoverCount(record);
    if (failovers > 0) c.get(this.failovers, model).inc(failovers);
    if (record.usage !== null) {
      const { usage } = record;
      c.get(this.tokens, model, lane, 'input').inc(usage.inputTokens);
      c.get(this.tokens, model, lane, 'output').inc(usage.outputTokens);
      if (usage.cacheReadTokens > 0) c.get(this.tokens, model, lane, 'cache_read').inc(usage.cacheReadTokens);
      if (usage.cacheWriteTokens > 0) c.get(this.tokens, model, lane, 'cache_write').inc(usage.cacheWriteTokens);
      if (usage.reasoningTokens > 0) c.get(this.tokens, model, lane, 'reasoning').inc(usage.reasoningTokens);
    }
    if (record.costMicrocents !== undefined && record.costMicrocents > 0n) c.get(this.cost, model, lane).inc(microcentsToUsdNumber(record.costMicrocents));
    const reason = rejectionReason(record);
    if (reason !== undefined) c.get(this.rejections, model, reason).inc();
    if (record.clientGone) c.get(this.clientGone, model, record.ttfbMs === undefined ? 'before_first_byte' : 'after_first_byte').inc();
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
