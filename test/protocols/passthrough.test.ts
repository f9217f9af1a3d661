// The same-protocol fast path rewrites only the bytes of the top-level `model` value.
import { describe, expect, it } from 'vitest';
import { findTopLevelValue, replaceTopLevelString, setMemberNumber } from '../../server/protocols/passthrough.ts';
import { JsonTextGenerator } from './support/random-json.ts';

const rewrite = (json: string, value = 'claude-sonnet-4-5') => replaceTopLevelString(Buffer.from(json), 'model', value).toString('utf8');

describe('replaceTopLevelString', () => {
  it('replaces only the value bytes of the top-level model', () => {
    expect(rewrite('{"model":"gpt","messages":[{"role":"user","content":"hi"}]}')).toBe(
      '{"model":"claude-sonnet-4-5","messages":[{"role":"user","content":"hi"}]}',
    );
  });

  it('leaves nested "model" keys and "model" text inside strings untouched', () => {
    const json =
      '{"metadata":{"model":"keep-1"},"messages":[{"model":"keep-2","content":"\\"model\\":\\"keep-3\\""}],"model":"gpt","tools":[{"model":{"model":"keep-4"}}]}';
    expect(rewrite(json)).toBe(json.replace('"model":"gpt"', '"model":"claude-sonnet-4-5"'));
  });

  it('leaves the body as it is when only nested model keys exist', () => {
    expect(rewrite('{"metadata":{"model":"keep"}}')).toBe('{"metadata":{"model":"keep"}}');
  });

  it('recognises an escaped key that means "model", and not keys that merely look like it', () => {
    expect(rewrite('{"mod\\u0065l":"gpt"}')).toBe('{"mod\\u0065l":"claude-sonnet-4-5"}');
    expect(rewrite('{"\\u006d\\u006f\\u0064\\u0065\\u006c" : "gpt" , "n":1}')).toBe('{"\\u006d\\u006f\\u0064\\u0065\\u006c" : "claude-sonnet-4-5" , "n":1}');
    // `model\` and `Model` are other keys: nothing is replaced or added.
    expect(rewrite('{"model\\\\":"a","Model":"b"}')).toBe('{"model\\\\":"a","Model":"b"}');
  });

  it('keeps whitespace, line ends and key order exactly', () => {
    const json = '\r\n {\n\t"stream" : true ,\r\n\t"model"\t:\t"gpt-4.1"  ,\n\t"messages": [ ]\n}\n';
    expect(rewrite(json)).toBe(json.replace('"gpt-4.1"', '"claude-sonnet-4-5"'));
  });

  it('rewrites the last of duplicate top-level members, as JSON.parse reads the last one', () => {
    const out = rewrite('{"model":"first","x":1,"model":"second"}');
    expect(out).toBe('{"model":"first","x":1,"model":"claude-sonnet-4-5"}');
    expect(JSON.parse(out).model).toBe('claude-sonnet-4-5');
  });

  it('never inserts the member: a body without one is returned byte for byte', () => {
    for (const json of ['{"messages":[]}', '{}', '{ \n }', '  {\n  "a": 1\n}', '{"contents":[{"parts":[{"text":"model"}]}]}']) {
      expect(rewrite(json), json).toBe(json);
    }
  });

  it('replaces a model value of any JSON type, including strings with escapes and unicode', () => {
    for (const old of ['null', '42', '-1.5e3', 'true', '{"a":[1,{"b":"}"}]}', '["x","]"]', '"a\\\\"', '"say \\"hi\\""', '"\\u00e9模型😀"']) {
      expect(rewrite(`{"model":${old},"n":1}`), old).toBe('{"model":"claude-sonnet-4-5","n":1}');
    }
  });

  it('writes unicode and special characters in the new value as valid JSON', () => {
    for (const value of ['模型-😀-é', 'quote " and backslash \\', 'line\nbreak', '']) {
      const out = rewrite('{"model":"gpt"}', value);
      expect(out).toBe(`{"model":${JSON.stringify(value)}}`);
      expect(JSON.parse(out)).toEqual({ model: value });
    }
  });
});

describe('findTopLevelValue', () => {
  it('gives the byte span of the value, counting multi-byte characters as bytes', () => {
    const body = Buffer.from('{"é模":"x", "model" : "gpt"}');
    const span = findTopLevelValue(body, 'model');
    expect(span).toEqual({ start: 24, end: 29 }); // é is 2 bytes, 模 is 3
    expect(body.subarray(span!.start, span!.end).toString()).toBe('"gpt"');
  });

  it('is undefined when the key is absent, only nested, or the body is not an object', () => {
    expect(findTopLevelValue(Buffer.from('{"a":{"model":"x"}}'), 'model')).toBeUndefined();
    expect(findTopLevelValue(Buffer.from('{}'), 'model')).toBeUndefined();
    expect(findTopLevelValue(Buffer.from('[{"model":"x"}]'), 'model')).toBeUndefined();
  });
});

describe('replaceTopLevelString on generated JSON (property)', () => {
  const CASES = 400;
  const NEW = 'lane-模型-😀 "q"';

  it(`parses to the original with only an existing model changed, and keeps every other byte, for ${CASES} documents`, () => {
    let absent = 0;
    let replaced = 0;
    let duplicates = 0;
    for (let seed = 1; seed <= CASES; seed++) {
      const text = new JsonTextGenerator(seed).document();
      const where = `seed ${seed}: ${JSON.stringify(text)}`;
      const original = Buffer.from(text);
      const parsed = JSON.parse(text) as Record<string, unknown>;
      const out = replaceTopLevelString(original, 'model', NEW);

      const encoded = Buffer.from(JSON.stringify(NEW));
      const span = findTopLevelValue(original, 'model');
      if (span === undefined) {
        absent++;
        expect(Object.hasOwn(parsed, 'model'), where).toBe(false);
        expect(out.equals(original), where).toBe(true);
      } else {
        expect(JSON.parse(out.toString('utf8')), where).toEqual({ ...parsed, model: NEW });
        replaced++;
        if (text.split('model').length > 2) duplicates++;
        // The span is exactly the value JSON.parse reads for model ...
        expect(JSON.parse(original.subarray(span.start, span.end).toString('utf8')), where).toEqual(parsed.model);
        // ... and nothing outside it changed.
        expect(out.subarray(0, span.start).equals(original.subarray(0, span.start)), where).toBe(true);
        expect(out.subarray(span.start, span.start + encoded.length).equals(encoded), where).toBe(true);
        expect(out.subarray(span.start + encoded.length).equals(original.subarray(span.end)), where).toBe(true);
      }
    }
    // The generator must exercise both paths and nested or duplicate model keys, or the property proves little.
    expect(absent).toBeGreaterThan(CASES / 10);
    expect(replaced).toBeGreaterThan(CASES / 3);
    expect(duplicates).toBeGreaterThan(CASES / 10);
  });
});

describe('setMemberNumber (the output limit a budget adds)', () => {
  const set = (json: string, path: { parent?: string; key: string }) => setMemberNumber(Buffer.from(json), path, 1000).toString('utf8');

  it('inserts a top-level member first, or replaces a null one, keeping every other byte', () => {
    expect(set('{ "model" : "m",\n "messages": [] }', { key: 'max_completion_tokens' })).toBe(
      '{"max_completion_tokens":1000, "model" : "m",\n "messages": [] }',
    );
    expect(set('{"max_output_tokens":null,"input":"x"}', { key: 'max_output_tokens' })).toBe('{"max_output_tokens":1000,"input":"x"}');
    expect(set('{ }', { key: 'max_tokens' })).toBe('{"max_tokens":1000 }');
  });

  it('inserts into a top-level object, or creates it when absent or null, never touching nested look-alikes', () => {
    expect(set('{"contents":[{"generationConfig":{}}],"generationConfig":{"temperature":0.5}}', { parent: 'generationConfig', key: 'maxOutputTokens' })).toBe(
      '{"contents":[{"generationConfig":{}}],"generationConfig":{"maxOutputTokens":1000,"temperature":0.5}}',
    );
    expect(set('{"generationConfig": {  }}', { parent: 'generationConfig', key: 'maxOutputTokens' })).toBe('{"generationConfig": {"maxOutputTokens":1000  }}');
    expect(set('{"messages":[]}', { parent: 'inferenceConfig', key: 'maxTokens' })).toBe('{"inferenceConfig":{"maxTokens":1000},"messages":[]}');
    expect(set('{"inferenceConfig":null,"messages":[]}', { parent: 'inferenceConfig', key: 'maxTokens' })).toBe(
      '{"inferenceConfig":{"maxTokens":1000},"messages":[]}',
    );
    for (const json of ['{"messages":[]}', '{"generationConfig":{"topK":3},"x":1}']) {
      expect(JSON.parse(set(json, { parent: 'generationConfig', key: 'maxOutputTokens' })).generationConfig.maxOutputTokens).toBe(1000);
    }
  });
});
