import type { IncomingMessage } from 'node:http';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { GatewayFailure, gatewayError } from '../ir/index.ts';
import type { BodyHold } from './body-memory.ts';

/**
 * Reads the whole request body, refusing (413) as soon as it passes the limit, and (503) before
 * reading when the thread's bodies in flight have no room for it (`hold`: its declared length at
 * once, or what has arrived when it declares none).
 */
export async function readRequestBody(req: IncomingMessage, limit: number, hold: BodyHold): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit);
  if (Number.isFinite(declared) && !hold.growTo(declared)) throw noRoom();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw tooLarge(limit);
    if (!hold.growTo(size)) throw noRoom();
    chunks.push(chunk as Buffer);
  }
  return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size);
}

function noRoom(): GatewayFailure {
  return new GatewayFailure(gatewayError('unavailable', 'the gateway is holding as many request bodies as it may right now; retry in 1 s', { status: 503, code: 'request_bodies_full', retryAfterSeconds: 1 }));
}

function tooLarge(limit: number): GatewayFailure {
  return new GatewayFailure(gatewayError('request_too_large', `request body is larger than the gateway's limit of ${limit} bytes`, { code: 'request_too_large' }));
}

/** Parses and schema-checks a request body; errors name the field, as `messages[0].role`. */
export function parseRequestJson(body: Buffer, validate: ValidateFunction): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch (e) {
    throw new GatewayFailure(gatewayError('invalid_request', `request body is not valid JSON: ${(e as Error).message}`, { code: 'invalid_json' }));
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new GatewayFailure(gatewayError('invalid_request', 'request body must be a JSON object', { code: 'invalid_json' }));
  }
  checkRequestSchema(value, validate);
  return value as Record<string, unknown>;
}

/** A 400 naming the most specific field when `value` fails its protocol's request schema. */
export function checkRequestSchema(value: unknown, validate: ValidateFunction): void {
  if (validate(value)) return;
  const first = mostSpecific(validate.errors ?? []);
  const param = fieldPath(first);
  throw new GatewayFailure(gatewayError('invalid_request', `${param || 'body'}: ${first?.message ?? 'is invalid'}`, { param: param || null, code: 'invalid_request_body' }));
}

/** The deepest error is the one that says what is actually wrong. */
function mostSpecific(errors: readonly ErrorObject[]): ErrorObject | undefined {
  return errors.filter((e) => e.keyword !== 'if' && e.keyword !== 'allOf').sort((a, b) => depth(b) - depth(a))[0] ?? errors[0];
}

function depth(e: ErrorObject): number {
  return e.instancePath.split('/').length + (e.keyword === 'required' ? 1 : 0);
}

/** `/messages/0/tool_call_id` -> `messages[0].tool_call_id` (a missing property is named too). */
export function fieldPath(error: ErrorObject | undefined): string {
  if (error === undefined) return '';
  const segments = error.instancePath === '' ? [] : error.instancePath.slice(1).split('/');
  if (error.keyword === 'required') segments.push((error.params as { missingProperty: string }).missingProperty);
  let out = '';
  for (const s of segments) out += /^\d+$/.test(s) ? `[${s}]` : out === '' ? s : `.${s}`;
  return out;
}
