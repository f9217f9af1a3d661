// The behaviour every governance store must show, written once and run against each store
// (governance.test.ts): authentication by every carrier, admission in its order (rate limit,
// price, budget), revocation in force at once, spend and keys that outlive a restart, the server
// secret, and self-serve identity keys.
import type { IncomingHttpHeaders } from 'node:http';
import { describe, expect, it } from 'vitest';
import { identityKeyDeriver } from '../../server/auth/key-derivation.ts';
import type { IdentityKeyRequest, OwnerGovernance } from '../../server/governance/governance.ts';
import { GatewayFailure, type GatewayError } from '../../server/ir/error.ts';
import type { StoreUnderTest } from './store-under-test.ts';
import { manualClock, usage } from './support.ts';

const NO_QUERY = new URLSearchParams();

async function refusal(run: () => unknown): Promise<GatewayError> {
  try {
    await run();
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayFailure);
    return (error as GatewayFailure).error;
  }
  throw new Error('expected a refusal');
}

const priced = (worst: bigint) => ({ worstCaseMicrocents: worst, priced: true, worstCaseTokens: 0 });
const settlement = (requestId: string, cost: bigint) => ({
  costMicrocents: cost,
  usage: usage(100, 20),
  requestId,
  model: 'gpt',
  lane: 'openai/gpt-4.1-mini',
  estimated: false,
});

export function governanceBehaviour(store: StoreUnderTest): void {
  const open = async (options: Parameters<StoreUnderTest['open']>[1] = {}) => store.open(await store.fresh(), options);

  describe('authenticate', () => {
    it('finds the key by each carrier', async () => {
      const governance = await open();
      const { key, secret } = await governance.createKey({ name: 'ci' });
      const carriers: [IncomingHttpHeaders, URLSearchParams][] = [
        [{ authorization: `Bearer ${secret}` }, NO_QUERY],
        [{ authorization: `bearer  ${secret}` }, NO_QUERY],
        [{ 'x-api-key': secret }, NO_QUERY],
        [{ 'x-goog-api-key': secret }, NO_QUERY],
        [{}, new URLSearchParams({ key: secret })],
        [{ authorization: 'Basic dXNlcjpwYXNz', 'x-api-key': secret }, NO_QUERY], // another scheme carries no key
      ];
      for (const [headers, query] of carriers) expect((await governance.authenticate(headers, query)).id).toBe(key.id);
    });

    it('takes the first carrier present, even when a later one holds a valid key', async () => {
      const governance = await open();
      const { secret } = await governance.createKey({});
      expect((await refusal(() => governance.authenticate({ authorization: 'Bearer gwk_wrong', 'x-api-key': secret }, NO_QUERY))).code).toBe('invalid_api_key');
      expect((await refusal(() => governance.authenticate({ 'x-api-key': 'gwk_wrong' }, new URLSearchParams({ key: secret })))).code).toBe('invalid_api_key');
    });

    it('refuses a missing or unknown key with a 401 that never echoes what was presented', async () => {
      const governance = await open();
      const missing = await refusal(() => governance.authenticate({}, NO_QUERY));
      expect(missing).toMatchObject({ kind: 'authentication', status: 401, code: 'missing_api_key' });
      expect(missing.message).toContain('Authorization: Bearer');
      const presented = 'gwk_thisIsNotAKeyButLooksLikeOne0123456789abcdef';
      const unknown = await refusal(() => governance.authenticate({ 'x-api-key': presented }, NO_QUERY));
      expect(unknown).toMatchObject({ kind: 'authentication', status: 401, code: 'invalid_api_key' });
      expect(unknown.message).not.toContain(presented.slice(4, 12));
      expect((await refusal(() => governance.authenticate({ authorization: 'Bearer ' }, NO_QUERY))).code).toBe('missing_api_key');
    });

    it('refuses a revoked key from the very next request', async () => {
      const governance = await open();
      const { key, secret } = await governance.createKey({});
      const headers = { authorization: `Bearer ${secret}` };
      const record = await governance.authenticate(headers, NO_QUERY);
      await governance.revokeKey(key.id);
      expect(await refusal(() => governance.authenticate(headers, NO_QUERY))).toMatchObject({ status: 401, code: 'key_revoked' });
      // A record taken before the revocation does not get a request admitted either.
      expect(await refusal(() => governance.admit(record, priced(0n)))).toMatchObject({ status: 401, code: 'key_revoked' });
    });
  });

  describe('admit', () => {
    it('rate limits first: 429 rate_limited with Retry-After', async () => {
      const clock = manualClock(0);
      const governance = await open({ clock });
      const { key } = await governance.createKey({ rpm: 2 });
      await governance.admit(key, priced(0n));
      clock.advance(10_000);
      await governance.admit(key, priced(0n));
      const limited = await refusal(() => governance.admit(key, priced(0n)));
      expect(limited).toMatchObject({ kind: 'rate_limit', status: 429, code: 'rate_limited', retryAfterSeconds: 50 });
      expect(limited.message).toContain('2 requests per minute');
      clock.advance(50_000); // the first admission leaves the window
      await governance.admit(key, priced(0n));
    });

    it('authorize takes the rate and hands back the refusal, the key named', async () => {
      const governance = await open();
      const { key, secret } = await governance.createKey({ rpm: 1 });
      expect(await governance.authorizePresented(secret)).toEqual({ key: expect.objectContaining({ id: key.id }) });
      const second = await governance.authorizePresented(secret);
      expect(second).toMatchObject({ key: { id: key.id }, refusal: { status: 429, code: 'rate_limited' } });
    });

    it('refuses an unpriced model for a key with a budget (400 model_price_unknown), and that costs no rate', async () => {
      const governance = await open();
      const { key } = await governance.createKey({ budgetMicrocents: 1_000_000n, rpm: 1 });
      const unpriced = await refusal(() => governance.admit(key, { worstCaseMicrocents: 0n, priced: false, model: 'mystery', worstCaseTokens: 0 }));
      expect(unpriced).toMatchObject({ kind: 'invalid_request', status: 400, code: 'model_price_unknown' });
      expect(unpriced.message).toContain('model "mystery" has no price');
      await governance.admit(key, priced(10n)); // the one request of this minute is still free
    });

    it('lets a key without a budget call an unpriced model', async () => {
      const governance = await open();
      const { key } = await governance.createKey({});
      const reservation = await governance.admit(key, { worstCaseMicrocents: 0n, priced: false, worstCaseTokens: 0 });
      expect(await governance.settle(reservation, settlement('free-1', 0n))).toBe(true);
    });

    it('refuses past the budget with a 402, and a refused request costs no rate', async () => {
      const governance = await open();
      const { key } = await governance.createKey({ budgetMicrocents: 100n, rpm: 1 });
      const refused = await refusal(() => governance.admit(key, priced(101n)));
      expect(refused).toMatchObject({ kind: 'billing', status: 402, code: 'budget_exceeded' });
      expect(refused.message).toContain('could cost up to 1 cents');
      await governance.admit(key, priced(100n));
    });

    it('admits exactly as many concurrent requests as the budget holds', async () => {
      const governance = await open();
      const { key } = await governance.createKey({ budgetMicrocents: 10n * 777n });
      const results = await Promise.allSettled(Array.from({ length: 300 }, async () => governance.admit(key, priced(777n))));
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(10);
      expect(await governance.getKey(key.id)).toMatchObject({ reservedMicrocents: 7770n, spentMicrocents: 0n });
    });

    it('settles the real cost in place of the reservation, once per request id; a release refunds it', async () => {
      const governance = await open();
      const { key } = await governance.createKey({ budgetMicrocents: 10_000n });
      const first = await governance.admit(key, priced(4000n));
      const second = await governance.admit(key, priced(4000n));
      expect(await refusal(() => governance.admit(key, priced(4000n)))).toMatchObject({ status: 402 });
      expect(await governance.settle(first, settlement('req-1', 1500n))).toBe(true);
      expect(await governance.settle(first, settlement('req-1', 1500n))).toBe(false); // the same request again: nothing more
      await governance.release(second);
      await governance.release(second); // idempotent
      expect(await governance.getKey(key.id)).toMatchObject({ spentMicrocents: 1500n, reservedMicrocents: 0n });
      await governance.admit(key, priced(8500n)); // exactly what is left
    });

    it('refuses an unknown key id', async () => {
      const governance = await open();
      expect(await refusal(() => governance.admit({ id: 'key_nope' }, priced(0n)))).toMatchObject({ status: 401, code: 'invalid_api_key' });
    });
  });

  describe('keys and spend across restarts', () => {
    it('keeps keys, spend, revocations and last use (flushed at close)', async () => {
      const location = await store.fresh();
      let wall = Date.UTC(2025, 0, 2, 3, 4, 5);
      const first = await store.open(location, { secret: 'server-secret', wall: () => wall });
      const kept = await first.createKey({ name: 'kept', owner: 'team-a', budgetMicrocents: 5_000_000n, rpm: 60 });
      const gone = await first.createKey({ name: 'gone' });
      await first.settle(await first.admit(kept.key, priced(2_000_000n)), settlement('r1', 1_500_000n));
      wall += 1000;
      first.markUsed(kept.key);
      await first.revokeKey(gone.key.id);
      await first.close();

      const second = await store.open(location, { secret: 'server-secret' });
      const record = await second.authenticate({ authorization: `Bearer ${kept.secret}` }, NO_QUERY);
      expect(record).toMatchObject({ id: kept.key.id, name: 'kept', owner: 'team-a', prefix: kept.secret.slice(0, 8), budgetMicrocents: 5_000_000n, rpm: 60 });
      expect(await second.getKey(kept.key.id)).toMatchObject({ spentMicrocents: 1_500_000n, reservedMicrocents: 0n, lastUsedAt: wall, createdAt: wall - 1000 });
      expect((await refusal(() => second.authenticate({ 'x-api-key': gone.secret }, NO_QUERY))).code).toBe('key_revoked');
      expect((await second.listKeys()).map((k) => k.name)).toEqual(['kept', 'gone']);
      expect((await second.revokeKey(gone.key.id))?.revokedAt).toBe(wall); // revoking again keeps the first time
      expect(await second.getKey('key_nope')).toBeUndefined();
      expect(await second.revokeKey('key_nope')).toBeUndefined();
    });
  });

  describe('the server secret', () => {
    it('without governance_secret, one is generated once and kept in the store', async () => {
      const location = await store.fresh();
      const first = await store.open(location);
      const { key, secret } = await first.createKey({});
      await first.close();
      const second = await store.open(location);
      expect((await second.authenticate({ 'x-api-key': secret }, NO_QUERY)).id).toBe(key.id);
    });

    it('refuses to open with a different secret than the keys were hashed with', async () => {
      const location = await store.fresh();
      await (await store.open(location, { secret: 'original' })).close();
      await expect(store.open(location, { secret: 'another' })).rejects.toThrow(
        /its keys were hashed with a different governance secret than the one now configured/,
      );
      await expect(store.open(location)).rejects.toThrow(/different governance secret than the one now in use \(none is configured\)/);
      await store.open(location, { secret: 'original' }); // and the store is still usable
    });

    it('refuses a configured secret when the keys were hashed with the generated one', async () => {
      const location = await store.fresh();
      await (await store.open(location)).close();
      await expect(store.open(location, { secret: 'configured-later' })).rejects.toThrow(/different governance secret/);
    });
  });

  describe('issueIdentityKey', () => {
    const SECRET = 'governance-secret-for-identity-tests';
    const derive = identityKeyDeriver(SECRET);
    const ALICE = { issuer: 'https://idp.example.com', subject: 'alice' };
    const request = (overrides: Partial<IdentityKeyRequest> = {}): IdentityKeyRequest => ({
      ...ALICE,
      team: 'ml',
      name: 'self-serve (ml)',
      owner: 'alice@example.com',
      budgetMicrocents: 500_000_000n,
      rpm: 30,
      ...overrides,
    });
    const issue = async (governance: OwnerGovernance, overrides: Partial<IdentityKeyRequest> = {}) => {
      const r = request(overrides);
      return governance.issueIdentityKey(r, (generation) => derive(r, generation));
    };

    it("creates the identity's key with the team's budget once, then returns the same live key, its spend kept", async () => {
      const governance = await open({ secret: SECRET });
      const first = await issue(governance);
      expect(first.issued).toMatchObject({ generation: 0, created: true, team: 'ml', secret: derive(ALICE, 0) });
      expect(first.key).toMatchObject({ budgetMicrocents: 500_000_000n, rpm: 30, owner: 'alice@example.com', name: 'self-serve (ml)' });
      expect((await governance.authenticatePresented(first.issued.secret)).id).toBe(first.key.id);
      await governance.settle(await governance.admit(first.key, priced(1000n)), settlement('r1', 700n));
      const again = await issue(governance, { team: 'research', budgetMicrocents: 1n }); // moved team: the live key stays as issued
      expect(again.issued).toMatchObject({ generation: 0, created: false, team: 'ml', secret: first.issued.secret });
      expect(again.key).toMatchObject({ id: first.key.id, budgetMicrocents: 500_000_000n, spentMicrocents: 700n });
      expect(await governance.listKeys()).toHaveLength(1);
    });

    it("after a revocation issues the next generation's key; the same key from a second opening of the store", async () => {
      const location = await store.fresh();
      const governance = await store.open(location, { secret: SECRET });
      const first = await issue(governance);
      await governance.revokeKey(first.key.id);
      const second = await issue(governance, { team: 'research', budgetMicrocents: 120_000_000n, rpm: null });
      expect(second.issued).toMatchObject({ generation: 1, created: true, team: 'research', secret: derive(ALICE, 1) });
      expect(second.key).toMatchObject({ budgetMicrocents: 120_000_000n, rpm: null, spentMicrocents: 0n });
      await expect(Promise.resolve().then(() => governance.authenticatePresented(first.issued.secret))).rejects.toThrow(/revoked/);
      await governance.close();
      const reopened = await store.open(location, { secret: SECRET });
      expect((await issue(reopened)).issued).toMatchObject({ generation: 1, created: false, secret: second.issued.secret });
    });

    it("after its key expires issues the next generation's key; until then the same one", async () => {
      let wall = Date.UTC(2026, 10, 28, 12);
      const governance = await open({ secret: SECRET, wall: () => wall });
      const first = await issue(governance);
      await governance.updateKey(first.key.id, { expiresAt: wall + 60_000 });
      wall += 59_999;
      expect((await issue(governance)).issued).toMatchObject({ generation: 0, created: false, secret: first.issued.secret });
      wall += 1; // the moment the key is refused (key_expired), the exchange moves on
      await expect(Promise.resolve().then(() => governance.authenticatePresented(first.issued.secret))).rejects.toThrow(/expired/);
      const second = await issue(governance);
      expect(second.issued).toMatchObject({ generation: 1, created: true, secret: derive(ALICE, 1) });
      expect(second.key.expiresAt).toBeNull();
      expect((await governance.authenticatePresented(second.issued.secret)).id).toBe(second.key.id);
      expect((await issue(governance)).issued).toMatchObject({ generation: 1, created: false, secret: second.issued.secret });
    });

    it('different identities (and the same subject at another issuer) get different keys', async () => {
      const governance = await open({ secret: SECRET });
      const a = (await issue(governance)).issued.secret;
      const b = (await issue(governance, { subject: 'bob' })).issued.secret;
      const c = (await issue(governance, { issuer: 'https://other-idp.example.com' })).issued.secret;
      expect(new Set([a, b, c]).size).toBe(3);
      expect(await governance.listKeys()).toHaveLength(3);
    });

    it('refuses to hand out a key whose derivation no longer matches its stored hash', async () => {
      const governance = await open({ secret: SECRET });
      await issue(governance);
      await expect(Promise.resolve().then(() => governance.issueIdentityKey(request(), () => 'gwk_some-other-derivation'))).rejects.toThrow(
        /does not match its stored hash/,
      );
    });
  });
}
