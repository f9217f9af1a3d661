import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { TracerProvider } from '@opentelemetry/sdk-trace';
import type { Registry } from 'prom-client';
import type { OtlpSettings } from '../config/runtime-config.ts';
import { SERVER_VERSION } from '../version.ts';
import type { LaneFacts } from './genai-attributes.ts';
import type { Logger } from '../shared/logger.ts';
import { registerSpanQueueMetrics } from './metrics-otlp.ts';
import { SpanQueue } from './otlp-span-queue.ts';
import { RequestSpans } from './otlp-spans.ts';
import { PromMetricProducer } from './prom-metric-producer.ts';
import type { RequestObserver } from './request-record.ts';

/** Failed exports are logged at most this often: a collector that is down should not flood the log. */
const FAILURE_LOG_INTERVAL_MS = 60_000;
/** At close, queued spans and a last metrics export get this long at most (or the export timeout, if shorter). */
const CLOSE_FLUSH_MS = 5_000;

export interface OtlpExport {
  /** Turns finished requests into spans; absent when traces are off. */
  readonly observer?: RequestObserver;
  /** Flushes what is queued (for a few seconds at most: a collector in trouble does not hold the close) and stops. */
  shutdown(): Promise<void>;
}

export interface OtlpExportOptions {
  readonly settings: OtlpSettings;
  readonly lanes: (name: string) => LaneFacts | undefined;
  /** The gateway's metrics: exported over OTLP, and where the span queue's own figures go. */
  readonly registry?: Registry;
  /** The metrics exported: the registry's with every worker's request metrics added (default: the registry's own). */
  readonly readMetrics?: () => ReturnType<Registry['getMetricsAsJSON']>;
  readonly log: Logger;
}

/**
 * OTLP over HTTP (protobuf) with the SDK's parts used directly rather than `@opentelemetry/sdk-node`:
 * no global providers, context manager or auto-instrumentation, one export per gateway (and per
 * worker), spans built from RequestRecords. Traces go to `<endpoint>/v1/traces`, metrics (the
 * prom-client registry, through a MetricProducer) to `<endpoint>/v1/metrics`.
 */
export function startOtlpExport(options: OtlpExportOptions): OtlpExport {
  const { settings, log } = options;
  const resource = resourceFromAttributes({ 'service.name': settings.serviceName, 'service.version': SERVER_VERSION });
  const exporterConfig = (signal: 'traces' | 'metrics') => ({
    url: `${settings.endpoint}/v1/${signal}`,
    headers: { ...settings.headers },
    timeoutMillis: settings.timeoutMs,
  });
  let lastFailureLog = Number.NEGATIVE_INFINITY;
  const onFailure = (signal: string) => (error: Error | undefined) => {
    const now = performance.now();
    if (now - lastFailureLog < FAILURE_LOG_INTERVAL_MS) return;
    lastFailureLog = now;
    log.warn(
      { signal, endpoint: settings.endpoint, error: error?.message?.slice(0, 200) },
      'OTLP export failed (further failures within a minute are only counted)',
    );
  };

  let tracerProvider: TracerProvider | undefined;
  let observer: RequestObserver | undefined;
  if (settings.traces) {
    const queue = new SpanQueue({
      exporter: new OTLPTraceExporter(exporterConfig('traces')),
      maxQueueSize: settings.maxQueueSize,
      exportTimeoutMillis: settings.timeoutMs,
      onExportFailure: onFailure('traces'),
    });
    tracerProvider = new TracerProvider({ resource, spanProcessors: [queue] });
    observer = new RequestSpans(tracerProvider.getTracer('gateway', SERVER_VERSION), options.lanes);
    if (options.registry !== undefined) registerSpanQueueMetrics(options.registry, () => queue.counts());
  }

  let meterProvider: MeterProvider | undefined;
  const registry = options.registry;
  if (settings.metrics && registry !== undefined) {
    meterProvider = new MeterProvider({
      resource,
      readers: [
        new PeriodicExportingMetricReader({
          exporter: new OTLPMetricExporter(exporterConfig('metrics')),
          exportIntervalMillis: settings.metricsIntervalMs,
          exportTimeoutMillis: Math.min(settings.timeoutMs, settings.metricsIntervalMs),
          metricProducers: [new PromMetricProducer(options.readMetrics ?? (() => registry.getMetricsAsJSON()))],
        }),
      ],
    });
  }

  return {
    ...(observer !== undefined && { observer }),
    async shutdown() {
      const stopping = Promise.allSettled([tracerProvider?.shutdown(), meterProvider?.shutdown()]);
      let timer: NodeJS.Timeout | undefined;
      const limit = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, Math.min(settings.timeoutMs, CLOSE_FLUSH_MS));
        timer.unref();
      });
      await Promise.race([stopping, limit]);
      clearTimeout(timer);
    },
  };
}
