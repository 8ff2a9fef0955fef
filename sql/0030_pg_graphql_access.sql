-- pg_graphql's entry point as a Supabase database has it. The image makes
-- `graphql_public.graphql(...)` (what `/graphql/v1` calls through PostgREST) from an event
-- trigger when the extension is created, a member of the extension so that dropping it takes
-- the function along, and grants the API roles the `graphql` schema and `graphql.resolve`. The
-- wrapper keeps its caller's search_path: pg_graphql reflects the schemas on it (PostgREST's:
-- the request's schema and `[api] extra_search_path`). When the extension is dropped another
-- event trigger puts back a stand-in that answers "pg_graphql extension is not enabled.". A new
-- database does not have the extension (as images since April 2026): `create extension
-- pg_graphql` in a migration turns it on.

CREATE FUNCTION extensions.grant_pg_graphql_access() RETURNS event_trigger
  LANGUAGE plpgsql SET search_path = '' AS $fn$
BEGIN
  IF NOT EXISTS (
    SELECT 1 FROM pg_catalog.pg_event_trigger_ddl_commands() ev
      JOIN pg_catalog.pg_extension e ON ev.objid = e.oid
     WHERE e.extname = 'pg_graphql'
  ) THEN
    RETURN;
  END IF;
  DROP FUNCTION IF EXISTS graphql_public.graphql;
  CREATE FUNCTION graphql_public.graphql(
    "operationName" text DEFAULT NULL,
    query text DEFAULT NULL,
    variables jsonb DEFAULT NULL,
    extensions jsonb DEFAULT NULL
  ) RETURNS jsonb
    LANGUAGE sql AS $body$
    SELECT graphql.resolve(
      query := query,
      variables := coalesce(variables, '{}'),
      "operationName" := "operationName",
      extensions := extensions
    );
  $body$;
  ALTER EXTENSION pg_graphql ADD FUNCTION graphql_public.graphql(text, text, jsonb, jsonb);
  GRANT USAGE ON SCHEMA graphql TO postgres, anon, authenticated, service_role;
  GRANT EXECUTE ON FUNCTION graphql.resolve TO postgres, anon, authenticated, service_role;
  GRANT USAGE ON SCHEMA graphql TO postgres WITH GRANT OPTION;
  GRANT USAGE ON SCHEMA graphql_public TO postgres WITH GRANT OPTION;
END
$fn$;
COMMENT ON FUNCTION extensions.grant_pg_graphql_access() IS 'Grants access to pg_graphql';

CREATE FUNCTION extensions.set_graphql_placeholder() RETURNS event_trigger
  LANGUAGE plpgsql SET search_path = '' AS $fn$
BEGIN
  IF EXISTS (
    SELECT 1 FROM pg_catalog.pg_event_trigger_dropped_objects() ev
     WHERE ev.schema_name = 'graphql_public'
  ) THEN
    CREATE OR REPLACE FUNCTION graphql_public.graphql(
      "operationName" text DEFAULT NULL,
      query text DEFAULT NULL,
      variables jsonb DEFAULT NULL,
      extensions jsonb DEFAULT NULL
    ) RETURNS jsonb
      LANGUAGE sql AS $body$
      SELECT pg_catalog.jsonb_build_object('errors', pg_catalog.jsonb_build_array(
        pg_catalog.jsonb_build_object('message', 'pg_graphql extension is not enabled.')));
    $body$;
  END IF;
END
$fn$;
COMMENT ON FUNCTION extensions.set_graphql_placeholder() IS
  'Reintroduces placeholder function for graphql_public.graphql';

REVOKE ALL ON FUNCTION extensions.grant_pg_graphql_access() FROM PUBLIC;
REVOKE ALL ON FUNCTION extensions.set_graphql_placeholder() FROM PUBLIC;

-- Event triggers need a superuser (as for supagate_extension_owner in 0012).
DO $$
BEGIN
  IF (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
    CREATE EVENT TRIGGER issue_pg_graphql_access ON ddl_command_end
      WHEN TAG IN ('CREATE EXTENSION') EXECUTE FUNCTION extensions.grant_pg_graphql_access();
    CREATE EVENT TRIGGER issue_graphql_placeholder ON sql_drop
      WHEN TAG IN ('DROP EXTENSION') EXECUTE FUNCTION extensions.set_graphql_placeholder();
    IF (SELECT rolsuper FROM pg_roles WHERE rolname = 'supabase_admin') THEN
      ALTER FUNCTION extensions.grant_pg_graphql_access() OWNER TO supabase_admin;
      ALTER FUNCTION extensions.set_graphql_placeholder() OWNER TO supabase_admin;
      ALTER EVENT TRIGGER issue_pg_graphql_access OWNER TO supabase_admin;
      ALTER EVENT TRIGGER issue_graphql_placeholder OWNER TO supabase_admin;
    END IF;
  END IF;
END
$$;
