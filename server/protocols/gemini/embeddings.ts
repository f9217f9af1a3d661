import type { EmbeddingInputType, EmbeddingsRequest } from '../../ir/index.ts';
import type { EmbeddingsCodec } from '../embeddings-codec.ts';
import { invalidField } from '../shared/invalid-field.ts';
import {
  droppedEmbeddingFields,
  lastIntegerMember,
  optionalDimensions,
  refuseUntranslatable,
  UpstreamShapeError,
  vectorOf,
} from '../shared/embedding-vectors.ts';

/** Gemini's limit on requests in one `batchEmbedContents` call. */
const MAX_BATCH = 100;

/** Cohere's input types (the IR's) as Gemini task types and back; Gemini's others read as the nearest. */
const TASK_TYPES: Readonly<Record<EmbeddingInputType, string>> = {
  search_document: 'RETRIEVAL_DOCUMENT',
  search_query: 'RETRIEVAL_QUERY',
  classification: 'CLASSIFICATION',
  clustering: 'CLUSTERING',
};
const INPUT_TYPES: Readonly<Record<string, EmbeddingInputType>> = {
  RETRIEVAL_DOCUMENT: 'search_document',
  RETRIEVAL_QUERY: 'search_query',
  QUESTION_ANSWERING: 'search_query',
  FACT_VERIFICATION: 'search_query',
  CODE_RETRIEVAL_QUERY: 'search_query',
  CLASSIFICATION: 'classification',
  CLUSTERING: 'clustering',
  SEMANTIC_SIMILARITY: 'clustering',
};

type Json = Record<string, unknown>;

/**
 * Gemini `models/{model}:embedContent` (one content, one vector) and `:batchEmbedContents`
 * (`requests`, one vector each; what @google/genai calls for every embedContent). No base64, no
 * usage report (read when a newer API sends `usageMetadata.promptTokenCount`).
 */
export const geminiEmbeddings: EmbeddingsCodec = {
  protocol: 'gemini',
  batchLimit: () => MAX_BATCH,

  decodeRequest(body, origin) {
    if (origin.shape !== 'batch') return { ...oneRequest(body, ''), encoding: 'float', shape: 'single' };
    const requests = body.requests;
    if (!Array.isArray(requests) || requests.length === 0) throw invalidField('requests', 'must be a non-empty array');
    if (requests.length > MAX_BATCH) throw invalidField('requests', `holds ${requests.length} requests; at most ${MAX_BATCH} can be in one batch`);
    const each = requests.map((r, i) => oneRequest(r as Json, `requests[${i}].`));
    const first = each[0]!;
    each.forEach((r, i) => {
      // One IR request carries one setting for all its texts, as every other protocol does.
      if (r.dimensions !== first.dimensions)
        throw invalidField(`requests[${i}].outputDimensionality`, 'must be the same in every request of a batch the gateway serves');
      if (r.inputType !== first.inputType) throw invalidField(`requests[${i}].taskType`, 'must be the same in every request of a batch the gateway serves');
    });
    return { ...first, inputs: each.map((r) => r.inputs[0]!), encoding: 'float', shape: 'batch' };
  },

  encodeRequest(request, lane) {
    refuseUntranslatable(request, 'gemini');
    const model = `models/${lane.model}`;
    const taskType = request.inputType === undefined ? undefined : TASK_TYPES[request.inputType];
    return {
      call: {
        path: `/v1beta/models/${encodeURIComponent(lane.model)}:batchEmbedContents`,
        body: JSON.stringify({
          requests: request.inputs.map((text) => ({
            model,
            content: { parts: [{ text }] },
            ...(taskType !== undefined && { taskType }),
            ...(request.dimensions !== undefined && { outputDimensionality: request.dimensions }),
          })),
        }),
      },
      warnings: droppedEmbeddingFields(request, {}),
    };
  },

  decodeResponse(body) {
    const list = body.embeddings ?? (body.embedding === undefined ? undefined : [body.embedding]);
    if (!Array.isArray(list)) throw new UpstreamShapeError('embeddings is not an array');
    const usage = body.usageMetadata as { promptTokenCount?: unknown } | undefined;
    return {
      vectors: list.map((e: { values?: unknown }, i) => vectorOf(e?.values, `embeddings[${i}].values`)),
      inputTokens: typeof usage?.promptTokenCount === 'number' ? usage.promptTokenCount : null,
    };
  },

  encodeResponse(response, request) {
    const body = request.shape === 'single' ? { embedding: { values: response.vectors[0] } } : { embeddings: response.vectors.map((values) => ({ values })) };
    return { body: JSON.stringify(body), headers: { 'content-type': 'application/json; charset=UTF-8' } };
  },

  forward(raw, json, origin, lane) {
    const method = origin.shape === 'batch' ? 'batchEmbedContents' : 'embedContent';
    const path = `/v1beta/models/${encodeURIComponent(lane.model)}:${method}`;
    // A batch names the model in each request too, and Gemini wants it to be the path's.
    const requests = json.requests;
    const model = `models/${lane.model}`;
    if (method === 'embedContent' || !Array.isArray(requests) || requests.every((r: Json) => r?.model === model)) {
      return { path, body: method === 'embedContent' && typeof json.model === 'string' && json.model !== model ? JSON.stringify({ ...json, model }) : raw };
    }
    return { path, body: JSON.stringify({ ...json, requests: requests.map((r: Json) => ({ ...r, model })) }) };
  },

  reportedTokens: (body) => lastIntegerMember(body, 'promptTokenCount'),
};

/** One `EmbedContentRequest`: its content's text parts as one text (Gemini embeds a content whole). */
function oneRequest(r: Json, at: string): Omit<EmbeddingsRequest, 'encoding'> {
  if (r === null || typeof r !== 'object') throw invalidField(at.replace(/\.$/, '') || 'request', 'must be an object');
  const parts = (r.content as { parts?: unknown } | undefined)?.parts;
  if (!Array.isArray(parts) || parts.length === 0) throw invalidField(`${at}content.parts`, 'must hold at least one part');
  const texts = parts.map((p: { text?: unknown }, i) => {
    if (typeof p?.text !== 'string') throw invalidField(`${at}content.parts[${i}].text`, 'must be a string (only text can be embedded through the gateway)');
    return p.text;
  });
  const text = texts.join('\n');
  if (text === '') throw invalidField(`${at}content.parts`, 'must hold some text');
  const taskType = r.taskType ?? r.task_type;
  if (taskType !== undefined && (typeof taskType !== 'string' || !(taskType in INPUT_TYPES)))
    throw invalidField(`${at}taskType`, `must be one of ${Object.keys(INPUT_TYPES).join(', ')}`);
  const dimensions = optionalDimensions(r.outputDimensionality ?? r.output_dimensionality, `${at}outputDimensionality`);
  return {
    inputs: [text],
    ...(typeof taskType === 'string' && { inputType: INPUT_TYPES[taskType]! }),
    ...(dimensions !== undefined && { dimensions }),
  };
}
