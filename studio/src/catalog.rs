//! The database's objects as the Database pages list them: one catalog query per kind, each
//! answering one JSON array (`$1`: a schema, or '' for all but PostgreSQL's own).

use crate::StudioError;

/// Schemas never listed: PostgreSQL's own.
const SYSTEM: &str = "n.nspname NOT IN ('pg_catalog', 'information_schema') \
    AND n.nspname NOT LIKE 'pg\\_toast%' AND n.nspname NOT LIKE 'pg\\_temp%'";

/// Columns listed at most (the completion of a very large database stays bounded).
const MAX_COLUMNS: usize = 20_000;

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kind {
    Schemas,
    Tables,
    Columns,
    Views,
    Functions,
    Triggers,
    Indexes,
    IndexMethods,
    Enums,
    Policies,
    Extensions,
    Roles,
    Publications,
    Migrations,
}

impl Kind {
    pub const ALL: [Kind; 14] = [
        Kind::Schemas,
        Kind::Tables,
        Kind::Columns,
        Kind::Views,
        Kind::Functions,
        Kind::Triggers,
        Kind::Indexes,
        Kind::IndexMethods,
        Kind::Enums,
        Kind::Policies,
        Kind::Extensions,
        Kind::Roles,
        Kind::Publications,
        Kind::Migrations,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Kind::Schemas => "schemas",
            Kind::Tables => "tables",
            Kind::Columns => "columns",
            Kind::Views => "views",
            Kind::Functions => "functions",
            Kind::Triggers => "triggers",
            Kind::Indexes => "indexes",
            Kind::IndexMethods => "index_methods",
            Kind::Enums => "enums",
            Kind::Policies => "policies",
            Kind::Extensions => "extensions",
            Kind::Roles => "roles",
            Kind::Publications => "publications",
            Kind::Migrations => "migrations",
        }
    }

    pub fn parse(s: &str) -> Result<Kind, StudioError> {
        Kind::ALL
            .into_iter()
            .find(|k| k.name() == s)
            .ok_or_else(|| StudioError::NotFound(format!("the list \"{s}\"")))
    }

    /// The query: `$1` is the schema ('' for all), one row, one JSON text column.
    pub fn sql(self) -> String {
        format!(
            "SELECT coalesce(json_agg(x), '[]')::text FROM ({}) x",
            self.body()
        )
    }

    /// Likewise for one table's objects (`$2`: its name): triggers, indexes or policies.
    pub fn sql_of_table(self) -> String {
        format!(
            "SELECT coalesce(json_agg(x), '[]')::text FROM ({}) x WHERE x.\"table\" = $2",
            self.body()
        )
    }

    fn body(self) -> String {
        match self {
            Kind::Schemas => format!(
                "SELECT n.nspname AS name, pg_get_userbyid(n.nspowner) AS owner,
                        (SELECT count(*) FROM pg_class c WHERE c.relnamespace = n.oid
                           AND c.relkind IN ('r', 'p')) AS tables
                 FROM pg_namespace n WHERE {SYSTEM} AND ($1 = '' OR n.nspname = $1)
                 ORDER BY n.nspname"
            ),
            Kind::Tables => format!(
                "SELECT n.nspname AS schema, c.relname AS name,
                        CASE c.relkind WHEN 'r' THEN 'table' WHEN 'p' THEN 'partitioned table'
                          WHEN 'v' THEN 'view' WHEN 'm' THEN 'materialized view'
                          ELSE 'foreign table' END AS kind,
                        c.relrowsecurity AS rls_enabled, c.relforcerowsecurity AS rls_forced,
                        greatest(c.reltuples, -1)::int8 AS estimate,
                        pg_total_relation_size(c.oid) AS bytes,
                        obj_description(c.oid, 'pg_class') AS comment,
                        (SELECT count(*) FROM pg_policy p WHERE p.polrelid = c.oid) AS policies
                 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                 WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f') AND NOT c.relispartition
                   AND {SYSTEM} AND ($1 = '' OR n.nspname = $1)
                 ORDER BY 1, 2"
            ),
            // Every column of every table and view (the SQL editor's completion), bounded.
            Kind::Columns => format!(
                "SELECT n.nspname AS schema, c.relname AS table, a.attname AS name,
                        format_type(a.atttypid, a.atttypmod) AS data_type
                 FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
                 JOIN pg_namespace n ON n.oid = c.relnamespace
                 WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f') AND a.attnum > 0
                   AND NOT a.attisdropped AND {SYSTEM} AND ($1 = '' OR n.nspname = $1)
                 ORDER BY 1, 2, a.attnum LIMIT {MAX_COLUMNS}"
            ),
            Kind::Views => format!(
                "SELECT n.nspname AS schema, c.relname AS name, c.relkind = 'm' AS materialized,
                        pg_get_viewdef(c.oid, true) AS definition,
                        coalesce(c.reloptions::text[] && ARRAY['security_invoker=true',
                          'security_invoker=on'], false) AS security_invoker
                 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                 WHERE c.relkind IN ('v', 'm') AND {SYSTEM} AND ($1 = '' OR n.nspname = $1)
                 ORDER BY 1, 2"
            ),
            Kind::Functions => format!(
                "SELECT n.nspname AS schema, p.proname AS name,
                        pg_get_function_arguments(p.oid) AS arguments,
                        pg_get_function_result(p.oid) AS returns, l.lanname AS language,
                        p.prosecdef AS security_definer,
                        CASE p.provolatile WHEN 'i' THEN 'immutable' WHEN 's' THEN 'stable'
                          ELSE 'volatile' END AS volatility,
                        p.prokind AS prokind
                 FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
                 JOIN pg_language l ON l.oid = p.prolang
                 WHERE {SYSTEM} AND ($1 = '' OR n.nspname = $1)
                   AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = p.oid
                                     AND d.deptype = 'e')
                 ORDER BY 1, 2, 3"
            ),
            Kind::Triggers => format!(
                "SELECT n.nspname AS schema, c.relname AS table, t.tgname AS name,
                        pg_get_triggerdef(t.oid, true) AS definition,
                        t.tgenabled <> 'D' AS enabled,
                        fn.nspname || '.' || p.proname AS function
                 FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
                 JOIN pg_namespace n ON n.oid = c.relnamespace
                 JOIN pg_proc p ON p.oid = t.tgfoid JOIN pg_namespace fn ON fn.oid = p.pronamespace
                 WHERE NOT t.tgisinternal AND {SYSTEM} AND ($1 = '' OR n.nspname = $1)
                 ORDER BY 1, 2, 3"
            ),
            Kind::Indexes => format!(
                "SELECT n.nspname AS schema, t.relname AS table, i.relname AS name,
                        pg_get_indexdef(x.indexrelid) AS definition, x.indisunique AS unique,
                        x.indisprimary AS primary, pg_relation_size(i.oid) AS bytes,
                        am.amname AS method,
                        ARRAY(SELECT pg_get_indexdef(x.indexrelid, k, true)
                              FROM generate_series(1, x.indnkeyatts) k) AS columns,
                        pg_get_expr(x.indpred, x.indrelid, true) AS predicate,
                        (SELECT k.conname FROM pg_constraint k
                         WHERE k.conindid = x.indexrelid AND k.conrelid = x.indrelid
                           AND k.contype IN ('p', 'u', 'x')) AS constraint
                 FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
                 JOIN pg_am am ON am.oid = i.relam
                 JOIN pg_class t ON t.oid = x.indrelid JOIN pg_namespace n ON n.oid = t.relnamespace
                 WHERE {SYSTEM} AND ($1 = '' OR n.nspname = $1)
                 ORDER BY 1, 2, 3"
            ),
            // The index methods this database has (btree, hash, gist, gin, ... and extensions').
            Kind::IndexMethods => "SELECT amname AS name FROM pg_am
                 WHERE amtype = 'i' AND $1 = $1 ORDER BY amname = 'btree' DESC, 1"
                .to_string(),
            // Enum types with their values in order, and how many columns use each.
            Kind::Enums => format!(
                "SELECT n.nspname AS schema, t.typname AS name,
                        ARRAY(SELECT e.enumlabel FROM pg_enum e WHERE e.enumtypid = t.oid
                              ORDER BY e.enumsortorder) AS values,
                        (SELECT count(*) FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
                         WHERE a.atttypid = t.oid AND a.attnum > 0 AND NOT a.attisdropped
                           AND c.relkind IN ('r', 'p', 'v', 'm', 'f')) AS columns
                 FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
                 WHERE t.typtype = 'e' AND {SYSTEM} AND ($1 = '' OR n.nspname = $1)
                 ORDER BY 1, 2"
            ),
            Kind::Policies => format!(
                "SELECT n.nspname AS schema, c.relname AS table, p.polname AS name,
                        CASE p.polcmd WHEN 'r' THEN 'SELECT' WHEN 'a' THEN 'INSERT'
                          WHEN 'w' THEN 'UPDATE' WHEN 'd' THEN 'DELETE' ELSE 'ALL' END AS command,
                        p.polpermissive AS permissive,
                        CASE WHEN p.polroles = '{{0}}' THEN ARRAY['public']::name[]
                          ELSE ARRAY(SELECT rolname FROM pg_roles WHERE oid = ANY(p.polroles)
                                     ORDER BY 1) END AS roles,
                        pg_get_expr(p.polqual, p.polrelid) AS using,
                        pg_get_expr(p.polwithcheck, p.polrelid) AS check
                 FROM pg_policy p JOIN pg_class c ON c.oid = p.polrelid
                 JOIN pg_namespace n ON n.oid = c.relnamespace
                 WHERE {SYSTEM} AND ($1 = '' OR n.nspname = $1)
                 ORDER BY 1, 2, 3"
            ),
            Kind::Extensions => {
                "SELECT a.name, a.default_version, e.extversion AS installed_version,
                        n.nspname AS schema, a.comment
                 FROM pg_available_extensions a
                 LEFT JOIN pg_extension e ON e.extname = a.name
                 LEFT JOIN pg_namespace n ON n.oid = e.extnamespace
                 WHERE $1 = '' OR n.nspname = $1
                 ORDER BY e.extversion IS NULL, a.name"
                    .to_string()
            }
            Kind::Roles => {
                "SELECT r.rolname AS name, r.rolcanlogin AS login, r.rolsuper AS superuser,
                        r.rolbypassrls AS bypass_rls, r.rolcreaterole AS create_role,
                        r.rolcreatedb AS create_db, r.rolconnlimit AS connection_limit,
                        ARRAY(SELECT b.rolname FROM pg_auth_members m JOIN pg_roles b
                              ON b.oid = m.roleid WHERE m.member = r.oid ORDER BY 1) AS member_of
                 FROM pg_roles r WHERE r.rolname NOT LIKE 'pg\\_%' AND $1 = $1
                 ORDER BY 1"
                    .to_string()
            }
            Kind::Publications => "SELECT p.pubname AS name, pg_get_userbyid(p.pubowner) AS owner,
                        p.puballtables AS all_tables, p.pubinsert AS insert, p.pubupdate AS update,
                        p.pubdelete AS delete, p.pubtruncate AS truncate,
                        ARRAY(SELECT t.schemaname || '.' || t.tablename FROM pg_publication_tables t
                              WHERE t.pubname = p.pubname AND ($1 = '' OR t.schemaname = $1)
                              ORDER BY 1) AS tables
                 FROM pg_publication p ORDER BY 1"
                .to_string(),
            // The CLI's history table: what `db push`/`migration up` recorded (none: empty).
            Kind::Migrations => {
                "SELECT version, name, coalesce(array_length(statements, 1), 0) AS statements
                 FROM supabase_migrations.schema_migrations WHERE $1 = $1 ORDER BY version"
                    .to_string()
            }
        }
    }
}

/// The columns of one table or view with their types, keys and defaults (`$1` schema, `$2`
/// name): the grid's [`crate::grid::Shape`].
pub const SHAPE: &str = "
SELECT CASE c.relkind WHEN 'r' THEN 'table' WHEN 'p' THEN 'partitioned table' WHEN 'v' THEN 'view'
         WHEN 'm' THEN 'materialized view' ELSE 'foreign table' END,
       coalesce((SELECT json_agg(json_build_object(
           'name', a.attname, 'data_type', format_type(a.atttypid, a.atttypmod),
           'nullable', NOT a.attnotnull, 'default', pg_get_expr(d.adbin, d.adrelid),
           'primary_key', coalesce(a.attnum = ANY(pk.conkey), false),
           'generated', a.attgenerated <> '' OR a.attidentity = 'a') ORDER BY a.attnum)
         FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
         WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped), '[]')::text,
       c.relrowsecurity, c.relforcerowsecurity, greatest(c.reltuples, -1)::int8, c.oid::int8
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN pg_constraint pk ON pk.conrelid = c.oid AND pk.contype = 'p'
WHERE n.nspname = $1 AND c.relname = $2 AND c.relkind IN ('r', 'p', 'v', 'm', 'f')";

/// A table's foreign keys both ways (`$1` the table's oid): which columns point where, and
/// which tables point here.
pub const RELATIONS: &str = "
SELECT coalesce(json_agg(json_build_object(
         'name', k.conname,
         'columns', ARRAY(SELECT attname FROM pg_attribute WHERE attrelid = k.conrelid
                          AND attnum = ANY(k.conkey) ORDER BY array_position(k.conkey, attnum)),
         'schema', fn.nspname, 'table', f.relname,
         'foreign_columns', ARRAY(SELECT attname FROM pg_attribute WHERE attrelid = k.confrelid
                          AND attnum = ANY(k.confkey) ORDER BY array_position(k.confkey, attnum)),
         'outgoing', k.conrelid = $1::int8::oid)), '[]')::text
FROM pg_constraint k
JOIN pg_class f ON f.oid = CASE WHEN k.conrelid = $1::int8::oid THEN k.confrelid ELSE k.conrelid END
JOIN pg_namespace fn ON fn.oid = f.relnamespace
WHERE k.contype = 'f' AND (k.conrelid = $1::int8::oid OR k.confrelid = $1::int8::oid)";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_a_name_and_one_query() {
        for k in Kind::ALL {
            assert_eq!(Kind::parse(k.name()).unwrap(), k);
            assert!(k.sql().contains("$1"), "{}", k.name());
        }
        assert!(
            Kind::parse("secrets")
                .unwrap_err()
                .to_string()
                .contains("\"secrets\"")
        );
    }
}
