-- supagate's pg_tle 1.4.0: the management functions of aws/pg_tle in the pgtle schema, the
-- pgtle_admin role and the feature registry (pg_tle.so, built from extensions/pgrx/pg_tle, which
-- also makes CREATE / ALTER EXTENSION of an installed TLE work). Written for supagate.
\echo Use "CREATE EXTENSION pg_tle" to load this file. \quit

DO $pgtle$
BEGIN
  IF EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = 'pgtle_admin') THEN
    RAISE NOTICE 'Role "pgtle_admin" already exists. Skipping.';
  ELSE
    CREATE ROLE pgtle_admin NOLOGIN;
  END IF;
END
$pgtle$;

-- Installing: C functions that write pgtle."<name>.control"() and pgtle."<name>--<version>.sql"().
CREATE FUNCTION pgtle.install_extension(
  name text, version text, description text, ext text, requires text[] DEFAULT NULL
) RETURNS boolean SET search_path TO 'pgtle'
  AS 'MODULE_PATHNAME', 'install_extension_wrapper' LANGUAGE C;

CREATE FUNCTION pgtle.install_extension_version_sql(name text, version text, ext text)
  RETURNS boolean SET search_path TO 'pgtle'
  AS 'MODULE_PATHNAME', 'install_extension_version_sql_wrapper' LANGUAGE C;

CREATE FUNCTION pgtle.install_update_path(name text, fromvers text, tovers text, ext text)
  RETURNS boolean SET search_path TO 'pgtle'
  AS 'MODULE_PATHNAME', 'install_update_path_wrapper' LANGUAGE C;

CREATE FUNCTION pgtle.set_default_version(name text, version text)
  RETURNS boolean SET search_path TO 'pgtle'
  AS 'MODULE_PATHNAME', 'set_default_version_wrapper' LANGUAGE C;

-- PostgreSQL's own catalog views read over the TLEs' files (a JSON array of their rows), typed
-- by the three functions after it.
CREATE FUNCTION pgtle.supagate_catalog(kind text, extname text)
  RETURNS jsonb AS 'MODULE_PATHNAME', 'supagate_catalog_wrapper' LANGUAGE C STABLE;

CREATE FUNCTION pgtle.available_extensions(
  OUT name name, OUT default_version text, OUT comment text
) RETURNS SETOF record LANGUAGE sql STABLE STRICT
AS $pgtle$
  SELECT r.name, r.default_version, r.comment
  FROM pg_catalog.jsonb_to_recordset(pgtle.supagate_catalog('extensions', NULL))
    AS r(name name, default_version text, comment text)
  ORDER BY r.name
$pgtle$;

CREATE FUNCTION pgtle.available_extension_versions(
  OUT name name, OUT version text, OUT superuser boolean, OUT trusted boolean,
  OUT relocatable boolean, OUT schema name, OUT requires name[], OUT comment text
) RETURNS SETOF record LANGUAGE sql STABLE STRICT
AS $pgtle$
  SELECT r.name, r.version, r.superuser, r.trusted, r.relocatable, r.schema, r.requires, r.comment
  FROM pg_catalog.jsonb_to_recordset(pgtle.supagate_catalog('versions', NULL))
    AS r(name name, version text, superuser boolean, trusted boolean, relocatable boolean,
         schema name, requires name[], comment text)
  ORDER BY r.name, r.version
$pgtle$;

CREATE FUNCTION pgtle.extension_update_paths(
  name name, OUT source text, OUT target text, OUT path text
) RETURNS SETOF record LANGUAGE sql STABLE STRICT
AS $pgtle$
  SELECT r.source, r.target, r.path
  FROM pg_catalog.jsonb_to_recordset(pgtle.supagate_catalog('paths', $1::text))
    AS r(source text, target text, path text)
$pgtle$;

-- Uninstalling: the functions of one extension (matched by exact name, not by pattern).
CREATE FUNCTION pgtle.supagate_scripts(extname text)
  RETURNS SETOF name LANGUAGE sql STABLE STRICT
AS $pgtle$
  SELECT p.proname FROM pg_catalog.pg_proc p
  WHERE p.pronamespace = 'pgtle'::pg_catalog.regnamespace AND p.pronargs = 0
    AND pg_catalog.left(p.proname, pg_catalog.length($1) + 2) = $1 || '--'
    AND pg_catalog.right(p.proname, 4) = '.sql'
$pgtle$;

CREATE FUNCTION pgtle.uninstall_extension(extname text)
  RETURNS boolean SET search_path TO 'pgtle' LANGUAGE plpgsql STRICT
AS $pgtle$
DECLARE
  func name;
  scripts int := 0;
BEGIN
  IF NOT EXISTS (SELECT FROM pg_catalog.pg_proc p
                 WHERE p.pronamespace = 'pgtle'::pg_catalog.regnamespace
                   AND p.proname = extname || '.control' AND p.pronargs = 0) THEN
    RAISE EXCEPTION 'Extension % does not exist', extname USING ERRCODE = 'no_data_found';
  END IF;
  EXECUTE pg_catalog.format('DROP FUNCTION pgtle.%I()', extname || '.control');
  FOR func IN SELECT * FROM pgtle.supagate_scripts(extname) LOOP
    EXECUTE pg_catalog.format('DROP FUNCTION pgtle.%I()', func);
    scripts := scripts + 1;
  END LOOP;
  IF scripts = 0 THEN
    RAISE WARNING 'Extension % has an anomaly; control function exists, but no sql commands function exists', extname;
  END IF;
  RETURN true;
END
$pgtle$;

CREATE FUNCTION pgtle.uninstall_extension_if_exists(extname text)
  RETURNS boolean SET search_path TO 'pgtle' LANGUAGE plpgsql STRICT
AS $pgtle$
BEGIN
  PERFORM pgtle.uninstall_extension(extname);
  RETURN true;
EXCEPTION WHEN no_data_found THEN
  RETURN false;
END
$pgtle$;

-- One version: its install script and the update paths from or to it. The default version
-- stays while others exist; the only version takes the whole extension with it.
CREATE FUNCTION pgtle.uninstall_extension(extname text, version text)
  RETURNS boolean SET search_path TO 'pgtle' LANGUAGE plpgsql STRICT
AS $pgtle$
DECLARE
  versions bigint;
  default_ver text;
  func name;
BEGIN
  SELECT pg_catalog.count(*) INTO versions
    FROM pgtle.available_extension_versions() v WHERE v.name = extname;
  SELECT e.default_version INTO default_ver
    FROM pgtle.available_extensions() e WHERE e.name = extname;
  IF versions > 1 THEN
    IF version = default_ver THEN
      RAISE EXCEPTION 'Can not uninstall default version of extension %, use set_default_version to update the default to another available version and retry', extname;
    END IF;
    FOR func IN SELECT s FROM pgtle.supagate_scripts(extname) s
                WHERE s = extname || '--' || version || '.sql'
                   OR pg_catalog.starts_with(s, extname || '--' || version || '--')
                   OR pg_catalog.right(s, pg_catalog.length(version) + 6) = '--' || version || '.sql'
    LOOP
      EXECUTE pg_catalog.format('DROP FUNCTION pgtle.%I()', func);
    END LOOP;
  ELSIF version = default_ver THEN
    PERFORM pgtle.uninstall_extension(extname);
  ELSE
    RAISE EXCEPTION 'Version % of extension % is not installed and therefore can not be uninstalled', version, extname;
  END IF;
  RETURN true;
END
$pgtle$;

CREATE FUNCTION pgtle.uninstall_update_path(extname text, fromvers text, tovers text)
  RETURNS boolean SET search_path TO 'pgtle' LANGUAGE plpgsql STRICT
AS $pgtle$
DECLARE
  script text := extname || '--' || fromvers || '--' || tovers || '.sql';
BEGIN
  IF NOT EXISTS (SELECT FROM pg_catalog.pg_proc p
                 WHERE p.pronamespace = 'pgtle'::pg_catalog.regnamespace
                   AND p.proname = script AND p.pronargs = 0) THEN
    RAISE EXCEPTION 'Extension % does not exist', extname USING ERRCODE = 'no_data_found';
  END IF;
  EXECUTE pg_catalog.format('DROP FUNCTION pgtle.%I()', script);
  RETURN true;
END
$pgtle$;

CREATE FUNCTION pgtle.uninstall_update_path_if_exists(extname text, fromvers text, tovers text)
  RETURNS boolean SET search_path TO 'pgtle' LANGUAGE plpgsql STRICT
AS $pgtle$
BEGIN
  PERFORM pgtle.uninstall_update_path(extname, fromvers, tovers);
  RETURN true;
EXCEPTION WHEN no_data_found THEN
  RETURN false;
END
$pgtle$;

-- Features: functions registered for pg_tle's hooks. supagate records them (upstream's table,
-- functions and drop protection) but does not run them: a passcheck function does not check
-- passwords here, and clientauth functions are not called at login.
CREATE TYPE pgtle.pg_tle_features AS ENUM ('passcheck', 'clientauth');
CREATE TYPE pgtle.password_types AS ENUM
  ('PASSWORD_TYPE_PLAINTEXT', 'PASSWORD_TYPE_MD5', 'PASSWORD_TYPE_SCRAM_SHA_256');

CREATE TABLE pgtle.feature_info (
  feature pgtle.pg_tle_features,
  schema_name text,
  proname text,
  obj_identity text NOT NULL,
  PRIMARY KEY (feature, schema_name, proname)
);
SELECT pg_catalog.pg_extension_config_dump('pgtle.feature_info', '');

CREATE FUNCTION pgtle.register_feature(proc regproc, feature pgtle.pg_tle_features)
  RETURNS void LANGUAGE plpgsql
AS $pgtle$
BEGIN
  INSERT INTO pgtle.feature_info
  SELECT feature, n.nspname, p.proname,
         (pg_catalog.pg_identify_object('pg_catalog.pg_proc'::pg_catalog.regclass, p.oid, 0)).identity
  FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
  WHERE p.oid = proc;
END
$pgtle$;

CREATE FUNCTION pgtle.register_feature_if_not_exists(proc regproc, feature pgtle.pg_tle_features)
  RETURNS boolean LANGUAGE plpgsql
AS $pgtle$
BEGIN
  PERFORM pgtle.register_feature(proc, feature);
  RETURN true;
EXCEPTION WHEN unique_violation THEN
  RETURN false;
END
$pgtle$;

CREATE FUNCTION pgtle.unregister_feature(proc regproc, feature pgtle.pg_tle_features)
  RETURNS void LANGUAGE plpgsql
AS $pgtle$
DECLARE
  removed bigint;
BEGIN
  DELETE FROM pgtle.feature_info f
  USING pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
  WHERE p.oid = proc AND f.feature = $2 AND f.schema_name = n.nspname AND f.proname = p.proname;
  GET DIAGNOSTICS removed = ROW_COUNT;
  IF removed = 0 THEN
    RAISE EXCEPTION 'Could not unregister "%": does not exist.', $1 USING ERRCODE = 'no_data_found';
  END IF;
END
$pgtle$;

CREATE FUNCTION pgtle.unregister_feature_if_exists(proc regproc, feature pgtle.pg_tle_features)
  RETURNS boolean LANGUAGE plpgsql
AS $pgtle$
BEGIN
  PERFORM pgtle.unregister_feature(proc, feature);
  RETURN true;
EXCEPTION WHEN no_data_found THEN
  RETURN false;
END
$pgtle$;

-- A registered function cannot be dropped.
CREATE FUNCTION pgtle.pg_tle_feature_info_sql_drop() RETURNS event_trigger LANGUAGE plpgsql
AS $pgtle$
DECLARE
  obj record;
BEGIN
  IF tg_tag = 'DROP FUNCTION' THEN
    FOR obj IN SELECT * FROM pg_catalog.pg_event_trigger_dropped_objects() LOOP
      IF EXISTS (SELECT FROM pgtle.feature_info f WHERE f.obj_identity = obj.object_identity) THEN
        RAISE EXCEPTION 'Function is referenced in pgtle.feature_info';
      END IF;
    END LOOP;
  END IF;
END
$pgtle$;

CREATE EVENT TRIGGER pg_tle_event_trigger_for_drop_function ON sql_drop
  EXECUTE FUNCTION pgtle.pg_tle_feature_info_sql_drop();

-- Privileges: reading for everyone, managing for pgtle_admin (and superusers).
REVOKE ALL ON SCHEMA pgtle FROM PUBLIC;
GRANT USAGE ON SCHEMA pgtle TO PUBLIC;
GRANT USAGE, CREATE ON SCHEMA pgtle TO pgtle_admin;
GRANT SELECT ON pgtle.feature_info TO PUBLIC;
GRANT INSERT, DELETE ON pgtle.feature_info TO pgtle_admin;

REVOKE EXECUTE ON FUNCTION
  pgtle.install_extension(text, text, text, text, text[]),
  pgtle.install_extension_version_sql(text, text, text),
  pgtle.install_update_path(text, text, text, text),
  pgtle.set_default_version(text, text),
  pgtle.uninstall_extension(text),
  pgtle.uninstall_extension(text, text),
  pgtle.uninstall_extension_if_exists(text),
  pgtle.uninstall_update_path(text, text, text),
  pgtle.uninstall_update_path_if_exists(text, text, text),
  pgtle.register_feature(regproc, pgtle.pg_tle_features),
  pgtle.register_feature_if_not_exists(regproc, pgtle.pg_tle_features),
  pgtle.unregister_feature(regproc, pgtle.pg_tle_features),
  pgtle.unregister_feature_if_exists(regproc, pgtle.pg_tle_features)
FROM PUBLIC;

GRANT EXECUTE ON FUNCTION
  pgtle.install_extension(text, text, text, text, text[]),
  pgtle.install_extension_version_sql(text, text, text),
  pgtle.install_update_path(text, text, text, text),
  pgtle.set_default_version(text, text),
  pgtle.uninstall_extension(text),
  pgtle.uninstall_extension(text, text),
  pgtle.uninstall_extension_if_exists(text),
  pgtle.uninstall_update_path(text, text, text),
  pgtle.uninstall_update_path_if_exists(text, text, text),
  pgtle.register_feature(regproc, pgtle.pg_tle_features),
  pgtle.register_feature_if_not_exists(regproc, pgtle.pg_tle_features),
  pgtle.unregister_feature(regproc, pgtle.pg_tle_features),
  pgtle.unregister_feature_if_exists(regproc, pgtle.pg_tle_features)
TO pgtle_admin;
