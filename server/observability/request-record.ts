import type { ProtocolId, Usage } from '../ir/index.ts';
import type { Outcome } from '../routing/outcome.ts';

/**
 * The one summary of a finished data-plane request, built once by the pipeline and handed to every
 * observer (metrics, the request log line, traces, webhook hooks). Plain data, structured-cloneable,
 * so a worker thread can post it to the main thread. Never holds prompt or completion text, keys or
 * credentials: observers that may export text get it through their own, explicitly enabled path.
 */
export interface RequestRecord {
  readonly requestId: string;
  /** Virtual key id (not its secret) when governance identified one. */
  readonly keyId?: string;
  /** The name the client asked for: a configured model or pool (never client-invented: unknown names are 404 before this). */
  readonly model?: string;
  /** The pool name when `model` names a pool. */
  readonly pool?: string;
  /** The lane that answered (or the last one tried). */
  readonly lane?: string;
  readonly provider?: string;
  readonly ingress: ProtocolId;
  /** The protocol spoken to the upstream that answered. */
  readonly egress?: ProtocolId;
  readonly stream: boolean;
  /** HTTP status sent to the client (the committed one for streams). */
  readonly status: number;
  /** Error kind and code when the request failed (GatewayError kind, e.g. rate_limit, budget_exceeded). */
  readonly errorKind?: string;
  readonly errorCode?: string;
  readonly usage: Usage | null;
  /** Settled cost in microcents (1e-8 USD), when the lane has a price. */
  readonly costMicrocents?: bigint;
  /** Whole request, from the first byte read to the last byte written (ms). */
  readonly latencyMs: number;
  /** From the request's start to the first byte sent to the client (ms), when anything was sent. */
  readonly ttfbMs?: number;
  /** Time spent waiting on upstreams (ms); latency minus this is the gateway's own overhead. */
  readonly upstreamMs: number;
  /** One entry per upstream attempt, in order. */
  readonly attempts: readonly AttemptRecord[];
  /** Translation warnings by kind and path (e.g. {kind: 'dropped', path: 'top_k'}). */
  readonly warnings: readonly { readonly kind: string; readonly path: string }[];
}

export interface AttemptRecord {
  readonly lane: string;
  readonly provider: string;
  readonly outcome: Outcome | 'client_gone';
  /** Upstream HTTP status, when one was received. */
  readonly status?: number;
  readonly ms: number;
}

/** Anything that wants to know about finished requests. Must not throw and must not block. */
export interface RequestObserver {
  record(record: RequestRecord): void;
}
