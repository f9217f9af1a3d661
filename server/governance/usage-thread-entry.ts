// The script of the usage thread (usage-thread.ts): each message is a usage query on the store at
// `dbPath`, each answer its report, or the error that stopped it (as text). The single executable
// runs this file bundled on its own (the SEA asset `usage-thread.cjs`, see build/build-binary.ts).
import { DatabaseSync } from 'node:sqlite';
import { parentPort } from 'node:worker_threads';
import { queryUsage } from './usage-query.ts';
import type { UsageQuery } from './usage-report.ts';

/** How long opening waits for a lock (as the store's own connection, store.ts). */
const BUSY_TIMEOUT_MS = 1000;

parentPort?.on('message', ({ id, dbPath, query }: { id: number; dbPath: string; query: UsageQuery }) => {
  // A connection per query, closed after it: between queries the thread holds nothing open, so the
  // owner's close is the file's last and checkpoints the WAL as it always has. Read-only, with
  // normal locking and WAL, it reads every transaction committed before the query began.
  let db: DatabaseSync;
  try {
    db = new DatabaseSync(dbPath, { readOnly: true, timeout: BUSY_TIMEOUT_MS });
  } catch (error) {
    parentPort?.postMessage({ id, failed: message(error), unusable: true });
    return;
  }
  try {
    parentPort?.postMessage({ id, report: queryUsage(db, query) });
  } catch (error) {
    parentPort?.postMessage({ id, failed: message(error) });
  } finally {
    db.close();
  }
});

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
