import { collectDefaultMetrics, Registry } from 'prom-client';
import { ConfigMetrics } from './metrics-config.ts';
import { RequestMetrics } from './metrics-requests.ts';
import { registerStateMetrics, type StateSources } from './metrics-state.ts';

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

  /** The Prometheus text exposition, as GET /metrics serves it. */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  /**
   * Plain data a main thread can sum over several workers' registries
   * (`AggregatorRegistry.aggregate([...])`, each metric by its own aggregator).
   */
  getMetricsAsJSON(): ReturnType<Registry['getMetricsAsJSON']> {
    return this.registry.getMetricsAsJSON();
  }
}
