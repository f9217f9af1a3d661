import type pg from 'pg';
import {
  CONFIG_VERSIONS_KEPT,
  configVersionInfoOfRow as ofInfoRow,
  configVersionOfRow as ofRow,
  sameConfiguration,
  type ConfigHistory,
  type ConfigVersionInfoRow as InfoRow,
  type ConfigVersionRow as Row,
} from './config-history.ts';

/** Any constant: the lock under which a node compares with the newest version and adds its own. */
const RECORD_LOCK = 7_170_002;

/**
 * The history in the PostgreSQL store's `gateway_config_versions` table (schema version 2): one
 * history for the whole fleet, numbered by the table's sequence, so version 7 is the same text on
 * every node. The newest is the configuration last applied by any node; a node that starts on that
 * very text (a restart, or the fleet's other nodes starting from one file) adds no version. Nodes
 * are not kept in step: an apply on one node records it, the others run theirs until their own
 * reload (README, "Live reload"). `node` records which node applied each version.
 */
export function postgresConfigHistory(pool: pg.Pool, node: string, kept = CONFIG_VERSIONS_KEPT): ConfigHistory {
  return {
    stored: true,
    kept,
    async record(entry) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        // Two nodes starting together on one file: the second sees the first's version, adds none.
        await client.query('SELECT pg_advisory_xact_lock($1)', [RECORD_LOCK]);
        const newest = (await client.query<Row>('SELECT * FROM gateway_config_versions ORDER BY version DESC LIMIT 1')).rows[0];
        const current = newest === undefined ? undefined : ofRow(newest);
        if (sameConfiguration(current, entry)) {
          await client.query('COMMIT');
          return current;
        }
        const inserted = (
          await client.query<Row>(
            'INSERT INTO gateway_config_versions (config_version, applied_at, trigger, node, text) VALUES ($1, $2, $3, $4, $5) RETURNING *',
            [entry.configVersion, entry.appliedAt.getTime(), entry.trigger, node, entry.text],
          )
        ).rows[0]!;
        // The newest `kept` stay (a sequence may skip numbers, so counted, not subtracted).
        await client.query(
          'DELETE FROM gateway_config_versions WHERE version <= (SELECT version FROM gateway_config_versions ORDER BY version DESC OFFSET $1 LIMIT 1)',
          [kept],
        );
        await client.query('COMMIT');
        return ofRow(inserted);
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
    async list() {
      return (await pool.query<InfoRow>('SELECT version, config_version, applied_at, trigger FROM gateway_config_versions ORDER BY version DESC')).rows.map(
        ofInfoRow,
      );
    },
    async get(version) {
      const row = (await pool.query<Row>('SELECT * FROM gateway_config_versions WHERE version = $1', [version])).rows[0];
      return row === undefined ? undefined : ofRow(row);
    },
  };
}
