/**
 * Schema version 3: the key limits of issue 18 (budget periods, teams, tokens per minute, expiry,
 * allow-lists, metadata, rotation). Kept apart from postgres-schema.ts because it is most of a
 * schema of its own; that file lists it as the third migration.
 *
 * Three rules every function below keeps, so that a fleet stays exact and cannot deadlock:
 * - Locks: a batch first locks its keys' rows in id order, then its teams' rows in name order
 *   (gateway_lock_accounts), and only then reads or writes anything of theirs. Every function that
 *   touches a key's or a team's money or token window goes through that one helper.
 * - Periods: a row's period_spent_microcents is the sum of its ledger rows with created_at >=
 *   period_start. Each ledger insert or delete keeps that true (gateway_count_spend); when the
 *   current period (on the database clock, or the clock a test passes) differs from period_start,
 *   the row is re-based on the ledger (gateway_roll_*), so a rollover, a PATCHed period or a column
 *   left stale by anything else is recomputed, never trusted.
 * - Time: ledger times and period boundaries use p_now (null: the database clock); the token
 *   window uses p_window_now (null: the database clock), as the rpm window does.
 */
export const KEY_LIMITS_MIGRATION = `
  ALTER TABLE gateway_keys
    ADD COLUMN budget_period text CHECK (budget_period IN ('daily', 'weekly', 'monthly')),
    ADD COLUMN tpm integer CHECK (tpm IS NULL OR tpm > 0),
    ADD COLUMN models text[],
    ADD COLUMN expires_at bigint,
    ADD COLUMN team text,
    ADD COLUMN metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
    ADD COLUMN self_serve boolean NOT NULL DEFAULT false,
    ADD COLUMN rotated_at bigint,
    ADD COLUMN previous_secret_hash bytea UNIQUE,
    ADD COLUMN previous_secret_until bigint,
    -- The period that period_spent_microcents counts (null: none counted yet; recomputed on use).
    ADD COLUMN period_start bigint,
    ADD COLUMN period_spent_microcents bigint NOT NULL DEFAULT 0;

  -- Self-serve keys issued before this version: their identity names them and their team.
  UPDATE gateway_keys k SET self_serve = true, team = i.team FROM gateway_identities i WHERE i.key_id = k.id;

  ALTER TABLE gateway_spend_ledger ADD COLUMN team text;
  UPDATE gateway_spend_ledger l SET team = k.team FROM gateway_keys k WHERE k.id = l.key_id AND k.team IS NOT NULL;
  CREATE INDEX gateway_spend_ledger_by_team ON gateway_spend_ledger (team, created_at) WHERE team IS NOT NULL;
  CREATE INDEX gateway_spend_ledger_by_time ON gateway_spend_ledger (created_at);

  -- A reservation remembers the team it holds money of and the tokens it holds (0: no tpm).
  ALTER TABLE gateway_reservations ADD COLUMN team text, ADD COLUMN tokens bigint NOT NULL DEFAULT 0;

  -- A team's money. Budgets are not here: they come from each node's configuration (setTeams) as
  -- arguments, so a configuration change applies at once without a write. period is the period
  -- period_spent was computed for (a team's period can change with the configuration).
  CREATE TABLE gateway_teams (
    name                    text PRIMARY KEY,
    spent_microcents        bigint NOT NULL DEFAULT 0,
    reserved_microcents     bigint NOT NULL DEFAULT 0 CHECK (reserved_microcents >= 0),
    period                  text,
    period_start            bigint,
    period_spent_microcents bigint NOT NULL DEFAULT 0
  );
  INSERT INTO gateway_teams (name, spent_microcents)
    SELECT team, sum(cost_microcents) FROM gateway_spend_ledger WHERE team IS NOT NULL GROUP BY team;

  -- The tpm window: one row per request of a key with a tpm, at its admission time, counted for
  -- 60 s from then: at its worst case while held, at its real tokens once settled. A held row
  -- older than that is kept (uncounted) for its settlement or release to find.
  CREATE TABLE gateway_token_window (
    id             bigserial PRIMARY KEY,
    key_id         text NOT NULL,
    reservation_id bigint UNIQUE,
    at_ms          bigint NOT NULL,
    tokens         bigint NOT NULL CHECK (tokens >= 0),
    held           boolean NOT NULL
  );
  CREATE INDEX gateway_token_window_by_key ON gateway_token_window (key_id, at_ms);

  -- Every column a node caches (postgres-keys.ts) tells the fleet when it changes.
  DROP TRIGGER gateway_key_changed ON gateway_keys;
  CREATE TRIGGER gateway_key_changed AFTER INSERT OR UPDATE OF
      revoked_at, budget_microcents, rpm, name, owner, prefix, secret_hash, budget_period, tpm, models,
      expires_at, team, metadata, self_serve, rotated_at, previous_secret_hash, previous_secret_until
    ON gateway_keys FOR EACH ROW EXECUTE FUNCTION gateway_key_changed();

  -- The start (epoch ms) of the UTC calendar period p_now falls in; weeks start on Monday (ISO).
  CREATE FUNCTION gateway_period_start(p_period text, p_now bigint) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN p_period IS NULL THEN NULL ELSE
      (extract(epoch FROM date_trunc(CASE p_period WHEN 'daily' THEN 'day' WHEN 'weekly' THEN 'week' ELSE 'month' END,
        to_timestamp((p_now / 1000.0)::double precision) AT TIME ZONE 'UTC')) * 1000)::bigint END
  $$;

  -- Locks a batch's accounts: keys in id order, then the teams of those keys and p_teams in name
  -- order (a team's row is created on first use). Every writer takes its locks here first.
  CREATE FUNCTION gateway_lock_accounts(p_keys text[], p_teams text[]) RETURNS void LANGUAGE plpgsql AS $$
  DECLARE teams text[];
  BEGIN
    PERFORM 1 FROM gateway_keys WHERE id = ANY (p_keys) ORDER BY id FOR UPDATE;
    SELECT array_agg(t ORDER BY t) INTO teams FROM (
      SELECT team AS t FROM gateway_keys WHERE id = ANY (p_keys) AND team IS NOT NULL
      UNION SELECT x FROM unnest(p_teams) AS x WHERE x IS NOT NULL) AS named;
    IF teams IS NULL THEN RETURN; END IF;
    -- A new team row starts from the ledger (rows copied by gateway store migrate, or recorded
    -- before the row existed): from then on every ledger write counts on it.
    INSERT INTO gateway_teams (name, spent_microcents)
      SELECT x, (SELECT coalesce(sum(cost_microcents), 0) FROM gateway_spend_ledger WHERE team = x) FROM unnest(teams) AS x ORDER BY x
      ON CONFLICT (name) DO NOTHING;
    PERFORM 1 FROM gateway_teams WHERE name = ANY (teams) ORDER BY name FOR UPDATE;
  END $$;

  -- A ledger row of p_cost (negative: one taken out) at p_at, counted on its key and its team.
  CREATE FUNCTION gateway_count_spend(p_key text, p_team text, p_cost bigint, p_at bigint) RETURNS void LANGUAGE sql AS $$
    UPDATE gateway_keys SET spent_microcents = spent_microcents + p_cost,
        period_spent_microcents = period_spent_microcents + CASE WHEN period_start IS NOT NULL AND p_at >= period_start THEN p_cost ELSE 0 END
      WHERE id = p_key;
    UPDATE gateway_teams SET spent_microcents = spent_microcents + p_cost,
        period_spent_microcents = period_spent_microcents + CASE WHEN period_start IS NOT NULL AND p_at >= period_start THEN p_cost ELSE 0 END
      WHERE name = p_team;
  $$;

  -- Re-bases a key's period spend on the ledger when its current period is not the one counted.
  CREATE FUNCTION gateway_roll_key_period(p_key text, p_now bigint) RETURNS void LANGUAGE plpgsql AS $$
  DECLARE k record; s bigint;
  BEGIN
    SELECT budget_period, period_start INTO k FROM gateway_keys WHERE id = p_key;
    IF NOT FOUND OR k.budget_period IS NULL THEN RETURN; END IF;
    s := gateway_period_start(k.budget_period, p_now);
    IF k.period_start IS DISTINCT FROM s THEN
      UPDATE gateway_keys SET period_start = s,
          period_spent_microcents = (SELECT coalesce(sum(cost_microcents), 0) FROM gateway_spend_ledger WHERE key_id = p_key AND created_at >= s)
        WHERE id = p_key;
    END IF;
  END $$;

  -- The same for a team, whose period comes from the caller's configuration.
  CREATE FUNCTION gateway_roll_team_period(p_team text, p_period text, p_now bigint) RETURNS void LANGUAGE plpgsql AS $$
  DECLARE t record; s bigint := gateway_period_start(p_period, p_now);
  BEGIN
    SELECT period, period_start INTO t FROM gateway_teams WHERE name = p_team;
    IF NOT FOUND THEN RETURN; END IF;
    IF t.period IS DISTINCT FROM p_period OR t.period_start IS DISTINCT FROM s THEN
      UPDATE gateway_teams SET period = p_period, period_start = s,
          period_spent_microcents = CASE WHEN s IS NULL THEN 0 ELSE
            (SELECT coalesce(sum(cost_microcents), 0) FROM gateway_spend_ledger WHERE team = p_team AND created_at >= s) END
        WHERE name = p_team;
    END IF;
  END $$;

  -- How long until enough of the key's window has passed to free p_excess tokens (the oldest
  -- requests leave first, held or settled); 60 s if even the whole window would not do.
  CREATE FUNCTION gateway_tokens_free_after(p_key text, p_excess bigint, p_window_now bigint) RETURNS bigint LANGUAGE plpgsql AS $$
  DECLARE r record; freed bigint := 0;
  BEGIN
    FOR r IN SELECT at_ms, tokens FROM gateway_token_window WHERE key_id = p_key AND at_ms > p_window_now - 60000 ORDER BY at_ms, id LOOP
      freed := freed + r.tokens;
      IF freed >= p_excess THEN RETURN greatest(r.at_ms + 60000 - p_window_now, 1); END IF;
    END LOOP;
    RETURN 60000;
  END $$;

  DROP FUNCTION gateway_reserve(text[], bigint[], text, bigint);
  DROP FUNCTION gateway_settle(bigint[], text[], text[], text[], text[], bigint[], bigint[], bigint[], bigint[], bigint[], boolean[], bigint);
  DROP FUNCTION gateway_expire_leases(bigint);

  -- Reservations for a batch, in key order with every account locked first: the key's budget (its
  -- period's spend when it has a period), then its team's (p_team_* is the caller's configuration),
  -- then its tpm window; the first that cannot hold the request refuses it, and nothing is held.
  -- outcome: ok, unknown, revoked, budget, team or tpm (budget/spent/reserved: the refusal's
  -- figures; for tpm: the limit, the tokens in the window and retry_after_ms).
  CREATE FUNCTION gateway_reserve(p_keys text[], p_amounts bigint[], p_tokens bigint[], p_node text, p_lease_ms bigint,
      p_team_names text[], p_team_budgets bigint[], p_team_periods text[], p_now bigint, p_window_now bigint)
  RETURNS TABLE (ord integer, reservation_id bigint, outcome text, budget bigint, spent bigint, reserved bigint, team text, retry_after_ms bigint)
  LANGUAGE plpgsql AS $$
  DECLARE
    now_ms bigint := coalesce(p_now, gateway_now_ms());
    window_ms bigint := coalesce(p_window_now, gateway_now_ms());
    i integer;
    j integer;
    k gateway_keys%ROWTYPE;
    t gateway_teams%ROWTYPE;
    team_budget bigint;
    team_period text;
    counted bigint;
    in_window bigint;
    trimmed text := NULL;
  BEGIN
    PERFORM gateway_lock_accounts(p_keys, NULL);
    FOR i IN SELECT x.i FROM unnest(p_keys) WITH ORDINALITY AS x(k, i) ORDER BY x.k, x.i LOOP
      ord := i; reservation_id := NULL; outcome := NULL; budget := NULL; spent := NULL; reserved := NULL; team := NULL; retry_after_ms := NULL;
      PERFORM gateway_roll_key_period(p_keys[i], now_ms);
      SELECT * INTO k FROM gateway_keys WHERE id = p_keys[i];
      IF NOT FOUND THEN
        outcome := 'unknown';
      ELSIF k.revoked_at IS NOT NULL THEN
        outcome := 'revoked';
      ELSIF k.budget_microcents IS NOT NULL THEN
        counted := CASE WHEN k.budget_period IS NULL THEN k.spent_microcents ELSE k.period_spent_microcents END;
        IF counted + k.reserved_microcents + p_amounts[i] > k.budget_microcents THEN
          outcome := 'budget'; budget := k.budget_microcents; spent := counted; reserved := k.reserved_microcents;
        END IF;
      END IF;
      IF outcome IS NULL AND k.team IS NOT NULL THEN
        j := array_position(p_team_names, k.team);
        IF j IS NOT NULL THEN
          team_budget := p_team_budgets[j];
          team_period := p_team_periods[j];
          PERFORM gateway_roll_team_period(k.team, team_period, now_ms);
          SELECT * INTO t FROM gateway_teams WHERE name = k.team;
          counted := CASE WHEN team_period IS NULL THEN t.spent_microcents ELSE t.period_spent_microcents END;
          IF team_budget IS NOT NULL AND counted + t.reserved_microcents + p_amounts[i] > team_budget THEN
            outcome := 'team'; team := k.team; budget := team_budget; spent := counted; reserved := t.reserved_microcents;
          END IF;
        END IF;
      END IF;
      IF outcome IS NULL AND k.tpm IS NOT NULL THEN
        IF trimmed IS DISTINCT FROM k.id THEN
          DELETE FROM gateway_token_window WHERE key_id = k.id AND NOT held AND at_ms <= window_ms - 60000;
          trimmed := k.id;
        END IF;
        SELECT coalesce(sum(tokens), 0) INTO in_window FROM gateway_token_window WHERE key_id = k.id AND at_ms > window_ms - 60000;
        IF in_window + p_tokens[i] > k.tpm THEN
          outcome := 'tpm'; budget := k.tpm; spent := in_window;
          retry_after_ms := CASE WHEN p_tokens[i] > k.tpm THEN 60000 ELSE gateway_tokens_free_after(k.id, in_window + p_tokens[i] - k.tpm, window_ms) END;
        END IF;
      END IF;
      IF outcome IS NULL THEN
        UPDATE gateway_keys SET reserved_microcents = reserved_microcents + p_amounts[i] WHERE id = k.id;
        UPDATE gateway_teams SET reserved_microcents = reserved_microcents + p_amounts[i] WHERE name = k.team;
        INSERT INTO gateway_reservations (key_id, microcents, node, lease_until, team, tokens)
          VALUES (k.id, p_amounts[i], p_node, clock_timestamp() + p_lease_ms * interval '1 millisecond', k.team,
                  CASE WHEN k.tpm IS NULL THEN 0 ELSE p_tokens[i] END)
          RETURNING id INTO reservation_id;
        IF k.tpm IS NOT NULL THEN
          INSERT INTO gateway_token_window (key_id, reservation_id, at_ms, tokens, held) VALUES (k.id, reservation_id, window_ms, p_tokens[i], true);
        END IF;
        outcome := 'ok';
      END IF;
      RETURN NEXT;
    END LOOP;
  END $$;

  -- Settlements for a batch: the reservation (money, team money, held tokens) swapped for the
  -- ledger row (once per request id, recorded under the key's team of now) and the real tokens,
  -- counted from the admission's time. A reservation the lease rule already charged has that
  -- charge (and its worst-case tokens) replaced by the real figures now that they are known.
  CREATE FUNCTION gateway_settle(
      p_reservations bigint[], p_keys text[], p_requests text[], p_models text[], p_lanes text[],
      p_input bigint[], p_output bigint[], p_cache_read bigint[], p_cache_write bigint[],
      p_costs bigint[], p_estimated boolean[], p_now bigint, p_window_now bigint)
  RETURNS TABLE (ord integer, recorded boolean) LANGUAGE plpgsql AS $$
  DECLARE
    now_ms bigint := coalesce(p_now, gateway_now_ms());
    i integer;
    r record;
    charged record;
    k record;
    inserted bigint;
  BEGIN
    PERFORM gateway_lock_accounts(p_keys, ARRAY(
      SELECT team FROM gateway_reservations WHERE id = ANY (p_reservations)
      UNION SELECT team FROM gateway_spend_ledger WHERE request_id = ANY (SELECT 'lease:' || x FROM unnest(p_reservations) AS x)));
    FOR i IN SELECT x.i FROM unnest(p_keys) WITH ORDINALITY AS x(k, i) ORDER BY x.k, x.i LOOP
      ord := i;
      FOR r IN DELETE FROM gateway_reservations WHERE id = p_reservations[i] RETURNING key_id, team, microcents LOOP
        UPDATE gateway_keys SET reserved_microcents = reserved_microcents - r.microcents WHERE id = r.key_id;
        UPDATE gateway_teams SET reserved_microcents = reserved_microcents - r.microcents WHERE name = r.team;
      END LOOP;
      PERFORM gateway_roll_key_period(p_keys[i], now_ms);
      SELECT team, tpm INTO k FROM gateway_keys WHERE id = p_keys[i];
      inserted := NULL;
      INSERT INTO gateway_spend_ledger (key_id, request_id, model, lane, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_microcents, estimated, team, created_at)
        VALUES (p_keys[i], p_requests[i], p_models[i], p_lanes[i], p_input[i], p_output[i], p_cache_read[i], p_cache_write[i], p_costs[i], p_estimated[i], k.team, now_ms)
        ON CONFLICT (request_id) DO NOTHING
        RETURNING id INTO inserted;
      recorded := inserted IS NOT NULL;
      IF recorded THEN
        PERFORM gateway_count_spend(p_keys[i], k.team, p_costs[i], now_ms);
        IF p_reservations[i] > 0 THEN
          FOR charged IN DELETE FROM gateway_spend_ledger WHERE request_id = 'lease:' || p_reservations[i] RETURNING key_id, team, cost_microcents, created_at LOOP
            PERFORM gateway_count_spend(charged.key_id, charged.team, -charged.cost_microcents, charged.created_at);
          END LOOP;
        END IF;
      END IF;
      UPDATE gateway_token_window SET tokens = p_input[i] + p_output[i], held = false WHERE p_reservations[i] > 0 AND reservation_id = p_reservations[i];
      IF NOT FOUND AND recorded AND k.tpm IS NOT NULL THEN
        -- Admitted unheld (the store was away and on_store_error is allow): counted from now.
        INSERT INTO gateway_token_window (key_id, at_ms, tokens, held) VALUES (p_keys[i], coalesce(p_window_now, gateway_now_ms()), p_input[i] + p_output[i], false);
      END IF;
      RETURN NEXT;
    END LOOP;
  END $$;

  -- Refunds for a batch of reservations whose requests reached no upstream. Idempotent. One the
  -- lease rule already charged is refunded too: its node is alive and says it was not served.
  CREATE OR REPLACE FUNCTION gateway_release(p_reservations bigint[]) RETURNS void LANGUAGE plpgsql AS $$
  DECLARE r record;
  BEGIN
    PERFORM gateway_lock_accounts(
      ARRAY(SELECT key_id FROM gateway_reservations WHERE id = ANY (p_reservations)
            UNION SELECT key_id FROM gateway_spend_ledger WHERE request_id = ANY (SELECT 'lease:' || x FROM unnest(p_reservations) AS x)),
      ARRAY(SELECT team FROM gateway_reservations WHERE id = ANY (p_reservations)
            UNION SELECT team FROM gateway_spend_ledger WHERE request_id = ANY (SELECT 'lease:' || x FROM unnest(p_reservations) AS x)));
    FOR r IN DELETE FROM gateway_reservations WHERE id = ANY (p_reservations) RETURNING key_id, team, microcents LOOP
      UPDATE gateway_keys SET reserved_microcents = reserved_microcents - r.microcents WHERE id = r.key_id;
      UPDATE gateway_teams SET reserved_microcents = reserved_microcents - r.microcents WHERE name = r.team;
    END LOOP;
    FOR r IN DELETE FROM gateway_spend_ledger WHERE request_id = ANY (SELECT 'lease:' || x FROM unnest(p_reservations) AS x)
        RETURNING key_id, team, cost_microcents, created_at LOOP
      PERFORM gateway_count_spend(r.key_id, r.team, -r.cost_microcents, r.created_at);
    END LOOP;
    DELETE FROM gateway_token_window WHERE reservation_id = ANY (p_reservations);
  END $$;

  -- The lease rule: a reservation whose node stopped renewing it is charged at its reserved worst
  -- case, recorded in the ledger as 'lease:<id>' (estimated) under the key's team, and its held
  -- tokens stay counted at their worst case. A late settlement or release undoes it.
  CREATE FUNCTION gateway_expire_leases(p_now bigint, p_window_now bigint DEFAULT NULL) RETURNS integer LANGUAGE plpgsql AS $$
  DECLARE
    now_ms bigint := coalesce(p_now, gateway_now_ms());
    r record;
    k_team text;
    n integer := 0;
    expired text[];
  BEGIN
    SELECT array_agg(DISTINCT key_id) INTO expired FROM gateway_reservations WHERE lease_until < clock_timestamp();
    IF expired IS NULL THEN RETURN 0; END IF;
    PERFORM gateway_lock_accounts(expired,
      ARRAY(SELECT DISTINCT team FROM gateway_reservations WHERE key_id = ANY (expired) AND lease_until < clock_timestamp()));
    FOR r IN DELETE FROM gateway_reservations WHERE key_id = ANY (expired) AND lease_until < clock_timestamp()
        RETURNING id, key_id, team, microcents, node LOOP
      UPDATE gateway_keys SET reserved_microcents = reserved_microcents - r.microcents WHERE id = r.key_id;
      UPDATE gateway_teams SET reserved_microcents = reserved_microcents - r.microcents WHERE name = r.team;
      PERFORM gateway_roll_key_period(r.key_id, now_ms);
      SELECT team INTO k_team FROM gateway_keys WHERE id = r.key_id;
      INSERT INTO gateway_spend_ledger (key_id, request_id, model, lane, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_microcents, estimated, team, created_at)
        VALUES (r.key_id, 'lease:' || r.id, '(lease expired)', 'node ' || r.node, 0, 0, 0, 0, r.microcents, true, k_team, now_ms)
        ON CONFLICT (request_id) DO NOTHING;
      IF FOUND THEN PERFORM gateway_count_spend(r.key_id, k_team, r.microcents, now_ms); END IF;
      UPDATE gateway_token_window SET held = false WHERE reservation_id = r.id;
      n := n + 1;
    END LOOP;
    RETURN n;
  END $$;

  -- The windows' old rows, for keys that stopped asking (a key's own reservation trims its window).
  -- SKIP LOCKED: rows a batch is working on are left for the next sweep, never waited for.
  CREATE FUNCTION gateway_trim_windows(p_window_now bigint) RETURNS void LANGUAGE sql AS $$
    DELETE FROM gateway_admissions WHERE id IN (
      SELECT id FROM gateway_admissions WHERE at_ms <= coalesce(p_window_now, gateway_now_ms()) - 60000 FOR UPDATE SKIP LOCKED);
    DELETE FROM gateway_token_window WHERE id IN (
      SELECT id FROM gateway_token_window WHERE NOT held AND at_ms <= coalesce(p_window_now, gateway_now_ms()) - 60000 FOR UPDATE SKIP LOCKED);
  $$;
`;
