import { randomUUID } from 'node:crypto';
import { open, rm, type FileHandle } from 'node:fs/promises';
import { backup, DatabaseSync } from 'node:sqlite';

/**
 * Every page in one backup step: the copy is then one read transaction of its own connection, a
 * consistent snapshot that the writer's commits (WAL) neither block nor restart.
 */
const ALL_PAGES = 2 ** 31 - 1;

/** A finished copy, already unlinked: its bytes live until `file` is closed. */
export interface StoreCopy {
  readonly file: FileHandle;
  readonly size: number;
}

/**
 * Copies the store at `dbPath` while its owner keeps writing: node:sqlite's backup runs on the
 * libuv thread pool from a separate read-only connection, so the event loop keeps serving. The
 * temporary file sits beside db_path (a directory the gateway can surely write, unlike /tmp in a
 * FROM-scratch image) and is unlinked once open, so nothing is left behind whoever reads it.
 */
export async function copyStore(dbPath: string): Promise<StoreCopy> {
  const temporary = `${dbPath}.backup-${randomUUID()}`;
  const source = new DatabaseSync(dbPath, { readOnly: true });
  try {
    await backup(source, temporary, { rate: ALL_PAGES });
    // The copy inherits WAL mode from the header; rollback mode makes it one self-contained file.
    const copy = new DatabaseSync(temporary);
    try {
      copy.exec('PRAGMA journal_mode = DELETE');
    } finally {
      copy.close();
    }
    const file = await open(temporary, 'r');
    const { size } = await file.stat();
    return { file, size };
  } finally {
    source.close();
    await rm(temporary, { force: true });
    for (const suffix of ['-journal', '-wal', '-shm']) await rm(`${temporary}${suffix}`, { force: true });
  }
}
