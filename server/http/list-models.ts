import type { IncomingHttpHeaders } from 'node:http';
import type { RuntimeConfig } from '../config/runtime-config.ts';

/**
 * `GET /v1/models`: the names clients may send (models and pools). OpenAI's list shape, or
 * Anthropic's when the request carries `anthropic-version` (the Anthropic SDK's models.list()).
 */
export function listModels(config: RuntimeConfig, headers: IncomingHttpHeaders): Record<string, unknown> {
  const created = Math.floor(config.loadedAt.getTime() / 1000);
  const names = [
    ...[...config.models.values()].map((m) => ({ id: m.name, owner: m.provider.name })),
    ...[...config.pools.keys()].map((name) => ({ id: name, owner: 'pool' })),
  ];
  if (headers['anthropic-version'] !== undefined) {
    return {
      data: names.map((n) => ({ type: 'model', id: n.id, display_name: n.id, created_at: config.loadedAt.toISOString() })),
      has_more: false,
      first_id: names[0]?.id ?? null,
      last_id: names[names.length - 1]?.id ?? null,
    };
  }
  return { object: 'list', data: names.map((n) => ({ id: n.id, object: 'model', created, owned_by: n.owner })) };
}
