import type { ProviderRuntime } from '../config/runtime-config.ts';
import { gatewayError, type ErrorKind, type GatewayError } from '../ir/index.ts';
import type { ErrorDisposition } from '../../generated/catalog-types.ts';

const KIND_FOR_DISPOSITION: Record<ErrorDisposition, ErrorKind> = {
  billing: 'billing',
  rate_limit: 'rate_limit',
  context_length: 'invalid_request',
  auth: 'authentication',
  not_found: 'not_found',
  overloaded: 'overloaded',
  content_filter: 'invalid_request',
  invalid_request: 'invalid_request',
  server: 'server',
};

/**
 * The catalog's error_map knows what a provider's codes mean (OpenAI's 429 `insufficient_quota`
 * is billing, not a rate limit). Codes are matched first, then the status as a string.
 */
export function disposition(provider: ProviderRuntime, error: GatewayError): ErrorDisposition | undefined {
  return (error.code ? provider.errorMap[error.code] : undefined) ?? provider.errorMap[String(error.status)];
}

export function classifyUpstreamError(provider: ProviderRuntime, error: GatewayError): GatewayError {
  const d = disposition(provider, error);
  return d === undefined ? error : { ...error, kind: KIND_FOR_DISPOSITION[d] };
}

/**
 * An upstream that refuses the operator's credential (401/403) is the gateway's configuration
 * fault, not the client's: the client gets a 502 that says so, never an answer implying its own
 * key is wrong, and never the upstream's message (some echo the key back).
 */
export function isUpstreamCredentialFailure(status: number): boolean {
  return status === 401 || status === 403 || status === 498; // 498: Cohere's invalid token
}

export function upstreamCredentialFailure(provider: ProviderRuntime, status: number): GatewayError {
  return gatewayError('server', `upstream ${provider.name} refused the gateway's credential (HTTP ${status}); the operator must fix providers.${provider.name}.api_key`, {
    status: 502,
    code: 'upstream_auth_failed',
  });
}

/** The operator's key, wherever an upstream echoes it in an error, becomes `[redacted]`. */
export function redactCredential(provider: ProviderRuntime, text: string): string {
  const key = provider.apiKey;
  return key !== undefined && key.length >= 8 && text.includes(key) ? text.split(key).join('[redacted]') : text;
}

/** An error an upstream reported inside a stream (an error event), with the operator's key masked. */
export function redactedStreamError(provider: ProviderRuntime, error: GatewayError): GatewayError {
  const message = redactCredential(provider, error.message);
  return message === error.message ? error : { ...error, message };
}

/** The operator's key as bytes, to look for in relayed stream bytes; undefined when there is none worth looking for. */
export function credentialBytes(provider: ProviderRuntime): Buffer | undefined {
  if (keyBytes.has(provider)) return keyBytes.get(provider);
  const key = provider.apiKey;
  const bytes = key !== undefined && key.length >= 8 ? Buffer.from(key) : undefined;
  keyBytes.set(provider, bytes); // once per provider, not per stream
  return bytes;
}

const keyBytes = new WeakMap<ProviderRuntime, Buffer | undefined>();

/**
 * Relayed stream bytes with an echoed operator key masked (an upstream error event may quote it).
 * The usual case, no key in the chunk, costs one search and returns the chunk itself.
 */
export function maskCredentialBytes(key: Buffer | undefined, bytes: Buffer): Buffer {
  if (key === undefined) return bytes;
  let at = bytes.indexOf(key);
  if (at === -1) return bytes;
  const parts: Buffer[] = [];
  let from = 0;
  while (at !== -1) {
    parts.push(bytes.subarray(from, at), REDACTED);
    from = at + key.length;
    at = bytes.indexOf(key, from);
  }
  parts.push(bytes.subarray(from));
  return Buffer.concat(parts);
}

const REDACTED = Buffer.from('[redacted]');
