import type { ProtocolCodec } from '../codec.ts';
import { decodeRequest } from './decode-request.ts';
import { decodeResponse } from './decode-response.ts';
import { encodeRequest } from './encode-request.ts';
import { encodeResponse } from './encode-response.ts';
import { decodeError, encodeError } from './errors.ts';
import { AnthropicStreamDecoder } from './stream-decoder.ts';
import { AnthropicStreamEncoder } from './stream-encoder.ts';

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
