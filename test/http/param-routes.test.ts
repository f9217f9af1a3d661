// The fast path's routes with parameters in the path (http/param-routes.ts): each Gemini and
// Bedrock route the registry declares is found with what its path and query say, in the router's
// order, and anything the Koa router would read differently is left to it (undefined).
import { describe, expect, it } from 'vitest';
import { OPERATION_HANDLERS } from '../../server/http/operation-handlers.ts';
import { ParamRoutes } from '../../server/http/param-routes.ts';

const routes = new ParamRoutes();

describe('ParamRoutes', () => {
  it("serves Gemini's generation, counting and embedding methods in both API versions", () => {
    for (const version of ['v1beta', 'v1']) {
      expect(routes.match(`/${version}/models/gemini-2.5-pro:generateContent`, '')).toEqual({
        protocol: 'gemini',
        serve: OPERATION_HANDLERS.chat,
        origin: { pathModel: 'gemini-2.5-pro', pathStream: false },
      });
      expect(routes.match(`/${version}/models/gemini-2.5-pro:streamGenerateContent`, 'alt=sse')?.origin).toEqual({
        pathModel: 'gemini-2.5-pro',
        pathStream: true,
        jsonArrayStream: false,
      });
      expect(routes.match(`/${version}/models/gemini-2.5-pro:streamGenerateContent`, '')?.origin).toMatchObject({ jsonArrayStream: true });
      expect(routes.match(`/${version}/models/gemini-2.5-pro:countTokens`, '')).toMatchObject({
        serve: OPERATION_HANDLERS.count_tokens,
        origin: { pathModel: 'gemini-2.5-pro' },
      });
      expect(routes.match(`/${version}/models/text-embedding-004:batchEmbedContents`, 'key=k')).toMatchObject({
        serve: OPERATION_HANDLERS.embeddings,
        origin: { pathModel: 'text-embedding-004', variant: 'batch' },
      });
    }
  });

  it("serves Bedrock's converse, converse-stream and invoke with the model id percent-decoded", () => {
    const arn = 'arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-sonnet-4';
    expect(routes.match(`/model/${encodeURIComponent(arn)}/converse`, '')).toMatchObject({
      protocol: 'bedrock',
      serve: OPERATION_HANDLERS.chat,
      origin: { pathModel: arn, pathStream: false },
    });
    expect(routes.match('/model/anthropic.claude-3-haiku/converse-stream', '')?.origin).toMatchObject({
      pathModel: 'anthropic.claude-3-haiku',
      pathStream: true,
    });
    expect(routes.match('/model/amazon.titan-embed-text-v2/invoke', '')?.serve).toBe(OPERATION_HANDLERS.embeddings);
    expect(routes.match('/model/bad%E0%A4%A/converse', '')?.origin).toMatchObject({ pathModel: 'bad%E0%A4%A' }); // does not decode: as it came
  });

  it('leaves to the router what it would answer otherwise: another method, shape, case or an empty segment', () => {
    for (const path of [
      '/v1beta/models/gemini-2.5-pro:unknownMethod',
      '/v1beta/models/gemini-2.5-pro',
      '/v1beta/models/gemini-2.5-pro:generateContent/',
      '/V1BETA/models/gemini-2.5-pro:generateContent',
      '/v1beta/models/',
      '/model//converse',
      '/model/m/converse/extra',
      '/v1/chat/completions',
    ])
      expect(routes.match(path, ''), path).toBeUndefined();
  });
});
