import { gatewayError, kindForStatus, type ErrorKind, type GatewayError } from '../../ir/index.ts';
import type { ErrorEnvelope, UpstreamErrorResponse } from '../codec.ts';
import { errorEnvelope } from '../shared/error-envelope.ts';
import { upstreamText } from '../shared/upstream-text.ts';
import type { BedrockErrorBody } from './wire.ts';

/**
 * Bedrock error types (the `x-amzn-errortype` name; stream exception frames use the same names in
 * lowerCamel) and what they mean. The HTTP status is always kept as received.
 */
const KIND_FOR_TYPE: Readonly<Record<string, ErrorKind>> = {
  ValidationException: 'invalid_request',
  ConflictException: 'invalid_request',
  AccessDeniedException: 'permission',
  UnrecognizedClientException: 'authentication',
  ExpiredTokenException: 'authentication',
  ResourceNotFoundException: 'not_found',
  ThrottlingException: 'rate_limit',
  // A quota, not a fault of the request: the lane is out of capacity (Bedrock answers 400).
  ServiceQuotaExceededException: 'rate_limit',
  ModelNotReadyException: 'overloaded',
  ModelTimeoutException: 'timeout',
  InternalServerException: 'server',
  ModelErrorException: 'server',
  ModelStreamErrorException: 'server',
  ServiceUnavailableException: 'unavailable',
};

const TYPE_FOR_KIND: Readonly<Record<ErrorKind, string>> = {
  invalid_request: 'ValidationException',
  request_too_large: 'ValidationException',
  authentication: 'UnrecognizedClientException',
  permission: 'AccessDeniedException',
  not_found: 'ResourceNotFoundException',
  rate_limit: 'ThrottlingException',
  billing: 'ServiceQuotaExceededException',
  server: 'InternalServerException',
  unavailable: 'ServiceUnavailableException',
  overloaded: 'ServiceUnavailableException',
  timeout: 'ModelTimeoutException',
};

/** ConverseStream can only carry these five exceptions; every kind maps onto one of them. */
const STREAM_EXCEPTION_FOR_KIND: Readonly<Record<ErrorKind, string>> = {
  invalid_request: 'validationException',
  request_too_large: 'validationException',
  authentication: 'validationException',
  permission: 'validationException',
  not_found: 'validationException',
  billing: 'validationException',
  rate_limit: 'throttlingException',
  unavailable: 'serviceUnavailableException',
  overloaded: 'serviceUnavailableException',
  timeout: 'modelStreamErrorException',
  server: 'internalServerException',
};

/** The namespace AWS appends after the type; clients keep only the part before ':'. */
const ERROR_TYPE_SUFFIX = ':http://internal.amazon.com/coral/com.amazon.bedrock/';

const capitalised = (type: string) => type.charAt(0).toUpperCase() + type.slice(1);

export function encodeError(error: GatewayError): ErrorEnvelope {
  return errorEnvelope(
    error,
    { message: error.message },
    {
      'content-type': 'application/json',
      'x-amzn-errortype': `${TYPE_FOR_KIND[error.kind]}${ERROR_TYPE_SUFFIX}`,
    },
  );
}

/** An upstream Bedrock error response to the IR error; `code` is the error type (the catalog's error_map keys). */
export function decodeError({ status, bodyText, headers, retryAfterSeconds }: UpstreamErrorResponse): GatewayError {
  let body: BedrockErrorBody = {};
  try {
    const parsed = JSON.parse(bodyText) as unknown;
    if (parsed !== null && typeof parsed === 'object') body = parsed as BedrockErrorBody;
  } catch {
    // Not JSON (a proxy's page): the status and a trimmed body say what happened.
  }
  const type = errorType(headers['x-amzn-errortype']) ?? errorType(body.__type);
  const kind = (type !== undefined ? KIND_FOR_TYPE[type] : undefined) ?? kindForStatus(status);
  const message = body.message ?? body.Message ?? upstreamText(status, bodyText);
  return gatewayError(kind, message, { status, code: type ?? null, ...(retryAfterSeconds !== undefined && { retryAfterSeconds }) });
}

/** `ValidationException:http://...` and `com.amazonaws.bedrock#ValidationException` both name ValidationException. */
function errorType(value: string | string[] | undefined): string | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined || raw === '') return undefined;
  const name = raw.split(':')[0] ?? '';
  const type = name.slice(name.lastIndexOf('#') + 1).trim();
  return type === '' ? undefined : type;
}

/** An exception frame of a ConverseStream (`:exception-type`) to an IR error with its kind's usual status. */
export function decodeStreamException(type: string, body: BedrockErrorBody | undefined): GatewayError {
  const kind = KIND_FOR_TYPE[capitalised(type)] ?? 'server';
  return gatewayError(kind, body?.message ?? body?.Message ?? `Bedrock stream exception ${type}`, { code: type });
}

export function streamExceptionType(error: GatewayError): string {
  return STREAM_EXCEPTION_FOR_KIND[error.kind];
}
