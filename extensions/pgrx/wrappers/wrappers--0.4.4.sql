-- supagate's wrappers 0.4.4 (extensions/pgrx/wrappers): the SQL surface of supabase/wrappers
-- 0.4.4, its statistics table and, for each wrapper it builds, the handler, validator and meta
-- functions under upstream's names. Queries on the wrappers' foreign tables are refused with a
-- clear error (see src/lib.rs).

\echo Use "CREATE EXTENSION wrappers" to load this file. \quit

CREATE TABLE wrappers_fdw_stats (
  fdw_name          text NOT NULL PRIMARY KEY,
  create_times      bigint NULL,
  rows_in           bigint NULL,
  rows_out          bigint NULL,
  bytes_in          bigint NULL,
  bytes_out         bigint NULL,
  metadata          jsonb NULL,
  created_at        timestamptz NOT NULL DEFAULT timezone('utc'::text, now()),
  updated_at        timestamptz NOT NULL DEFAULT timezone('utc'::text, now())
);

COMMENT ON TABLE wrappers_fdw_stats IS 'Wrappers Foreign Data Wrapper statistics';
COMMENT ON COLUMN wrappers_fdw_stats.create_times IS 'Total number of times the FDW instacne has been created';
COMMENT ON COLUMN wrappers_fdw_stats.rows_in IS 'Total rows input from origin';
COMMENT ON COLUMN wrappers_fdw_stats.rows_out IS 'Total rows output to Postgres';
COMMENT ON COLUMN wrappers_fdw_stats.bytes_in IS 'Total bytes input from origin';
COMMENT ON COLUMN wrappers_fdw_stats.bytes_out IS 'Total bytes output to Postgres';
COMMENT ON COLUMN wrappers_fdw_stats.metadata IS 'Metadata specific for the FDW';

CREATE FUNCTION airtable_fdw_handler() RETURNS fdw_handler
STRICT LANGUAGE c AS 'MODULE_PATHNAME', 'airtable_fdw_handler_wrapper';

CREATE FUNCTION airtable_fdw_validator(options text[], catalog oid) RETURNS void
LANGUAGE c AS 'MODULE_PATHNAME', 'airtable_fdw_validator_wrapper';

CREATE FUNCTION airtable_fdw_meta() RETURNS TABLE (name text, version text, author text, website text)
STRICT LANGUAGE c AS 'MODULE_PATHNAME', 'airtable_fdw_meta_wrapper';

CREATE FUNCTION auth0_fdw_handler() RETURNS fdw_handler
STRICT LANGUAGE c AS 'MODULE_PATHNAME', 'auth0_fdw_handler_wrapper';

CREATE FUNCTION auth0_fdw_validator(options text[], catalog oid) RETURNS void
LANGUAGE c AS 'MODULE_PATHNAME', 'auth0_fdw_validator_wrapper';

CREATE FUNCTION auth0_fdw_meta() RETURNS TABLE (name text, version text, author text, website text)
STRICT LANGUAGE c AS 'MODULE_PATHNAME', 'auth0_fdw_meta_wrapper';

CREATE FUNCTION big_query_fdw_handler() RETURNS fdw_handler
STRICT LANGUAGE c AS 'MODULE_PATHNAME', 'big_query_fdw_handler_wrapper';

CREATE FUNCTION big_query_fdw_validator(options text[], catalog oid) RETURNS void
LANGUAGE c AS 'MODULE_PATHNAME', 'big_query_fdw_validator_wrapper';

CREATE FUNCTION big_query_fdw_meta() RETURNS TABLE (name text, version text, author text, website text)
STRICT LANGUAGE c AS 'MODULE_PATHNAME', 'big_query_fdw_meta_wrapper';

CREATE FUNCTION click_house_fdw_handler() RETURNS fdw_handler
STRICT LANGUAGE c AS 'MODULE_PATHNAME', 'click_house_fdw_handler_wrapper';

CREATE FUNCTION click_house_fdw_validator(options text[], catalog oid) RETURNS void
LANGUAGE c AS 'MODULE_PATHNAME', 'click_house_fdw_validator_wrapper';

CREATE FUNCTION click_house_fdw_meta() RETURNS TABLE (name text, version text, author text, website text)
STRICT LANGUAGE c AS 'MODULE_PATHNAME', 'click_house_fdw_meta_wrapper';

CREATE FUNCTION cognito_fdw_handler() RETURNS fdw_handler
STRICT LANGUAGE c AS 'MODULE_PATHNAME', 'cognito_fdw_handler_wrapper';

CREATE FUNCTION cognito_fdw_validator(options text[], catalog oid) RETURNS void
LANGUAGE c AS 'MODULE_PATHNAME', 'cognito_fdw_validator_wrapper';

CREATE FUNCTION cognito_fdw_meta() RETURNS TABLE (name text, version text, author text, website text)
STRICT LANGUAGE c AS 'MODULE_PATHNAME', 'cognito_fdw_meta_wrapper';

CREATE FUNCTION firebase_fdw_handler() RETURNS fdw_handler
STRICT LANGUAGE c AS 'MODULE_PATHNAME', 'firebase_fdw_handler_wrapper';

CREATE FUNCTION firebase_fdw_validator(options text[], catalog oid) RETURNS void
LANGUAGE c AS 'MODULE_PATHNAME', 'firebase_fdw_validator_wrapper';

CREATE FUNCTION firebase_fdw_meta() RETURNS TABLE (name text, version text, author text, website text)
STRICT LANGUAGE c AS 'MODULE_PATHNAME', 'firebase_fdw_meta_wrapper';

CREATE FUNCTION logflare_fdw_handler() RETURNS fdw_handler
STRICT LANGUAGE c AS 'MODULE_PATHNAME', 'logflare_fdw_handler_wrapper';

CREATE FUNCTION logflare_fdw_validator(options text[], catalog oid) RETURNS void
LANGUAGE c AS 'MODULE_PATHNAME', 'logflare_fdw_validator_wrapper';

CREATE FUNCTION logflare_fdw_meta() RETURNS TABLE (name text, version text, author text, website text)
STRICT LANGUAGE c AS 'MODULE_PATHNAME', 'logflare_fdw_meta_wrapper';

CREATE FUNCTION mssql_fdw_handler() RETURNS fdw_handler
STRICT LANGUAGE c AS 'MODULE_PATHNAME', 'mssql_fdw_handler_wrapper';

CREATE FUNCTION mssql_fdw_validator(options text[], catalog oid) RETURNS void
LANGUAGE c AS 'MODULE_PATHNAME', 'mssql_fdw_validator_wrapper';

CREATE FUNCTION mssql_fdw_meta() RETURNS TABLE (name text, version text, author text, website text)
STRICT LANGUAGE c AS 'MODULE_PATHNAME', 'mssql_fdw_meta_wrapper';

CREATE FUNCTION redis_fdw_handler() RETURNS fdw_handler
STRICT LANGUAGE c AS 'MODULE_PATHNAME', 'redis_fdw_handler_wrapper';

CREATE FUNCTION redis_fdw_validator(options text[], catalog oid) RETURNS void
LANGUAGE c AS 'MODULE_PATHNAME', 'redis_fdw_validator_wrapper';

CREATE FUNCTION redis_fdw_meta() RETURNS TABLE (name text, version text, author text, website text)
STRICT LANGUAGE c AS 'MODULE_PATHNAME', 'redis_fdw_meta_wrapper';

CREATE FUNCTION s3_fdw_handler() RETURNS fdw_handler
STRICT LANGUAGE c AS 'MODULE_PATHNAME', 's3_fdw_handler_wrapper';

CREATE FUNCTION s3_fdw_validator(options text[], catalog oid) RETURNS void
LANGUAGE c AS 'MODULE_PATHNAME', 's3_fdw_validator_wrapper';

CREATE FUNCTION s3_fdw_meta() RETURNS TABLE (name text, version text, author text, website text)
STRICT LANGUAGE c AS 'MODULE_PATHNAME', 's3_fdw_meta_wrapper';

CREATE FUNCTION stripe_fdw_handler() RETURNS fdw_handler
STRICT LANGUAGE c AS 'MODULE_PATHNAME', 'stripe_fdw_handler_wrapper';

CREATE FUNCTION stripe_fdw_validator(options text[], catalog oid) RETURNS void
LANGUAGE c AS 'MODULE_PATHNAME', 'stripe_fdw_validator_wrapper';

CREATE FUNCTION stripe_fdw_meta() RETURNS TABLE (name text, version text, author text, website text)
STRICT LANGUAGE c AS 'MODULE_PATHNAME', 'stripe_fdw_meta_wrapper';

CREATE FUNCTION wasm_fdw_handler() RETURNS fdw_handler
STRICT LANGUAGE c AS 'MODULE_PATHNAME', 'wasm_fdw_handler_wrapper';

CREATE FUNCTION wasm_fdw_validator(options text[], catalog oid) RETURNS void
LANGUAGE c AS 'MODULE_PATHNAME', 'wasm_fdw_validator_wrapper';

CREATE FUNCTION wasm_fdw_meta() RETURNS TABLE (name text, version text, author text, website text)
STRICT LANGUAGE c AS 'MODULE_PATHNAME', 'wasm_fdw_meta_wrapper';
