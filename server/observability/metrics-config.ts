import { Counter, Gauge, type Registry } from 'prom-client';

/** How a configuration change ended (gateway_config_reloads_total's `result`). */
export type ReloadResult = 'applied' | 'refused' | 'unchanged';

/**
 * The configuration's metrics: which version serves (`gateway_config_info`, read at scrape time)
 * and how reloads, applies and rollbacks ended. Kept by the main thread only, where changes are
 * made (`aggregator: 'first'` when workers' registries are summed).
 */
export class ConfigMetrics {
  private readonly reloads: Counter<'result'>;

  constructor(registry: Registry, configVersion: () => string) {
    this.reloads = new Counter({
      name: 'gateway_config_reloads_total',
      help: 'Configuration reloads, applies and rollbacks by result: applied, refused (the running configuration kept serving), unchanged',
      labelNames: ['result'],
      registers: [registry],
      aggregator: 'first',
    });
    // Every result shows from the start, at 0, so a rate over it needs no first refusal.
    for (const result of ['applied', 'refused', 'unchanged'] as const) this.reloads.inc({ result }, 0);
    new Gauge({
      name: 'gateway_config_info',
      help: 'The configuration version serving new requests (always 1; the version is the label)',
      labelNames: ['config_version'],
      registers: [registry],
      aggregator: 'first',
      collect() {
        this.reset();
        this.set({ config_version: configVersion() }, 1);
      },
    });
  }

  counted(result: ReloadResult): void {
    this.reloads.inc({ result });
  }
}
