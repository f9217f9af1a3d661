import type { FinishReason, ProtocolId, Usage } from '../ir/index.ts';
import type { Operation } from '../config/runtime-config.ts';
import type { Outcome } from '../routing/outcome.ts';
import type { RequestContent } from './request-content.ts';

/**
 * The one summary of a finished data-plane request, built once by the pipeline and handed to every
 * observer (metrics, the request log line, traces, webhook hooks). Plain data, structured-cloneable,
 * so a worker thread can post it to the main thread. Never holds prompt or completion text, keys or
 * credentials: observers that may export text get it through their own, explicitly enabled path.
 *
 * Times: `latencyMs = upstreamMs + clientWaitMs + gateway overhead`. Overhead is what the gateway
 * itself spent (reading and checking the request, translating, encoding, event-loop queueing);
 * for a stream, a chunk that was already waiting when the gateway asked for it costs no upstream
 * time, so slow processing between chunks shows up as overhead, not as upstream time.
 */
export interface RequestRecord {
  readonly requestId: string;
  /** The configuration version that served it: the one in effect when it started (a reload meanwhile does not change it). */
  readonly configVersion: string;
  /** Wall-clock time the request started (ms since the epoch, sub-millisecond precision). */
  readonly startedAt: number;
  /** The W3C `traceparent` the client sent, so the request's trace can join the caller's. */
  readonly traceparent?: string;
  /**
   * The spend ledger's request id, when it is not `requestId` (the client chose that one: it is
   * echoed and logged, never used to deduplicate spend).
   */
  readonly ledgerId?: string;
  /** Virtual key id (not its secret) when governance identified one. */
  readonly keyId?: string;
  /** The configured model or pool name the client asked for; absent when the name is not configured (never client-invented). */
  readonly model?: string;
  /** The pool name when `model` names a pool. */
  readonly pool?: string;
  /** The lane (configured model name) that answered, or the last one tried. */
  readonly lane?: string;
  readonly provider?: string;
  /** The upstream model name of that lane. */
  readonly upstreamModel?: string;
  readonly ingress: ProtocolId;
  /** What the client asked for: chat, embeddings, ... (config `operations:`). */
  readonly operation: Operation;
  /** The protocol spoken to that lane's upstream. */
  readonly egress?: ProtocolId;
  readonly stream: boolean;
  /** HTTP status sent to the client (the committed one for streams); 499 when the client left before any. */
  readonly status: number;
  /** The client disconnected before the answer ended. */
  readonly clientGone: boolean;
  /** Error kind and code when the request failed (GatewayError kind, e.g. rate_limit, billing). */
  readonly errorKind?: string;
  readonly errorCode?: string;
  /** The upstream's usage report; null when there was none (no answer, or a cut stream). */
  readonly usage: Usage | null;
  /** Normalised finish reason of the answer, when it was seen. */
  readonly finishReason?: FinishReason;
  /** Cost in microcents (1e-8 USD): the settled spend under governance, else usage at the lane's price. */
  readonly costMicrocents?: bigint;
  /** Whole request, from its arrival to the last byte written (ms). */
  readonly latencyMs: number;
  /** From the request's arrival to the first byte sent to the client (ms), when anything was sent. */
  readonly ttfbMs?: number;
  /** Time awaiting upstreams (ms): connect, send and headers, then every read of a response body. */
  readonly upstreamMs: number;
  /** Time awaiting a slow client's socket to drain (ms). */
  readonly clientWaitMs: number;
  /** One entry per upstream attempt, in order; more than one means failover. */
  readonly attempts: readonly AttemptRecord[];
  /** Translation warnings of the answer by kind and field path (e.g. {kind: 'dropped', path: 'top_k'}). */
  readonly warnings: readonly { readonly kind: string; readonly path: string }[];
}

/** What an attempt's result says about its lane (DESIGN.md outcome attribution), or that the client left. */
export type AttemptOutcome = Outcome | 'client_gone' | 'gateway_local' | 'skipped';

export interface AttemptRecord {
  readonly lane: string;
  readonly provider: string;
  readonly outcome: AttemptOutcome;
  /** Upstream HTTP status, when one was received. */
  readonly status?: number;
  /** Why a lane was skipped without an upstream call, e.g. `cannot express n`. */
  readonly detail?: string;
  /** Start, from the request's start (ms). */
  readonly startMs: number;
  readonly ms: number;
}

/** Anything that wants to know about finished requests. Must not throw and must not block. */
export interface RequestObserver {
  /** `content` is there only when the operator turned on content capture (`otlp.capture_content`). */
  record(record: RequestRecord, content?: RequestContent): void;
}

/** The gateway overhead of a request (ms): neither waiting on upstreams nor on the client. */
export function overheadMs(record: RequestRecord): number {
  return Math.max(0, record.latencyMs - record.upstreamMs - record.clientWaitMs);
}

/** The request did not end in a whole answer: an error status, an error that ended its stream, or a client that left. */
export function requestFailed(record: RequestRecord): boolean {
  return record.status >= 400 || record.errorKind !== undefined || record.clientGone;
}

/** Lanes tried after the first (a lane skipped without an upstream call is not a try). */
export function failoverCount(record: RequestRecord): number {
  let tried = 0;
  for (const attempt of record.attempts) if (attempt.outcome !== 'skipped') tried++;
  return Math.max(0, tried - 1);
}

/** Lanes skipped because they could not express the request (a pool of mixed protocols). */
export function skippedCount(record: RequestRecord): number {
  let skipped = 0;
  for (const attempt of record.attempts) if (attempt.outcome === 'skipped') skipped++;
  return skipped;
}
