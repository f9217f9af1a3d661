import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Tracer } from '@opentelemetry/api';
import { parseTraceParent } from '@opentelemetry/core';
import { attemptAttributes, requestAttributes, type LaneFacts } from './genai-attributes.ts';
import type { RequestContent } from './request-content.ts';
import type { RequestObserver, RequestRecord } from './request-record.ts';

/**
 * Turns each finished request's record into spans: one SERVER span for the request and a CLIENT
 * child per upstream attempt, with the record's own timestamps. Nothing happens on the request
 * path itself (no spans are open while it runs), so with OTLP off there is no tracing work at all.
 * A client's W3C `traceparent` makes the request span a child of the caller's.
 */
export class RequestSpans implements RequestObserver {
  private readonly tracer: Tracer;
  private readonly lanes: (name: string) => LaneFacts | undefined;

  constructor(tracer: Tracer, lanes: (name: string) => LaneFacts | undefined) {
    this.tracer = tracer;
    this.lanes = lanes;
  }

  /** `content` comes only when the operator turned capture on (`otlp.capture_content`). */
  record(record: RequestRecord, content?: RequestContent): void {
    const parent = parentContext(record.traceparent);
    const start = record.startedAt;
    const span = this.tracer.startSpan(
      `${record.operation} ${record.model ?? 'unknown'}`,
      { kind: SpanKind.SERVER, startTime: start, attributes: requestAttributes(record) },
      parent,
    );
    if (content !== undefined) {
      span.setAttribute('gen_ai.input.messages', JSON.stringify(content.input));
      if (content.output.length > 0) span.setAttribute('gen_ai.output.messages', JSON.stringify(content.output));
    }
    if (record.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR, message: record.errorKind ?? `status ${record.status}` });
    const withRequest = trace.setSpan(parent, span);
    record.attempts.forEach((attempt, index) => {
      if (attempt.outcome === 'skipped') return; // no upstream call, so no client span
      const lane = this.lanes(attempt.lane);
      const child = this.tracer.startSpan(
        `${record.operation} ${lane?.upstreamModel ?? attempt.lane}`,
        { kind: SpanKind.CLIENT, startTime: start + attempt.startMs, attributes: attemptAttributes(attempt, lane, index, record.operation) },
        withRequest,
      );
      if (attempt.outcome !== 'success') child.setStatus({ code: SpanStatusCode.ERROR, message: attempt.outcome });
      child.end(start + attempt.startMs + attempt.ms);
    });
    span.end(start + record.latencyMs);
  }
}

function parentContext(traceparent: string | undefined): Context {
  if (traceparent === undefined) return ROOT_CONTEXT;
  const remote = parseTraceParent(traceparent);
  return remote === null ? ROOT_CONTEXT : trace.setSpanContext(ROOT_CONTEXT, remote);
}
