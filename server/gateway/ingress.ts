import type { ValidateFunction } from 'ajv';
import validateAnthropicRequest from '../../generated/validators/anthropic-request.js';
import validateBedrockRequest from '../../generated/validators/bedrock-request.js';
import validateCohereRequest from '../../generated/validators/cohere-request.js';
import validateGeminiRequest from '../../generated/validators/gemini-request.js';
import validateOpenAIRequest from '../../generated/validators/openai-request.js';
import validateResponsesRequest from '../../generated/validators/responses-request.js';
import { EVENTSTREAM_HEADERS } from '../framing/eventstream-frame.ts';
import { SSE_HEADERS } from '../framing/sse-format.ts';
import type { ProtocolId } from '../ir/index.ts';
import { anthropicCodec } from '../protocols/anthropic/index.ts';
import { bedrockCodec } from '../protocols/bedrock/index.ts';
import type { ProtocolCodec, RequestOrigin } from '../protocols/codec.ts';
import { cohereCodec } from '../protocols/cohere/index.ts';
import { geminiCodec } from '../protocols/gemini/index.ts';
import { openaiCodec } from '../protocols/openai/index.ts';
import { responsesCodec } from '../protocols/responses/index.ts';

/** How one protocol is received from clients: its codec, its request schema, its protocol headers. */
export interface Ingress {
  readonly codec: ProtocolCodec;
  readonly validateRequest: ValidateFunction;
  /** Client headers that belong to the protocol (not the account) and go upstream on the same-protocol path. */
  readonly forwardedHeaders: readonly string[];
  /** Response headers of a translated stream in this protocol's framing. */
  streamHeaders(origin: RequestOrigin): Record<string, string>;
}

const sse = () => SSE_HEADERS;

export const INGRESS: Readonly<Record<ProtocolId, Ingress>> = {
  openai: { codec: openaiCodec, validateRequest: validateOpenAIRequest, forwardedHeaders: ['openai-beta'], streamHeaders: sse },
  responses: { codec: responsesCodec, validateRequest: validateResponsesRequest, forwardedHeaders: ['openai-beta'], streamHeaders: sse },
  anthropic: { codec: anthropicCodec, validateRequest: validateAnthropicRequest, forwardedHeaders: ['anthropic-version', 'anthropic-beta'], streamHeaders: sse },
  gemini: {
    codec: geminiCodec,
    validateRequest: validateGeminiRequest,
    forwardedHeaders: [],
    // Without alt=sse Gemini streams one JSON array, written piece by piece.
    streamHeaders: (origin) => (origin.jsonArrayStream === true ? { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-cache' } : SSE_HEADERS),
  },
  bedrock: {
    codec: bedrockCodec,
    validateRequest: validateBedrockRequest,
    forwardedHeaders: [],
    streamHeaders: () => EVENTSTREAM_HEADERS,
  },
  cohere: { codec: cohereCodec, validateRequest: validateCohereRequest, forwardedHeaders: [], streamHeaders: sse },
};
