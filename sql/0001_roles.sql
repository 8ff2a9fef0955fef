-- The roles a Supabase database has. The gateway logs in as `authenticator` (PostgREST's login
-- role) and switches per request to anon / authenticated / service_role, and to the auth and
-- storage admin roles for their bookkeeping. The other roles exist so that migrations and dumps
-- written for Supabase, which grant to them, run unchanged.
DO $$
DECLARE
  r record;
BEGIN
  FOR r IN SELECT * FROM (VALUES
    ('anon', 'NOLOGIN NOINHERIT'),
    ('authenticated', 'NOLOGIN NOINHERIT'),
    ('service_role', 'NOLOGIN NOINHERIT BYPASSRLS'),
    ('authenticator', 'LOGIN NOINHERIT'),
    ('supabase_admin', 'NOLOGIN'),
    ('supabase_auth_admin', 'NOLOGIN NOINHERIT'),
    ('supabase_storage_admin', 'NOLOGIN NOINHERIT BYPASSRLS'),
    ('supabase_realtime_admin', 'NOLOGIN NOINHERIT'),
    ('supabase_replication_admin', 'NOLOGIN'),
    ('supabase_read_only_user', 'NOLOGIN'),
    ('dashboard_user', 'NOLOGIN'),
    ('pgbouncer', 'NOLOGIN')
  ) AS roles(name, options) LOOP
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r.name) THEN
      EXECUTE format('CREATE ROLE %I %s', r.name, r.options);
    END IF;
  END LOOP;
END
$$;

GRANT anon, authenticated, service_role TO authenticator;
GRANT supabase_auth_admin, supabase_storage_admin TO authenticator;

-- Per-role settings as Supabase ships them. The gateway applies an impersonated role's settings
-- to each request's transaction, as PostgREST does; the login role's apply to its sessions.
ALTER ROLE anon SET statement_timeout = '3s';
ALTER ROLE authenticated SET statement_timeout = '8s';
ALTER ROLE authenticator SET statement_timeout = '8s';
ALTER ROLE authenticator SET lock_timeout = '8s';
ALTER ROLE supabase_auth_admin SET idle_in_transaction_session_timeout = '60s';

-- The API roles reach what the project creates in `public`; RLS decides which rows.
GRANT USAGE ON SCHEMA public TO anon, authenticated, service_role;
