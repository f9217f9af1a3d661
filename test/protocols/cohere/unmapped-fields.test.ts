// v2 Chat fields the IR has no slot for are listed on the request with what to do on a
// cross-protocol hop: reject (400) where dropping changes the answer, warn where it does not.
import { describe, expect, it } from 'vitest';
import type { UnmappedField } from '../../../server/ir/index.ts';
import { schemaErrors } from '../support/validators.ts';
import { SCHEMAS, codec } from './support.ts';

const messages = [{ role: 'user', content: 'Hi' }];

function unmappedOf(body: Record<string, unknown>): readonly UnmappedField[] {
  expect(schemaErrors(SCHEMAS.request, body)).toEqual([]);
  return codec.decodeRequest(structuredClone(body), {}).unmapped;
}

describe('Cohere unmapped fields', () => {
  it('rejects documents and logprobs, warns on the rest and on unknown fields, in body order', () => {
    expect(
      unmappedOf({
        model: 'command-a',
        messages,
        documents: ['The sky is blue.'],
        logprobs: true,
        citation_options: { mode: 'FAST' },
        safety_mode: 'STRICT',
        seed: 42,
        frequency_penalty: 0.4,
        presence_penalty: 0.2,
        thinking: { type: 'disabled' },
        priority: 3,
        foo: 'bar',
      }),
    ).toEqual([
      { path: 'documents', value: ['The sky is blue.'], disposition: 'reject', reason: 'documents for retrieval-augmented generation' },
      { path: 'logprobs', value: true, disposition: 'reject', reason: 'token log probabilities' },
      { path: 'citation_options', value: { mode: 'FAST' }, disposition: 'warn', reason: 'citation settings' },
      { path: 'safety_mode', value: 'STRICT', disposition: 'warn', reason: 'Cohere safety mode' },
      { path: 'frequency_penalty', value: 0.4, disposition: 'warn', reason: 'sampling penalty' },
      { path: 'presence_penalty', value: 0.2, disposition: 'warn', reason: 'sampling penalty' },
      { path: 'priority', value: 3, disposition: 'warn', reason: 'Cohere request priority' },
      { path: 'foo', value: 'bar', disposition: 'warn', reason: 'unknown field' },
    ]);
  });

  it('says nothing about values that change nothing, or about null', () => {
    expect(
      unmappedOf({
        model: 'command-a',
        messages,
        documents: [],
        logprobs: false,
        frequency_penalty: 0,
        presence_penalty: 0,
        priority: 0,
        seed: null,
        safety_mode: null,
      }),
    ).toEqual([]);
  });

  it('maps every field it knows, so a plain request has none', () => {
    expect(
      unmappedOf({
        model: 'command-a',
        messages,
        stream: true,
        max_tokens: 5,
        stop_sequences: ['x'],
        temperature: 1,
        p: 0.5,
        k: 0,
        tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
        strict_tools: false,
        tool_choice: 'NONE',
        response_format: { type: 'text' },
      }),
    ).toEqual([]);
  });

  it('warns on citations of an earlier answer and on tool-result documents, naming their paths', () => {
    const citations = [{ start: 0, end: 5, text: 'Paris', sources: [{ type: 'document', id: 'doc-1' }] }];
    const document = { id: 'doc-1', data: { city: 'Paris' } };
    expect(
      unmappedOf({
        model: 'command-a',
        messages: [
          messages[0],
          { role: 'assistant', content: 'Paris.', citations },
          {
            role: 'tool',
            tool_call_id: 'call_1',
            content: [
              { type: 'text', text: 'ok' },
              { type: 'document', document },
            ],
          },
        ],
      }),
    ).toEqual([
      { path: 'messages[1].citations', value: citations, disposition: 'warn', reason: 'citations' },
      {
        path: 'messages[2].content[1].document',
        value: document,
        disposition: 'warn',
        reason: 'citable document form of a tool result (its data is sent as JSON text)',
      },
    ]);
  });
});
