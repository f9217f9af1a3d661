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

/** Token ids name tokens of OpenAI's tokenizer: no other upstream reads them. */
const TOKEN_IDS = { field: 'input', why: "token-id inputs are read by OpenAI's tokenizer only" } as const;

/** OpenAI's limit on inputs in one `POST /v1/embeddings`. */
const MAX_INPUTS = 2048;

/** OpenAI `POST /v1/embeddings`: `input` as a string, strings, or token ids; `encoding_format` float or base64. */
export const openaiEmbeddings: EmbeddingsCodec = {
  protocol: 'openai',
  batchLimit: () => MAX_INPUTS,

  decodeRequest(body) {
    const { input } = body;
    const encoding = body.encoding_format ?? 'float';
    if (encoding !== 'float' && encoding !== 'base64') throw invalidField('encoding_format', 'must be "float" or "base64"');
    const common = {
      ...(typeof body.model === 'string' && { model: body.model }),
      encoding,
      ...(body.dimensions !== undefined && body.dimensions !== null && { dimensions: optionalDimensions(body.dimensions, 'dimensions') }),
    } as const;
    if (typeof input === 'string') {
      if (input === '') throw invalidField('input', 'must not be empty');
      return { ...common, inputs: [input] };
    }
    if (Array.isArray(input) && input.length > 0 && typeof input[0] === 'number') {
      tokenIds(input, 'input');
      return { ...common, inputs: [], untranslatable: TOKEN_IDS };
    }
    if (Array.isArray(input) && input.length > 0 && Array.isArray(input[0])) {
      if (input.length > MAX_INPUTS) throw invalidField('input', `holds ${input.length} inputs; at most ${MAX_INPUTS} are accepted in one request`);
      input.forEach((ids, i) => tokenIds(ids, `input[${i}]`));
      return { ...common, inputs: [], untranslatable: TOKEN_IDS };
    }
    if (input === undefined || input === null) throw invalidField('input', 'is required');
    return { ...common, inputs: textList(input, 'input', MAX_INPUTS) };
  },

  encodeRequest(request, lane) {
    refuseUntranslatable(request, 'openai');
    const input = request.inputs;
    return {
      call: {
        path: '/embeddings',
        // Floats are asked for: they are what every client encoding is made from.
        body: JSON.stringify({
          model: lane.model,
          input,
          encoding_format: 'float',
          ...(request.dimensions !== undefined && { dimensions: request.dimensions }),
        }),
      },
      warnings: droppedEmbeddingFields(request, {}),
    };
  },

  decodeResponse(body) {
    const data = body.data;
    if (!Array.isArray(data)) throw new UpstreamShapeError('data is not an array');
    const vectors: number[][] = new Array(data.length);
    data.forEach((item: { index?: unknown; embedding?: unknown }, i) => {
      const index = typeof item?.index === 'number' ? item.index : i;
      vectors[index] = vectorOf(item?.embedding, `data[${i}].embedding`);
    });
    const usage = body.usage as { prompt_tokens?: unknown } | undefined;
    return { vectors, inputTokens: typeof usage?.prompt_tokens === 'number' ? usage.prompt_tokens : null };
  },

  encodeResponse(response, request, { model, inputTokens }) {
    const base64 = request.encoding === 'base64';
    return {
      body: JSON.stringify({
        object: 'list',
        data: response.vectors.map((vector, index) => ({ object: 'embedding', index, embedding: base64 ? vectorToBase64(vector) : vector })),
        model,
        usage: { prompt_tokens: inputTokens, total_tokens: inputTokens },
      }),
      headers: { 'content-type': 'application/json' },
    };
  },

  forward: (raw, _json, _origin, lane) => ({ path: '/embeddings', body: replaceTopLevelString(raw, 'model', lane.model) }),
  reportedTokens: (body) => lastIntegerMember(body, 'prompt_tokens'),
};

function tokenIds(value: unknown, path: string): number[] {
  if (!Array.isArray(value) || value.length === 0 || !value.every((v) => Number.isInteger(v) && (v as number) >= 0))
    throw invalidField(path, 'must be a non-empty array of token ids');
  return value as number[];
}
