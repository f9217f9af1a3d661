/**
 * Schema version 6: the tpm window's tokens are totalled, not summed (issue 19). Each batch of a
 * key with a tpm summed its window's rows (`sum(tokens)` over the last minute: a key at 600
 * requests a second keeps 36,000), as the rpm window was counted before schema 5. Here
 * gateway_token_sums keeps each key's total over all its window rows, by statement triggers on
 * every insert, update and delete of gateway_token_window, and the tokens in the window are that
 * total less the rows older than the window (only those still held by a request running longer
 * than a minute: a key's batch removes its old settled rows first), read from the index's old end.
 *
 * Exactness: every writer of a key's window rows holds the key's row lock (gateway_lock_accounts;
 * the trim now takes it too, skipping keys a batch holds), so a key's total is only changed by the
 * transaction that holds the key, and its rows cannot change while a batch reads them.
 */
export const TOKEN_SUMS_MIGRATION = `
  CREATE TABLE gateway_token_sums (
    key_id text PRIMARY KEY,
    tokens bigint NOT NULL CHECK (tokens >= 0)
  );

  -- One statement's rows added, removed or changed, totalled per key.
  CREATE FUNCTION gateway_total_tokens() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF TG_OP = 'INSERT' THEN
      INSERT INTO gateway_token_sums AS s (key_id, tokens)
        SELECT a.key_id, sum(a.tokens) FROM added AS a GROUP BY a.key_id ORDER BY a.key_id
        ON CONFLICT (key_id) DO UPDATE SET tokens = s.tokens + excluded.tokens;
    ELSIF TG_OP = 'DELETE' THEN
      UPDATE gateway_token_sums s SET tokens = s.tokens - r.tokens
        FROM (SELECT removed.key_id, sum(removed.tokens) AS tokens FROM removed GROUP BY removed.key_id) AS r WHERE s.key_id = r.key_id;
    ELSE
      UPDATE gateway_token_sums s SET tokens = s.tokens + d.tokens
        FROM (SELECT c.key_id, sum(c.tokens) AS tokens FROM (
                SELECT added.key_id, added.tokens FROM added UNION ALL SELECT removed.key_id, -removed.tokens FROM removed) AS c
              GROUP BY c.key_id) AS d
        WHERE s.key_id = d.key_id AND d.tokens <> 0;
    END IF;
    RETURN NULL;
  END $$;
  -- Created before the totals are filled: until the migration commits, no other transaction can
  -- change a window row (the triggers' lock), so the totals start exact.
  CREATE TRIGGER gateway_token_window_added AFTER INSERT ON gateway_token_window
    REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION gateway_total_tokens();
  CREATE TRIGGER gateway_token_window_removed AFTER DELETE ON gateway_token_window
    REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION gateway_total_tokens();
  CREATE TRIGGER gateway_token_window_changed AFTER UPDATE ON gateway_token_window
    REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION gateway_total_tokens();
  INSERT INTO gateway_token_sums (key_id, tokens) SELECT key_id, sum(tokens) FROM gateway_token_window GROUP BY key_id;

  CREATE OR REPLACE FUNCTION gateway_tokens_in_window(p_key text, p_window_now bigint) RETURNS bigint LANGUAGE sql AS $$
    SELECT coalesce((SELECT s.tokens FROM gateway_token_sums s WHERE s.key_id = p_key), 0)
      - (SELECT coalesce(sum(w.tokens), 0) FROM gateway_token_window w WHERE w.key_id = p_key AND w.at_ms <= p_window_now - 60000)::bigint
  $$;

  -- The windows' old rows, for keys that stopped asking: the rpm window as in schema 5; a token
  -- window only of keys whose row is free (SKIP LOCKED), taken in id order, so the sweep never
  -- waits for a batch and changes a key's total only while it holds the key, as every writer does.
  CREATE OR REPLACE FUNCTION gateway_trim_windows(p_window_now bigint) RETURNS void LANGUAGE sql AS $$
    DELETE FROM gateway_admissions WHERE at_ms <= coalesce(p_window_now, gateway_now_ms()) - 60000 AND key_id IN (
      SELECT c.key_id FROM gateway_admission_counts c WHERE c.admitted > 0 ORDER BY c.key_id FOR UPDATE SKIP LOCKED);
    DELETE FROM gateway_token_window WHERE NOT held AND at_ms <= coalesce(p_window_now, gateway_now_ms()) - 60000 AND key_id IN (
      SELECT k.id FROM gateway_keys k WHERE k.id IN (
          SELECT DISTINCT w.key_id FROM gateway_token_window w WHERE NOT w.held AND w.at_ms <= coalesce(p_window_now, gateway_now_ms()) - 60000)
        ORDER BY k.id FOR UPDATE SKIP LOCKED);
  $$;
`;
