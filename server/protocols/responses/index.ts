import type { ProtocolCodec } from '../codec.ts';
import { decodeRequest } from './decode-request.ts';
import { decodeResponse } from './decode-response.ts';
import { encodeRequest } from './encode-request.ts';
import { encodeResponse } from './encode-response.ts';
import { decodeError, encodeError } from './errors.ts';
import { ResponsesStreamDecoder } from './stream-decoder.ts';
import { ResponsesStreamEncoder } from './stream-encoder.ts';

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
