/**
 * Schema version 4: a batch writes each account once (issue 19). Version 3's gateway_reserve and
 * gateway_settle updated the key's row (and its team's) once or twice per request of the batch:
 * a busy key's one row got a new version for every request, and each statement of the next row
 * had to find the newest of them, so the database spent ~300 µs of CPU a request, most of it on
 * that one row. Here a batch sums what it holds or spends per key and per team and writes each
 * once; the ledger rows, the reservations and a key's held tokens are one statement each; the
 * lease charges are looked up by an array, so the request_id index is used whatever the ledger's
 * size; and a team's ledger is summed only when its row is created, not at every batch of its keys.
 * The tokens in a key's window are asked of gateway_tokens_in_window (a sum here; schema 6 keeps a
 * total instead).
 *
 * Nothing else changes: the same signatures, the same results, the same lock order
 * (gateway_lock_accounts first), the same decisions in the same order (a batch is still decided
 * request by request in key order, against the figures as they stand after the requests before
 * it). The function bodies are replaced; no table changes, so the migration is instant.
 */
export const BATCH_SUMS_MIGRATION = `
  -- Version 3's lock order, and a team's row created from the ledger on its first use as before;
  -- but the ledger is summed only for a team that has no row yet (version 3 summed each team's
  -- whole ledger at every batch, then threw the sum away on the conflict).
  CREATE OR REPLACE FUNCTION gateway_lock_accounts(p_keys text[], p_teams text[]) RETURNS void LANGUAGE plpgsql AS $$
  DECLARE teams text[];
  BEGIN
    PERFORM 1 FROM gateway_keys WHERE id = ANY (p_keys) ORDER BY id FOR UPDATE;
    SELECT array_agg(t ORDER BY t) INTO teams FROM (
      SELECT team AS t FROM gateway_keys WHERE id = ANY (p_keys) AND team IS NOT NULL
      UNION SELECT x FROM unnest(p_teams) AS x WHERE x IS NOT NULL) AS named;
    IF teams IS NULL THEN RETURN; END IF;
    INSERT INTO gateway_teams (name, spent_microcents)
      SELECT x, (SELECT coalesce(sum(cost_microcents), 0) FROM gateway_spend_ledger WHERE team = x) FROM unnest(teams) AS x
      WHERE NOT EXISTS (SELECT 1 FROM gateway_teams WHERE name = x) ORDER BY x
      ON CONFLICT (name) DO NOTHING;
    PERFORM 1 FROM gateway_teams WHERE name = ANY (teams) ORDER BY name FOR UPDATE;
  END $$;

  -- The tokens of a key's window: its rows admitted in the last minute, held or settled (version
  -- 3's sum; schema 5+ may answer it from a kept total). Called with the key's row locked.
  CREATE FUNCTION gateway_tokens_in_window(p_key text, p_window_now bigint) RETURNS bigint LANGUAGE sql AS $$
    SELECT coalesce(sum(w.tokens), 0)::bigint FROM gateway_token_window w WHERE w.key_id = p_key AND w.at_ms > p_window_now - 60000
  $$;

  -- A key's held tokens, one window row per reservation, in one statement.
  CREATE FUNCTION gateway_hold_tokens(p_key text, p_ids bigint[], p_tokens bigint[], p_at bigint) RETURNS void LANGUAGE sql AS $$
    INSERT INTO gateway_token_window (key_id, reservation_id, at_ms, tokens, held)
      SELECT p_key, h.id, p_at, h.tokens, true FROM unnest(p_ids, p_tokens) AS h(id, tokens)
  $$;

  -- Reservations for a batch (version 3's rules): per request in key order, the key's budget, its
  -- team's, its tpm window; the money this batch holds is summed per key and per team as it goes
  -- (the checks count it) and written once, and the reservations are inserted in one statement
  -- (their ids taken from the sequence as they are decided).
  CREATE OR REPLACE FUNCTION gateway_reserve(p_keys text[], p_amounts bigint[], p_tokens bigint[], p_node text, p_lease_ms bigint,
      p_team_names text[], p_team_budgets bigint[], p_team_periods text[], p_now bigint, p_window_now bigint)
  RETURNS TABLE (ord integer, reservation_id bigint, outcome text, budget bigint, spent bigint, reserved bigint, team text, retry_after_ms bigint)
  LANGUAGE plpgsql AS $$
  DECLARE
    now_ms bigint := coalesce(p_now, gateway_now_ms());
    window_ms bigint := coalesce(p_window_now, gateway_now_ms());
    i integer;
    j integer;
    k gateway_keys%ROWTYPE;
    k_found boolean := false;
    k_id text := NULL;        -- the key k holds (requests come in key order)
    k_added bigint := 0;      -- what this batch has held on that key so far
    k_counted bigint;
    in_window bigint;         -- the key's tokens in its window, this batch's holds included
    t gateway_teams%ROWTYPE;
    t_names text[] := '{}';   -- the teams this batch met, each read once: its figures, what it held
    t_counted bigint[] := '{}';
    t_reserved bigint[] := '{}';
    t_added bigint[] := '{}';
    tj integer;
    team_budget bigint;
    team_period text;
    held_ids bigint[] := '{}';
    held_keys text[] := '{}';
    held_amounts bigint[] := '{}';
    held_teams text[] := '{}';
    held_tokens bigint[] := '{}';
    window_ids bigint[] := '{}';   -- the current key's held tokens not yet written to its window
    window_tokens bigint[] := '{}';
  BEGIN
    PERFORM gateway_lock_accounts(p_keys, NULL);
    FOR i IN SELECT x.i FROM unnest(p_keys) WITH ORDINALITY AS x(k, i) ORDER BY x.k, x.i LOOP
      ord := i; reservation_id := NULL; outcome := NULL; budget := NULL; spent := NULL; reserved := NULL; team := NULL; retry_after_ms := NULL;
      IF k_id IS DISTINCT FROM p_keys[i] THEN
        IF k_added <> 0 THEN UPDATE gateway_keys SET reserved_microcents = reserved_microcents + k_added WHERE id = k_id; END IF;
        IF cardinality(window_ids) > 0 THEN
          PERFORM gateway_hold_tokens(k_id, window_ids, window_tokens, window_ms);
          window_ids := '{}';
          window_tokens := '{}';
        END IF;
        k_id := p_keys[i]; k_added := 0; in_window := NULL;
        PERFORM gateway_roll_key_period(k_id, now_ms);
        SELECT * INTO k FROM gateway_keys WHERE id = k_id;
        k_found := FOUND;
      END IF;
      IF NOT k_found THEN
        outcome := 'unknown';
      ELSIF k.revoked_at IS NOT NULL THEN
        outcome := 'revoked';
      ELSIF k.budget_microcents IS NOT NULL THEN
        k_counted := CASE WHEN k.budget_period IS NULL THEN k.spent_microcents ELSE k.period_spent_microcents END;
        IF k_counted + k.reserved_microcents + k_added + p_amounts[i] > k.budget_microcents THEN
          outcome := 'budget'; budget := k.budget_microcents; spent := k_counted; reserved := k.reserved_microcents + k_added;
        END IF;
      END IF;
      tj := NULL;
      IF outcome IS NULL AND k.team IS NOT NULL THEN
        j := array_position(p_team_names, k.team);
        team_budget := p_team_budgets[j];
        team_period := p_team_periods[j];
        tj := array_position(t_names, k.team);
        IF tj IS NULL THEN
          IF j IS NOT NULL THEN PERFORM gateway_roll_team_period(k.team, team_period, now_ms); END IF;
          SELECT * INTO t FROM gateway_teams WHERE name = k.team;
          t_names := t_names || k.team;
          t_counted := t_counted || CASE WHEN team_period IS NULL THEN t.spent_microcents ELSE t.period_spent_microcents END;
          t_reserved := t_reserved || t.reserved_microcents;
          t_added := t_added || 0::bigint;
          tj := cardinality(t_names);
        END IF;
        IF j IS NOT NULL AND team_budget IS NOT NULL AND t_counted[tj] + t_reserved[tj] + t_added[tj] + p_amounts[i] > team_budget THEN
          outcome := 'team'; team := k.team; budget := team_budget; spent := t_counted[tj]; reserved := t_reserved[tj] + t_added[tj];
        END IF;
      END IF;
      IF outcome IS NULL AND k.tpm IS NOT NULL THEN
        IF in_window IS NULL THEN
          DELETE FROM gateway_token_window w WHERE w.key_id = k.id AND NOT w.held AND w.at_ms <= window_ms - 60000;
          in_window := gateway_tokens_in_window(k.id, window_ms);
        END IF;
        IF in_window + p_tokens[i] > k.tpm THEN
          -- The refusal's retry time reads the window's rows: this batch's holds are written first.
          IF cardinality(window_ids) > 0 THEN
            PERFORM gateway_hold_tokens(k.id, window_ids, window_tokens, window_ms);
            window_ids := '{}';
            window_tokens := '{}';
          END IF;
          outcome := 'tpm'; budget := k.tpm; spent := in_window;
          retry_after_ms := CASE WHEN p_tokens[i] > k.tpm THEN 60000 ELSE gateway_tokens_free_after(k.id, in_window + p_tokens[i] - k.tpm, window_ms) END;
        END IF;
      END IF;
      IF outcome IS NULL THEN
        reservation_id := nextval(pg_get_serial_sequence('gateway_reservations', 'id'));
        k_added := k_added + p_amounts[i];
        IF tj IS NOT NULL THEN t_added[tj] := t_added[tj] + p_amounts[i]; END IF;
        held_ids := held_ids || reservation_id;
        held_keys := held_keys || k.id;
        held_amounts := held_amounts || p_amounts[i];
        held_teams := held_teams || k.team;
        held_tokens := held_tokens || CASE WHEN k.tpm IS NULL THEN 0 ELSE p_tokens[i] END;
        IF k.tpm IS NOT NULL THEN
          window_ids := window_ids || reservation_id;
          window_tokens := window_tokens || p_tokens[i];
          in_window := in_window + p_tokens[i];
        END IF;
        outcome := 'ok';
      END IF;
      RETURN NEXT;
    END LOOP;
    IF k_added <> 0 THEN UPDATE gateway_keys SET reserved_microcents = reserved_microcents + k_added WHERE id = k_id; END IF;
    IF cardinality(window_ids) > 0 THEN PERFORM gateway_hold_tokens(k_id, window_ids, window_tokens, window_ms); END IF;
    UPDATE gateway_teams g SET reserved_microcents = g.reserved_microcents + a.added
      FROM unnest(t_names, t_added) AS a(name, added) WHERE g.name = a.name AND a.added <> 0;
    INSERT INTO gateway_reservations (id, key_id, microcents, node, lease_until, team, tokens)
      SELECT h.id, h.key_id, h.microcents, p_node, clock_timestamp() + p_lease_ms * interval '1 millisecond', h.team, h.tokens
      FROM unnest(held_ids, held_keys, held_amounts, held_teams, held_tokens) AS h(id, key_id, microcents, team, tokens);
  END $$;

  -- Settlements for a batch (version 3's rules): the reservations swapped out, the ledger rows
  -- (once per request id: the first in key order) recorded under each key's team of now, their
  -- costs counted on each key and team once, a lease rule's charge replaced by the real cost, the
  -- held tokens set to the real ones.
  CREATE OR REPLACE FUNCTION gateway_settle(
      p_reservations bigint[], p_keys text[], p_requests text[], p_models text[], p_lanes text[],
      p_input bigint[], p_output bigint[], p_cache_read bigint[], p_cache_write bigint[],
      p_costs bigint[], p_estimated boolean[], p_now bigint, p_window_now bigint)
  RETURNS TABLE (ord integer, recorded boolean) LANGUAGE plpgsql AS $$
  DECLARE
    now_ms bigint := coalesce(p_now, gateway_now_ms());
    leases text[] := ARRAY(SELECT 'lease:' || x FROM unnest(p_reservations) AS x WHERE x > 0);
    written integer[];
    charged record;
  BEGIN
    PERFORM gateway_lock_accounts(p_keys, ARRAY(
      SELECT r.team FROM gateway_reservations r WHERE r.id = ANY (p_reservations)
      UNION SELECT l.team FROM gateway_spend_ledger l WHERE l.request_id = ANY (leases)));
    WITH gone AS (DELETE FROM gateway_reservations r WHERE r.id = ANY (p_reservations) RETURNING r.key_id, r.team, r.microcents),
      on_keys AS (
        UPDATE gateway_keys k SET reserved_microcents = k.reserved_microcents - g.sum
          FROM (SELECT gone.key_id, sum(gone.microcents) AS sum FROM gone GROUP BY gone.key_id) AS g WHERE k.id = g.key_id)
    UPDATE gateway_teams t SET reserved_microcents = t.reserved_microcents - g.sum
      FROM (SELECT gone.team, sum(gone.microcents) AS sum FROM gone WHERE gone.team IS NOT NULL GROUP BY gone.team) AS g WHERE t.name = g.team;
    PERFORM gateway_roll_key_period(x.id, now_ms) FROM (SELECT DISTINCT unnest(p_keys) AS id) AS x;
    WITH firsts AS (
        SELECT DISTINCT ON (p_requests[s.i]) s.i FROM generate_subscripts(p_keys, 1) AS s(i) ORDER BY p_requests[s.i], p_keys[s.i], s.i),
      added AS (
        INSERT INTO gateway_spend_ledger (key_id, request_id, model, lane, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_microcents, estimated, team, created_at)
          SELECT p_keys[f.i], p_requests[f.i], p_models[f.i], p_lanes[f.i], p_input[f.i], p_output[f.i], p_cache_read[f.i], p_cache_write[f.i],
                 p_costs[f.i], p_estimated[f.i], (SELECT k.team FROM gateway_keys k WHERE k.id = p_keys[f.i]), now_ms
          FROM firsts AS f ORDER BY p_keys[f.i], f.i
          ON CONFLICT (request_id) DO NOTHING
          RETURNING gateway_spend_ledger.key_id, gateway_spend_ledger.request_id, gateway_spend_ledger.team, gateway_spend_ledger.cost_microcents),
      on_keys AS (
        UPDATE gateway_keys k SET spent_microcents = k.spent_microcents + a.sum,
            period_spent_microcents = k.period_spent_microcents + CASE WHEN k.period_start IS NOT NULL AND now_ms >= k.period_start THEN a.sum ELSE 0 END
          FROM (SELECT added.key_id, sum(added.cost_microcents) AS sum FROM added GROUP BY added.key_id) AS a WHERE k.id = a.key_id),
      on_teams AS (
        UPDATE gateway_teams t SET spent_microcents = t.spent_microcents + a.sum,
            period_spent_microcents = t.period_spent_microcents + CASE WHEN t.period_start IS NOT NULL AND now_ms >= t.period_start THEN a.sum ELSE 0 END
          FROM (SELECT added.team, sum(added.cost_microcents) AS sum FROM added WHERE added.team IS NOT NULL GROUP BY added.team) AS a WHERE t.name = a.team)
    SELECT array_agg(f.i) INTO written FROM firsts AS f WHERE p_requests[f.i] IN (SELECT added.request_id FROM added);
    written := coalesce(written, '{}');
    -- A lease rule's charge of a request now recorded: taken out (rare: its node lost the database).
    FOR charged IN DELETE FROM gateway_spend_ledger l
        WHERE l.request_id = ANY (ARRAY(SELECT 'lease:' || p_reservations[w] FROM unnest(written) AS w WHERE p_reservations[w] > 0))
        RETURNING l.key_id, l.team, l.cost_microcents, l.created_at LOOP
      PERFORM gateway_count_spend(charged.key_id, charged.team, -charged.cost_microcents, charged.created_at);
    END LOOP;
    -- Held tokens become the real ones (a reservation settled twice in a batch: the last in key order).
    -- (reservation_id = ANY: the index, whatever the plan guesses of the subquery's size)
    UPDATE gateway_token_window w SET tokens = s.tokens, held = false
      FROM (SELECT DISTINCT ON (p_reservations[s.i]) p_reservations[s.i] AS id, p_input[s.i] + p_output[s.i] AS tokens
            FROM generate_subscripts(p_keys, 1) AS s(i) WHERE p_reservations[s.i] > 0
            ORDER BY p_reservations[s.i], p_keys[s.i] DESC, s.i DESC) AS s
      WHERE w.reservation_id = ANY (p_reservations) AND w.reservation_id = s.id;
    -- Admitted unheld (the store was away and on_store_error is allow): counted from now.
    INSERT INTO gateway_token_window (key_id, at_ms, tokens, held)
      SELECT p_keys[w], coalesce(p_window_now, gateway_now_ms()), p_input[w] + p_output[w], false
      FROM unnest(written) AS w JOIN gateway_keys k ON k.id = p_keys[w]
      WHERE k.tpm IS NOT NULL
        AND NOT (p_reservations[w] > 0 AND EXISTS (SELECT 1 FROM gateway_token_window t WHERE t.reservation_id = p_reservations[w]));
    RETURN QUERY SELECT s.i, s.i = ANY (written) FROM generate_subscripts(p_keys, 1) AS s(i);
  END $$;

  -- Refunds (version 3's rules), the lease charges looked up by an array (an index scan); the keys
  -- of the token rows it removes are locked too (every writer of a key's window holds its row).
  CREATE OR REPLACE FUNCTION gateway_release(p_reservations bigint[]) RETURNS void LANGUAGE plpgsql AS $$
  DECLARE
    r record;
    leases text[] := ARRAY(SELECT 'lease:' || x FROM unnest(p_reservations) AS x);
  BEGIN
    PERFORM gateway_lock_accounts(
      ARRAY(SELECT key_id FROM gateway_reservations WHERE id = ANY (p_reservations)
            UNION SELECT key_id FROM gateway_spend_ledger WHERE request_id = ANY (leases)
            UNION SELECT key_id FROM gateway_token_window WHERE reservation_id = ANY (p_reservations)),
      ARRAY(SELECT team FROM gateway_reservations WHERE id = ANY (p_reservations)
            UNION SELECT team FROM gateway_spend_ledger WHERE request_id = ANY (leases)));
    FOR r IN DELETE FROM gateway_reservations WHERE id = ANY (p_reservations) RETURNING key_id, team, microcents LOOP
      UPDATE gateway_keys SET reserved_microcents = reserved_microcents - r.microcents WHERE id = r.key_id;
      UPDATE gateway_teams SET reserved_microcents = reserved_microcents - r.microcents WHERE name = r.team;
    END LOOP;
    FOR r IN DELETE FROM gateway_spend_ledger WHERE request_id = ANY (leases) RETURNING key_id, team, cost_microcents, created_at LOOP
      PERFORM gateway_count_spend(r.key_id, r.team, -r.cost_microcents, r.created_at);
    END LOOP;
    DELETE FROM gateway_token_window WHERE reservation_id = ANY (p_reservations);
  END $$;
`;
