// A request nested deeper than the gateway can re-serialise for another protocol (found by the
// fuzz suite: JSON.parse takes any depth, JSON.stringify does not) is the client's fault: a 400 in
// its protocol, and the lane's breaker is not charged, so other clients are still served.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import validateOpenAIError from '../../generated/validators/openai-error.js';
import { startHarness, type Harness } from '../support/gateway-harness.ts';
import { answerJson, startHookReceiver, type HookReceiver } from '../support/hook-receiver.ts';

let h: Harness;
beforeAll(async () => {
  // One lane fault would open the breaker: the test shows none is counted.
  h = await startHarness({ breakerYaml: 'breaker: { consecutive_failures: 1, open_ms: 60000 }\n' });
});
afterAll(() => h.close());

const chat = (body: string) =>
  fetch(`${h.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer client' }, body });

it('a tool schema nested 10,000 deep, to a cross-protocol lane: 400 request_too_deep, lane untouched', async () => {
  const depth = 10_000;
  const deep = '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
  const tools = `[{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{"x":${deep}}}}}]`;
  for (let i = 0; i < 2; i++) {
    const res = await chat(`{"model":"claude","messages":[{"role":"user","content":"hi"}],"tools":${tools}}`);
    const body: unknown = await res.json();
    expect(res.status).toBe(400);
    expect(validateOpenAIError(body)).toBe(true);
    expect(body).toMatchObject({ error: { type: 'invalid_request_error', code: 'request_too_deep' } });
  }
  expect(h.upstream.requests).toHaveLength(0);
  const normal = await chat('{"model":"claude","messages":[{"role":"user","content":"hi"}]}');
  expect(normal.status).toBe(200);
});

it('a Gemini functionCall.args object nested 10,000 deep (decoded to argument text): 400, not 500', async () => {
  const depth = 10_000;
  const deep = '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
  const body =
    `{"contents":[{"role":"user","parts":[{"text":"hi"}]},{"role":"model","parts":[{"functionCall":{"name":"f","args":${deep}}}]},` +
    '{"role":"user","parts":[{"functionResponse":{"name":"f","response":{"ok":true}}}]}]}';
  const res = await fetch(`${h.url}/v1beta/models/gpt:generateContent`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  expect(res.status).toBe(400);
  expect(await res.json()).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT' } });
});

describe('a gate hook that fails open (on_error: allow) with include_content', () => {
  let gate: HookReceiver;
  let gated: Harness;
  beforeAll(async () => {
    gate = await startHookReceiver((_, res) => answerJson(res, 200, { allow: false, reason: 'policy says no' }));
    gated = await startHarness({ extraYaml: `hooks:\n  - { name: policy, kind: gate, url: "${gate.url}/gate", on_error: allow, include_content: true }\n` });
  });
  afterAll(async () => {
    await gated.close();
    await gate.close();
  });

  it('is not bypassed by a body too deep to serialise for it: 400, nothing upstream', async () => {
    const depth = 10_000;
    const deep = '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
    const body = `{"model":"gpt","messages":[{"role":"user","content":"hi"}],"metadata_deep":${deep}}`;
    const tools = `[{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{"x":${deep}}}}}]`;
    for (const payload of [body, `{"model":"gpt","messages":[{"role":"user","content":"hi"}],"tools":${tools}}`]) {
      const res = await fetch(`${gated.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: payload });
      const text = await res.text();
      expect(res.status, text).toBe(400);
      expect(JSON.parse(text)).toMatchObject({ error: { code: 'request_too_deep' } });
    }
    expect(gated.upstream.requests).toHaveLength(0);
  });
});
