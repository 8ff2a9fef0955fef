-- Extensions belong to supabase_admin, as in a Supabase database (where supautils creates them
-- as that role whoever asks): their functions get supabase_admin's default privileges, not those
-- of the role that runs the project's migrations, so an app's
-- `alter default privileges revoke execute on functions from public` leaves pgTAP, pgcrypto and
-- the rest callable by the API roles, and the app cannot strip what the platform needs.
--
-- Platform migrations run as supabase_admin from this one on (the runner makes it a superuser
-- first, where the server lets it). An extension someone else creates (a migration, a test
-- runner enabling pgTAP, psql) is made again by supabase_admin at the end of the command, with
-- the same schema and version; one that cannot be made again stays as it was, with a warning.

-- What supabase_admin creates in public reaches the API roles, as the image grants it.
DO $$
BEGIN
  IF pg_has_role('supabase_admin', 'USAGE') THEN
    ALTER DEFAULT PRIVILEGES FOR ROLE supabase_admin IN SCHEMA public
      GRANT ALL ON TABLES TO anon, authenticated, service_role;
    ALTER DEFAULT PRIVILEGES FOR ROLE supabase_admin IN SCHEMA public
      GRANT ALL ON SEQUENCES TO anon, authenticated, service_role;
    ALTER DEFAULT PRIVILEGES FOR ROLE supabase_admin IN SCHEMA public
      GRANT ALL ON FUNCTIONS TO anon, authenticated, service_role;
  END IF;
END
$$;

CREATE FUNCTION supagate.extension_owner() RETURNS event_trigger
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
DECLARE
  names text[];
  schemas text[];
  versions text[];
  i integer;
BEGIN
  -- The extensions this command created (those CASCADE installed included) that are not
  -- supabase_admin's yet, oldest first.
  WITH RECURSIVE made(oid) AS (
    SELECT c.objid FROM pg_event_trigger_ddl_commands() c
     WHERE c.classid = 'pg_extension'::regclass
    UNION
    SELECT d.refobjid FROM made
      JOIN pg_depend d ON d.classid = 'pg_extension'::regclass AND d.objid = made.oid
                      AND d.refclassid = 'pg_extension'::regclass
  )
  SELECT array_agg(x.extname::text ORDER BY x.oid), array_agg(n.nspname::text ORDER BY x.oid),
         array_agg(x.extversion ORDER BY x.oid)
    INTO names, schemas, versions
    FROM made
    JOIN pg_extension x ON x.oid = made.oid
    JOIN pg_namespace n ON n.oid = x.extnamespace
   WHERE x.extowner <> 'supabase_admin'::regrole
     AND x.xmin = pg_current_xact_id()::xid;
  IF names IS NULL THEN
    RETURN;
  END IF;
  BEGIN
    FOR i IN REVERSE array_length(names, 1) .. 1 LOOP
      EXECUTE format('DROP EXTENSION %I', names[i]);
    END LOOP;
    FOR i IN 1 .. array_length(names, 1) LOOP
      EXECUTE format('CREATE EXTENSION %I WITH SCHEMA %I VERSION %L',
                     names[i], schemas[i], versions[i]);
    END LOOP;
  EXCEPTION WHEN OTHERS THEN
    RAISE WARNING 'extension % stays owned by %: %',
      array_to_string(names, ', '), session_user, SQLERRM;
  END;
END
$$;
REVOKE ALL ON FUNCTION supagate.extension_owner() FROM PUBLIC;

DO $$
BEGIN
  IF (SELECT rolsuper FROM pg_roles WHERE rolname = current_user)
     AND (SELECT rolsuper FROM pg_roles WHERE rolname = 'supabase_admin') THEN
    ALTER FUNCTION supagate.extension_owner() OWNER TO supabase_admin;
    CREATE EVENT TRIGGER supagate_extension_owner ON ddl_command_end
      WHEN TAG IN ('CREATE EXTENSION') EXECUTE FUNCTION supagate.extension_owner();
    ALTER EVENT TRIGGER supagate_extension_owner OWNER TO supabase_admin;
  END IF;
END
$$;
