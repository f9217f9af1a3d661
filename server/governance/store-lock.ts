import { DatabaseSync } from 'node:sqlite';

/**
 * One writer per store, without locking readers out of it. Budgets are authoritative in the memory
 * of the process that owns the store, so a second gateway on the same db_path would admit against
 * the same budgets twice. Instead of an exclusive lock on the store itself (which also refuses
 * `sqlite3 -readonly` and live backups), the owner holds an exclusive lock on a companion file,
 * `<db_path>.lock`, a tiny SQLite database kept in EXCLUSIVE locking mode while the store is open.
 * SQLite's lock is a POSIX advisory lock: the OS drops it when the process ends, SIGKILL included,
 * and SQLite tracks it per file across the connections of one process too. The file stays on disk
 * after close: deleting it could let a second process lock a fresh inode while a first still holds
 * the old one.
 */
export interface StoreLock {
  readonly path: string;
  release(): void;
}

/** Takes the lock or throws SQLite's own error (SQLITE_BUSY when another process holds it). */
export function lockStore(dbPath: string, busyTimeoutMs: number): StoreLock {
  const path = `${dbPath}.lock`;
  const db = new DatabaseSync(path, { timeout: busyTimeoutMs });
  try {
    db.exec('PRAGMA locking_mode = EXCLUSIVE');
    db.exec('PRAGMA journal_mode = MEMORY'); // no journal file beside it
    // The exclusive lock taken by this (empty) write transaction is kept until close.
    db.exec('BEGIN EXCLUSIVE');
    db.exec('COMMIT');
  } catch (error) {
    db.close();
    throw error;
  }
  return {
    path,
    release() {
      if (db.isOpen) db.close();
    },
  };
}
