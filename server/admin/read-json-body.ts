import type { IncomingMessage } from 'node:http';
import { readBoundedBody } from '../http-body/bounded-body.ts';

/** Admin bodies are a few small fields; anything near this is a mistake or an attack. */
export const ADMIN_BODY_LIMIT_BYTES = 64 * 1024;

export type BodyResult =
  | { readonly ok: true; readonly value: Record<string, unknown> | undefined }
  | { readonly ok: false; readonly status: 400 | 413 | 415; readonly code: string; readonly message: string };

/**
 * Reads a JSON object body of at most `limit` bytes. No body at all gives undefined (the spec says
 * whether one is required). Anything else that is not a JSON object is refused, with the reason.
 */
export async function readJsonBody(request: IncomingMessage, limit = ADMIN_BODY_LIMIT_BYTES): Promise<BodyResult> {
  const tooLarge = {
    ok: false,
    status: 413,
    code: 'request_too_large',
    message: `the request body is larger than the admin plane's limit of ${limit} bytes`,
  } as const;
  // Past the limit the rest is read and dropped, not destroyed, so the answer can still be written.
  const { body, overLimit } = await readBoundedBody(request, { limit, past: { then: 'drain' }, declaredLength: request.headers['content-length'] });
  if (overLimit) return tooLarge;
  if (body.length === 0) return { ok: true, value: undefined };
  const mediaType = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (mediaType !== 'application/json' && !mediaType.endsWith('+json')) {
    return {
      ok: false,
      status: 415,
      code: 'unsupported_media_type',
      message: `the request body must be JSON, sent with content-type: application/json (got ${mediaType === '' ? 'none' : mediaType})`,
    };
  }
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch (error) {
    return { ok: false, status: 400, code: 'invalid_json', message: `the request body is not valid JSON: ${(error as Error).message}` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, status: 400, code: 'invalid_request', message: 'the request body must be a JSON object' };
  }
  return { ok: true, value: value as Record<string, unknown> };
}
