// The embedded store: pragmas, versioned migrations, and a clear refusal (naming the file) for
// every file it must not use: not a database, unreadable, newer schema, held by another process;
// readers in other processes are welcome while it is open.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { migrate, MIGRATIONS, SCHEMA_VERSION, schemaVersion, type Migration } from '../../server/governance/migrations.ts';
import { openStore, type Store } from '../../server/governance/store.ts';
import { tempDbPath } from './support.ts';

const STORE_MODULE = new URL('../../server/governance/store.ts', import.meta.url).pathname;

const open: Store[] = [];
function tracked(store: Store): Store {
  open.push(store);
  return store;
}
afterEach(() => {
  for (const store of open.splice(0)) store.close();
});

function openError(path: string): Error {
  try {
    tracked(openStore(path));
  } catch (error) {
    return error as Error;
  }
  throw new Error(`openStore(${path}) succeeded`);
}

describe('openStore', () => {
  it('creates a new file at the newest schema with WAL, synchronous=FULL and foreign keys', () => {
    const store = tracked(openStore(tempDbPath()));
    const pragma = (name: string) => Object.values(store.db.prepare(`PRAGMA ${name}`).get() as Record<string, unknown>)[0];
    expect(pragma('journal_mode')).toBe('wal');
    expect(pragma('synchronous')).toBe(2); // FULL
    expect(pragma('foreign_keys')).toBe(1);
    expect(pragma('locking_mode')).toBe('normal'); // readers share it; the writer is guarded by <db_path>.lock
    expect(schemaVersion(store.db)).toBe(SCHEMA_VERSION);
    const tables = (store.db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").all() as { name: string }[]).map((r) => r.name);
    expect(tables).toEqual(['config_versions', 'identities', 'keys', 'meta', 'spend_ledger']);
  });

  it('keeps its data across close and reopen, without migrating again', () => {
    const path = tempDbPath();
    const first = openStore(path);
    first.transaction(() => first.db.prepare("INSERT INTO meta (key, value) VALUES ('probe', 'kept')").run());
    first.close();
    const again = tracked(openStore(path));
    expect(again.db.prepare("SELECT value FROM meta WHERE key = 'probe'").get()).toEqual({ value: 'kept' });
    expect(schemaVersion(again.db)).toBe(SCHEMA_VERSION);
  });

  it('refuses a file of a newer schema version, and leaves it as it was', () => {
    const path = tempDbPath();
    const raw = new DatabaseSync(path);
    raw.exec(`CREATE TABLE future (x INTEGER); PRAGMA user_version = ${SCHEMA_VERSION + 1}`);
    raw.close();
    const error = openError(path);
    expect(error.message).toContain(path);
    expect(error.message).toContain(`schema version ${SCHEMA_VERSION + 1}, newer than this build knows (${SCHEMA_VERSION})`);
    const after = new DatabaseSync(path);
    expect(schemaVersion(after)).toBe(SCHEMA_VERSION + 1);
    expect(after.prepare("SELECT count(*) AS n FROM sqlite_schema WHERE name = 'keys'").get()).toEqual({ n: 0 });
    after.close();
  });

  it('refuses a file that is not a database, naming it, and does not touch it', () => {
    const path = tempDbPath('notes.txt');
    const text = 'these are my notes, not a database\n'.repeat(40);
    writeFileSync(path, text);
    const error = openError(path);
    expect(error.message).toBe(`${path} is not a SQLite database: point db_path at a gateway store, or at a path where one can be created`);
    expect(readFileSync(path, 'utf8')).toBe(text);
  });

  it('refuses a path it cannot open (a directory; a missing directory), naming it', () => {
    const directory = dirname(tempDbPath());
    const asDirectory = join(directory, 'a-directory');
    mkdirSync(asDirectory);
    for (const path of [asDirectory, join(directory, 'missing', 'gateway.db')]) {
      const error = openError(path);
      expect(error.message).toContain(`cannot open ${path}`);
      expect(error.message).toContain('existing directory');
    }
  });

  it('refuses a file another store in this process holds', () => {
    const path = tempDbPath();
    tracked(openStore(path));
    const error = openError(path);
    expect(error.message).toBe(`${path} is locked by another process (is another gateway running with the same db_path?)`);
  });

  it('refuses a file another process holds, and opens it once that process is gone', async () => {
    const path = tempDbPath();
    const holder = await holdInChild(path);
    try {
      const error = openError(path);
      expect(error.message).toContain(`${path} is locked by another process`);
    } finally {
      holder.kill('SIGKILL');
      await new Promise((resolve) => holder.once('exit', resolve));
    }
    expect(schemaVersion(tracked(openStore(path)).db)).toBe(SCHEMA_VERSION);
  });

  it('lets another process read it while open (WAL with its -shm index), committed rows included', async () => {
    const path = tempDbPath();
    const store = tracked(openStore(path));
    store.transaction(() => store.db.prepare("INSERT INTO meta (key, value) VALUES ('probe', 'visible')").run());
    expect(existsSync(`${path}-shm`)).toBe(true);
    expect(existsSync(`${path}.lock`)).toBe(true);
    const script = `const { DatabaseSync } = await import('node:sqlite'); const db = new DatabaseSync(process.env.DB_PATH, { readOnly: true }); console.log(JSON.stringify(db.prepare("SELECT value FROM meta WHERE key = 'probe'").get()));`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { DB_PATH: path });
    expect(JSON.parse(stdout)).toEqual({ value: 'visible' });
    // The writer is not held up by that reader: the next commit goes through.
    store.transaction(() => store.db.prepare("UPDATE meta SET value = 'changed' WHERE key = 'probe'").run());
  });

  it('leaves <db_path>.lock in place after close, and a later open takes it again', () => {
    const path = tempDbPath();
    openStore(path).close();
    expect(existsSync(`${path}.lock`)).toBe(true);
    tracked(openStore(path));
    expect(openError(path).message).toContain('is locked by another process');
  });

  it('runs a write transaction all or nothing', () => {
    const store = tracked(openStore(tempDbPath()));
    const insert = store.db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)');
    expect(() =>
      store.transaction(() => {
        insert.run('a', '1');
        insert.run('a', '2'); // duplicate key
      }),
    ).toThrow(/UNIQUE/);
    expect(store.db.prepare('SELECT count(*) AS n FROM meta').get()).toEqual({ n: 0 });
    expect(store.db.isTransaction).toBe(false);
  });
});

describe('migrate', () => {
  const next = SCHEMA_VERSION + 1;
  const added: Migration = { version: next, sql: "ALTER TABLE keys ADD COLUMN colour TEXT NOT NULL DEFAULT 'none'" };

  it('upgrades an older file step by step and keeps its rows', () => {
    const path = tempDbPath();
    const current = openStore(path);
    current.transaction(() => current.db.prepare("INSERT INTO keys (id, prefix, secret_hash, created_at) VALUES ('key_1', 'gwk_abcd', x'01', 1)").run());
    current.close();
    const raw = new DatabaseSync(path);
    migrate(raw, path, [...MIGRATIONS, added]);
    expect(schemaVersion(raw)).toBe(next);
    expect(raw.prepare('SELECT id, colour FROM keys').all()).toEqual([{ id: 'key_1', colour: 'none' }]);
    migrate(raw, path, [...MIGRATIONS, added]); // up to date: nothing to do
    expect(schemaVersion(raw)).toBe(next);
    raw.close();
  });

  it('brings a version 1 file (before self-serve identities) to the current schema, keys kept', () => {
    const path = tempDbPath();
    const raw = new DatabaseSync(path);
    migrate(raw, path, MIGRATIONS.slice(0, 1));
    raw.prepare("INSERT INTO keys (id, prefix, secret_hash, created_at) VALUES ('key_1', 'gwk_abcd', x'01', 1)").run();
    migrate(raw, path);
    expect(schemaVersion(raw)).toBe(SCHEMA_VERSION);
    raw
      .prepare(
        "INSERT INTO identities (issuer, subject, generation, key_id, team, created_at, updated_at) VALUES ('https://idp', 'alice', 0, 'key_1', 'ml', 1, 1)",
      )
      .run();
    expect(raw.prepare('SELECT i.subject, k.prefix FROM identities i JOIN keys k ON k.id = i.key_id').all()).toEqual([
      { subject: 'alice', prefix: 'gwk_abcd' },
    ]);
    raw.close();
  });

  it('rolls a failed step back entirely: version and tables as before', () => {
    const path = tempDbPath();
    const raw = new DatabaseSync(path);
    const broken: Migration = { version: next, sql: 'CREATE TABLE half (x INTEGER); SELECT * FROM no_such_table' };
    expect(() => migrate(raw, path, [...MIGRATIONS, broken])).toThrow(`${path}: schema migration to version ${next} failed`);
    expect(schemaVersion(raw)).toBe(0);
    expect(raw.prepare("SELECT count(*) AS n FROM sqlite_schema WHERE name IN ('half', 'keys')").get()).toEqual({ n: 0 });
    expect(raw.isTransaction).toBe(false);
    raw.close();
  });

  it('refuses steps numbered out of order', () => {
    const raw = new DatabaseSync(':memory:');
    expect(() => migrate(raw, ':memory:', [{ version: 2, sql: '' }])).toThrow(/numbered 2/);
    raw.close();
  });
});

function run(file: string, args: string[], env: Record<string, string>): Promise<{ stdout: string }> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { env: { ...process.env, ...env } }, (error, stdout, stderr) =>
      error ? reject(new Error(`${error.message}: ${stderr}`)) : resolve({ stdout }),
    );
  });
}

/** A child process that opens the store and keeps it open until killed. */
async function holdInChild(path: string): Promise<ChildProcess> {
  const script = `const { openStore } = await import(process.env.STORE_MODULE); openStore(process.env.DB_PATH); console.log('open'); setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    env: { ...process.env, STORE_MODULE, DB_PATH: path },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('open')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the holder exited (${code}): ${stderr}`)));
  });
  return child;
}
