import type { IncomingMessage } from 'node:http';
import { readBoundedBody } from '../http-body/bounded-body.ts';
import { AuthFailure } from './auth-failure.ts';
import type { PresentedTokens } from './identify.ts';

/** ID tokens are a few KiB; a body past this is a mistake or an attack. */
export const TOKEN_REQUEST_LIMIT_BYTES = 16 * 1024;

/**
 * The body of POST /auth/token: `{"id_token": "...", "access_token": "..."}` as JSON, or the same
 * fields form-encoded (`curl -d id_token=...`). Anything else is a 400, 413 or 415 that says what
 * is expected; the tokens themselves are never repeated in an error.
 */
export async function readTokenRequest(request: IncomingMessage): Promise<PresentedTokens> {
  // Past the limit the rest is read and dropped, not destroyed, so the answer can still be written.
  const { body, overLimit } = await readBoundedBody(request, {
    limit: TOKEN_REQUEST_LIMIT_BYTES,
    past: { then: 'drain' },
    declaredLength: request.headers['content-length'],
  });
  if (overLimit) {
    throw new AuthFailure(
      413,
      'request_too_large',
      `the request body is larger than ${TOKEN_REQUEST_LIMIT_BYTES} bytes: send only id_token (and access_token)`,
    );
  }
  const mediaType = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  let fields: Record<string, unknown>;
  if (mediaType === 'application/json' || mediaType.endsWith('+json')) {
    let value: unknown;
    try {
      value = JSON.parse(body.toString('utf8'));
    } catch {
      throw malformed('the request body is not valid JSON');
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw malformed('the request body must be a JSON object: {"id_token": "..."}');
    fields = value as Record<string, unknown>;
  } else if (mediaType === 'application/x-www-form-urlencoded') {
    fields = Object.fromEntries(new URLSearchParams(body.toString('utf8')));
  } else {
    throw new AuthFailure(
      415,
      'unsupported_media_type',
      `send {"id_token": "..."} as application/json (or id_token=... form-encoded); got ${mediaType === '' ? 'no content-type' : mediaType}`,
    );
  }
  const idToken = fields.id_token;
  const accessToken = fields.access_token;
  if (typeof idToken !== 'string' || idToken.trim() === '') throw malformed('id_token is required: the OIDC ID token your sign-in returned, as a string');
  if (accessToken !== undefined && (typeof accessToken !== 'string' || accessToken.trim() === ''))
    throw malformed('access_token, when sent, must be a non-empty string');
  return { idToken: idToken.trim(), accessToken: accessToken?.trim() };
}

function malformed(message: string): AuthFailure {
  return new AuthFailure(400, 'invalid_request', message);
}
