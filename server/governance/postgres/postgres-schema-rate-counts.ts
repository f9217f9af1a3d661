/**
 * Schema version 5: the rpm window is counted, not scanned (issue 19). Version 1's
 * gateway_take_rate ran `count(*)` over a key's whole window at every batch: rpm rows at most, so
 * a key serving 600 requests a second made each batch read ~36,000 index entries, and batches of
 * one key run one at a time (its advisory lock), so that scan bounded the key's rate. Here each
 * key's count is kept in gateway_admission_counts by statement triggers on gateway_admissions
 * (every insert and delete, whoever makes it: take, refund, trim, a node of an older build), and
 * a batch reads its key's count and the window's oldest and newest from the index's ends.
 *
 * Exactness: a key's count row is locked before its admissions are touched (take_rate under the
 * key's advisory lock; the trim skips keys whose row is locked), so no count is read while another
 * transaction changes the window under it. The count rows of a batch are locked in key order, like
 * every other lock of a batch. The decisions are version 1's: the same window, the same retry time.
 */
export const RATE_COUNTS_MIGRATION = `
  CREATE TABLE gateway_admission_counts (
    key_id   text PRIMARY KEY,
    admitted bigint NOT NULL CHECK (admitted >= 0)
  );

  -- One statement's admissions added or removed, counted per key (the rows locked in key order).
  CREATE FUNCTION gateway_count_admissions() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF TG_OP = 'INSERT' THEN
      INSERT INTO gateway_admission_counts AS c (key_id, admitted)
        SELECT a.key_id, count(*) FROM added AS a GROUP BY a.key_id ORDER BY a.key_id
        ON CONFLICT (key_id) DO UPDATE SET admitted = c.admitted + excluded.admitted;
    ELSE
      PERFORM 1 FROM gateway_admission_counts c WHERE c.key_id IN (SELECT r.key_id FROM removed AS r) ORDER BY c.key_id FOR UPDATE;
      UPDATE gateway_admission_counts c SET admitted = c.admitted - r.n
        FROM (SELECT removed.key_id, count(*) AS n FROM removed GROUP BY removed.key_id) AS r WHERE c.key_id = r.key_id;
    END IF;
    RETURN NULL;
  END $$;
  -- Created before the counts are filled: from here until the migration commits, no other
  -- transaction can add or remove an admission (the triggers' lock), so the counts start exact.
  CREATE TRIGGER gateway_admissions_added AFTER INSERT ON gateway_admissions
    REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION gateway_count_admissions();
  CREATE TRIGGER gateway_admissions_removed AFTER DELETE ON gateway_admissions
    REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION gateway_count_admissions();
  INSERT INTO gateway_admission_counts (key_id, admitted) SELECT key_id, count(*) FROM gateway_admissions GROUP BY key_id;

  -- rpm for a batch (version 1's rules), key by key in key order under the key's advisory lock:
  -- the count row locked, the window trimmed, its count and ends read, each request admitted while
  -- there is room; the key's admissions inserted in one statement.
  CREATE OR REPLACE FUNCTION gateway_take_rate(p_keys text[], p_rpms integer[], p_now bigint)
  RETURNS TABLE (ord integer, retry_after_ms bigint) LANGUAGE plpgsql AS $$
  DECLARE
    now_ms bigint := coalesce(p_now, gateway_now_ms());
    r record;
    current_key text := NULL;
    n bigint;
    oldest bigint;
    newest bigint;
    taken integer := 0;
  BEGIN
    FOR r IN SELECT t.k, t.i FROM unnest(p_keys) WITH ORDINALITY AS t(k, i) ORDER BY t.k, t.i LOOP
      IF current_key IS DISTINCT FROM r.k THEN
        IF taken > 0 THEN
          INSERT INTO gateway_admissions (key_id, at_ms) SELECT current_key, newest FROM generate_series(1, taken);
        END IF;
        current_key := r.k;
        taken := 0;
        PERFORM pg_advisory_xact_lock(hashtextextended('gateway rate ' || r.k, 0));
        PERFORM 1 FROM gateway_admission_counts c WHERE c.key_id = r.k FOR UPDATE;
        IF NOT FOUND THEN
          INSERT INTO gateway_admission_counts (key_id, admitted) VALUES (r.k, 0) ON CONFLICT (key_id) DO NOTHING;
          PERFORM 1 FROM gateway_admission_counts c WHERE c.key_id = r.k FOR UPDATE;
        END IF;
        DELETE FROM gateway_admissions a WHERE a.key_id = r.k AND a.at_ms <= now_ms - 60000;
        SELECT c.admitted INTO n FROM gateway_admission_counts c WHERE c.key_id = r.k;
        SELECT min(a.at_ms), max(a.at_ms) INTO oldest, newest FROM gateway_admissions a WHERE a.key_id = r.k;
      END IF;
      ord := r.i;
      IF n < p_rpms[r.i] THEN
        -- Never before the key's newest admission: the window stays ordered if a clock steps back.
        newest := greatest(now_ms, coalesce(newest, now_ms));
        taken := taken + 1;
        n := n + 1;
        oldest := coalesce(oldest, newest);
        retry_after_ms := NULL;
      ELSE
        retry_after_ms := oldest + 60000 - now_ms;
      END IF;
      RETURN NEXT;
    END LOOP;
    IF taken > 0 THEN
      INSERT INTO gateway_admissions (key_id, at_ms) SELECT current_key, newest FROM generate_series(1, taken);
    END IF;
  END $$;

  -- The windows' old rows, for keys that stopped asking (a key's own batch trims its window): only
  -- keys whose count row is free (SKIP LOCKED), so a sweep never waits for a batch.
  CREATE OR REPLACE FUNCTION gateway_trim_windows(p_window_now bigint) RETURNS void LANGUAGE sql AS $$
    DELETE FROM gateway_admissions WHERE at_ms <= coalesce(p_window_now, gateway_now_ms()) - 60000 AND key_id IN (
      SELECT c.key_id FROM gateway_admission_counts c WHERE c.admitted > 0 ORDER BY c.key_id FOR UPDATE SKIP LOCKED);
    DELETE FROM gateway_token_window WHERE id IN (
      SELECT id FROM gateway_token_window WHERE NOT held AND at_ms <= coalesce(p_window_now, gateway_now_ms()) - 60000 FOR UPDATE SKIP LOCKED);
  $$;
`;
