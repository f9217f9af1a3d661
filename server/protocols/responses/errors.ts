import { gatewayError, type ErrorKind, type GatewayError } from '../../ir/index.ts';

// HTTP errors of the Responses API use the Chat Completions envelope ({error:{message,type,param,code}}).
export { decodeError, encodeError, errorBody } from '../openai/errors.ts';

/** The code an in-stream error (`error` event, response.failed) carries when the IR error has none. */
const CODE_FOR_KIND: Record<ErrorKind, string> = {
  invalid_request: 'invalid_request_error',
  authentication: 'invalid_api_key',
  permission: 'permission_error',
  not_found: 'not_found_error',
  request_too_large: 'invalid_request_error',
  rate_limit: 'rate_limit_exceeded',
  billing: 'insufficient_quota',
  server: 'server_error',
  overloaded: 'overloaded_error',
  timeout: 'timeout_error',
  unavailable: 'service_unavailable_error',
};

export function streamErrorCode(error: GatewayError): string {
  return error.code ?? CODE_FOR_KIND[error.kind];
}

/**
 * In-stream errors have no HTTP status; their code says what kind they are. Responses codes name
 * the problem (`invalid_image`, `vector_store_timeout`) rather than a category, so they are read
 * by what they contain; codes relayed from other protocols (`overloaded_error`) read the same way.
 */
export function streamErrorKind(code: string | null | undefined, type?: string | null): ErrorKind {
  const said = `${code ?? ''} ${type ?? ''}`;
  if (said.includes('insufficient_quota')) return 'billing';
  if (said.includes('rate_limit')) return 'rate_limit';
  if (said.includes('overloaded')) return 'overloaded';
  if (said.includes('timeout')) return 'timeout';
  if (said.includes('unavailable')) return 'unavailable';
  if (said.includes('invalid_api_key') || said.includes('authentication')) return 'authentication';
  if (said.includes('permission')) return 'permission';
  if (said.includes('not_found')) return 'not_found';
  if (/invalid|image|policy|empty_|unsupported|data_residency/.test(said)) return 'invalid_request';
  return 'server';
}

/** An in-stream error (flat `error` event, nested `error`, or response.failed's `response.error`) to the IR error. */
export function decodeStreamError(error: { code?: string | null; message?: string; type?: string | null } | null | undefined, fallback: string): GatewayError {
  const code = error?.code ?? error?.type ?? null;
  return gatewayError(streamErrorKind(error?.code, error?.type), error?.message ?? fallback, { code });
}
