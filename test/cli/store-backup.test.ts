// `gateway-admin store backup FILE` (the real CLI in a child process) against a gateway settling
// requests: FILE is a SQLite database that passes integrity_check with the key and its spend, an
// existing FILE is replaced whole, a refused backup leaves FILE as it was, and --json says what
// was written (or, on failure, why not) as JSON.
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/gateway-harness.ts';
import { runToExit, type Exit } from '../support/run-to-exit.ts';
import { startSpendingLoad } from '../support/spending-load.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const NODE = join(ROOT, 'node_modules/.bin/node');
const CLI = join(ROOT, 'cli/gateway-admin.ts');
const TOKEN = 'cli-store-backup-token';

function cli(args: readonly string[], env: Record<string, string>): Promise<Exit> {
  return runToExit(NODE, [CLI, ...args], { env: { PATH: process.env.PATH ?? '', ...env } });
}

let harness: Harness;
let as: Record<string, string>;
beforeAll(async () => {
  harness = await startHarness({
    extraModelsYaml: '  priced: { provider: openai, model: gpt-4.1-mini, price: { input: 2, output: 8 } }\n',
    extraYaml: 'db_path: ./gateway.db\ngovernance: on\n',
    env: { GATEWAY_ADMIN_TOKEN: TOKEN },
  });
  as = { GATEWAY_ENDPOINT: harness.adminUrl, GATEWAY_ADMIN_TOKEN: TOKEN };
});
afterAll(() => harness.close());

describe('gateway-admin store backup', () => {
  it('writes a consistent copy while requests are settled, replacing FILE atomically', async () => {
    const load = await startSpendingLoad({ adminUrl: harness.adminUrl, url: harness.url, token: TOKEN, model: 'priced', clients: 8 });
    const dir = mkdtempSync(join(tmpdir(), 'cli-backup-'));
    const file = join(dir, 'backup.db');
    writeFileSync(file, 'an older backup');
    let before: number;
    let run: Exit;
    try {
      await load.reach(10);
      before = load.answered();
      run = await cli(['store', 'backup', file, '--json'], as);
    } finally {
      await load.stop();
    }
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(run.stdout)).toEqual({ file, bytes: statSync(file).size });
    expect(readdirSync(dir)).toEqual(['backup.db']); // no temporary file left beside it
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const db = new DatabaseSync(file, { readOnly: true });
    try {
      expect(db.prepare('PRAGMA integrity_check').get()).toEqual({ integrity_check: 'ok' });
      expect(db.prepare('SELECT id FROM keys').all()).toEqual([{ id: load.keyId }]);
      const ledger = db.prepare('SELECT count(*) AS n, sum(cost_microcents) AS total FROM spend_ledger WHERE key_id = ?').get(load.keyId) as {
        n: number;
        total: number;
      };
      expect(ledger.n).toBeGreaterThanOrEqual(before);
      expect(db.prepare('SELECT spent_microcents AS spent FROM keys WHERE id = ?').get(load.keyId)).toEqual({ spent: ledger.total });
    } finally {
      db.close();
    }

    const plain = await cli(['store', 'backup', file], as);
    expect(plain).toMatchObject({ code: 0, stderr: '' });
    expect(plain.stdout).toBe(`wrote the store backup to ${file} (${statSync(file).size} bytes)\n`);
  }, 30_000);

  it('leaves FILE untouched when the gateway has no store, and says why (as JSON with --json)', async () => {
    const bare = await startHarness({ env: { GATEWAY_ADMIN_TOKEN: TOKEN } });
    try {
      const file = join(mkdtempSync(join(tmpdir(), 'cli-backup-')), 'backup.db');
      writeFileSync(file, 'keep me');
      const run = await cli(['store', 'backup', file, '--json'], { GATEWAY_ENDPOINT: bare.adminUrl, GATEWAY_ADMIN_TOKEN: TOKEN });
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(JSON.parse(run.stderr)).toMatchObject({ error: { code: 'no_store', status: 409, exit_code: 1 } });
      expect(readFileSync(file, 'utf8')).toBe('keep me');
      const missing = await cli(['store', 'backup'], as);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain("missing required argument 'file'");
    } finally {
      await bare.close();
    }
  });
});
