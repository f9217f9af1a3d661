import type pg from 'pg';
import { BATCH_SUMS_MIGRATION } from './postgres-schema-batch-sums.ts';
import { GENERIC_PLANS_MIGRATION } from './postgres-schema-generic-plans.ts';
import { KEY_LIMITS_MIGRATION } from './postgres-schema-key-limits.ts';
import { RATE_COUNTS_MIGRATION } from './postgres-schema-rate-counts.ts';
import { TOKEN_SUMS_MIGRATION } from './postgres-schema-token-sums.ts';

/**
 * The shared store's schema, versioned in code like the SQLite one (migrations.ts) and recorded in
 * gateway_schema. Money is bigint microcents, stored times are milliseconds since the epoch (as in
 * SQLite, so `gateway store migrate` copies values as they are); a lease is a timestamptz compared
 * with the database's own clock, the one clock every node agrees on.
 *
 * Admission, settlement, release and lease expiry are PL/pgSQL functions that take arrays: a
 * whole batch of requests is one statement, one transaction and one round trip, and every row a
 * batch touches is locked in key order, so two batches cannot deadlock on each other.
 */
export interface PostgresMigration {
  readonly version: number;
  readonly sql: string;
}

export const POSTGRES_MIGRATIONS: readonly PostgresMigration[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE gateway_meta (
        key   text PRIMARY KEY,
        value text NOT NULL
      );

      CREATE TABLE gateway_keys (
        id                  text PRIMARY KEY,
        position            bigserial NOT NULL,
        name                text,
        owner               text,
        prefix              text NOT NULL,
        secret_hash         bytea NOT NULL UNIQUE,
        budget_microcents   bigint CHECK (budget_microcents IS NULL OR budget_microcents >= 0),
        spent_microcents    bigint NOT NULL DEFAULT 0 CHECK (spent_microcents >= 0),
        reserved_microcents bigint NOT NULL DEFAULT 0 CHECK (reserved_microcents >= 0),
        rpm                 integer CHECK (rpm IS NULL OR rpm > 0),
        created_at          bigint NOT NULL,
        last_used_at        bigint,
        revoked_at          bigint
      );

      -- One row per settled request; gateway_keys.spent_microcents is always the sum of its rows.
      CREATE TABLE gateway_spend_ledger (
        id                 bigserial PRIMARY KEY,
        key_id             text NOT NULL REFERENCES gateway_keys (id),
        request_id         text NOT NULL UNIQUE,
        model              text NOT NULL,
        lane               text NOT NULL,
        input_tokens       bigint NOT NULL,
        output_tokens      bigint NOT NULL,
        cache_read_tokens  bigint NOT NULL,
        cache_write_tokens bigint NOT NULL,
        cost_microcents    bigint NOT NULL CHECK (cost_microcents >= 0),
        estimated          boolean NOT NULL,
        created_at         bigint NOT NULL
      );
      CREATE INDEX gateway_spend_ledger_by_key ON gateway_spend_ledger (key_id, created_at);

      CREATE TABLE gateway_identities (
        issuer     text NOT NULL,
        subject    text NOT NULL,
        generation integer NOT NULL CHECK (generation >= 0),
        key_id     text NOT NULL UNIQUE REFERENCES gateway_keys (id),
        team       text NOT NULL,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL,
        PRIMARY KEY (issuer, subject)
      );

      -- Money held for a request in flight on one node, until it settles or is released; the
      -- node renews the lease while the request runs. gateway_keys.reserved_microcents is the sum.
      CREATE TABLE gateway_reservations (
        id          bigserial PRIMARY KEY,
        key_id      text NOT NULL REFERENCES gateway_keys (id),
        microcents  bigint NOT NULL CHECK (microcents >= 0),
        node        text NOT NULL,
        lease_until timestamptz NOT NULL
      );
      CREATE INDEX gateway_reservations_by_lease ON gateway_reservations (lease_until);

      -- The rpm window: one row per admitted request of a key with an rpm, for 60 s.
      CREATE TABLE gateway_admissions (
        id     bigserial PRIMARY KEY,
        key_id text NOT NULL,
        at_ms  bigint NOT NULL
      );
      CREATE INDEX gateway_admissions_by_key ON gateway_admissions (key_id, at_ms);

      -- Every node caches keys; a change of a key's row tells them all (LISTEN gateway_keys).
      CREATE FUNCTION gateway_key_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('gateway_keys', NEW.id);
        RETURN NULL;
      END $$;
      CREATE TRIGGER gateway_key_changed AFTER INSERT OR UPDATE OF revoked_at, budget_microcents, rpm, name, owner ON gateway_keys
        FOR EACH ROW EXECUTE FUNCTION gateway_key_changed();

      CREATE FUNCTION gateway_now_ms() RETURNS bigint LANGUAGE sql AS $$
        SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint
      $$;

      -- rpm for a batch, key by key in key order: under a transaction-scoped advisory lock (so the
      -- admissions of one key on every node are decided one batch at a time) the key's window is
      -- trimmed and counted once, then each request of the batch is admitted while there is room.
      -- retry_after_ms is null for an admitted request.
      CREATE FUNCTION gateway_take_rate(p_keys text[], p_rpms integer[], p_now bigint)
      RETURNS TABLE (ord integer, retry_after_ms bigint) LANGUAGE plpgsql AS $$
      DECLARE
        now_ms bigint := coalesce(p_now, gateway_now_ms());
        r record;
        current_key text := NULL;
        n bigint;
        oldest bigint;
        newest bigint;
      BEGIN
        FOR r IN SELECT t.k, t.i FROM unnest(p_keys) WITH ORDINALITY AS t(k, i) ORDER BY t.k, t.i LOOP
          IF current_key IS DISTINCT FROM r.k THEN
            current_key := r.k;
            PERFORM pg_advisory_xact_lock(hashtextextended('gateway rate ' || r.k, 0));
            DELETE FROM gateway_admissions WHERE key_id = r.k AND at_ms <= now_ms - 60000;
            SELECT count(*), min(at_ms), max(at_ms) INTO n, oldest, newest FROM gateway_admissions WHERE key_id = r.k;
          END IF;
          ord := r.i;
          IF n < p_rpms[r.i] THEN
            -- Never before the key's newest admission: the window stays ordered if a clock steps back.
            newest := greatest(now_ms, coalesce(newest, now_ms));
            INSERT INTO gateway_admissions (key_id, at_ms) VALUES (r.k, newest);
            n := n + 1;
            oldest := coalesce(oldest, newest);
            retry_after_ms := NULL;
          ELSE
            retry_after_ms := oldest + 60000 - now_ms;
          END IF;
          RETURN NEXT;
        END LOOP;
      END $$;

      -- Budget reservations for a batch: a conditional update per request (in key order), so the
      -- check and the hold are one atomic step however many nodes ask at once. outcome: ok,
      -- unknown, revoked or budget (with the key's figures for the refusal's message).
      CREATE FUNCTION gateway_reserve(p_keys text[], p_amounts bigint[], p_node text, p_lease_ms bigint)
      RETURNS TABLE (ord integer, reservation_id bigint, outcome text, budget bigint, spent bigint, reserved bigint) LANGUAGE plpgsql AS $$
      DECLARE
        i integer;
        k gateway_keys%ROWTYPE;
      BEGIN
        FOR i IN SELECT t.i FROM unnest(p_keys) WITH ORDINALITY AS t(k, i) ORDER BY t.k, t.i LOOP
          ord := i;
          reservation_id := NULL; budget := NULL; spent := NULL; reserved := NULL;
          UPDATE gateway_keys SET reserved_microcents = reserved_microcents + p_amounts[i]
            WHERE id = p_keys[i] AND revoked_at IS NULL
              AND (budget_microcents IS NULL OR spent_microcents + reserved_microcents + p_amounts[i] <= budget_microcents);
          IF FOUND THEN
            INSERT INTO gateway_reservations (key_id, microcents, node, lease_until)
              VALUES (p_keys[i], p_amounts[i], p_node, clock_timestamp() + p_lease_ms * interval '1 millisecond')
              RETURNING id INTO reservation_id;
            outcome := 'ok';
          ELSE
            SELECT * INTO k FROM gateway_keys WHERE id = p_keys[i];
            IF NOT FOUND THEN outcome := 'unknown';
            ELSIF k.revoked_at IS NOT NULL THEN outcome := 'revoked';
            ELSE
              outcome := 'budget'; budget := k.budget_microcents; spent := k.spent_microcents; reserved := k.reserved_microcents;
            END IF;
          END IF;
          RETURN NEXT;
        END LOOP;
      END $$;

      -- Settlements for a batch: the ledger row (once per request id) and the key's spend, and the
      -- reservation swapped for it. A reservation the lease rule already charged (its node was
      -- presumed dead) has its worst-case charge replaced by the real cost now that it is known.
      CREATE FUNCTION gateway_settle(
        p_reservations bigint[], p_keys text[], p_requests text[], p_models text[], p_lanes text[],
        p_input bigint[], p_output bigint[], p_cache_read bigint[], p_cache_write bigint[],
        p_costs bigint[], p_estimated boolean[], p_now bigint)
      RETURNS TABLE (ord integer, recorded boolean) LANGUAGE plpgsql AS $$
      DECLARE
        i integer;
        held bigint;
        charged bigint;
        inserted bigint;
      BEGIN
        FOR i IN SELECT t.i FROM unnest(p_keys) WITH ORDINALITY AS t(k, i) ORDER BY t.k, t.i LOOP
          ord := i;
          DELETE FROM gateway_reservations WHERE id = p_reservations[i] RETURNING microcents INTO held;
          IF NOT FOUND THEN held := 0; END IF;
          INSERT INTO gateway_spend_ledger (key_id, request_id, model, lane, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_microcents, estimated, created_at)
            VALUES (p_keys[i], p_requests[i], p_models[i], p_lanes[i], p_input[i], p_output[i], p_cache_read[i], p_cache_write[i], p_costs[i], p_estimated[i], p_now)
            ON CONFLICT (request_id) DO NOTHING
            RETURNING id INTO inserted;
          recorded := inserted IS NOT NULL;
          charged := 0;
          IF recorded AND p_reservations[i] > 0 THEN
            DELETE FROM gateway_spend_ledger WHERE request_id = 'lease:' || p_reservations[i] RETURNING cost_microcents INTO charged;
            IF NOT FOUND THEN charged := 0; END IF;
          END IF;
          UPDATE gateway_keys
            SET spent_microcents = spent_microcents + CASE WHEN recorded THEN p_costs[i] - charged ELSE 0 END,
                reserved_microcents = reserved_microcents - held
            WHERE id = p_keys[i] AND (recorded OR held > 0);
          inserted := NULL;
          RETURN NEXT;
        END LOOP;
      END $$;

      -- Refunds for a batch of reservations whose requests reached no upstream. Idempotent. One the
      -- lease rule already charged (its node could not renew it: the database was away longer than
      -- the lease) is refunded too: its node is alive and says the request was not served.
      CREATE FUNCTION gateway_release(p_reservations bigint[]) RETURNS void LANGUAGE plpgsql AS $$
      DECLARE r record;
      BEGIN
        FOR r IN SELECT id, key_id, microcents FROM gateway_reservations WHERE id = ANY (p_reservations) ORDER BY key_id, id FOR UPDATE LOOP
          DELETE FROM gateway_reservations WHERE id = r.id;
          UPDATE gateway_keys SET reserved_microcents = reserved_microcents - r.microcents WHERE id = r.key_id;
        END LOOP;
        FOR r IN SELECT id, key_id, cost_microcents FROM gateway_spend_ledger
            WHERE request_id = ANY (SELECT 'lease:' || x FROM unnest(p_reservations) AS x) ORDER BY key_id, id FOR UPDATE LOOP
          DELETE FROM gateway_spend_ledger WHERE id = r.id;
          UPDATE gateway_keys SET spent_microcents = spent_microcents - r.cost_microcents WHERE id = r.key_id;
        END LOOP;
      END $$;

      -- The lease rule: a reservation whose node stopped renewing it (the node died, or lost the
      -- database for longer than the lease) is charged at its reserved worst case, recorded in the
      -- ledger as 'lease:<id>' (estimated): its request may have been served, so it is never free.
      -- Should the node come back and settle it, gateway_settle puts the real cost in its place.
      CREATE FUNCTION gateway_expire_leases(p_now bigint) RETURNS integer LANGUAGE plpgsql AS $$
      DECLARE
        r record;
        n integer := 0;
      BEGIN
        FOR r IN SELECT id, key_id, microcents, node FROM gateway_reservations WHERE lease_until < clock_timestamp() ORDER BY key_id, id FOR UPDATE SKIP LOCKED LOOP
          DELETE FROM gateway_reservations WHERE id = r.id;
          INSERT INTO gateway_spend_ledger (key_id, request_id, model, lane, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_microcents, estimated, created_at)
            VALUES (r.key_id, 'lease:' || r.id, '(lease expired)', 'node ' || r.node, 0, 0, 0, 0, r.microcents, true, p_now)
            ON CONFLICT (request_id) DO NOTHING;
          UPDATE gateway_keys SET reserved_microcents = reserved_microcents - r.microcents, spent_microcents = spent_microcents + r.microcents WHERE id = r.key_id;
          n := n + 1;
        END LOOP;
        DELETE FROM gateway_admissions WHERE at_ms <= gateway_now_ms() - 60000;
        RETURN n;
      END $$;
    `,
  },
  {
    version: 2,
    sql: `
      -- The configurations the fleet applied (postgres-config-history.ts): one history for every
      -- node on this database, numbered by the identity's sequence, so a version number means the
      -- same configuration on every node.
      CREATE TABLE gateway_config_versions (
        version        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        config_version text NOT NULL,
        applied_at     bigint NOT NULL,
        trigger        text NOT NULL,
        node           text NOT NULL,
        text           text NOT NULL
      );
    `,
  },
  { version: 3, sql: KEY_LIMITS_MIGRATION },
  { version: 4, sql: BATCH_SUMS_MIGRATION },
  { version: 5, sql: RATE_COUNTS_MIGRATION },
  { version: 6, sql: TOKEN_SUMS_MIGRATION },
  { version: 7, sql: GENERIC_PLANS_MIGRATION },
];

/** The newest schema this build knows. */
export const POSTGRES_SCHEMA_VERSION = POSTGRES_MIGRATIONS.length;

/** Any constant: the one lock every node takes to migrate, so a fleet migrates once. */
const MIGRATION_LOCK = 7_170_001;

/**
 * Brings the database up to this build's schema, under a session advisory lock: when a fleet starts
 * at once, one node migrates and the others wait, then find nothing to do. Every pending step and
 * the new version commit in one transaction. A database from a newer build is refused.
 */
export async function migratePostgres(client: pg.ClientBase, migrations: readonly PostgresMigration[] = POSTGRES_MIGRATIONS): Promise<void> {
  const known = migrations.length;
  await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
  try {
    await client.query('CREATE TABLE IF NOT EXISTS gateway_schema (version integer NOT NULL)');
    const current = Number((await client.query<{ version: number }>('SELECT max(version) AS version FROM gateway_schema')).rows[0]?.version ?? 0);
    if (current > known) {
      throw new Error(
        `the database has gateway schema version ${current}, newer than this build knows (${known}): run a newer gateway, or point database_url at another database`,
      );
    }
    if (current === known) return;
    await client.query('BEGIN');
    try {
      for (const step of migrations.slice(current)) await client.query(step.sql);
      await client.query('DELETE FROM gateway_schema');
      await client.query('INSERT INTO gateway_schema (version) VALUES ($1)', [known]);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK');
      throw new Error(`schema migration to version ${known} failed: ${(error as Error).message}`, { cause: error });
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
  }
}
