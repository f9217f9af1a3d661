// Embeddings under the same machinery as chat: a gate hook asked (and its denial a 403 in the
// client's shape, nothing sent upstream), a webhook event with `operation: embeddings`, and a lane
// that stays silent past its first-byte timeout failing over to the next one.
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { demoVector } from '../../server/demo/demo-vector.ts';
import { startHarness, type Harness } from '../support/gateway-harness.ts';
import { answerJson, startHookReceiver, type HookReceiver } from '../support/hook-receiver.ts';

let h: Harness;
let gate: HookReceiver;
let webhook: HookReceiver;

beforeAll(async () => {
  gate = await startHookReceiver();
  webhook = await startHookReceiver((_, res) => answerJson(res, 200, {}));
  h = await startHarness({
    sixProtocols: true,
    extraModelsYaml:
      '  e-slow: { provider: openai, model: text-embedding-3-small, timeouts: { first_byte_ms: 300 } }\n  e-cohere: { provider: cohere, model: embed-v4.0 }\n',
    extraYaml:
      `pools:\n  embed: { members: [ { model: e-slow, weight: 1000 }, { model: e-cohere, weight: 1 } ] }\n` +
      `hooks:\n  - { name: policy, kind: gate, url: "${gate.url}/policy", on_error: deny, include_content: true }\n  - { name: audit, kind: webhook, url: "${webhook.url}/events" }\n`,
  });
});
afterAll(async () => {
  await h.close();
  await gate.close();
  await webhook.close();
});
beforeEach(() => {
  h.upstream.reset();
  gate.reset();
  webhook.reset();
  gate.respond = (_, res) => answerJson(res, 200, { allow: true });
});

const openai = () => new OpenAI({ apiKey: 'k', baseURL: `${h.url}/v1`, maxRetries: 0 });

describe('embeddings and hooks', () => {
  it('the gate sees the request (its body with include_content); the webhook event says operation embeddings', async () => {
    await openai().embeddings.create({ model: 'e-cohere', input: 'hello' });
    const [question] = await gate.waitForCalls(1);
    expect(question!.json).toMatchObject({ model: 'e-cohere', ingress: 'openai', stream: false, request: { model: 'e-cohere', input: 'hello' } });
    const [event] = await webhook.waitForCalls(1);
    expect(event!.json).toMatchObject({
      type: 'request.completed',
      request: { operation: 'embeddings', model: 'e-cohere', protocols: { ingress: 'openai', egress: 'cohere' } },
    });
  });

  it("a gate denial is a 403 in the client's shape and nothing goes upstream", async () => {
    gate.respond = (_, res) => answerJson(res, 200, { allow: false, reason: 'no embeddings today' });
    const denied = await openai()
      .embeddings.create({ model: 'e-cohere', input: 'hello' })
      .catch((e: unknown) => e);
    expect(denied).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect((denied as Error).message).toMatch(/no embeddings today/);
    expect(h.upstream.requests).toHaveLength(0);
  });
});

describe('timeouts', () => {
  it('a lane silent past its first_byte_ms fails over to the next lane before the client sees anything', async () => {
    h.upstream.enqueue({ fault: 'hang' });
    const started = performance.now();
    const { data, response } = await openai().embeddings.create({ model: 'embed', input: 'late' }).withResponse();
    expect(data.data[0]!.embedding).toEqual(demoVector('late'));
    expect(response.headers.get('x-gateway-lane')).toBe('e-cohere');
    expect(performance.now() - started).toBeGreaterThanOrEqual(300);
  });
});
