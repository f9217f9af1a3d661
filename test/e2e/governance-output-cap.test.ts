// Attack: omit the output-token limit, so the upstream writes as much as it likes, beyond what the
// budget reservation assumed (the model's default limit). It once made a 10-cent budget spend 20.
// With a budget in force the upstream request must carry the limit the reservation assumed, in
// every protocol, on both paths; a limit the client set is never changed.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ProtocolId } from '../../server/ir/index.ts';
import { startHarness, type Harness } from '../support/gateway-harness.ts';
import { INPUT_TOKENS, limitOf, startOutputLimitUpstream, type OutputLimitUpstream } from '../support/output-limit-upstream.ts';

const PROTOCOLS: readonly ProtocolId[] = ['openai', 'responses', 'anthropic', 'gemini', 'bedrock', 'cohere'];
/** The limit every model is configured with: what a reservation assumes when the client sets none. */
const MODEL_LIMIT = 1000;

let limits: OutputLimitUpstream;
let h: Harness;
beforeAll(async () => {
  limits = await startOutputLimitUpstream();
  const base = (p: ProtocolId) => (p === 'openai' || p === 'responses' ? `${limits.url}/v1` : limits.url);
  h = await startHarness({
    extraCatalogYaml: PROTOCOLS.map((p) => `cap-${p}: { protocol: ${p}, base_url: ${base(p)}, auth: none }\n`).join(''),
    extraModelsYaml: PROTOCOLS.map(
      (p) => `  m-${p}: { provider: cap-${p}, model: up-${p}, max_tokens: ${MODEL_LIMIT}, price: { input: 1, output: 1 } }\n`,
    ).join(''),
    extraYaml: 'db_path: ./gateway.db\ngovernance: on\n',
  });
});
afterAll(async () => {
  await h.close();
  await limits.close();
});
beforeEach(() => void (limits.requests.length = 0));

async function createKey(budgetCents?: number): Promise<{ id: string; secret: string }> {
  const res = await fetch(`${h.adminUrl}/api/v1/admin/keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(budgetCents === undefined ? {} : { budget_cents: budgetCents }),
  });
  return (await res.json()) as { id: string; secret: string };
}

/** A request in `ingress`'s own wire form for model `model`, with `limit` as that protocol's output limit if given. */
function wireRequest(
  ingress: ProtocolId,
  model: string,
  secret: string,
  options: { stream?: boolean; limit?: number } = {},
): { path: string; init: RequestInit } {
  const { stream = false, limit } = options;
  const bearer = { authorization: `Bearer ${secret}`, 'content-type': 'application/json' };
  const post = (path: string, body: Record<string, unknown>, headers: Record<string, string> = bearer) => ({
    path,
    init: { method: 'POST', headers, body: JSON.stringify(body) },
  });
  switch (ingress) {
    case 'openai':
      return post('/v1/chat/completions', {
        model,
        stream,
        messages: [{ role: 'user', content: 'write at length' }],
        ...(limit !== undefined && { max_tokens: limit }),
      });
    case 'responses':
      return post('/v1/responses', { model, stream, input: 'write at length', ...(limit !== undefined && { max_output_tokens: limit }) });
    case 'anthropic':
      return post(
        '/v1/messages',
        { model, stream, max_tokens: limit ?? 4096, messages: [{ role: 'user', content: 'write at length' }] },
        { 'x-api-key': secret, 'content-type': 'application/json' },
      );
    case 'gemini':
      return post(
        `/v1beta/models/${model}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
        {
          contents: [{ role: 'user', parts: [{ text: 'write at length' }] }],
          generationConfig: { temperature: 0.5, ...(limit !== undefined && { maxOutputTokens: limit }) },
        },
        { 'x-goog-api-key': secret, 'content-type': 'application/json' },
      );
    case 'bedrock':
      return post(`/model/${model}/${stream ? 'converse-stream' : 'converse'}`, {
        messages: [{ role: 'user', content: [{ text: 'write at length' }] }],
        ...(limit !== undefined && { inferenceConfig: { maxTokens: limit } }),
      });
    case 'cohere':
      return post('/v2/chat', { model, stream, messages: [{ role: 'user', content: 'write at length' }], ...(limit !== undefined && { max_tokens: limit }) });
  }
}

async function send(ingress: ProtocolId, model: string, secret: string, options: { stream?: boolean; limit?: number } = {}): Promise<number> {
  const { path, init } = wireRequest(ingress, model, secret, options);
  const res = await fetch(h.url + path, init);
  await res.arrayBuffer();
  return res.status;
}

describe('under a budget, a request without an output limit', () => {
  it('10-cent budget, 300 concurrent requests without a limit (same protocol and translated): spent never exceeds the budget', async () => {
    const key = await createKey(10);
    const mix: [ProtocolId, string][] = [
      ['openai', 'm-openai'],
      ['gemini', 'm-gemini'],
      ['openai', 'm-bedrock'],
      ['cohere', 'm-responses'],
    ];
    const statuses = await Promise.all(
      Array.from({ length: 300 }, (_, i) => {
        const [ingress, model] = mix[i % mix.length]!;
        return send(ingress, model, key.secret, { stream: i % 3 === 0 });
      }),
    );
    const served = statuses.filter((s) => s === 200).length;
    expect(served).toBeGreaterThan(0);
    expect(statuses.filter((s) => s !== 200 && s !== 402)).toEqual([]);
    const state = h.gateway.governance!.getKey(key.id)!;
    expect(state.spentMicrocents).toBeLessThanOrEqual(10_000_000n);
    // Every served request was held to the model's limit and billed exactly that.
    expect(limits.requests.map((r) => r.limit)).toEqual(Array(limits.requests.length).fill(MODEL_LIMIT));
    expect(state.spentMicrocents).toBe(BigInt(served * (INPUT_TOKENS + MODEL_LIMIT) * 100));
  });

  for (const protocol of PROTOCOLS.filter((p) => p !== 'anthropic')) {
    // Anthropic clients must send max_tokens
    it(`same protocol (${protocol}): the upstream sees the model's limit where ${protocol} keeps it, stream or not`, async () => {
      const key = await createKey(100_000);
      expect(await send(protocol, `m-${protocol}`, key.secret)).toBe(200);
      expect(await send(protocol, `m-${protocol}`, key.secret, { stream: true })).toBe(200);
      expect(limits.requests.map((r) => [r.protocol, r.limit])).toEqual([
        [protocol, MODEL_LIMIT],
        [protocol, MODEL_LIMIT],
      ]);
      if (protocol === 'gemini') expect((limits.requests[0]!.body.generationConfig as { temperature: number }).temperature).toBe(0.5); // the client's own settings stay
    });
  }

  it("translated (an OpenAI client to a lane of each protocol): the upstream sees the model's limit", async () => {
    const key = await createKey(100_000);
    for (const egress of PROTOCOLS) expect(await send('openai', `m-${egress}`, key.secret, { stream: egress === 'gemini' })).toBe(200);
    expect(limits.requests.map((r) => [r.protocol, r.limit])).toEqual(PROTOCOLS.map((p) => [p, MODEL_LIMIT]));
  });
});

describe('what is never changed', () => {
  it('a limit the client set reaches the upstream as sent, in every protocol', async () => {
    const key = await createKey(100_000);
    for (const protocol of PROTOCOLS) expect(await send(protocol, `m-${protocol}`, key.secret, { limit: 7 })).toBe(200);
    expect(limits.requests.map((r) => [r.protocol, r.limit])).toEqual(PROTOCOLS.map((p) => [p, 7]));
    const openai = limits.requests[0]!.body;
    expect(openai.max_tokens).toBe(7);
    expect('max_completion_tokens' in openai).toBe(false); // the client's choice of field stays too
  });

  it('a key without a budget: the same-protocol body goes upstream without an added limit', async () => {
    const key = await createKey();
    expect(await send('openai', 'm-openai', key.secret)).toBe(200);
    expect(limits.requests[0]!.limit).toBeUndefined();
    expect(limitOf('openai', limits.requests[0]!.body)).toBeUndefined();
  });
});
