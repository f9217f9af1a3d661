import type { ValidateFunction } from 'ajv';
import validateAnthropicRequest from '../../generated/validators/anthropic-request.js';
import validateOpenAIRequest from '../../generated/validators/openai-request.js';
import type { ProtocolCodec } from '../protocols/codec.ts';
import { anthropicCodec } from '../protocols/anthropic/index.ts';
import { openaiCodec } from '../protocols/openai/index.ts';

/** How one protocol is received from clients: its codec, its request schema, its protocol headers. */
export interface Ingress {
  readonly codec: ProtocolCodec;
  readonly validateRequest: ValidateFunction;
  /** Client headers that belong to the protocol (not the account) and go upstream on the same-protocol path. */
  readonly forwardedHeaders: readonly string[];
}

export const OPENAI_INGRESS: Ingress = {
  codec: openaiCodec,
  validateRequest: validateOpenAIRequest,
  forwardedHeaders: ['openai-beta'],
};

export const ANTHROPIC_INGRESS: Ingress = {
  codec: anthropicCodec,
  validateRequest: validateAnthropicRequest,
  forwardedHeaders: ['anthropic-version', 'anthropic-beta'],
};
