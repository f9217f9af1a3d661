import { gatewayError, kindForStatus, type ErrorKind, type GatewayError } from '../../ir/index.ts';
import type { ErrorEnvelope, UpstreamErrorResponse } from '../codec.ts';
import { errorEnvelope } from '../shared/error-envelope.ts';
import { upstreamText } from '../shared/upstream-text.ts';
import type { CohereErrorBody } from '../../../generated/protocols/cohere/error.ts';

/** Cohere's body has no error type: the status is the only classification. */
function kindOf(status: number): ErrorKind {
  if (status === 498) return 'authentication'; // invalid token
  // "Cancelled by the user": the gateway did not cancel, so the lane misbehaved.
  if (status === 499) return 'server';
  return kindForStatus(status);
}

export function errorBody(error: GatewayError): CohereErrorBody {
  return { message: error.message };
}

export function encodeError(error: GatewayError): ErrorEnvelope {
  return errorEnvelope(error, errorBody(error));
}

/** An upstream Cohere error response to the IR error, keeping its status (498 stays 498). */
export function decodeError({ status, bodyText, retryAfterSeconds }: UpstreamErrorResponse): GatewayError {
  let message: string | undefined;
  try {
    const body = JSON.parse(bodyText) as Partial<CohereErrorBody> | null;
    if (typeof body?.message === 'string') message = body.message;
  } catch {
    // Not JSON (a proxy's HTML page, say): fall back to the status and a trimmed body.
  }
  return gatewayError(kindOf(status), message ?? upstreamText(status, bodyText), {
    status,
    ...(retryAfterSeconds !== undefined && { retryAfterSeconds }),
  });
}

/**
 * A generation that failed after the stream began ends with message-end carrying finish_reason
 * ERROR or TIMEOUT and an `error` text; the raw reason is kept as the code.
 */
export function decodeStreamError(finishReason: string | undefined, message: string | undefined): GatewayError {
  const kind: ErrorKind = finishReason === 'TIMEOUT' ? 'timeout' : 'server';
  return gatewayError(kind, message ?? 'the Cohere upstream reported an error during generation', { code: finishReason ?? null });
}

/** The finish_reason that carries an IR error on the wire. */
export function streamErrorReason(error: GatewayError): 'ERROR' | 'TIMEOUT' {
  return error.kind === 'timeout' ? 'TIMEOUT' : 'ERROR';
}
