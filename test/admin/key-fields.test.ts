// POST /api/v1/admin/keys with the fields of issue 18 (budget period, tpm, models, expiry, team,
// labels) through a real admin plane over a real SQLite store: what the key view shows, what the
// store holds, and every bad value answered 400 with a message naming it and nothing written.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { components } from '../../generated/admin-api.ts';
import { periodStart } from '../../server/governance/budget-period.ts';
import type { LocalGovernance } from '../../server/governance/governance.ts';
import type { GatewayFailure } from '../../server/ir/error.ts';
import { openGovernance, tempDbPath } from '../governance/support.ts';
import { expectError, expectOk, send, startAdmin, type AdminServer } from './admin-server.ts';

type KeyCreated = components['schemas']['KeyCreated'];
const KEYS = '/api/v1/admin/keys';

describe('creating keys with limits, allow-lists, expiry, team and labels', () => {
  let governance: LocalGovernance;
  let admin: AdminServer;
  beforeAll(async () => {
    governance = openGovernance(tempDbPath());
    admin = await startAdmin(governance);
  });
  afterAll(async () => {
    await admin.close();
    governance.close();
  });

  const create = async (body: object) => {
    const response = await send('POST', `${admin.url}${KEYS}`, body);
    expect(response.headers.get('cache-control')).toBe('no-store');
    return expectOk<KeyCreated>(response, 201);
  };

  it('takes every field at once and shows each back; the store holds the same', async () => {
    const expires = new Date(Date.now() + 30 * 86_400_000);
    expires.setUTCMilliseconds(0);
    const created = await create({
      name: 'research bot',
      owner: 'ana',
      budget_cents: 5000,
      budget_period: 'monthly',
      rpm: 60,
      tpm: 100_000,
      models: ['cheap', 'chat'],
      expires_at: expires.toISOString().replace('.000Z', 'Z'),
      team: 'research',
      metadata: { cost_centre: '4711', ticket: 'OPS-42' },
    });
    expect(created).toMatchObject({
      name: 'research bot',
      owner: 'ana',
      budget_cents: 5000,
      budget_period: 'monthly',
      spent_cents: 0,
      spent_usd: '0.00000000',
      remaining_cents: 5000,
      remaining_usd: '50.00000000',
      rpm: 60,
      tpm: 100_000,
      models: ['cheap', 'chat'],
      expires_at: expires.toISOString(),
      team: 'research',
      metadata: { cost_centre: '4711', ticket: 'OPS-42' },
      self_serve: false,
      rotated_at: null,
      previous_secret_until: null,
    });
    // The current calendar month, in UTC.
    expect(Date.parse(created.period_started_at!)).toBe(periodStart('monthly', Date.now()));
    const stored = governance.getKey(created.id)!;
    expect(stored).toMatchObject({
      budgetMicrocents: 5_000_000_000n,
      budgetPeriod: 'monthly',
      tpm: 100_000,
      models: ['cheap', 'chat'],
      expiresAt: expires.getTime(),
      team: 'research',
      metadata: { cost_centre: '4711', ticket: 'OPS-42' },
    });
    const got = await expectOk<unknown>(await fetch(`${admin.url}${KEYS}/${created.id}`));
    const { secret, ...view } = created;
    expect(got).toEqual(view);
    expect(secret).toMatch(/^gwk_/);
  });

  it('takes each field on its own, the others left at "none"', async () => {
    const cases: [object, Partial<KeyCreated>][] = [
      [{ budget_period: 'daily' }, { budget_period: 'daily', budget_cents: null, remaining_cents: null }],
      [
        { budget_cents: 1, budget_period: 'weekly' },
        { budget_period: 'weekly', remaining_cents: 1 },
      ],
      [{ tpm: 1 }, { tpm: 1, rpm: null }],
      [{ tpm: 1_000_000_000 }, { tpm: 1_000_000_000 }],
      [{ models: ['smart'] }, { models: ['smart'] }],
      [{ team: 'platform' }, { team: 'platform' }],
      [{ metadata: {} }, { metadata: {} }],
      [{ metadata: { ['k'.repeat(64)]: 'v'.repeat(512) } }, { metadata: { ['k'.repeat(64)]: 'v'.repeat(512) } }],
    ];
    for (const [body, expected] of cases) expect(await create(body), JSON.stringify(body)).toMatchObject(expected);
    const weekly = await create({ budget_cents: 10, budget_period: 'weekly' });
    expect(new Date(weekly.period_started_at!).getUTCDay()).toBe(1); // weeks start on Monday
  });

  it('a key whose expiry passes is refused with key_expired', async () => {
    const created = await create({ expires_at: new Date(Date.now() + 1500).toISOString() });
    expect(governance.authenticatePresented(created.secret).id).toBe(created.id);
    await new Promise((resolve) => setTimeout(resolve, 1600));
    let failure: unknown;
    try {
      governance.authenticatePresented(created.secret);
    } catch (error) {
      failure = error;
    }
    expect((failure as GatewayFailure).error).toMatchObject({ status: 401, code: 'key_expired' });
  });

  describe('refuses bad values with 400, naming the field, and writes nothing', () => {
    const past = new Date(Date.now() - 60_000).toISOString();
    const cases: [string, unknown, string][] = [
      ['an unknown budget period', { budget_period: 'yearly' }, 'body.budget_period'],
      ['a null budget period (create has nothing to clear)', { budget_period: null }, 'body.budget_period'],
      ['tpm of 0', { tpm: 0 }, 'body.tpm'],
      ['tpm past the maximum', { tpm: 1_000_000_001 }, 'body.tpm'],
      ['tpm as a string', { tpm: '100' }, 'body.tpm'],
      ['an empty allow-list', { models: [] }, 'body.models'],
      ['a model named twice', { models: ['cheap', 'cheap'] }, 'body.models'],
      ['more than 100 models', { models: Array.from({ length: 101 }, (_, i) => `m${i}`) }, 'body.models'],
      ['an empty model name', { models: [''] }, 'body.models'],
      ['models as a string', { models: 'cheap' }, 'body.models'],
      ['a model the configuration lacks', { models: ['cheap', 'gpt-9', 'nope'] }, '"gpt-9", "nope" are neither models nor pools'],
      ['an expiry in the past', { expires_at: past }, 'body.expires_at'],
      ['an expiry that is not a date-time', { expires_at: 'tomorrow' }, 'body.expires_at'],
      ['an expiry without a zone', { expires_at: '2099-01-01T00:00:00' }, 'body.expires_at'],
      ['a team the configuration lacks', { team: 'marketing' }, '"marketing" is not a team of the running configuration (teams: "research", "platform")'],
      ['an empty team', { team: '' }, 'body.team'],
      ['metadata as an array', { metadata: ['a'] }, 'body.metadata'],
      ['a metadata value that is not a string', { metadata: { n: 1 } }, 'body.metadata'],
      ['a metadata value past 512 characters', { metadata: { n: 'v'.repeat(513) } }, 'body.metadata'],
      ['a metadata name past 64 characters', { metadata: { ['k'.repeat(65)]: 'v' } }, 'body.metadata'],
      ['an empty metadata name', { metadata: { '': 'v' } }, 'body.metadata'],
      ['more than 20 labels', { metadata: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v'])) }, 'body.metadata'],
      ['a field of the answer', { self_serve: true }, '"self_serve"'],
    ];
    it.each(cases)('%s', async (_, body, named) => {
      const before = governance.listKeys().length;
      const message = await expectError(await send('POST', `${admin.url}${KEYS}`, body), 400, 'invalid_request');
      expect(message).toContain(named);
      expect(governance.listKeys()).toHaveLength(before);
    });

    it('the configuration-checked problems together, each named', async () => {
      const message = await expectError(await send('POST', `${admin.url}${KEYS}`, { team: 'x', models: ['y'], expires_at: past }), 400, 'invalid_request');
      expect(message).toContain('body.team: "x"');
      expect(message).toContain('body.models: "y" is neither a model nor a pool of the running configuration (models: "cheap", "smart"; pools: "chat")');
      expect(message).toContain('body.expires_at');
    });
  });
});

describe('a configuration without teams', () => {
  let governance: LocalGovernance;
  let admin: AdminServer;
  beforeAll(async () => {
    governance = openGovernance(tempDbPath());
    admin = await startAdmin(governance, 'admin_listen: 127.0.0.1:0\nlog_level: silent\n');
  });
  afterAll(async () => {
    await admin.close();
    governance.close();
  });

  it('refuses a team, saying none is configured and where to add one', async () => {
    const message = await expectError(await send('POST', `${admin.url}${KEYS}`, { team: 'research' }), 400, 'invalid_request');
    expect(message).toContain('no teams are configured: add one under teams: in config.yaml');
    expect(governance.listKeys()).toHaveLength(0);
  });
});

describe('a team with a budget and no self-serve keys', () => {
  let governance: LocalGovernance;
  let admin: AdminServer;
  beforeAll(async () => {
    governance = openGovernance(tempDbPath());
    admin = await startAdmin(governance, 'admin_listen: 127.0.0.1:0\nlog_level: silent\nteams:\n  finance: { budget_cents: 500, budget_period: monthly }\n');
  });
  afterAll(async () => {
    await admin.close();
    governance.close();
  });

  it('is a team a key may name (teams: counts every team, not only those with a child_default)', async () => {
    const created = await send('POST', `${admin.url}${KEYS}`, { team: 'finance' });
    expect(created.status).toBe(201);
    expect(governance.listKeys().map((key) => key.team)).toEqual(['finance']);
  });
});
