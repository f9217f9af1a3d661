import type { GatewayConfig } from '../../generated/config-types.ts';

/** `media_fetch:` in config.yaml, resolved: how the gateway fetches image URLs for lanes that take bytes only. */
export interface MediaFetchSettings {
  /** Off: an image URL to such a lane is refused with 400, as before. */
  readonly enabled: boolean;
  readonly maxBytes: number;
  /** For the whole fetch, redirects included. */
  readonly timeoutMs: number;
  readonly maxRedirects: number;
  /** Plain http:// URLs (https:// always). */
  readonly allowHttp: boolean;
  /** Loopback, private, link-local and metadata addresses: for tests and trusted networks only. */
  readonly allowPrivate: boolean;
}

export const DEFAULT_MEDIA_FETCH: MediaFetchSettings = {
  enabled: true,
  maxBytes: 10 * 1024 * 1024,
  timeoutMs: 10_000,
  maxRedirects: 3,
  allowHttp: true,
  allowPrivate: false,
};

export function mediaFetchSettings(config: GatewayConfig['media_fetch']): MediaFetchSettings {
  if (config === undefined) return DEFAULT_MEDIA_FETCH;
  return {
    enabled: config.enabled ?? DEFAULT_MEDIA_FETCH.enabled,
    maxBytes: config.max_bytes ?? DEFAULT_MEDIA_FETCH.maxBytes,
    timeoutMs: config.timeout_ms ?? DEFAULT_MEDIA_FETCH.timeoutMs,
    maxRedirects: config.max_redirects ?? DEFAULT_MEDIA_FETCH.maxRedirects,
    allowHttp: config.allow_http ?? DEFAULT_MEDIA_FETCH.allowHttp,
    allowPrivate: config.allow_private ?? DEFAULT_MEDIA_FETCH.allowPrivate,
  };
}
