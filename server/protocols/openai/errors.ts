import { gatewayError, kindForStatus, type ErrorKind, type GatewayError } from '../../ir/index.ts';
import type { ErrorEnvelope, UpstreamErrorResponse } from '../codec.ts';
import { errorEnvelope } from '../shared/error-envelope.ts';
import { upstreamText } from '../shared/upstream-text.ts';
import type { OpenAIErrorBody } from '../../../generated/protocols/openai/error.ts';

const TYPE_FOR_KIND: Record<ErrorKind, string> = {
  invalid_request: 'invalid_request_error',
  authentication: 'authentication_error',
  permission: 'permission_error',
  not_found: 'not_found_error',
  request_too_large: 'invalid_request_error',
  rate_limit: 'rate_limit_error',
  billing: 'insufficient_quota',
  server: 'server_error',
  overloaded: 'server_error',
  timeout: 'timeout_error',
  unavailable: 'service_unavailable_error',
};

export function errorBody(error: GatewayError): OpenAIErrorBody {
  return {
    error: {
      message: error.message,
      type: TYPE_FOR_KIND[error.kind],
      param: error.param ?? null,
      code: error.code ?? (error.kind === 'billing' ? 'insufficient_quota' : null),
    },
  };
}

export function encodeError(error: GatewayError): ErrorEnvelope {
  return errorEnvelope(error, errorBody(error));
}

/** An upstream OpenAI(-compatible) error response to the IR error, keeping its status. */
export function decodeError({ status, bodyText, retryAfterSeconds }: UpstreamErrorResponse): GatewayError {
  let parsed: Partial<OpenAIErrorBody['error']> = {};
  try {
    const body = JSON.parse(bodyText) as { error?: Partial<OpenAIErrorBody['error']> | string };
    if (typeof body.error === 'object' && body.error !== null) parsed = body.error;
    else if (typeof body.error === 'string') parsed = { message: body.error };
  } catch {
    // Not JSON (a proxy's HTML page, say): fall back to the status and a trimmed body.
  }
  const code = typeof parsed.code === 'string' ? parsed.code : null;
  const kind: ErrorKind = code === 'insufficient_quota' ? 'billing' : kindForStatus(status);
  return gatewayError(kind, parsed.message ?? upstreamText(status, bodyText), {
    status,
    code,
    param: typeof parsed.param === 'string' ? parsed.param : null,
    ...(retryAfterSeconds !== undefined && { retryAfterSeconds }),
  });
}

/** In-stream errors have no status; their type or code says what kind they are. */
export function streamErrorKind(type: string | undefined, code: string | null | undefined): ErrorKind {
  const said = `${type ?? ''} ${code ?? ''}`;
  if (said.includes('insufficient_quota')) return 'billing';
  if (/rate_limit|requests|tokens/.test(said)) return 'rate_limit';
  if (said.includes('invalid_request')) return 'invalid_request';
  if (said.includes('overloaded')) return 'overloaded';
  return 'server';
}
