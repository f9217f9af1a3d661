// Migration 4 on a file written before it (schema 3): keys get no limits, self-serve keys get the
// team their identity was issued for (and stay self-serve: never rotated), old ledger rows get their
// key's team, so the team's spend includes what its keys spent before the upgrade.
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import type { LocalGovernance } from '../../server/governance/governance.ts';
import { hashKeySecret } from '../../server/governance/key-secret.ts';
import { migrate, MIGRATIONS, SCHEMA_VERSION, schemaVersion } from '../../server/governance/migrations.ts';
import { KeyConflict } from '../../server/governance/refusals.ts';
import { openGovernance, tempDbPath } from './support.ts';

const SECRET = 'migration-secret';
const opened: LocalGovernance[] = [];
afterEach(() => {
  for (const governance of opened.splice(0)) governance.close();
});

/** A schema-3 file: a self-serve key of team ml with two ledger rows, and a plain key with one. */
function version3File(): string {
  const path = tempDbPath();
  const raw = new DatabaseSync(path);
  migrate(raw, path, MIGRATIONS.slice(0, 3));
  const key = raw.prepare('INSERT INTO keys (id, prefix, secret_hash, budget_microcents, spent_microcents, rpm, created_at) VALUES (?, ?, ?, ?, ?, ?, 1)');
  key.run('key_self', 'gwk_self', hashKeySecret(SECRET, 'gwk_self-serve-secret'), 5000, 700, 30);
  key.run('key_plain', 'gwk_plai', hashKeySecret(SECRET, 'gwk_plain-secret'), null, 50, null);
  raw
    .prepare(
      "INSERT INTO identities (issuer, subject, generation, key_id, team, created_at, updated_at) VALUES ('https://idp', 'alice', 0, 'key_self', 'ml', 1, 1)",
    )
    .run();
  const row =
    raw.prepare(`INSERT INTO spend_ledger (key_id, request_id, model, lane, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_microcents, estimated, created_at)
    VALUES (?, ?, 'gpt', 'l', 1, 1, 0, 0, ?, 0, 2)`);
  row.run('key_self', 'r1', 300);
  row.run('key_self', 'r2', 400);
  row.run('key_plain', 'r3', 50);
  raw.close();
  return path;
}

describe('migration 4', () => {
  it('fills the team of self-serve keys and of their ledger rows; every other new field is empty', () => {
    const path = version3File();
    const raw = new DatabaseSync(path);
    migrate(raw, path);
    expect(schemaVersion(raw)).toBe(SCHEMA_VERSION);
    expect(raw.prepare('SELECT id, team, budget_period, tpm, models, expires_at, metadata, previous_secret_hash FROM keys ORDER BY id').all()).toEqual([
      { id: 'key_plain', team: null, budget_period: null, tpm: null, models: null, expires_at: null, metadata: '{}', previous_secret_hash: null },
      { id: 'key_self', team: 'ml', budget_period: null, tpm: null, models: null, expires_at: null, metadata: '{}', previous_secret_hash: null },
    ]);
    expect(raw.prepare('SELECT request_id, team FROM spend_ledger ORDER BY request_id').all()).toEqual([
      { request_id: 'r1', team: 'ml' },
      { request_id: 'r2', team: 'ml' },
      { request_id: 'r3', team: null },
    ]);
    raw.close();
  });

  it("opens with the self-serve key marked self-serve (not rotatable) and the team's spend from the old rows", () => {
    const governance = openGovernance(version3File(), { secret: SECRET });
    opened.push(governance);
    expect(governance.getKey('key_self')).toMatchObject({ selfServe: true, team: 'ml', spentMicrocents: 700n, budgetMicrocents: 5000n, rpm: 30 });
    expect(governance.getKey('key_plain')).toMatchObject({ selfServe: false, team: null, metadata: {}, models: null });
    expect(governance.authenticatePresented('gwk_self-serve-secret').id).toBe('key_self');
    expect(() => governance.rotateKey('key_self', 0)).toThrow(KeyConflict);
    governance.setTeams([{ name: 'ml', budgetMicrocents: 1000n, budgetPeriod: null }]);
    expect(governance.listTeams()).toEqual([
      expect.objectContaining({ name: 'ml', configured: true, spentMicrocents: 700n, periodSpentMicrocents: 700n, reservedMicrocents: 0n, keys: 1 }),
    ]);
    // 700 spent of the team's 1000: the self-serve key's own 5000 does not let it past its team's.
    expect(() => governance.admit({ id: 'key_self' }, { worstCaseMicrocents: 301n, priced: true, worstCaseTokens: 0 })).toThrow(/team budget exceeded/);
  });
});
