// Migration 5 on a file written before it (schema 4): the spend ledger gets an index on created_at
// alone, so a usage report over a date range for every key reads that range, not the whole ledger.
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { migrate, MIGRATIONS, SCHEMA_VERSION, schemaVersion } from '../../server/governance/migrations.ts';
import { queryUsage } from '../../server/governance/usage-query.ts';
import { tempDbPath } from './support.ts';

/** A schema-4 file with one key and two ledger rows a day apart. */
function version4File(): string {
  const path = tempDbPath();
  const raw = new DatabaseSync(path);
  migrate(raw, path, MIGRATIONS.slice(0, 4));
  raw.prepare("INSERT INTO keys (id, prefix, secret_hash, created_at) VALUES ('key_a', 'gwk_a', x'00', 1)").run();
  const row =
    raw.prepare(`INSERT INTO spend_ledger (key_id, request_id, model, lane, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_microcents, estimated, created_at, team)
    VALUES ('key_a', ?, 'gpt', 'l', 1, 2, 0, 0, ?, 0, ?, NULL)`);
  row.run('r1', 300, Date.UTC(2026, 5, 1, 12));
  row.run('r2', 400, Date.UTC(2026, 5, 2, 12));
  raw.close();
  return path;
}

/** SQLite's plan for a statement, one line per step. */
function plan(db: DatabaseSync, sql: string, ...params: number[]): string {
  return (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((step) => step.detail).join('\n');
}

describe('migration 5', () => {
  it('indexes the ledger by time: a range over every key is searched, not scanned, with the same answer', () => {
    const path = version4File();
    const raw = new DatabaseSync(path);
    const range = 'SELECT count(*) FROM spend_ledger WHERE created_at >= ? AND created_at < ?';
    expect(plan(raw, range, 0, 1)).toMatch(/^SCAN spend_ledger/);
    migrate(raw, path);
    expect(schemaVersion(raw)).toBe(SCHEMA_VERSION);
    expect(raw.prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND name = 'spend_ledger_by_time'").get()).toEqual({
      name: 'spend_ledger_by_time',
    });
    expect(plan(raw, range, 0, 1)).toMatch(/SEARCH spend_ledger USING COVERING INDEX spend_ledger_by_time \(created_at>\? AND created_at<\?\)/);
    const june2 = { fromMs: Date.UTC(2026, 5, 2), toMs: Date.UTC(2026, 5, 3), groupBy: ['day' as const] };
    expect(queryUsage(raw, june2).rows).toEqual([
      { day: '2026-06-02', requests: 1, inputTokens: 1, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0, costMicrocents: 400n },
    ]);
    raw.close();
  });
});
