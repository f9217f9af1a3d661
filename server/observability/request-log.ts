import { microcentsToUsdNumber } from '../shared/money.ts';
import type { Logger } from '../shared/logger.ts';
import { overheadMs, type RequestObserver, type RequestRecord } from './request-record.ts';

/**
 * The one log line per data-plane request, from its record: who (key id, never its secret), what
 * (model, lane, protocols), how it ended (status, error kind and code), how long (latency, first
 * byte, upstream time, gateway overhead), what it used (tokens, cost) and what a translation could
 * not carry. No request or answer text, no credentials: the record holds none.
 */
export class RequestLog implements RequestObserver {
  private readonly log: Logger;

  constructor(log: Logger) {
    // The line is built from record fields only, which hold no credentials (the secret-scan test
    // checks it), so it skips the redaction pass: wildcard redaction costs about 20 µs a line.
    this.log = log.child({}, { redact: [] });
  }

  record(record: RequestRecord): void {
    const { usage } = record;
    this.log.info(
      {
        requestId: record.requestId,
        configVersion: record.configVersion,
        ...(record.ledgerId !== undefined && { ledgerId: record.ledgerId }),
        ...(record.keyId !== undefined && { keyId: record.keyId }),
        ...(record.model !== undefined && { model: record.model }),
        ...(record.pool !== undefined && { pool: record.pool }),
        ...(record.lane !== undefined && { lane: record.lane, provider: record.provider, upstreamModel: record.upstreamModel }),
        ingress: record.ingress,
        ...(record.operation !== 'chat' && { operation: record.operation }),
        ...(record.egress !== undefined && { egress: record.egress }),
        stream: record.stream,
        status: record.status,
        ...(record.errorKind !== undefined && { errorKind: record.errorKind }),
        ...(record.errorCode !== undefined && { errorCode: record.errorCode }),
        ...(record.clientGone && { clientGone: true }),
        latencyMs: ms(record.latencyMs),
        ...(record.ttfbMs !== undefined && { ttfbMs: ms(record.ttfbMs) }),
        upstreamMs: ms(record.upstreamMs),
        overheadMs: ms(overheadMs(record)),
        attempts: record.attempts.map(
          (a) => `${a.lane}:${a.outcome}${a.status === undefined ? '' : `:${a.status}`}${a.detail === undefined ? '' : ` (${a.detail})`}`,
        ),
        ...(usage !== null && {
          tokens: {
            input: usage.inputTokens,
            output: usage.outputTokens,
            cacheRead: usage.cacheReadTokens,
            cacheWrite: usage.cacheWriteTokens,
            reasoning: usage.reasoningTokens,
          },
        }),
        ...(record.finishReason !== undefined && { finishReason: record.finishReason }),
        ...(record.costMicrocents !== undefined && { costUsd: microcentsToUsdNumber(record.costMicrocents) }),
        ...(record.warnings.length > 0 && { warnings: record.warnings.map((w) => `${w.kind}=${w.path}`) }),
      },
      'request',
    );
  }
}

/** Milliseconds to a microsecond: enough for a log line. */
function ms(value: number): number {
  return Math.round(value * 1000) / 1000;
}
