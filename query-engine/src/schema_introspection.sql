WITH rels AS (
  SELECT c.oid, n.nspname AS schema, c.relname AS name, c.relkind::text AS kind,
         c.relrowsecurity AS rls, obj_description(c.oid, 'pg_class') AS description
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE c.relkind IN ('r', 'v', 'm', 'f', 'p') AND n.nspname = ANY($1)
),
cols AS (
  SELECT a.attrelid AS oid,
         json_agg(json_build_object(
           'name', a.attname,
           'type', format_type(a.atttypid, a.atttypmod),
           'nullable', NOT a.attnotnull,
           -- As PostgREST: a domain's default, an identity column's sequence, none for a
           -- generated column, else the column default.
           'default', CASE
             WHEN t.typbasetype <> 0 AND d.adbin IS NULL THEN pg_get_expr(t.typdefaultbin, 0)
             -- (The sequence found by its dependency, not by name: a name lookup needs USAGE
             -- on the schema, which an app may have revoked from everyone but the API roles.)
             WHEN a.attidentity = 'd' THEN
               (SELECT format('nextval(%L)', s.oid::regclass)
                FROM pg_depend dep JOIN pg_class s ON s.oid = dep.objid AND s.relkind = 'S'
                WHERE dep.classid = 'pg_class'::regclass AND dep.refclassid = 'pg_class'::regclass
                  AND dep.refobjid = a.attrelid AND dep.refobjsubid = a.attnum
                  AND dep.deptype = 'i')
             WHEN a.attgenerated = 's' THEN NULL
             ELSE pg_get_expr(d.adbin, d.adrelid)
           END,
           'generated', a.attgenerated <> '',
           'description', col_description(a.attrelid, a.attnum)
         ) ORDER BY a.attnum) AS columns
  FROM pg_attribute a
  LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
  JOIN pg_type t ON t.oid = a.atttypid
  WHERE a.attrelid IN (SELECT oid FROM rels) AND a.attnum > 0 AND NOT a.attisdropped
  GROUP BY a.attrelid
),
keys AS (
  SELECT con.conrelid AS oid, con.contype::text AS kind,
         (SELECT json_agg(a.attname ORDER BY k.ord)
            FROM unnest(con.conkey) WITH ORDINALITY k(num, ord)
            JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.num) AS columns
  FROM pg_constraint con
  WHERE con.contype IN ('p', 'u') AND con.conrelid IN (SELECT oid FROM rels)
),
fks AS (
  SELECT json_build_object(
    'name', con.conname,
    'schema', n1.nspname, 'table', c1.relname,
    'columns', (SELECT json_agg(a.attname ORDER BY k.ord)
                  FROM unnest(con.conkey) WITH ORDINALITY k(num, ord)
                  JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.num),
    'foreign_schema', n2.nspname, 'foreign_table', c2.relname,
    'foreign_columns', (SELECT json_agg(a.attname ORDER BY k.ord)
                  FROM unnest(con.confkey) WITH ORDINALITY k(num, ord)
                  JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.num)
  ) AS fk
  FROM pg_constraint con
  JOIN pg_class c1 ON c1.oid = con.conrelid JOIN pg_namespace n1 ON n1.oid = c1.relnamespace
  JOIN pg_class c2 ON c2.oid = con.confrelid JOIN pg_namespace n2 ON n2.oid = c2.relnamespace
  -- Every schema's: a view of an exposed schema can relate through a table of another.
  WHERE con.contype = 'f'
),
-- Which base column each column of an exposed view shows, as PostgREST finds view relationships:
-- the view rule's target entries that are plain columns (resorigtbl/resorigcol), resolved
-- through views of views by the cache.
view_cols AS (
  SELECT json_build_object(
    'view_schema', n.nspname, 'view', c.relname,
    'column', regexp_replace(m[1], '\\(.)', '\1', 'g'),
    'table_schema', tn.nspname, 'table', tc.relname, 'table_column', ta.attname
  ) AS vc
  FROM pg_class c
  JOIN pg_namespace n ON n.oid = c.relnamespace
  JOIN pg_rewrite r ON r.ev_class = c.oid AND r.rulename = '_RETURN'
  CROSS JOIN LATERAL regexp_matches(r.ev_action::text,
    ':resname ((?:\\.|[^ ])+) :ressortgroupref \d+ :resorigtbl (\d+) :resorigcol (\d+) :resjunk false', 'g') AS m
  JOIN pg_class tc ON tc.oid = m[2]::oid
  JOIN pg_namespace tn ON tn.oid = tc.relnamespace
  JOIN pg_attribute ta ON ta.attrelid = tc.oid AND ta.attnum = m[3]::int
  WHERE c.relkind IN ('v', 'm') AND n.nspname = ANY($1)
),
funcs AS (
  SELECT p.oid, json_build_object(
    'schema', n.nspname, 'name', p.proname,
    'args', (SELECT coalesce(json_agg(json_build_object('name', coalesce(a.name, ''), 'type', format_type(a.typ, NULL)) ORDER BY a.ord), '[]')
               FROM unnest(coalesce(p.proallargtypes, p.proargtypes::oid[]),
                           coalesce(p.proargmodes, array_fill('i'::"char", ARRAY[p.pronargs])),
                           p.proargnames) WITH ORDINALITY AS a(typ, mode, name, ord)
              WHERE a.mode IN ('i', 'b', 'v')),
    'defaults', p.pronargdefaults,
    'return_type', format_type(p.prorettype, NULL),
    'returns_set', p.proretset,
    'returns_rows', (t.typtype = 'c' OR p.prorettype = 'record'::regtype),
    'returns_void', p.prorettype = 'void'::regtype,
    -- For computed relationships and embedding on a call's rows, as PostgREST: the relation
    -- whose row type the single argument takes and the one whose rows it returns.
    'arg_table', (SELECT json_build_array(an.nspname, ac.relname) FROM pg_class ac
                    JOIN pg_namespace an ON an.oid = ac.relnamespace
                   WHERE p.pronargs = 1 AND ac.reltype = p.proargtypes[0]
                     AND ac.relkind IN ('r', 'v', 'm', 'f', 'p')),
    'return_table', (SELECT json_build_array(rn.nspname, rc.relname) FROM pg_class rc
                       JOIN pg_namespace rn ON rn.oid = rc.relnamespace
                      WHERE rc.reltype = p.prorettype AND rc.relkind IN ('r', 'v', 'm', 'f', 'p')),
    'single_row', NOT p.proretset OR p.prorows = 1,
    -- Callable as PostgREST calls functions: unnamed parameters only as the single parameter
    -- of a type a raw body can be (others are left out of the RPC schema cache, as PostgREST;
    -- they can still be computed relationships).
    'callable', (SELECT CASE count(*) WHEN 0 THEN true
                  WHEN 1 THEN bool_and(u.typ IN ('bytea'::regtype, 'json'::regtype, 'jsonb'::regtype,
                                                 'text'::regtype, 'xml'::regtype))
                  ELSE false END
           FROM unnest(coalesce(p.proallargtypes, p.proargtypes::oid[]),
                       coalesce(p.proargmodes, array_fill('i'::"char", ARRAY[p.pronargs])),
                       p.proargnames) AS u(typ, mode, name)
          WHERE u.mode IN ('i', 'b', 'v') AND coalesce(u.name, '') = ''),
    'volatility', p.provolatile::text,
    'description', obj_description(p.oid, 'pg_proc')
  ) AS f
  FROM pg_proc p
  JOIN pg_namespace n ON n.oid = p.pronamespace
  JOIN pg_type t ON t.oid = p.prorettype
  WHERE n.nspname = ANY($1) AND p.prokind = 'f' AND p.prorettype <> 'trigger'::regtype
),
-- Settings of the roles this login can switch to (ALTER ROLE anon SET statement_timeout = '3s'),
-- applied to each request's transaction as PostgREST applies them. Only settings a session may
-- change; database-specific ones sort last so they win.
role_settings AS (
  SELECT r.rolname AS role, split_part(x, '=', 1) AS key, substr(x, strpos(x, '=') + 1) AS value,
         s.setdatabase <> 0 AS specific
  FROM pg_db_role_setting s
  JOIN pg_roles r ON r.oid = s.setrole
  CROSS JOIN LATERAL unnest(s.setconfig) AS x
  WHERE s.setdatabase IN (0, (SELECT oid FROM pg_database WHERE datname = current_database()))
    AND pg_has_role(current_user, r.oid, 'MEMBER') AND r.rolname <> current_user
    AND (split_part(x, '=', 1) LIKE '%.%'
         OR EXISTS (SELECT 1 FROM pg_settings ps WHERE ps.name = split_part(x, '=', 1) AND ps.context = 'user'))
),
-- PostgREST's in-database configuration: `pgrst.*` settings of the login role itself
-- (ALTER ROLE authenticator SET pgrst.db_aggregates_enabled = 'true'); database-specific ones
-- sort last so they win.
db_config AS (
  SELECT substr(split_part(x, '=', 1), 7) AS key, substr(x, strpos(x, '=') + 1) AS value,
         s.setdatabase <> 0 AS specific
  FROM pg_db_role_setting s
  CROSS JOIN LATERAL unnest(s.setconfig) AS x
  WHERE s.setrole = (SELECT oid FROM pg_roles WHERE rolname = current_user)
    AND s.setdatabase IN (0, (SELECT oid FROM pg_database WHERE datname = current_database()))
    AND split_part(x, '=', 1) LIKE 'pgrst.%'
)
SELECT json_build_object(
  'tables', coalesce((SELECT json_agg(json_build_object(
      'schema', r.schema, 'name', r.name, 'kind', r.kind, 'rls', r.rls, 'description', r.description,
      'columns', coalesce(c.columns, '[]'),
      'primary_key', coalesce((SELECT k.columns FROM keys k WHERE k.oid = r.oid AND k.kind = 'p'), '[]'),
      'unique_keys', coalesce((SELECT json_agg(k.columns) FROM keys k WHERE k.oid = r.oid), '[]')
    )) FROM rels r LEFT JOIN cols c ON c.oid = r.oid), '[]'),
  'foreign_keys', coalesce((SELECT json_agg(fk) FROM fks), '[]'),
  'view_columns', coalesce((SELECT json_agg(vc) FROM view_cols), '[]'),
  'functions', coalesce((SELECT json_agg(f.f ORDER BY f.oid) FROM funcs f), '[]'),
  'role_settings', coalesce((SELECT json_agg(rs ORDER BY rs.specific) FROM role_settings rs), '[]'),
  'db_config', coalesce((SELECT json_agg(d ORDER BY d.specific) FROM db_config d), '[]')
)::text
