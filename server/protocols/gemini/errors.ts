import { gatewayError, kindForStatus, type ErrorKind, type GatewayError } from '../../ir/index.ts';
import type { ErrorEnvelope, UpstreamErrorResponse } from '../codec.ts';
import { errorEnvelope } from '../shared/error-envelope.ts';
import { upstreamText } from '../shared/upstream-text.ts';
import type { GeminiErrorBody, Status as GeminiErrorObject } from '../../../generated/protocols/gemini/error.ts';

/** google.rpc.Code names as Google's REST APIs spell them in `error.status`. */
const STATUS_FOR_KIND: Record<ErrorKind, string> = {
  invalid_request: 'INVALID_ARGUMENT',
  authentication: 'UNAUTHENTICATED',
  permission: 'PERMISSION_DENIED',
  not_found: 'NOT_FOUND',
  request_too_large: 'INVALID_ARGUMENT',
  rate_limit: 'RESOURCE_EXHAUSTED',
  // Google answers "enable billing" with FAILED_PRECONDITION: not worth retrying, like billing.
  billing: 'FAILED_PRECONDITION',
  server: 'INTERNAL',
  // Google says "the model is overloaded" with 503 UNAVAILABLE; the IR status (529) is kept as code.
  overloaded: 'UNAVAILABLE',
  timeout: 'DEADLINE_EXCEEDED',
  unavailable: 'UNAVAILABLE',
};

/** For in-stream errors without a numeric code. */
const KIND_FOR_STATUS: Record<string, ErrorKind> = {
  INVALID_ARGUMENT: 'invalid_request',
  FAILED_PRECONDITION: 'invalid_request',
  OUT_OF_RANGE: 'invalid_request',
  UNAUTHENTICATED: 'authentication',
  PERMISSION_DENIED: 'permission',
  NOT_FOUND: 'not_found',
  RESOURCE_EXHAUSTED: 'rate_limit',
  INTERNAL: 'server',
  UNKNOWN: 'server',
  UNAVAILABLE: 'unavailable',
  DEADLINE_EXCEEDED: 'timeout',
};

const RETRY_INFO = 'type.googleapis.com/google.rpc.RetryInfo';
const BAD_REQUEST = 'type.googleapis.com/google.rpc.BadRequest';

interface ErrorDetail {
  '@type'?: string;
  retryDelay?: string;
  fieldViolations?: { field?: string; description?: string }[];
}

export function errorBody(error: GatewayError): GeminiErrorBody {
  const details: ErrorDetail[] = [];
  if (typeof error.param === 'string') details.push({ '@type': BAD_REQUEST, fieldViolations: [{ field: error.param, description: error.message }] });
  if (error.retryAfterSeconds !== undefined) details.push({ '@type': RETRY_INFO, retryDelay: `${error.retryAfterSeconds}s` });
  // An upstream Gemini status name (FAILED_PRECONDITION) survives; other protocols' codes are not Google's.
  const status = typeof error.code === 'string' && error.code in KIND_FOR_STATUS ? error.code : STATUS_FOR_KIND[error.kind];
  return { error: { code: error.status, message: error.message, status, ...(details.length > 0 && { details }) } };
}

export function encodeError(error: GatewayError): ErrorEnvelope {
  return errorEnvelope(error, errorBody(error), { 'content-type': 'application/json; charset=UTF-8' });
}

/**
 * The HTTP status decides the kind (Google's `code` is that status); the status name is the IR
 * code. `httpStatus` undefined: an in-stream error, whose own `code` (or kind) gives the status.
 */
export function decodeErrorObject(error: GeminiErrorObject | undefined, httpStatus: number | undefined, fallback: string): GatewayError {
  const status = httpStatus ?? (typeof error?.code === 'number' ? error.code : undefined);
  const name = typeof error?.status === 'string' ? error.status : undefined;
  const kind = status !== undefined ? kindForStatus(status) : ((name !== undefined ? KIND_FOR_STATUS[name] : undefined) ?? 'server');
  const details = Array.isArray(error?.details) ? (error.details as ErrorDetail[]) : [];
  const param = details.find((d) => d['@type'] === BAD_REQUEST)?.fieldViolations?.[0]?.field;
  const retryAfterSeconds = retryDelaySeconds(details.find((d) => d['@type'] === RETRY_INFO)?.retryDelay);
  return gatewayError(kind, typeof error?.message === 'string' ? error.message : fallback, {
    code: name ?? null,
    ...(status !== undefined && { status }),
    ...(param !== undefined && { param }),
    ...(retryAfterSeconds !== undefined && { retryAfterSeconds }),
  });
}

/** An upstream Gemini error response to the IR error, keeping its status; Retry-After wins over RetryInfo. */
export function decodeError({ status, bodyText, retryAfterSeconds }: UpstreamErrorResponse): GatewayError {
  let error: GeminiErrorObject | undefined;
  try {
    const parsed = JSON.parse(bodyText) as Partial<GeminiErrorBody> | Partial<GeminiErrorBody>[];
    // A failed streamGenerateContent without alt=sse wraps the error in the JSON array it would have streamed.
    const body = Array.isArray(parsed) ? parsed[0] : parsed;
    error = typeof body?.error === 'object' && body.error !== null ? body.error : undefined;
  } catch {
    error = undefined;
  }
  const decoded = decodeErrorObject(error, status, upstreamText(status, bodyText));
  return retryAfterSeconds === undefined ? decoded : { ...decoded, retryAfterSeconds };
}

/** google.protobuf.Duration in JSON: decimal seconds with an `s` suffix ("34.4s"). */
function retryDelaySeconds(delay: string | undefined): number | undefined {
  if (delay === undefined) return undefined;
  const match = /^(\d+(?:\.\d+)?)s$/.exec(delay);
  return match === null ? undefined : Number(match[1]);
}
