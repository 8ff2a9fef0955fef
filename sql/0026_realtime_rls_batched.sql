-- realtime.supagate_visible (0014) decided each identity on its own: the role's privileges and
-- policies looked up, the policy statement parsed and planned, a subtransaction, per identity —
-- a few hundred microseconds each, so a change to a table a thousand users subscribe to cost a
-- third of a second. As Supabase Realtime's apply_rls does, identities are now taken by role:
-- privileges and policies are looked up once per role, the statement is prepared once per role
-- and executed with each identity's claims (`(select auth.uid())` in a policy is evaluated anew
-- by each execution), in one subtransaction per role. A policy that fails for some identity
-- sends that role's identities through the one-by-one path, where a failure hides the row
-- from that identity only. What each identity may see is unchanged (see 0014).
CREATE OR REPLACE FUNCTION realtime.supagate_visible(entity regclass, action text, "row" jsonb, identities jsonb)
  RETURNS integer[] LANGUAGE plpgsql AS $$
DECLARE
  rel pg_class := (SELECT c FROM pg_class c WHERE c.oid = entity);
  cols text;
  vals text;
  grp record;
  who text;
  permissive text;
  restrictive text;
  stmt text;
  k integer;
  seen boolean;
  before integer[];
  visible integer[] := '{}';
BEGIN
  SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY a.attnum),
         string_agg(format('%L::%s', "row" ->> a.attname, format_type(a.atttypid, a.atttypmod)),
                    ', ' ORDER BY a.attnum)
    INTO cols, vals
    FROM pg_attribute a
   WHERE a.attrelid = entity AND a.attnum > 0 AND NOT a.attisdropped;
  FOR grp IN
    SELECT e.value ->> 'role' AS role,
           array_agg((e.n - 1)::integer ORDER BY e.n) AS idx,
           array_agg(e.value ->> 'claims' ORDER BY e.n) AS claims
      FROM jsonb_array_elements(identities) WITH ORDINALITY AS e(value, n)
     GROUP BY 1
  LOOP
    who := grp.role;
    CONTINUE WHEN NOT has_table_privilege(who, entity, 'SELECT');
    IF NOT rel.relrowsecurity OR action = 'OVERFLOW'
       OR (SELECT r.rolbypassrls FROM pg_roles r WHERE r.rolname = who)
       OR (pg_has_role(who, rel.relowner, 'USAGE') AND NOT rel.relforcerowsecurity) THEN
      visible := visible || grp.idx;
      CONTINUE;
    END IF;
    SELECT string_agg('(' || coalesce(pg_get_expr(p.polqual, p.polrelid), 'false') || ')', ' OR ')
           FILTER (WHERE p.polpermissive),
           string_agg('(' || coalesce(pg_get_expr(p.polqual, p.polrelid), 'false') || ')', ' AND ')
           FILTER (WHERE NOT p.polpermissive)
      INTO permissive, restrictive
      FROM pg_policy p
     WHERE p.polrelid = entity AND p.polcmd IN ('r', '*')
       AND (0 = ANY (p.polroles)
            OR EXISTS (SELECT 1 FROM unnest(p.polroles) r WHERE pg_has_role(who, r, 'MEMBER')));
    CONTINUE WHEN permissive IS NULL;
    stmt := format('SELECT EXISTS (SELECT 1 FROM (VALUES (%s)) AS %I (%s) WHERE (%s)%s)',
                   vals, rel.relname, cols, permissive, coalesce(' AND ' || restrictive, ''));
    -- Prepared statements outlive transactions: one left by an interrupted call goes first.
    IF EXISTS (SELECT 1 FROM pg_prepared_statements WHERE name = 'supagate_rls') THEN
      EXECUTE 'DEALLOCATE supagate_rls';
    END IF;
    before := visible;
    BEGIN
      PERFORM set_config('role', who, true);
      EXECUTE 'PREPARE supagate_rls AS ' || stmt;
      FOR k IN 1 .. cardinality(grp.idx) LOOP
        PERFORM set_config('request.jwt.claims', grp.claims[k], true);
        EXECUTE 'EXECUTE supagate_rls' INTO seen;
        IF seen THEN
          visible := visible || grp.idx[k];
        END IF;
      END LOOP;
      PERFORM set_config('role', 'none', true);
      EXECUTE 'DEALLOCATE supagate_rls';
    EXCEPTION WHEN OTHERS THEN
      IF EXISTS (SELECT 1 FROM pg_prepared_statements WHERE name = 'supagate_rls') THEN
        EXECUTE 'DEALLOCATE supagate_rls';
      END IF;
      -- One by one: a policy that fails (or a value that no longer casts) shows nothing.
      visible := before;
      FOR k IN 1 .. cardinality(grp.idx) LOOP
        BEGIN
          PERFORM set_config('role', who, true),
                  set_config('request.jwt.claims', grp.claims[k], true);
          EXECUTE stmt INTO seen;
        EXCEPTION WHEN OTHERS THEN
          seen := false;
        END;
        PERFORM set_config('role', 'none', true);
        IF seen THEN
          visible := visible || grp.idx[k];
        END IF;
      END LOOP;
    END;
  END LOOP;
  RETURN (SELECT coalesce(array_agg(v ORDER BY v), '{}') FROM unnest(visible) v);
END
$$;
