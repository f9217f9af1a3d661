// The precompiled protocol schemas (generated/validators), by protocol and body kind.
import type { ValidateFunction } from 'ajv';
import anthropicError from '../../../generated/validators/anthropic-error.js';
import anthropicRequest from '../../../generated/validators/anthropic-request.js';
import anthropicResponse from '../../../generated/validators/anthropic-response.js';
import anthropicStreamEvent from '../../../generated/validators/anthropic-stream-event.js';
import openaiError from '../../../generated/validators/openai-error.js';
import openaiRequest from '../../../generated/validators/openai-request.js';
import openaiResponse from '../../../generated/validators/openai-response.js';
import openaiStreamEvent from '../../../generated/validators/openai-stream-event.js';
import type { FixtureProtocol } from './fixtures.ts';

export interface ProtocolValidators {
  readonly request: ValidateFunction;
  readonly response: ValidateFunction;
  readonly streamEvent: ValidateFunction;
  readonly error: ValidateFunction;
}

export const VALIDATORS: Readonly<Record<FixtureProtocol, ProtocolValidators>> = {
  openai: { request: openaiRequest, response: openaiResponse, streamEvent: openaiStreamEvent, error: openaiError },
  anthropic: { request: anthropicRequest, response: anthropicResponse, streamEvent: anthropicStreamEvent, error: anthropicError },
};

/** Schema violations as readable lines; `[]` when valid, so `expect(...).toEqual([])` shows why. */
export function schemaErrors(validate: ValidateFunction, value: unknown): string[] {
  if (validate(value)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
}
