// A request that fails over carries every tried lane's credentials to the client response's mask:
// the first lane's echo (header and error body) must not reach the client whether the second lane
// answers or fails too (its relayed error is what the client then gets).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicErrorBody } from '../../server/demo/anthropic-replies.ts';
import { CREDENTIAL_MARKER } from '../../server/gateway/credential-mask.ts';
import { startHarness, UPSTREAM_ANTHROPIC_KEY, UPSTREAM_OPENAI_KEY, type Harness } from '../support/gateway-harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ extraYaml: 'pools:\n  both: { members: [ { model: gpt, weight: 1000 }, { model: claude, weight: 1 } ], max_attempts: 2 }\n' });
});
afterAll(() => h?.close());

const openaiError = (message: string) => ({ error: { message, type: 'server_error', param: null, code: 'server_error' } });
const chat = async () => {
  const res = await fetch(`${h.url}/v1/chat/completions`, {
    method: 'POST',
    body: JSON.stringify({ model: 'both', messages: [{ role: 'user', content: 'hi' }] }),
  });
  return `${res.status} ${JSON.stringify([...res.headers])} ${await res.text()}`;
};

describe("failover: every tried lane's credential is masked", () => {
  it("the second lane answers, echoing the first lane's key too", async () => {
    h.upstream.enqueue(
      { status: 500, headers: { 'x-request-id': `Bearer ${UPSTREAM_OPENAI_KEY}` }, json: openaiError(`failed for ${UPSTREAM_OPENAI_KEY}`) },
      {
        status: 200,
        headers: { 'x-request-id': UPSTREAM_ANTHROPIC_KEY },
        json: {
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          content: [{ type: 'text', text: `${UPSTREAM_ANTHROPIC_KEY} and ${UPSTREAM_OPENAI_KEY}` }],
          stop_reason: 'end_turn',
          stop_sequence: null,
          usage: { input_tokens: 1, output_tokens: 1 },
        },
      },
    );
    const answer = await chat();
    expect(answer.slice(0, 3)).toBe('200');
    expect(h.upstream.requests.length).toBe(2); // both lanes were tried
    expect(answer).not.toContain(UPSTREAM_OPENAI_KEY);
    expect(answer).not.toContain(UPSTREAM_ANTHROPIC_KEY);
    expect(answer).toContain(`${CREDENTIAL_MARKER} and ${CREDENTIAL_MARKER}`);
  });

  it('both lanes fail, each echoing its key: the error the client gets holds neither', async () => {
    h.upstream.reset();
    h.upstream.enqueue(
      { status: 500, headers: { 'x-request-id': `Bearer ${UPSTREAM_OPENAI_KEY}` }, json: openaiError(`failed for ${UPSTREAM_OPENAI_KEY}`) },
      {
        status: 529,
        headers: { 'x-request-id': UPSTREAM_ANTHROPIC_KEY },
        json: anthropicErrorBody('overloaded_error', `overloaded for ${UPSTREAM_ANTHROPIC_KEY} after ${UPSTREAM_OPENAI_KEY}`),
      },
    );
    const answer = await chat();
    expect(Number(answer.slice(0, 3))).toBeGreaterThanOrEqual(500);
    expect(h.upstream.requests.length).toBe(2);
    expect(answer).not.toContain(UPSTREAM_OPENAI_KEY);
    expect(answer).not.toContain(UPSTREAM_ANTHROPIC_KEY);
  });
});
