-- Realtime's RLS decision for all of a role's subscribers in one statement (0026 prepared the
-- policy statement once per role but still executed it once per identity: ~51 ms for a change
-- that 1,000 users subscribe to). Where the policies read the caller only through auth.uid(),
-- auth.jwt(), auth.role() and auth.email() (the common case), those calls become columns of
-- the identities the statement walks, and one execution decides every identity of the role.
-- Anything that could read the session's claims another way (current_setting, a function or
-- operator of the project's, a view, another table under RLS) keeps the per-identity path.

-- Whether auth's four claim functions are still the ones sql/0003 made (a project that
-- redefines them keeps the per-identity path): their sources' digests, taken now.
DO $do$
BEGIN
  EXECUTE format(
    'CREATE OR REPLACE FUNCTION realtime.supagate_auth_as_installed() RETURNS boolean
       LANGUAGE sql STABLE AS %L',
    format(
      'SELECT (SELECT string_agg(md5(p.prosrc), '','' ORDER BY p.proname)
                 FROM pg_catalog.pg_proc p
                WHERE p.pronamespace = ''auth''::regnamespace AND p.pronargs = 0
                  AND p.proname IN (''uid'', ''jwt'', ''role'', ''email'')) IS NOT DISTINCT FROM %L',
      (SELECT string_agg(md5(p.prosrc), ',' ORDER BY p.proname)
         FROM pg_catalog.pg_proc p
        WHERE p.pronamespace = 'auth'::regnamespace AND p.pronargs = 0
          AND p.proname IN ('uid', 'jwt', 'role', 'email'))));
END
$do$;
REVOKE ALL ON FUNCTION realtime.supagate_auth_as_installed() FROM PUBLIC;

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
  policies oid[];
  expr text;
  parts text[];
  i integer;
  picked integer[];
  auth_as_installed boolean := realtime.supagate_auth_as_installed();
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
           FILTER (WHERE NOT p.polpermissive),
           array_agg(p.oid)
      INTO permissive, restrictive, policies
      FROM pg_policy p
     WHERE p.polrelid = entity AND p.polcmd IN ('r', '*')
       AND (0 = ANY (p.polroles)
            OR EXISTS (SELECT 1 FROM unnest(p.polroles) r WHERE pg_has_role(who, r, 'MEMBER')));
    CONTINUE WHEN permissive IS NULL;
    stmt := format('SELECT EXISTS (SELECT 1 FROM (VALUES (%s)) AS %I (%s) WHERE (%s)%s)',
                   vals, rel.relname, cols, permissive, coalesce(' AND ' || restrictive, ''));
    -- All of the role's identities in one statement, where the policies allow it: each call of
    -- auth.uid(), auth.jwt(), auth.role() or auth.email() (as installed) becomes that identity's
    -- claim, read from the row of identities the statement walks. Only where nothing else in
    -- the policies could read the session's claims: no current_setting or set_config, no
    -- function or operator of a user's (any could call auth.uid() inside), no other table
    -- under row level security and no view (their policies would read the session's claims).
    -- Otherwise, or when it fails, the statement per identity below decides, as before.
    expr := '(' || permissive || ')' || coalesce(' AND ' || restrictive, '');
    IF auth_as_installed
       AND expr !~* '(current_setting|set_config)'
       AND NOT EXISTS (
         SELECT 1 FROM pg_depend d
          WHERE d.classid = 'pg_policy'::regclass AND d.objid = ANY (policies)
            AND NOT CASE d.refclassid
              WHEN 'pg_proc'::regclass THEN EXISTS (
                SELECT 1 FROM pg_proc f
                 WHERE f.oid = d.refobjid AND f.pronamespace = 'auth'::regnamespace
                   AND f.proname IN ('uid', 'jwt', 'role', 'email') AND f.pronargs = 0)
              WHEN 'pg_class'::regclass THEN d.refobjid = entity OR EXISTS (
                SELECT 1 FROM pg_class c
                 WHERE c.oid = d.refobjid AND c.relkind IN ('r', 'p', 'm')
                   AND NOT c.relrowsecurity)
              WHEN 'pg_type'::regclass THEN true
              WHEN 'pg_collation'::regclass THEN true
              ELSE false
            END)
    THEN
      -- Outside string literals only (a quote in a literal is written twice: the parts
      -- alternate between outside and inside whatever the literals hold).
      parts := string_to_array(expr, '''');
      FOR i IN 1 .. cardinality(parts) BY 2 LOOP
        parts[i] := regexp_replace(parts[i], 'auth\.uid\(\)', '((supagate_identity.claims ->> ''sub''))::uuid', 'g');
        parts[i] := regexp_replace(parts[i], 'auth\.jwt\(\)', '(supagate_identity.claims)', 'g');
        parts[i] := regexp_replace(parts[i], 'auth\.role\(\)', '(supagate_identity.claims ->> ''role'')', 'g');
        parts[i] := regexp_replace(parts[i], 'auth\.email\(\)', '(supagate_identity.claims ->> ''email'')', 'g');
      END LOOP;
      expr := array_to_string(parts, '''');
      IF expr !~ 'auth\.' THEN
        BEGIN
          PERFORM set_config('role', who, true);
          EXECUTE format(
            'SELECT coalesce(array_agg(supagate_identity.n::integer ORDER BY supagate_identity.n), ''{}'')
               FROM (SELECT nullif(c, '''')::jsonb AS claims, n
                       FROM unnest($1::text[]) WITH ORDINALITY AS u(c, n)) AS supagate_identity
              WHERE EXISTS (SELECT 1 FROM (VALUES (%s)) AS %I (%s) WHERE %s)',
            vals, rel.relname, cols, expr)
            INTO picked USING grp.claims;
          PERFORM set_config('role', 'none', true);
          visible := visible || (SELECT coalesce(array_agg(grp.idx[p]), '{}') FROM unnest(picked) p);
          CONTINUE;
        EXCEPTION WHEN OTHERS THEN
          -- decided per identity below
        END;
      END IF;
    END IF;
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
GRANT EXECUTE ON FUNCTION realtime.supagate_auth_as_installed() TO anon, authenticated, service_role;
