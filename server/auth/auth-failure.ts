/**
 * Why /auth/token refused: the status, a stable code, and a sentence for the person. Never carries
 * a token or a key. `reason` says which check an invalid token failed (expired, audience, ...).
 */
export class AuthFailure extends Error {
  readonly status: 400 | 401 | 403 | 404 | 413 | 415 | 502 | 503;
  readonly code: string;
  readonly reason: string | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(status: AuthFailure['status'], code: string, message: string, options: { reason?: string; retryAfterSeconds?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AuthFailure';
    this.status = status;
    this.code = code;
    this.reason = options.reason;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }

  /** The JSON body: `{ error: { code, reason?, message } }`, the shape the admin plane uses too. */
  toJSON(): { error: { code: string; reason?: string; message: string } } {
    return { error: { code: this.code, ...(this.reason !== undefined && { reason: this.reason }), message: this.message } };
  }
}

/** 401 for a token that is well formed but not acceptable; `reason` names the check. */
export function invalidToken(reason: string, message: string, cause?: unknown): AuthFailure {
  return new AuthFailure(401, 'invalid_token', message, { reason, cause });
}
