// Governance on the data plane: virtual keys, budgets and rate limits that hold exactly under
// concurrency, through a real gateway with a real SQLite file, keys created on the admin API.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openaiChatCompletion, openaiChatStreamEvents } from '../../server/demo/openai-replies.ts';
import { startHarness, type Harness } from '../support/gateway-harness.ts';
import { upstreamGate } from '../support/mock-upstream.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    extraModelsYaml:
      '  priced: { provider: openai, model: priced-upstream, price: { input: 1, output: 1 } }\n  unpriced: { provider: openai, model: no-such-price-model }\n',
    extraYaml: 'db_path: ./gateway.db\ngovernance: on\n',
  });
});
afterAll(() => h.close());
beforeEach(() => h.upstream.reset());

async function createKey(body: Record<string, unknown>): Promise<{ id: string; secret: string }> {
  const res = await fetch(`${h.adminUrl}/api/v1/admin/keys`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: string; secret: string };
}

const BODY = JSON.stringify({ model: 'priced', max_completion_tokens: 100_000, messages: [{ role: 'user', content: 'count to three' }] });
const call = (secret: string | undefined, body = BODY, path = '/v1/chat/completions', headers: Record<string, string> = {}) =>
  fetch(h.url + path, { method: 'POST', body, headers: { ...(secret !== undefined && { authorization: `Bearer ${secret}` }), ...headers } });
const spentMicrocents = (id: string) => h.gateway.governance!.listKeys().find((k) => k.id === id)!.spentMicrocents;

describe('virtual keys', () => {
  it("refuses a missing, unknown or revoked key with 401 in the client's protocol; accepts a valid one", async () => {
    const key = await createKey({ name: 'team-a' });
    expect((await call(undefined)).status).toBe(401);
    const unknown = await call('gwk_not-a-real-key');
    expect(unknown.status).toBe(401);
    expect(JSON.stringify(await unknown.json())).not.toContain('gwk_not-a-real-key');
    const anthropic = await fetch(`${h.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': 'nope' },
      body: JSON.stringify({ model: 'gpt', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }),
    });
    expect(anthropic.status).toBe(401);
    expect(((await anthropic.json()) as { error: { type: string } }).error.type).toBe('authentication_error');

    expect((await call(key.secret)).status).toBe(200);
    const gemini = await fetch(`${h.url}/v1beta/models/gpt:generateContent?key=${key.secret}`, {
      method: 'POST',
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'x' }] }] }),
    });
    expect(gemini.status).toBe(200); // Gemini clients may carry the key in the query

    await fetch(`${h.adminUrl}/api/v1/admin/keys/${key.id}`, { method: 'DELETE' });
    expect((await call(key.secret)).status).toBe(401); // revocation holds for the very next request
  });
});

describe('revoke under load', () => {
  it('once the revoke answers, no later request with the key is served', async () => {
    const key = await createKey({});
    let revokedAt = Number.POSITIVE_INFINITY;
    const servedAfterRevoke: number[] = [];
    const loop = async () => {
      for (let i = 0; i < 40; i++) {
        const sentAt = performance.now();
        const res = await call(key.secret, JSON.stringify({ model: 'gpt', messages: [{ role: 'user', content: 'x' }] }));
        await res.arrayBuffer();
        if (res.status === 200 && sentAt > revokedAt) servedAfterRevoke.push(sentAt);
      }
    };
    const load = Array.from({ length: 8 }, loop);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await fetch(`${h.adminUrl}/api/v1/admin/keys/${key.id}`, { method: 'DELETE' });
    revokedAt = performance.now();
    await Promise.all(load);
    expect(servedAfterRevoke).toEqual([]);
    expect((await call(key.secret)).status).toBe(401);
  });
});

describe('budgets', () => {
  it('300 concurrent requests at a key whose budget admits 10: exactly 10 reach the upstream, spend = sum of settled costs', async () => {
    // Worst case per request: (request bytes + 100,000 output tokens) at 1 USD/M = 100 µ¢ a token.
    const worst = (Buffer.byteLength(BODY) + 100_000) * 100;
    const budgetCents = Math.floor((10.5 * worst) / 1_000_000);
    expect(budgetCents * 1_000_000).toBeGreaterThanOrEqual(10 * worst);
    expect(budgetCents * 1_000_000).toBeLessThan(11 * worst);
    const key = await createKey({ budget_cents: budgetCents });
    const answer = JSON.stringify(
      openaiChatCompletion({ id: 'c', model: 'priced-upstream', text: 'one two three', usage: { prompt_tokens: 12, completion_tokens: 5 } }),
    );
    // The upstream answers only once every other request was refused (or after 20 s), so no
    // settlement can free budget before all 300 were admitted or refused, however loaded the machine.
    let refused = 0;
    const allDecided = upstreamGate(20_000);
    for (let i = 0; i < 12; i++)
      h.upstream.enqueue({ headers: { 'content-type': 'application/json' }, events: [answer.slice(0, 20), answer.slice(20)], waitFor: allDecided.opened });
    const statuses = await Promise.all(
      Array.from({ length: 300 }, () =>
        call(key.secret).then(async (r) => {
          if (r.status === 402) {
            expect(r.headers.get('x-should-retry')).toBe('false');
            if (++refused === 290) allDecided.open();
          }
          await r.arrayBuffer();
          return r.status;
        }),
      ),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 402)).toHaveLength(290);
    expect(h.upstream.requests).toHaveLength(10);
    expect(spentMicrocents(key.id)).toBe(10n * 17n * 100n); // 17 tokens each at 100 µ¢
    const view = (await (await fetch(`${h.adminUrl}/api/v1/admin/keys/${key.id}`)).json()) as { spent_cents: number; remaining_cents: number };
    expect(view.spent_cents).toBe(1); // 0.017 cents, rounded up for display
  });

  it("a budget used up gets 402 budget_exceeded in the client's shape, not retryable", async () => {
    const key = await createKey({ budget_cents: 0 });
    const res = await call(key.secret);
    expect(res.status).toBe(402);
    expect(res.headers.get('x-should-retry')).toBe('false');
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('budget_exceeded');
    expect(h.upstream.requests).toHaveLength(0);
  });

  it('a budgeted key calling a model with no known price is refused clearly; an unbudgeted key is not', async () => {
    const budgeted = await createKey({ budget_cents: 1000 });
    const res = await call(budgeted.secret, JSON.stringify({ model: 'unpriced', messages: [{ role: 'user', content: 'x' }] }));
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('model_price_unknown');
    const free = await createKey({});
    expect((await call(free.secret, JSON.stringify({ model: 'unpriced', messages: [{ role: 'user', content: 'x' }] }))).status).toBe(200);
  });

  it('a stream cut without a usage report is settled on an estimate, never zero', async () => {
    const key = await createKey({ budget_cents: 100_000 });
    h.upstream.enqueue({
      events: openaiChatStreamEvents({ id: 'c', model: 'priced-upstream', text: 'partial answer here' }, { includeUsage: true, textPieces: 3 }),
      cutAfter: 3,
    });
    const res = await call(key.secret, JSON.stringify({ model: 'priced', stream: true, messages: [{ role: 'user', content: 'x' }] }));
    await res.text();
    expect(spentMicrocents(key.id)).toBeGreaterThan(0n);
  });

  it('a request that fails upstream is refunded in full', async () => {
    const key = await createKey({ budget_cents: 100_000 });
    h.upstream.enqueue({ status: 500, json: { error: { message: 'x', type: 'server_error', param: null, code: null } } });
    expect((await call(key.secret)).status).toBe(500);
    const state = h.gateway.governance!.listKeys().find((k) => k.id === key.id)!;
    expect(state.spentMicrocents).toBe(0n);
    expect(state.reservedMicrocents).toBe(0n);
  });
});

describe('rate limits', () => {
  it('300 concurrent requests at rpm 20: exactly 20 admitted, the rest 429 with Retry-After', async () => {
    const key = await createKey({ rpm: 20 });
    const results = await Promise.all(
      Array.from({ length: 300 }, () =>
        call(key.secret, JSON.stringify({ model: 'gpt', messages: [{ role: 'user', content: 'x' }] })).then(async (r) => {
          await r.arrayBuffer();
          return { status: r.status, retryAfter: r.headers.get('retry-after') };
        }),
      ),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(20);
    const limited = results.filter((r) => r.status === 429);
    expect(limited).toHaveLength(280);
    for (const r of limited) expect(Number(r.retryAfter)).toBeGreaterThanOrEqual(1);
  });
});
