import type { ProtocolCodec } from '../codec.ts';
import { decodeRequest } from './decode-request.ts';
import { decodeResponse } from './decode-response.ts';
import { encodeRequest } from './encode-request.ts';
import { encodeResponse } from './encode-response.ts';
import { decodeError, encodeError } from './errors.ts';
import { CohereStreamDecoder } from './stream-decoder.ts';
import { CohereStreamEncoder } from './stream-encoder.ts';

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
