-- supagate's pg_jsonschema 0.3.3: the functions of supabase/pg_jsonschema, in the schema the
-- extension is created in, each immutable, strict and parallel safe (pg_jsonschema.so, built from
-- extensions/pgrx/pg_jsonschema).
\echo Use "CREATE EXTENSION pg_jsonschema" to load this file. \quit

CREATE FUNCTION json_matches_schema("schema" json, "instance" json) RETURNS bool
  IMMUTABLE STRICT PARALLEL SAFE
  LANGUAGE c AS 'MODULE_PATHNAME', 'json_matches_schema_wrapper';

CREATE FUNCTION jsonb_matches_schema("schema" json, "instance" jsonb) RETURNS bool
  IMMUTABLE STRICT PARALLEL SAFE
  LANGUAGE c AS 'MODULE_PATHNAME', 'jsonb_matches_schema_wrapper';

CREATE FUNCTION jsonschema_is_valid("schema" json) RETURNS bool
  IMMUTABLE STRICT PARALLEL SAFE
  LANGUAGE c AS 'MODULE_PATHNAME', 'jsonschema_is_valid_wrapper';

CREATE FUNCTION jsonschema_validation_errors("schema" json, "instance" json) RETURNS text[]
  IMMUTABLE STRICT PARALLEL SAFE
  LANGUAGE c AS 'MODULE_PATHNAME', 'jsonschema_validation_errors_wrapper';
