// A gateway started on database_url: it refuses a database whose schema is newer than it knows,
// and one it cannot reach, with one sentence on stderr (no stack, no URL) and exit code 1.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresUnavailable, startPostgres, type PostgresServer } from '../support/postgres.ts';

const MAIN = new URL('../../server/main.ts', import.meta.url).pathname;
const skip = postgresUnavailable();
let server: PostgresServer;
beforeAll(async () => {
  if (skip === undefined) server = await startPostgres();
}, 60_000);
afterAll(() => server?.stop());

function startOn(url: string) {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-fleet-start-'));
  writeFileSync(
    join(dir, 'config.yaml'),
    'listen: 127.0.0.1:0\nadmin_listen: 127.0.0.1:0\nlog_level: silent\ngovernance: on\ndatabase_url: { env: GATEWAY_DATABASE_URL }\n',
  );
  return spawnSync(process.execPath, [MAIN, '--config', join(dir, 'config.yaml')], {
    env: { ...process.env, GATEWAY_DATABASE_URL: url },
    encoding: 'utf8',
    timeout: 30_000,
  });
}

describe.skipIf(skip !== undefined)('a gateway on database_url', () => {
  it('refuses to start against a newer schema than it knows', { timeout: 60_000 }, async () => {
    const url = await server.createDatabase();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query('CREATE TABLE gateway_schema (version integer NOT NULL); INSERT INTO gateway_schema VALUES (42)');
    await client.end();
    const run = startOn(url);
    expect(run.status).toBe(1);
    expect(run.stderr.trim()).toMatch(
      /^gateway: cannot use the PostgreSQL store \(database_url\): the database has gateway schema version 42, newer than this build knows \(\d+\): run a newer gateway/,
    );
    expect(run.stderr).not.toContain('    at ');
  });

  it('refuses to start when the database cannot be reached, naming no password', () => {
    const run = startOn(`postgres://gw:pa55word@127.0.0.1:${server.port + 1}/none`);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('gateway: cannot use the PostgreSQL store (database_url)');
    expect(run.stderr).not.toContain('pa55word');
  });
});
