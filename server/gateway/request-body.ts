import type { IncomingMessage } from 'node:http';
import type { ValidateFunction } from 'ajv';
import { GatewayFailure, gatewayError } from '../ir/index.ts';
import { checkRequestSchema } from '../protocols/shared/schema-check.ts';
import { readBoundedBody, type PastLimit } from '../http-body/bounded-body.ts';
import type { Overrun } from '../http-body/byte-budget.ts';
import type { BodyHold } from './body-memory.ts';

/**
 * Reads the whole request body, refusing (413) as soon as it passes the limit, and (503) before
 * reading when the thread's bodies in flight have no room for it (`hold`: its declared length at
 * once, or what has arrived when it declares none).
 */
export async function readRequestBody(req: IncomingMessage, limit: number, hold: BodyHold): Promise<Buffer> {
  return (await readBoundedBody(req, { limit, past: REFUSE, declaredLength: req.headers['content-length'], hold })).body;
}

/** Past the bounds: the client's request is refused in its protocol's shape (the caller's envelope). */
export const refusal = (overrun: Overrun, limit: number): GatewayFailure => (overrun === 'too_large' ? tooLarge(limit) : noRoom());
const REFUSE: PastLimit = { then: 'fail', error: refusal };

function noRoom(): GatewayFailure {
  return new GatewayFailure(
    gatewayError('unavailable', 'the gateway is holding as many request bodies as it may right now; retry in 1 s', {
      status: 503,
      code: 'request_bodies_full',
      retryAfterSeconds: 1,
    }),
  );
}

function tooLarge(limit: number): GatewayFailure {
  return new GatewayFailure(
    gatewayError('request_too_large', `request body is larger than the gateway's limit of ${limit} bytes`, { code: 'request_too_large' }),
  );
}

/** Parses and schema-checks a request body; errors name the field, as `messages[0].role`. */
export function parseRequestJson(body: Buffer, validate: ValidateFunction): Record<string, unknown> {
  return checkRequestJson(parseJsonObject(body), validate);
}

/** A request body that must be one JSON object (400 `invalid_json` otherwise). */
export function parseJsonObject(body: Buffer): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch (e) {
    throw new GatewayFailure(gatewayError('invalid_request', `request body is not valid JSON: ${(e as Error).message}`, { code: 'invalid_json' }));
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new GatewayFailure(gatewayError('invalid_request', 'request body must be a JSON object', { code: 'invalid_json' }));
  }
  return value as Record<string, unknown>;
}

/** Schema-checks a parsed body (400 `invalid_request_body` naming the field otherwise). */
export function checkRequestJson(value: Record<string, unknown>, validate: ValidateFunction): Record<string, unknown> {
  checkRequestSchema(value, validate);
  return value;
}
