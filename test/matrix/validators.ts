// The request schema of each protocol, for checking what the gateway sends upstream.
import type { ValidateFunction } from 'ajv';
import openaiRequest from '../../generated/validators/openai-request.js';
import responsesRequest from '../../generated/validators/responses-request.js';
import anthropicRequest from '../../generated/validators/anthropic-request.js';
import geminiRequest from '../../generated/validators/gemini-request.js';
import bedrockRequest from '../../generated/validators/bedrock-request.js';
import cohereRequest from '../../generated/validators/cohere-request.js';
import type { ProtocolId } from '../../server/ir/index.ts';

export const VALIDATORS: Readonly<Record<ProtocolId, { readonly request: ValidateFunction }>> = {
  openai: { request: openaiRequest },
  responses: { request: responsesRequest },
  anthropic: { request: anthropicRequest },
  gemini: { request: geminiRequest },
  bedrock: { request: bedrockRequest },
  cohere: { request: cohereRequest },
};
