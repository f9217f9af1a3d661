// The embeddings wire formats checked against payloads the providers really send (their API
// references and recorded notebook outputs: test/fixtures/real-embeddings/SOURCES.md): each real
// request is read by its protocol's codec; each real answer is read back; the mock upstream's
// answer to the real request, and the gateway's own answer in that protocol, have the real
// answer's shape (the same members, the same kinds of values).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { embeddingsEndpointFor, embeddingsReply } from '../../server/demo/embedding-replies.ts';
import type { EmbeddingsCodec } from '../../server/protocols/embeddings-codec.ts';
import { bedrockEmbeddings } from '../../server/protocols/bedrock/embeddings.ts';
import { cohereEmbeddings } from '../../server/protocols/cohere/embeddings.ts';
import { geminiEmbeddings } from '../../server/protocols/gemini/embeddings.ts';
import { openaiEmbeddings } from '../../server/protocols/openai/embeddings.ts';

const DIR = join(import.meta.dirname, '..', 'fixtures', 'real-embeddings');
const read = (file: string) => JSON.parse(readFileSync(join(DIR, file), 'utf8')) as Record<string, unknown>;

/** Members the providers add for information only (deprecation flags, warnings): not part of the shape. */
const INFORMATIONAL = new Set(['is_experimental', 'is_deprecated', 'warnings']);

/** A value's shape: its members and the kinds of their values, arrays by their first element. */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.length === 0 ? [] : [shape(value[0])];
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([k]) => !INFORMATIONAL.has(k))
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, v]) => [k, shape(v)]),
    );
  }
  return typeof value;
}

interface Case {
  readonly name: string;
  readonly codec: EmbeddingsCodec;
  readonly path: string;
  readonly shape?: string;
  readonly request: string;
  readonly response: string;
  readonly texts: string[];
  readonly tokens: number | null;
}

const CASES: Case[] = [
  {
    name: 'OpenAI /v1/embeddings',
    codec: openaiEmbeddings,
    path: '/v1/embeddings',
    request: 'openai/request-api-ref.json',
    response: 'openai/response-api-ref.json',
    texts: ['The food was delicious and the waiter...'],
    tokens: 8,
  },
  {
    name: 'Gemini :embedContent',
    codec: geminiEmbeddings,
    path: '/v1beta/models/gemini-embedding-001:embedContent',
    shape: 'single',
    request: 'gemini/request-cookbook-embed.json',
    response: 'gemini/response-cookbook-embed.json',
    texts: ['Hello world'],
    tokens: null,
  },
  {
    name: 'Gemini :batchEmbedContents',
    codec: geminiEmbeddings,
    path: '/v1beta/models/gemini-embedding-001:batchEmbedContents',
    shape: 'batch',
    request: 'gemini/request-cookbook-batch.json',
    response: 'gemini/response-cookbook-batch.json',
    texts: ['What is the meaning of life?', 'How much wood would a woodchuck chuck?', 'How does the brain work?'],
    tokens: null,
  },
  {
    name: 'Cohere /v2/embed',
    codec: cohereEmbeddings,
    path: '/v2/embed',
    shape: 'v2',
    request: 'cohere/request-api-ref-v2.json',
    response: 'cohere/response-api-ref-v2.json',
    texts: ['hello', 'goodbye'],
    tokens: 2,
  },
  {
    name: 'Cohere /v1/embed',
    codec: cohereEmbeddings,
    path: '/v1/embed',
    shape: 'v1',
    request: 'cohere/request-api-ref-v1.json',
    response: 'cohere/response-api-ref-v1.json',
    texts: ['hello', 'goodbye'],
    tokens: 2,
  },
];

describe.each(CASES)('$name', (c) => {
  const request = read(c.request);
  const response = read(c.response);
  const origin = c.shape === undefined ? {} : { shape: c.shape };

  it('the real request is read by the codec', () => {
    expect(c.codec.decodeRequest(request, origin).inputs).toEqual(c.texts);
  });

  it('the real answer is read back: vectors and the reported tokens', () => {
    const decoded = c.codec.decodeResponse(response, {});
    expect(decoded.vectors.length).toBeGreaterThan(0);
    expect(decoded.vectors.every((v) => v.every((x) => typeof x === 'number'))).toBe(true);
    expect(decoded.inputTokens).toBe(c.tokens);
  });

  it("the mock upstream answers the real request in the real answer's shape", () => {
    const endpoint = embeddingsEndpointFor(c.path)!;
    const reply = embeddingsReply(endpoint, request, c.path);
    expect(reply.status).toBe(200);
    expect(shape('json' in reply ? reply.json : undefined)).toEqual(shape(response));
  });

  it("the gateway's translated answer in this protocol has the real answer's shape", () => {
    const decoded = c.codec.decodeRequest(request, origin);
    const vectors = c.texts.map(() => [0.25, -0.5]);
    const encoded = c.codec.encodeResponse({ vectors, inputTokens: 3 }, decoded, { model: 'm', inputTokens: 3 });
    expect(shape(JSON.parse(encoded.body as string))).toEqual(shape(response));
  });
});

describe('Bedrock InvokeModel (the fields the AWS model-parameter pages document)', () => {
  it('Titan v2: embedding, inputTextTokenCount and embeddingsByType.float, from the mock and from the gateway', () => {
    const reply = embeddingsReply('bedrock-invoke', { inputText: 'hello' }, '/model/amazon.titan-embed-text-v2%3A0/invoke');
    expect(Object.keys('json' in reply ? (reply.json as object) : {}).sort()).toEqual(['embedding', 'embeddingsByType', 'inputTextTokenCount']);
    const request = bedrockEmbeddings.decodeRequest({ inputText: 'hello' }, {});
    const encoded = JSON.parse(
      bedrockEmbeddings.encodeResponse({ vectors: [[0.5]], inputTokens: 1 }, request, { model: 'm', inputTokens: 1 }).body as string,
    ) as object;
    expect(Object.keys(encoded).sort()).toEqual(['embedding', 'embeddingsByType', 'inputTextTokenCount']);
  });

  it('Cohere on Bedrock: embeddings, id, response_type, texts; tokens in x-amzn-bedrock-input-token-count', () => {
    const reply = embeddingsReply('bedrock-invoke', { texts: ['a'], input_type: 'search_query' }, '/model/cohere.embed-english-v3/invoke');
    expect(Object.keys('json' in reply ? (reply.json as object) : {}).sort()).toEqual(['embeddings', 'id', 'response_type', 'texts']);
    expect(reply.headers['x-amzn-bedrock-input-token-count']).toBe('1');
    expect(bedrockEmbeddings.decodeResponse({ embeddings: [[0.1]] }, { 'x-amzn-bedrock-input-token-count': '6' })).toEqual({
      vectors: [[0.1]],
      inputTokens: 6,
    });
  });
});
