// Client fields the IR has no slot for are listed on the request with what to do on a
// cross-protocol hop: reject (400) where dropping changes the answer, warn where it does not.
import { describe, expect, it } from 'vitest';
import { decode } from './support/translate.ts';
import { VALIDATORS, schemaErrors } from './support/validators.ts';

const messages = [{ role: 'user', content: 'Hi' }];

function unmappedOf(protocol: 'openai' | 'anthropic', body: Record<string, unknown>) {
  expect(schemaErrors(VALIDATORS[protocol].request, body)).toEqual([]);
  return decode(protocol, body).unmapped;
}

describe('OpenAI unmapped fields', () => {
  it('rejects n > 1 and logprobs, maps seed, warns on unknown fields, in body order', () => {
    expect(unmappedOf('openai', { model: 'gpt', messages, n: 2, logprobs: true, seed: 42, foo: 'bar' })).toEqual([
      { path: 'n', value: 2, disposition: 'reject', reason: 'several choices per request' },
      { path: 'logprobs', value: true, disposition: 'reject', reason: 'token log probabilities' },
      { path: 'foo', value: 'bar', disposition: 'warn', reason: 'unknown field' },
    ]);
  });

  it('says nothing about values that change nothing, or about null', () => {
    expect(
      unmappedOf('openai', {
        model: 'gpt',
        messages,
        n: 1,
        logprobs: false,
        top_logprobs: 0,
        store: false,
        frequency_penalty: 0,
        presence_penalty: 0,
        logit_bias: {},
        modalities: ['text'],
        seed: null,
      }),
    ).toEqual([]);
  });

  it('warns on a non-zero penalty and rejects audio output', () => {
    expect(
      unmappedOf('openai', { model: 'gpt', messages, presence_penalty: 0.5, modalities: ['text', 'audio'], audio: { voice: 'alloy', format: 'wav' } }),
    ).toEqual([
      { path: 'presence_penalty', value: 0.5, disposition: 'warn', reason: 'sampling penalty' },
      { path: 'modalities', value: ['text', 'audio'], disposition: 'reject', reason: 'non-text output' },
      { path: 'audio', value: { voice: 'alloy', format: 'wav' }, disposition: 'reject', reason: 'audio output' },
    ]);
  });

  it('maps every field it knows, so a plain request has none', () => {
    expect(
      unmappedOf('openai', {
        model: 'gpt',
        messages,
        stream: true,
        stream_options: { include_usage: true },
        max_completion_tokens: 5,
        stop: ['x'],
        temperature: 1,
        top_p: 1,
        user: 'u',
        safety_identifier: 's',
        parallel_tool_calls: true,
        response_format: { type: 'text' },
      }),
    ).toEqual([]);
  });
});

describe('Anthropic unmapped fields', () => {
  it('rejects a code-execution container, warns on unknown fields and thinking modes, maps thinking', () => {
    expect(
      unmappedOf('anthropic', { model: 'claude', max_tokens: 10, messages, container: 'container_011CV', thinking: { type: 'between_tools' }, foo: 1 }),
    ).toEqual([
      { path: 'container', value: 'container_011CV', disposition: 'reject', reason: 'Anthropic code-execution container' },
      { path: 'foo', value: 1, disposition: 'warn', reason: 'unknown field' },
      { path: 'thinking', value: { type: 'between_tools' }, disposition: 'warn', reason: 'thinking mode "between_tools"' },
    ]);
    expect(unmappedOf('anthropic', { model: 'claude', max_tokens: 10, messages, thinking: { type: 'disabled' } })).toEqual([]);
  });

  it('warns on an unknown output_config.effort and on citations inside text blocks, naming their paths', () => {
    const citations = [{ type: 'char_location', cited_text: 'Paris', document_index: 0, document_title: null, start_char_index: 0, end_char_index: 5 }];
    expect(
      unmappedOf('anthropic', {
        model: 'claude',
        max_tokens: 10,
        output_config: { effort: 'ludicrous' },
        messages: [messages[0], { role: 'assistant', content: [{ type: 'text', text: 'Paris.', citations }] }, messages[0]],
      }),
    ).toEqual([
      { path: 'messages[1].content[0].citations', value: citations, disposition: 'warn', reason: 'citations' },
      { path: 'output_config.effort', value: 'ludicrous', disposition: 'warn', reason: 'reasoning effort "ludicrous"' },
    ]);
  });

  it('warns on cache hints the IR cannot keep (images, tool use, tool results)', () => {
    const hint = { type: 'ephemeral' };
    expect(
      unmappedOf('anthropic', {
        model: 'claude',
        max_tokens: 10,
        messages: [
          { role: 'user', content: [{ type: 'image', source: { type: 'url', url: 'https://x/y.png' }, cache_control: hint }] },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'f', input: {}, cache_control: hint }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'ok', cache_control: hint }] },
        ],
      }),
    ).toEqual(
      ['messages[0].content[0]', 'messages[1].content[0]', 'messages[2].content[0]'].map((at) => ({
        path: `${at}.cache_control`,
        value: hint,
        disposition: 'warn',
        reason: 'prompt cache hint',
      })),
    );
  });
});
