// A Gemini REST client may spell the body in proto field names (snake_case), as Google's own REST
// examples do. On a lane of another protocol the gateway translates such a body, and checks its
// snake_case members against the request schema exactly as it checks camelCase ones: a malformed
// one is a 400 in Gemini's error shape, naming the member, and nothing reaches the upstream.
// (@google/genai always writes camelCase, so the client here is plain HTTP, like curl.)
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { laneModel, startSixLaneHarness, type SixLaneHarness } from '../support/six-lane-harness.ts';
import { textAnswer } from '../fidelity/upstream-answers.ts';

let h: SixLaneHarness;
beforeAll(async () => {
  h = await startSixLaneHarness();
});
afterAll(() => h.close());
beforeEach(() => h.upstream.reset());

const post = (body: unknown) =>
  fetch(`${h.url}/v1beta/models/${laneModel('anthropic')}:generateContent`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-goog-api-key': 'k' },
    body: JSON.stringify(body),
  });
const contents = [{ role: 'user', parts: [{ text: 'Weather in Paris?' }] }];

describe('a snake_case Gemini body on an Anthropic lane', () => {
  it('is translated when well formed', async () => {
    h.upstream.enqueue(textAnswer('anthropic', 'Sunny.'));
    const res = await post({
      contents,
      tools: [{ function_declarations: [{ name: 'weather', parameters_json_schema: { type: 'object', properties: { city: { type: 'string' } } } }] }],
      generation_config: { max_output_tokens: 50 },
    });
    expect(res.status, await res.clone().text()).toBe(200);
    const sent = h.upstream.requests[0]!.json as { tools: { name: string }[]; max_tokens: number };
    expect(sent.tools.map((t) => t.name)).toEqual(['weather']);
    expect(sent.max_tokens).toBe(50);
  });

  it.each([
    ['function_declarations not an array', { tools: [{ function_declarations: { name: 'weather' } }] }, 'tools[0].functionDeclarations'],
    ['a declaration without a name', { tools: [{ function_declarations: [{ description: 'no name' }] }] }, 'tools[0].functionDeclarations[0].name'],
    ['max_output_tokens not a number', { generation_config: { max_output_tokens: 'fifty' } }, 'generationConfig.maxOutputTokens'],
  ])('is refused with a 400 naming the member when %s', async (_, extra, member) => {
    const res = await post({ contents, ...extra });
    const body = (await res.json()) as { error: { code: number; status: string; message: string } };
    expect(res.status).toBe(400);
    expect(body.error.code).toBe(400);
    expect(body.error.status).toBe('INVALID_ARGUMENT');
    expect(body.error.message).toContain(member);
    expect(h.upstream.requests).toHaveLength(0);
  });
});
