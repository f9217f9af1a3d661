// Same protocol in and out, for all six protocols: the upstream receives the client's exact bytes,
// with only the model value replaced where the body has one. Gemini and Bedrock name the model in
// the path, so their body must arrive untouched (Bedrock Converse refuses unknown members).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ProtocolId } from '../../server/ir/index.ts';
import { codecFor } from '../../server/protocols/registry.ts';
import { laneModel, startSixLaneHarness, upstreamModelOf, type SixLaneHarness } from '../support/six-lane-harness.ts';

let h: SixLaneHarness;
beforeAll(async () => {
  h = await startSixLaneHarness();
});
afterAll(() => h.close());
beforeEach(() => h.upstream.reset());

const M = (p: ProtocolId) => laneModel(p);
const USER_TEXT = '"caf\\u00e9 ☕ \\"model\\": x"';

/** Per protocol: client path, the request bytes (odd spacing, unknown fields, a nested "model"), the upstream path and bytes expected. */
const CASES: { protocol: ProtocolId; path: string; body: string; upstreamPath: string; expected: string }[] = [
  {
    protocol: 'openai',
    path: '/v1/chat/completions',
    body: `{\n "messages": [{"role":"user","content":${USER_TEXT}}], "model" : "${M('openai')}",\n "x_vendor": {"model":"keep"}, "temperature": 1.50}`,
    upstreamPath: '/v1/chat/completions',
    expected: `{\n "messages": [{"role":"user","content":${USER_TEXT}}], "model" : "${upstreamModelOf('openai')}",\n "x_vendor": {"model":"keep"}, "temperature": 1.50}`,
  },
  {
    protocol: 'responses',
    path: '/v1/responses',
    body: `{"input":${USER_TEXT},\t"model":"${M('responses')}","metadata":{"model":"keep"},"x_new":[1e3]}`,
    upstreamPath: '/v1/responses',
    expected: `{"input":${USER_TEXT},\t"model":"${upstreamModelOf('responses')}","metadata":{"model":"keep"},"x_new":[1e3]}`,
  },
  {
    protocol: 'anthropic',
    path: '/v1/messages',
    body: `{"max_tokens": 64, "messages":[{"role":"user","content":${USER_TEXT}}],"model":"${M('anthropic')}", "x_new": null}`,
    upstreamPath: '/v1/messages',
    expected: `{"max_tokens": 64, "messages":[{"role":"user","content":${USER_TEXT}}],"model":"${upstreamModelOf('anthropic')}", "x_new": null}`,
  },
  {
    protocol: 'gemini',
    path: `/v1beta/models/${M('gemini')}:generateContent`,
    body: `{ "contents": [{"role":"user","parts":[{"text":${USER_TEXT}}]}],\n  "generationConfig": {"temperature": 0.50} }`,
    upstreamPath: `/v1beta/models/${upstreamModelOf('gemini')}:generateContent`,
    expected: `{ "contents": [{"role":"user","parts":[{"text":${USER_TEXT}}]}],\n  "generationConfig": {"temperature": 0.50} }`,
  },
  {
    protocol: 'bedrock',
    path: `/model/${M('bedrock')}/converse`,
    body: `{"messages":[{"role":"user","content":[{"text":${USER_TEXT}}]}], "inferenceConfig": {"maxTokens": 64}}`,
    upstreamPath: `/model/${upstreamModelOf('bedrock')}/converse`,
    expected: `{"messages":[{"role":"user","content":[{"text":${USER_TEXT}}]}], "inferenceConfig": {"maxTokens": 64}}`,
  },
  {
    protocol: 'cohere',
    path: '/v2/chat',
    body: `{"model":"${M('cohere')}" ,"messages":[{"role":"user","content":${USER_TEXT}}],"x_new":{"model":"keep"}}`,
    upstreamPath: '/v2/chat',
    expected: `{"model":"${upstreamModelOf('cohere')}" ,"messages":[{"role":"user","content":${USER_TEXT}}],"x_new":{"model":"keep"}}`,
  },
];

/** A valid non-stream answer in the protocol, written by its own encoder. */
function answer(protocol: ProtocolId): string {
  return JSON.stringify(
    codecFor(protocol)!.encodeResponse(
      {
        id: 'r1',
        model: upstreamModelOf(protocol),
        content: [{ type: 'text', text: 'ok' }],
        finish: { reason: 'stop', raw: null },
        usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 },
      },
      { streamUsage: false },
    ).body,
  );
}

describe.each(CASES)('$protocol to a $protocol lane', (c) => {
  it('sends exactly the client bytes upstream, only the model replaced where the body has one', async () => {
    const upstreamAnswer = answer(c.protocol); // once: it carries a timestamp in seconds
    h.upstream.enqueue({ status: 200, headers: { 'content-type': 'application/json' }, raw: upstreamAnswer });
    const res = await fetch(h.url + c.path, {
      method: 'POST',
      body: c.body,
      headers: { 'content-type': 'application/json', authorization: 'Bearer k', 'anthropic-version': '2023-06-01' },
    });
    expect(res.status, await res.clone().text()).toBe(200);
    const sent = h.upstream.requests[0]!;
    expect(sent.path).toBe(c.upstreamPath);
    expect(sent.rawBody.toString('utf8')).toBe(c.expected);
    expect(await res.text()).toBe(upstreamAnswer);
  });
});

describe('a Gemini client streaming without alt=sse, to a Gemini lane', () => {
  it('asks the upstream for the JSON-array stream it asked for and relays it byte for byte', async () => {
    const chunk = (text: string, last = false) =>
      JSON.stringify({
        candidates: [{ content: { role: 'model', parts: [{ text }] }, index: 0, ...(last && { finishReason: 'STOP' }) }],
        ...(last && { usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 2, totalTokenCount: 5 } }),
      });
    const events = ['[', chunk('Hel'), ',\r\n', chunk('lo', true), ']'];
    h.upstream.enqueue({ status: 200, headers: { 'content-type': 'application/json; charset=UTF-8' }, events });
    const body = '{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}';
    const res = await fetch(`${h.url}/v1beta/models/${M('gemini')}:streamGenerateContent`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', 'x-goog-api-key': 'k' },
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(events.join(''));
    const sent = h.upstream.requests[0]!;
    expect(sent.path).toBe(`/v1beta/models/${upstreamModelOf('gemini')}:streamGenerateContent`);
    expect(sent.rawBody.toString('utf8')).toBe(body);
  });

  it('with alt=sse, asks for SSE', async () => {
    h.upstream.enqueue({
      status: 200,
      headers: { 'content-type': 'text/event-stream' },
      events: [`data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text: 'ok' }] }, finishReason: 'STOP', index: 0 }] })}\r\n\r\n`],
    });
    const res = await fetch(`${h.url}/v1beta/models/${M('gemini')}:streamGenerateContent?alt=sse`, {
      method: 'POST',
      body: '{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': 'k' },
    });
    expect(res.status).toBe(200);
    await res.text();
    expect(h.upstream.requests[0]!.path).toBe(`/v1beta/models/${upstreamModelOf('gemini')}:streamGenerateContent?alt=sse`);
  });
});
