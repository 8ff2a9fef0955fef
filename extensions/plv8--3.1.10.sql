-- supagate's plv8: not available. plv8 embeds Google's V8 JavaScript engine, which supagate
-- cannot build; creating the extension fails with a clear error instead of "not available".
DO $$
BEGIN
  RAISE EXCEPTION 'plv8 is not available in supagate: it needs the V8 engine, which cannot be built here'
    USING ERRCODE = 'feature_not_supported',
          HINT = 'Rewrite the plv8 functions in plpgsql or SQL, or install a plv8 build into the '
                 'system''s PostgreSQL (Debian/Ubuntu: postgresql-' || current_setting('server_version_num')::int / 10000
                 || '-plv8 from apt.postgresql.org), which supagate then uses.';
END
$$;
