// Two data-plane worker threads whose governance is PostgreSQL: the workers ask the main thread
// (governance-channel.ts), which answers from the shared store with promises; a budget that fits
// 10 still admits exactly 10 of 60 concurrent requests.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openaiChatCompletion } from '../../server/demo/openai-replies.ts';
import { onNewConnection } from '../support/fresh-connection.ts';
import { startHarness, type Harness } from '../support/gateway-harness.ts';
import { upstreamGate } from '../support/mock-upstream.ts';
import { postgresUnavailable, startPostgres, type PostgresServer } from '../support/postgres.ts';

const skip = postgresUnavailable();
let server: PostgresServer | undefined;
let h: Harness;
beforeAll(async () => {
  if (skip !== undefined) return;
  server = await startPostgres();
  h = await startHarness({
    workers: 2,
    extraModelsYaml: '  priced: { provider: openai, model: priced-upstream, price: { input: 1, output: 1 } }\n',
    extraYaml: 'database_url: { env: TEST_DATABASE_URL }\ngovernance: on\n',
    env: { TEST_DATABASE_URL: await server.createDatabase() },
  });
}, 60_000);
afterAll(async () => {
  await h?.close();
  server?.stop();
});

const chat = { model: 'priced', messages: [{ role: 'user', content: 'x' }], max_completion_tokens: 100_000 };

describe.skipIf(skip !== undefined)('two workers on the PostgreSQL store', () => {
  it('a budget admitting 10 admits exactly 10 of 60 concurrent requests', { timeout: 60_000 }, async () => {
    const worst = (Buffer.byteLength(JSON.stringify(chat)) + 100_000) * 100;
    const res = await fetch(`${h.adminUrl}/api/v1/admin/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ budget_cents: Math.floor((10.5 * worst) / 1_000_000) }),
    });
    const key = (await res.json()) as { id: string; secret: string };
    const answer = JSON.stringify(openaiChatCompletion({ id: 'c', model: 'priced-upstream', text: 'hi', usage: { prompt_tokens: 12, completion_tokens: 5 } }));
    const gate = upstreamGate(30_000);
    for (let i = 0; i < 12; i++) h.upstream.enqueue({ headers: { 'content-type': 'application/json' }, events: [answer], waitFor: gate.opened });
    let refused = 0;
    const results = await Promise.all(
      Array.from({ length: 60 }, () =>
        onNewConnection(`${h.url}/v1/chat/completions`, {
          method: 'POST',
          body: JSON.stringify(chat),
          headers: { authorization: `Bearer ${key.secret}` },
        }).then((r) => {
          if (r.status === 402 && ++refused === 50) gate.open();
          return r;
        }),
      ),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(10);
    expect(results.filter((r) => r.status === 402)).toHaveLength(50);
    expect(h.upstream.requests).toHaveLength(10);
    const view = (await (await fetch(`${h.adminUrl}/api/v1/admin/keys/${key.id}`)).json()) as { spent_cents: number };
    expect(view.spent_cents).toBe(1); // 10 × 1700 µ¢, rounded up to whole cents
  });
});
