import type { ProtocolCodec } from '../codec.ts';
import { decodeRequest } from './decode-request.ts';
import { decodeResponse } from './decode-response.ts';
import { encodeRequest } from './encode-request.ts';
import { encodeResponse } from './encode-response.ts';
import { decodeError, encodeError } from './errors.ts';
import { GeminiStreamDecoder } from './stream-decoder.ts';
import { GeminiStreamEncoder } from './stream-encoder.ts';
import validateGeminiRequest from '../../../generated/validators/gemini-request.js';
import validateGeminiEmbeddingsRequest from '../../../generated/validators/gemini-embeddings-request.js';
import { SSE_HEADERS } from '../../framing/sse-format.ts';
import { geminiCountEndpoint } from './count-endpoint.ts';
import type { ProtocolDefinition, ProtocolRoute } from '../definition.ts';
import { geminiChatOrigin, geminiCountTokensModel, geminiEmbedOrigin } from './path-action.ts';
import { geminiEmbeddings } from './embeddings.ts';

/**
 * Google Gemini generateContent (`POST {base_url}/v1beta/models/{model}:generateContent`, and
 * `:streamGenerateContent?alt=sse`). The model and streaming are named by the path.
 */
export const geminiCodec: ProtocolCodec = {
  id: 'gemini',
  decodeRequest,
  encodeResponse: (response) => encodeResponse(response),
  createStreamEncoder: (client) => new GeminiStreamEncoder(client),
  encodeError,
  bodyCarriesModel: false,
  // A Gemini client that asked for the JSON-array stream (no alt=sse) gets the same from a Gemini
  // lane; every other stream to a Gemini lane is asked for SSE, which the decoder reads event by event.
  upstreamPath: (model, stream, origin) =>
    `/v1beta/models/${encodeURIComponent(model)}:${!stream ? 'generateContent' : origin?.jsonArrayStream === true ? 'streamGenerateContent' : 'streamGenerateContent?alt=sse'}`,
  encodeRequest,
  decodeResponse,
  createStreamDecoder: () => new GeminiStreamDecoder(),
  decodeError,
};

/** Without alt=sse Gemini streams one JSON array, written piece by piece. */
const JSON_ARRAY_STREAM_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-cache' };

/** Both API versions name the model and the method in one segment (`models/{model}:{method}`). */
const routes = (version: string): ProtocolRoute[] => [
  {
    method: 'POST',
    path: `/${version}/models/:action`,
    operation: 'count_tokens',
    origin: (params) => {
      const model = geminiCountTokensModel(String(params.action));
      return model === undefined ? undefined : { pathModel: model };
    },
  },
  { method: 'POST', path: `/${version}/models/:action`, operation: 'chat', origin: (params, query) => geminiChatOrigin(String(params.action), query.alt) },
  { method: 'POST', path: `/${version}/models/:action`, operation: 'embeddings', origin: (params) => geminiEmbedOrigin(String(params.action)) },
];

export const geminiProtocol: ProtocolDefinition<'gemini'> = {
  id: 'gemini',
  codec: geminiCodec,
  validators: { chat: validateGeminiRequest, embeddings: validateGeminiEmbeddingsRequest },
  forwardedHeaders: [],
  streamHeaders: (origin) => (origin.jsonArrayStream === true ? JSON_ARRAY_STREAM_HEADERS : SSE_HEADERS),
  routes: [...routes('v1beta'), ...routes('v1')],
  upstreamOperations: ['chat', 'count_tokens', 'embeddings'],
  countEndpoint: geminiCountEndpoint,
  embeddings: geminiEmbeddings,
  claimsPath: (path) =>
    path.startsWith('/v1beta/') ||
    path.includes(':generateContent') ||
    path.includes(':streamGenerateContent') ||
    path.includes(':embedContent') ||
    path.includes(':batchEmbedContents'),
  genAi: { catalogProvider: 'gemini', providerName: 'gcp.gemini' },
};
