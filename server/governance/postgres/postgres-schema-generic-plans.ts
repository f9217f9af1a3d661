/**
 * Schema version 7: the batch functions keep their plans (issue 19). PL/pgSQL prepares each
 * statement of a function once per connection, and by default (plan_cache_mode = auto) re-plans a
 * statement for every call as long as the plans made for the call's own arguments look cheaper than
 * the generic one, which for the arrays a batch passes they always do: gateway_settle spent about
 * half of its database CPU planning its ten statements again at every call (1.05 ms a call of two
 * requests, 0.54 with its plans kept; gateway_reserve 0.40 and 0.26). The statements look rows up
 * by key, by id or by an array of them, through their indexes whatever the batch's size, so the
 * generic plan is the one wanted. The setting is the functions' own (the connection's is not
 * changed); plan_cache_mode exists from PostgreSQL 12, so on 11 the functions are left as they are.
 */
export const GENERIC_PLANS_MIGRATION = `
  DO $$
  BEGIN
    IF current_setting('server_version_num')::integer >= 120000 THEN
      ALTER FUNCTION gateway_take_rate(text[], integer[], bigint) SET plan_cache_mode = force_generic_plan;
      ALTER FUNCTION gateway_reserve(text[], bigint[], bigint[], text, bigint, text[], bigint[], text[], bigint, bigint) SET plan_cache_mode = force_generic_plan;
      ALTER FUNCTION gateway_settle(bigint[], text[], text[], text[], text[], bigint[], bigint[], bigint[], bigint[], bigint[], boolean[], bigint, bigint)
        SET plan_cache_mode = force_generic_plan;
      ALTER FUNCTION gateway_release(bigint[]) SET plan_cache_mode = force_generic_plan;
    END IF;
  END $$;
`;
