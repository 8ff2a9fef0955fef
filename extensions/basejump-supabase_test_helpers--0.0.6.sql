-- Helpers for pgTAP tests of a Supabase project, under the names basejump's
-- supabase_test_helpers gives them, so tests written for it run unchanged (and offline):
--   create extension "basejump-supabase_test_helpers";
\echo Use CREATE EXTENSION to load this file. \quit
CREATE SCHEMA IF NOT EXISTS tests;
GRANT USAGE ON SCHEMA tests TO anon, authenticated, service_role;

-- A user in auth.users (with an email identity), known to the other helpers by `identifier`.
CREATE FUNCTION tests.create_supabase_user(
  identifier text, email text DEFAULT NULL, phone text DEFAULT NULL, metadata jsonb DEFAULT NULL
) RETURNS uuid LANGUAGE plpgsql SECURITY DEFINER SET search_path = auth, pg_temp AS $$
DECLARE
  uid uuid := gen_random_uuid();
  address text := coalesce(email, concat(identifier, '@test.com'));
BEGIN
  INSERT INTO auth.users (id, instance_id, aud, role, email, phone, email_confirmed_at,
                          raw_app_meta_data, raw_user_meta_data, created_at, updated_at)
  VALUES (uid, '00000000-0000-0000-0000-000000000000', 'authenticated', 'authenticated',
          address, phone, now(),
          '{"provider": "email", "providers": ["email"]}',
          jsonb_build_object('test_identifier', identifier) || coalesce(metadata, '{}'::jsonb),
          now(), now());
  INSERT INTO auth.identities (id, provider_id, user_id, identity_data, provider,
                               last_sign_in_at, created_at, updated_at)
  VALUES (gen_random_uuid(), uid::text, uid,
          jsonb_build_object('sub', uid::text, 'email', address, 'email_verified', true),
          'email', now(), now(), now());
  RETURN uid;
END $$;

CREATE FUNCTION tests.get_supabase_user(identifier text) RETURNS json
LANGUAGE plpgsql SECURITY DEFINER SET search_path = auth, pg_temp AS $$
DECLARE
  found json;
BEGIN
  SELECT json_build_object('id', u.id, 'email', u.email, 'phone', u.phone,
                           'raw_user_meta_data', u.raw_user_meta_data,
                           'raw_app_meta_data', u.raw_app_meta_data)
    INTO found
    FROM auth.users u
   WHERE u.raw_user_meta_data ->> 'test_identifier' = identifier
   LIMIT 1;
  IF found IS NULL THEN
    RAISE EXCEPTION 'User with identifier % not found', identifier;
  END IF;
  RETURN found;
END $$;

CREATE FUNCTION tests.get_supabase_uid(identifier text) RETURNS uuid
LANGUAGE sql SECURITY DEFINER SET search_path = auth, pg_temp AS $$
  SELECT (tests.get_supabase_user(identifier) ->> 'id')::uuid
$$;

-- The rest of the transaction runs as that user signed in: role `authenticated` and the claims
-- auth.uid(), auth.jwt() and RLS policies read.
-- The role and claims the rest of the transaction runs with, as the API sets them.
CREATE FUNCTION tests._run_as(role text, claims jsonb) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM set_config('role', role, true);
  PERFORM set_config('request.jwt.claims', claims::text, true);
  PERFORM set_config('request.jwt.claim.sub', coalesce(claims ->> 'sub', ''), true);
  PERFORM set_config('request.jwt.claim.role', role, true);
END $$;

-- The rest of the transaction runs as that user signed in: role `authenticated` and the claims
-- auth.uid(), auth.jwt() and RLS policies read.
CREATE FUNCTION tests.authenticate_as(identifier text) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  u json := tests.get_supabase_user(identifier);
BEGIN
  PERFORM tests._run_as('authenticated', jsonb_build_object(
    'sub', u ->> 'id', 'role', 'authenticated', 'aud', 'authenticated',
    'email', u ->> 'email', 'phone', u ->> 'phone',
    'user_metadata', u -> 'raw_user_meta_data', 'app_metadata', u -> 'raw_app_meta_data',
    'aal', 'aal1', 'is_anonymous', false));
END $$;

CREATE FUNCTION tests.authenticate_as_service_role() RETURNS void
LANGUAGE sql AS $$ SELECT tests._run_as('service_role', '{"role": "service_role"}') $$;

-- Back to an anonymous visitor.
CREATE FUNCTION tests.clear_authentication() RETURNS void
LANGUAGE sql AS $$ SELECT tests._run_as('anon', '{"role": "anon"}') $$;

-- Stops the clock for the rest of the transaction: an unqualified now() (in the test, and in
-- functions that do not set their own search_path) returns `frozen_time`. The override lives in
-- schema test_overrides, put first in the search_path; unfreeze_time() takes it away.
CREATE SCHEMA IF NOT EXISTS test_overrides;
GRANT USAGE ON SCHEMA test_overrides TO anon, authenticated, service_role;

-- SECURITY DEFINER: a test usually freezes time while signed in as a user, who may not create
-- functions; the search_path it sets stays for the transaction.
CREATE FUNCTION tests.freeze_time(frozen_time timestamptz) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER AS $$
BEGIN
  IF current_setting('tests.search_path_before_freeze', true) IS NULL
     OR current_setting('tests.search_path_before_freeze', true) = '' THEN
    PERFORM set_config('tests.search_path_before_freeze', current_setting('search_path'), true);
  END IF;
  EXECUTE format(
    'CREATE OR REPLACE FUNCTION test_overrides.now() RETURNS timestamptz LANGUAGE sql STABLE AS %L',
    format('SELECT %L::timestamptz', frozen_time));
  GRANT EXECUTE ON FUNCTION test_overrides.now() TO anon, authenticated, service_role;
  PERFORM set_config('search_path',
    'test_overrides, pg_catalog, ' || current_setting('tests.search_path_before_freeze'), true);
END $$;

CREATE FUNCTION tests.unfreeze_time() RETURNS void
LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
  before text := current_setting('tests.search_path_before_freeze', true);
BEGIN
  IF before IS NOT NULL AND before <> '' THEN
    PERFORM set_config('search_path', before, true);
    PERFORM set_config('tests.search_path_before_freeze', '', true);
  END IF;
END $$;

-- pgTAP assertions that RLS is on for every table of a schema, or for one table.
CREATE FUNCTION tests.rls_enabled(testing_schema text) RETURNS text
LANGUAGE sql AS $$
  SELECT ok(
    NOT EXISTS (SELECT 1 FROM pg_tables
                 WHERE schemaname = testing_schema AND NOT rowsecurity),
    format('All tables in the %s schema should have row level security enabled', testing_schema))
$$;

CREATE FUNCTION tests.rls_enabled(testing_schema text, testing_table text) RETURNS text
LANGUAGE sql AS $$
  SELECT ok(
    coalesce((SELECT rowsecurity FROM pg_tables
               WHERE schemaname = testing_schema AND tablename = testing_table), false),
    format('Table %s.%s should have row level security enabled', testing_schema, testing_table))
$$;

GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA tests TO anon, authenticated, service_role;
