// Gemini names the model and the method in one path segment; each route reads its own method and
// leaves the others to the next route on the same pattern.
import { describe, expect, it } from 'vitest';
import { geminiChatOrigin, geminiCountTokensModel, geminiEmbedOrigin } from '../../../server/protocols/gemini/path-action.ts';

describe('Gemini `model:method` segments', () => {
  it('countTokens: the model before the last colon, and nothing for another method or a missing model', () => {
    expect(geminiCountTokensModel('gemini-2.5-flash:countTokens')).toBe('gemini-2.5-flash');
    expect(geminiCountTokensModel('tunedModels/a:b:countTokens')).toBe('tunedModels/a:b');
    expect(geminiCountTokensModel(':countTokens')).toBeUndefined();
    expect(geminiCountTokensModel('countTokens')).toBeUndefined();
    expect(geminiCountTokensModel('gemini-2.5-flash:generateContent')).toBeUndefined();
    expect(geminiCountTokensModel('gemini-2.5-flash:countTokensX')).toBeUndefined();
  });

  it('generation: the model, streaming, and the JSON-array framing unless alt=sse', () => {
    expect(geminiChatOrigin('gemini-2.5-flash:generateContent', undefined)).toEqual({ pathModel: 'gemini-2.5-flash', pathStream: false });
    expect(geminiChatOrigin('m:streamGenerateContent', 'sse')).toEqual({ pathModel: 'm', pathStream: true, jsonArrayStream: false });
    expect(geminiChatOrigin('m:streamGenerateContent', undefined)).toEqual({ pathModel: 'm', pathStream: true, jsonArrayStream: true });
    expect(geminiChatOrigin('m:countTokens', undefined)).toBeUndefined();
    expect(geminiChatOrigin(':generateContent', undefined)).toBeUndefined();
  });

  it('embeddings: one vector or a batch', () => {
    expect(geminiEmbedOrigin('text-embedding-004:embedContent')).toEqual({ pathModel: 'text-embedding-004', variant: 'single' });
    expect(geminiEmbedOrigin('text-embedding-004:batchEmbedContents')).toEqual({ pathModel: 'text-embedding-004', variant: 'batch' });
    expect(geminiEmbedOrigin('text-embedding-004:generateContent')).toBeUndefined();
  });
});
