-- Which of `identities` ([{"role": …, "claims": {…}}, …]) may see the row of `entity` after
-- `action`, as Supabase Realtime decides it: the role needs SELECT on the table; with row level
-- security on, inserts and updates reach a subscriber only if that subscriber's role and claims
-- can select the row now (deletes cannot be checked: their old record carries the key only).
-- Returns the indexes of those that may.
--
-- `identity` ({column: text or null}, values as PostgreSQL wrote them to the WAL) names the
-- row: its primary key, compared with `=` so the key's index finds it; or, for a table without
-- one, every column, compared by their text with IS NOT DISTINCT FROM, so NULLs match and
-- types without an equality operator (json, point) take part.
DROP FUNCTION realtime.supagate_visible(regclass, text, jsonb, jsonb);
CREATE FUNCTION realtime.supagate_visible(entity regclass, action text, identity jsonb, identities jsonb)
  RETURNS integer[] LANGUAGE plpgsql AS $$
DECLARE
  rls boolean := (SELECT relrowsecurity FROM pg_class WHERE oid = entity);
  cond text;
  ident jsonb;
  i integer := 0;
  seen boolean;
  visible integer[] := '{}';
BEGIN
  SELECT string_agg(
           CASE WHEN a.attnum = ANY (k.indkey) AND jsonb_typeof(v.value) = 'string'
             THEN format('%I = %L', a.attname, v.value #>> '{}')
             ELSE format('%I::text IS NOT DISTINCT FROM (%L::%s)::text',
                         a.attname, v.value #>> '{}', format_type(a.atttypid, a.atttypmod))
           END, ' AND ')
    INTO cond
    FROM jsonb_each(identity) v
    JOIN pg_attribute a ON a.attrelid = entity AND a.attname = v.key
                       AND a.attnum > 0 AND NOT a.attisdropped
    LEFT JOIN pg_index k ON k.indrelid = entity AND k.indisprimary;
  FOR ident IN SELECT value FROM jsonb_array_elements(identities) LOOP
    IF has_table_privilege(ident ->> 'role', entity, 'SELECT') THEN
      IF NOT rls OR action = 'DELETE' THEN
        visible := visible || i;
      ELSIF cond IS NOT NULL THEN
        PERFORM set_config('role', ident ->> 'role', true),
                set_config('request.jwt.claims', ident ->> 'claims', true);
        EXECUTE format('SELECT EXISTS (SELECT 1 FROM %s WHERE %s)', entity, cond) INTO seen;
        PERFORM set_config('role', 'none', true);
        IF seen THEN
          visible := visible || i;
        END IF;
      END IF;
    END IF;
    i := i + 1;
  END LOOP;
  RETURN visible;
END
$$;
REVOKE ALL ON FUNCTION realtime.supagate_visible(regclass, text, jsonb, jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION realtime.supagate_visible(regclass, text, jsonb, jsonb)
  TO anon, authenticated, service_role;
