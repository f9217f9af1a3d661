import type { Registry } from 'prom-client';
import { microcentsToUsdNumber } from '../shared/money.ts';
import { CounterCells, type CounterCell, HistogramCells, type HistogramCell } from './metric-cells.ts';
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

const STATUS_CLASSES = ['2xx', '3xx', '4xx', '5xx'] as const;
const TOKEN_TYPES = ['input', 'output', 'cache_read', 'cache_write', 'reasoning'] as const;

/**
 * The cells one kind of request adds to: every series whose labels come from the record's
 * ingress, operation, model, lane, egress and stream. Found once per such combination (they come
 * from the configuration, so there are few) and kept; a cell shows in the exposition only once it
 * has been added to, so finding them all up front changes nothing that is served.
 */
interface RouteCells {
  readonly requests: readonly CounterCell[];
  readonly duration: HistogramCell;
  readonly ttfb: HistogramCell;
  readonly overhead: HistogramCell;
  readonly tokens: readonly CounterCell[];
  readonly cost: CounterCell;
  readonly failovers: CounterCell;
  readonly clientGoneBefore: CounterCell;
  readonly clientGoneAfter: CounterCell;
}

/** Nested maps from label values to what they resolve to: lookups of strings, no key built per request. */
class LabelTree<T> {
  private readonly next = new Map<string, LabelTree<T>>();
  value: T | undefined;

  at(label: string): LabelTree<T> {
    let node = this.next.get(label);
    if (node === undefined) this.next.set(label, (node = new LabelTree<T>()));
    return node;
  }
}

/**
 * The metrics that come from finished requests, updated from each RequestRecord. Label values
 * come from the configuration only: `model` is the configured model or pool name the client
 * asked for (empty when it named none that is configured), `lane` the configured model that
 * served; protocols, outcomes, kinds and status classes are closed sets.
 */
export class RequestMetrics implements RequestObserver {
  private readonly requests: CounterCells<'ingress' | 'operation' | 'model' | 'lane' | 'status_class'>;
  private readonly duration: HistogramCells<'model' | 'lane' | 'stream'>;
  private readonly ttfb: HistogramCells<'model' | 'lane' | 'stream'>;
  private readonly overhead: HistogramCells<'ingress' | 'egress' | 'stream'>;
  private readonly attempts: CounterCells<'lane' | 'provider' | 'outcome'>;
  private readonly failovers: CounterCells<'model'>;
  private readonly tokens: CounterCells<'model' | 'lane' | 'type'>;
  private readonly cost: CounterCells<'model' | 'lane'>;
  private readonly rejections: CounterCells<'model' | 'reason'>;
  private readonly clientGone: CounterCells<'model' | 'stage'>;
  /** By ingress, operation, model, lane, egress, stream. */
  private readonly routes = new LabelTree<RouteCells>();
  /** By lane, provider, outcome. */
  private readonly attemptCells = new LabelTree<CounterCell>();

  constructor(registry: Registry) {
    this.requests = new CounterCells(registry, {
      name: 'gateway_requests_total',
      help: 'Data-plane requests by ingress protocol, operation (chat, embeddings, ...), requested model or pool, serving lane and status class',
      labelNames: ['ingress', 'operation', 'model', 'lane', 'status_class'],
    });
    this.duration = new HistogramCells(registry, {
      name: 'gateway_request_duration_seconds',
      help: 'Whole request, from its arrival to the last byte written',
      labelNames: ['model', 'lane', 'stream'],
      buckets: LATENCY_BUCKETS,
    });
    this.ttfb = new HistogramCells(registry, {
      name: 'gateway_time_to_first_byte_seconds',
      help: "From the request's arrival to the first byte sent to the client",
      labelNames: ['model', 'lane', 'stream'],
      buckets: LATENCY_BUCKETS,
    });
    this.overhead = new HistogramCells(registry, {
      name: 'gateway_overhead_seconds',
      help: "Time of a request spent neither waiting on upstreams nor on a slow client: the gateway's own work and queueing",
      labelNames: ['ingress', 'egress', 'stream'],
      buckets: OVERHEAD_BUCKETS,
    });
    this.attempts = new CounterCells(registry, {
      name: 'gateway_upstream_attempts_total',
      help: 'Upstream attempts by lane and outcome (success, lane_fault, lane_capacity, lane_config_fault, client_fault, client_gone, gateway_local, skipped: a lane that cannot express the request)',
      labelNames: ['lane', 'provider', 'outcome'],
    });
    this.failovers = new CounterCells(registry, {
      name: 'gateway_failovers_total',
      help: 'Attempts on another lane after a failed one, by requested model or pool',
      labelNames: ['model'],
    });
    this.tokens = new CounterCells(registry, {
      name: 'gateway_tokens_total',
      help: 'Tokens reported by upstreams, by type (input includes cache_read and cache_write; output includes reasoning)',
      labelNames: ['model', 'lane', 'type'],
    });
    this.cost = new CounterCells(registry, {
      name: 'gateway_cost_usd_total',
      help: "Spend in US dollars: the settled cost under governance, else reported usage at the lane's price",
      labelNames: ['model', 'lane'],
    });
    this.rejections = new CounterCells(registry, {
      name: 'gateway_rejections_total',
      help: 'Requests refused by governance before any upstream call (authentication, rate_limit, budget, price_unknown)',
      labelNames: ['model', 'reason'],
    });
    this.clientGone = new CounterCells(registry, {
      name: 'gateway_client_disconnects_total',
      help: 'Clients that left before their answer ended, before or after the first byte',
      labelNames: ['model', 'stage'],
    });
  }

  record(record: RequestRecord): void {
    const cells = this.routeCells(record);
    cells.requests[statusClass(record.status)]!.inc();
    cells.duration.observe(record.latencyMs / 1000);
    if (record.ttfbMs !== undefined) cells.ttfb.observe(record.ttfbMs / 1000);
    const { attempts } = record;
    if (attempts.length > 0) cells.overhead.observe(overheadMs(record) / 1000);
    for (let i = 0; i < attempts.length; i++) {
      const attempt = attempts[i]!;
      const node = this.attemptCells.at(attempt.lane).at(attempt.provider).at(attempt.outcome);
      (node.value ??= this.attempts.cell(attempt.lane, attempt.provider, attempt.outcome)).inc();
    }
    const failovers = failoverCount(record);
    if (failovers > 0) cells.failovers.inc(failovers);
    const { usage } = record;
    if (usage !== null) {
      const { tokens } = cells;
      tokens[0]!.inc(usage.inputTokens);
      tokens[1]!.inc(usage.outputTokens);
      if (usage.cacheReadTokens > 0) tokens[2]!.inc(usage.cacheReadTokens);
      if (usage.cacheWriteTokens > 0) tokens[3]!.inc(usage.cacheWriteTokens);
      if (usage.reasoningTokens > 0) tokens[4]!.inc(usage.reasoningTokens);
    }
    if (record.costMicrocents !== undefined && record.costMicrocents > 0n) cells.cost.inc(microcentsToUsdNumber(record.costMicrocents));
    const reason = rejectionReason(record);
    if (reason !== undefined) this.rejections.cell(record.model ?? '', reason).inc(); // refusals: not worth a cache
    if (record.clientGone) (record.ttfbMs === undefined ? cells.clientGoneBefore : cells.clientGoneAfter).inc();
  }

  private routeCells(record: RequestRecord): RouteCells {
    const model = record.model ?? '';
    const lane = record.lane ?? '';
    const egress = record.egress ?? '';
    const node = this.routes
      .at(record.ingress)
      .at(record.operation)
      .at(model)
      .at(lane)
      .at(egress)
      .at(record.stream ? 'true' : 'false');
    if (node.value !== undefined) return node.value;
    const stream = record.stream ? 'true' : 'false';
    const cells: RouteCells = {
      requests: STATUS_CLASSES.map((c) => this.requests.cell(record.ingress, record.operation, model, lane, c)),
      duration: this.duration.cell(model, lane, stream),
      ttfb: this.ttfb.cell(model, lane, stream),
      overhead: this.overhead.cell(record.ingress, egress, stream),
      tokens: TOKEN_TYPES.map((t) => this.tokens.cell(model, lane, t)),
      cost: this.cost.cell(model, lane),
      failovers: this.failovers.cell(model),
      clientGoneBefore: this.clientGone.cell(model, 'before_first_byte'),
      clientGoneAfter: this.clientGone.cell(model, 'after_first_byte'),
    };
    node.value = cells;
    return cells;
  }
}

/** The index in STATUS_CLASSES. */
function statusClass(status: number): number {
  if (status >= 500) return 3;
  if (status >= 400) return 2;
  if (status >= 300) return 1;
  return 0;
}

/** A governance refusal: no upstream was tried, and the gateway itself said no to the key. */
function rejectionReason(record: RequestRecord): string | undefined {
  if (record.attempts.length > 0 || record.errorKind === undefined) return undefined;
  if (record.errorKind === 'authentication') return 'authentication';
  return record.errorCode === undefined ? undefined : REJECTION_REASONS[record.errorCode];
}
