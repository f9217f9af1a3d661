import { Counter, Gauge, type Registry } from 'prom-client';
import type { SpanQueueCounts } from './otlp-span-queue.ts';

/** How span export is going, read from the span queue at scrape time (per worker, summed). */
export function registerSpanQueueMetrics(registry: Registry, counts: () => SpanQueueCounts): void {
  const registers = [registry];
  new Counter({
    name: 'gateway_otlp_spans_dropped_total',
    help: 'Spans dropped because the OTLP export queue was full (collector slow or down); requests are never held for them',
    registers,
    collect() {
      this.reset();
      this.inc(counts().dropped);
    },
  });
  new Counter({
    name: 'gateway_otlp_spans_exported_total',
    help: 'Spans the OTLP collector accepted',
    registers,
    collect() {
      this.reset();
      this.inc(counts().exported);
    },
  });
  new Counter({
    name: 'gateway_otlp_spans_failed_total',
    help: "Spans in OTLP exports that failed (after the exporter's retries)",
    registers,
    collect() {
      this.reset();
      this.inc(counts().failed);
    },
  });
  new Gauge({
    name: 'gateway_otlp_span_queue_length',
    help: 'Spans waiting for export',
    registers,
    collect() {
      this.set(counts().queued);
    },
  });
}
