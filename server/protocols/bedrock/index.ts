import type { ProtocolCodec } from '../codec.ts';
import { decodeRequest } from './decode-request.ts';
import { decodeResponse } from './decode-response.ts';
import { encodeRequest } from './encode-request.ts';
import { encodeResponse } from './encode-response.ts';
import { decodeError, encodeError } from './errors.ts';
import { BedrockStreamDecoder } from './stream-decoder.ts';
import { BedrockStreamEncoder } from './stream-encoder.ts';

/**
 * AWS Bedrock Converse (`POST {base_url}/model/{modelId}/converse`) and ConverseStream
 * (`/converse-stream`, binary event-stream framing). The model and streaming live in the path.
 */
export const bedrockCodec: ProtocolCodec = {
  id: 'bedrock',
  decodeRequest,
  encodeResponse: (response) => encodeResponse(response),
  createStreamEncoder: (client) => new BedrockStreamEncoder(client),
  encodeError,
  bodyCarriesModel: false,
  upstreamPath: (model, stream) => `/model/${encodeURIComponent(model)}/${stream ? 'converse-stream' : 'converse'}`,
  encodeRequest,
  decodeResponse,
  createStreamDecoder: () => new BedrockStreamDecoder(),
  decodeError,
};
