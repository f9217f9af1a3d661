import type { DatabaseSync } from 'node:sqlite';

/** One schema step. Versions are 1, 2, 3, ... in order; a shipped step is never edited, only followed. */
export interface Migration {
  readonly version: number;
  readonly sql: string;
}

/**
 * The store's schema, versioned in code and recorded in the file's `PRAGMA user_version`.
 * Money columns are integer microcents (1 cent = 1,000,000); times are milliseconds since the epoch.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE meta (
        key   TEXT PRIMARY KEY,
        value TEXT NOT NULL
      ) STRICT;

      CREATE TABLE keys (
        id                TEXT PRIMARY KEY,
        name              TEXT,
        owner             TEXT,
        prefix            TEXT NOT NULL,
        secret_hash       BLOB NOT NULL UNIQUE,
        budget_microcents INTEGER CHECK (budget_microcents IS NULL OR budget_microcents >= 0),
        spent_microcents  INTEGER NOT NULL DEFAULT 0 CHECK (spent_microcents >= 0),
        rpm               INTEGER CHECK (rpm IS NULL OR rpm > 0),
        created_at        INTEGER NOT NULL,
        last_used_at      INTEGER,
        revoked_at        INTEGER
      ) STRICT;

      -- One row per settled request; keys.spent_microcents is always the sum of its rows.
      CREATE TABLE spend_ledger (
        id                 INTEGER PRIMARY KEY,
        key_id             TEXT NOT NULL REFERENCES keys (id),
        request_id         TEXT NOT NULL UNIQUE,
        model              TEXT NOT NULL,
        lane               TEXT NOT NULL,
        input_tokens       INTEGER NOT NULL,
        output_tokens      INTEGER NOT NULL,
        cache_read_tokens  INTEGER NOT NULL,
        cache_write_tokens INTEGER NOT NULL,
        cost_microcents    INTEGER NOT NULL CHECK (cost_microcents >= 0),
        estimated          INTEGER NOT NULL CHECK (estimated IN (0, 1)),
        created_at         INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX spend_ledger_by_key ON spend_ledger (key_id, created_at);
    `,
  },
  {
    version: 2,
    sql: `
      -- Self-serve keys: one row per person (issuer + subject, OIDC's stable identity). The key's
      -- secret is derived from the server secret, the identity and the generation, so it is not
      -- stored; revoking the key and exchanging again moves to the next generation and a new key.
      CREATE TABLE identities (
        issuer     TEXT NOT NULL,
        subject    TEXT NOT NULL,
        generation INTEGER NOT NULL CHECK (generation >= 0),
        key_id     TEXT NOT NULL UNIQUE REFERENCES keys (id),
        team       TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (issuer, subject)
      ) STRICT;
    `,
  },
  {
    version: 3,
    sql: `
      -- Every configuration applied (start, SIGHUP, reload, apply, rollback), newest = running; the
      -- exact YAML for rollback. Bounded by the writer (config/sqlite-config-history.ts).
      CREATE TABLE config_versions (
        version        INTEGER PRIMARY KEY,
        config_version TEXT NOT NULL,
        applied_at     INTEGER NOT NULL,
        trigger        TEXT NOT NULL CHECK (trigger IN ('start', 'sighup', 'reload', 'apply', 'rollback')),
        text           TEXT NOT NULL
      ) STRICT;
    `,
  },
  {
    version: 4,
    sql: `
      -- Keys a platform team runs day to day (issue 18): budgets that reset each calendar period,
      -- tokens per minute, a model allow-list (JSON array of names), an expiry, a team whose budget
      -- the key also spends, a small string map (JSON object), and rotation: the secret replaced by
      -- the last rotation stays accepted until previous_secret_until.
      ALTER TABLE keys ADD COLUMN budget_period TEXT CHECK (budget_period IS NULL OR budget_period IN ('daily', 'weekly', 'monthly'));
      ALTER TABLE keys ADD COLUMN tpm INTEGER CHECK (tpm IS NULL OR tpm > 0);
      ALTER TABLE keys ADD COLUMN models TEXT;
      ALTER TABLE keys ADD COLUMN expires_at INTEGER;
      ALTER TABLE keys ADD COLUMN team TEXT;
      ALTER TABLE keys ADD COLUMN metadata TEXT NOT NULL DEFAULT '{}';
      ALTER TABLE keys ADD COLUMN rotated_at INTEGER;
      ALTER TABLE keys ADD COLUMN previous_secret_hash BLOB;
      ALTER TABLE keys ADD COLUMN previous_secret_until INTEGER;
      -- Self-serve keys spend their team's budget: the team they were issued for goes on the key.
      UPDATE keys SET team = (SELECT team FROM identities WHERE identities.key_id = keys.id)
        WHERE id IN (SELECT key_id FROM identities);

      -- The key's team when the request was settled: a team's spend is the sum of its rows, even
      -- after a key moves to another team. Rows settled before this step get their key's team.
      ALTER TABLE spend_ledger ADD COLUMN team TEXT;
      UPDATE spend_ledger SET team = (SELECT team FROM keys WHERE keys.id = spend_ledger.key_id);
      CREATE INDEX spend_ledger_by_team ON spend_ledger (team, created_at);
    `,
  },
  {
    version: 5,
    sql: `
      -- Usage over a date range for every key (GET /api/v1/admin/usage?from=...&to=...): the
      -- by-key and by-team indexes lead with another column, so without this it read the whole ledger.
      CREATE INDEX spend_ledger_by_time ON spend_ledger (created_at);
    `,
  },
];

/** The newest schema this build knows. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Brings the file up to the newest schema: every pending step and the new user_version in one
 * transaction, so a failed step leaves the file exactly as it was. A file from a newer build is
 * refused rather than written to by code that does not know its tables.
 */
export function migrate(db: DatabaseSync, file: string, migrations: readonly Migration[] = MIGRATIONS): void {
  migrations.forEach((step, i) => {
    if (step.version !== i + 1) throw new Error(`migration ${i + 1} is numbered ${step.version}: steps must be numbered 1, 2, 3, ... in order`);
  });
  const known = migrations.length;
  const current = schemaVersion(db);
  if (current > known) {
    throw new Error(`${file} has schema version ${current}, newer than this build knows (${known}): run a newer gateway, or point db_path at another file`);
  }
  if (current === known) return;
  db.exec('BEGIN IMMEDIATE');
  try {
    for (const step of migrations.slice(current)) db.exec(step.sql);
    // PRAGMA takes no parameters; `known` is an integer from this file, not input.
    db.exec(`PRAGMA user_version = ${known}`);
    db.exec('COMMIT');
  } catch (error) {
    db.exec('ROLLBACK');
    throw new Error(`${file}: schema migration to version ${known} failed: ${(error as Error).message}`, { cause: error });
  }
}

export function schemaVersion(db: DatabaseSync): number {
  return Number((db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version);
}
