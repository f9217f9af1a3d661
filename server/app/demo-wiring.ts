import type { ModelRoute, PoolRoute, ProviderRuntime, RuntimeConfig } from '../config/runtime-config.ts';

/** Catalog entries whose base_url is this placeholder are served by the built-in demo upstream. */
const DEMO_ORIGIN = 'http://127.0.0.1:0';

export function usesDemoUpstream(config: RuntimeConfig): boolean {
  return [...config.providers.values()].some((p) => p.baseUrl.startsWith(DEMO_ORIGIN));
}

/** The same configuration with the demo providers pointed at the running demo server. */
export function withDemoUpstream(config: RuntimeConfig, demoOrigin: string): RuntimeConfig {
  const providers = new Map<string, ProviderRuntime>();
  for (const [name, p] of config.providers) {
    providers.set(name, p.baseUrl.startsWith(DEMO_ORIGIN) ? { ...p, baseUrl: demoOrigin + p.baseUrl.slice(DEMO_ORIGIN.length) } : p);
  }
  const models = new Map<string, ModelRoute>();
  for (const [name, m] of config.models) models.set(name, { ...m, provider: providers.get(m.provider.name) ?? m.provider });
  const pools = new Map<string, PoolRoute>();
  for (const [name, pool] of config.pools) {
    pools.set(name, { ...pool, members: pool.members.map((member) => ({ ...member, model: models.get(member.model.name) ?? member.model })) });
  }
  return { ...config, providers, models, pools };
}
