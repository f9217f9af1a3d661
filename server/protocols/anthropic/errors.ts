import { gatewayError, kindForStatus, type ErrorKind, type GatewayError } from '../../ir/index.ts';
import type { ErrorEnvelope, UpstreamErrorResponse } from '../codec.ts';
import { errorEnvelope } from '../shared/error-envelope.ts';
import { upstreamText } from '../shared/upstream-text.ts';
import type { AnthropicErrorBody } from '../../../generated/protocols/anthropic/error.ts';

const TYPE_FOR_KIND: Record<ErrorKind, string> = {
  invalid_request: 'invalid_request_error',
  authentication: 'authentication_error',
  billing: 'billing_error',
  permission: 'permission_error',
  not_found: 'not_found_error',
  request_too_large: 'request_too_large',
  rate_limit: 'rate_limit_error',
  server: 'api_error',
  unavailable: 'api_error',
  timeout: 'timeout_error',
  overloaded: 'overloaded_error',
};

const KIND_FOR_TYPE: Record<string, ErrorKind> = Object.fromEntries(
  Object.entries(TYPE_FOR_KIND)
    .filter(([kind]) => kind !== 'unavailable')
    .map(([kind, type]) => [type, kind as ErrorKind]),
);

export function errorBody(error: GatewayError): AnthropicErrorBody {
  return { type: 'error', error: { type: TYPE_FOR_KIND[error.kind], message: error.message } };
}

export function encodeError(error: GatewayError): ErrorEnvelope {
  return errorEnvelope(error, errorBody(error));
}

/** `status` undefined: an in-stream error, which gets the usual status of its kind (529 for overloaded). */
export function decodeErrorObject(error: { type?: string; message?: string } | undefined, status: number | undefined, fallback: string): GatewayError {
  const kind = (error?.type !== undefined ? KIND_FOR_TYPE[error.type] : undefined) ?? (status === undefined ? 'server' : kindForStatus(status));
  return gatewayError(kind, error?.message ?? fallback, { code: error?.type ?? null, ...(status !== undefined && { status }) });
}

/** An upstream Anthropic error response to the IR error, keeping its status (529 stays 529). */
export function decodeError({ status, bodyText, retryAfterSeconds }: UpstreamErrorResponse): GatewayError {
  let error: { type?: string; message?: string } | undefined;
  try {
    error = (JSON.parse(bodyText) as Partial<AnthropicErrorBody>).error;
  } catch {
    error = undefined;
  }
  const decoded = decodeErrorObject(error, status, upstreamText(status, bodyText));
  return retryAfterSeconds === undefined ? decoded : { ...decoded, retryAfterSeconds };
}
