-- What a Supabase database has enabled from the start: pg_net (in the extensions schema) with
-- the API roles allowed to make requests, database webhooks (the supabase_functions schema:
-- supabase_functions.hooks and the supabase_functions.http_request() trigger function Studio
-- creates webhooks with), and Supabase Vault with its secrets readable by postgres only.
-- supagate brings pg_net and supabase_vault into the clusters it runs; on another server they
-- are enabled if that server has them, and skipped (with a notice) if not.

DO $$
BEGIN
  -- Supabase's grants name postgres; a server reached as another owner gets the role too.
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'postgres') THEN
    CREATE ROLE postgres NOLOGIN;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'supabase_functions_admin') THEN
    CREATE ROLE supabase_functions_admin NOINHERIT CREATEROLE LOGIN NOREPLICATION;
  END IF;
END
$$;

-- The grants Supabase gives pg_net's functions, again whenever the extension is made.
CREATE FUNCTION extensions.grant_pg_net_access() RETURNS event_trigger
  LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (
    SELECT 1 FROM pg_event_trigger_ddl_commands() AS ev
    JOIN pg_extension AS ext ON ev.objid = ext.oid
    WHERE ext.extname = 'pg_net'
  ) THEN
    GRANT USAGE ON SCHEMA net TO supabase_functions_admin, postgres, anon, authenticated, service_role;
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
END
$$;
COMMENT ON FUNCTION extensions.grant_pg_net_access IS 'Grants access to pg_net';
DO $$
BEGIN
  IF (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
    CREATE EVENT TRIGGER issue_pg_net_access ON ddl_command_end WHEN TAG IN ('CREATE EXTENSION')
      EXECUTE FUNCTION extensions.grant_pg_net_access();
  END IF;
END
$$;

DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'pg_net') THEN
    CREATE EXTENSION IF NOT EXISTS pg_net WITH SCHEMA extensions;
    IF NOT EXISTS (SELECT 1 FROM pg_event_trigger WHERE evtname = 'issue_pg_net_access') THEN
      GRANT USAGE ON SCHEMA net TO supabase_functions_admin, postgres, anon, authenticated, service_role;
    END IF;
  ELSE
    RAISE NOTICE 'pg_net is not available on this server: database webhooks will not send requests';
  END IF;
END
$$;

-- Database webhooks, as the Supabase image creates them.
CREATE SCHEMA IF NOT EXISTS supabase_functions AUTHORIZATION supabase_admin;
GRANT USAGE ON SCHEMA supabase_functions TO postgres, anon, authenticated, service_role;
ALTER DEFAULT PRIVILEGES IN SCHEMA supabase_functions GRANT ALL ON TABLES TO postgres, anon, authenticated, service_role;
ALTER DEFAULT PRIVILEGES IN SCHEMA supabase_functions GRANT ALL ON FUNCTIONS TO postgres, anon, authenticated, service_role;
ALTER DEFAULT PRIVILEGES IN SCHEMA supabase_functions GRANT ALL ON SEQUENCES TO postgres, anon, authenticated, service_role;

CREATE TABLE supabase_functions.migrations (
  version text PRIMARY KEY,
  inserted_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO supabase_functions.migrations (version) VALUES ('initial'), ('20210809183423_update_grants');

CREATE TABLE supabase_functions.hooks (
  id bigserial PRIMARY KEY,
  hook_table_id integer NOT NULL,
  hook_name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  request_id bigint
);
CREATE INDEX supabase_functions_hooks_request_id_idx ON supabase_functions.hooks USING btree (request_id);
CREATE INDEX supabase_functions_hooks_h_table_id_h_name_idx ON supabase_functions.hooks USING btree (hook_table_id, hook_name);
COMMENT ON TABLE supabase_functions.hooks IS 'Supabase Functions Hooks: Audit trail for triggered hooks.';

-- The webhook trigger: arguments url, method (GET or POST), headers, params (JSON text, or
-- 'null') and timeout in milliseconds. A POST carries the change: the new and old record, the
-- operation, the table and its schema.
CREATE FUNCTION supabase_functions.http_request() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = supabase_functions AS $$
DECLARE
  request_id bigint;
  payload jsonb;
  url text := TG_ARGV[0]::text;
  method text := TG_ARGV[1]::text;
  headers jsonb DEFAULT '{}'::jsonb;
  params jsonb DEFAULT '{}'::jsonb;
  timeout_ms integer DEFAULT 1000;
BEGIN
  IF url IS NULL OR url = 'null' THEN
    RAISE EXCEPTION 'url argument is missing';
  END IF;
  IF method IS NULL OR method = 'null' THEN
    RAISE EXCEPTION 'method argument is missing';
  END IF;
  headers := CASE WHEN TG_ARGV[2] IS NULL OR TG_ARGV[2] = 'null'
                  THEN '{"Content-Type": "application/json"}'::jsonb ELSE TG_ARGV[2]::jsonb END;
  params := CASE WHEN TG_ARGV[3] IS NULL OR TG_ARGV[3] = 'null'
                 THEN '{}'::jsonb ELSE TG_ARGV[3]::jsonb END;
  timeout_ms := CASE WHEN TG_ARGV[4] IS NULL OR TG_ARGV[4] = 'null'
                     THEN 1000 ELSE TG_ARGV[4]::integer END;
  CASE
    WHEN method = 'GET' THEN
      SELECT http_get INTO request_id FROM net.http_get(url, params, headers, timeout_ms);
    WHEN method = 'POST' THEN
      payload := jsonb_build_object(
        'old_record', OLD,
        'record', NEW,
        'type', TG_OP,
        'table', TG_TABLE_NAME,
        'schema', TG_TABLE_SCHEMA
      );
      SELECT http_post INTO request_id FROM net.http_post(url, payload, params, headers, timeout_ms);
    ELSE
      RAISE EXCEPTION 'method argument % is invalid', method;
  END CASE;
  INSERT INTO supabase_functions.hooks (hook_table_id, hook_name, request_id)
  VALUES (TG_RELID, TG_NAME, request_id);
  RETURN NEW;
END
$$;

GRANT ALL PRIVILEGES ON SCHEMA supabase_functions TO supabase_functions_admin;
GRANT ALL PRIVILEGES ON ALL TABLES IN SCHEMA supabase_functions TO supabase_functions_admin;
GRANT ALL PRIVILEGES ON ALL SEQUENCES IN SCHEMA supabase_functions TO supabase_functions_admin;
ALTER ROLE supabase_functions_admin SET search_path = "supabase_functions";
ALTER TABLE supabase_functions.migrations OWNER TO supabase_functions_admin;
ALTER TABLE supabase_functions.hooks OWNER TO supabase_functions_admin;
ALTER FUNCTION supabase_functions.http_request() OWNER TO supabase_functions_admin;
GRANT supabase_functions_admin TO postgres;
REVOKE ALL ON FUNCTION supabase_functions.http_request() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION supabase_functions.http_request() TO postgres, anon, authenticated, service_role;

-- Supabase Vault.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'supabase_vault') THEN
    CREATE EXTENSION IF NOT EXISTS supabase_vault;
    GRANT USAGE ON SCHEMA vault TO postgres WITH GRANT OPTION;
    GRANT SELECT, DELETE ON vault.secrets, vault.decrypted_secrets TO postgres WITH GRANT OPTION;
    GRANT EXECUTE ON FUNCTION vault.create_secret, vault.update_secret, vault._crypto_aead_det_decrypt
      TO postgres WITH GRANT OPTION;
  ELSE
    RAISE NOTICE 'supabase_vault is not available on this server';
  END IF;
END
$$;
