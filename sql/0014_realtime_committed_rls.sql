-- Which of `identities` ([{"role": …, "claims": {…}}, …]) may see a change of `entity`, decided
-- on the row as it was committed (`row`: {column: text or null}, as PostgreSQL wrote it to the
-- WAL), not on the row as it is when the change is delivered: a draft inserted hidden and
-- published a moment later is not sent with its draft content, and a delete reaches only those
-- who could read the deleted row (with replica identity full its whole old row is known; else
-- only its key, and policies on other columns see NULL). Returns the indexes of those that may.
--
-- The role needs SELECT on the table. Without row level security that is all. With it, a role
-- that bypasses RLS or owns the table (unless RLS is forced) sees everything; any other sees
-- the row when one of the permissive SELECT (or ALL) policies that apply to it passes and every
-- restrictive one does, evaluated with that role and claims on the committed values (the
-- values stand under the table's own name, so policies that name it resolve). `action`
-- 'OVERFLOW' (a transaction too large to send change by change) asks for the privilege only.
DROP FUNCTION realtime.supagate_visible(regclass, text, jsonb, jsonb);
CREATE FUNCTION realtime.supagate_visible(entity regclass, action text, "row" jsonb, identities jsonb)
  RETURNS integer[] LANGUAGE plpgsql AS $$
DECLARE
  rel pg_class := (SELECT c FROM pg_class c WHERE c.oid = entity);
  cols text;
  vals text;
  ident jsonb;
  who text;
  permissive text;
  restrictive text;
  i integer := 0;
  seen boolean;
  visible integer[] := '{}';
BEGIN
  SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY a.attnum),
         string_agg(format('%L::%s', "row" ->> a.attname, format_type(a.atttypid, a.atttypmod)),
                    ', ' ORDER BY a.attnum)
    INTO cols, vals
    FROM pg_attribute a
   WHERE a.attrelid = entity AND a.attnum > 0 AND NOT a.attisdropped;
  FOR ident IN SELECT value FROM jsonb_array_elements(identities) LOOP
    who := ident ->> 'role';
    IF has_table_privilege(who, entity, 'SELECT') THEN
      IF NOT rel.relrowsecurity OR action = 'OVERFLOW'
         OR (SELECT r.rolbypassrls FROM pg_roles r WHERE r.rolname = who)
         OR (pg_has_role(who, rel.relowner, 'USAGE') AND NOT rel.relforcerowsecurity) THEN
        visible := visible || i;
      ELSE
        SELECT string_agg('(' || coalesce(pg_get_expr(p.polqual, p.polrelid), 'false') || ')', ' OR ')
               FILTER (WHERE p.polpermissive),
               string_agg('(' || coalesce(pg_get_expr(p.polqual, p.polrelid), 'false') || ')', ' AND ')
               FILTER (WHERE NOT p.polpermissive)
          INTO permissive, restrictive
          FROM pg_policy p
         WHERE p.polrelid = entity AND p.polcmd IN ('r', '*')
           AND (0 = ANY (p.polroles)
                OR EXISTS (SELECT 1 FROM unnest(p.polroles) r WHERE pg_has_role(who, r, 'MEMBER')));
        IF permissive IS NOT NULL THEN
          -- A policy that fails (or a value that no longer casts) shows nothing.
          BEGIN
            PERFORM set_config('role', who, true),
                    set_config('request.jwt.claims', ident ->> 'claims', true);
            EXECUTE format('SELECT EXISTS (SELECT 1 FROM (VALUES (%s)) AS %I (%s) WHERE (%s)%s)',
                           vals, rel.relname, cols, permissive,
                           coalesce(' AND ' || restrictive, ''))
               INTO seen;
          EXCEPTION WHEN OTHERS THEN
            seen := false;
          END;
          PERFORM set_config('role', 'none', true);
          IF seen THEN
            visible := visible || i;
          END IF;
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
