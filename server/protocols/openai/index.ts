import type { ProtocolCodec } from '../codec.ts';
import { decodeRequest } from './decode-request.ts';
import { decodeResponse } from './decode-response.ts';
import { encodeRequest } from './encode-request.ts';
import { encodeResponse } from './encode-response.ts';
import { decodeError, encodeError } from './errors.ts';
import { OpenAIStreamDecoder } from './stream-decoder.ts';
import { OpenAIStreamEncoder } from './stream-encoder.ts';
import validateOpenAIRequest from '../../../generated/validators/openai-request.js';
import validateOpenAIEmbeddingsRequest from '../../../generated/validators/openai-embeddings-request.js';
import { SSE_HEADERS } from '../../framing/sse-format.ts';
import { responsesCountEndpoint } from '../responses/count-endpoint.ts';
import type { ProtocolDefinition } from '../definition.ts';
import { openaiEmbeddings } from './embeddings.ts';

/** OpenAI Chat Completions (`POST {base_url}/chat/completions`). */
export const openaiCodec: ProtocolCodec = {
  id: 'openai',
  decodeRequest: (body) => decodeRequest(body),
  encodeResponse: (response) => encodeResponse(response),
  createStreamEncoder: (client) => new OpenAIStreamEncoder(client),
  encodeError,
  bodyCarriesModel: true,
  upstreamPath: () => '/chat/completions',
  encodeRequest,
  decodeResponse,
  createStreamDecoder: () => new OpenAIStreamDecoder(),
  decodeError,
};

/** OpenAI Chat Completions; also the error shape of paths no protocol claims (registry.ts). */
export const openaiProtocol: ProtocolDefinition<'openai'> = {
  id: 'openai',
  codec: openaiCodec,
  validators: { chat: validateOpenAIRequest, embeddings: validateOpenAIEmbeddingsRequest },
  forwardedHeaders: ['openai-beta'],
  streamHeaders: () => SSE_HEADERS,
  routes: [
    { method: 'POST', path: '/v1/chat/completions', operation: 'chat' },
    { method: 'POST', path: '/v1/embeddings', operation: 'embeddings' },
    // Served only within the protocol (operations/media/): `variant` says which of the operation's routes.
    { method: 'POST', path: '/v1/moderations', operation: 'moderations', origin: () => ({ variant: 'moderations' }) },
    { method: 'POST', path: '/v1/images/generations', operation: 'images', origin: () => ({ variant: 'generations' }) },
    { method: 'POST', path: '/v1/images/edits', operation: 'images', origin: () => ({ variant: 'edits' }) },
    { method: 'POST', path: '/v1/images/variations', operation: 'images', origin: () => ({ variant: 'variations' }) },
    { method: 'POST', path: '/v1/audio/speech', operation: 'audio', origin: () => ({ variant: 'speech' }) },
    { method: 'POST', path: '/v1/audio/transcriptions', operation: 'audio', origin: () => ({ variant: 'transcriptions' }) },
    { method: 'POST', path: '/v1/audio/translations', operation: 'audio', origin: () => ({ variant: 'translations' }) },
  ],
  // Counted through OpenAI's Responses endpoint.
  upstreamOperations: ['chat', 'count_tokens', 'embeddings', 'moderations', 'images', 'audio'],
  countEndpoint: responsesCountEndpoint,
  embeddings: openaiEmbeddings,
  claimsPath: () => false,
  genAi: { catalogProvider: 'openai', providerName: 'openai' },
};
