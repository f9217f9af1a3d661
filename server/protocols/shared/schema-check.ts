import type { ErrorObject, ValidateFunction } from 'ajv';
import { GatewayFailure, gatewayError } from '../../ir/index.ts';

// A request schema's verdict as the client's 400: the pipeline checks every body with it, and the
// Gemini decoder checks a body again after renaming its snake_case members.

/** A 400 naming the most specific field when `value` fails its protocol's request schema. */
export function checkRequestSchema(value: unknown, validate: ValidateFunction): void {
  if (validate(value)) return;
  const first = mostSpecific(validate.errors ?? []);
  const param = fieldPath(first);
  throw new GatewayFailure(
    gatewayError('invalid_request', `${param || 'body'}: ${first?.message ?? 'is invalid'}`, { param: param || null, code: 'invalid_request_body' }),
  );
}

/** The deepest error is the one that says what is actually wrong. */
function mostSpecific(errors: readonly ErrorObject[]): ErrorObject | undefined {
  return errors.filter((e) => e.keyword !== 'if' && e.keyword !== 'allOf').sort((a, b) => depth(b) - depth(a))[0] ?? errors[0];
}

function depth(e: ErrorObject): number {
  return e.instancePath.split('/').length + (e.keyword === 'required' ? 1 : 0);
}

/** `/messages/0/tool_call_id` -> `messages[0].tool_call_id` (a missing property is named too). */
function fieldPath(error: ErrorObject | undefined): string {
  if (error === undefined) return '';
  const segments = error.instancePath === '' ? [] : error.instancePath.slice(1).split('/');
  if (error.keyword === 'required') segments.push((error.params as { missingProperty: string }).missingProperty);
  let out = '';
  for (const s of segments) out += /^\d+$/.test(s) ? `[${s}]` : out === '' ? s : `.${s}`;
  return out;
}
