import { ValueType, type Attributes, type HrTime } from '@opentelemetry/api';
import { millisToHrTime } from '@opentelemetry/core';
import { emptyResource } from '@opentelemetry/resources';
import { AggregationTemporality, DataPointType, type CollectionResult, type MetricData, type MetricProducer } from '@opentelemetry/sdk-metrics';
import type { Registry } from 'prom-client';
import { SERVER_VERSION } from '../version.ts';

type PromMetric = Awaited<ReturnType<Registry['getMetricsAsJSON']>>[number];
type PromValue = PromMetric['values'][number] & { metricName?: string };

/**
 * Hands the gateway's prom-client registry to an OpenTelemetry metric reader, so the metrics
 * exported over OTLP are exactly the ones GET /metrics serves (one set of instruments, two
 * exits). Counters become cumulative monotonic sums (without Prometheus's `_total` suffix, which
 * a Prometheus-bound collector adds back), gauges gauges, histograms explicit-bucket histograms.
 */
export class PromMetricProducer implements MetricProducer {
  private readonly read: () => Promise<PromMetric[]>;
  private readonly startTime: HrTime = millisToHrTime(Date.now());

  /** `read`: the registry's metrics as JSON (every worker's request metrics added). */
  constructor(read: () => Promise<PromMetric[]>) {
    this.read = read;
  }

  async collect(): Promise<CollectionResult> {
    const endTime = millisToHrTime(Date.now());
    const metrics: MetricData[] = [];
    for (const metric of await this.read()) {
      const converted = this.convert(metric, endTime);
      if (converted !== undefined) metrics.push(converted);
    }
    return {
      // The reader keeps its MeterProvider's resource; this one is not used.
      resourceMetrics: { resource: emptyResource(), scopeMetrics: [{ scope: { name: 'gateway', version: SERVER_VERSION }, metrics }] },
      errors: [],
    };
  }

  private convert(metric: PromMetric, endTime: HrTime): MetricData | undefined {
    const point = (attributes: Attributes, value: number) => ({ startTime: this.startTime, endTime, attributes, value });
    const values = metric.values as PromValue[];
    const unit = metric.name.endsWith('_seconds') || metric.name.includes('_seconds_') ? 's' : metric.name.includes('_bytes') ? 'By' : '';
    switch (String(metric.type)) {
      case 'counter':
        return {
          descriptor: { name: metric.name.replace(/_total$/, ''), description: metric.help, unit, valueType: ValueType.DOUBLE },
          aggregationTemporality: AggregationTemporality.CUMULATIVE,
          dataPointType: DataPointType.SUM,
          isMonotonic: true,
          dataPoints: values.map((v) => point(v.labels as Attributes, v.value)),
        };
      case 'gauge':
        return {
          descriptor: { name: metric.name, description: metric.help, unit, valueType: ValueType.DOUBLE },
          aggregationTemporality: AggregationTemporality.CUMULATIVE,
          dataPointType: DataPointType.GAUGE,
          dataPoints: values.map((v) => point(v.labels as Attributes, v.value)),
        };
      case 'histogram':
        return {
          descriptor: { name: metric.name, description: metric.help, unit, valueType: ValueType.DOUBLE },
          aggregationTemporality: AggregationTemporality.CUMULATIVE,
          dataPointType: DataPointType.HISTOGRAM,
          dataPoints: histogramPoints(values).map(({ attributes, value }) => ({ startTime: this.startTime, endTime, attributes, value })),
        };
      default:
        return undefined; // summaries: the gateway registers none
    }
  }
}

/**
 * prom-client lists a histogram as `_bucket` samples (cumulative, `le` label), `_sum` and
 * `_count`, per label set; OTLP wants per-bucket counts and the finite boundaries.
 */
function histogramPoints(values: readonly PromValue[]) {
  const series = new Map<string, { attributes: Attributes; bounds: [number, number][]; sum: number; count: number }>();
  for (const v of values) {
    const { le, ...labels } = v.labels as Record<string, string | number>;
    const key = JSON.stringify(labels);
    let entry = series.get(key);
    if (entry === undefined) {
      entry = { attributes: labels, bounds: [], sum: 0, count: 0 };
      series.set(key, entry);
    }
    const name = v.metricName ?? '';
    if (name.endsWith('_bucket')) entry.bounds.push([le === '+Inf' ? Number.POSITIVE_INFINITY : Number(le), v.value]);
    else if (name.endsWith('_sum')) entry.sum = v.value;
    else if (name.endsWith('_count')) entry.count = v.value;
  }
  return [...series.values()].map(({ attributes, bounds, sum, count }) => {
    bounds.sort((a, b) => a[0] - b[0]);
    const counts = bounds.map(([, cumulative], i) => cumulative - (i === 0 ? 0 : bounds[i - 1]![1]));
    return { attributes, value: { buckets: { boundaries: bounds.filter(([le]) => Number.isFinite(le)).map(([le]) => le), counts }, sum, count } };
  });
}
