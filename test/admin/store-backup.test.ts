// POST /api/v1/admin/store/backup while requests are being admitted and settled: each copy opens,
// passes integrity_check, holds the key, every spend settled before the copy began, and a spend
// total equal to its own ledger (one consistent moment); nothing is left beside db_path; the
// gateway keeps answering meanwhile. Without a store: 409 no_store; with the PostgreSQL store:
// 409 store_is_database, saying pg_dump; without the token: 401.
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminClient, postApiV1AdminStoreBackup } from '../../clients-ts/src/index.ts';
import { startHarness, type Harness } from '../support/gateway-harness.ts';
import { postgresUnavailable, startPostgres } from '../support/postgres.ts';
import { startSpendingLoad } from '../support/spending-load.ts';

const TOKEN = 'store-backup-admin-token';
const BACKUP = '/api/v1/admin/store/backup';
let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({
    extraModelsYaml: '  priced: { provider: openai, model: gpt-4.1-mini, price: { input: 2, output: 8 } }\n',
    extraYaml: 'db_path: ./gateway.db\ngovernance: on\n',
    env: { GATEWAY_ADMIN_TOKEN: TOKEN },
  });
});
afterAll(() => harness.close());

interface CopyFacts {
  integrity: string;
  journalMode: string;
  keyIds: string[];
  ledgerRows: number;
  spent: number;
  ledgerTotal: number;
}

/** Opens a copy read-only and reads what a restore would bring back. */
function inspect(bytes: Uint8Array, keyId: string): CopyFacts {
  const file = join(mkdtempSync(join(tmpdir(), 'store-copy-')), 'copy.db');
  writeFileSync(file, bytes);
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const one = <T>(sql: string, ...args: string[]) => db.prepare(sql).get(...args) as T;
    return {
      integrity: one<{ integrity_check: string }>('PRAGMA integrity_check').integrity_check,
      journalMode: one<{ journal_mode: string }>('PRAGMA journal_mode').journal_mode,
      keyIds: (db.prepare('SELECT id FROM keys').all() as { id: string }[]).map((row) => row.id),
      ledgerRows: one<{ n: number }>('SELECT count(*) AS n FROM spend_ledger WHERE key_id = ?', keyId).n,
      spent: one<{ spent: number }>('SELECT spent_microcents AS spent FROM keys WHERE id = ?', keyId).spent,
      ledgerTotal: one<{ total: number }>('SELECT coalesce(sum(cost_microcents), 0) AS total FROM spend_ledger WHERE key_id = ?', keyId).total,
    };
  } finally {
    db.close();
  }
}

describe('POST /api/v1/admin/store/backup', () => {
  it('copies the store consistently while requests are settled, and leaves nothing behind', async () => {
    const load = await startSpendingLoad({ adminUrl: harness.adminUrl, url: harness.url, token: TOKEN, model: 'priced', clients: 12 });
    try {
      const copies: { before: number; facts: CopyFacts }[] = [];
      await load.reach(20);
      for (let i = 0; i < 3; i++) {
        const before = load.answered(); // each of these was settled before its answer ended
        const response = await fetch(`${harness.adminUrl}${BACKUP}`, { method: 'POST', headers: { 'x-admin-token': TOKEN } });
        expect(response.status).toBe(200);
        expect(response.headers.get('content-type')).toBe('application/vnd.sqlite3');
        expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename="gateway-store-\d{8}T\d{6}Z\.db"$/);
        const bytes = new Uint8Array(await response.arrayBuffer());
        expect(Number(response.headers.get('content-length'))).toBe(bytes.length);
        copies.push({ before, facts: inspect(bytes, load.keyId) });
        const after = load.answered();
        await new Promise((resolve) => setTimeout(resolve, 50));
        expect(load.answered()).toBeGreaterThan(after); // serving went on around the copy
      }
      for (const { before, facts } of copies) {
        expect(facts.integrity).toBe('ok');
        expect(facts.journalMode).toBe('delete'); // one self-contained file, no -wal beside it
        expect(facts.keyIds).toEqual([load.keyId]);
        expect(facts.ledgerRows).toBeGreaterThanOrEqual(before);
        expect(facts.spent).toBe(facts.ledgerTotal); // one moment: the total and its ledger agree
        expect(facts.spent).toBeGreaterThan(0);
      }
      expect(copies[2]!.facts.ledgerRows).toBeGreaterThan(copies[0]!.facts.ledgerRows);

      // The generated client receives the same bytes (a Blob).
      const viaClient = await postApiV1AdminStoreBackup({ client: createAdminClient({ endpoint: harness.adminUrl, token: TOKEN }) });
      expect(viaClient.response?.status).toBe(200);
      expect(inspect(new Uint8Array(await (viaClient.data as Blob).arrayBuffer()), load.keyId).integrity).toBe('ok');
    } finally {
      await load.stop();
    }
    const dbPath = harness.gateway.config.dbPath!;
    expect(readdirSync(dirname(dbPath)).filter((name) => name.includes('.backup-'))).toEqual([]);
  }, 30_000);

  it('needs the admin token', async () => {
    const response = await fetch(`${harness.adminUrl}${BACKUP}`, { method: 'POST' });
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
  });

  it('answers 409 no_store when there is no db_path', async () => {
    const bare = await startHarness();
    try {
      const response = await fetch(`${bare.adminUrl}${BACKUP}`, { method: 'POST' });
      expect(response.status).toBe(409);
      expect(await response.json()).toEqual({ error: { code: 'no_store', message: 'there is no embedded store to back up: db_path is not configured' } });
    } finally {
      await bare.close();
    }
  });

  it.skipIf(postgresUnavailable() !== undefined)(
    'answers 409 store_is_database, naming pg_dump, with the PostgreSQL store',
    async () => {
      const postgres = await startPostgres();
      const shared = await startHarness({
        extraYaml: 'governance: on\ndatabase_url: { env: GATEWAY_DATABASE_URL }\n',
        env: { GATEWAY_DATABASE_URL: await postgres.createDatabase() },
      });
      try {
        const response = await fetch(`${shared.adminUrl}${BACKUP}`, { method: 'POST' });
        expect(response.status).toBe(409);
        const body = (await response.json()) as { error: { code: string; message: string } };
        expect(body.error.code).toBe('store_is_database');
        expect(body.error.message).toContain('pg_dump');
        expect(JSON.stringify(body)).not.toContain('127.0.0.1'); // the database's address is not said
      } finally {
        await shared.close();
        postgres.stop();
      }
    },
    60_000,
  );
});
