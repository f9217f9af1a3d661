import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import { SCHEMA_VERSION, schemaVersion } from '../migrations.ts';
import { migratePostgres } from './postgres-schema.ts';

export interface MigrationCounts {
  readonly keys: number;
  readonly ledgerRows: number;
  readonly identities: number;
}

const CHUNK = 5000;

/**
 * `gateway store migrate --from <db_path> --to <database_url>`: copies the embedded store into an
 * empty PostgreSQL database, all of it in one transaction: keys (hashes, budgets and their periods,
 * spend, rpm, tpm, allow-lists, expiry, team, metadata, rotation with a previous secret still in its
 * grace, revocations, last use), the spend ledger with each row's team, self-serve identities (their
 * keys marked self-serve) and the meta rows that hold the
 * generated server secret and the secret check, so every key and every self-serve derivation keeps
 * working. Stop the gateway first: its reservations live in its memory and are not copied (nothing
 * in flight is charged), and a copy of a store still being written would miss the last spend.
 */
export async function migrateSqliteToPostgres(from: string, to: string): Promise<MigrationCounts> {
  let source: DatabaseSync;
  try {
    source = new DatabaseSync(from, { readOnly: true });
  } catch (error) {
    throw new Error(`cannot open ${from} (${(error as Error).message}): stop the gateway that holds it, and name the db_path file`, { cause: error });
  }
  try {
    const version = schemaVersion(source);
    if (version === 0) throw new Error(`${from} is not a gateway store (it has no schema version)`);
    if (version > SCHEMA_VERSION)
      throw new Error(`${from} has schema version ${version}, newer than this build knows (${SCHEMA_VERSION}): use a newer gateway to migrate it`);
    const rows = (sql: string) => {
      const statement = source.prepare(sql);
      statement.setReadBigInts(true);
      return statement.all() as Record<string, unknown>[];
    };
    const meta = rows('SELECT key, value FROM meta');
    // Version 4 (issue 18) added the key limits and the ledger's team; older files have none.
    const limits =
      version >= 4
        ? ', budget_period, tpm, models, expires_at, team, metadata, rotated_at, previous_secret_hash, previous_secret_until'
        : ", NULL AS budget_period, NULL AS tpm, NULL AS models, NULL AS expires_at, NULL AS team, '{}' AS metadata, NULL AS rotated_at, NULL AS previous_secret_hash, NULL AS previous_secret_until";
    const keys = rows(
      `SELECT id, name, owner, prefix, secret_hash, budget_microcents, spent_microcents, rpm, created_at, last_used_at, revoked_at${limits} FROM keys ORDER BY created_at, rowid`,
    );
    const ledger = rows(
      `SELECT key_id, request_id, model, lane, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_microcents, estimated, created_at, ${version >= 4 ? 'team' : 'NULL AS team'} FROM spend_ledger ORDER BY id`,
    );
    const identities = version >= 2 ? rows('SELECT issuer, subject, generation, key_id, team, created_at, updated_at FROM identities') : [];

    const client = new pg.Client({ connectionString: to });
    try {
      await client.connect();
    } catch (error) {
      throw new Error(`cannot reach the database (--to): ${(error as Error).message}`, { cause: error });
    }
    try {
      await migratePostgres(client);
      await client.query('BEGIN');
      try {
        const existing = (await client.query<{ n: number }>('SELECT count(*)::int AS n FROM gateway_keys')).rows[0]!.n;
        if (existing > 0) throw new Error(`the database already holds ${existing} keys: migrate into an empty database (nothing was written)`);
        for (const row of meta) await client.query('INSERT INTO gateway_meta (key, value) VALUES ($1, $2)', [row.key, row.value]);
        const selfServe = new Set(identities.map((row) => row.key_id));
        for (const row of keys) {
          await client.query(
            `INSERT INTO gateway_keys (id, name, owner, prefix, secret_hash, budget_microcents, spent_microcents, rpm, created_at, last_used_at, revoked_at,
               budget_period, tpm, models, expires_at, team, metadata, self_serve, rotated_at, previous_secret_hash, previous_secret_until)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21)`,
            [
              row.id,
              row.name,
              row.owner,
              row.prefix,
              Buffer.from(row.secret_hash as Uint8Array),
              row.budget_microcents,
              row.spent_microcents,
              row.rpm,
              row.created_at,
              row.last_used_at,
              row.revoked_at,
              row.budget_period,
              row.tpm,
              row.models === null ? null : (JSON.parse(row.models as string) as string[]),
              row.expires_at,
              row.team,
              row.metadata,
              selfServe.has(row.id),
              row.rotated_at,
              row.previous_secret_hash === null ? null : Buffer.from(row.previous_secret_hash as Uint8Array),
              row.previous_secret_until,
            ],
          );
        }
        for (let i = 0; i < ledger.length; i += CHUNK) {
          const chunk = ledger.slice(i, i + CHUNK);
          const column = (name: string) => chunk.map((row) => row[name]);
          await client.query(
            `INSERT INTO gateway_spend_ledger (key_id, request_id, model, lane, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_microcents, estimated, created_at, team)
             SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[], $7::bigint[], $8::bigint[], $9::bigint[], $10::boolean[], $11::bigint[], $12::text[])`,
            [
              column('key_id'),
              column('request_id'),
              column('model'),
              column('lane'),
              column('input_tokens'),
              column('output_tokens'),
              column('cache_read_tokens'),
              column('cache_write_tokens'),
              column('cost_microcents'),
              chunk.map((row) => row.estimated === 1n),
              column('created_at'),
              column('team'),
            ],
          );
        }
        for (const row of identities) {
          await client.query(
            'INSERT INTO gateway_identities (issuer, subject, generation, key_id, team, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
            [row.issuer, row.subject, row.generation, row.key_id, row.team, row.created_at, row.updated_at],
          );
        }
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    } finally {
      await client.end().catch(() => undefined);
    }
    return { keys: keys.length, ledgerRows: ledger.length, identities: identities.length };
  } finally {
    source.close();
  }
}
