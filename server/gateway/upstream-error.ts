import type { ProviderRuntime } from '../config/runtime-config.ts';
import type { ErrorKind, GatewayError } from '../ir/index.ts';
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
