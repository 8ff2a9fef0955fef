-- pg_net's privileges exactly as the Supabase Postgres image leaves them for pg_net 0.12 and
-- later (supagate brings 0.19.5). The image's event trigger extensions.grant_pg_net_access()
-- grants USAGE on the net schema to supabase_functions_admin, postgres, anon, authenticated and
-- service_role, and makes http_get/http_post SECURITY DEFINER, executable by those roles only,
-- only for the versions before 0.12 ('0.2' … '0.11.0'): from 0.12 on, pg_net's own script makes
-- its functions SECURITY INVOKER, executable by PUBLIC, and grants ALL on its tables and
-- sequences to PUBLIC (so `anon` may read net._http_response on Supabase too). 0013 applied
-- the old versions' settings to every version; this puts the image's current ones in place.
-- What stops a visitor from turning pg_net against this machine is not a grant (there is none
-- on the image to copy) but where the requests may go: see workers/src/net/reach.rs.

CREATE OR REPLACE FUNCTION extensions.grant_pg_net_access() RETURNS event_trigger
  LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (
    SELECT 1 FROM pg_event_trigger_ddl_commands() AS ev
    JOIN pg_extension AS ext ON ev.objid = ext.oid
    WHERE ext.extname = 'pg_net'
  ) THEN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'supabase_functions_admin') THEN
      CREATE USER supabase_functions_admin NOINHERIT CREATEROLE LOGIN NOREPLICATION;
    END IF;
    GRANT USAGE ON SCHEMA net TO supabase_functions_admin, postgres, anon, authenticated, service_role;
    IF EXISTS (
      SELECT FROM pg_extension WHERE extname = 'pg_net'
        AND extversion IN ('0.2', '0.6', '0.7', '0.7.1', '0.8', '0.10.0', '0.11.0')
    ) THEN
      ALTER FUNCTION net.http_get(url text, params jsonb, headers jsonb, timeout_milliseconds integer) SECURITY DEFINER;
      ALTER FUNCTION net.http_post(url text, body jsonb, params jsonb, headers jsonb, timeout_milliseconds integer) SECURITY DEFINER;
      ALTER FUNCTION net.http_get(url text, params jsonb, headers jsonb, timeout_milliseconds integer) SET search_path = net;
      ALTER FUNCTION net.http_post(url text, body jsonb, params jsonb, headers jsonb, timeout_milliseconds integer) SET search_path = net;
      REVOKE ALL ON FUNCTION net.http_get(url text, params jsonb, headers jsonb, timeout_milliseconds integer) FROM PUBLIC;
      REVOKE ALL ON FUNCTION net.http_post(url text, body jsonb, params jsonb, headers jsonb, timeout_milliseconds integer) FROM PUBLIC;
      GRANT EXECUTE ON FUNCTION net.http_get(url text, params jsonb, headers jsonb, timeout_milliseconds integer)
        TO supabase_functions_admin, postgres, anon, authenticated, service_role;
      GRANT EXECUTE ON FUNCTION net.http_post(url text, body jsonb, params jsonb, headers jsonb, timeout_milliseconds integer)
        TO supabase_functions_admin, postgres, anon, authenticated, service_role;
    END IF;
  END IF;
END
$$;

-- The database's pg_net back to its own script's settings, where 0013 changed them.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_net' AND extversion NOT IN
      ('0.2', '0.6', '0.7', '0.7.1', '0.8', '0.10.0', '0.11.0'))
     AND to_regprocedure('net.http_get(text, jsonb, jsonb, integer)') IS NOT NULL THEN
    ALTER FUNCTION net.http_get(url text, params jsonb, headers jsonb, timeout_milliseconds integer) SECURITY INVOKER;
    ALTER FUNCTION net.http_post(url text, body jsonb, params jsonb, headers jsonb, timeout_milliseconds integer) SECURITY INVOKER;
    ALTER FUNCTION net.http_get(url text, params jsonb, headers jsonb, timeout_milliseconds integer) RESET search_path;
    ALTER FUNCTION net.http_post(url text, body jsonb, params jsonb, headers jsonb, timeout_milliseconds integer) RESET search_path;
    GRANT EXECUTE ON FUNCTION net.http_get(url text, params jsonb, headers jsonb, timeout_milliseconds integer) TO PUBLIC;
    GRANT EXECUTE ON FUNCTION net.http_post(url text, body jsonb, params jsonb, headers jsonb, timeout_milliseconds integer) TO PUBLIC;
  END IF;
END
$$;
