// POST /api/v1/admin/keys/{id}/rotate through a real admin plane over a real SQLite store (its
// wall clock injected): a new secret for the same id, spend and limits; the old secret refused at
// once or after its grace; one previous secret at most; 409 for revoked and self-serve keys.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { components } from '../../generated/admin-api.ts';
import { identityKeyDeriver } from '../../server/auth/key-derivation.ts';
import type { LocalGovernance } from '../../server/governance/governance.ts';
import type { GatewayFailure } from '../../server/ir/error.ts';
import { manualClock, openGovernance, tempDbPath, usage } from '../governance/support.ts';
import { expectError, expectOk, send, startAdmin, type AdminServer } from './admin-server.ts';

type KeyCreated = components['schemas']['KeyCreated'];
const KEYS = '/api/v1/admin/keys';
const SECRET = 'governance-secret-for-rotation-tests';

describe('rotating a key', () => {
  const wall = manualClock(Date.now());
  let governance: LocalGovernance;
  let admin: AdminServer;
  beforeAll(async () => {
    governance = openGovernance(tempDbPath(), { secret: SECRET, wall: wall.now });
    admin = await startAdmin(governance);
  });
  afterAll(async () => {
    await admin.close();
    governance.close();
  });

  const create = async (body: object) => expectOk<KeyCreated>(await send('POST', `${admin.url}${KEYS}`, body), 201);
  const rotate = (id: string, body?: unknown) => send('POST', `${admin.url}${KEYS}/${id}/rotate`, body);
  const rotated = async (id: string, body?: unknown) => {
    const response = await rotate(id, body);
    expect(response.headers.get('cache-control')).toBe('no-store');
    return expectOk<KeyCreated>(response);
  };
  const authenticates = (secret: string): string => {
    try {
      return governance.authenticatePresented(secret).id;
    } catch (error) {
      return (error as GatewayFailure).error.code ?? 'refused';
    }
  };

  it('a new secret for the same key, spend and limits; the old secret is refused at once without a grace', async () => {
    const key = await create({ name: 'leaked', budget_cents: 100, rpm: 7, tpm: 900, team: 'research', models: ['cheap'] });
    const reservation = governance.admit(key, { worstCaseMicrocents: 2_000_000n, priced: true, worstCaseTokens: 10 });
    await governance.settle(reservation, {
      costMicrocents: 1_234_567n,
      usage: usage(3, 4),
      requestId: `r-${key.id}`,
      model: 'demo-echo',
      lane: 'l',
      estimated: false,
    });
    const next = await rotated(key.id);
    expect(next.secret).toMatch(/^gwk_[A-Za-z0-9_-]{43}$/);
    expect(next.secret).not.toBe(key.secret);
    expect(next.prefix).toBe(next.secret.slice(0, 8));
    expect(next).toMatchObject({
      id: key.id,
      name: 'leaked',
      budget_cents: 100,
      rpm: 7,
      tpm: 900,
      team: 'research',
      models: ['cheap'],
      lifetime_spent_usd: '0.01234567',
      rotated_at: new Date(wall.now()).toISOString(),
      previous_secret_until: null,
    });
    expect(authenticates(next.secret)).toBe(key.id);
    expect(authenticates(key.secret)).toBe('invalid_api_key');
    // The key view and the list show the new prefix, never a secret.
    const listed = await (await fetch(`${admin.url}${KEYS}`)).text();
    expect(listed).not.toContain(next.secret);
    expect(listed).toContain(next.prefix);
  });

  it('with a grace the old secret works until it ends, then it is an unknown key', async () => {
    const key = await create({ name: 'rolling' });
    const next = await rotated(key.id, { grace_seconds: 3600 });
    expect(next.previous_secret_until).toBe(new Date(wall.now() + 3_600_000).toISOString());
    expect(authenticates(key.secret)).toBe(key.id);
    expect(authenticates(next.secret)).toBe(key.id);
    wall.advance(3_599_000);
    expect(authenticates(key.secret)).toBe(key.id);
    wall.advance(1_000);
    expect(authenticates(key.secret)).toBe('invalid_api_key');
    expect(authenticates(next.secret)).toBe(key.id);
  });

  it('rotating again during a grace ends the older grace: one previous secret at most', async () => {
    const first = await create({});
    const second = await rotated(first.id, { grace_seconds: 600 });
    const third = await rotated(first.id, { grace_seconds: 600 });
    expect(authenticates(first.secret)).toBe('invalid_api_key');
    expect(authenticates(second.secret)).toBe(first.id);
    expect(authenticates(third.secret)).toBe(first.id);
  });

  it('no body and an empty body both mean no grace', async () => {
    for (const body of [undefined, {}]) {
      const key = await create({});
      const next = await rotated(key.id, body);
      expect(next.previous_secret_until).toBeNull();
      expect(authenticates(key.secret)).toBe('invalid_api_key');
    }
  });

  it('a revoked key: 409 key_revoked, nothing changed', async () => {
    const key = await create({});
    await send('DELETE', `${admin.url}${KEYS}/${key.id}`);
    expect(await expectError(await rotate(key.id, {}), 409, 'key_revoked')).toContain(key.id);
    expect(governance.getKey(key.id)).toMatchObject({ prefix: key.prefix, rotatedAt: null });
  });

  it('a self-serve key: 409 self_serve_key (revoke it instead)', async () => {
    const derive = identityKeyDeriver(SECRET);
    const request = {
      issuer: 'https://idp.example.com',
      subject: 'ana',
      team: 'research',
      name: 'self-serve (research)',
      owner: 'ana@example.com',
      budgetMicrocents: null,
      rpm: null,
    };
    const { key } = governance.issueIdentityKey(request, (generation) => derive(request, generation));
    const view = await expectOk<{ self_serve: boolean }>(await fetch(`${admin.url}${KEYS}/${key.id}`));
    expect(view.self_serve).toBe(true);
    await expectError(await rotate(key.id, {}), 409, 'self_serve_key');
    expect(governance.getKey(key.id)?.rotatedAt).toBeNull();
  });

  it('an unknown key: 404', async () => {
    expect(await expectError(await rotate('key_NOSUCHKEY', {}), 404, 'not_found')).toContain('key_NOSUCHKEY');
  });

  it.each([
    ['a negative grace', { grace_seconds: -1 }],
    ['a grace past 30 days', { grace_seconds: 2_592_001 }],
    ['a fractional grace', { grace_seconds: 1.5 }],
    ['an unknown member', { grace: 5 }],
  ])('%s: 400, and the secret is unchanged', async (_, body) => {
    const key = await create({});
    const message = await expectError(await rotate(key.id, body), 400, 'invalid_request');
    expect(message).toMatch(/body/);
    expect(authenticates(key.secret)).toBe(key.id);
  });
});

describe('rotating without a store', () => {
  let admin: AdminServer;
  beforeAll(async () => {
    admin = await startAdmin(undefined);
  });
  afterAll(() => admin.close());

  it('answers 409 no_store', async () => {
    await expectError(await send('POST', `${admin.url}${KEYS}/key_X/rotate`, {}), 409, 'no_store');
  });
});
