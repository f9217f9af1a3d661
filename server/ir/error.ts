/**
 * Normalised error kinds. Every protocol's error envelope maps onto one of these and back, so an
 * upstream error (or the gateway's own) reaches the client in the client's protocol shape.
 */
export type ErrorKind =
  | 'invalid_request'
  | 'authentication'
  | 'permission'
  | 'not_found'
  | 'request_too_large'
  | 'rate_limit'
  | 'billing'
  | 'server'
  | 'overloaded'
  | 'timeout'
  | 'unavailable';

export interface GatewayError {
  readonly kind: ErrorKind;
  /** HTTP status to answer with (faithful to the upstream's when relayed). */
  readonly status: number;
  readonly message: string;
  /** The request field at fault, when known (OpenAI `param`). */
  readonly param?: string | null;
  /** A machine code (OpenAI `code`, e.g. `model_not_found`, `unsupported_parameter`). */
  readonly code?: string | null;
  /** Seconds, from an upstream Retry-After or the gateway's own cooldown. */
  readonly retryAfterSeconds?: number;
}

const DEFAULT_STATUS: Record<ErrorKind, number> = {
  invalid_request: 400,
  authentication: 401,
  billing: 402,
  permission: 403,
  not_found: 404,
  request_too_large: 413,
  rate_limit: 429,
  server: 500,
  unavailable: 503,
  timeout: 504,
  overloaded: 529,
};

export function gatewayError(kind: ErrorKind, message: string, extra: Partial<GatewayError> = {}): GatewayError {
  return { kind, status: DEFAULT_STATUS[kind], message, ...extra };
}

/** The kind a bare HTTP status stands for, when an upstream body says nothing better. */
export function kindForStatus(status: number): ErrorKind {
  if (status === 400 || status === 422) return 'invalid_request';
  if (status === 401) return 'authentication';
  if (status === 402) return 'billing';
  if (status === 403) return 'permission';
  if (status === 404) return 'not_found';
  if (status === 413) return 'request_too_large';
  if (status === 429) return 'rate_limit';
  if (status === 503) return 'unavailable';
  if (status === 504 || status === 408) return 'timeout';
  if (status === 529) return 'overloaded';
  if (status >= 500) return 'server';
  return 'invalid_request';
}

/** Thrown by decoders and encoders; the HTTP layer turns it into the client's error envelope. */
export class GatewayFailure extends Error {
  readonly error: GatewayError;
  constructor(error: GatewayError) {
    super(error.message);
    this.error = error;
  }
}
