import { copyStore } from '../governance/store-backup.ts';
import type { Logger } from '../shared/logger.ts';
import { errorReply, type Reply } from './reply.ts';

/**
 * POST /api/v1/admin/store/backup: a consistent copy of the embedded store, streamed from an
 * unlinked temporary file (store-backup.ts), so nothing stays on disk once the answer ends or the
 * caller hangs up. `dbPath` is the configured db_path, undefined when there is no store; with
 * database_url the store is the PostgreSQL database itself, which its own tools back up.
 */
export async function storeBackup(dbPath: string | undefined, log: Logger, sharedStore = false): Promise<Reply> {
  if (sharedStore) {
    return errorReply(
      409,
      'store_is_database',
      "the store is the PostgreSQL database (database_url), not a file the gateway can copy: back it up with pg_dump (or the database's own backups)",
    );
  }
  if (dbPath === undefined) {
    return errorReply(409, 'no_store', 'there is no embedded store to back up: db_path is not configured');
  }
  const started = Date.now();
  let copy: Awaited<ReturnType<typeof copyStore>>;
  try {
    copy = await copyStore(dbPath);
  } catch (error) {
    log.error({ err: error, dbPath }, 'store backup failed');
    return errorReply(500, 'backup_failed', `could not copy the store ${dbPath}: ${(error as Error).message}`);
  }
  log.info({ dbPath, bytes: copy.size, ms: Date.now() - started }, 'store backup made');
  const stamp = new Date(started)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return {
    status: 200,
    body: copy.file.createReadStream(), // closes the file at its end, or when the caller leaves
    headers: {
      'content-type': 'application/vnd.sqlite3',
      'content-length': String(copy.size),
      'content-disposition': `attachment; filename="gateway-store-${stamp}.db"`,
      'cache-control': 'no-store',
    },
  };
}
