import type { ModelRoute, Operation } from '../config/runtime-config.ts';
import { costMicrocents } from '../governance/cost.ts';
import type { FinishReason, GatewayError, ProtocolId } from '../ir/index.ts';
import type { AttemptOutcome, AttemptRecord, RequestRecord } from '../observability/request-record.ts';
import type { TranslationWarning } from '../protocols/codec.ts';
import type { ClientResponse } from './client-response.ts';

/** Status recorded for a client that left before anything was sent (nginx's "client closed request"). */
export const CLIENT_CLOSED_REQUEST = 499;

const NO_WARNINGS: RequestRecord['warnings'] = Object.freeze([]);

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * What the pipeline notes about one request while it runs, turned into its `RequestRecord` at the
 * end. Cheap by design: plain fields, a few `performance.now()` reads, no per-chunk allocation.
 * Upstream time is summed between `waitUpstream()` and `gotUpstream()` around every await on an
 * upstream (the send up to headers, each body read).
 */
export class RequestMeter {
  private readonly start = performance.now();
  /** Start of the upstream read in progress; 0 when none is. */
  private waitSince = 0;
  private upstreamMs = 0;
  private readonly attempts: AttemptRecord[] = [];
  /** Upstream status of the attempt in progress, once its headers came. */
  upstreamStatus: number | undefined;
  /** What the client asked for (chat, embeddings, ...). */
  operation: Operation = 'chat';
  /** Set once the name resolves to a configured model or pool. */
  model: string | undefined;
  pool: string | undefined;
  stream = false;
  traceparent: string | undefined;
  keyId: string | undefined;
  /** The spend ledger's id for this request, when it differs from the (client-chosen) request id. */
  ledgerId: string | undefined;
  /** The settled spend (governance); without governance the cost is computed from usage. */
  costMicrocents: bigint | undefined;
  finishReason: FinishReason | undefined;
  warnings: readonly TranslationWarning[] = [];
  /**
   * The whole answer, its protocol's end marker included, was written before the client closed:
   * a client that closes then (openai-python after `[DONE]`) has not left early.
   */
  delivered = false;
  /** The failure the client was answered with. */
  error: GatewayError | undefined;
  private lastLane: ModelRoute | undefined;

  /** Awaits something from an upstream (headers, a whole body), counting the wait as upstream time. */
  async upstream<T>(pending: Promise<T>): Promise<T> {
    const since = performance.now();
    try {
      return await pending;
    } finally {
      this.upstreamMs += performance.now() - since;
    }
  }

  /** For body reads in a loop (no allocation per chunk): call before each read, `gotUpstream()` after. */
  waitUpstream(): void {
    this.waitSince = performance.now();
  }

  /** Ends the wait `waitUpstream()` started; a second call without a new wait adds nothing. */
  gotUpstream(): void {
    if (this.waitSince === 0) return;
    this.upstreamMs += performance.now() - this.waitSince;
    this.waitSince = 0;
  }

  /** Returns the attempt's start, to hand back to `endAttempt`. */
  beginAttempt(lane: ModelRoute): number {
    this.upstreamStatus = undefined;
    this.lastLane = lane;
    return performance.now();
  }

  endAttempt(lane: ModelRoute, outcome: AttemptOutcome, started: number): void {
    const startMs = started - this.start;
    const ms = performance.now() - started;
    const { name, provider } = lane;
    this.attempts.push(
      this.upstreamStatus === undefined
        ? { lane: name, provider: provider.name, outcome, startMs, ms }
        : { lane: name, provider: provider.name, outcome, status: this.upstreamStatus, startMs, ms },
    );
  }

  /** A lane passed over without an upstream call (it cannot express the request): no time, no lane state. */
  skipAttempt(lane: ModelRoute, detail: string): void {
    this.attempts.push({ lane: lane.name, provider: lane.provider.name, outcome: 'skipped', detail, startMs: performance.now() - this.start, ms: 0 });
  }

  /** The record, once the response has ended (or the client is gone). */
  finish(exchange: {
    readonly requestId: string;
    readonly configVersion: string;
    readonly ingress: ProtocolId;
    readonly res: ClientResponse;
    readonly clientGone: boolean;
  }): RequestRecord {
    const end = performance.now();
    const { res } = exchange;
    const answer = res.answer;
    const lane = answer?.lane ?? this.lastLane;
    const usage = answer?.usage ?? null;
    const cost = this.costMicrocents ?? (usage !== null && answer?.lane.price !== undefined ? costMicrocents(usage, answer.lane.price) : undefined);
    const status = res.status !== 0 ? res.status : exchange.clientGone ? CLIENT_CLOSED_REQUEST : 500;
    // Built field by field in the record's documented order (the order its keys had when it was
    // spread together from optional parts, without the short-lived object each part made).
    const record: Mutable<RequestRecord> = {
      requestId: exchange.requestId,
      configVersion: exchange.configVersion,
      startedAt: performance.timeOrigin + this.start,
    } as Mutable<RequestRecord>;
    if (this.traceparent !== undefined) record.traceparent = this.traceparent;
    if (this.keyId !== undefined) record.keyId = this.keyId;
    if (this.ledgerId !== undefined) record.ledgerId = this.ledgerId;
    if (this.model !== undefined) record.model = this.model;
    if (this.pool !== undefined) record.pool = this.pool;
    if (lane !== undefined) {
      record.lane = lane.name;
      record.provider = lane.provider.name;
      record.upstreamModel = lane.upstreamModel;
      record.egress = lane.provider.protocol;
    }
    record.ingress = exchange.ingress;
    record.operation = this.operation;
    record.stream = this.stream;
    record.status = status;
    record.clientGone = exchange.clientGone;
    if (this.error !== undefined) {
      record.errorKind = this.error.kind;
      if (typeof this.error.code === 'string') record.errorCode = this.error.code;
    }
    record.usage = usage;
    if (this.finishReason !== undefined) record.finishReason = this.finishReason;
    if (cost !== undefined) record.costMicrocents = cost;
    record.latencyMs = end - this.start;
    if (res.committedAt !== undefined) record.ttfbMs = res.committedAt - this.start;
    record.upstreamMs = this.upstreamMs;
    record.clientWaitMs = res.clientWaitMs;
    record.attempts = this.attempts;
    // Kind and path only (a warning's message is for the log): no copy when there are none.
    record.warnings = this.warnings.length === 0 ? NO_WARNINGS : this.warnings.map((w) => ({ kind: w.kind, path: w.path }));
    return record;
  }
}
