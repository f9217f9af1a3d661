import type { Context } from '@opentelemetry/api';
import { TraceFlags } from '@opentelemetry/api';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { BatchSpanProcessor, type ReadableSpan, type Span, type SpanExporter, type SpanProcessor } from '@opentelemetry/sdk-trace';

/** Plain counters, summable across workers. */
export interface SpanQueueCounts {
  /** Spans waiting for export now. */
  readonly queued: number;
  /** Spans refused because the queue was full (the collector slow, hanging or down). */
  readonly dropped: number;
  readonly exported: number;
  /** Spans in exports that failed (after the exporter's own retries). */
  readonly failed: number;
}

export interface SpanQueueOptions {
  readonly exporter: SpanExporter;
  readonly maxQueueSize: number;
  readonly exportTimeoutMillis: number;
  readonly scheduledDelayMillis?: number;
  /** Told once per failed export, with no span content. */
  readonly onExportFailure?: (error: Error | undefined, spans: number) => void;
}

/**
 * The SDK's BatchSpanProcessor behind a bounded queue that counts. Ending a span only appends it
 * to the queue (never waits on the network); when the collector is slow or down the queue fills,
 * and further spans are dropped and counted, so requests are never slowed or failed by tracing.
 * The queue length is mirrored here because the processor does not expose its own: a span joins
 * at `onEnd` and leaves when the processor hands its batch to the exporter.
 */
export class SpanQueue implements SpanProcessor {
  private readonly batch: BatchSpanProcessor;
  private readonly maxQueueSize: number;
  private queued = 0;
  private dropped = 0;
  private exported = 0;
  private failed = 0;

  constructor(options: SpanQueueOptions) {
    this.maxQueueSize = options.maxQueueSize;
    const { exporter } = options;
    const counting: SpanExporter = {
      export: (spans: ReadableSpan[], done: (result: ExportResult) => void) => {
        this.queued -= spans.length;
        exporter.export(spans, (result) => {
          if (result.code === ExportResultCode.SUCCESS) this.exported += spans.length;
          else {
            this.failed += spans.length;
            options.onExportFailure?.(result.error, spans.length);
          }
          done(result);
        });
      },
      shutdown: () => exporter.shutdown(),
      forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve(),
    };
    this.batch = new BatchSpanProcessor({
      exporter: counting,
      maxQueueSize: options.maxQueueSize,
      maxExportBatchSize: Math.min(512, options.maxQueueSize),
      exportTimeoutMillis: options.exportTimeoutMillis,
      ...(options.scheduledDelayMillis !== undefined && { scheduledDelayMillis: options.scheduledDelayMillis }),
    });
  }

  onStart(_span: Span, _parentContext: Context): void {}

  onEnd(span: ReadableSpan): void {
    if ((span.spanContext().traceFlags & TraceFlags.SAMPLED) === 0) return; // the processor skips these too
    if (this.queued >= this.maxQueueSize) {
      this.dropped++;
      return;
    }
    this.queued++;
    this.batch.onEnd(span);
  }

  counts(): SpanQueueCounts {
    return { queued: this.queued, dropped: this.dropped, exported: this.exported, failed: this.failed };
  }

  forceFlush(): Promise<void> {
    return this.batch.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.batch.shutdown();
  }
}
