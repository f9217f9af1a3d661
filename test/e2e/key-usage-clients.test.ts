// What the admin API reports after real traffic from the official SDKs: usage grouped by key and
// model equal to the spend ledger's rows (requests, tokens, cost), a spend of a fraction of a cent
// shown as spent (exact USD beside cents rounded up), and a key's remaining the same figure on
// the admin API and on POST /auth/token. Real gateways, real SQLite files.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { components } from '../../generated/admin-api.ts';
import { openaiChatCompletion } from '../../server/demo/openai-replies.ts';
import { startSelfServeGateway, type SelfServeGateway, type TokenAnswer } from '../auth/support/self-serve-gateway.ts';
import { manualClock } from '../governance/support.ts';
import { startHarness, type Harness } from '../support/gateway-harness.ts';

type KeyCreated = components['schemas']['KeyCreated'];
type KeyView = components['schemas']['KeyView'];
type UsageReport = components['schemas']['UsageReport'];
type UsageRow = components['schemas']['UsageRow'];

async function adminCall<T>(adminUrl: string, method: string, path: string, body?: unknown, status = 200): Promise<T> {
  const response = await fetch(`${adminUrl}/api/v1/admin${path}`, {
    method,
    ...(body !== undefined && { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  const text = await response.text();
  expect(response.status, text).toBe(status);
  return JSON.parse(text) as T;
}

const hello = [{ role: 'user' as const, content: 'hello' }];
/** An answer of the `priced` model (1 USD per million tokens: a token is 100 µ¢) with this usage. */
const pricedAnswer = (input: number, output: number) => ({
  json: openaiChatCompletion({ id: 'c', model: 'priced-upstream', text: 'hi', usage: { prompt_tokens: input, completion_tokens: output } }),
});

/** Microcents as the admin API's exact USD string, computed here independently of the server. */
function usdOf(microcents: bigint): string {
  return `${microcents / 100_000_000n}.${String(microcents % 100_000_000n).padStart(8, '0')}`;
}
const centsUp = (microcents: bigint): number => Number((microcents + 999_999n) / 1_000_000n);

describe('usage after SDK traffic', () => {
  let h: Harness;
  const admin = <T>(method: string, path: string, body?: unknown, status?: number) => adminCall<T>(h.adminUrl, method, path, body, status);
  beforeAll(async () => {
    h = await startHarness({
      extraModelsYaml: '  priced: { provider: openai, model: priced-upstream, price: { input: 1, output: 1 } }\n',
      extraYaml: 'db_path: ./gateway.db\ngovernance: on\n',
    });
  });
  afterAll(() => h.close());

  const openai = (secret: string) => new OpenAI({ apiKey: secret, baseURL: `${h.url}/v1`, maxRetries: 0 });
  const anthropic = (secret: string) => new Anthropic({ apiKey: secret, baseURL: h.url, maxRetries: 0 });

  it('grouped by key and model, equals the spend ledger (requests, tokens by kind, cost)', async () => {
    const a = await admin<KeyCreated>('POST', '/keys', { name: 'alpha' }, 201);
    const b = await admin<KeyCreated>('POST', '/keys', { name: 'beta', budget_cents: 500 }, 201);
    h.upstream.enqueue(pricedAnswer(40, 30), pricedAnswer(100, 7), pricedAnswer(2, 3));
    await openai(a.secret).chat.completions.create({ model: 'priced', messages: hello });
    await openai(a.secret).chat.completions.create({ model: 'priced', messages: hello });
    await openai(b.secret).chat.completions.create({ model: 'priced', messages: hello });
    // Echoed answers (their usage as the mock counts it), one streamed, one through Anthropic's SDK.
    await anthropic(a.secret).messages.create({ model: 'claude', max_tokens: 50, messages: hello });
    const stream = await openai(b.secret).chat.completions.create({ model: 'gpt', messages: hello, stream: true });
    for await (const _chunk of stream);
    await openai(b.secret).chat.completions.create({ model: 'gpt', messages: hello });

    type LedgerRow = {
      key_id: string;
      model: string;
      requests: number;
      input_tokens: number;
      output_tokens: number;
      cache_read_tokens: number;
      cache_write_tokens: number;
      cost: bigint;
    };
    const db = h.gateway.governance!.store.db;
    const statement = db.prepare(
      `SELECT key_id, model, count(*) AS requests, sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens,
              sum(cache_read_tokens) AS cache_read_tokens, sum(cache_write_tokens) AS cache_write_tokens, sum(cost_microcents) AS cost
         FROM spend_ledger WHERE key_id IN (?, ?) GROUP BY key_id, model`,
    );
    statement.setReadBigInts(true);
    const ledger = statement.all(a.id, b.id) as unknown as { [K in keyof LedgerRow]: K extends 'key_id' | 'model' ? string : bigint }[];
    const expected = ledger.map((row) => ({
      key_id: row.key_id,
      key_name: row.key_id === a.id ? 'alpha' : 'beta',
      model: row.model,
      requests: Number(row.requests),
      input_tokens: Number(row.input_tokens),
      output_tokens: Number(row.output_tokens),
      cache_read_tokens: Number(row.cache_read_tokens),
      cache_write_tokens: Number(row.cache_write_tokens),
      cost_cents: centsUp(row.cost),
      cost_usd: usdOf(row.cost),
    }));
    // Every request is in the ledger, at the usage the upstream reported.
    expect(expected.reduce((n, row) => n + row.requests, 0)).toBe(6);
    expect(expected).toContainEqual(
      expect.objectContaining({ key_id: a.id, model: 'priced-upstream', requests: 2, input_tokens: 140, output_tokens: 37, cost_usd: '0.00017700' }),
    );
    expect(expected).toContainEqual(
      expect.objectContaining({ key_id: b.id, model: 'priced-upstream', requests: 1, input_tokens: 2, output_tokens: 3, cost_usd: '0.00000500' }),
    );
    expect(expected.filter((row) => row.model === 'claude-sonnet-4-5' || row.model === 'gpt-4.1-mini')).toHaveLength(2);

    const fleet = await admin<UsageReport>('GET', '/usage?group_by=key,model');
    const ours = fleet.rows.filter((row) => row.key_id === a.id || row.key_id === b.id);
    expect(new Set(ours)).toEqual(new Set(expected));

    // One key's usage: the same rows without the key, and a total equal to its lifetime spend.
    const alpha = await admin<UsageReport>('GET', `/keys/${a.id}/usage?group_by=model`);
    const strip = ({ key_id: _id, key_name: _name, ...rest }: Partial<UsageRow>) => rest;
    expect(new Set(alpha.rows)).toEqual(new Set(expected.filter((row) => row.key_id === a.id).map(strip)));
    const view = await admin<KeyView>('GET', `/keys/${a.id}`);
    expect(alpha.total.cost_usd).toBe(view.lifetime_spent_usd);
    expect(alpha.total.requests).toBe(3);
    // Grouped by day: the UTC dates of the ledger's rows (one, unless the test ran across midnight).
    const perDay = new Map<string, number>();
    for (const row of db.prepare('SELECT created_at FROM spend_ledger WHERE key_id = ?').all(b.id) as { created_at: number }[]) {
      const day = new Date(row.created_at).toISOString().slice(0, 10);
      perDay.set(day, (perDay.get(day) ?? 0) + 1);
    }
    const byDay = await admin<UsageReport>('GET', `/keys/${b.id}/usage?group_by=day`);
    expect(byDay.rows.map((row) => [row.day, row.requests])).toEqual([...perDay].sort());
    expect(byDay.total.requests).toBe(3);
  });

  it('a spend of a fraction of a cent shows as spent: exact in USD, a whole cent rounded up, remaining rounded down', async () => {
    const key = await admin<KeyCreated>('POST', '/keys', { name: 'frugal', budget_cents: 100 }, 201);
    h.upstream.enqueue(pricedAnswer(40, 30)); // 70 tokens at 100 µ¢: 0.007 cents
    await openai(key.secret).chat.completions.create({ model: 'priced', max_completion_tokens: 100, messages: hello });
    expect(await admin<KeyView>('GET', `/keys/${key.id}`)).toMatchObject({
      spent_cents: 1,
      spent_usd: '0.00007000',
      lifetime_spent_cents: 1,
      lifetime_spent_usd: '0.00007000',
      reserved_cents: 0,
      remaining_cents: 99,
      remaining_usd: '0.99993000',
    });
    const usage = await admin<UsageReport>('GET', `/keys/${key.id}/usage`);
    expect(usage.total).toMatchObject({ requests: 1, input_tokens: 40, output_tokens: 30, cost_cents: 1, cost_usd: '0.00007000' });
  });
});

describe("a self-serve key's remaining on POST /auth/token and on the admin API", () => {
  const wall = manualClock(Date.now());
  let g: SelfServeGateway;
  beforeAll(async () => {
    g = await startSelfServeGateway({ wallClock: wall.now });
  });
  afterAll(() => g.close());

  async function exchange(): Promise<TokenAnswer> {
    const response = await g.exchange({ id_token: (await g.issuer.cliTokens('alice')).idToken });
    expect(response.status).toBe(200);
    return (await response.json()) as TokenAnswer;
  }
  const adminView = (id: string) => adminCall<KeyView>(g.h.adminUrl, 'GET', `/keys/${id}`);
  const figures = (view: { budget_cents: number | null; spent_cents: number; remaining_cents: number | null }) => ({
    budget_cents: view.budget_cents,
    spent_cents: view.spent_cents,
    remaining_cents: view.remaining_cents,
  });

  it('budget, spent and remaining are the same figures on both, a lifetime budget and a period one alike', async () => {
    const first = await exchange();
    const client = new OpenAI({ apiKey: first.key, baseURL: first.openai_base_url, maxRetries: 0 });
    g.h.upstream.enqueue({
      json: openaiChatCompletion({ id: 'c', model: 'gpt-4.1-mini', text: 'hi', usage: { prompt_tokens: 1000, completion_tokens: 1000 } }),
    });
    await client.chat.completions.create({ model: 'gpt', messages: hello }); // 0.2 cents at 0.40/1.60 USD per million
    const spent = await exchange();
    expect(figures(spent)).toEqual({ budget_cents: 500, spent_cents: 1, remaining_cents: 499 });
    expect(figures(await adminView(first.key_id))).toEqual(figures(spent));

    // A daily period (PATCH), and the next day: nothing spent in it, the whole budget remains.
    await adminCall<KeyView>(g.h.adminUrl, 'PATCH', `/keys/${first.key_id}`, { budget_period: 'daily' });
    const day = new Date(wall.now());
    wall.set(Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate() + 1));
    const nextDay = await exchange();
    expect(figures(nextDay)).toEqual({ budget_cents: 500, spent_cents: 0, remaining_cents: 500 });
    expect(figures(await adminView(first.key_id))).toEqual(figures(nextDay));
  });
});
