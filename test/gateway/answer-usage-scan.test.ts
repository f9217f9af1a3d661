// The byte walk that reads a same-protocol answer's usage must give what the parse gives
// (decodeResponse of JSON.parse), or say it is not sure: on every real and golden OpenAI and
// Anthropic answer, on every cut and many byte changes of them, and on hand-made edge cases.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { scanAnswer } from '../../server/gateway/answer-usage-scan.ts';
import type { ProtocolId } from '../../server/ir/index.ts';
import { codecFor } from '../../server/protocols/registry.ts';

const ROOT = new URL('../fixtures/', import.meta.url);
const PROTOCOLS = ['openai', 'anthropic'] as const;

function realAnswers(protocol: ProtocolId): { name: string; bytes: Buffer }[] {
  const dir = new URL(`real/${protocol}/responses/`, ROOT);
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => ({ name: `real/${f}`, bytes: readFileSync(new URL(f, dir)) }));
}

function goldenAnswers(protocol: ProtocolId): { name: string; bytes: Buffer }[] {
  return readdirSync(new URL(`${protocol}/`, ROOT), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) => {
      try {
        return [{ name: d.name, bytes: readFileSync(new URL(`${protocol}/${d.name}/response.wire.json`, ROOT)) }];
      } catch {
        return [];
      }
    });
}

/** What the gateway took before: decodeResponse of the parsed answer, or nothing when that threw. */
function parsed(protocol: ProtocolId, bytes: Buffer): { usage: unknown; finishReason: unknown } | 'throws' {
  try {
    const response = codecFor(protocol)!.decodeResponse(JSON.parse(bytes.toString('utf8')) as Record<string, unknown>);
    return { usage: response.usage, finishReason: response.finish.reason };
  } catch {
    return 'throws';
  }
}

/** The walk agrees with the parse, or is not sure; returns whether it was sure. */
function agrees(protocol: ProtocolId, bytes: Buffer): boolean {
  const scanned = scanAnswer(protocol, bytes);
  if (scanned === undefined) return false;
  expect({ usage: scanned.usage, finishReason: scanned.finishReason }, bytes.toString('utf8')).toEqual(parsed(protocol, bytes));
  return true;
}

for (const protocol of PROTOCOLS) {
  const answers = [...realAnswers(protocol), ...goldenAnswers(protocol)];

  describe(`${protocol} answers`, () => {
    it('has real answers to read', () => {
      expect(answers.length).toBeGreaterThan(5);
    });

    it.each(answers)('$name: the same usage and finish reason as the parse', ({ bytes }) => {
      const sure = agrees(protocol, bytes);
      const json = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
      // Every real answer without tool calls (left to the parse) is read by the walk; error
      // bodies (which decodeResponse throws on) are not.
      const calls = JSON.stringify(json).includes('"tool_calls":[{');
      if (!calls && parsed(protocol, bytes) !== 'throws') expect(sure).toBe(true);
    });

    it.each(answers)('$name: compact and re-indented', ({ bytes }) => {
      const json: unknown = JSON.parse(bytes.toString('utf8'));
      for (const text of [JSON.stringify(json), JSON.stringify(json, null, '\t'), ` \r\n${JSON.stringify(json, null, 1)}\n\n`])
        agrees(protocol, Buffer.from(text));
    });

    it.each(answers)('$name: cut anywhere, never sure of a broken document', ({ bytes }) => {
      const step = Math.max(1, Math.floor(bytes.length / 1500));
      for (let end = 0; end < bytes.length; end += end < 64 || bytes.length - end < 64 ? 1 : step) {
        const cut = bytes.subarray(0, end);
        if (parsed(protocol, cut) === 'throws') expect(scanAnswer(protocol, cut)).toBeUndefined();
        else agrees(protocol, cut); // a cut in trailing whitespace
      }
    });

    it.each(answers)('$name: any one byte changed to a JSON-significant one', ({ bytes }) => {
      const replacements = [0x22, 0x5c, 0x2c, 0x3a, 0x7b, 0x7d, 0x5b, 0x5d, 0x30, 0x31, 0x2d, 0x2e, 0x65, 0x6e, 0x20, 0x0a, 0x01, 0xff];
      const step = Math.max(3, Math.floor(bytes.length / 1500));
      for (let i = 0; i < bytes.length; i += step) {
        const replacement = replacements[i % replacements.length]!;
        const changed = Buffer.from(bytes);
        changed[i] = replacement;
        agrees(protocol, changed);
      }
    });
  });
}

const openai = (fields: string) =>
  Buffer.from(
    `{"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],${fields}}`,
  );
const anthropic = (fields: string) =>
  Buffer.from(`{"id":"x","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"hi"}],"stop_reason":"end_turn",${fields}}`);

describe('edge cases', () => {
  it('reads every count, cache and reasoning tokens included', () => {
    const o = scanAnswer(
      'openai',
      openai(
        '"usage":{"prompt_tokens":1200,"completion_tokens":340,"total_tokens":1540,"prompt_tokens_details":{"cached_tokens":1024,"audio_tokens":0,"cache_write_tokens":7},"completion_tokens_details":{"reasoning_tokens":128}}',
      ),
    );
    expect(o).toEqual({
      usage: { inputTokens: 1200, outputTokens: 340, cacheReadTokens: 1024, cacheWriteTokens: 7, reasoningTokens: 128 },
      finishReason: 'stop',
    });
    const a = scanAnswer(
      'anthropic',
      anthropic(
        '"usage":{"input_tokens":10,"cache_creation_input_tokens":20,"cache_read_input_tokens":30,"output_tokens":40,"output_tokens_details":{"thinking_tokens":5},"service_tier":"standard","server_tool_use":{"web_search_requests":1}}',
      ),
    );
    expect(a).toEqual({ usage: { inputTokens: 60, outputTokens: 40, cacheReadTokens: 30, cacheWriteTokens: 20, reasoningTokens: 5 }, finishReason: 'stop' });
  });

  const openaiCases = [
    '"usage":null',
    '"usage":{}',
    '"usage":{"prompt_tokens":null,"completion_tokens":3}',
    '"usage":{"prompt_tokens":1,"prompt_tokens_details":null,"completion_tokens_details":null}',
    '"usage":{"prompt_tokens":1.5,"completion_tokens":3}',
    '"usage":{"prompt_tokens":1e3,"completion_tokens":3}',
    '"usage":{"prompt_tokens":-1,"completion_tokens":3}',
    '"usage":{"prompt_tokens":"12","completion_tokens":3}',
    '"usage":{"prompt_tokens":true}',
    '"usage":{"prompt_tokens":12345678901234567890}',
    '"usage":{"prompt_tokens":012}',
    '"usage":{"prompt_tokens":1,"prompt_tokens":2}',
    '"usage":{"prompt_tokens":1},"usage":{"prompt_tokens":2}',
    '"usage":{"prompt_tokens_details":{"cached_tokens":1,"cached_tokens":2}}',
    '"usage":{"prompt_tokens_details":5}',
    '"usage":{"prompt_\\u0074okens":5}',
    '"usag\\u0065":{"prompt_tokens":5}',
    '"usage":0',
    '"usage":[]',
    '"usage":"none"',
    '"usage":{"prompt_tokens":1,}',
    '"usage":{"prompt_tokens":1}}',
    '"usage":{"prompt_tokens":1} x',
    '"usage":{"prompt_tokens":1},"note":"tab\there"',
    '"usage":{"prompt_tokens":1},"note":"\\x"',
    '"usage":{"prompt_tokens":1},"note":"\\u00e9\\n\\"ok\\""',
    '"usage":{"prompt_tokens":1},"logprobs":[1,-2.5e-3,true,false,null,{"a":[[]]}]',
    '"usage":{"prompt_tokens":1},"choices":[]',
  ];
  it.each(openaiCases)('openai %s', (fields) => {
    agrees('openai', openai(fields));
  });

  const choices = [
    '[]',
    '[null]',
    '{}',
    '"abc"',
    '[{"message":null,"finish_reason":"length"}]',
    '[{"message":{"refusal":"no"},"finish_reason":"stop"}]',
    '[{"message":{"refusal":""},"finish_reason":"stop"}]',
    '[{"message":{"refusal":null},"finish_reason":null}]',
    '[{"message":{"refusal":5},"finish_reason":"tool_calls"}]',
    '[{"message":{"tool_calls":[]},"finish_reason":"stop"}]',
    '[{"message":{"tool_calls":null},"finish_reason":"stop"}]',
    '[{"message":{"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]},"finish_reason":"tool_calls"}]',
    '[{"message":{"tool_calls":[{"id":"c","type":"custom"}]},"finish_reason":"tool_calls"}]',
    '[{"message":"text","finish_reason":"stop"}]',
    '[{"finish_reason":"st\\u006fp"}]',
    '[{"finish_reason":"constructor"}]',
    '[{"finish_reason":"content_filter"},{"finish_reason":"length"}]',
    '[{"finish_reason":"stop","finish_reason":"length"}]',
    '[{"finish_reason":7}]',
  ];
  it.each(choices)('openai choices %s', (list) => {
    agrees('openai', Buffer.from(`{"choices":${list},"usage":{"prompt_tokens":2,"completion_tokens":1}}`));
  });

  it('openai without choices is left to the parse (which throws)', () => {
    expect(scanAnswer('openai', Buffer.from('{"usage":{"prompt_tokens":2}}'))).toBeUndefined();
  });

  const anthropicCases = [
    '"usage":{"input_tokens":3,"output_tokens":4}',
    '"usage":null',
    '"usage":{"input_tokens":3,"output_tokens_details":null}',
    '"usage":{"input_tokens":3,"input_tokens":4}',
    '"usage":{"cache_read_input_tokens":"3"}',
  ];
  it.each(anthropicCases)('anthropic %s', (fields) => {
    agrees('anthropic', anthropic(fields));
  });

  const anthropicShapes = [
    '{"content":[],"stop_reason":"max_tokens","usage":{"input_tokens":1}}',
    '{"content":[{"type":"tool_use","id":"t","name":"f","input":{"a":[1,{"b":null}]}}],"stop_reason":"tool_use","usage":{"input_tokens":1}}',
    '{"content":[null],"stop_reason":"end_turn","usage":{"input_tokens":1}}',
    '{"content":"text","stop_reason":"end_turn","usage":{"input_tokens":1}}',
    '{"stop_reason":"end_turn","usage":{"input_tokens":1}}',
    '{"content":[],"stop_reason":null,"stop_sequence":"END","usage":{"input_tokens":1}}',
    '{"content":[],"usage":{"input_tokens":1}}',
    '{"content":[],"stop_reason":"refusal","usage":{"input_tokens":1}}',
    '{"content":[],"stop_reason":"end_turn","stop_reason":"max_tokens"}',
  ];
  it.each(anthropicShapes)('anthropic %s', (text) => {
    agrees('anthropic', Buffer.from(text));
  });

  it('other protocols are left to the parse', () => {
    expect(scanAnswer('responses', openai('"usage":null'))).toBeUndefined();
    expect(scanAnswer('gemini', Buffer.from('{}'))).toBeUndefined();
  });

  it('nesting deeper than the stack is left to the parse', () => {
    const deep = `{"choices":[],"x":${'['.repeat(200_000)}${']'.repeat(200_000)}}`;
    expect(scanAnswer('openai', Buffer.from(deep))).toBeUndefined();
  });

  it('non-ASCII bytes only inside strings', () => {
    agrees('openai', Buffer.from('{"choices":[],"note":"caf\u00e9 \ud83d\ude00"}'));
    agrees('openai', Buffer.concat([Buffer.from('{"choices":[],"note":"'), Buffer.from([0xff, 0xc3]), Buffer.from('"}')]));
    expect(scanAnswer('openai', Buffer.concat([Buffer.from('{"choices":[]'), Buffer.from([0xc2, 0xa0]), Buffer.from('}')]))).toBeUndefined();
  });
});
