// The generated TypeScript admin client against a live gateway (scripts/test.sh starts one with
// test/support/live-gateway.ts: demo upstream, models demo and demo-claude, pool demo-pool, a
// fresh SQLite store, and GATEWAY_ENDPOINT / GATEWAY_ADMIN_TOKEN in the environment).
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  createAdminClient,
  deleteApiV1AdminKeysById,
  getApiV1AdminConfig,
  getApiV1AdminConfigDiff,
  getApiV1AdminConfigVersion,
  getApiV1AdminConfigVersions,
  getApiV1AdminHooks,
  getApiV1AdminInfo,
  getApiV1AdminKeys,
  getApiV1AdminKeysById,
  getMetrics,
  getStats,
  isTransportError,
  postApiV1AdminConfigRollback,
  postApiV1AdminConfigValidate,
  postApiV1AdminKeys,
  postApiV1AdminStoreBackup,
  postAuthToken,
} from '../src/index.ts';

const endpoint = process.env.GATEWAY_ENDPOINT;
const token = process.env.GATEWAY_ADMIN_TOKEN;
const dataUrl = process.env.GATEWAY_DATA_URL;
if (endpoint === undefined || token === undefined || dataUrl === undefined) {
  throw new Error('GATEWAY_ENDPOINT, GATEWAY_ADMIN_TOKEN and GATEWAY_DATA_URL must be set: run clients-ts/scripts/test.sh');
}
const SERVER_VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
const client = createAdminClient({ endpoint, token });
/** A loopback port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
const KEY_ID = /^key_[0-9A-Z]{26}$/;
const CONFIG_VERSION = /^cfg_[0-9a-f]{16}$/;

describe('info', () => {
  it('returns the InfoView: server version, topology, build, config version', async () => {
    const { data, error, response } = await getApiV1AdminInfo({ client });
    expect(error).toBeUndefined();
    expect(response?.status).toBe(200);
    if (data === undefined) throw new Error('no data');
    expect(data.version).toBe(SERVER_VERSION);
    expect(data.topology.models.map((m) => m.name)).toEqual(['demo', 'demo-claude']);
    expect(data.topology.models.map((m) => [m.provider, m.protocol, m.upstream_model])).toEqual([
      ['demo', 'openai', 'demo-echo'],
      ['demo-anthropic', 'anthropic', 'demo-echo'],
    ]);
    expect(data.topology.pools.map((p) => p.name)).toEqual(['demo-pool']);
    expect(data.topology.pools[0]?.members.map((m) => [m.model, m.weight])).toEqual([
      ['demo', 2],
      ['demo-claude', 1],
    ]);
    expect(data.uptime_seconds).toBeGreaterThanOrEqual(0);
    expect(data.build.node).toBe(process.versions.node); // the gateway and this suite both run on the repo's Node
    expect(data.build.modules).toEqual(expect.arrayContaining(['protocol:openai', 'protocol:anthropic', 'admin']));
    expect(data.config_version).toMatch(CONFIG_VERSION);
  });

  it('accepts a trailing slash on the endpoint', async () => {
    const { data, error } = await getApiV1AdminInfo({ client: createAdminClient({ endpoint: `${endpoint}/`, token }) });
    expect(error).toBeUndefined();
    expect(data?.version).toBe(SERVER_VERSION);
  });
});

describe('keys', () => {
  it('creates a key (201, secret once), lists it without a secret, gets it, revokes it', async () => {
    const created = await postApiV1AdminKeys({ client, body: { name: 'ts-client-test', owner: 'clients-ts', budget_cents: 1234, rpm: 60 } });
    expect(created.error).toBeUndefined();
    expect(created.response?.status).toBe(201);
    const key = created.data;
    if (key === undefined) throw new Error('no data');
    expect(key.id).toMatch(KEY_ID);
    expect(key.secret).toMatch(/^gwk_[A-Za-z0-9_-]{43}$/);
    expect(key.prefix).toBe(key.secret.slice(0, 8));
    expect(key).toMatchObject({
      name: 'ts-client-test',
      owner: 'clients-ts',
      budget_cents: 1234,
      spent_cents: 0,
      remaining_cents: 1234,
      rpm: 60,
      last_used_at: null,
      revoked_at: null,
    });

    const listed = await getApiV1AdminKeys({ client });
    expect(listed.error).toBeUndefined();
    expect(listed.response?.status).toBe(200);
    const row = listed.data?.data.find((k) => k.id === key.id);
    expect(row).toBeDefined();
    expect(row).not.toHaveProperty('secret');
    expect(listed.data?.data.every((k) => !('secret' in k))).toBe(true);
    expect(row).toEqual({
      id: key.id,
      name: 'ts-client-test',
      owner: 'clients-ts',
      prefix: key.prefix,
      budget_cents: 1234,
      budget_period: null,
      spent_cents: 0,
      spent_usd: '0.00000000',
      lifetime_spent_cents: 0,
      lifetime_spent_usd: '0.00000000',
      reserved_cents: 0,
      reserved_usd: '0.00000000',
      remaining_cents: 1234,
      remaining_usd: '12.34000000',
      period_started_at: null,
      rpm: 60,
      tpm: null,
      models: null,
      expires_at: null,
      team: null,
      metadata: {},
      self_serve: false,
      created_at: key.created_at,
      last_used_at: null,
      revoked_at: null,
      rotated_at: null,
      previous_secret_until: null,
    });

    const one = await getApiV1AdminKeysById({ client, path: { id: key.id } });
    expect(one.response?.status).toBe(200);
    expect(one.data).toEqual(row);

    const revoked = await deleteApiV1AdminKeysById({ client, path: { id: key.id } });
    expect(revoked.error).toBeUndefined();
    expect(revoked.response?.status).toBe(200);
    expect(revoked.data?.id).toBe(key.id);
    expect(revoked.data?.revoked_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const after = await getApiV1AdminKeysById({ client, path: { id: key.id } });
    expect(after.data?.revoked_at).toBe(revoked.data?.revoked_at);
  });

  it('creates a key with no limits when the body is empty', async () => {
    const { data, response } = await postApiV1AdminKeys({ client, body: {} });
    expect(response?.status).toBe(201);
    expect(data).toMatchObject({ name: null, owner: null, budget_cents: null, remaining_cents: null, rpm: null });
  });

  it('answers 404 with an ErrorView for an unknown key id (get and revoke)', async () => {
    const id = 'key_00000000000000000000000000';
    for (const result of [await getApiV1AdminKeysById({ client, path: { id } }), await deleteApiV1AdminKeysById({ client, path: { id } })]) {
      expect(result.data).toBeUndefined();
      expect(result.response?.status).toBe(404);
      expect(result.error).toEqual({ error: { code: 'not_found', message: `no key with id "${id}"` } });
    }
  });

  it('answers 400 with an ErrorView for an invalid body', async () => {
    const { data, error, response } = await postApiV1AdminKeys({ client, body: { rpm: 0 } });
    expect(data).toBeUndefined();
    expect(response?.status).toBe(400);
    expect(error?.error.code).toBe('invalid_request');
    expect(error?.error.message).toContain('rpm');
  });
});

describe('config version', () => {
  it('returns the running config version, the same as in info', async () => {
    const [{ data, error, response }, info] = await Promise.all([getApiV1AdminConfigVersion({ client }), getApiV1AdminInfo({ client })]);
    expect(error).toBeUndefined();
    expect(response?.status).toBe(200);
    expect(data?.config_version).toMatch(CONFIG_VERSION);
    expect(data?.config_version).toBe(info.data?.config_version);
    expect(Date.parse(data?.loaded_at ?? '')).toBeLessThanOrEqual(Date.now());
  });
});

describe('configuration', () => {
  it("shows the running configuration (the hook URL's token masked) as version 1 of the history", async () => {
    const [{ data, error }, versions] = await Promise.all([getApiV1AdminConfig({ client }), getApiV1AdminConfigVersions({ client })]);
    expect(error).toBeUndefined();
    expect(data?.version).toBe(1);
    expect(data?.writable).toBe(true);
    expect(data?.yaml).toContain('/gate?token=***');
    expect(data?.yaml).not.toContain('live-hook-secret');
    expect(versions.data).toMatchObject({ stored: true, data: [{ version: 1, trigger: 'start', current: true, config_version: data?.config_version }] });
  });

  it('validates a YAML body (sent as application/yaml): its problems, nothing applied', async () => {
    const bad = await postApiV1AdminConfigValidate({ client, body: 'models: { x: { provider: nowhere, model: m } }\n' as unknown as Blob });
    expect(bad.data?.valid).toBe(false);
    expect(bad.data?.problems.join('\n')).toMatch(/config\.yaml:1:\d+: models\.x\.provider: unknown provider "nowhere"/);
    expect((await getApiV1AdminConfigVersions({ client })).data?.data).toHaveLength(1);
  });

  it('answers a diff or a rollback with nothing before version 1 with an ErrorView', async () => {
    const diff = await getApiV1AdminConfigDiff({ client, query: { from: 7 } });
    expect(diff.response?.status).toBe(404);
    expect(diff.error).toMatchObject({ error: { code: 'not_found' } });
    const rollback = await postApiV1AdminConfigRollback({ client, body: {} });
    expect(rollback.response?.status).toBe(409);
    expect(rollback.error).toMatchObject({ error: { code: 'no_previous_version' } });
  });
});

/** One chat request on the data plane (the live gateway's demo upstream answers it). */
async function chat(): Promise<void> {
  const res = await fetch(`${dataUrl}/v1/chat/completions`, {
    method: 'POST',
    body: JSON.stringify({ model: 'demo', messages: [{ role: 'user', content: 'hi' }] }),
  });
  expect(res.status).toBe(200);
  await res.arrayBuffer();
}

describe('hooks', () => {
  it('lists the gate and the webhook with masked targets, events and counters', async () => {
    await chat();
    const { data, error, response } = await getApiV1AdminHooks({ client });
    expect(error).toBeUndefined();
    expect(response?.status).toBe(200);
    if (data === undefined) throw new Error('no data');
    expect(data.data.map((h) => [h.name, h.kind, h.events, h.timeout_ms])).toEqual([
      ['policy', 'gate', ['request.gate'], 2000],
      ['audit', 'webhook', ['request.completed', 'request.failed'], 5000],
    ]);
    const [gate, webhook] = data.data;
    expect(gate?.target).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/gate\?token=\*\*\*$/);
    expect(JSON.stringify(data)).not.toContain('live-hook-secret');
    expect(gate?.on_error).toBe('allow');
    expect(gate?.gate?.calls).toBeGreaterThanOrEqual(1);
    expect(gate?.gate?.allowed).toBe(gate?.gate?.calls);
    expect(gate?.delivery).toBeUndefined();
    expect(webhook?.delivery).toMatchObject({ failed: 0, dropped: 0 });
    expect(webhook?.gate).toBeUndefined();
  });
});

describe('stats', () => {
  it('returns the StatsView; a chat request shows in the totals', async () => {
    const before = await getStats({ client });
    expect(before.error).toBeUndefined();
    expect(before.response?.status).toBe(200);
    await chat();
    await new Promise((resolve) => setTimeout(resolve, 50)); // the request's record follows its answer
    const { data } = await getStats({ client });
    if (data === undefined || before.data === undefined) throw new Error('no data');
    expect(data.version).toBe(SERVER_VERSION);
    expect(data.config_version).toMatch(CONFIG_VERSION);
    expect(data.requests.total).toBeGreaterThan(before.data.requests.total);
    expect(data.requests.completed).toBeGreaterThan(before.data.requests.completed);
    expect(data.requests.in_flight).toBe(0);
    expect(data.latency_ms.window).toBeGreaterThanOrEqual(1);
    expect(data.latency_ms.p50).toBeGreaterThan(0);
    expect(data.tokens.output_tokens).toBeGreaterThan(0);
    expect(data.spent_usd).toMatch(/^\d+\.\d{8}$/);
    expect(data.pools.find((p) => p.pool === 'demo-pool')?.lanes.map((l) => [l.lane, l.weight, l.state])).toEqual([
      ['demo', 2, 'closed'],
      ['demo-claude', 1, 'closed'],
    ]);
    const demo = data.pools.find((p) => p.pool === 'demo')?.lanes[0];
    expect(demo).toMatchObject({ open_until: null, capacity_cooldown_until: null, config_cooldown_until: null, probe_in_flight: false });
    expect(demo?.counters.successes).toBeGreaterThanOrEqual(1);
    expect(data.keys?.total).toBeGreaterThanOrEqual(0);
    expect(data.keys?.active).toBe((data.keys?.total ?? 0) - (data.keys?.revoked ?? 0));
  });

  it('a wrong token: 401', async () => {
    const { data, response, error } = await getStats({ client: createAdminClient({ endpoint, token: 'wrong-token' }) });
    expect(data).toBeUndefined();
    expect(response?.status).toBe(401);
    expect(error?.error.code).toBe('unauthorized');
  });
});

describe('metrics (data plane)', () => {
  it('GET /metrics answers Prometheus text without a token', async () => {
    await chat();
    const { data, response } = await getMetrics({ client: createAdminClient({ endpoint: dataUrl }), parseAs: 'text' });
    expect(response?.status).toBe(200);
    expect(response?.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(data).toMatch(/^gateway_requests_total\{.*\} [1-9]/m);
  });
});

describe('errors', () => {
  it('a wrong token: error is the 401 ErrorView, data undefined', async () => {
    const { data, error, response } = await getApiV1AdminInfo({ client: createAdminClient({ endpoint, token: 'wrong-token' }) });
    expect(data).toBeUndefined();
    expect(response?.status).toBe(401);
    expect(error).toEqual({ error: { code: 'unauthorized', message: 'a valid admin token is required (x-admin-token or Authorization: Bearer)' } });
    expect(isTransportError(error)).toBe(false);
  });

  it('no token: 401 too', async () => {
    const { data, response, error } = await getApiV1AdminKeys({ client: createAdminClient({ endpoint }) });
    expect(data).toBeUndefined();
    expect(response?.status).toBe(401);
    expect(error?.error.code).toBe('unauthorized');
  });

  it('the bearer form of the token works as well', async () => {
    const bearer = createAdminClient({ endpoint });
    const { data, response } = await getApiV1AdminInfo({ client: bearer, headers: { authorization: `Bearer ${token}` } });
    expect(response?.status).toBe(200);
    expect(data?.version).toBe(SERVER_VERSION);
  });

  it('an unreachable endpoint: a transport error, no response', async () => {
    const port = await closedPort();
    const { data, error, response } = await getApiV1AdminInfo({ client: createAdminClient({ endpoint: `http://127.0.0.1:${port}`, token }) });
    expect(data).toBeUndefined();
    expect(response).toBeUndefined();
    expect(isTransportError(error)).toBe(true);
  });

  it('a custom fetch is used for every request', async () => {
    const seen: string[] = [];
    const custom = createAdminClient({
      endpoint,
      token,
      fetch: (request) => {
        seen.push(`${request.method} ${new URL(request.url).pathname} ${request.headers.get('x-admin-token')}`);
        return fetch(request);
      },
    });
    await getApiV1AdminConfigVersion({ client: custom });
    expect(seen).toEqual([`GET /api/v1/admin/config/version ${token}`]);
  });
});

describe("the data plane's POST /auth/token", () => {
  it('answers a gateway without self-serve keys with a 404 ErrorView', async () => {
    const dataUrl = process.env.GATEWAY_DATA_URL;
    if (dataUrl === undefined) throw new Error('GATEWAY_DATA_URL must be set: run clients-ts/scripts/test.sh');
    const { data, error, response } = await postAuthToken({ client: createAdminClient({ endpoint: dataUrl, token }), body: { id_token: 'a.b.c' } });
    expect(data).toBeUndefined();
    expect(response?.status).toBe(404);
    expect(error?.error.code).toBe('self_serve_disabled');
  });
});

describe('POST /api/v1/admin/store/backup', () => {
  it('answers the embedded store as a SQLite file (a Blob)', async () => {
    const { data, error, response } = await postApiV1AdminStoreBackup({ client });
    expect(error).toBeUndefined();
    expect(response?.status).toBe(200);
    expect(response?.headers.get('content-type')).toBe('application/vnd.sqlite3');
    if (data === undefined) throw new Error('no data');
    const bytes = Buffer.from(await data.arrayBuffer());
    expect(bytes.subarray(0, 16).toString('latin1')).toBe('SQLite format 3\0');
  });
});
