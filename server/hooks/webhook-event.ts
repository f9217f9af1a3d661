import { microcentsToUsd } from '../shared/money.ts';
import type { ProtocolId } from '../ir/index.ts';
import { failoverCount, requestFailed, type RequestRecord } from '../observability/request-record.ts';
import type { WebhookEventType } from './hook-settings.ts';

/** Bumped when a field is removed or changes meaning; new fields may appear within a version. */
export const WEBHOOK_EVENT_VERSION = 1;

/**
 * The JSON a webhook receives (README, "Webhook events"). Built from a RequestRecord, so it holds
 * what the record holds: metadata, never prompt or completion text, keys or credentials.
 */
export interface WebhookEvent {
  readonly version: typeof WEBHOOK_EVENT_VERSION;
  /** Unique per event and the same on every retry of it, so a receiver can drop duplicates. */
  readonly id: string;
  readonly type: WebhookEventType;
  readonly created_at: string;
  readonly request: {
    /** The request's id (x-request-id), as in the gateway's log lines. */
    readonly id: string;
    readonly started_at: string;
    /** The configuration version that served it (the one in effect when it started). */
    readonly config_version: string;
    readonly key_id: string | null;
    readonly model: string | null;
    readonly pool: string | null;
    readonly lane: string | null;
    readonly provider: string | null;
    readonly upstream_model: string | null;
    readonly protocols: { readonly ingress: ProtocolId; readonly egress: ProtocolId | null };
    /** chat, embeddings, ... */
    readonly operation: string;
    readonly stream: boolean;
    readonly status: number;
    /** The client left before the answer ended (status 499 when it left before any). */
    readonly client_gone: boolean;
    readonly finish_reason: string | null;
    readonly error: { readonly kind: string; readonly code: string | null } | null;
    readonly usage: {
      readonly input_tokens: number;
      readonly output_tokens: number;
      readonly cache_read_tokens: number;
      readonly cache_write_tokens: number;
      readonly reasoning_tokens: number;
    } | null;
    /** Exact, as a decimal string (eight places); null when the lane has no price. */
    readonly cost_usd: string | null;
    readonly latency_ms: number;
    readonly ttfb_ms: number | null;
    readonly upstream_ms: number;
    /** Lanes tried after the first. */
    readonly failovers: number;
    readonly attempts: readonly {
      readonly lane: string;
      readonly provider: string;
      readonly outcome: string;
      readonly status: number | null;
      readonly ms: number;
      readonly detail?: string;
    }[];
    readonly warnings: readonly { readonly kind: string; readonly path: string }[];
  };
}

/** request.failed when the client got an error status, an error ended its stream, or it left; else request.completed. */
export function webhookEventType(record: RequestRecord): WebhookEventType {
  return requestFailed(record) ? 'request.failed' : 'request.completed';
}

/** A pure function: the same record, id and time always give the same event. */
export function webhookEvent(record: RequestRecord, stamp: { readonly id: string; readonly now: Date }): WebhookEvent {
  const usage = record.usage;
  return {
    version: WEBHOOK_EVENT_VERSION,
    id: stamp.id,
    type: webhookEventType(record),
    created_at: stamp.now.toISOString(),
    request: {
      id: record.requestId,
      started_at: new Date(record.startedAt).toISOString(),
      config_version: record.configVersion,
      key_id: record.keyId ?? null,
      model: record.model ?? null,
      pool: record.pool ?? null,
      lane: record.lane ?? null,
      provider: record.provider ?? null,
      upstream_model: record.upstreamModel ?? null,
      protocols: { ingress: record.ingress, egress: record.egress ?? null },
      operation: record.operation,
      stream: record.stream,
      status: record.status,
      client_gone: record.clientGone,
      finish_reason: record.finishReason ?? null,
      error: record.errorKind === undefined ? null : { kind: record.errorKind, code: record.errorCode ?? null },
      usage:
        usage === null
          ? null
          : {
              input_tokens: usage.inputTokens,
              output_tokens: usage.outputTokens,
              cache_read_tokens: usage.cacheReadTokens,
              cache_write_tokens: usage.cacheWriteTokens,
              reasoning_tokens: usage.reasoningTokens,
            },
      cost_usd: record.costMicrocents === undefined ? null : microcentsToUsd(record.costMicrocents),
      latency_ms: ms(record.latencyMs),
      ttfb_ms: record.ttfbMs === undefined ? null : ms(record.ttfbMs),
      upstream_ms: ms(record.upstreamMs),
      failovers: failoverCount(record),
      attempts: record.attempts.map((a) => ({
        lane: a.lane,
        provider: a.provider,
        outcome: a.outcome,
        status: a.status ?? null,
        ms: ms(a.ms),
        ...(a.detail !== undefined && { detail: a.detail }),
      })),
      warnings: record.warnings.map((w) => ({ kind: w.kind, path: w.path })),
    },
  };
}

/** Tenths of a millisecond are plenty. */
function ms(value: number): number {
  return Math.round(value * 10) / 10;
}
