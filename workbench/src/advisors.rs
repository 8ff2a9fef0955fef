//! `db advisors`: the lints Supabase's dashboard shows (its splinter project), under the same
//! names, titles, levels, categories and remediation links, each found by a catalog query of
//! our own. This module is pure: the rules (their SQL as text), which lints a `--type` and
//! `--level` keep, whether `--fail-on` fails, and the JSON and table output. The queries run
//! at the edge (`supagate db advisors`), each with two parameters: `$1` the schemas the Data
//! API exposes, `$2` the schemas Supabase manages (left out, as splinter leaves them out).
//! Each query returns the lint's detail, its metadata (JSON text) and its cache key.

use serde::Serialize;

/// Levels, least severe first (`--level`, `--fail-on`).
pub const LEVELS: [&str; 3] = ["info", "warn", "error"];
/// `--type`.
pub const TYPES: [&str; 3] = ["all", "security", "performance"];

/// Schemas Supabase (and supagate) manage: no lint looks into them.
pub const MANAGED: &[&str] = &[
    "_timescaledb_cache",
    "_timescaledb_catalog",
    "_timescaledb_config",
    "_timescaledb_internal",
    "auth",
    "cron",
    "extensions",
    "graphql",
    "graphql_public",
    "information_schema",
    "net",
    "pgmq",
    "pgroonga",
    "pgsodium",
    "pgsodium_masks",
    "pgtle",
    "pgbouncer",
    "pg_catalog",
    "pg_toast",
    "realtime",
    "repack",
    "storage",
    "supabase_functions",
    "supabase_migrations",
    "tiger",
    "topology",
    "vault",
    "supagate",
];

/// One lint rule.
pub struct Rule {
    pub name: &'static str,
    pub title: &'static str,
    /// `INFO`, `WARN` or `ERROR`.
    pub level: &'static str,
    /// `SECURITY` or `PERFORMANCE`.
    pub category: &'static str,
    pub description: &'static str,
    /// The dashboard's page about it (`…database-linter?lint=<id>`).
    pub lint_id: &'static str,
    /// Rows of (detail, metadata as JSON text, cache key); `$1` exposed schemas, `$2` managed.
    pub sql: &'static str,
}

impl Rule {
    pub fn remediation(&self) -> String {
        format!(
            "https://supabase.com/docs/guides/database/database-linter?lint={}",
            self.lint_id
        )
    }
}

/// One issue, as the CLI prints it.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Lint {
    pub name: String,
    pub title: String,
    pub level: String,
    pub facing: String,
    pub categories: Vec<String>,
    pub description: String,
    pub detail: String,
    pub remediation: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<serde_json::Value>,
    pub cache_key: String,
}

impl Lint {
    /// The issue a rule's query row describes.
    pub fn of(rule: &Rule, detail: String, metadata: Option<&str>, cache_key: String) -> Lint {
        Lint {
            name: rule.name.into(),
            title: rule.title.into(),
            level: rule.level.into(),
            facing: "EXTERNAL".into(),
            categories: vec![rule.category.into()],
            description: rule.description.into(),
            detail,
            remediation: rule.remediation(),
            metadata: metadata.and_then(|m| serde_json::from_str(m).ok()),
            cache_key,
        }
    }
}

/// A level's rank in `LEVELS` (`WARN` and `warn` alike); `None` for anything else.
pub fn rank(level: &str) -> Option<usize> {
    LEVELS.iter().position(|l| l.eq_ignore_ascii_case(level))
}

/// The rules a `--type` runs.
pub fn rules_of(kind: &str) -> impl Iterator<Item = &'static Rule> {
    let want = match kind {
        "security" => Some("SECURITY"),
        "performance" => Some("PERFORMANCE"),
        _ => None,
    };
    RULES
        .iter()
        .filter(move |r| want.is_none_or(|c| r.category == c))
}

/// The lints at `level` or above.
pub fn at_least(lints: Vec<Lint>, level: &str) -> Vec<Lint> {
    let min = rank(level).unwrap_or(0);
    lints
        .into_iter()
        .filter(|l| rank(&l.level).is_some_and(|r| r >= min))
        .collect()
}

/// The CLI's error when a lint is at `fail_on` or above (`none`: never).
pub fn failure(lints: &[Lint], fail_on: &str) -> Option<String> {
    let at = rank(fail_on)?;
    lints
        .iter()
        .any(|l| rank(&l.level).is_some_and(|r| r >= at))
        .then(|| format!("fail-on is set to {fail_on}, non-zero exit"))
}

/// The lints as a table: level, name, detail and the fix's link, one row each.
pub fn table(lints: &[Lint]) -> String {
    let rows: Vec<[&str; 4]> = lints
        .iter()
        .map(|l| {
            [
                l.level.as_str(),
                l.name.as_str(),
                l.detail.as_str(),
                l.remediation.as_str(),
            ]
        })
        .collect();
    crate::report::table(&["LEVEL", "NAME", "DETAIL", "REMEDIATION"], &rows)
}

macro_rules! params {
    () => {
        "with p as (select $1::text[] as exposed, $2::text[] as managed) "
    };
}

/// Whether relation `c` (in namespace `n`) is readable by the API's roles.
macro_rules! api_readable {
    () => {
        "(case when exists (select 1 from pg_catalog.pg_roles where rolname = 'anon')
               then pg_catalog.has_table_privilege('anon', c.oid, 'SELECT') else false end
          or case when exists (select 1 from pg_catalog.pg_roles where rolname = 'authenticated')
               then pg_catalog.has_table_privilege('authenticated', c.oid, 'SELECT') else false end)"
    };
}

/// The calls an RLS policy should wrap in `(select …)`.
macro_rules! initplan_call {
    () => {
        r"(auth\.(uid|jwt|role|email)\(\)|current_setting\()"
    };
}

pub static RULES: &[Rule] = &[
    Rule {
        name: "unindexed_foreign_keys",
        title: "Unindexed foreign keys",
        level: "INFO",
        category: "PERFORMANCE",
        description: "Identifies foreign key constraints without a covering index, which can impact database performance.",
        lint_id: "0001_unindexed_foreign_keys",
        sql: concat!(
            params!(),
            "select format('Table `%s.%s` has a foreign key `%s` without a covering index. This can lead to suboptimal query performance.', n.nspname, c.relname, k.conname),
                    jsonb_build_object('schema', n.nspname, 'name', c.relname, 'type', 'table', 'fkey_name', k.conname, 'fkey_columns', k.conkey)::text,
                    format('unindexed_foreign_keys_%s_%s_%s', n.nspname, c.relname, k.conname)
               from pg_catalog.pg_constraint k
               join pg_catalog.pg_class c on c.oid = k.conrelid
               join pg_catalog.pg_namespace n on n.oid = c.relnamespace, p
              where k.contype = 'f' and n.nspname <> all(p.managed)
                and not exists (select 1 from pg_catalog.pg_depend d where d.objid = c.oid and d.deptype = 'e')
                and not exists (
                    select 1 from pg_catalog.pg_index i
                     where i.indrelid = c.oid and i.indisvalid
                       and (string_to_array(i.indkey::text, ' ')::int2[])[1:cardinality(k.conkey)] @> k.conkey
                       and (string_to_array(i.indkey::text, ' ')::int2[])[1:cardinality(k.conkey)] <@ k.conkey)
              order by 1"
        ),
    },
    Rule {
        name: "auth_users_exposed",
        title: "Exposed Auth Users",
        level: "ERROR",
        category: "SECURITY",
        description: "Detects if auth.users is exposed to anon or authenticated roles via a view or materialized view in schemas exposed to PostgREST, potentially compromising user data security.",
        lint_id: "0002_auth_users_exposed",
        sql: concat!(
            params!(),
            "select format('View/Materialized View \"%s\" in the public schema may expose `auth.users` data to anon or authenticated roles.', c.relname),
                    jsonb_build_object('schema', n.nspname, 'name', c.relname, 'type', 'view',
                      'exposed_to', array_remove(array[
                        case when not exists (select 1 from pg_catalog.pg_roles where rolname = 'anon') then null
                             when pg_catalog.has_table_privilege('anon', c.oid, 'SELECT') then 'anon' end,
                        case when not exists (select 1 from pg_catalog.pg_roles where rolname = 'authenticated') then null
                             when pg_catalog.has_table_privilege('authenticated', c.oid, 'SELECT') then 'authenticated' end], null))::text,
                    format('auth_users_exposed_%s_%s', n.nspname, c.relname)
               from pg_catalog.pg_class c
               join pg_catalog.pg_namespace n on n.oid = c.relnamespace, p
              where c.relkind in ('v', 'm') and n.nspname = any(p.exposed) and n.nspname <> all(p.managed)
                and ",
            api_readable!(),
            "
                and not coalesce(lower(c.reloptions::text)::text[] && array['security_invoker=1', 'security_invoker=true', 'security_invoker=yes', 'security_invoker=on'], false)
                and exists (
                    select 1 from pg_catalog.pg_rewrite r
                      join pg_catalog.pg_depend d on d.classid = 'pg_catalog.pg_rewrite'::regclass and d.objid = r.oid
                     where r.ev_class = c.oid and d.refobjid = to_regclass('auth.users'))
              order by 1"
        ),
    },
    Rule {
        name: "auth_rls_initplan",
        title: "Auth RLS Initialization Plan",
        level: "WARN",
        category: "PERFORMANCE",
        description: "Detects if calls to `current_setting()` and `auth.<function>()` in RLS policies are being unnecessarily re-evaluated for each row",
        lint_id: "0003_auth_rls_initplan",
        sql: concat!(
            params!(),
            "select format('Table `%s.%s` has a row level security policy `%s` that re-evaluates current_setting() or auth.<function>() for each row. This produces suboptimal query performance at scale. Resolve the issue by replacing `auth.<function>()` with `(select auth.<function>())`. See [docs](https://supabase.com/docs/guides/database/postgres/row-level-security#call-functions-with-select) for more info.', n.nspname, c.relname, pol.polname),
                    jsonb_build_object('schema', n.nspname, 'name', c.relname, 'type', 'table')::text,
                    format('auth_rls_init_plan_%s_%s_%s', n.nspname, c.relname, pol.polname)
               from pg_catalog.pg_policy pol
               join pg_catalog.pg_class c on c.oid = pol.polrelid
               join pg_catalog.pg_namespace n on n.oid = c.relnamespace, p,
                    lateral (select coalesce(pg_catalog.pg_get_expr(pol.polqual, pol.polrelid), '') || ' ' ||
                                    coalesce(pg_catalog.pg_get_expr(pol.polwithcheck, pol.polrelid), '') as e) x
              where n.nspname <> all(p.managed)
                and regexp_count(x.e, '",
            initplan_call!(),
            "', 1, 'i') > regexp_count(x.e, 'select[\\s(]*",
            initplan_call!(),
            "', 1, 'i')
              order by 1"
        ),
    },
    Rule {
        name: "no_primary_key",
        title: "No Primary Key",
        level: "INFO",
        category: "PERFORMANCE",
        description: "Detects if a table does not have a primary key. Tables without a primary key can be inefficient to interact with at scale.",
        lint_id: "0004_no_primary_key",
        sql: concat!(
            params!(),
            "select format('Table `%s.%s` does not have a primary key', n.nspname, c.relname),
                    jsonb_build_object('schema', n.nspname, 'name', c.relname, 'type', 'table')::text,
                    format('no_primary_key_%s_%s', n.nspname, c.relname)
               from pg_catalog.pg_class c
               join pg_catalog.pg_namespace n on n.oid = c.relnamespace, p
              where c.relkind = 'r' and n.nspname <> all(p.managed)
                and not exists (select 1 from pg_catalog.pg_depend d where d.objid = c.oid and d.deptype = 'e')
                and not exists (select 1 from pg_catalog.pg_index i where i.indrelid = c.oid and i.indisprimary)
              order by 1"
        ),
    },
    Rule {
        name: "unused_index",
        title: "Unused Index",
        level: "INFO",
        category: "PERFORMANCE",
        description: "Detects if an index has never been used and may be a candidate for removal.",
        lint_id: "0005_unused_index",
        sql: concat!(
            params!(),
            "select format('Index `%s` on table `%s.%s` has not been used', s.indexrelname, s.schemaname, s.relname),
                    jsonb_build_object('schema', s.schemaname, 'name', s.relname, 'type', 'table')::text,
                    format('unused_index_%s_%s_%s', s.schemaname, s.relname, s.indexrelname)
               from pg_catalog.pg_stat_user_indexes s
               join pg_catalog.pg_index i on i.indexrelid = s.indexrelid, p
              where s.idx_scan = 0 and not i.indisunique and not i.indisprimary
                and s.schemaname <> all(p.managed)
                and not exists (select 1 from pg_catalog.pg_depend d where d.objid = s.relid and d.deptype = 'e')
              order by 1"
        ),
    },
    Rule {
        name: "multiple_permissive_policies",
        title: "Multiple Permissive Policies",
        level: "WARN",
        category: "PERFORMANCE",
        description: "Detects if multiple permissive row level security policies are present on a table for the same `role` and `action` (e.g. insert). Multiple permissive policies are suboptimal for performance as each policy must be executed for every relevant query.",
        lint_id: "0006_multiple_permissive_policies",
        sql: concat!(
            params!(),
            "select format('Table `%s.%s` has multiple permissive policies for role `%s` for action `%s`. Policies include `%s`', n.nspname, c.relname, r.rolname, a.cmd, array_agg(pol.polname order by pol.polname)),
                    jsonb_build_object('schema', n.nspname, 'name', c.relname, 'type', 'table')::text,
                    format('multiple_permissive_policies_%s_%s_%s_%s', n.nspname, c.relname, r.rolname, a.cmd)
               from pg_catalog.pg_policy pol
               join pg_catalog.pg_class c on c.oid = pol.polrelid
               join pg_catalog.pg_namespace n on n.oid = c.relnamespace
               join pg_catalog.pg_roles r on r.oid = any(pol.polroles) or pol.polroles = array[0::oid], p,
                    unnest(case pol.polcmd when 'r' then array['SELECT'] when 'a' then array['INSERT']
                                           when 'w' then array['UPDATE'] when 'd' then array['DELETE']
                                           else array['SELECT', 'INSERT', 'UPDATE', 'DELETE'] end) a(cmd)
              where c.relkind = 'r' and pol.polpermissive and n.nspname <> all(p.managed)
                and r.rolname not like 'pg\\_%' and r.rolname not like 'supabase%admin' and not r.rolbypassrls
                and not exists (select 1 from pg_catalog.pg_depend d where d.objid = c.oid and d.deptype = 'e')
              group by n.nspname, c.relname, r.rolname, a.cmd
             having count(*) > 1
              order by 1"
        ),
    },
    Rule {
        name: "policy_exists_rls_disabled",
        title: "Policy Exists RLS Disabled",
        level: "ERROR",
        category: "SECURITY",
        description: "Detects cases where row level security (RLS) policies have been created, but RLS has not been enabled for the underlying table.",
        lint_id: "0007_policy_exists_rls_disabled",
        sql: concat!(
            params!(),
            "select format('Table `%s.%s` has RLS policies but RLS is not enabled on the table. Policies include %s.', n.nspname, c.relname, array_agg(pol.polname order by pol.polname)),
                    jsonb_build_object('schema', n.nspname, 'name', c.relname, 'type', 'table')::text,
                    format('policy_exists_rls_disabled_%s_%s', n.nspname, c.relname)
               from pg_catalog.pg_policy pol
               join pg_catalog.pg_class c on c.oid = pol.polrelid
               join pg_catalog.pg_namespace n on n.oid = c.relnamespace, p
              where c.relkind = 'r' and not c.relrowsecurity and n.nspname <> all(p.managed)
                and not exists (select 1 from pg_catalog.pg_depend d where d.objid = c.oid and d.deptype = 'e')
              group by n.nspname, c.relname
              order by 1"
        ),
    },
    Rule {
        name: "rls_enabled_no_policy",
        title: "RLS Enabled No Policy",
        level: "INFO",
        category: "SECURITY",
        description: "Detects cases where row level security (RLS) has been enabled on a table but no RLS policies have been created.",
        lint_id: "0008_rls_enabled_no_policy",
        sql: concat!(
            params!(),
            "select format('Table `%s.%s` has RLS enabled, but no policies exist', n.nspname, c.relname),
                    jsonb_build_object('schema', n.nspname, 'name', c.relname, 'type', 'table')::text,
                    format('rls_enabled_no_policy_%s_%s', n.nspname, c.relname)
               from pg_catalog.pg_class c
               join pg_catalog.pg_namespace n on n.oid = c.relnamespace, p
              where c.relkind = 'r' and c.relrowsecurity and n.nspname <> all(p.managed)
                and not exists (select 1 from pg_catalog.pg_policy pol where pol.polrelid = c.oid)
                and not exists (select 1 from pg_catalog.pg_depend d where d.objid = c.oid and d.deptype = 'e')
              order by 1"
        ),
    },
    Rule {
        name: "duplicate_index",
        title: "Duplicate Index",
        level: "WARN",
        category: "PERFORMANCE",
        description: "Detects cases where two ore more identical indexes exist.",
        lint_id: "0009_duplicate_index",
        sql: concat!(
            params!(),
            "select format('Table `%s.%s` has identical indexes %s. Drop all except one of them', n.nspname, c.relname, array_agg(ic.relname order by ic.relname)),
                    jsonb_build_object('schema', n.nspname, 'name', c.relname,
                      'type', case c.relkind when 'r' then 'table' else 'materialized view' end,
                      'indexes', array_agg(ic.relname order by ic.relname))::text,
                    format('duplicate_index_%s_%s_%s', n.nspname, c.relname, array_agg(ic.relname order by ic.relname))
               from pg_catalog.pg_index i
               join pg_catalog.pg_class ic on ic.oid = i.indexrelid
               join pg_catalog.pg_class c on c.oid = i.indrelid
               join pg_catalog.pg_namespace n on n.oid = c.relnamespace, p
              where c.relkind in ('r', 'm') and n.nspname <> all(p.managed)
                and not exists (select 1 from pg_catalog.pg_depend d where d.objid = c.oid and d.deptype = 'e')
              group by n.nspname, c.relname, c.relkind, ic.relam, i.indkey::text, i.indclass::text,
                       i.indcollation::text, i.indisunique,
                       coalesce(pg_catalog.pg_get_expr(i.indexprs, i.indrelid), ''),
                       coalesce(pg_catalog.pg_get_expr(i.indpred, i.indrelid), '')
             having count(*) > 1
              order by 1"
        ),
    },
    Rule {
        name: "security_definer_view",
        title: "Security Definer View",
        level: "ERROR",
        category: "SECURITY",
        description: "Detects views defined with the SECURITY DEFINER property. These views enforce Postgres permissions and row level security policies (RLS) of the view creator, rather than that of the querying user",
        lint_id: "0010_security_definer_view",
        sql: concat!(
            params!(),
            "select format('View `%s.%s` is defined with the SECURITY DEFINER property', n.nspname, c.relname),
                    jsonb_build_object('schema', n.nspname, 'name', c.relname, 'type', 'view')::text,
                    format('security_definer_view_%s_%s', n.nspname, c.relname)
               from pg_catalog.pg_class c
               join pg_catalog.pg_namespace n on n.oid = c.relnamespace, p
              where c.relkind = 'v' and n.nspname = any(p.exposed) and n.nspname <> all(p.managed)
                and current_setting('server_version_num')::int >= 150000
                and ",
            api_readable!(),
            "
                and not exists (select 1 from pg_catalog.pg_depend d where d.objid = c.oid and d.deptype = 'e')
                and not coalesce(lower(c.reloptions::text)::text[] && array['security_invoker=1', 'security_invoker=true', 'security_invoker=yes', 'security_invoker=on'], false)
              order by 1"
        ),
    },
    Rule {
        name: "function_search_path_mutable",
        title: "Function Search Path Mutable",
        level: "WARN",
        category: "SECURITY",
        description: "Detects functions where the search_path parameter is not set.",
        lint_id: "0011_function_search_path_mutable",
        sql: concat!(
            params!(),
            "select format('Function `%s.%s` has a role mutable search_path', n.nspname, f.proname),
                    jsonb_build_object('schema', n.nspname, 'name', f.proname, 'type', 'function')::text,
                    format('function_search_path_mutable_%s_%s_%s', n.nspname, f.proname, md5(f.prosrc))
               from pg_catalog.pg_proc f
               join pg_catalog.pg_namespace n on n.oid = f.pronamespace, p
              where n.nspname <> all(p.managed)
                and not exists (select 1 from pg_catalog.pg_depend d where d.objid = f.oid and d.deptype = 'e')
                and not exists (select 1 from unnest(coalesce(f.proconfig, '{}')) s where s like 'search_path=%')
              order by 1, 3"
        ),
    },
    Rule {
        name: "rls_disabled_in_public",
        title: "RLS Disabled in Public",
        level: "ERROR",
        category: "SECURITY",
        description: "Detects cases where row level security (RLS) has not been enabled on tables in schemas exposed to PostgREST",
        lint_id: "0013_rls_disabled_in_public",
        sql: concat!(
            params!(),
            "select format('Table `%s.%s` is public, but RLS has not been enabled.', n.nspname, c.relname),
                    jsonb_build_object('schema', n.nspname, 'name', c.relname, 'type', 'table')::text,
                    format('rls_disabled_in_public_%s_%s', n.nspname, c.relname)
               from pg_catalog.pg_class c
               join pg_catalog.pg_namespace n on n.oid = c.relnamespace, p
              where c.relkind = 'r' and not c.relrowsecurity
                and n.nspname = any(p.exposed) and n.nspname <> all(p.managed)
                and ",
            api_readable!(),
            "
              order by 1"
        ),
    },
    Rule {
        name: "extension_in_public",
        title: "Extension in Public",
        level: "WARN",
        category: "SECURITY",
        description: "Detects extensions installed in the `public` schema.",
        lint_id: "0014_extension_in_public",
        sql: concat!(
            params!(),
            "select format('Extension `%s` is installed in the public schema. Move it to another schema.', e.extname),
                    jsonb_build_object('schema', e.extnamespace::regnamespace::text, 'name', e.extname, 'type', 'extension')::text,
                    format('extension_in_public_%s', e.extname)
               from pg_catalog.pg_extension e, p
              where e.extname <> 'plpgsql' and e.extnamespace::regnamespace::text = 'public'
              order by 1"
        ),
    },
    Rule {
        name: "rls_references_user_metadata",
        title: "RLS references user metadata",
        level: "ERROR",
        category: "SECURITY",
        description: "Detects when Supabase Auth user_metadata is referenced insecurely in a row level security (RLS) policy.",
        lint_id: "0015_rls_references_user_metadata",
        sql: concat!(
            params!(),
            "select format('Table `%s.%s` has a row level security policy `%s` that references Supabase Auth `user_metadata`. `user_metadata` is editable by end users and should never be used in a security context.', n.nspname, c.relname, pol.polname),
                    jsonb_build_object('schema', n.nspname, 'name', c.relname, 'type', 'table')::text,
                    format('rls_references_user_metadata_%s_%s_%s', n.nspname, c.relname, pol.polname)
               from pg_catalog.pg_policy pol
               join pg_catalog.pg_class c on c.oid = pol.polrelid
               join pg_catalog.pg_namespace n on n.oid = c.relnamespace, p
              where n.nspname <> all(p.managed)
                and (coalesce(pg_catalog.pg_get_expr(pol.polqual, pol.polrelid), '') || ' ' ||
                     coalesce(pg_catalog.pg_get_expr(pol.polwithcheck, pol.polrelid), '')) ~* 'user_metadata'
              order by 1"
        ),
    },
    Rule {
        name: "materialized_view_in_api",
        title: "Materialized View in API",
        level: "WARN",
        category: "SECURITY",
        description: "Detects materialized views that are accessible over the Data APIs.",
        lint_id: "0016_materialized_view_in_api",
        sql: concat!(
            params!(),
            "select format('Materialized view `%s.%s` is selectable by anon or authenticated roles', n.nspname, c.relname),
                    jsonb_build_object('schema', n.nspname, 'name', c.relname, 'type', 'materialized view')::text,
                    format('materialized_view_in_api_%s_%s', n.nspname, c.relname)
               from pg_catalog.pg_class c
               join pg_catalog.pg_namespace n on n.oid = c.relnamespace, p
              where c.relkind = 'm' and n.nspname = any(p.exposed) and n.nspname <> all(p.managed)
                and not exists (select 1 from pg_catalog.pg_depend d where d.objid = c.oid and d.deptype = 'e')
                and ",
            api_readable!(),
            "
              order by 1"
        ),
    },
    Rule {
        name: "foreign_table_in_api",
        title: "Foreign Table in API",
        level: "WARN",
        category: "SECURITY",
        description: "Detects foreign tables that are accessible over APIs. Foreign tables do not respect row level security policies.",
        lint_id: "0017_foreign_table_in_api",
        sql: concat!(
            params!(),
            "select format('Foreign table `%s.%s` is accessible over APIs', n.nspname, c.relname),
                    jsonb_build_object('schema', n.nspname, 'name', c.relname, 'type', 'foreign table')::text,
                    format('foreign_table_in_api_%s_%s', n.nspname, c.relname)
               from pg_catalog.pg_class c
               join pg_catalog.pg_namespace n on n.oid = c.relnamespace, p
              where c.relkind = 'f' and n.nspname = any(p.exposed) and n.nspname <> all(p.managed)
                and not exists (select 1 from pg_catalog.pg_depend d where d.objid = c.oid and d.deptype = 'e')
                and ",
            api_readable!(),
            "
              order by 1"
        ),
    },
    Rule {
        name: "anon_security_definer_function_executable",
        title: "SECURITY DEFINER Function Executable by Anon",
        level: "WARN",
        category: "SECURITY",
        description: "Detects SECURITY DEFINER functions that the `anon` role has EXECUTE on. A SECURITY DEFINER function runs with the privileges of its owner and bypasses RLS, so granting EXECUTE to `anon` lets any holder of the public anon key invoke a privileged operation via PostgREST `/rest/v1/rpc/<name>` (and via `/graphql/v1` when pg_graphql is installed and the function's return type is supported). See lint 0029 for the equivalent check against the `authenticated` role.",
        lint_id: "0028_anon_security_definer_function_executable",
        sql: concat!(
            params!(),
            "select format('SECURITY DEFINER function `%s.%s(%s)` is executable by the `anon` role. It runs with the privileges of its owner and bypasses RLS, so any unauthenticated caller can invoke it via `/rest/v1/rpc/%s`.', n.nspname, f.proname, pg_catalog.pg_get_function_identity_arguments(f.oid), f.proname),
                    jsonb_build_object('schema', n.nspname, 'name', f.proname, 'arguments', pg_catalog.pg_get_function_identity_arguments(f.oid),
                      'language', l.lanname, 'security_definer', true)::text,
                    format('anon_security_definer_function_executable_%s_%s_%s', n.nspname, f.proname, pg_catalog.pg_get_function_identity_arguments(f.oid))
               from pg_catalog.pg_proc f
               join pg_catalog.pg_namespace n on n.oid = f.pronamespace
               join pg_catalog.pg_language l on l.oid = f.prolang, p
              where f.prosecdef and n.nspname <> all(p.managed)
                and case when exists (select 1 from pg_catalog.pg_roles where rolname = 'anon')
                         then pg_catalog.has_function_privilege('anon', f.oid, 'EXECUTE') else false end
              order by 1"
        ),
    },
    Rule {
        name: "authenticated_security_definer_function_executable",
        title: "SECURITY DEFINER Function Executable by Authenticated",
        level: "WARN",
        category: "SECURITY",
        description: "Detects SECURITY DEFINER functions that the `authenticated` role has EXECUTE on. A SECURITY DEFINER function runs with the privileges of its owner and bypasses RLS, so granting EXECUTE to `authenticated` lets any signed-up user invoke a privileged operation via PostgREST `/rest/v1/rpc/<name>` (and via `/graphql/v1` when pg_graphql is installed and the function's return type is supported). Under open or auto-confirm signup `authenticated` is anyone with a throwaway email. See lint 0028 for the equivalent check against the `anon` role.",
        lint_id: "0029_authenticated_security_definer_function_executable",
        sql: concat!(
            params!(),
            "select format('SECURITY DEFINER function `%s.%s(%s)` is executable by the `authenticated` role. It runs with the privileges of its owner and bypasses RLS, so any signed-up user can invoke it via `/rest/v1/rpc/%s`.', n.nspname, f.proname, pg_catalog.pg_get_function_identity_arguments(f.oid), f.proname),
                    jsonb_build_object('schema', n.nspname, 'name', f.proname, 'arguments', pg_catalog.pg_get_function_identity_arguments(f.oid),
                      'language', l.lanname, 'security_definer', true)::text,
                    format('authenticated_security_definer_function_executable_%s_%s_%s', n.nspname, f.proname, pg_catalog.pg_get_function_identity_arguments(f.oid))
               from pg_catalog.pg_proc f
               join pg_catalog.pg_namespace n on n.oid = f.pronamespace
               join pg_catalog.pg_language l on l.oid = f.prolang, p
              where f.prosecdef and n.nspname <> all(p.managed)
                and case when exists (select 1 from pg_catalog.pg_roles where rolname = 'authenticated')
                         then pg_catalog.has_function_privilege('authenticated', f.oid, 'EXECUTE') else false end
              order by 1"
        ),
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    fn lint(name: &str, level: &str) -> Lint {
        let rule = RULES.iter().find(|r| r.name == name).unwrap();
        Lint {
            level: level.into(),
            ..Lint::of(rule, "d".into(), Some("{\"a\":1}"), "k".into())
        }
    }

    #[test]
    fn every_rule_is_named_once_with_a_known_level_and_both_parameters() {
        let mut names: Vec<&str> = RULES.iter().map(|r| r.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), RULES.len());
        for r in RULES {
            assert!(rank(r.level).is_some(), "{}", r.name);
            assert!(["SECURITY", "PERFORMANCE"].contains(&r.category));
            assert!(r.sql.contains("$1::text[]") && r.sql.contains("$2::text[]"));
            assert!(r.remediation().ends_with(r.lint_id));
            assert!(r.lint_id.ends_with(r.name), "{}", r.lint_id);
        }
    }

    #[test]
    fn types_levels_and_failing() {
        assert_eq!(rules_of("all").count(), RULES.len());
        assert!(rules_of("security").all(|r| r.category == "SECURITY"));
        assert!(rules_of("performance").any(|r| r.name == "unindexed_foreign_keys"));
        let lints = vec![
            lint("no_primary_key", "INFO"),
            lint("duplicate_index", "WARN"),
            lint("rls_disabled_in_public", "ERROR"),
        ];
        assert_eq!(at_least(lints.clone(), "warn").len(), 2);
        assert_eq!(at_least(lints.clone(), "info").len(), 3);
        assert_eq!(
            at_least(lints.clone(), "error")[0].name,
            "rls_disabled_in_public"
        );
        assert_eq!(failure(&lints, "none"), None);
        assert_eq!(
            failure(&lints, "error").as_deref(),
            Some("fail-on is set to error, non-zero exit")
        );
        assert_eq!(failure(&lints[..2], "error"), None);
        assert!(failure(&lints[..1], "info").is_some());
    }

    #[test]
    fn json_as_the_cli_prints_it() {
        let v = serde_json::to_value(lint("no_primary_key", "INFO")).unwrap();
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(|k| k.as_str()).collect();
        for k in [
            "name",
            "title",
            "level",
            "facing",
            "categories",
            "description",
            "detail",
            "remediation",
            "metadata",
            "cache_key",
        ] {
            assert!(keys.contains(&k), "{k}");
        }
        assert_eq!(v["categories"], serde_json::json!(["PERFORMANCE"]));
        assert_eq!(
            v["remediation"],
            "https://supabase.com/docs/guides/database/database-linter?lint=0004_no_primary_key"
        );
        let t = table(&[lint("no_primary_key", "INFO")]);
        assert!(t.contains("LEVEL") && t.contains("no_primary_key"), "{t}");
    }
}
