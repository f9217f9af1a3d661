// The governance channel (governance-channel.ts, governance-wire.ts) in one thread: a worker's
// GovernanceProxy answered by serveGovernance over a MessageChannel, against the owner answering
// directly. The flat messages give back the same values and refusals, and a key's record, sent
// once per version, is always the record as the owner holds it now.
import { MessageChannel } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { GovernanceProxy, serveGovernance } from '../../server/governance/governance-channel.ts';
import type { LocalGovernance } from '../../server/governance/governance.ts';
import { GatewayFailure } from '../../server/ir/error.ts';
import { openGovernance, tempDbPath, usage } from './support.ts';

const NO_QUERY = new URLSearchParams();
const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` });
const admission = { worstCaseMicrocents: 5000n, priced: true, model: 'm', worstCaseTokens: 100 };
const settlement = (requestId: string) => ({ costMicrocents: 1234n, usage: usage(10, 20, 3, 4), requestId, model: 'up', lane: 'lane-a', estimated: false });

const open: { close(): void }[] = [];
afterEach(() => {
  for (const o of open.splice(0)) o.close();
});

function channel(keyRecords?: number): { owner: LocalGovernance; proxy: GovernanceProxy } {
  const owner = openGovernance(tempDbPath());
  const { port1, port2 } = new MessageChannel();
  serveGovernance(port1, owner, undefined, keyRecords);
  const proxy = new GovernanceProxy(port2);
  open.push(owner, {
    close: () => {
      proxy.close();
      port1.close();
    },
  });
  return { owner, proxy };
}

async function refusalOf(promise: Promise<unknown>): Promise<unknown> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(GatewayFailure);
  return (error as GatewayFailure).error;
}

describe('the governance channel', () => {
  it('answers each call as the owner does: pass, reservation, settlement, release, markUsed', async () => {
    const { owner, proxy } = channel();
    const { key, secret } = owner.createKey({ name: 'k', budgetMicrocents: 1_000_000n, rpm: 100, models: ['m'], metadata: { a: 'b' } });
    const pass = await proxy.authorize(bearer(secret), NO_QUERY);
    expect(pass).toEqual({ key: owner.authenticatePresented(secret) });
    const reservation = await proxy.reserve(pass.key, admission);
    expect(reservation).toEqual({ id: expect.any(Number), keyId: key.id, microcents: 5000n });
    expect(owner.getKey(key.id)?.reservedMicrocents).toBe(5000n);
    expect(await proxy.settle(reservation, settlement('req_1'))).toBe(true);
    expect(owner.getKey(key.id)).toMatchObject({ reservedMicrocents: 0n, spentMicrocents: 1234n });
    const row = owner.store.db.prepare('SELECT * FROM spend_ledger WHERE request_id = ?').get('req_1');
    expect(row).toMatchObject({
      key_id: key.id,
      model: 'up',
      lane: 'lane-a',
      input_tokens: 10,
      output_tokens: 20,
      cache_read_tokens: 3,
      cache_write_tokens: 4,
      cost_microcents: 1234,
      estimated: 0,
    });
    // The same request id again: recorded once.
    const again = await proxy.reserve(pass.key, admission);
    expect(await proxy.settle(again, settlement('req_1'))).toBe(false);
    const released = await proxy.reserve(pass.key, admission);
    await expect(proxy.release(released)).resolves.toBeUndefined();
    expect(owner.getKey(key.id)?.reservedMicrocents).toBe(0n);
    proxy.markUsed(pass.key);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(owner.getKey(key.id)?.lastUsedAt).not.toBeNull();
  });

  it('gives the owner refusals: no key, an unknown key, a rate limit (in the pass), a budget, a price', async () => {
    const { owner, proxy } = channel();
    expect(await refusalOf(proxy.authorize({}, NO_QUERY))).toMatchObject({ status: 401, code: 'missing_api_key' });
    expect(await refusalOf(proxy.authorize(bearer('gwk_nope'), NO_QUERY))).toMatchObject({ status: 401, code: 'invalid_api_key' });
    const { secret } = owner.createKey({ budgetMicrocents: 6000n, rpm: 1 });
    const pass = await proxy.authorize(bearer(secret), NO_QUERY);
    expect('refusal' in pass).toBe(false);
    const limited = await proxy.authorize(bearer(secret), NO_QUERY);
    expect('refusal' in limited && limited.refusal).toMatchObject({ status: 429, code: 'rate_limited' });
    expect(limited.key).toBe(pass.key); // the record the worker already held
    await proxy.reserve(pass.key, admission);
    expect(await refusalOf(proxy.reserve(pass.key, admission))).toMatchObject({ status: 402, code: 'budget_exceeded' });
    expect(await refusalOf(proxy.reserve(pass.key, { ...admission, priced: false }))).toMatchObject({ status: 400 });
  });

  it('sends a key record once per version: a change or a revocation is in force on the next call', async () => {
    const { owner, proxy } = channel();
    const { key, secret } = owner.createKey({ rpm: 100, models: ['m'] });
    const first = (await proxy.authorize(bearer(secret), NO_QUERY)).key;
    const second = (await proxy.authorize(bearer(secret), NO_QUERY)).key;
    expect(second).toBe(first); // named by id: the worker's own copy
    owner.updateKey(key.id, { rpm: 7, models: ['m', 'n'], team: 'ml' });
    const changed = (await proxy.authorize(bearer(secret), NO_QUERY)).key;
    expect(changed).toMatchObject({ id: key.id, rpm: 7, models: ['m', 'n'], team: 'ml' });
    expect(changed).toEqual(owner.authenticatePresented(secret));
    owner.revokeKey(key.id);
    expect(await refusalOf(proxy.authorize(bearer(secret), NO_QUERY))).toMatchObject({ status: 401, code: 'key_revoked' });
  });

  it('past the records a worker may hold, both sides forget them and every answer stays right', async () => {
    const { owner, proxy } = channel(2);
    const keys = Array.from({ length: 5 }, (_, i) => owner.createKey({ name: `k${i}` }));
    for (let round = 0; round < 3; round++) {
      const passes = await Promise.all(keys.map(({ secret }) => proxy.authorize(bearer(secret), NO_QUERY)));
      passes.forEach((pass, i) => expect(pass.key).toEqual(owner.authenticatePresented(keys[i]!.secret)));
    }
  });
});
