import { DatabaseSync } from 'node:sqlite';
import { migrate } from './migrations.ts';
import { lockStore, type StoreLock } from './store-lock.ts';

/**
 * How long a statement waits for a lock. Opening can wait for a file another process is opening;
 * once open, only readers share the file (WAL: they never block this writer), so requests do not
 * wait in practice.
 */
const BUSY_TIMEOUT_MS = 1000;

/**
 * The embedded SQLite file holding keys, spend and meta. One process owns (writes) it while open,
 * guarded by its companion lock (store-lock.ts); other processes may read it.
 */
export interface Store {
  readonly path: string;
  readonly db: DatabaseSync;
  /** Runs `work` in one write transaction: all of it is committed (durably) or none of it. */
  transaction<T>(work: () => T): T;
  close(): void;
}

/** Opens (creating if needed) and migrates the store; any failure is an Error naming the file. */
export function openStore(path: string): Store {
  // Budgets and spend are kept in this process's memory and are authoritative there, so a second
  // process writing the same file would let both admit against the same budget: the companion
  // lock refuses a second gateway on the same db_path ("locked") before the store is touched.
  let lock: StoreLock | undefined;
  let db: DatabaseSync;
  try {
    if (path !== ':memory:') lock = lockStore(path, BUSY_TIMEOUT_MS);
    db = new DatabaseSync(path, { timeout: BUSY_TIMEOUT_MS, enableForeignKeyConstraints: true });
  } catch (error) {
    lock?.release();
    throw storeError(path, error);
  }
  try {
    // Normal locking (not EXCLUSIVE): readers such as `sqlite3 -readonly` and the backup's own
    // connection (store-backup.ts) share the file through the -shm index.
    // WAL: a commit is one sequential append to the -wal file instead of rewriting pages in place.
    db.exec('PRAGMA journal_mode = WAL');
    // FULL: every commit fsyncs the WAL before it returns. A settled request's spend is committed
    // before its response ends; the data reaching the OS already survives SIGKILL of the gateway,
    // and FULL makes it survive an OS crash or power loss too (WAL's default, NORMAL, may lose the
    // last commits then), so a response the client saw is always paid for.
    db.exec('PRAGMA synchronous = FULL');
    db.exec('PRAGMA foreign_keys = ON');
    const check = db.prepare('PRAGMA quick_check').all() as { quick_check: string }[];
    if (check.length !== 1 || check[0]?.quick_check !== 'ok') {
      throw new Error(
        `${path} failed its integrity check (${check
          .map((row) => row.quick_check)
          .slice(0, 3)
          .join('; ')}): restore it from a backup`,
      );
    }
    migrate(db, path);
  } catch (error) {
    db.close();
    lock?.release();
    throw storeError(path, error);
  }
  const database = db;
  return {
    path,
    db: database,
    transaction<T>(work: () => T): T {
      database.exec('BEGIN IMMEDIATE');
      try {
        const result = work();
        database.exec('COMMIT');
        return result;
      } catch (error) {
        if (database.isTransaction) database.exec('ROLLBACK');
        throw error;
      }
    },
    close() {
      if (database.isOpen) database.close();
      lock?.release();
    },
  };
}

/** SQLite primary result codes (the low byte of an extended code). */
const SQLITE_BUSY = 5;
const SQLITE_LOCKED = 6;
const SQLITE_CORRUPT = 11;
const SQLITE_CANTOPEN = 14;
const SQLITE_NOTADB = 26;

function storeError(path: string, error: unknown): Error {
  if ((error as { code?: string }).code !== 'ERR_SQLITE_ERROR') return error as Error; // ours: names the file already
  const message = (error as Error).message;
  const code = (error as { errcode?: number }).errcode;
  const primary = code === undefined ? undefined : code & 0xff;
  let text: string;
  if (primary === SQLITE_BUSY || primary === SQLITE_LOCKED) {
    text = `${path} is locked by another process (is another gateway running with the same db_path?)`;
  } else if (primary === SQLITE_NOTADB) {
    text = `${path} is not a SQLite database: point db_path at a gateway store, or at a path where one can be created`;
  } else if (primary === SQLITE_CANTOPEN) {
    text = `cannot open ${path} (${message}): db_path must name a readable and writable file in an existing directory`;
  } else if (primary === SQLITE_CORRUPT) {
    text = `${path} is corrupt (${message}): restore it from a backup`;
  } else {
    text = `cannot use the store ${path}: ${message}`;
  }
  return new Error(text, { cause: error });
}
