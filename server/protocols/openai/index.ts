import type { ProtocolCodec } from '../codec.ts';
import { decodeRequest } from './decode-request.ts';
import { decodeResponse } from './decode-response.ts';
import { encodeRequest } from './encode-request.ts';
import { encodeResponse } from './encode-response.ts';
import { decodeError, encodeError } from './errors.ts';
import { OpenAIStreamDecoder } from './stream-decoder.ts';
import { OpenAIStreamEncoder } from './stream-encoder.ts';

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
