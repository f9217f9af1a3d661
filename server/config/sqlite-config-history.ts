import type { DatabaseSync } from 'node:sqlite';
import {
  CONFIG_VERSIONS_KEPT,
  configVersionInfoOfRow as ofInfoRow,
  configVersionOfRow as ofRow,
  sameConfiguration,
  type ConfigHistory,
  type ConfigVersionInfoRow as InfoRow,
  type ConfigVersionRow as Row,
} from './config-history.ts';

/**
 * The history in the governance store's `config_versions` table (migration 3), so versions survive
 * restarts. Writes are rare (a start, a reload) and synchronous like the rest of the store (the
 * interface's promises are settled at once).
 */
export function sqliteConfigHistory(db: DatabaseSync, kept = CONFIG_VERSIONS_KEPT): ConfigHistory {
  const newestRow = db.prepare('SELECT * FROM config_versions ORDER BY version DESC LIMIT 1');
  const insert = db.prepare('INSERT INTO config_versions (config_version, applied_at, trigger, text) VALUES (?, ?, ?, ?) RETURNING *');
  const prune = db.prepare('DELETE FROM config_versions WHERE version <= ?');
  const all = db.prepare('SELECT version, config_version, applied_at, trigger FROM config_versions ORDER BY version DESC');
  const one = db.prepare('SELECT * FROM config_versions WHERE version = ?');
  return {
    stored: true,
    kept,
    async record(entry) {
      const newest = newestRow.get() as Row | undefined;
      const current = newest === undefined ? undefined : ofRow(newest);
      if (sameConfiguration(current, entry)) return current;
      db.exec('BEGIN IMMEDIATE');
      try {
        const row = ofRow(insert.get(entry.configVersion, entry.appliedAt.getTime(), entry.trigger, entry.text) as unknown as Row);
        prune.run(row.version - kept);
        db.exec('COMMIT');
        return row;
      } catch (error) {
        if (db.isTransaction) db.exec('ROLLBACK');
        throw error;
      }
    },
    list: async () => (all.all() as unknown as InfoRow[]).map(ofInfoRow),
    get: async (version) => {
      const row = one.get(version) as Row | undefined;
      return row === undefined ? undefined : ofRow(row);
    },
  };
}
