-- Tell the gateway to reload its schema cache after DDL, as PostgREST's recommended event trigger
-- does. Event triggers need a superuser; on a managed server without one, reload with
-- NOTIFY pgrst, 'reload schema'.
CREATE OR REPLACE FUNCTION extensions.notify_schema_reload() RETURNS event_trigger
  LANGUAGE plpgsql AS $$
BEGIN
  NOTIFY pgrst, 'reload schema';
END
$$;

DO $$
BEGIN
  CREATE EVENT TRIGGER notify_schema_reload_ddl ON ddl_command_end
    EXECUTE FUNCTION extensions.notify_schema_reload();
  CREATE EVENT TRIGGER notify_schema_reload_drop ON sql_drop
    EXECUTE FUNCTION extensions.notify_schema_reload();
EXCEPTION WHEN insufficient_privilege THEN
  RAISE NOTICE 'event triggers need a superuser; reload the schema cache with NOTIFY pgrst';
END
$$;
