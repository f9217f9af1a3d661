// The Gemini request schema takes `contents` and a turn's `parts` as one object as well as a list
// (as Google does); camel-case.ts makes lists of them, so the decoder reads both forms alike.
import { describe, expect, it } from 'vitest';
import { SCHEMAS, codec, schemaErrors } from './support.ts';

const ORIGIN = { pathModel: 'gemini-2.5-flash' };
const decode = (body: Record<string, unknown>) => {
  expect(schemaErrors(SCHEMAS.request, body)).toEqual([]);
  return codec.decodeRequest(structuredClone(body), ORIGIN);
};

describe('contents and parts given as one object', () => {
  it('decodes a single content with a single part like the one-element lists', () => {
    const listed = decode({ contents: [{ role: 'user', parts: [{ text: 'hello' }] }] });
    expect(decode({ contents: { role: 'user', parts: { text: 'hello' } } }).messages).toEqual(listed.messages);
    expect(listed.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'hello' }] }]);
  });

  it('reads a single-part system instruction and a model turn too', () => {
    const request = decode({
      systemInstruction: { parts: { text: 'be brief' } },
      contents: [
        { role: 'user', parts: { text: 'hi' } },
        { role: 'model', parts: { text: 'hello' } },
      ],
    });
    expect(request.messages.map((m) => [m.role, m.content])).toEqual([
      ['system', [{ type: 'text', text: 'be brief' }]],
      ['user', [{ type: 'text', text: 'hi' }]],
      ['assistant', [{ type: 'text', text: 'hello' }]],
    ]);
  });
});
