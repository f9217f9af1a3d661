// The request schemas take what the providers take: null for any optional member (SDKs dump unset
// fields as null), a Responses reasoning item without an id, a Gemini turn without parts; and
// they still refuse, naming the field, what cannot be processed (a required member that is null).
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { nullableOptionals } from '../../codegen/nullable-optionals.ts';
import type { ProtocolId } from '../../server/ir/index.ts';
import { PROTOCOL_IDS } from '../../server/protocols/registry.ts';
import { withoutAbsentNulls } from '../../server/protocols/shared/absent-nulls.ts';
import { VALIDATORS } from '../matrix/validators.ts';
import { laneModel, startSixLaneHarness, type SixLaneHarness } from '../support/six-lane-harness.ts';
import { textAnswer } from './upstream-answers.ts';

const specOf = (p: ProtocolId) =>
  JSON.parse(readFileSync(new URL(`../../spec/protocols/${p}/request.schema.json`, import.meta.url), 'utf8')) as {
    required?: string[];
    properties: Record<string, unknown>;
  };

/** A minimal valid body per protocol. */
const MINIMAL: Record<ProtocolId, Record<string, unknown>> = {
  openai: { model: 'm', messages: [{ role: 'user', content: 'hi' }] },
  responses: { model: 'm', input: 'hi' },
  anthropic: { model: 'm', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] },
  gemini: { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] },
  bedrock: { messages: [{ role: 'user', content: [{ text: 'hi' }] }] },
  cohere: { model: 'm', messages: [{ role: 'user', content: 'hi' }] },
};

describe('request schemas accept null for every optional member', () => {
  it.each(PROTOCOL_IDS)('%s: each optional top-level member set to null passes', (protocol) => {
    const spec = specOf(protocol);
    const optional = Object.keys(spec.properties).filter((k) => !(spec.required ?? []).includes(k));
    expect(optional.length).toBeGreaterThan(3);
    for (const key of optional) {
      const ok = VALIDATORS[protocol].request({ ...MINIMAL[protocol], [key]: null });
      expect(ok, `${protocol} ${key}: null -> ${JSON.stringify(VALIDATORS[protocol].request.errors)}`).toBe(true);
    }
  });

  it('nested optional members as the Python SDKs dump them', () => {
    const anthropic = VALIDATORS.anthropic.request({
      ...MINIMAL.anthropic,
      messages: [
        { role: 'user', content: 'hi' },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'x', citations: null },
            { type: 'tool_use', id: 't1', name: 'f', input: {}, caller: null, cache_control: null },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'r', is_error: null, cache_control: null }] },
      ],
    });
    expect(anthropic, JSON.stringify(VALIDATORS.anthropic.request.errors)).toBe(true);
    const responses = VALIDATORS.responses.request({
      model: 'm',
      input: [
        { role: 'user', content: 'hi' },
        { type: 'reasoning', summary: [], content: null, encrypted_content: 'e', status: null },
      ],
    });
    expect(responses, JSON.stringify(VALIDATORS.responses.request.errors)).toBe(true);
    const gemini = VALIDATORS.gemini.request({
      contents: [{ role: 'user', parts: [{ text: 'hi', thought: null, inlineData: null }] }, { role: 'model' }, { role: 'user', parts: [{ text: 'go on' }] }],
      generationConfig: { temperature: null },
    });
    expect(gemini, JSON.stringify(VALIDATORS.gemini.request.errors)).toBe(true);
  });

  it('a required member that is null is still refused', () => {
    expect(
      VALIDATORS.anthropic.request({ ...MINIMAL.anthropic, messages: [{ role: 'user', content: [{ type: 'tool_use', id: 't1', name: 'f', input: null }] }] }),
    ).toBe(false);
    expect(VALIDATORS.openai.request({ model: 'm', messages: null })).toBe(false);
    expect(VALIDATORS.responses.request({ model: 'm', input: [{ type: 'reasoning', summary: null }] })).toBe(false);
    // A null item type is read as absent, so the item is a message, which needs its content.
    expect(
      VALIDATORS.responses.request({ model: 'm', input: [{ type: null, role: 'user', content: 'hi' }] }),
      JSON.stringify(VALIDATORS.responses.request.errors),
    ).toBe(true);
    expect(VALIDATORS.responses.request({ model: 'm', input: [{ type: null, role: 'user' }] })).toBe(false);
  });
});

describe('nullableOptionals', () => {
  it('adds null to optional members of each shape, leaves required ones and branch tests alone', () => {
    const out = nullableOptionals({
      type: 'object',
      required: ['a'],
      properties: { a: { type: 'string' }, b: { type: 'string' }, c: { enum: ['x'], type: 'string' }, d: { $ref: '#/x' }, e: { type: ['number', 'null'] } },
      allOf: [{ if: { properties: { a: { const: 'k' } } }, then: { properties: { f: { type: 'object' } } } }],
    }) as Record<string, any>;
    expect(out.properties).toEqual({
      a: { type: 'string' },
      b: { type: ['string', 'null'] },
      c: { enum: ['x', null], type: ['string', 'null'] },
      d: { anyOf: [{ type: 'null' }, { $ref: '#/x' }] },
      e: { type: ['number', 'null'] },
    });
    expect(out.allOf[0].if).toEqual({ properties: { a: { const: 'k' } } });
    expect(out.allOf[0].then.properties.f).toEqual({ type: ['object', 'null'] });
  });
});

describe('withoutAbsentNulls', () => {
  it("removes null members at any depth, but not inside the caller's own JSON", () => {
    const body = {
      model: 'm',
      stop: null,
      messages: [{ role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'f', input: { keep: null }, caller: null }] }],
      tools: [{ name: 'f', input_schema: { default: null } }],
    };
    expect(withoutAbsentNulls(body, 'anthropic')).toEqual({
      model: 'm',
      messages: [{ role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'f', input: { keep: null } }] }],
      tools: [{ name: 'f', input_schema: { default: null } }],
    });
    expect(body.stop, 'the original is not changed').toBeNull();
  });

  it('returns the very same object when there is nothing to remove', () => {
    const body = { model: 'm', messages: [{ role: 'user', content: 'hi' }], metadata: { user_id: null } };
    expect(withoutAbsentNulls(body, 'openai')).toBe(body);
  });
});

// @google/genai refuses to build such a turn itself, so this is what a REST client (or a replayed
// log) sends, by plain HTTP.
describe('a Gemini turn without parts', () => {
  let h: SixLaneHarness;
  beforeAll(async () => {
    h = await startSixLaneHarness();
  });
  afterAll(() => h.close());
  beforeEach(() => h.upstream.reset());

  const contents = [
    { role: 'user', parts: [{ text: 'Tell me a long story.' }] },
    { role: 'model' }, // the answer that hit MAX_TOKENS before any output, replayed as it came
    { role: 'user', parts: [{ text: 'A short one then.' }] },
  ];

  it.each(['gemini', 'anthropic', 'openai'] as const)('is accepted on a %s lane', async (lane) => {
    h.upstream.enqueue(textAnswer(lane, 'Once.'));
    const res = await fetch(`${h.url}/v1beta/models/${laneModel(lane)}:generateContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': 'k' },
      body: JSON.stringify({ contents }),
    });
    const answer = (await res.json()) as { candidates: { content: { parts: { text: string }[] } }[] };
    expect(res.status, JSON.stringify(answer)).toBe(200);
    expect(answer.candidates[0]!.content.parts[0]!.text).toBe('Once.');
    const sent = h.upstream.requests[0]!.json as Record<string, unknown>;
    if (lane === 'gemini') expect(sent.contents).toEqual(contents);
    else expect(JSON.stringify(sent)).toContain('A short one then.');
  });
});
