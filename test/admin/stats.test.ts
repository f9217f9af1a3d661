// GET /stats on the admin plane through a real gateway: its shape (checked against the spec by
// the harness), totals after real traffic, requests in flight, breaker state with its deadlines as
// wall-clock times, key counts. Reading it changes nothing: it never takes a half-open probe.
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openaiChatCompletion } from '../../server/demo/openai-replies.ts';
import { FakeClock } from '../routing/fake-clock.ts';
import { startHarness, type Harness } from '../support/gateway-harness.ts';

interface LaneStats {
  lane: string;
  weight: number;
  state: string;
  in_flight: number;
  consecutive_failures: number;
  probe_in_flight: boolean;
  open_until: string | null;
  capacity_cooldown_until: string | null;
  config_cooldown_until: string | null;
  counters: Record<string, number>;
}
interface StatsView {
  version: string;
  started_at: string;
  uptime_seconds: number;
  config_version: string;
  requests: { in_flight: number; total: number; completed: number; failed: number; client_gone: number; failovers: number };
  latency_ms: { window: number; p50: number | null; p90: number | null; p99: number | null };
  ttfb_ms: { window: number; p50: number | null; p90: number | null; p99: number | null };
  tokens: { input_tokens: number; output_tokens: number; cache_read_tokens: number; cache_write_tokens: number; reasoning_tokens: number };
  spent_cents: number;
  spent_usd: string;
  pools: { pool: string; failovers: number; lanes: LaneStats[] }[];
  keys?: { total: number; active: number; revoked: number };
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const clock = new FakeClock();
let h: Harness;

beforeAll(async () => {
  h = await startHarness({
    clock,
    extraModelsYaml: '  priced: { provider: openai, model: priced-upstream, price: { input: 2, output: 8 } }\n',
    breakerYaml: 'breaker: { consecutive_failures: 2, open_ms: 10000, jitter: 0, rate_limit_cooldown_ms: 15000 }\n',
    extraYaml: 'pools:\n  chat: { members: [ { model: priced, weight: 3 }, { model: claude } ] }\n',
  });
});
afterAll(() => h.close());
beforeEach(() => h.upstream.reset());

const stats = async (harness = h): Promise<StatsView> => {
  const res = await fetch(`${harness.adminUrl}/stats`);
  expect(res.status).toBe(200);
  return (await res.json()) as StatsView;
};
const lane = (view: StatsView, pool: string, name: string) => view.pools.find((p) => p.pool === pool)!.lanes.find((l) => l.lane === name)!;
const ask = (model: string) =>
  fetch(`${h.url}/v1/chat/completions`, { method: 'POST', body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }) });

describe('GET /stats', () => {
  it('answers a snapshot of a fresh gateway: nothing counted yet, every pool and lane closed, no keys section without a store', async () => {
    const view = await stats();
    expect(view.config_version).toBe(h.gateway.config.configVersion);
    expect(view.started_at).toMatch(ISO);
    expect(view.uptime_seconds).toBeGreaterThanOrEqual(0);
    expect(view.requests).toEqual({ in_flight: 0, total: 0, completed: 0, failed: 0, client_gone: 0, failovers: 0 });
    expect(view.latency_ms).toEqual({ window: 0, p50: null, p90: null, p99: null });
    expect(view.tokens).toEqual({ input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 });
    expect([view.spent_cents, view.spent_usd]).toEqual([0, '0.00000000']);
    expect(view.pools.map((p) => p.pool)).toEqual(['gpt', 'claude', 'claude-default-tokens', 'priced', 'chat']);
    expect(view.pools.find((p) => p.pool === 'chat')?.lanes.map((l) => [l.lane, l.weight, l.state])).toEqual([
      ['priced', 3, 'closed'],
      ['claude', 1, 'closed'],
    ]);
    expect(lane(view, 'gpt', 'gpt')).toEqual({
      lane: 'gpt',
      weight: 1,
      state: 'closed',
      in_flight: 0,
      consecutive_failures: 0,
      probe_in_flight: false,
      open_until: null,
      capacity_cooldown_until: null,
      config_cooldown_until: null,
      counters: { successes: 0, lane_faults: 0, capacity_faults: 0, config_faults: 0, client_faults: 0, trips: 0 },
    });
    expect(view).not.toHaveProperty('keys');
  });

  it('after traffic: request totals, tokens and spend add up; latency percentiles appear', async () => {
    const before = await stats();
    const client = new OpenAI({ apiKey: 'client-key', baseURL: `${h.url}/v1`, maxRetries: 0 });
    for (let i = 0; i < 3; i++) {
      h.upstream.enqueue({
        json: openaiChatCompletion({ id: `c${i}`, model: 'priced-upstream', text: 'ok', usage: { prompt_tokens: 1000, completion_tokens: 500 } }),
      });
      await client.chat.completions.create({ model: 'priced', messages: [{ role: 'user', content: 'hi' }] });
    }
    await client.chat.completions.create({ model: 'nope', messages: [{ role: 'user', content: 'hi' }] }).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 50)); // records are handed over just after the response ends
    const after = await stats();
    expect(after.requests.total - before.requests.total).toBe(4);
    expect(after.requests.completed - before.requests.completed).toBe(3);
    expect(after.requests.failed - before.requests.failed).toBe(1);
    expect(after.tokens.input_tokens - before.tokens.input_tokens).toBe(3000);
    expect(after.tokens.output_tokens - before.tokens.output_tokens).toBe(1500);
    // 3 x (1000 x $2 + 500 x $8) per million tokens = 3 x $0.006
    expect(after.spent_usd).toBe('0.01800000');
    expect(after.spent_cents).toBe(2);
    expect(after.latency_ms.window).toBe(before.latency_ms.window + 3);
    expect(after.latency_ms.p50).toBeGreaterThan(0);
    expect(after.latency_ms.p99).toBeGreaterThanOrEqual(after.latency_ms.p50!);
    expect(after.ttfb_ms.window).toBeGreaterThanOrEqual(3);
    expect(lane(after, 'priced', 'priced').counters.successes).toBe(3);
    expect(after.requests.in_flight).toBe(0);
  });

  it('counts requests in flight, on the gateway and on their lane', async () => {
    h.upstream.enqueue({ fault: 'hang' });
    const leave = new AbortController();
    const pending = fetch(`${h.url}/v1/chat/completions`, {
      method: 'POST',
      signal: leave.signal,
      body: JSON.stringify({ model: 'gpt', messages: [{ role: 'user', content: 'x' }] }),
    }).catch(() => undefined);
    await waitFor(() => h.upstream.requests.length === 1);
    const during = await stats();
    expect(during.requests.in_flight).toBe(1);
    expect(lane(during, 'gpt', 'gpt').in_flight).toBe(1);
    leave.abort();
    await pending;
    await waitFor(async () => (await stats()).requests.in_flight === 0);
    expect(lane(await stats(), 'gpt', 'gpt').in_flight).toBe(0);
  });

  it('shows a tripped breaker with its deadline as a time; reading it never takes the half-open probe', async () => {
    const boom = { status: 500, json: { error: { message: 'boom', type: 'server_error', param: null, code: null } } };
    h.upstream.enqueue(boom, boom);
    expect((await ask('gpt')).status).toBe(500);
    expect((await ask('gpt')).status).toBe(500);
    const open = lane(await stats(), 'gpt', 'gpt');
    expect(open).toMatchObject({ state: 'open', consecutive_failures: 0, probe_in_flight: false, counters: { lane_faults: 2, trips: 1 } });
    expect(Date.parse(open.open_until!) - Date.now()).toBeGreaterThan(9000);
    expect(Date.parse(open.open_until!) - Date.now()).toBeLessThanOrEqual(10_000);
    expect((await ask('gpt')).status).toBe(503); // open: nothing goes upstream
    expect(h.upstream.requests).toHaveLength(2);

    clock.advance(10_001);
    for (let i = 0; i < 5; i++) {
      expect(lane(await stats(), 'gpt', 'gpt')).toMatchObject({ state: 'half_open', open_until: null, probe_in_flight: false });
    }
    // The probe is still there for a real request, which closes the breaker.
    expect((await ask('gpt')).status).toBe(200);
    expect(h.upstream.requests).toHaveLength(3);
    expect(lane(await stats(), 'gpt', 'gpt')).toMatchObject({ state: 'closed', counters: { successes: 1, trips: 1 } });
  });

  it("shows a 429's capacity cooldown until its Retry-After", async () => {
    h.upstream.enqueue({
      status: 429,
      headers: { 'retry-after': '30' },
      json: { error: { message: 'slow down', type: 'requests', param: null, code: 'rate_limit_exceeded' } },
    });
    await ask('claude-default-tokens').catch(() => undefined);
    const cooling = lane(await stats(), 'claude-default-tokens', 'claude-default-tokens');
    expect(cooling.capacity_cooldown_until).toMatch(ISO);
    expect(Date.parse(cooling.capacity_cooldown_until!) - Date.now()).toBeGreaterThan(29_000);
    expect(cooling.counters.capacity_faults).toBe(1);
    clock.advance(30_001);
    expect(lane(await stats(), 'claude-default-tokens', 'claude-default-tokens').capacity_cooldown_until).toBeNull();
  });
});

describe('GET /stats with a key store and an admin token', () => {
  it('counts keys (total, active, revoked), behind the admin token', async () => {
    const token = 'stats-admin-token';
    const g = await startHarness({ extraYaml: 'db_path: ./gateway.db\n', env: { GATEWAY_ADMIN_TOKEN: token } });
    try {
      expect((await fetch(`${g.adminUrl}/stats`)).status).toBe(401);
      const headers = { 'x-admin-token': token, 'content-type': 'application/json' };
      const ids: string[] = [];
      for (let i = 0; i < 3; i++)
        ids.push(((await (await fetch(`${g.adminUrl}/api/v1/admin/keys`, { method: 'POST', headers, body: '{}' })).json()) as { id: string }).id);
      await fetch(`${g.adminUrl}/api/v1/admin/keys/${ids[0]}`, { method: 'DELETE', headers });
      const view = (await (await fetch(`${g.adminUrl}/stats`, { headers })).json()) as StatsView;
      expect(view.keys).toEqual({ total: 3, active: 2, revoked: 1 });
      // The data plane's /stats (governance off here: open) never shows the key store's counts.
      const dataPlane = (await (await fetch(`${g.url}/stats`)).json()) as StatsView;
      expect(dataPlane.pools.length).toBe(view.pools.length);
      expect(dataPlane.keys).toBeUndefined();
    } finally {
      await g.close();
    }
  });
});

async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
