// Self-serve keys in the governance store: one live key per identity, re-derived (never stored in
// clear) on each exchange; revocation moves the identity to its next generation; the key row and
// the identity row commit together; everything survives a restart.
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { identityKeyDeriver } from '../../server/auth/key-derivation.ts';
import type { IdentityKeyRequest, LocalGovernance } from '../../server/governance/governance.ts';
import { openGovernance, tempDbPath } from './support.ts';

const SECRET = 'governance-secret-for-identity-tests';
const derive = identityKeyDeriver(SECRET);

const opened: LocalGovernance[] = [];
function open(path: string): LocalGovernance {
  const governance = openGovernance(path, { secret: SECRET });
  opened.push(governance);
  return governance;
}
afterEach(() => {
  for (const governance of opened.splice(0)) governance.close();
});

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
const issue = (governance: LocalGovernance, overrides: Partial<IdentityKeyRequest> = {}) => {
  const r = request(overrides);
  return governance.issueIdentityKey(r, (generation) => derive(r, generation));
};

describe('issueIdentityKey', () => {
  it("creates the identity's key with the team's budget once, then returns the same live key, its spend kept", async () => {
    const path = tempDbPath();
    const governance = open(path);
    const first = issue(governance);
    expect(first.issued).toMatchObject({ generation: 0, created: true, team: 'ml', secret: derive(ALICE, 0) });
    expect(first.key).toMatchObject({ budgetMicrocents: 500_000_000n, rpm: 30, owner: 'alice@example.com', name: 'self-serve (ml)' });
    expect(governance.authenticatePresented(first.issued.secret).id).toBe(first.key.id);

    const reservation = governance.admit(first.key, { worstCaseMicrocents: 1000n, priced: true, worstCaseTokens: 0 });
    await governance.settle(reservation, {
      costMicrocents: 700n,
      usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 },
      requestId: 'r1',
      model: 'gpt',
      lane: 'l',
      estimated: false,
    });

    const again = issue(governance, { team: 'research', budgetMicrocents: 1n }); // the person moved team: the live key stays as issued
    expect(again.issued).toMatchObject({ generation: 0, created: false, team: 'ml', secret: first.issued.secret });
    expect(again.key).toMatchObject({ id: first.key.id, budgetMicrocents: 500_000_000n, spentMicrocents: 700n });
    expect(governance.listKeys()).toHaveLength(1);
  });

  it("after a revocation issues the next generation's key with a fresh budget; the revoked one stays revoked", () => {
    const governance = open(tempDbPath());
    const first = issue(governance);
    governance.revokeKey(first.key.id);
    const second = issue(governance, { team: 'research', budgetMicrocents: 120_000_000n, rpm: null });
    expect(second.issued).toMatchObject({ generation: 1, created: true, team: 'research', secret: derive(ALICE, 1) });
    expect(second.key).toMatchObject({ budgetMicrocents: 120_000_000n, rpm: null, spentMicrocents: 0n });
    expect(second.key.id).not.toBe(first.key.id);
    expect(() => governance.authenticatePresented(first.issued.secret)).toThrow(/revoked/);
    expect(issue(governance).issued).toMatchObject({ generation: 1, created: false, secret: second.issued.secret });
  });

  it('keeps identities and generations across a restart, and stores no secret in clear', () => {
    const path = tempDbPath();
    const first = open(path);
    const issued = issue(first).issued;
    first.revokeKey(issue(first).key.id);
    const second = issue(first).issued;
    first.close();

    const reopened = open(path);
    expect(issue(reopened).issued).toMatchObject({ generation: 1, created: false, secret: second.secret });
    reopened.close();
    const raw = new DatabaseSync(path, { readOnly: true });
    const dump =
      JSON.stringify(raw.prepare('SELECT * FROM keys').all(), (_k, v) =>
        typeof v === 'bigint' ? String(v) : v instanceof Uint8Array ? Buffer.from(v).toString('base64') : v,
      ) + JSON.stringify(raw.prepare('SELECT * FROM identities').all(), (_k, v) => (typeof v === 'bigint' ? String(v) : v));
    raw.close();
    for (const secret of [issued.secret, second.secret]) {
      expect(dump).not.toContain(secret);
      expect(dump).not.toContain(secret.slice(8)); // nor the part after the displayed prefix
    }
    expect(dump).toContain('"generation":1');
  });

  it('different identities (and the same subject at another issuer) get different keys', () => {
    const governance = open(tempDbPath());
    const a = issue(governance).issued.secret;
    const b = issue(governance, { subject: 'bob' }).issued.secret;
    const c = issue(governance, { issuer: 'https://other-idp.example.com' }).issued.secret;
    expect(new Set([a, b, c]).size).toBe(3);
    expect(governance.listKeys()).toHaveLength(3);
  });

  it('commits the key and the identity together: a failed identity write leaves no key behind, in the store or in memory', () => {
    const path = tempDbPath();
    const governance = open(path);
    issue(governance);
    const before = governance.listKeys().length;
    // The identity row is written after the key row; a team the table refuses (NOT NULL) fails it.
    const failing = request({ subject: 'zed', team: null as unknown as string });
    expect(() => governance.issueIdentityKey(failing, (g) => derive(failing, g))).toThrow(/NOT NULL/);
    expect(governance.listKeys()).toHaveLength(before);
    expect(() => governance.authenticatePresented(derive(failing, 0))).toThrow(/not a valid gateway key/);
    governance.close();
    const raw = new DatabaseSync(path, { readOnly: true });
    expect(raw.prepare('SELECT count(*) AS n FROM keys').get()).toEqual({ n: before });
    raw.close();
  });

  it('refuses to hand out a key whose derivation no longer matches its stored hash', () => {
    const governance = open(tempDbPath());
    issue(governance);
    expect(() => governance.issueIdentityKey(request(), () => 'gwk_some-other-derivation')).toThrow(/does not match its stored hash/);
  });
});
