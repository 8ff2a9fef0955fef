-- The `graphql` schema a Supabase database has although pg_graphql is off. The image creates
-- pg_graphql while it is built (its event trigger grants the API roles the schema) and, since
-- April 2026 (supabase/postgres's 20260421000000_pg_graphql-off-by-default), drops it as its last
-- step: DROP EXTENSION leaves the schema CREATE EXTENSION made from the control file, with its
-- grants. So a project's `CREATE EXTENSION IF NOT EXISTS "pg_graphql" WITH SCHEMA "graphql"`
-- (what every `supabase db pull` dump of a project made before then says) finds the schema there;
-- without it the statement fails (an explicit schema must exist).
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = 'graphql') THEN
    CREATE SCHEMA graphql;
    IF (SELECT rolsuper FROM pg_roles WHERE rolname = 'supabase_admin') THEN
      ALTER SCHEMA graphql OWNER TO supabase_admin;
    END IF;
  END IF;
END
$$;
GRANT USAGE ON SCHEMA graphql TO postgres, anon, authenticated, service_role;
GRANT USAGE ON SCHEMA graphql TO postgres WITH GRANT OPTION;
