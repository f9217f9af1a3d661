// The embeddings codecs' own rules, below the SDK tests: base64 as little-endian float32, the usage
// scan without a parse, batch split and merge, and the answer shapes each client variant gets.
import { describe, expect, it } from 'vitest';
import { mergeBatches, splitBatches } from '../../server/operations/embeddings/embeddings-batches.ts';
import { bedrockEmbeddings } from '../../server/protocols/bedrock/embeddings.ts';
import { cohereEmbeddings } from '../../server/protocols/cohere/embeddings.ts';
import { lastIntegerMember, vectorFromBase64, vectorToBase64 } from '../../server/protocols/shared/embedding-vectors.ts';

const lane = { model: 'm', inputType: 'search_document' } as const;

describe('vectors', () => {
  it('base64 is little-endian float32, as OpenAI sends it', () => {
    expect(vectorToBase64([1, -2])).toBe(Buffer.from([0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x00, 0xc0]).toString('base64'));
    expect(vectorFromBase64(vectorToBase64([0.5, -0.25, 3]))).toEqual([0.5, -0.25, 3]);
  });

  it("usage is read from the answer's last occurrence of the member, without parsing", () => {
    expect(lastIntegerMember(Buffer.from('{"data":[{"prompt_tokens":"x"}],"usage":{"prompt_tokens": 42,"total_tokens":42}}'), 'prompt_tokens')).toBe(42);
    expect(lastIntegerMember(Buffer.from('{"embedding":{"values":[1]}}'), 'promptTokenCount')).toBeUndefined();
  });

  it('an answer in the pieces it was read in gives what it gives joined, wherever the cuts fall', () => {
    const vectors = Array.from(
      { length: 8 },
      (_, i) => `{"object":"embedding","index":${i},"embedding":[${Array.from({ length: 200 }, (_, j) => ((i * j) % 97) / 97).join(',')}]}`,
    );
    const answers = [
      `{"object":"list","data":[${vectors.join(',')}],"model":"m","usage":{"prompt_tokens": 1234,"total_tokens":1234}}`,
      `{"meta":{"billed_units":{"prompt_tokens":77}},"data":[${vectors.join(',')}]}`, // usage first: not in the tail
      `{"data":[${vectors.join(',')}]}`, // none
      '{"usage":{"prompt_tokens":5}}',
    ].map((a) => Buffer.from(a));
    for (const bytes of answers) {
      const whole = lastIntegerMember(bytes, 'prompt_tokens');
      for (let cut = 1; cut < bytes.length; cut += cut < 40 || cut > bytes.length - 5000 ? 1 : 97) {
        const pieces = [bytes.subarray(0, cut), bytes.subarray(cut, cut + 3), bytes.subarray(cut + 3)].filter((p) => p.length > 0);
        expect(lastIntegerMember(pieces, 'prompt_tokens'), `cut at ${cut}`).toBe(whole);
      }
    }
  });
});

describe('batches', () => {
  it('split to the limit in order, merged back with tokens summed; unknown if any batch did not say', () => {
    const request = { inputs: ['a', 'b', 'c', 'd', 'e'], encoding: 'float' } as const;
    expect(splitBatches(request, 2).map((r) => r.inputs)).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
    expect(
      mergeBatches([
        { vectors: [[1]], inputTokens: 2 },
        { vectors: [[2]], inputTokens: 3 },
      ]),
    ).toEqual({ vectors: [[1], [2]], inputTokens: 5 });
    expect(
      mergeBatches([
        { vectors: [[1]], inputTokens: 2 },
        { vectors: [[2]], inputTokens: null },
      ]).inputTokens,
    ).toBeNull();
  });
});

describe('answer shapes per client variant', () => {
  const vectors = [[0.5, -0.5]];
  const answer = (codec: typeof cohereEmbeddings, body: Record<string, unknown>, shape?: string) =>
    JSON.parse(
      codec.encodeResponse({ vectors, inputTokens: 4 }, codec.decodeRequest(body, shape === undefined ? {} : { shape }), { model: 'm', inputTokens: 4 })
        .body as string,
    ) as Record<string, unknown>;

  it('Cohere v1: a plain list without embedding_types, by type with them; v2: always by type, no response_type', () => {
    expect(answer(cohereEmbeddings, { model: 'm', texts: ['a'] }, 'v1')).toMatchObject({
      embeddings: vectors,
      response_type: 'embeddings_floats',
      meta: { api_version: { version: '1' } },
    });
    expect(answer(cohereEmbeddings, { model: 'm', texts: ['a'], embedding_types: ['float'] }, 'v1')).toMatchObject({
      embeddings: { float: vectors },
      response_type: 'embeddings_by_type',
    });
    const v2 = answer(cohereEmbeddings, { model: 'm', texts: ['a'], input_type: 'search_query', embedding_types: ['base64'] }, 'v2');
    expect(v2).toMatchObject({ embeddings: { base64: [vectorToBase64(vectors[0]!)] }, meta: { billed_units: { input_tokens: 4 } } });
    expect(v2).not.toHaveProperty('response_type');
  });

  it('Bedrock: a Cohere body answered a plain list or by type as it asked; a Titan body with embeddingsByType', () => {
    expect(answer(bedrockEmbeddings, { texts: ['a'], input_type: 'search_query' })).toMatchObject({ embeddings: vectors, response_type: 'embeddings_floats' });
    expect(answer(bedrockEmbeddings, { texts: ['a'], input_type: 'search_query', embedding_types: ['float'] })).toMatchObject({
      embeddings: { float: vectors },
      response_type: 'embeddings_by_type',
    });
    expect(answer(bedrockEmbeddings, { inputText: 'a' })).toEqual({ embedding: vectors[0], inputTextTokenCount: 4, embeddingsByType: { float: vectors[0] } });
  });

  it("a Cohere lane gets the operator's input type when the request has none, and floats asked by type", () => {
    const request = bedrockEmbeddings.decodeRequest({ inputText: 'a' }, {});
    expect(JSON.parse(cohereEmbeddings.encodeRequest(request, lane).call.body as string)).toEqual({
      model: 'm',
      texts: ['a'],
      input_type: 'search_document',
      embedding_types: ['float'],
    });
    expect(JSON.parse(bedrockEmbeddings.encodeRequest(request, { model: 'cohere.embed-english-v3', inputType: 'clustering' }).call.body as string)).toEqual({
      texts: ['a'],
      input_type: 'clustering',
    });
  });
});
