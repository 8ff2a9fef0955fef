-- Supabase's PostgreSQL 15 image creates pgsodium in every new database (its migration
-- 20221207154255_create_pgsodium_and_vault, with the grants pgsodium's install script here
-- makes too), so a project whose `supabase db pull` dump says
-- `CREATE EXTENSION IF NOT EXISTS "pgsodium" WITH SCHEMA "pgsodium"` finds it there (without
-- it the statement fails: an explicit schema must exist). As there, where pgsodium is available
-- (supagate's Rust extension, in a binary built with it) and the server is older than 17 (the
-- PostgreSQL 17 images have no pgsodium).
DO $$
BEGIN
  IF current_setting('server_version_num')::int < 170000
     AND EXISTS (SELECT 1 FROM pg_catalog.pg_available_extensions WHERE name = 'pgsodium') THEN
    CREATE EXTENSION IF NOT EXISTS pgsodium;
  END IF;
END
$$;
