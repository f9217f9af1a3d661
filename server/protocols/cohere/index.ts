import type { ProtocolCodec } from '../codec.ts';
import { decodeRequest } from './decode-request.ts';
import { decodeResponse } from './decode-response.ts';
import { encodeRequest } from './encode-request.ts';
import { encodeResponse } from './encode-response.ts';
import { decodeError, encodeError } from './errors.ts';
import { CohereStreamDecoder } from './stream-decoder.ts';
import { CohereStreamEncoder } from './stream-encoder.ts';
import validateCohereRequest from '../../../generated/validators/cohere-request.js';
import validateCohereEmbeddingsRequest from '../../../generated/validators/cohere-embeddings-request.js';
import { SSE_HEADERS } from '../../framing/sse-format.ts';
import type { ProtocolDefinition } from '../definition.ts';
import type { RequestOrigin } from '../codec.ts';
import { cohereEmbeddings } from './embeddings.ts';

/** Cohere v2 Chat (`POST {base_url}/v2/chat`; the model and `stream` travel in the body). */
export const cohereCodec: ProtocolCodec = {
  id: 'cohere',
  decodeRequest: (body) => decodeRequest(body),
  encodeResponse: (response) => encodeResponse(response),
  createStreamEncoder: (client) => new CohereStreamEncoder(client),
  encodeError,
  bodyCarriesModel: true,
  upstreamPath: () => '/v2/chat',
  encodeRequest,
  decodeResponse,
  createStreamDecoder: () => new CohereStreamDecoder(),
  decodeError,
};

/** Which embed API version a route is (v1 answers plain float lists). */
const V2: RequestOrigin = Object.freeze({ variant: 'v2' });
const V1: RequestOrigin = Object.freeze({ variant: 'v1' });

export const cohereProtocol: ProtocolDefinition<'cohere'> = {
  id: 'cohere',
  codec: cohereCodec,
  validators: { chat: validateCohereRequest, embeddings: validateCohereEmbeddingsRequest },
  forwardedHeaders: [],
  streamHeaders: () => SSE_HEADERS,
  routes: [
    { method: 'POST', path: '/v2/chat', operation: 'chat' },
    { method: 'POST', path: '/v2/embed', operation: 'embeddings', origin: () => V2 },
    { method: 'POST', path: '/v1/embed', operation: 'embeddings', origin: () => V1 },
    // Rerank, Cohere's native v2 and the v1 shape Jina-style clients call (operations/rerank/).
    { method: 'POST', path: '/v2/rerank', operation: 'rerank', origin: () => V2 },
    { method: 'POST', path: '/v1/rerank', operation: 'rerank', origin: () => V1 },
  ],
  // No count endpoint the gateway uses: a count on a Cohere lane is an estimate.
  upstreamOperations: ['chat', 'embeddings', 'rerank'],
  embeddings: cohereEmbeddings,
  claimsPath: (path) => path.startsWith('/v2/') || path === '/v1/embed' || path === '/v1/rerank',
  genAi: { catalogProvider: 'cohere', providerName: 'cohere' },
};
