// Embeddings answers in each provider's real wire format, made from deterministic demo vectors:
// the demo upstream serves OpenAI's, the test mock upstream all four.
import { demoTokens, demoVector, DEMO_DIMENSIONS } from './demo-vector.ts';
import type { HttpReply } from './http-reply.ts';

type Json = Record<string, unknown>;

/** Which embeddings endpoint a path is, by suffix (any base URL prefix works). */
export type EmbeddingsEndpoint = 'openai' | 'gemini-single' | 'gemini-batch' | 'cohere-v2' | 'cohere-v1' | 'bedrock-invoke';

export function embeddingsEndpointFor(path: string): EmbeddingsEndpoint | undefined {
  const pathname = path.split('?', 1)[0] ?? '';
  if (pathname.endsWith('/embeddings')) return 'openai';
  if (pathname.endsWith(':embedContent')) return 'gemini-single';
  if (pathname.endsWith(':batchEmbedContents')) return 'gemini-batch';
  if (pathname.endsWith('/v2/embed')) return 'cohere-v2';
  if (pathname.endsWith('/v1/embed')) return 'cohere-v1';
  if (/\/model\/[^/]+\/invoke$/.test(pathname)) return 'bedrock-invoke';
  return undefined;
}

/** The answer of `endpoint` to a parsed request body (a 400 in that provider's shape when it is not one). */
export function embeddingsReply(endpoint: EmbeddingsEndpoint, body: Json, path: string): HttpReply {
  switch (endpoint) {
    case 'openai':
      return openaiReply(body);
    case 'gemini-single':
      return geminiSingle(body);
    case 'gemini-batch':
      return geminiBatch(body);
    case 'cohere-v2':
    case 'cohere-v1':
      return cohereReply(body, endpoint === 'cohere-v2');
    case 'bedrock-invoke':
      return bedrockReply(body, decodeURIComponent(/\/model\/([^/]+)\/invoke/.exec(path)?.[1] ?? ''));
  }
}

function openaiReply(body: Json): HttpReply {
  const input = body.input;
  const texts = typeof input === 'string' ? [input] : Array.isArray(input) ? input.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))) : [];
  if (texts.length === 0 || texts.some((t) => t === ''))
    return {
      status: 400,
      headers: {},
      json: {
        error: {
          message: "'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.",
          type: 'invalid_request_error',
          param: null,
          code: null,
        },
      },
    };
  const dims = typeof body.dimensions === 'number' ? body.dimensions : DEMO_DIMENSIONS;
  const base64 = body.encoding_format === 'base64';
  const tokens = texts.reduce((n, t) => n + demoTokens(t), 0);
  return {
    status: 200,
    headers: {},
    json: {
      object: 'list',
      data: texts.map((text, index) => {
        const vector = demoVector(text, dims);
        return { object: 'embedding', index, embedding: base64 ? float32Base64(vector) : vector };
      }),
      model: typeof body.model === 'string' ? body.model : 'demo-embedding',
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    },
  };
}

function geminiText(content: unknown): string | undefined {
  const parts = (content as { parts?: { text?: unknown }[] } | undefined)?.parts;
  if (!Array.isArray(parts) || parts.length === 0) return undefined;
  return parts.map((p) => (typeof p?.text === 'string' ? p.text : '')).join(' ');
}

function geminiError(message: string): HttpReply {
  return { status: 400, headers: {}, json: { error: { code: 400, message, status: 'INVALID_ARGUMENT' } } };
}

function geminiSingle(body: Json): HttpReply {
  const text = geminiText(body.content);
  if (text === undefined) return geminiError('* EmbedContentRequest.content: contents is not specified');
  const dims = typeof body.outputDimensionality === 'number' ? body.outputDimensionality : DEMO_DIMENSIONS;
  return { status: 200, headers: {}, json: { embedding: { values: demoVector(text, dims) } } };
}

function geminiBatch(body: Json): HttpReply {
  const requests = body.requests;
  if (!Array.isArray(requests) || requests.length === 0) return geminiError('* BatchEmbedContentsRequest.requests: requests is not specified');
  if (requests.length > 100) return geminiError('* BatchEmbedContentsRequest.requests: at most 100 requests can be in one batch');
  const embeddings = [];
  for (const r of requests as Json[]) {
    const text = geminiText(r.content);
    if (text === undefined) return geminiError('* BatchEmbedContentsRequest.requests[].content: contents is not specified');
    embeddings.push({ values: demoVector(text, typeof r.outputDimensionality === 'number' ? r.outputDimensionality : DEMO_DIMENSIONS) });
  }
  return { status: 200, headers: {}, json: { embeddings } };
}

function cohereReply(body: Json, v2: boolean): HttpReply {
  const texts = body.texts;
  if (!Array.isArray(texts) || texts.length === 0) return { status: 400, headers: {}, json: { message: 'invalid request: list of texts must not be empty' } };
  if (texts.length > 96)
    return { status: 400, headers: {}, json: { message: `invalid request: texts must have at most 96 elements, but got ${texts.length}` } };
  if (v2 && typeof body.input_type !== 'string')
    return { status: 400, headers: {}, json: { message: 'invalid request: input_type is required for Embed v3 and later models' } };
  const dims = typeof body.output_dimension === 'number' ? body.output_dimension : DEMO_DIMENSIONS;
  const vectors = (texts as string[]).map((t) => demoVector(t, dims));
  const tokens = (texts as string[]).reduce((n, t) => n + demoTokens(t), 0);
  const types = Array.isArray(body.embedding_types) ? (body.embedding_types as string[]) : undefined;
  const byType = v2 || types !== undefined;
  const embeddings = byType
    ? Object.fromEntries((types ?? ['float']).map((type) => [type, type === 'base64' ? vectors.map(float32Base64) : vectors]))
    : vectors;
  return {
    status: 200,
    headers: {},
    json: {
      id: 'b3c9d2a1-4f6e-4d8a-9c1b-2e7f5a6d8c90',
      embeddings,
      texts,
      meta: { api_version: { version: v2 ? '2' : '1' }, billed_units: { input_tokens: tokens } },
      // The v2 API reference's answer has no response_type; v1's says which list it holds.
      ...(!v2 && { response_type: byType ? 'embeddings_by_type' : 'embeddings_floats' }),
    },
  };
}

function bedrockReply(body: Json, modelId: string): HttpReply {
  const validation = (message: string): HttpReply => ({
    status: 400,
    headers: { 'x-amzn-errortype': 'ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/' },
    json: { message },
  });
  if (modelId.includes('titan-embed')) {
    if (typeof body.inputText !== 'string' || body.inputText === '')
      return validation('Malformed input request: #: required key [inputText] not found, please reformat your input and try again.');
    const tokens = demoTokens(body.inputText);
    return {
      status: 200,
      headers: { 'x-amzn-bedrock-input-token-count': String(tokens) },
      // Titan v2 always sends embeddingsByType (float at least), per the AWS model-parameters page.
      json: (() => {
        const vector = demoVector(body.inputText, typeof body.dimensions === 'number' ? body.dimensions : DEMO_DIMENSIONS);
        return { embedding: vector, inputTextTokenCount: tokens, embeddingsByType: { float: vector } };
      })(),
    };
  }
  if (modelId.includes('cohere.embed')) {
    const texts = body.texts;
    if (!Array.isArray(texts) || texts.length === 0)
      return validation('Malformed input request: #: required key [texts] not found, please reformat your input and try again.');
    if (typeof body.input_type !== 'string')
      return validation('Malformed input request: #: required key [input_type] not found, please reformat your input and try again.');
    if (texts.length > 96)
      return validation(
        'Malformed input request: #/texts: expected maximum item count: 96, found: ' + texts.length + ', please reformat your input and try again.',
      );
    const vectors = (texts as string[]).map((t) => demoVector(t));
    const tokens = (texts as string[]).reduce((n, t) => n + demoTokens(t), 0);
    const types = Array.isArray(body.embedding_types) ? (body.embedding_types as string[]) : undefined;
    return {
      status: 200,
      headers: { 'x-amzn-bedrock-input-token-count': String(tokens) },
      json: {
        id: '5a1c3e7b-2d4f-4b6a-8c9e-0f1a2b3c4d5e',
        texts,
        embeddings: types === undefined ? vectors : Object.fromEntries(types.map((t) => [t, vectors])),
        response_type: types === undefined ? 'embeddings_floats' : 'embeddings_by_type',
      },
    };
  }
  return validation('The provided model identifier is invalid.');
}

function float32Base64(vector: number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((v, i) => bytes.writeFloatLE(v, i * 4));
  return bytes.toString('base64');
}
