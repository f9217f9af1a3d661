import type { ProtocolCodec } from '../codec.ts';
import { decodeRequest } from './decode-request.ts';
import { decodeResponse } from './decode-response.ts';
import { encodeRequest } from './encode-request.ts';
import { encodeResponse } from './encode-response.ts';
import { decodeError, encodeError } from './errors.ts';
import { GeminiStreamDecoder } from './stream-decoder.ts';
import { GeminiStreamEncoder } from './stream-encoder.ts';

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
