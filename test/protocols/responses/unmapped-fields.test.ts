// Responses fields the IR has no slot for are listed on the request with what to do on a
// cross-protocol hop: reject (400) for server-side state and for what changes the answer, warn
// for storage, caching and tuning hints.
import { describe, expect, it } from 'vitest';
import type { UnmappedField } from '../../../server/ir/index.ts';
import { schemaErrors } from '../support/validators.ts';
import { SCHEMAS, codec } from './support.ts';

function unmappedOf(body: Record<string, unknown>): readonly UnmappedField[] {
  expect(schemaErrors(SCHEMAS.request, body)).toEqual([]);
  return codec.decodeRequest(structuredClone(body), {}).unmapped;
}

const base = { model: 'gpt-5.5', input: 'Hi' };
const warn = (path: string, value: unknown, reason: string): UnmappedField => ({ path, value, disposition: 'warn', reason });
const reject = (path: string, value: unknown, reason: string): UnmappedField => ({ path, value, disposition: 'reject', reason });

describe('Responses unmapped fields', () => {
  it('rejects server-side state the gateway cannot rebuild: a stored response, a conversation, background runs, stored prompts', () => {
    expect(unmappedOf({ ...base, previous_response_id: 'resp_1', conversation: 'conv_1', background: true, prompt: { id: 'pmpt_1' } })).toEqual([
      reject('previous_response_id', 'resp_1', 'a response stored at OpenAI (server-side conversation state)'),
      reject('conversation', 'conv_1', 'a conversation stored at OpenAI (server-side conversation state)'),
      reject('background', true, 'OpenAI background mode'),
      reject('prompt', { id: 'pmpt_1' }, 'a prompt template stored at OpenAI'),
    ]);
  });

  it('warns on storage, caching, reasoning and tuning hints, and on unknown fields, in body order', () => {
    expect(
      unmappedOf({
        ...base,
        store: true,
        metadata: { a: 'b' },
        include: ['reasoning.encrypted_content'],
        truncation: 'auto',
        service_tier: 'flex',
        prompt_cache_key: 'k',
        reasoning: { effort: 'ludicrous', summary: 'auto' },
        max_tool_calls: 3,
        foo: 1,
      }),
    ).toEqual([
      warn('store', true, 'OpenAI response storage'),
      warn('metadata', { a: 'b' }, 'OpenAI stored-response metadata'),
      warn('include', ['reasoning.encrypted_content'], 'extra output OpenAI adds on request'),
      warn('truncation', 'auto', 'OpenAI context truncation strategy'),
      warn('service_tier', 'flex', 'OpenAI service tier'),
      warn('prompt_cache_key', 'k', 'OpenAI prompt cache routing key'),
      warn('max_tool_calls', 3, 'a limit on OpenAI built-in tool calls'),
      warn('foo', 1, 'unknown field'),
      warn('reasoning.effort', 'ludicrous', 'reasoning effort "ludicrous"'),
    ]);
  });

  it('says nothing about values that change nothing, or about null', () => {
    expect(
      unmappedOf({
        ...base,
        store: false,
        background: false,
        include: [],
        metadata: {},
        truncation: 'disabled',
        top_logprobs: 0,
        reasoning: {},
        previous_response_id: null,
        conversation: null,
        stream_options: { include_obfuscation: false },
      }),
    ).toEqual([]);
  });

  it('rejects token log probabilities', () => {
    expect(unmappedOf({ ...base, top_logprobs: 5 })).toEqual([reject('top_logprobs', 5, 'token log probabilities')]);
  });

  it('reports nested fields the IR cannot keep, naming their paths', () => {
    expect(
      unmappedOf({
        ...base,
        input: [
          { role: 'user', content: [{ type: 'input_text', text: 'Long policy', prompt_cache_breakpoint: { mode: 'explicit' } }] },
          {
            role: 'assistant',
            phase: 'final_answer',
            content: [
              { type: 'output_text', text: 'See [1].', annotations: [{ type: 'url_citation', url: 'https://x', start_index: 4, end_index: 7, title: 'x' }] },
            ],
          },
          { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'S' }], content: [{ type: 'reasoning_text', text: 'R' }] },
        ],
        tools: [{ type: 'function', name: 'f', parameters: { type: 'object' }, strict: false, defer_loading: true }],
        text: { format: { type: 'json_schema', name: 'out', description: 'An answer', schema: { type: 'object' } }, verbosity: 'low' },
      }),
    ).toEqual([
      warn('input[0].content[0].prompt_cache_breakpoint', { mode: 'explicit' }, 'prompt cache breakpoint'),
      warn('input[1].phase', 'final_answer', 'assistant message phase'),
      warn('input[1].content[0].annotations', [{ type: 'url_citation', url: 'https://x', start_index: 4, end_index: 7, title: 'x' }], 'citations'),
      warn('input[2].content', [{ type: 'reasoning_text', text: 'R' }], 'raw reasoning text beside its summary'),
      warn('text.verbosity', 'low', 'output verbosity hint'),
      warn('tools[0].defer_loading', true, 'function tool option'),
      warn('text.format.description', 'An answer', 'schema description'),
    ]);
  });

  it('maps every field it knows, so a plain request has none', () => {
    expect(
      unmappedOf({
        ...base,
        instructions: 'Be brief.',
        stream: true,
        stream_options: { include_obfuscation: true },
        max_output_tokens: 64,
        temperature: 1,
        top_p: 1,
        user: 'u',
        safety_identifier: 's',
        parallel_tool_calls: false,
        tool_choice: 'auto',
        tools: [],
        text: { format: { type: 'text' } },
      }),
    ).toEqual([]);
  });
});
