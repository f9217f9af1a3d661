import type { IncomingHttpHeaders } from 'node:http';
import type { EmbeddingsRequest } from '../../ir/index.ts';
import type { EmbeddingsCodec, EmbeddingLane } from '../embeddings-codec.ts';
import { COHERE_MAX_TEXTS, cohereVectors, decodeCohereEmbed, embeddingsByType } from '../cohere/embeddings.ts';
import { invalidField, unsupportedField } from '../shared/invalid-field.ts';
import { droppedEmbeddingFields, optionalDimensions, refuseUntranslatable, UpstreamShapeError, vectorOf } from '../shared/embedding-vectors.ts';

/** Bedrock reports an InvokeModel call's input tokens in this header, whatever the model's body says. */
const INPUT_TOKENS_HEADER = 'x-amzn-bedrock-input-token-count';

type Json = Record<string, unknown>;

/** Which body a Bedrock embedding model takes, by its model id (inference profiles included). */
function bodyKind(model: string): 'titan' | 'cohere' | undefined {
  if (model.includes('amazon.titan-embed')) return 'titan';
  if (model.includes('cohere.embed')) return 'cohere';
  return undefined;
}

/**
 * Bedrock `InvokeModel` (`POST /model/{modelId}/invoke`) for embedding models, whose bodies are
 * their vendor's: Titan (`inputText`, `dimensions`, `normalize`; one text a call) and Cohere
 * (`texts`, `input_type`, `embedding_types`, `truncate`; 96 a call). The client's body says which
 * it speaks and is answered in the same.
 */
export const bedrockEmbeddings: EmbeddingsCodec = {
  protocol: 'bedrock',
  batchLimit: (model) => (bodyKind(model) === 'titan' ? 1 : COHERE_MAX_TEXTS),

  decodeRequest(body) {
    if ('inputText' in body) {
      const text = body.inputText;
      if (typeof text !== 'string' || text === '') throw invalidField('inputText', 'must be a non-empty string');
      const dimensions = optionalDimensions(body.dimensions, 'dimensions');
      if (body.normalize !== undefined && typeof body.normalize !== 'boolean') throw invalidField('normalize', 'must be a boolean');
      const types = body.embeddingTypes;
      const binary = Array.isArray(types) && types.some((t) => t !== 'float');
      return {
        inputs: [text],
        encoding: 'float',
        ...(dimensions !== undefined && { dimensions }),
        ...(body.normalize === false && { normalize: false }),
        ...(binary && { untranslatable: { field: 'embeddingTypes', why: 'binary embeddings are made by Titan only' } }),
        shape: 'titan',
      };
    }
    if ('texts' in body || 'images' in body) return decodeCohereEmbed(body, 'bedrock');
    throw invalidField('body', "InvokeModel on this gateway takes an embedding model's body: Titan (inputText) or Cohere (texts, input_type)");
  },

  encodeRequest(request, lane) {
    refuseUntranslatable(request, 'bedrock');
    const kind = bodyKind(lane.model);
    const path = `/model/${encodeURIComponent(lane.model)}/invoke`;
    if (kind === 'titan') {
      return {
        call: {
          path,
          body: JSON.stringify({
            inputText: request.inputs[0],
            ...(request.dimensions !== undefined && { dimensions: request.dimensions }),
            ...(request.normalize === false && { normalize: false }),
          }),
        },
        warnings: droppedEmbeddingFields(request, { normalize: true }),
      };
    }
    if (kind === 'cohere') {
      return {
        call: { path, body: JSON.stringify(cohereBody(request, lane)) },
        warnings: droppedEmbeddingFields(request, { truncate: true }),
      };
    }
    throw unsupportedField('model', 'bedrock', `no InvokeModel embeddings body is known for the model "${lane.model}" (Titan and Cohere embed models are)`);
  },

  decodeResponse(body, headers) {
    const vectors = 'embedding' in body ? [vectorOf(body.embedding, 'embedding')] : cohereVectors(body);
    if (vectors.length === 0) throw new UpstreamShapeError('no embeddings');
    const tokens = headerTokens(headers) ?? (typeof body.inputTextTokenCount === 'number' ? body.inputTextTokenCount : undefined);
    return { vectors, inputTokens: tokens ?? null };
  },

  encodeResponse(response, request, { inputTokens }) {
    const headers = { 'content-type': 'application/json', [INPUT_TOKENS_HEADER]: String(inputTokens) };
    if (request.shape === 'titan') {
      const vector = response.vectors[0];
      // Titan v2 always answers embeddingsByType too (float at least).
      return { body: JSON.stringify({ embedding: vector, inputTextTokenCount: inputTokens, embeddingsByType: { float: vector } }), headers };
    }
    // A Cohere body without embedding_types is answered a plain list of float vectors.
    const byType = request.embeddingTypes !== undefined;
    return {
      body: JSON.stringify({
        id: crypto.randomUUID(),
        texts: request.inputs,
        embeddings: byType ? embeddingsByType(response.vectors, request) : response.vectors,
        response_type: byType ? 'embeddings_by_type' : 'embeddings_floats',
      }),
      headers,
    };
  },

  forwards: (request, model) => bodyKind(model) === (request.shape === 'titan' ? 'titan' : 'cohere'),
  forward: (raw, _json, _origin, lane) => ({ path: `/model/${encodeURIComponent(lane.model)}/invoke`, body: raw }),
  reportedTokens: (_body, headers) => headerTokens(headers),
};

function cohereBody(request: EmbeddingsRequest, lane: EmbeddingLane): Json {
  // Floats are asked for by type when the client asked by type; base64 is made from them here.
  return {
    texts: request.inputs,
    input_type: request.inputType ?? lane.inputType,
    ...(request.embeddingTypes !== undefined && { embedding_types: ['float'] }),
    ...(request.dimensions !== undefined && { output_dimension: request.dimensions }),
    ...(request.truncate !== undefined && { truncate: request.truncate.toUpperCase() }),
  };
}

function headerTokens(headers: IncomingHttpHeaders): number | undefined {
  const value = headers[INPUT_TOKENS_HEADER];
  const n = typeof value === 'string' ? Number(value) : Number.NaN;
  return Number.isInteger(n) && n >= 0 ? n : undefined;
}
