// The key operations of the admin API through a real admin server backed by a real SQLite file:
// create (secret shown once), list and get (never a secret), revoke (in force at once), config
// version, and every bad input answered 400 (or 413/415) with nothing written.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalGovernance } from '../../server/governance/governance.ts';
import type { GatewayFailure } from '../../server/ir/error.ts';
import { openGovernance, tempDbPath, usage } from '../governance/support.ts';
import { startAdmin, type AdminServer } from './admin-server.ts';

const KEYS = '/api/v1/admin/keys';
const KEY_VIEW_FIELDS = [
  'budget_cents',
  'budget_period',
  'created_at',
  'expires_at',
  'id',
  'last_used_at',
  'lifetime_spent_cents',
  'lifetime_spent_usd',
  'metadata',
  'models',
  'name',
  'owner',
  'period_started_at',
  'prefix',
  'previous_secret_until',
  'remaining_cents',
  'remaining_usd',
  'reserved_cents',
  'reserved_usd',
  'revoked_at',
  'rotated_at',
  'rpm',
  'self_serve',
  'spent_cents',
  'spent_usd',
  'team',
  'tpm',
];
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

interface KeyView {
  id: string;
  name: string | null;
  owner: string | null;
  prefix: string;
  budget_cents: number | null;
  spent_cents: number;
  remaining_cents: number | null;
  rpm: number | null;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}
interface ErrorView {
  error: { code: string; message: string };
}

/** No models, pools or teams: the key operations alone. */
const BARE_YAML = 'admin_listen: 127.0.0.1:0\nlog_level: silent\n';

function post(url: string, body: string, headers: Record<string, string> = { 'content-type': 'application/json' }): Promise<Response> {
  return fetch(url, { method: 'POST', headers, body });
}

async function expectError(response: Response, status: number, code: string): Promise<string> {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  const body = (await response.json()) as ErrorView;
  expect(Object.keys(body)).toEqual(['error']);
  expect(Object.keys(body.error).sort()).toEqual(['code', 'message']);
  expect(body.error.code).toBe(code);
  return body.error.message;
}

describe('admin key operations', () => {
  let governance: LocalGovernance;
  let admin: AdminServer;
  beforeAll(async () => {
    governance = openGovernance(tempDbPath());
    admin = await startAdmin(governance, BARE_YAML);
  });
  afterAll(async () => {
    await admin.close();
    governance.close();
  });

  async function create(body: object): Promise<KeyView & { secret: string }> {
    const response = await post(`${admin.url}${KEYS}`, JSON.stringify(body));
    expect(response.status).toBe(201);
    expect(response.headers.get('cache-control')).toBe('no-store');
    return (await response.json()) as KeyView & { secret: string };
  }

  it('creates a key and shows its secret once, with the gwk_ prefix', async () => {
    const before = Date.now();
    const created = await create({ name: 'ci pipeline', owner: 'platform', budget_cents: 2500, rpm: 60 });
    expect(Object.keys(created).sort()).toEqual([...KEY_VIEW_FIELDS, 'secret'].sort());
    expect(created.secret).toMatch(/^gwk_[A-Za-z0-9_-]{43}$/);
    expect(created).toMatchObject({
      name: 'ci pipeline',
      owner: 'platform',
      prefix: created.secret.slice(0, 8),
      budget_cents: 2500,
      budget_period: null,
      spent_cents: 0,
      spent_usd: '0.00000000',
      lifetime_spent_cents: 0,
      reserved_cents: 0,
      remaining_cents: 2500,
      remaining_usd: '25.00000000',
      period_started_at: null,
      rpm: 60,
      tpm: null,
      models: null,
      expires_at: null,
      team: null,
      metadata: {},
      self_serve: false,
      last_used_at: null,
      revoked_at: null,
      rotated_at: null,
      previous_secret_until: null,
    });
    expect(created.id).toMatch(/^key_[0-9A-Z]{26}$/);
    expect(created.created_at).toMatch(ISO);
    expect(Date.parse(created.created_at)).toBeGreaterThanOrEqual(before - 1);
    // The secret works on the data plane's side of governance.
    expect(governance.authenticate({ authorization: `Bearer ${created.secret}` }, new URLSearchParams()).id).toBe(created.id);
  });

  it('creates a key with nothing set: no name, no budget, no limit', async () => {
    const created = await create({});
    expect(created).toMatchObject({ name: null, owner: null, budget_cents: null, remaining_cents: null, rpm: null, spent_cents: 0 });
  });

  it('takes the largest budget there is, exactly', async () => {
    const created = await create({ budget_cents: 1e12, rpm: 1_000_000 });
    expect(created).toMatchObject({ budget_cents: 1e12, remaining_cents: 1e12, rpm: 1_000_000 });
    expect(governance.getKey(created.id)?.budgetMicrocents).toBe(10n ** 18n);
  });

  it('lists keys without secrets, with their spend in cents (rounded up) and what is left', async () => {
    const created = await create({ name: 'spender', budget_cents: 100 });
    const reservation = governance.admit(created, { worstCaseMicrocents: 5_000_000n, priced: true, worstCaseTokens: 0 });
    await governance.settle(reservation, {
      costMicrocents: 1_500_001n,
      usage: usage(10, 10),
      requestId: `list-${created.id}`,
      model: 'gpt',
      lane: 'openai/gpt',
      estimated: false,
    });
    const response = await fetch(`${admin.url}${KEYS}`);
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).not.toContain(created.secret);
    expect(text).not.toContain(created.secret.slice(8));
    expect(text).not.toContain('"secret"');
    const list = JSON.parse(text) as { data: KeyView[] };
    expect(Object.keys(list)).toEqual(['data']);
    for (const key of list.data) expect(Object.keys(key).sort()).toEqual(KEY_VIEW_FIELDS);
    expect(list.data.find((k) => k.id === created.id)).toMatchObject({
      spent_cents: 2,
      spent_usd: '0.01500001',
      lifetime_spent_cents: 2,
      lifetime_spent_usd: '0.01500001',
      reserved_cents: 0,
      remaining_cents: 98,
      remaining_usd: '0.98499999',
      budget_cents: 100,
    });
    const ids = list.data.map((k) => k.id);
    expect(ids.indexOf(created.id)).toBe(ids.length - 1); // oldest first
  });

  it('gets one key by id, without its secret', async () => {
    const created = await create({ name: 'one' });
    const response = await fetch(`${admin.url}${KEYS}/${created.id}`);
    expect(response.status).toBe(200);
    const { secret, ...view } = created;
    const text = await response.text();
    expect(text).not.toContain(secret);
    expect(JSON.parse(text)).toEqual(view);
  });

  it('revokes a key: authentication fails from the next request; revoking again answers the same', async () => {
    const created = await create({ name: 'leaked' });
    const revoked = await fetch(`${admin.url}${KEYS}/${created.id}`, { method: 'DELETE' });
    expect(revoked.status).toBe(200);
    const view = (await revoked.json()) as KeyView;
    expect(view.revoked_at).toMatch(ISO);
    expect(view.id).toBe(created.id);
    let failure: unknown;
    try {
      governance.authenticate({ 'x-api-key': created.secret }, new URLSearchParams());
    } catch (error) {
      failure = error;
    }
    expect((failure as GatewayFailure).error).toMatchObject({ status: 401, code: 'key_revoked' });
    const again = await fetch(`${admin.url}${KEYS}/${created.id}`, { method: 'DELETE' });
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual(view);
    expect(((await (await fetch(`${admin.url}${KEYS}/${created.id}`)).json()) as KeyView).revoked_at).toBe(view.revoked_at);
  });

  it('answers 404 for an unknown key, to get and to revoke', async () => {
    expect(await expectError(await fetch(`${admin.url}${KEYS}/key_NOSUCHKEY`), 404, 'not_found')).toContain('key_NOSUCHKEY');
    await expectError(await fetch(`${admin.url}${KEYS}/key_NOSUCHKEY`, { method: 'DELETE' }), 404, 'not_found');
  });

  it('answers the running configuration version', async () => {
    const response = await fetch(`${admin.url}/api/v1/admin/config/version`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ config_version: admin.config.configVersion, loaded_at: admin.config.loadedAt.toISOString() });
  });

  describe('refuses every bad input with nothing written', () => {
    const cases: [string, string, string][] = [
      ['budget as a string', '{"budget_cents": "100"}', 'body.budget_cents'],
      ['negative budget', '{"budget_cents": -1}', 'body.budget_cents'],
      ['fractional budget', '{"budget_cents": 1.5}', 'body.budget_cents'],
      ['budget past the maximum', '{"budget_cents": 1000000000001}', 'body.budget_cents'],
      ['a huge budget', '{"budget_cents": 1e300}', 'body.budget_cents'],
      ['a budget past 2^64', '{"budget_cents": 123456789012345678901234567890}', 'body.budget_cents'],
      ['null budget', '{"budget_cents": null}', 'body.budget_cents'],
      ['rpm of 0', '{"rpm": 0}', 'body.rpm'],
      ['rpm past the maximum', '{"rpm": 1000001}', 'body.rpm'],
      ['rpm as a boolean', '{"rpm": true}', 'body.rpm'],
      ['empty name', '{"name": ""}', 'body.name'],
      ['too long a name', JSON.stringify({ name: 'x'.repeat(201) }), 'body.name'],
      ['name as a number', '{"name": 5}', 'body.name'],
      ['owner as an object', '{"owner": {"team": "a"}}', 'body.owner'],
      ['an unknown field', '{"name": "ok", "colour": "red"}', '"colour"'],
      ['a field of the answer', '{"secret": "gwk_mine"}', '"secret"'],
      ['an array', '[]', 'JSON object'],
      ['a string', '"key please"', 'JSON object'],
      ['null', 'null', 'JSON object'],
      ['a number', '42', 'JSON object'],
    ];

    it.each(cases)('%s: 400 naming the field', async (_, body, named) => {
      const before = governance.listKeys().length;
      const message = await expectError(await post(`${admin.url}${KEYS}`, body), 400, 'invalid_request');
      expect(message).toContain(named);
      expect(governance.listKeys()).toHaveLength(before);
    });

    it('malformed JSON: 400 invalid_json', async () => {
      const before = governance.listKeys().length;
      for (const body of ['{"name": ', '{name: "x"}', '{"name": "x",}']) {
        expect(await expectError(await post(`${admin.url}${KEYS}`, body), 400, 'invalid_json')).toContain('not valid JSON');
      }
      expect(governance.listKeys()).toHaveLength(before);
    });

    it('no body: 400 saying a body is needed', async () => {
      const before = governance.listKeys().length;
      expect(await expectError(await post(`${admin.url}${KEYS}`, ''), 400, 'invalid_request')).toContain('body');
      expect(await expectError(await fetch(`${admin.url}${KEYS}`, { method: 'POST' }), 400, 'invalid_request')).toContain('body');
      expect(governance.listKeys()).toHaveLength(before);
    });

    it('a body that is not JSON: 415', async () => {
      const before = governance.listKeys().length;
      await expectError(await post(`${admin.url}${KEYS}`, 'name=x', { 'content-type': 'application/x-www-form-urlencoded' }), 415, 'unsupported_media_type');
      await expectError(await post(`${admin.url}${KEYS}`, '{}', { 'content-type': 'text/plain' }), 415, 'unsupported_media_type');
      expect(governance.listKeys()).toHaveLength(before);
    });

    it('a body past the limit: 413', async () => {
      const before = governance.listKeys().length;
      const huge = JSON.stringify({ name: 'x'.repeat(200_000) });
      await expectError(await post(`${admin.url}${KEYS}`, huge), 413, 'request_too_large');
      expect(governance.listKeys()).toHaveLength(before);
      // The admin plane still answers afterwards.
      expect((await fetch(`${admin.url}${KEYS}`)).status).toBe(200);
    });

    it('a streamed body (no content-length) past the limit: 413, and the plane still answers', async () => {
      const before = governance.listKeys().length;
      const chunk = new TextEncoder().encode(`{"name": "${'x'.repeat(16 * 1024)}`);
      let sent = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent++ < 8) controller.enqueue(chunk);
          else controller.close();
        },
      });
      const response = await fetch(`${admin.url}${KEYS}`, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json' },
        duplex: 'half',
      } as RequestInit);
      await expectError(response, 413, 'request_too_large');
      expect(governance.listKeys()).toHaveLength(before);
      expect((await fetch(`${admin.url}${KEYS}`)).status).toBe(200);
    });

    it('an id past its length: 400 naming the path parameter', async () => {
      expect(await expectError(await fetch(`${admin.url}${KEYS}/${'k'.repeat(101)}`), 400, 'invalid_request')).toContain('path.id');
    });
  });
});

describe('admin key operations need the admin token', () => {
  const TOKEN = 'admin-token-for-key-tests-0123456789';
  let governance: LocalGovernance;
  let admin: AdminServer;
  beforeAll(async () => {
    governance = openGovernance(tempDbPath());
    admin = await startAdmin(governance, BARE_YAML, { GATEWAY_ADMIN_TOKEN: TOKEN });
  });
  afterAll(async () => {
    await admin.close();
    governance.close();
  });

  it('without it: 401 and nothing created, whatever the body', async () => {
    await expectError(await post(`${admin.url}${KEYS}`, '{"name": "x"}'), 401, 'unauthorized');
    await expectError(await post(`${admin.url}${KEYS}`, '{"name": '), 401, 'unauthorized');
    await expectError(await fetch(`${admin.url}${KEYS}`), 401, 'unauthorized');
    expect(governance.listKeys()).toHaveLength(0);
  });

  it('with it: created', async () => {
    const response = await post(`${admin.url}${KEYS}`, '{"name": "x"}', { 'content-type': 'application/json', 'x-admin-token': TOKEN });
    expect(response.status).toBe(201);
    expect(governance.listKeys()).toHaveLength(1);
  });
});

describe('admin key operations without a store (no db_path)', () => {
  let admin: AdminServer;
  beforeAll(async () => {
    admin = await startAdmin(undefined, BARE_YAML);
  });
  afterAll(() => admin.close());

  it('answer 409 no_store saying keys need db_path', async () => {
    const answers = [
      await post(`${admin.url}${KEYS}`, '{"name": "x"}'),
      await fetch(`${admin.url}${KEYS}`),
      await fetch(`${admin.url}${KEYS}/key_X`),
      await fetch(`${admin.url}${KEYS}/key_X`, { method: 'DELETE' }),
    ];
    for (const response of answers) expect(await expectError(response, 409, 'no_store')).toContain('db_path');
  });

  it('still validates the body first', async () => {
    await expectError(await post(`${admin.url}${KEYS}`, '{"rpm": 0}'), 400, 'invalid_request');
  });

  it('config version still answers', async () => {
    expect((await fetch(`${admin.url}/api/v1/admin/config/version`)).status).toBe(200);
  });
});
