import type { ProviderRuntime } from '../config/runtime-config.ts';
import { gatewayError, type ErrorKind, type GatewayError } from '../ir/index.ts';
import type { ErrorDisposition } from '../../generated/catalog-types.ts';
import { credentialMaskFor } from './credential-mask.ts';

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
  return gatewayError(
    'server',
    `upstream ${provider.name} refused the gateway's credential (HTTP ${status}); the operator must fix providers.${provider.name}.api_key`,
    {
      status: 502,
      code: 'upstream_auth_failed',
    },
  );
}

/**
 * The operator's credentials, wherever an upstream echoes them in an error, become the marker: for
 * the error's own message (logs, records). What reaches the client is masked again on its way out
 * (`ClientResponse`).
 */
export function redactCredential(provider: ProviderRuntime, text: string): string {
  return credentialMaskFor(provider).maskText(text);
}

/** An error an upstream reported inside a stream (an error event), with the operator's credentials masked. */
export function redactedStreamError(provider: ProviderRuntime, error: GatewayError): GatewayError {
  const message = redactCredential(provider, error.message);
  return message === error.message ? error : { ...error, message };
}
