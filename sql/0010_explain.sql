-- The planner's view of a request, as PostgREST gives it: EXPLAIN runs as the caller, so row
-- level security shapes the plan as it shapes the request; without ANALYZE it executes nothing.
-- Any role may call these two (the schema's tables and other functions stay revoked from PUBLIC).
GRANT USAGE ON SCHEMA supagate TO PUBLIC;
-- `application/vnd.pgrst.plan`: the EXPLAIN of the statement a request would run (values inline),
-- in text or JSON, with the options the gateway spells from a fixed list (checked again here).
CREATE FUNCTION supagate.explain(query text, options text) RETURNS text
LANGUAGE plpgsql VOLATILE SECURITY INVOKER AS $$
DECLARE
  line text;
  result text := NULL;
BEGIN
  IF options !~ '^[A-Z ]+(, [A-Z ]+)*$' THEN
    RAISE EXCEPTION 'invalid EXPLAIN options: %', options;
  END IF;
  FOR line IN EXECUTE format('EXPLAIN (%s) %s', options, query) LOOP
    result := CASE WHEN result IS NULL THEN line ELSE result || E'\n' || line END;
  END LOOP;
  RETURN result;
END
$$;
GRANT EXECUTE ON FUNCTION supagate.explain(text, text) TO PUBLIC;

-- PostgREST's planned count (`Prefer: count=planned`) is the planner's row estimate for the
-- request's count query, rendered with its values as quoted literals.
CREATE FUNCTION supagate.planned_rows(query text) RETURNS bigint
LANGUAGE sql VOLATILE SECURITY INVOKER AS $$
  SELECT (supagate.explain(query, 'FORMAT JSON')::json -> 0 -> 'Plan' ->> 'Plan Rows')::bigint
$$;
GRANT EXECUTE ON FUNCTION supagate.planned_rows(text) TO PUBLIC;
