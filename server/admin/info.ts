import type { components } from '../../generated/admin-api.ts';
import type { RuntimeConfig } from '../config/runtime-config.ts';
import { supportedProtocols } from '../protocols/registry.ts';
import { SERVER_VERSION } from '../version.ts';

type InfoView = components['schemas']['InfoView'];

/** GET /api/v1/admin/info: what is running and how it is wired. */
export function infoView(config: RuntimeConfig, startedAt: number, now = Date.now()): InfoView {
  return {
    version: SERVER_VERSION,
    topology: {
      models: [...config.models.values()].map((m) => ({
        name: m.name,
        provider: m.provider.name,
        protocol: m.provider.protocol,
        upstream_model: m.upstreamModel,
      })),
      pools: [...config.pools.values()].map((p) => ({
        name: p.name,
        members: p.members.map((member) => ({
          model: member.model.name,
          weight: member.weight,
          provider: member.model.provider.name,
          protocol: member.model.provider.protocol,
        })),
      })),
    },
    uptime_seconds: Math.max(0, (now - startedAt) / 1000),
    build: {
      node: process.versions.node,
      modules: [...supportedProtocols().map((p) => `protocol:${p}`), 'admin', 'demo-upstream'],
    },
    config_version: config.configVersion,
  };
}
