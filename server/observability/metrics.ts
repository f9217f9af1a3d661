import { AggregatorRegistry, collectDefaultMetrics, Registry } from 'prom-client';
import { ConfigMetrics } from './metrics-config.ts';
import { RequestMetrics } from './metrics-requests.ts';
import { registerStateMetrics, type StateSources } from './metrics-state.ts';

/** A registry's metrics as plain data (prom-client's JSON form): what a worker posts when asked. */
export type MetricsJson = Awaited<ReturnType<Registry['getMetricsAsJSON']>>;

/**
 * A gateway's Prometheus metrics: its own registry (never prom-client's global one, so several
 * gateways, or workers, keep theirs apart), fed by the request observer and read from the
 * routing and translation state at scrape time, plus the process and event-loop figures.
 */
export class GatewayMetrics {
  readonly registry = new Registry();
  /** Hand to the gateway's observers: every finished request updates the metrics. */
  readonly observer: RequestMetrics;
  /** Which configuration serves, and how its changes ended. */
  readonly config: ConfigMetrics;

  /** `configVersion`: the version serving new requests, read at scrape time. */
  constructor(sources: StateSources & { readonly configVersion: () => string }) {
    collectDefaultMetrics({ register: this.registry });
    // Gauges whose names end in _total, which promtool (rightly) flags; the handle counts they
    // give are of little use for a gateway anyway.
    for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) this.registry.removeSingleMetric(name);
    this.observer = new RequestMetrics(this.registry);
    registerStateMetrics(this.registry, sources);
    this.config = new ConfigMetrics(this.registry, sources.configVersion);
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /**
   * The Prometheus text exposition, as GET /metrics serves it. `workers`: the other data-plane
   * threads' request metrics (each counts its own requests), added to this registry's series by
   * each metric's aggregator (counters and histograms summed).
   */
  async render(workers: readonly MetricsJson[] = []): Promise<string> {
    return (await this.withWorkers(workers)).metrics();
  }

  /** The same as plain data (for OTLP, or tests): this registry's series with the workers' added. */
  async getMetricsAsJSON(workers: readonly MetricsJson[] = []): Promise<MetricsJson> {
    return (await this.withWorkers(workers)).getMetricsAsJSON();
  }

  /** This registry, or (with workers' metrics) an aggregate of it and theirs. */
  private async withWorkers(workers: readonly MetricsJson[]): Promise<Registry> {
    if (workers.length === 0) return this.registry;
    return AggregatorRegistry.aggregate([await this.registry.getMetricsAsJSON(), ...workers]);
  }
}

/**
 * A data-plane worker's own request metrics: a registry holding only the series that come from
 * finished requests (the process, event-loop and routing figures are the main thread's), read as
 * JSON when the main thread renders a scrape.
 */
export class WorkerRequestMetrics {
  private readonly registry = new Registry();
  readonly observer = new RequestMetrics(this.registry);

  json(): Promise<MetricsJson> {
    return this.registry.getMetricsAsJSON();
  }
}
