// PATCH /api/v1/admin/keys/{id} through a real admin plane over a real SQLite store: each member
// changed, left alone when absent, cleared by null; the change in force on the key's next
// request; a past expiry expires it now; bad input 400, unknown id 404.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { components } from '../../generated/admin-api.ts';
import { periodStart } from '../../server/governance/budget-period.ts';
import type { LocalGovernance } from '../../server/governance/governance.ts';
import type { GatewayFailure } from '../../server/ir/error.ts';
import { openGovernance, tempDbPath, usage } from '../governance/support.ts';
import { expectError, expectOk, send, startAdmin, type AdminServer } from './admin-server.ts';

type KeyView = components['schemas']['KeyView'];
type KeyCreated = components['schemas']['KeyCreated'];
const KEYS = '/api/v1/admin/keys';

function refusal(run: () => unknown): GatewayFailure['error'] | undefined {
  try {
    run();
  } catch (error) {
    return (error as GatewayFailure).error;
  }
  return undefined;
}

describe('changing a key', () => {
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

  const create = async (body: object) => expectOk<KeyCreated>(await send('POST', `${admin.url}${KEYS}`, body), 201);
  const patch = (id: string, body: unknown) => send('PATCH', `${admin.url}${KEYS}/${id}`, body);
  const FULL = {
    name: 'bot',
    owner: 'ana',
    budget_cents: 500,
    budget_period: 'daily',
    rpm: 10,
    tpm: 5000,
    models: ['cheap'],
    expires_at: '2099-01-01T00:00:00.000Z',
    team: 'research',
    metadata: { a: '1' },
  };

  it('sets each member on its own and leaves the others as they were', async () => {
    const key = await create(FULL);
    const { secret: _, ...before } = key;
    const changes: [string, unknown][] = [
      ['name', 'renamed'],
      ['owner', 'bo'],
      ['budget_cents', 900],
      ['budget_period', 'weekly'],
      ['rpm', 20],
      ['tpm', 6000],
      ['models', ['smart', 'chat']],
      ['expires_at', '2098-06-30T12:00:00.000Z'],
      ['team', 'platform'],
      ['metadata', { b: '2', c: '3' }],
    ];
    let expected: Record<string, unknown> = { ...before };
    for (const [member, value] of changes) {
      const view = await expectOk<KeyView>(await patch(key.id, { [member]: value }));
      expected = { ...expected, [member]: value };
      const { period_started_at, remaining_cents, remaining_usd, ...rest } = view;
      const { period_started_at: _p, remaining_cents: _r, remaining_usd: _u, ...want } = expected;
      expect(rest, member).toEqual(want);
      expect(remaining_cents).toBe(expected.budget_cents);
      expect(period_started_at).not.toBeNull();
    }
    expect(governance.getKey(key.id)).toMatchObject({
      name: 'renamed',
      owner: 'bo',
      budgetMicrocents: 900_000_000n,
      budgetPeriod: 'weekly',
      rpm: 20,
      tpm: 6000,
      models: ['smart', 'chat'],
      expiresAt: Date.parse('2098-06-30T12:00:00.000Z'),
      team: 'platform',
      metadata: { b: '2', c: '3' },
    });
  });

  it('null clears every member; the id, prefix, secret and spend stay', async () => {
    const key = await create(FULL);
    const cleared = await expectOk<KeyView>(
      await patch(key.id, {
        name: null,
        owner: null,
        budget_cents: null,
        budget_period: null,
        rpm: null,
        tpm: null,
        models: null,
        expires_at: null,
        team: null,
        metadata: null,
      }),
    );
    expect(cleared).toMatchObject({
      id: key.id,
      prefix: key.prefix,
      name: null,
      owner: null,
      budget_cents: null,
      budget_period: null,
      remaining_cents: null,
      remaining_usd: null,
      period_started_at: null,
      rpm: null,
      tpm: null,
      models: null,
      expires_at: null,
      team: null,
      metadata: {},
    });
    expect(governance.authenticatePresented(key.secret).id).toBe(key.id);
  });

  it('an empty change answers the key unchanged', async () => {
    const key = await create({ name: 'same', rpm: 5 });
    const { secret: _, ...view } = key;
    expect(await expectOk<KeyView>(await patch(key.id, {}))).toEqual(view);
  });

  it('a larger budget admits a request the old one refused, from the next request on', async () => {
    const key = await create({ budget_cents: 1 });
    const ask = { worstCaseMicrocents: 5_000_000n, priced: true, worstCaseTokens: 100 };
    expect(refusal(() => governance.admit(key, ask))).toMatchObject({ status: 402, code: 'budget_exceeded' });
    await expectOk<KeyView>(await patch(key.id, { budget_cents: 10 }));
    const reservation = governance.admit(key, ask);
    const view = await expectOk<KeyView>(await fetch(`${admin.url}${KEYS}/${key.id}`));
    // What a request in flight holds counts against what is left (as on /auth/token).
    expect(view).toMatchObject({ reserved_cents: 5, reserved_usd: '0.05000000', remaining_cents: 5, remaining_usd: '0.05000000' });
    governance.release(reservation);
  });

  it('a period: spend counts in the current period and lifetime spend is kept', async () => {
    const key = await create({ budget_cents: 100 });
    const reservation = governance.admit(key, { worstCaseMicrocents: 1_000_000n, priced: true, worstCaseTokens: 10 });
    await governance.settle(reservation, {
      costMicrocents: 7_000n,
      usage: usage(5, 5),
      requestId: `p-${key.id}`,
      model: 'demo-echo',
      lane: 'demo/demo-echo',
      estimated: false,
    });
    const daily = await expectOk<KeyView>(await patch(key.id, { budget_period: 'daily' }));
    // Settled today, so it is in today's period: 0.007 cents reads as spent (1 cent up), exactly in USD.
    expect(daily).toMatchObject({
      budget_period: 'daily',
      spent_cents: 1,
      spent_usd: '0.00007000',
      lifetime_spent_cents: 1,
      lifetime_spent_usd: '0.00007000',
      remaining_cents: 99,
      remaining_usd: '0.99993000',
    });
    expect(Date.parse(daily.period_started_at!)).toBe(periodStart('daily', Date.now()));
  });

  it('an expiry in the past expires the key now (401 key_expired); clearing it revives the key', async () => {
    const key = await create({ name: 'contractor' });
    await expectOk<KeyView>(await patch(key.id, { expires_at: '2000-01-01T00:00:00Z' }));
    expect(refusal(() => governance.authenticatePresented(key.secret))).toMatchObject({ status: 401, code: 'key_expired' });
    await expectOk<KeyView>(await patch(key.id, { expires_at: null }));
    expect(governance.authenticatePresented(key.secret).id).toBe(key.id);
  });

  it('a revoked key can still be relabelled, and stays revoked', async () => {
    const key = await create({ name: 'old' });
    await send('DELETE', `${admin.url}${KEYS}/${key.id}`);
    const view = await expectOk<KeyView>(await patch(key.id, { name: 'old (leaked 2026-01)' }));
    expect(view.name).toBe('old (leaked 2026-01)');
    expect(view.revoked_at).not.toBeNull();
  });

  it('answers 404 for an unknown key', async () => {
    expect(await expectError(await patch('key_NOSUCHKEY', { name: 'x' }), 404, 'not_found')).toContain('key_NOSUCHKEY');
  });

  describe('refuses bad input with 400 and changes nothing', () => {
    const cases: [string, unknown, string][] = [
      ['an unknown member', { colour: 'red' }, '"colour"'],
      ['a member of the answer', { spent_cents: 0 }, '"spent_cents"'],
      ['a negative budget', { budget_cents: -1 }, 'body.budget_cents'],
      ['an unknown period', { budget_period: 'hourly' }, 'body.budget_period'],
      ['rpm of 0', { rpm: 0 }, 'body.rpm'],
      ['tpm as text', { tpm: 'many' }, 'body.tpm'],
      ['an empty allow-list (null means every model)', { models: [] }, 'body.models'],
      ['a model the configuration lacks', { models: ['gpt-9'] }, '"gpt-9" is neither a model nor a pool'],
      ['a team the configuration lacks', { team: 'sales' }, '"sales" is not a team of the running configuration'],
      ['an expiry that is not a date-time', { expires_at: 'never' }, 'body.expires_at'],
      ['a label that is not a string', { metadata: { a: true } }, 'body.metadata'],
      ['an empty name (null clears it)', { name: '' }, 'body.name'],
      ['an array', [], 'JSON object'],
      ['malformed JSON', '{"name": ', 'not valid JSON'],
    ];
    it.each(cases)('%s', async (_, body, named) => {
      const key = await create({ name: 'unchanged', rpm: 3 });
      const response = await patch(key.id, body);
      const message = await expectError(response, 400, typeof body === 'string' ? 'invalid_json' : 'invalid_request');
      expect(message).toContain(named);
      expect(governance.getKey(key.id)).toMatchObject({ name: 'unchanged', rpm: 3, models: null, team: null });
    });

    it('no body: 400', async () => {
      const key = await create({});
      expect(await expectError(await send('PATCH', `${admin.url}${KEYS}/${key.id}`), 400, 'invalid_request')).toContain('body');
    });
  });
});

describe('changing a key without a store', () => {
  let admin: AdminServer;
  beforeAll(async () => {
    admin = await startAdmin(undefined);
  });
  afterAll(() => admin.close());

  it('answers 409 no_store', async () => {
    expect(await expectError(await send('PATCH', `${admin.url}${KEYS}/key_X`, { name: 'x' }), 409, 'no_store')).toContain('db_path');
  });
});
