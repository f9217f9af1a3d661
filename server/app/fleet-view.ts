import type { GateCounters } from '../hooks/hook-counters.ts';
import type { HookStatus } from '../hooks/hooks.ts';
import type { MetricsJson } from '../observability/metrics.ts';
import { requestStatsSum, type RequestFigures, type RequestStats } from '../observability/request-stats.ts';
import type { TranslationSnapshot } from '../observability/translation-stats.ts';
import type { WorkerTelemetry } from './worker-protocol.ts';

/**
 * The other workers' own state as last reported, added to the main thread's: translations and
 * request metrics for a scrape, finished requests and in-flight ones for /stats, gate counters for
 * the hooks list. Refreshed (one round trip to every worker) before each read that needs it.
 */
export class FleetView {
  private latest: readonly WorkerTelemetry[] = [];
  private readonly ask: (metrics: boolean) => Promise<WorkerTelemetry[]>;

  /** `ask(metrics)`: every worker's telemetry, with its request metrics when `metrics`. */
  constructor(ask: (metrics: boolean) => Promise<WorkerTelemetry[]>) {
    this.ask = ask;
  }

  /** `metrics`: also bring the workers' request metrics (a scrape or an OTLP export reads them). */
  async refresh(metrics = false): Promise<void> {
    this.latest = await this.ask(metrics);
  }

  /** Every thread's finished requests: the main thread's own (`own`) and the workers' as last reported. */
  requests(own: RequestStats): RequestFigures {
    return requestStatsSum(() => [own.report(), ...this.latest.map((t) => t.requestStats)]);
  }

  /** The workers' request metrics as last reported (a refresh with `metrics`). */
  metrics(): MetricsJson[] {
    return this.latest.flatMap((t) => (t.metrics === undefined ? [] : [t.metrics]));
  }

  inFlight(own: number): number {
    return this.latest.reduce((n, t) => n + t.inFlight, own);
  }

  translations(own: TranslationSnapshot): TranslationSnapshot {
    const hops: Record<string, number> = { ...own.hops };
    const warnings: Record<string, number> = { ...own.warnings };
    for (const t of this.latest) {
      for (const [k, v] of Object.entries(t.translations.hops)) hops[k] = (hops[k] ?? 0) + v;
      for (const [k, v] of Object.entries(t.translations.warnings)) warnings[k] = (warnings[k] ?? 0) + v;
    }
    return { hops, warnings };
  }

  hooks(own: HookStatus[]): HookStatus[] {
    return own.map((hook) => {
      if (hook.gate === undefined) return hook;
      const sum: GateCounters = { ...hook.gate };
      for (const t of this.latest) {
        const theirs = t.gates[hook.name];
        if (theirs === undefined) continue;
        sum.calls += theirs.calls;
        sum.allowed += theirs.allowed;
        sum.denied += theirs.denied;
        sum.errors += theirs.errors;
      }
      return { ...hook, gate: sum };
    });
  }
}
