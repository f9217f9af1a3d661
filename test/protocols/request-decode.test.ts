// Request decoding details the golden fixtures do not pin down.
import { describe, expect, it } from 'vitest';
import { codecOf } from './support/codecs.ts';
import { decode, failureOf } from './support/translate.ts';

const messages = [{ role: 'user', content: 'Hi' }];

describe('OpenAI decodeRequest', () => {
  it('reads a string `stop` as one stop sequence', () => {
    expect(decode('openai', { model: 'gpt', messages, stop: 'END' }).stopSequences).toEqual(['END']);
  });

  it('prefers max_completion_tokens over the deprecated max_tokens', () => {
    expect(decode('openai', { model: 'gpt', messages, max_tokens: 10, max_completion_tokens: 20 }).maxTokens).toBe(20);
  });

  it('prefers safety_identifier over the deprecated user', () => {
    expect(decode('openai', { model: 'gpt', messages, user: 'old', safety_identifier: 'new' }).user).toBe('new');
  });

  it('keeps an assistant refusal in the history as text', () => {
    const request = decode('openai', { model: 'gpt', messages: [...messages, { role: 'assistant', content: null, refusal: 'I cannot help.' }] });
    expect(request.messages[1]).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'I cannot help.' }] });
  });

  it('rejects the deprecated function role and unknown content parts with a 400 naming the field', () => {
    expect(failureOf(() => decode('openai', { model: 'gpt', messages: [{ role: 'function', name: 'f', content: 'x' }] }))).toMatchObject({
      kind: 'invalid_request',
      status: 400,
      param: 'messages[0].role',
    });
    expect(
      failureOf(() =>
        decode('openai', { model: 'gpt', messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } }] }] }),
      ),
    ).toMatchObject({ kind: 'invalid_request', status: 400, param: 'messages[0].content[0].type', code: 'unsupported_parameter' });
  });
});

describe('Anthropic decodeRequest', () => {
  it('takes the model from the path when the route names one', () => {
    expect(codecOf('anthropic').decodeRequest({ model: 'claude-body', max_tokens: 10, messages }, { pathModel: 'claude-path' }).model).toBe('claude-path');
    expect(codecOf('anthropic').decodeRequest({ model: 'claude-body', max_tokens: 10, messages }, {}).model).toBe('claude-body');
  });

  it('reads disable_parallel_tool_use as parallelToolCalls false', () => {
    const request = decode('anthropic', {
      model: 'c',
      max_tokens: 10,
      messages,
      tools: [{ name: 'f', input_schema: { type: 'object' } }],
      tool_choice: { type: 'auto', disable_parallel_tool_use: true },
    });
    expect(request).toMatchObject({ toolChoice: { type: 'auto' }, parallelToolCalls: false });
  });

  it('rejects server tools and file-bound images with a 400 naming the field', () => {
    expect(
      failureOf(() => decode('anthropic', { model: 'c', max_tokens: 10, messages, tools: [{ type: 'web_search_20250305', name: 'web_search' }] })),
    ).toMatchObject({ status: 400, param: 'tools[0].type', code: 'unsupported_parameter' });
    expect(
      failureOf(() =>
        decode('anthropic', {
          model: 'c',
          max_tokens: 10,
          messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'file', file_id: 'file_011CN' } }] }],
        }),
      ),
    ).toMatchObject({ status: 400, param: 'messages[0].content[0].source.type' });
  });
});
