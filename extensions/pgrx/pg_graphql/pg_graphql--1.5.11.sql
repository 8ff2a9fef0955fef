-- supagate's pg_graphql 1.5.11: the objects of supabase/pg_graphql in the `graphql` schema (the
-- control file's), the resolver in pg_graphql.so (built from extensions/pgrx/pg_graphql).
-- Privileges are the extension's own: nothing granted here. A Supabase database grants the API
-- roles the schema and `graphql.resolve` from an event trigger when the extension is created
-- (supagate's sql/ platform migrations do the same), which also makes `graphql_public.graphql`.
\echo Use "CREATE EXTENSION pg_graphql" to load this file. \quit

-- The schema's version: moved on by every DDL command, so a backend knows when the reflected
-- schema it keeps is stale.
CREATE SEQUENCE graphql.seq_schema_version AS int CYCLE;

CREATE FUNCTION graphql.increment_schema_version() RETURNS event_trigger
  SECURITY DEFINER LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_catalog.nextval('graphql.seq_schema_version');
END;
$$;

CREATE FUNCTION graphql.get_schema_version() RETURNS int
  SECURITY DEFINER LANGUAGE sql AS $$
  SELECT last_value FROM graphql.seq_schema_version;
$$;

CREATE EVENT TRIGGER graphql_watch_ddl ON ddl_command_end
  EXECUTE PROCEDURE graphql.increment_schema_version();

CREATE EVENT TRIGGER graphql_watch_drop ON sql_drop
  EXECUTE PROCEDURE graphql.increment_schema_version();

-- The JSON of a comment's `@graphql(...)` directive, or an empty object.
CREATE FUNCTION graphql.comment_directive(comment_ text) RETURNS jsonb
  IMMUTABLE LANGUAGE sql AS $$
  SELECT coalesce((pg_catalog.regexp_match(comment_, '@graphql\((.+)\)'))[1]::jsonb,
                  pg_catalog.jsonb_build_object());
$$;

-- Raises `message` (SQLSTATE 22000): how a transpiled statement stops itself.
CREATE FUNCTION graphql.exception(message text) RETURNS text
  LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION USING errcode = '22000', message = message;
END;
$$;

CREATE FUNCTION graphql._internal_resolve(
  "query" text,
  "variables" jsonb DEFAULT '{}',
  "operationName" text DEFAULT NULL,
  "extensions" jsonb DEFAULT NULL
) RETURNS jsonb
  LANGUAGE c AS 'MODULE_PATHNAME', '_internal_resolve_wrapper';

-- The entry point: the response of a GraphQL request, with an error of the database (a
-- constraint, a policy) as the response's error and its writes undone.
CREATE FUNCTION graphql.resolve(
  "query" text,
  "variables" jsonb DEFAULT '{}',
  "operationName" text DEFAULT NULL,
  "extensions" jsonb DEFAULT NULL
) RETURNS jsonb
  LANGUAGE plpgsql AS $$
DECLARE
  res jsonb;
  message_text text;
BEGIN
  BEGIN
    SELECT graphql._internal_resolve("query" := "query", "variables" := "variables",
                                     "operationName" := "operationName",
                                     "extensions" := "extensions")
      INTO res;
    RETURN res;
  EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS message_text = MESSAGE_TEXT;
    RETURN pg_catalog.jsonb_build_object(
      'data', NULL,
      'errors', pg_catalog.jsonb_build_array(pg_catalog.jsonb_build_object('message', message_text)));
  END;
END;
$$;
