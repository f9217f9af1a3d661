import type { ProtocolCodec } from '../codec.ts';
import { decodeRequest } from './decode-request.ts';
import { decodeResponse } from './decode-response.ts';
import { encodeRequest } from './encode-request.ts';
import { encodeResponse } from './encode-response.ts';
import { decodeError, encodeError } from './errors.ts';
import { BedrockStreamDecoder } from './stream-decoder.ts';
import { BedrockStreamEncoder } from './stream-encoder.ts';
import validateBedrockRequest from '../../../generated/validators/bedrock-request.js';
import validateBedrockEmbeddingsRequest from '../../../generated/validators/bedrock-embeddings-request.js';
import { EVENTSTREAM_HEADERS } from '../../framing/eventstream-frame.ts';
import { bedrockCountEndpoint } from './count-endpoint.ts';
import type { ProtocolDefinition } from '../definition.ts';
import { bedrockEmbeddings } from './embeddings.ts';

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

export const bedrockProtocol: ProtocolDefinition<'bedrock'> = {
  id: 'bedrock',
  codec: bedrockCodec,
  validators: { chat: validateBedrockRequest, embeddings: validateBedrockEmbeddingsRequest },
  forwardedHeaders: [],
  streamHeaders: () => EVENTSTREAM_HEADERS,
  routes: [
    { method: 'POST', path: '/model/:modelId/converse', operation: 'chat', origin: (params) => ({ pathModel: String(params.modelId), pathStream: false }) },
    {
      method: 'POST',
      path: '/model/:modelId/converse-stream',
      operation: 'chat',
      origin: (params) => ({ pathModel: String(params.modelId), pathStream: true }),
    },
    // InvokeModel, for embedding models (Titan and Cohere bodies).
    { method: 'POST', path: '/model/:modelId/invoke', operation: 'embeddings', origin: (params) => ({ pathModel: String(params.modelId) }) },
  ],
  // CountTokens (`/model/{id}/count-tokens`) where the model has it.
  // Rerank: InvokeModel on Cohere Rerank models, from Cohere-shaped rerank routes (operations/rerank/).
  upstreamOperations: ['chat', 'count_tokens', 'embeddings', 'rerank'],
  countEndpoint: bedrockCountEndpoint,
  embeddings: bedrockEmbeddings,
  claimsPath: (path) => path.startsWith('/model/'),
  genAi: { catalogProvider: 'bedrock', providerName: 'aws.bedrock' },
};
