import type { ProtocolCodec } from '../codec.ts';
import { decodeRequest } from './decode-request.ts';
import { decodeResponse } from './decode-response.ts';
import { encodeRequest } from './encode-request.ts';
import { encodeResponse } from './encode-response.ts';
import { decodeError, encodeError } from './errors.ts';
import { AnthropicStreamDecoder } from './stream-decoder.ts';
import { AnthropicStreamEncoder } from './stream-encoder.ts';
import validateAnthropicRequest from '../../../generated/validators/anthropic-request.js';
import { SSE_HEADERS } from '../../framing/sse-format.ts';
import { anthropicCountEndpoint } from './count-endpoint.ts';
import type { ProtocolDefinition, RouteParams } from '../definition.ts';

/** Anthropic Messages (`POST {base_url}/v1/messages`). */
export const anthropicCodec: ProtocolCodec = {
  id: 'anthropic',
  decodeRequest: (body, options) => decodeRequest(body, options.pathModel),
  encodeResponse: (response) => encodeResponse(response),
  createStreamEncoder: (client) => new AnthropicStreamEncoder(client),
  encodeError,
  bodyCarriesModel: true,
  upstreamPath: () => '/v1/messages',
  encodeRequest,
  decodeResponse,
  createStreamDecoder: () => new AnthropicStreamDecoder(),
  decodeError,
};

const pathModel = (params: RouteParams) => ({ pathModel: String(params.model) });
/** `/v1/messages`, `/{model}/v1/messages` and their sub-routes, served or not. */
const MESSAGES_PATH = /\/v1\/messages(\/|$)/;

export const anthropicProtocol: ProtocolDefinition<'anthropic'> = {
  id: 'anthropic',
  codec: anthropicCodec,
  validators: { chat: validateAnthropicRequest },
  forwardedHeaders: ['anthropic-version', 'anthropic-beta'],
  streamHeaders: () => SSE_HEADERS,
  routes: [
    { method: 'POST', path: '/v1/messages', operation: 'chat' },
    // Input-token counts (Claude Code asks before each turn): routed like chat, nothing spent.
    { method: 'POST', path: '/v1/messages/count_tokens', operation: 'count_tokens' },
    // The model in the path, for clients whose base URL names it.
    { method: 'POST', path: '/:model/v1/messages/count_tokens', operation: 'count_tokens', origin: pathModel },
    { method: 'POST', path: '/:model/v1/messages', operation: 'chat', origin: pathModel },
  ],
  upstreamOperations: ['chat', 'count_tokens'],
  countEndpoint: anthropicCountEndpoint,
  claimsPath: (path) => MESSAGES_PATH.test(path),
  claimsHeader: 'anthropic-version',
  genAi: { catalogProvider: 'anthropic', providerName: 'anthropic' },
};
