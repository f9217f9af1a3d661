import type { ProtocolCodec } from '../codec.ts';
import { decodeRequest } from './decode-request.ts';
import { decodeResponse } from './decode-response.ts';
import { encodeRequest } from './encode-request.ts';
import { encodeResponse } from './encode-response.ts';
import { decodeError, encodeError } from './errors.ts';
import { CohereStreamDecoder } from './stream-decoder.ts';
import { CohereStreamEncoder } from './stream-encoder.ts';
import validateCohereRequest from '../../../generated/validators/cohere-request.js';
import { SSE_HEADERS } from '../../framing/sse-format.ts';
import type { ProtocolDefinition } from '../definition.ts';

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

export const cohereProtocol: ProtocolDefinition<'cohere'> = {
  id: 'cohere',
  codec: cohereCodec,
  validators: { chat: validateCohereRequest },
  forwardedHeaders: [],
  streamHeaders: () => SSE_HEADERS,
  routes: [{ method: 'POST', path: '/v2/chat', operation: 'chat' }],
  // No count endpoint the gateway uses: a count on a Cohere lane is an estimate.
  upstreamOperations: ['chat'],
  claimsPath: (path) => path.startsWith('/v2/'),
  genAi: { catalogProvider: 'cohere', providerName: 'cohere' },
};
