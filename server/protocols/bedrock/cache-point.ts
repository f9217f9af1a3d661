import type { TranslationWarning } from '../codec.ts';
import { dropped } from '../shared/warnings.ts';
import type { CachePointBlock as BedrockCachePoint } from '../../../generated/protocols/bedrock/request.ts';

/** The cache lifetimes Bedrock accepts; Anthropic's cache_control takes the same two. */
const TTLS = new Set(['5m', '1h']);

/**
 * Bedrock marks a cache boundary with a cachePoint block placed after the content; the IR keeps
 * Anthropic's form, a cache_control hint on the block before the boundary.
 */
export function cacheControlFromPoint(point: BedrockCachePoint): Record<string, unknown> {
  return { type: 'ephemeral', ...(point.ttl !== undefined && { ttl: point.ttl }) };
}

export function cachePointFromControl(control: unknown, path: string, warnings: TranslationWarning[]): { cachePoint: BedrockCachePoint } {
  const ttl = (control as { ttl?: unknown } | null)?.ttl;
  if (ttl !== undefined && !(typeof ttl === 'string' && TTLS.has(ttl))) warnings.push(dropped(`${path}.ttl`, `cache lifetime ${JSON.stringify(ttl)}`));
  return { cachePoint: { type: 'default', ...(typeof ttl === 'string' && TTLS.has(ttl) && { ttl }) } };
}
