// Issue 18's key limits, written once and run against each store (key-limits.test.ts): every key
// field created, read back and changed (in force on the next request), expiry, rotation with and
// without a grace, budgets per calendar period, team budgets, tokens per minute, usage reports, and
// the concurrency that must stay exact. Time is one injected clock (OpenOptions.time).
import { describe, expect, it } from 'vitest';
import type { NewKey, OwnerGovernance } from '../../server/governance/governance.ts';
import { KeyConflict } from '../../server/governance/refusals.ts';
import { periodAndTeamBehaviour } from './key-limits-budgets.ts';
import { admission, at, keyState, refusal, spend, thrown } from './key-limits-support.ts';
import { tokenRateBehaviour, usageBehaviour } from './key-limits-usage.ts';
import type { StoreUnderTest } from './store-under-test.ts';
import { manualClock } from './support.ts';

const T0 = at('2026-06-02T10:00:00.000Z');

const EVERY_FIELD = {
  name: 'ci',
  owner: 'platform@example.com',
  budgetMicrocents: 5_000_000n,
  budgetPeriod: 'monthly',
  rpm: 60,
  tpm: 10_000,
  models: ['gpt-4.1-mini', 'cheap-pool'],
  expiresAt: at('2026-12-31T00:00:00.000Z'),
  team: 'ml',
  metadata: { cost_centre: 'cc-42', ticket: 'OPS-7' },
} satisfies NewKey;

export function keyLimitsBehaviour(store: StoreUnderTest): void {
  const open = async (time = manualClock(T0)) => ({ time, governance: await store.open(await store.fresh(), { time }) });

  describe('key fields', () => {
    it('creates a key with every field and reads each back: created, got, listed, authenticated, and after a reopen', async () => {
      const time = manualClock(T0);
      const location = await store.fresh();
      const first = await store.open(location, { time });
      const { key, secret } = await first.createKey(EVERY_FIELD);
      const expected = { ...EVERY_FIELD, selfServe: false, createdAt: T0, revokedAt: null, rotatedAt: null, previousSecretUntil: null };
      expect(key).toMatchObject({
        ...expected,
        spentMicrocents: 0n,
        periodSpentMicrocents: 0n,
        periodStartedAt: at('2026-06-01T00:00:00.000Z'),
        reservedMicrocents: 0n,
      });
      expect(await first.getKey(key.id)).toMatchObject(expected);
      expect(await first.listKeys()).toEqual([expect.objectContaining(expected)]);
      expect(await first.authenticatePresented(secret)).toMatchObject(expected);
      await first.close();
      const second = await store.open(location, { time });
      expect(await second.authenticatePresented(secret)).toMatchObject(expected);
      expect(await second.getKey(key.id)).toMatchObject(expected);
    });

    it('a key created with nothing set has no limits: null everywhere, {} metadata', async () => {
      const { governance } = await open();
      const { key } = await governance.createKey({});
      expect(key).toMatchObject({
        budgetMicrocents: null,
        budgetPeriod: null,
        rpm: null,
        tpm: null,
        models: null,
        expiresAt: null,
        team: null,
        metadata: {},
        periodStartedAt: null,
      });
    });

    it('updateKey changes every field, each in force on the very next request, and kept across a reopen', async () => {
      const time = manualClock(T0);
      const location = await store.fresh();
      const governance = await store.open(location, { time });
      const { key, secret } = await governance.createKey({ name: 'before' });
      await spend(governance, key, 3000n); // lifetime spend before the key gets a period
      const updated = await governance.updateKey(key.id, EVERY_FIELD);
      expect(updated).toMatchObject({ ...EVERY_FIELD, id: key.id, prefix: key.prefix, spentMicrocents: 3000n, periodSpentMicrocents: 3000n });
      // The data plane reads models from the record authorize returns.
      expect((await governance.authorizePresented(secret)).key).toMatchObject({ models: EVERY_FIELD.models, team: 'ml', tpm: 10_000 });

      await governance.updateKey(key.id, { rpm: 1 });
      expect(await governance.authorizePresented(secret)).toMatchObject({ refusal: { code: 'rate_limited' } });
      await governance.updateKey(key.id, { budgetMicrocents: 5000n });
      expect(await refusal(() => governance.reserve(key, admission(2001n)))).toMatchObject({ status: 402, code: 'budget_exceeded' });
      await governance.updateKey(key.id, { tpm: 100 });
      expect(await refusal(() => governance.reserve(key, admission(1n, 101)))).toMatchObject({ status: 429, code: 'tokens_per_minute_exceeded' });
      await governance.updateKey(key.id, { expiresAt: T0 });
      expect(await refusal(() => governance.authenticatePresented(secret))).toMatchObject({ status: 401, code: 'key_expired' });
      await governance.close();

      const reopened = await store.open(location, { time });
      expect(await reopened.getKey(key.id)).toMatchObject({ ...EVERY_FIELD, rpm: 1, budgetMicrocents: 5000n, tpm: 100, expiresAt: T0 });
    });

    it('a member left out is unchanged; null clears it, and the cleared limit no longer applies', async () => {
      const { governance } = await open();
      const { key, secret } = await governance.createKey({ ...EVERY_FIELD, rpm: 1, budgetMicrocents: 10n, tpm: 5 });
      expect(await governance.updateKey(key.id, { name: 'renamed' })).toMatchObject({ ...EVERY_FIELD, name: 'renamed', rpm: 1, budgetMicrocents: 10n, tpm: 5 });
      const cleared = await governance.updateKey(key.id, {
        name: null,
        owner: null,
        budgetMicrocents: null,
        budgetPeriod: null,
        rpm: null,
        tpm: null,
        models: null,
        expiresAt: null,
        team: null,
        metadata: null,
      });
      expect(cleared).toMatchObject({
        name: null,
        owner: null,
        budgetMicrocents: null,
        budgetPeriod: null,
        rpm: null,
        tpm: null,
        models: null,
        expiresAt: null,
        team: null,
        metadata: {},
        periodStartedAt: null,
      });
      for (let i = 0; i < 3; i++) expect(await governance.authorizePresented(secret)).not.toHaveProperty('refusal');
      await governance.reserve(key, admission(1_000_000n, 1_000_000));
    });

    it('answers undefined for a key that does not exist, and refuses impossible values', async () => {
      const { governance } = await open();
      expect(await governance.updateKey('key_nope', { name: 'x' })).toBeUndefined();
      const { key } = await governance.createKey({});
      expect(await thrown(() => governance.updateKey(key.id, { tpm: 0 }))).toBeInstanceOf(RangeError);
      expect(await thrown(() => governance.updateKey(key.id, { budgetMicrocents: -1n }))).toBeInstanceOf(RangeError);
      expect(await thrown(() => governance.createKey({ metadata: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v'])) }))).toBeInstanceOf(
        RangeError,
      );
      expect(await keyState(governance, key.id)).toMatchObject({ tpm: null, budgetMicrocents: null });
    });
  });

  describe('expiry', () => {
    it('refuses the key from its expires_at instant with 401 key_expired (authenticate, authorize, a record taken before, reserve)', async () => {
      const { time, governance } = await open();
      const { key, secret } = await governance.createKey({ expiresAt: T0 + 1000 });
      time.set(T0 + 999);
      const record = await governance.authenticatePresented(secret);
      await governance.admit(record, admission(0n));
      time.set(T0 + 1000);
      for (const attempt of [
        () => governance.authenticatePresented(secret),
        () => governance.authorizePresented(secret),
        () => governance.admit(record, admission(0n)),
        () => governance.reserve(record, admission(0n)),
      ]) {
        expect(await refusal(attempt)).toMatchObject({ kind: 'authentication', status: 401, code: 'key_expired' });
      }
      // Still listed, and a later expiry brings it back.
      expect(await keyState(governance, key.id)).toMatchObject({ expiresAt: T0 + 1000, revokedAt: null });
      await governance.updateKey(key.id, { expiresAt: T0 + 60_000 });
      expect((await governance.authenticatePresented(secret)).id).toBe(key.id);
    });

    it('a revoked key that has also expired is refused as revoked', async () => {
      const { time, governance } = await open();
      const { key, secret } = await governance.createKey({ expiresAt: T0 + 1 });
      await governance.revokeKey(key.id);
      time.advance(10);
      expect(await refusal(() => governance.authenticatePresented(secret))).toMatchObject({ code: 'key_revoked' });
    });
  });

  describe('models allow-list', () => {
    it('reserve refuses a name off the list with 403 model_not_allowed, before the price and budget, and gives the rate back', async () => {
      const { governance } = await open();
      const { key, secret } = await governance.createKey({ models: ['gpt', 'fast'], rpm: 1, budgetMicrocents: 1n });
      const asking = (model: string, worst = 0n) => ({ ...admission(worst), model });
      const pass = await governance.authorizePresented(secret);
      expect('refusal' in pass).toBe(false);
      // Off the list: 403 whatever else is wrong with the request (no price, over the budget).
      expect(await refusal(() => governance.reserve(key, { ...asking('claude', 10n), priced: false }))).toMatchObject({
        kind: 'permission',
        status: 403,
        code: 'model_not_allowed',
      });
      // The refused request gave back the key's one request a minute: the next one is served.
      const next = await governance.authorizePresented(secret);
      expect('refusal' in next).toBe(false);
      await governance.release(await governance.reserve(key, asking('fast')));
      expect(await refusal(() => governance.admit(key, asking('gpt')))).toMatchObject({ code: 'rate_limited' });
      // A changed list is in force for the next request; a request that names no model is not held to it.
      await governance.updateKey(key.id, { models: null, rpm: null });
      await governance.release(await governance.admit(key, asking('claude')));
      await governance.updateKey(key.id, { models: ['gpt'] });
      expect(await refusal(() => governance.admit(key, asking('fast')))).toMatchObject({ code: 'model_not_allowed' });
      await governance.release(await governance.admit(key, admission(0n)));
    });
  });

  describe('rotation', () => {
    it('with no grace: a new secret for the same key, spend and limits; the old one is refused at once as unknown', async () => {
      const { time, governance } = await open();
      const { key, secret: old } = await governance.createKey({ name: 'svc', budgetMicrocents: 1_000_000n, rpm: 100, team: 'ml' });
      await spend(governance, key, 700n);
      // Used just before: its hash is remembered (secret-hashes.ts), and it is refused all the same.
      expect((await governance.authenticatePresented(old)).id).toBe(key.id);
      time.advance(5000);
      const rotated = await governance.rotateKey(key.id, 0);
      expect(rotated).toBeDefined();
      const { key: state, secret } = rotated!;
      expect(secret).not.toBe(old);
      expect(state).toMatchObject({
        id: key.id,
        prefix: secret.slice(0, 8),
        name: 'svc',
        budgetMicrocents: 1_000_000n,
        rpm: 100,
        team: 'ml',
        spentMicrocents: 700n,
        rotatedAt: T0 + 5000,
        previousSecretUntil: null,
      });
      expect((await governance.authenticatePresented(secret)).id).toBe(key.id);
      expect(await refusal(() => governance.authenticatePresented(old))).toMatchObject({ status: 401, code: 'invalid_api_key' });
      expect(await keyState(governance, key.id)).toMatchObject({ prefix: secret.slice(0, 8), rotatedAt: T0 + 5000 });
    });

    it('with a grace of N seconds: the old secret works until then (across a reopen), not from that instant', async () => {
      const time = manualClock(T0);
      const location = await store.fresh();
      const governance = await store.open(location, { time });
      const { key, secret: old } = await governance.createKey({});
      const { secret } = (await governance.rotateKey(key.id, 30))!;
      expect(await keyState(governance, key.id)).toMatchObject({ rotatedAt: T0, previousSecretUntil: T0 + 30_000 });
      expect((await governance.authenticatePresented(old)).id).toBe(key.id);
      await governance.close();

      const reopened = await store.open(location, { time });
      time.set(T0 + 29_999);
      expect((await reopened.authenticatePresented(old)).id).toBe(key.id);
      expect((await reopened.authorizePresented(old)).key.id).toBe(key.id);
      time.set(T0 + 30_000);
      expect(await refusal(() => reopened.authenticatePresented(old))).toMatchObject({ status: 401, code: 'invalid_api_key' });
      expect((await reopened.authenticatePresented(secret)).id).toBe(key.id);
    });

    it('rotating again during a grace ends the older grace: only one previous secret is kept', async () => {
      const { time, governance } = await open();
      const { key, secret: first } = await governance.createKey({});
      expect((await governance.authenticatePresented(first)).id).toBe(key.id);
      const { secret: second } = (await governance.rotateKey(key.id, 60))!;
      expect((await governance.authenticatePresented(first)).id).toBe(key.id);
      time.advance(1000);
      const { secret: third } = (await governance.rotateKey(key.id, 60))!;
      expect(await refusal(() => governance.authenticatePresented(first))).toMatchObject({ code: 'invalid_api_key' });
      expect((await governance.authenticatePresented(second)).id).toBe(key.id);
      expect((await governance.authenticatePresented(third)).id).toBe(key.id);
      expect(await keyState(governance, key.id)).toMatchObject({ previousSecretUntil: T0 + 61_000 });
    });

    it('refuses to rotate a revoked key or a self-serve key (KeyConflict), and answers undefined for no key', async () => {
      const { governance } = await open();
      const { key } = await governance.createKey({});
      await governance.revokeKey(key.id);
      const revoked = await thrown(() => governance.rotateKey(key.id, 0));
      expect(revoked).toBeInstanceOf(KeyConflict);
      expect(revoked).toMatchObject({ code: 'key_revoked' });

      const person = {
        issuer: 'https://idp.example.com',
        subject: 'alice',
        team: 'ml',
        name: 'self-serve (ml)',
        owner: 'alice',
        budgetMicrocents: null,
        rpm: null,
      };
      const { key: selfServe } = await issueSelfServe(governance, person);
      expect(selfServe).toMatchObject({ selfServe: true, team: 'ml' });
      const refused = await thrown(() => governance.rotateKey(selfServe.id, 0));
      expect(refused).toBeInstanceOf(KeyConflict);
      expect(refused).toMatchObject({ code: 'self_serve_key' });
      expect(await governance.rotateKey('key_nope', 0)).toBeUndefined();
    });
  });

  periodAndTeamBehaviour(store);
  tokenRateBehaviour(store);
  usageBehaviour(store);
}

/** A self-serve key (the secret derivation is the key issuer's business; any fixed one serves here). */
export function issueSelfServe(governance: OwnerGovernance, person: Parameters<OwnerGovernance['issueIdentityKey']>[0]) {
  return governance.issueIdentityKey(person, (generation) => `gwk_selfserve-${person.subject}-${generation}-0123456789abcdefghijklmnop`);
}
