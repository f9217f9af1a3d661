import type { ProviderRuntime } from '../config/runtime-config.ts';

/** The credential in the provider's own auth style. The client's key never goes upstream. */
export function authHeaders(provider: ProviderRuntime): Record<string, string> {
  const key = provider.apiKey;
  if (key === undefined) return {};
  switch (provider.auth) {
    case 'bearer':
      return { authorization: `Bearer ${key}` };
    case 'x-api-key':
      return { 'x-api-key': key };
    case 'api-key':
      return { 'api-key': key };
    case 'x-goog-api-key':
      return { 'x-goog-api-key': key };
    case 'none':
      return {};
    case 'sigv4':
      // A Bedrock API key is a Bearer token; without one the request is signed (send-upstream.ts).
      return { authorization: `Bearer ${key}` };
  }
}
