// Key fields, PATCH, rotation, usage and teams (client 1.4.0) with the generated TypeScript
// client against the live gateway of scripts/test.sh (models demo and demo-claude, pool demo-pool,
// team research).
import { describe, expect, it } from 'vitest';
import {
  createAdminClient,
  deleteApiV1AdminKeysById,
  getApiV1AdminKeysById,
  getApiV1AdminKeysByIdUsage,
  getApiV1AdminTeams,
  getApiV1AdminUsage,
  patchApiV1AdminKeysById,
  postApiV1AdminKeys,
  postApiV1AdminKeysByIdRotate,
  type KeyCreated,
} from '../src/index.ts';

const endpoint = process.env.GATEWAY_ENDPOINT;
const token = process.env.GATEWAY_ADMIN_TOKEN;
if (endpoint === undefined || token === undefined) throw new Error('GATEWAY_ENDPOINT and GATEWAY_ADMIN_TOKEN must be set: run clients-ts/scripts/test.sh');
const client = createAdminClient({ endpoint, token });

async function createKey(body: Parameters<typeof postApiV1AdminKeys>[0]['body']): Promise<KeyCreated> {
  const { data, error, response } = await postApiV1AdminKeys({ client, body });
  expect(error).toBeUndefined();
  expect(response?.status).toBe(201);
  if (data === undefined) throw new Error('no key');
  return data;
}

describe('key fields', () => {
  it('creates a key with a period budget, tpm, an allow-list, an expiry, a team and labels', async () => {
    const key = await createKey({
      name: 'ts-limits',
      budget_cents: 2000,
      budget_period: 'weekly',
      tpm: 50_000,
      models: ['demo', 'demo-pool'],
      expires_at: '2099-01-01T00:00:00Z',
      team: 'research',
      metadata: { client: 'ts' },
    });
    expect(key).toMatchObject({
      budget_cents: 2000,
      budget_period: 'weekly',
      spent_usd: '0.00000000',
      remaining_usd: '20.00000000',
      tpm: 50_000,
      models: ['demo', 'demo-pool'],
      expires_at: '2099-01-01T00:00:00.000Z',
      team: 'research',
      metadata: { client: 'ts' },
      self_serve: false,
    });
    expect(new Date(key.period_started_at!).getUTCDay()).toBe(1); // a week starts on Monday
  });

  it('refuses a model the gateway does not have, naming it (400)', async () => {
    const { error, response } = await postApiV1AdminKeys({ client, body: { models: ['demo', 'gpt-9'] } });
    expect(response?.status).toBe(400);
    expect(error?.error.code).toBe('invalid_request');
    expect(error?.error.message).toContain('"gpt-9"');
  });
});

describe('PATCH a key', () => {
  it('changes the members given, leaves the others, and null clears', async () => {
    const key = await createKey({ name: 'ts-patch', budget_cents: 100, rpm: 10, models: ['demo'] });
    const raised = await patchApiV1AdminKeysById({ client, path: { id: key.id }, body: { budget_cents: 500, budget_period: 'monthly' } });
    expect(raised.error).toBeUndefined();
    expect(raised.data).toMatchObject({ name: 'ts-patch', budget_cents: 500, budget_period: 'monthly', rpm: 10, models: ['demo'] });
    const cleared = await patchApiV1AdminKeysById({ client, path: { id: key.id }, body: { rpm: null, models: null, budget_period: null } });
    expect(cleared.data).toMatchObject({ budget_cents: 500, budget_period: null, rpm: null, models: null });
    const got = await getApiV1AdminKeysById({ client, path: { id: key.id } });
    expect(got.data).toEqual(cleared.data);
  });

  it('answers 404 for an unknown key', async () => {
    const { error, response } = await patchApiV1AdminKeysById({ client, path: { id: 'key_00000000000000000000000000' }, body: { name: 'x' } });
    expect(response?.status).toBe(404);
    expect(error?.error.code).toBe('not_found');
  });
});

describe('rotation', () => {
  it('a new secret for the same key; with a grace the old one has an end', async () => {
    const key = await createKey({ name: 'ts-rotate' });
    const { data, error, response } = await postApiV1AdminKeysByIdRotate({ client, path: { id: key.id }, body: { grace_seconds: 60 } });
    expect(error).toBeUndefined();
    expect(response?.headers.get('cache-control')).toBe('no-store');
    expect(data?.id).toBe(key.id);
    expect(data?.secret).toMatch(/^gwk_[A-Za-z0-9_-]{43}$/);
    expect(data?.secret).not.toBe(key.secret);
    const until = Date.parse(data!.previous_secret_until!) - Date.parse(data!.rotated_at!);
    expect(until).toBe(60_000);
  });

  it('a revoked key: 409 key_revoked', async () => {
    const key = await createKey({});
    await deleteApiV1AdminKeysById({ client, path: { id: key.id } });
    const { error, response } = await postApiV1AdminKeysByIdRotate({ client, path: { id: key.id }, body: {} });
    expect(response?.status).toBe(409);
    expect(error?.error.code).toBe('key_revoked');
  });
});

describe('usage and teams', () => {
  it('the usage report: the range and groups asked for, rows and a total', async () => {
    const { data, error } = await getApiV1AdminUsage({ client, query: { from: '2026-01-01', group_by: 'day,model' } });
    expect(error).toBeUndefined();
    expect(data).toMatchObject({ from: '2026-01-01T00:00:00.000Z', to: null, group_by: ['day', 'model'] });
    expect(data?.total.cost_usd).toMatch(/^\d+\.\d{8}$/);
    const bad = await getApiV1AdminUsage({ client, query: { group_by: 'week' } });
    expect(bad.response?.status).toBe(400);
    expect(bad.error?.error.message).toContain('week');
  });

  it("a key's usage; 404 for an unknown key", async () => {
    const key = await createKey({});
    const { data } = await getApiV1AdminKeysByIdUsage({ client, path: { id: key.id } });
    expect(data?.total).toMatchObject({ requests: 0, cost_cents: 0, cost_usd: '0.00000000' });
    const missing = await getApiV1AdminKeysByIdUsage({ client, path: { id: 'key_00000000000000000000000000' } });
    expect(missing.response?.status).toBe(404);
  });

  it('the teams: the configured team with its keys', async () => {
    await createKey({ team: 'research' });
    const { data, error } = await getApiV1AdminTeams({ client });
    expect(error).toBeUndefined();
    const research = data?.data.find((t) => t.name === 'research');
    expect(research).toMatchObject({ configured: true, spent_usd: '0.00000000' });
    expect(research!.keys).toBeGreaterThanOrEqual(1);
  });
});
