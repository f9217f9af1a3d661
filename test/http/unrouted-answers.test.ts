// Routes outside the protocol families answer in the shape the client most likely reads, and
// Gemini's streaming route without alt=sse answers one JSON array.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guessProtocol } from '../../server/http/guess-protocol.ts';
import { geminiChatOrigin } from '../../server/protocols/gemini/path-action.ts';
import { startHarness, type Harness } from '../support/gateway-harness.ts';

describe('guessProtocol', () => {
  it.each([
    ['/v1/messages/count_tokens', {}, 'anthropic'],
    ['/v1/whatever', { 'anthropic-version': '2023-06-01' }, 'anthropic'],
    ['/v1beta/models/x:countTokens', {}, 'gemini'],
    ['/v1/models/x:streamGenerateContent', {}, 'gemini'],
    ['/model/x/invoke', {}, 'bedrock'],
    ['/v2/embed', {}, 'cohere'],
    ['/v1/responses/resp_1', {}, 'responses'],
    ['/v1/embeddings', {}, 'openai'],
    // A protocol's own path outweighs a stray header (found by the fuzz suite).
    ['/model/x/converse', { 'anthropic-version': '2023-06-01' }, 'bedrock'],
    ['/v1beta/models/:generateContent', { 'anthropic-version': '2023-06-01' }, 'gemini'],
  ] as const)('%s -> %s', (path, headers, expected) => {
    expect(guessProtocol(path, headers)).toBe(expected);
  });
});

describe('geminiChatOrigin', () => {
  it('reads model and method from one segment, the framing from alt', () => {
    expect(geminiChatOrigin('gemini-2.5-pro:generateContent', undefined)).toEqual({ pathModel: 'gemini-2.5-pro', pathStream: false });
    expect(geminiChatOrigin('tunedModels/x:streamGenerateContent', 'sse')).toEqual({ pathModel: 'tunedModels/x', pathStream: true, jsonArrayStream: false });
    expect(geminiChatOrigin('m:streamGenerateContent', undefined)).toEqual({ pathModel: 'm', pathStream: true, jsonArrayStream: true });
    expect(geminiChatOrigin('m:countTokens', undefined)).toBeUndefined();
    expect(geminiChatOrigin('no-method', undefined)).toBeUndefined();
  });
});

describe('data plane', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  it('answers an unknown Gemini method with a 404 in the Gemini error shape', async () => {
    const res = await fetch(`${h.url}/v1beta/models/gpt:predict`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { status: string } }).error.status).toBe('NOT_FOUND');
  });

  it('streams to a Gemini client without alt=sse as one JSON array of chunks', async () => {
    const res = await fetch(`${h.url}/v1beta/models/gpt:streamGenerateContent`, {
      method: 'POST',
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'array please' }] }] }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const chunks = JSON.parse(await res.text()) as { candidates?: { content?: { parts?: { text?: string }[] } }[] }[];
    expect(Array.isArray(chunks)).toBe(true);
    const text = chunks
      .flatMap((c) => c.candidates?.[0]?.content?.parts ?? [])
      .map((p) => p.text ?? '')
      .join('');
    expect(text).toBe('Demo reply to: "array please"');
  });
});
