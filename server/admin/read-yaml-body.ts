import type { IncomingMessage } from 'node:http';
import type { BodyResult } from './read-json-body.ts';
import { readBoundedBody } from '../http-body/bounded-body.ts';

/** A whole config.yaml: far more than a JSON admin body, and still bounded. */
export const CONFIG_BODY_LIMIT_BYTES = 4 * 1024 * 1024;

/** The media types a YAML body may come with (curl --data-binary sends none of these by itself). */
const YAML_TYPES = new Set(['application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml', 'text/plain']);

export type TextBodyResult = { readonly ok: true; readonly text: string } | Extract<BodyResult, { ok: false }>;

/** Reads a YAML body (POST .../config/validate and .../apply) as UTF-8 text of at most `limit` bytes. */
export async function readYamlBody(request: IncomingMessage, limit = CONFIG_BODY_LIMIT_BYTES): Promise<TextBodyResult> {
  // Past the limit the rest is read and dropped, not destroyed, so the answer can still be written.
  const { body, overLimit } = await readBoundedBody(request, { limit, past: { then: 'drain' }, declaredLength: request.headers['content-length'] });
  if (overLimit)
    return { ok: false, status: 413, code: 'request_too_large', message: `the configuration is larger than the admin plane's limit of ${limit} bytes` };
  const mediaType = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (!YAML_TYPES.has(mediaType)) {
    return {
      ok: false,
      status: 415,
      code: 'unsupported_media_type',
      message: `the request body must be the configuration's YAML, sent with content-type: application/yaml (got ${mediaType === '' ? 'none' : mediaType})`,
    };
  }
  try {
    return { ok: true, text: new TextDecoder('utf-8', { fatal: true }).decode(body) };
  } catch {
    return { ok: false, status: 400, code: 'invalid_request', message: 'the configuration is not valid UTF-8 text' };
  }
}
