import type { EmbeddingInputType, EmbeddingsRequest } from '../../ir/index.ts';
import type { EmbeddingsCodec } from '../embeddings-codec.ts';
import { replaceTopLevelString } from '../passthrough.ts';
import { invalidField } from '../shared/invalid-field.ts';
import {
  droppedEmbeddingFields,
  lastIntegerMember,
  optionalDimensions,
  refuseUntranslatable,
  textList,
  UpstreamShapeError,
  vectorOf,
  vectorToBase64,
} from '../shared/embedding-vectors.ts';

/** Cohere's limit on texts in one embed call (the API's and Bedrock's). */
export const COHERE_MAX_TEXTS = 96;

const INPUT_TYPES: readonly string[] = ['search_document', 'search_query', 'classification', 'clustering'];
/** The embedding types the gateway can make from float vectors for a client of another protocol's lane. */
const TRANSLATABLE_TYPES: readonly string[] = ['float', 'base64'];
const TRUNCATE = { NONE: 'none', START: 'start', END: 'end' } as const;

type Json = Record<string, unknown>;

/**
 * Cohere `POST /v2/embed` (and v1 `/v1/embed`): `texts`, a required `input_type`, `embedding_types`
 * (`float` and `base64`, little-endian float32 bytes, can be made from another upstream's vectors;
 * the quantized types only by Cohere itself), `output_dimension`, `truncate`.
 */
export const cohereEmbeddings: EmbeddingsCodec = {
  protocol: 'cohere',
  batchLimit: () => COHERE_MAX_TEXTS,
  decodeRequest: (body, origin) => decodeCohereEmbed(body, origin.shape === 'v1' ? 'v1' : 'v2'),

  encodeRequest(request, lane) {
    refuseUntranslatable(request, 'cohere');
    return {
      call: {
        path: '/v2/embed',
        body: JSON.stringify({
          model: lane.model,
          texts: request.inputs,
          input_type: request.inputType ?? lane.inputType,
          embedding_types: ['float'],
          ...(request.dimensions !== undefined && { output_dimension: request.dimensions }),
          ...(request.truncate !== undefined && { truncate: request.truncate.toUpperCase() }),
        }),
      },
      warnings: droppedEmbeddingFields(request, { truncate: true }),
    };
  },

  decodeResponse: (body) => ({ vectors: cohereVectors(body), inputTokens: billedTokens(body) }),

  encodeResponse(response, request, { inputTokens }) {
    // v1 without embedding_types answers a plain list of float vectors.
    const v1Floats = request.shape === 'v1' && request.embeddingTypes === undefined;
    const embeddings = v1Floats ? response.vectors : embeddingsByType(response.vectors, request);
    return {
      body: JSON.stringify({
        id: crypto.randomUUID(),
        embeddings,
        texts: request.inputs,
        meta: { api_version: { version: request.shape === 'v1' ? '1' : '2' }, billed_units: { input_tokens: inputTokens } },
        // v1 says which list it holds; v2's answer (its API reference's example) has no response_type.
        ...(request.shape === 'v1' && { response_type: v1Floats ? 'embeddings_floats' : 'embeddings_by_type' }),
      }),
      headers: { 'content-type': 'application/json' },
    };
  },

  forward: (raw, _json, origin, lane) => ({ path: origin.shape === 'v1' ? '/v1/embed' : '/v2/embed', body: replaceTopLevelString(raw, 'model', lane.model) }),
  reportedTokens: (body) => lastIntegerMember(body, 'input_tokens'),
};

/**
 * A Cohere embed body (the API's, or Bedrock's Cohere body without `model`) as IR. Images and
 * image inputs stay with the same protocol (the IR carries text); so do the quantized types.
 * `v1` without `embedding_types` answers a plain list of float vectors.
 */
export function decodeCohereEmbed(body: Json, shape: 'v1' | 'v2' | 'bedrock'): EmbeddingsRequest {
  const inputType = body.input_type;
  if (inputType !== undefined && (typeof inputType !== 'string' || !(INPUT_TYPES.includes(inputType) || inputType === 'image')))
    throw invalidField('input_type', `must be one of ${[...INPUT_TYPES, 'image'].join(', ')}`);
  const types = body.embedding_types;
  if (types !== undefined && (!Array.isArray(types) || types.length === 0 || !types.every((t) => typeof t === 'string')))
    throw invalidField('embedding_types', 'must be a non-empty array of embedding types');
  const truncate = body.truncate;
  if (truncate !== undefined && (typeof truncate !== 'string' || !(truncate in TRUNCATE))) throw invalidField('truncate', 'must be NONE, START or END');
  const dimensions = optionalDimensions(body.output_dimension, 'output_dimension');
  const untranslatable =
    body.images !== undefined || body.inputs !== undefined || inputType === 'image'
      ? { field: body.images !== undefined ? 'images' : body.inputs !== undefined ? 'inputs' : 'input_type', why: 'images are embedded by Cohere only' }
      : Array.isArray(types) && types.some((t) => !TRANSLATABLE_TYPES.includes(t as string))
        ? { field: 'embedding_types', why: "only float and base64 embeddings can be made from another provider's vectors" }
        : undefined;
  return {
    ...(typeof body.model === 'string' && { model: body.model }),
    inputs: untranslatable?.field === 'images' || untranslatable?.field === 'inputs' ? [] : textList(body.texts, 'texts', COHERE_MAX_TEXTS),
    encoding: Array.isArray(types) && types.length === 1 && types[0] === 'base64' ? 'base64' : 'float',
    ...(typeof inputType === 'string' && inputType !== 'image' && { inputType: inputType as EmbeddingInputType }),
    ...(typeof truncate === 'string' && { truncate: TRUNCATE[truncate as keyof typeof TRUNCATE] }),
    ...(dimensions !== undefined && { dimensions }),
    ...(untranslatable !== undefined && { untranslatable }),
    ...(Array.isArray(types) && { embeddingTypes: types as string[] }),
    shape,
  };
}

/** The embedding types a decoded Cohere request asked for (float when it named none). */
function requestedTypes(request: EmbeddingsRequest): string[] {
  return request.embeddingTypes === undefined ? ['float'] : [...request.embeddingTypes];
}

/** `embeddings` by type, each type made from the float vectors (only float and base64 reach here). */
export function embeddingsByType(vectors: readonly (readonly number[])[], request: EmbeddingsRequest): Json {
  const out: Json = {};
  for (const type of requestedTypes(request)) out[type] = type === 'base64' ? vectors.map((v) => vectorToBase64(v)) : vectors;
  return out;
}

/** Float vectors of a Cohere answer: `embeddings` by type (`float`) or a plain list (v1 floats, Bedrock). */
export function cohereVectors(body: Json): number[][] {
  const embeddings = body.embeddings;
  const list = Array.isArray(embeddings)
    ? embeddings
    : ((embeddings as { float?: unknown; base64?: unknown } | undefined)?.float ?? (embeddings as { base64?: unknown } | undefined)?.base64);
  if (!Array.isArray(list)) throw new UpstreamShapeError('embeddings holds no float vectors');
  return list.map((v, i) => vectorOf(v, `embeddings[${i}]`));
}

function billedTokens(body: Json): number | null {
  const tokens = (body.meta as { billed_units?: { input_tokens?: unknown } } | undefined)?.billed_units?.input_tokens;
  return typeof tokens === 'number' ? tokens : null;
}
