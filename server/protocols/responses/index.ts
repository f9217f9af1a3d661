import type { ProtocolCodec } from '../codec.ts';
import { decodeRequest } from './decode-request.ts';
import { decodeResponse } from './decode-response.ts';
import { encodeRequest } from './encode-request.ts';
import { encodeResponse } from './encode-response.ts';
import { decodeError, encodeError } from './errors.ts';
import { ResponsesStreamDecoder } from './stream-decoder.ts';
import { ResponsesStreamEncoder } from './stream-encoder.ts';
import validateResponsesRequest from '../../../generated/validators/responses-request.js';
import { SSE_HEADERS } from '../../framing/sse-format.ts';
import { responsesCountEndpoint } from './count-endpoint.ts';
import type { ProtocolDefinition } from '../definition.ts';

/** OpenAI Responses (`POST {base_url}/responses`, base_url ending in /v1). */
export const responsesCodec: ProtocolCodec = {
  id: 'responses',
  decodeRequest: (body) => decodeRequest(body),
  encodeResponse: (response, client) => encodeResponse(response, client),
  createStreamEncoder: (client) => new ResponsesStreamEncoder(client),
  encodeError,
  bodyCarriesModel: true,
  upstreamPath: () => '/responses',
  encodeRequest,
  decodeResponse,
  createStreamDecoder: () => new ResponsesStreamDecoder(),
  decodeError,
};

export const responsesProtocol: ProtocolDefinition<'responses'> = {
  id: 'responses',
  codec: responsesCodec,
  validators: { chat: validateResponsesRequest },
  forwardedHeaders: ['openai-beta'],
  streamHeaders: () => SSE_HEADERS,
  routes: [{ method: 'POST', path: '/v1/responses', operation: 'chat' }],
  upstreamOperations: ['chat', 'count_tokens'],
  countEndpoint: responsesCountEndpoint,
  // Its sub-routes (`/v1/responses/{id}`, not served) too.
  claimsPath: (path) => path.startsWith('/v1/responses'),
  genAi: { catalogProvider: 'openai-responses', providerName: 'openai' },
};
