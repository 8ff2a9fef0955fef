//! `db advisors`: the lints Supabase's dashboard shows (its splinter project), under the same
//! names, titles, levels, categories and remediation links, each found by a catalog query of
//! our own. This module is pure: the rules (their SQL as text), which lints a `--type` and
//! `--level` keep, whether `--fail-on` fails, and the JSON and table output. The queries run
//! at the edge (`supagate db advisors`), each with two parameters: `$1` the schemas the Data
//! API exposes, `$2` the schemas Supabase manages (left out, as splinter leaves them out).
//! Each query returns the lint's detail, its metadata (JSON text) and its cache key (and the
//! level, for the one lint whose level depends on the row). A few rules need more than the
//! catalogs: the project's anonymous sign-ins (which the dashboard reads from hosted Auth), or a
//! relation only some databases have ([`Needs`]).

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
    /// The dashboard's page about it (`…database-linter?lint=<id>`), as splinter links it.
    pub lint_id: &'static str,
    /// Splinter's remediation when it is advice rather than the dashboard's page.
    pub advice: Option<&'static str>,
    /// What the rule needs to run at all.
    pub needs: Needs,
    /// Rows of (detail, metadata as JSON text, cache key), and a fourth column, the level, when
    /// it depends on the row; `$1` exposed schemas, `$2` managed.
    pub sql: &'static str,
}

/// What a rule needs beyond the catalogs every database has.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Needs {
    Nothing,
    /// The project allows anonymous sign-ins (`[auth] enable_anonymous_sign_ins`): the dashboard
    /// reads it from the hosted Auth's settings.
    AnonymousSignIns,
    /// A relation that only some databases have (e.g. `storage.buckets`).
    Relation(&'static str),
}

impl Rule {
    pub fn remediation(&self) -> String {
        match self.advice {
            Some(advice) => advice.to_string(),
            None => format!(
                "https://supabase.com/docs/guides/database/database-linter?lint={}",
                self.lint_id
            ),
        }
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

impl Lint {
    /// The row's own level, for a rule whose level depends on the row (an unknown one is not
    /// taken).
    pub fn at(mut self, level: Option<String>) -> Lint {
        if let Some(l) = level.filter(|l| rank(l).is_some()) {
            self.level = l;
        }
        self
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

/// Whether a policy's deparsed expression is always true (`true`, `1 = 1`), as splinter reads it:
/// lowercased, without blanks.
macro_rules! always_true {
    ($e:literal) => {
        concat!(
            "coalesce(regexp_replace(lower(",
            $e,
            r"), '[ \n\t]', '', 'g') in ('true', '(true)', '1=1', '(1=1)'), false)"
        )
    };
}

/// What pg_graphql shows `role` (a relation it can read a column of, while the extension is
/// installed): the metadata, cache key and conditions after a rule's detail.
macro_rules! graphql_exposed {
    ($role:literal) => {
        concat!(
            "
                    jsonb_build_object('schema', n.nspname, 'name', c.relname, 'type', k.kind)::text,
                    format('pg_graphql_",
            $role,
            "_table_exposed_%s_%s', n.nspname, c.relname)
               from pg_catalog.pg_class c
               join pg_catalog.pg_namespace n on n.oid = c.relnamespace, p,
                    lateral (select case c.relkind when 'r' then 'table' when 'v' then 'view'
                                     when 'm' then 'materialized view' else 'foreign table' end as kind) k
              where c.relkind in ('r', 'v', 'm', 'f') and n.nspname <> all(p.managed)
                and exists (select 1 from pg_catalog.pg_extension e where e.extname = 'pg_graphql')
                and case when exists (select 1 from pg_catalog.pg_roles where rolname = '",
            $role,
            "')
                         then exists (select 1 from pg_catalog.pg_attribute a
                                       where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
                                         and pg_catalog.has_column_privilege('",
            $role,
            "', c.oid, a.attnum, 'SELECT'))
                         else false end
              order by n.nspname, c.relname"
        )
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
        advice: None,
        needs: Needs::Nothing,
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
        advice: None,
        needs: Needs::Nothing,
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
        advice: None,
        needs: Needs::Nothing,
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
        advice: None,
        needs: Needs::Nothing,
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
        advice: None,
        needs: Needs::Nothing,
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
        advice: None,
        needs: Needs::Nothing,
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
        advice: None,
        needs: Needs::Nothing,
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
        advice: None,
        needs: Needs::Nothing,
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
        advice: None,
        needs: Needs::Nothing,
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
        advice: None,
        needs: Needs::Nothing,
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
        advice: None,
        needs: Needs::Nothing,
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
        name: "auth_allow_anonymous_sign_ins",
        title: "Anonymous Access Policies",
        level: "WARN",
        category: "SECURITY",
        description: "Detects row level security (RLS) policies that allow access to anonymous users.",
        lint_id: "0012_auth_allow_anonymous_sign_ins",
        advice: None,
        needs: Needs::AnonymousSignIns,
        // An anonymous user's session is `authenticated`: a policy applies to it when it names
        // `public` or a role `authenticated` is a member of, unless it asks for `is_anonymous`.
        // Policies on `storage.objects` are the project's own, as the dashboard shows them.
        sql: concat!(
            params!(),
            r#"select format('Table `%s.%s` has policies enforced on roles that allow access to anonymous users. Policies include `%s`', n.nspname, c.relname, array_agg(pol.polname order by pol.polname)),
                    jsonb_build_object('schema', n.nspname, 'name', c.relname, 'type', 'table')::text,
                    format('auth_allow_anonymous_sign_ins_%s_%s', n.nspname, c.relname)
               from pg_catalog.pg_policy pol
               join pg_catalog.pg_class c on c.oid = pol.polrelid
               join pg_catalog.pg_namespace n on n.oid = c.relnamespace, p
              where (n.nspname <> all(p.managed) or n.nspname = 'storage')
                and case when exists (select 1 from pg_catalog.pg_roles where rolname = 'authenticated')
                         then exists (select 1 from unnest(pol.polroles) r(id)
                                       where r.id = 0 or pg_catalog.pg_has_role('authenticated', r.id, 'MEMBER'))
                         else false end
                and replace(coalesce(pg_catalog.pg_get_expr(pol.polqual, pol.polrelid), '') || ' ' ||
                            coalesce(pg_catalog.pg_get_expr(pol.polwithcheck, pol.polrelid), ''), ' ', '')
                    not like '%auth.jwt()%->>%is_anonymous%'
              group by n.nspname, c.relname
              order by 1"#
        ),
    },
    Rule {
        name: "rls_disabled_in_public",
        title: "RLS Disabled in Public",
        level: "ERROR",
        category: "SECURITY",
        description: "Detects cases where row level security (RLS) has not been enabled on tables in schemas exposed to PostgREST",
        lint_id: "0013_rls_disabled_in_public",
        advice: None,
        needs: Needs::Nothing,
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
        advice: None,
        needs: Needs::Nothing,
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
        advice: None,
        needs: Needs::Nothing,
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
        advice: None,
        needs: Needs::Nothing,
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
        advice: None,
        needs: Needs::Nothing,
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
        name: "unsupported_reg_types",
        title: "Unsupported reg types",
        level: "WARN",
        category: "SECURITY",
        description: "Identifies columns using unsupported reg* types outside pg_catalog schema, which prevents database upgrades using pg_upgrade.",
        lint_id: "unsupported_reg_types",
        advice: None,
        needs: Needs::Nothing,
        sql: concat!(
            params!(),
            r#"select format('Table `%s.%s` has a column `%s` with unsupported reg* type `%s`.', n.nspname, c.relname, a.attname, t.typname),
                    jsonb_build_object('schema', n.nspname, 'name', c.relname, 'column', a.attname, 'type', 'table')::text,
                    format('unsupported_reg_types_%s_%s_%s', n.nspname, c.relname, a.attname)
               from pg_catalog.pg_attribute a
               join pg_catalog.pg_class c on c.oid = a.attrelid
               join pg_catalog.pg_namespace n on n.oid = c.relnamespace
               join pg_catalog.pg_type t on t.oid = a.atttypid
               join pg_catalog.pg_namespace tn on tn.oid = t.typnamespace, p
              where a.attnum > 0 and not a.attisdropped and tn.nspname = 'pg_catalog'
                and t.typname in ('regcollation', 'regconfig', 'regdictionary', 'regnamespace',
                                  'regoper', 'regoperator', 'regproc', 'regprocedure')
                and n.nspname <> all(p.managed)
              order by 1"#
        ),
    },
    Rule {
        name: "insecure_queue_exposed_in_api",
        title: "Insecure Queue Exposed in API",
        level: "ERROR",
        category: "SECURITY",
        description: "Detects cases where an insecure Queue is exposed over Data APIs",
        lint_id: "0019_insecure_queue_exposed_in_api",
        advice: None,
        needs: Needs::Nothing,
        // Queues are exposed through `pgmq_public`'s functions; their tables live in `pgmq`.
        sql: concat!(
            params!(),
            r#"select format('Table `%s.%s` is public, but RLS has not been enabled.', n.nspname, c.relname),
                    jsonb_build_object('schema', n.nspname, 'name', c.relname, 'type', 'table')::text,
                    format('rls_disabled_in_public_%s_%s', n.nspname, c.relname)
               from pg_catalog.pg_class c
               join pg_catalog.pg_namespace n on n.oid = c.relnamespace, p
              where n.nspname = 'pgmq' and c.relname like 'q\_%' and c.relkind in ('r', 'p')
                and not c.relrowsecurity and 'pgmq_public' = any(p.exposed)
                and "#,
            api_readable!(),
            "
              order by 1"
        ),
    },
    Rule {
        name: "table_bloat",
        title: "Table Bloat",
        level: "INFO",
        category: "PERFORMANCE",
        description: "Detects if a table has excess bloat and may benefit from maintenance operations like vacuum full or cluster.",
        lint_id: "0020_table_bloat",
        advice: Some(
            "Consider running vacuum full (WARNING: incurs downtime) and tweaking autovacuum settings to reduce bloat.",
        ),
        needs: Needs::Nothing,
        // The pages a heap table would need for its rows (from the planner's statistics: a
        // 23-byte tuple header, the null bitmap, the columns' average widths, 4-byte alignment,
        // a 4-byte line pointer) against the pages it has: over 70 times as many, and over
        // 20 MB of them wasted.
        sql: concat!(
            params!(),
            r#", w as (
                select s.schemaname, s.tablename,
                       sum((1 - s.null_frac) * s.avg_width) as width,
                       max(s.null_frac) as null_frac,
                       24 + count(*) filter (where s.null_frac <> 0) / 8 as null_header
                  from pg_catalog.pg_stats s, p
                 where s.schemaname <> all(p.managed)
                 group by s.schemaname, s.tablename),
            e as (
                select w.schemaname, w.tablename, c.relpages,
                       current_setting('block_size')::numeric as block,
                       ceil(c.reltuples * (ceil((w.width + 24) / 4) * 4 + w.null_frac * ceil(w.null_header / 4.0) * 4 + 4)
                            / (current_setting('block_size')::numeric - 20)) as needed
                  from w
                  join pg_catalog.pg_namespace n on n.nspname = w.schemaname
                  join pg_catalog.pg_class c on c.relnamespace = n.oid and c.relname = w.tablename
                 where c.relkind = 'r' and c.relam = (select a.oid from pg_catalog.pg_am a where a.amname = 'heap'))
            select format('Table `%s`.`%s` has excessive bloat', e.schemaname, e.tablename),
                   jsonb_build_object('schema', e.schemaname, 'name', e.tablename, 'type', 'table')::text,
                   format('table_bloat_%s_%s', e.schemaname, e.tablename)
              from e
             where e.needed > 0 and round((e.relpages / e.needed)::numeric, 1) > 70.0
               and e.relpages >= e.needed and e.block * (e.relpages - e.needed) > 20 * 1024 * 1024
             order by e.schemaname, e.tablename"#
        ),
    },
    Rule {
        name: "fkey_to_auth_unique",
        title: "Foreign Key to Auth Unique Constraint",
        level: "ERROR",
        category: "SECURITY",
        description: "Detects user defined foreign keys to unique constraints in the auth schema.",
        lint_id: "0021_fkey_to_auth_unique",
        advice: Some("Drop the foreign key constraint that references the auth schema."),
        needs: Needs::Nothing,
        sql: concat!(
            params!(),
            r#"select format('Table `%s`.`%s` has a foreign key `%s` referencing an auth unique constraint', n.nspname, c.relname, k.conname),
                    jsonb_build_object('schema', n.nspname, 'name', c.relname, 'foreign_key', k.conname)::text,
                    format('fkey_to_auth_unique_%s_%s_%s', n.nspname, c.relname, k.conname)
               from pg_catalog.pg_constraint k
               join pg_catalog.pg_class c on c.oid = k.conrelid
               join pg_catalog.pg_namespace n on n.oid = c.relnamespace
               join pg_catalog.pg_class rc on rc.oid = k.confrelid
               join pg_catalog.pg_namespace rn on rn.oid = rc.relnamespace
               join pg_catalog.pg_index i on i.indexrelid = k.conindid, p
              where k.contype = 'f' and rn.nspname = 'auth' and i.indisunique and not i.indisprimary
                and n.nspname <> all(p.managed)
              order by 1"#
        ),
    },
    Rule {
        name: "extension_versions_outdated",
        title: "Extension Versions Outdated",
        level: "WARN",
        category: "SECURITY",
        description: "Detects extensions that are not using the default (recommended) version.",
        lint_id: "0022_extension_versions_outdated",
        advice: None,
        needs: Needs::Nothing,
        // An installed version the server no longer ships (left by pg_upgrade) is not counted.
        sql: concat!(
            params!(),
            r#"select format('Extension `%s` is using version `%s` but version `%s` is available. Using outdated extension versions may expose the database to security vulnerabilities.', x.name, x.installed_version, x.default_version),
                    jsonb_build_object('extension_name', x.name, 'installed_version', x.installed_version, 'default_version', x.default_version)::text,
                    format('extension_versions_outdated_%s_%s', x.name, x.installed_version)
               from pg_catalog.pg_available_extensions x, p
              where x.installed_version is not null and x.default_version is not null
                and x.installed_version <> x.default_version
                and exists (select 1 from pg_catalog.pg_available_extension_versions v
                             where v.name = x.name and v.installed)
              order by x.name"#
        ),
    },
    Rule {
        name: "sensitive_columns_exposed",
        title: "Sensitive Columns Exposed",
        level: "ERROR",
        category: "SECURITY",
        description: "Detects tables exposed via API that contain columns with potentially sensitive data (PII, credentials, financial info) without RLS protection.",
        lint_id: "0023_sensitive_columns_exposed",
        advice: None,
        needs: Needs::Nothing,
        sql: concat!(
            params!(),
            r#", hit as (
                select n.nspname::text as schema_name, c.relname::text as table_name, a.attname::text as column_name,
                       replace(lower(a.attname), '-', '_') as pattern
                  from pg_catalog.pg_class c
                  join pg_catalog.pg_namespace n on n.oid = c.relnamespace
                  join pg_catalog.pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped, p
                 where c.relkind = 'r' and not c.relrowsecurity
                   and n.nspname = any(p.exposed) and n.nspname <> all(p.managed)
                   and replace(lower(a.attname), '-', '_') = any (array[
                     'password', 'passwd', 'pwd', 'passphrase', 'secret', 'secret_key', 'private_key',
                     'api_key', 'apikey', 'auth_key', 'token', 'jwt', 'access_token', 'refresh_token',
                     'oauth_token', 'session_token', 'bearer_token', 'auth_code', 'session_id',
                     'session_key', 'session_secret', 'recovery_code', 'backup_code',
                     'verification_code', 'otp', 'two_factor', '2fa_secret', '2fa_code',
                     'ssn', 'social_security', 'social_security_number', 'driver_license',
                     'drivers_license', 'license_number', 'passport_number', 'passport_id',
                     'national_id', 'tax_id',
                     'credit_card', 'card_number', 'cvv', 'cvc', 'cvn', 'bank_account',
                     'account_number', 'routing_number', 'iban', 'swift_code', 'bic',
                     'health_record', 'medical_record', 'patient_id', 'insurance_number',
                     'health_insurance', 'medical_insurance', 'treatment',
                     'mac_address', 'macaddr', 'imei', 'device_uuid',
                     'pgp_key', 'gpg_key', 'ssh_key', 'certificate', 'license_key', 'activation_key',
                     'facial_recognition'])
                   and "#,
            api_readable!(),
            r#")
            select format('Table `%s.%s` is exposed via API without RLS and contains potentially sensitive column(s): %s. This may lead to data exposure.', schema_name, table_name, string_agg(distinct column_name, ', ' order by column_name)),
                   jsonb_build_object('schema', schema_name, 'name', table_name, 'type', 'table',
                     'sensitive_columns', array_agg(distinct column_name order by column_name),
                     'matched_patterns', array_agg(distinct pattern order by pattern))::text,
                   format('sensitive_columns_exposed_%s_%s', schema_name, table_name)
              from hit
             group by schema_name, table_name
             order by schema_name, table_name"#
        ),
    },
    Rule {
        name: "rls_policy_always_true",
        title: "RLS Policy Always True",
        level: "WARN",
        category: "SECURITY",
        description: "Detects RLS policies that use overly permissive expressions like `USING (true)` or `WITH CHECK (true)` for UPDATE, DELETE, or INSERT operations. SELECT policies with `USING (true)` are intentionally excluded as this pattern is often used deliberately for public read access.",
        lint_id: "0024_permissive_rls_policy",
        advice: None,
        needs: Needs::Nothing,
        // Permissive policies of RLS-enabled tables that apply to everyone, `anon` or
        // `authenticated`: a USING that is always true (or absent) for writes and deletes, a WITH
        // CHECK that is always true, absent on INSERT, or absent beside an always-true USING.
        sql: concat!(
            params!(),
            r#", pol as (
                select n.nspname as schema_name, c.relname as table_name, x.polname as policy_name,
                       (select array_agg(r::regrole::text) from unnest(x.polroles) r) as roles,
                       case x.polcmd when 'r' then 'SELECT' when 'a' then 'INSERT' when 'w' then 'UPDATE'
                                     when 'd' then 'DELETE' else 'ALL' end as command,
                       pg_catalog.pg_get_expr(x.polqual, x.polrelid) as qual,
                       pg_catalog.pg_get_expr(x.polwithcheck, x.polrelid) as with_check
                  from pg_catalog.pg_policy x
                  join pg_catalog.pg_class c on c.oid = x.polrelid
                  join pg_catalog.pg_namespace n on n.oid = c.relnamespace, p
                 where c.relkind = 'r' and c.relrowsecurity and x.polpermissive
                   and n.nspname <> all(p.managed)
                   and (x.polroles = array[0::oid]
                        or exists (select 1 from unnest(x.polroles) r where r::regrole::text in ('anon', 'authenticated')))),
            t as (
                select pol.*,
                       pol.command in ('UPDATE', 'DELETE', 'ALL')
                         and (pol.qual is null or "#,
            always_true!("pol.qual"),
            r#") as open_using,
                       "#,
            always_true!("pol.with_check"),
            r#" or (pol.with_check is null and (pol.command = 'INSERT'
                         or (pol.command in ('UPDATE', 'ALL') and "#,
            always_true!("pol.qual"),
            r#"))) as open_check
                  from pol)
            select format('Table `%s.%s` has an RLS policy `%s` for `%s` that allows unrestricted access%s. This effectively bypasses row-level security for %s.',
                          schema_name, table_name, policy_name, command,
                          case when open_using and open_check then ' (both USING and WITH CHECK are always true)'
                               when open_using then ' (USING clause is always true)'
                               else ' (WITH CHECK clause is always true)' end,
                          array_to_string(roles, ', ')),
                   jsonb_build_object('schema', schema_name, 'name', table_name, 'type', 'table',
                     'policy_name', policy_name, 'command', command, 'roles', roles, 'qual', qual,
                     'with_check', with_check, 'permissive_using', open_using,
                     'permissive_with_check', open_check)::text,
                   format('rls_policy_always_true_%s_%s_%s', schema_name, table_name, policy_name)
              from t
             where open_using or open_check
             order by schema_name, table_name, policy_name"#
        ),
    },
    Rule {
        name: "pg17_deprecated_extensions",
        title: "PG17 Deprecated Extensions",
        level: "WARN",
        category: "SECURITY",
        description: "Detects extensions that are deprecated in PostgreSQL 17 images.",
        lint_id: "0025_pg17_deprecated_extensions",
        advice: None,
        needs: Needs::Nothing,
        // A warning ahead of an upgrade: Supabase's 17 images do not ship these.
        sql: concat!(
            params!(),
            r#"select format('Extension `%s` is deprecated in PostgreSQL 17 images. Consider removing or replacing it before upgrading.', e.extname),
                    jsonb_build_object('extension_name', e.extname)::text,
                    format('pg17_deprecated_extension_%s', e.extname)
               from pg_catalog.pg_extension e, p
              where e.extname in ('plv8', 'timescaledb', 'adminpack')
              order by 1"#
        ),
    },
    Rule {
        name: "public_bucket_allows_listing",
        title: "Public Bucket Allows Listing",
        level: "WARN",
        category: "SECURITY",
        description: "Detects public storage buckets with a broad SELECT policy on `storage.objects`, which allows clients to list all files in the bucket.",
        lint_id: "0025_public_bucket_allows_listing",
        advice: None,
        needs: Needs::Relation("storage.buckets"),
        // Broad: no condition, an always-true one, or only `bucket_id = '<the bucket>'`.
        sql: concat!(
            params!(),
            r#", hit as (
                select b.id, b.name, pp.policyname::text as policy
                  from storage.buckets b
                  join pg_catalog.pg_policies pp
                    on pp.schemaname = 'storage' and pp.tablename = 'objects'
                   and pp.cmd in ('SELECT', 'ALL') and pp.permissive = 'PERMISSIVE'
                   and pp.roles && array['public', 'anon', 'authenticated']::name[], p
                 where b.public
                   and (pp.qual is null or "#,
            always_true!("pp.qual"),
            r#"
                        or (regexp_match(regexp_replace(pp.qual, '^[\s(]+|[\s)]+$', '', 'g'),
                                         '^bucket_id\s*=\s*(''(?:[^'']|'''')*'')(?:\s*::\s*[[:alnum:]_.]+)?$', 'i'))[1]
                           = '''' || replace(b.id, '''', '''''') || ''''))
            select format('Public bucket `%s` has %s broad SELECT %s on `storage.objects` (%s), allowing clients to list all files. Public buckets don''t need this for object URL access and it may expose more data than intended.',
                          hit.name, count(*), case when count(*) = 1 then 'policy' else 'policies' end,
                          array_to_string(array_agg(hit.policy order by hit.policy), ', ')),
                   jsonb_build_object('schema', 'storage', 'name', hit.name, 'type', 'bucket',
                     'bucket_id', hit.id, 'bucket_name', hit.name,
                     'policy_names', array_agg(hit.policy order by hit.policy), 'policy_count', count(*))::text,
                   format('public_bucket_allows_listing_%s', hit.id)
              from hit
             group by hit.id, hit.name
             order by hit.id"#
        ),
    },
    Rule {
        name: "pg_graphql_anon_table_exposed",
        title: "Public Can See Object in GraphQL Schema",
        level: "WARN",
        category: "SECURITY",
        description: "Detects tables, views, materialized views, and foreign tables that are visible in the GraphQL schema to anyone using your public anon key. Revoke `SELECT` from `anon` for objects that should not be discoverable before sign-in, and check lint 0027 for the matching signed-in-user exposure.",
        lint_id: "0026_pg_graphql_anon_table_exposed",
        advice: None,
        needs: Needs::Nothing,
        sql: concat!(
            params!(),
            r#"select format('%s `%s.%s` is visible in the GraphQL schema because the `anon` role can `SELECT` it. Revoke `SELECT` from `anon` if it should not be discoverable without signing in.', k.kind, n.nspname, c.relname),"#,
            graphql_exposed!("anon"),
        ),
    },
    Rule {
        name: "pg_graphql_authenticated_table_exposed",
        title: "Signed-In Users Can See Object in GraphQL Schema",
        level: "WARN",
        category: "SECURITY",
        description: "Detects tables, views, materialized views, and foreign tables that are visible in the GraphQL schema to signed-in users. Revoke `SELECT` from `authenticated` for objects that signed-in users should not discover, and check lint 0026 for the matching public exposure.",
        lint_id: "0027_pg_graphql_authenticated_table_exposed",
        advice: None,
        needs: Needs::Nothing,
        sql: concat!(
            params!(),
            r#"select format('%s `%s.%s` is visible in the GraphQL schema to signed-in users because the `authenticated` role can `SELECT` it. Revoke `SELECT` from `authenticated` if it should not be discoverable to every account.', k.kind, n.nspname, c.relname),"#,
            graphql_exposed!("authenticated"),
        ),
    },
    Rule {
        name: "anon_security_definer_function_executable",
        title: "Public Can Execute SECURITY DEFINER Function",
        level: "WARN",
        category: "SECURITY",
        description: "Detects `SECURITY DEFINER` functions that are callable without signing in. Revoke `EXECUTE`, switch the function to `SECURITY INVOKER`, or move it out of your exposed API schema if it is not meant to be public.",
        lint_id: "0028_anon_security_definer_function_executable",
        advice: None,
        needs: Needs::Nothing,
        sql: concat!(
            params!(),
            "select format('Function `%s.%s(%s)` can be executed by the `anon` role as a `SECURITY DEFINER` function via `/rest/v1/rpc/%s`. Revoke `EXECUTE` or switch it to `SECURITY INVOKER` if that is not intentional.', n.nspname, f.proname, pg_catalog.pg_get_function_identity_arguments(f.oid), f.proname),
                    jsonb_build_object('schema', n.nspname, 'name', f.proname, 'arguments', pg_catalog.pg_get_function_identity_arguments(f.oid),
                      'language', l.lanname, 'security_definer', true)::text,
                    format('anon_security_definer_function_executable_%s_%s_%s', n.nspname, f.proname, pg_catalog.pg_get_function_identity_arguments(f.oid))
               from pg_catalog.pg_proc f
               join pg_catalog.pg_namespace n on n.oid = f.pronamespace
               join pg_catalog.pg_language l on l.oid = f.prolang, p
              where f.prosecdef and n.nspname = any(p.exposed) and n.nspname <> all(p.managed)
                and case when exists (select 1 from pg_catalog.pg_roles where rolname = 'anon')
                         then pg_catalog.has_function_privilege('anon', f.oid, 'EXECUTE') else false end
              order by 1"
        ),
    },
    Rule {
        name: "authenticated_security_definer_function_executable",
        title: "Signed-In Users Can Execute SECURITY DEFINER Function",
        level: "WARN",
        category: "SECURITY",
        description: "Detects `SECURITY DEFINER` functions that are callable by signed-in users. Revoke `EXECUTE`, switch the function to `SECURITY INVOKER`, or move it out of your exposed API schema if signed-in users should not call it.",
        lint_id: "0029_authenticated_security_definer_function_executable",
        advice: None,
        needs: Needs::Nothing,
        sql: concat!(
            params!(),
            "select format('Function `%s.%s(%s)` can be executed by the `authenticated` role as a `SECURITY DEFINER` function via `/rest/v1/rpc/%s`. Revoke `EXECUTE` or switch it to `SECURITY INVOKER` if that is not intentional.', n.nspname, f.proname, pg_catalog.pg_get_function_identity_arguments(f.oid), f.proname),
                    jsonb_build_object('schema', n.nspname, 'name', f.proname, 'arguments', pg_catalog.pg_get_function_identity_arguments(f.oid),
                      'language', l.lanname, 'security_definer', true)::text,
                    format('authenticated_security_definer_function_executable_%s_%s_%s', n.nspname, f.proname, pg_catalog.pg_get_function_identity_arguments(f.oid))
               from pg_catalog.pg_proc f
               join pg_catalog.pg_namespace n on n.oid = f.pronamespace
               join pg_catalog.pg_language l on l.oid = f.prolang, p
              where f.prosecdef and n.nspname = any(p.exposed) and n.nspname <> all(p.managed)
                and case when exists (select 1 from pg_catalog.pg_roles where rolname = 'authenticated')
                         then pg_catalog.has_function_privilege('authenticated', f.oid, 'EXECUTE') else false end
              order by 1"
        ),
    },
    Rule {
        name: "autovacuum_disabled",
        title: "Autovacuum Disabled",
        level: "INFO",
        category: "PERFORMANCE",
        description: "Table has autovacuum_enabled=false set as a storage parameter. Without autovacuum, dead tuples accumulate and cause table bloat — see the docs for legitimate exceptions before acting.",
        lint_id: "0030_autovacuum_disabled",
        advice: None,
        needs: Needs::Nothing,
        // Any spelling of false PostgreSQL takes (`off`, `no`, `0`, …).
        sql: concat!(
            params!(),
            r#"select format('Table `%s`.`%s` has autovacuum_enabled=false set as a storage parameter.', n.nspname, c.relname),
                    jsonb_build_object('schema', n.nspname, 'name', c.relname, 'type', 'table')::text,
                    format('autovacuum_disabled_%s_%s', n.nspname, c.relname)
               from pg_catalog.pg_class c
               join pg_catalog.pg_namespace n on n.oid = c.relnamespace, p
              where c.relkind = 'r' and n.nspname <> all(p.managed)
                and exists (select 1 from unnest(c.reloptions) o
                             where o ~* '^autovacuum_enabled=(f|fa|fal|fals|false|n|no|of|off|0)$')
              order by n.nspname, c.relname"#
        ),
    },
    Rule {
        name: "invalid_index",
        title: "Invalid Index",
        level: "WARN",
        category: "PERFORMANCE",
        description: "Detects indexes marked as invalid, typically left behind by a failed `CREATE INDEX CONCURRENTLY` or `REINDEX CONCURRENTLY`. Invalid indexes are ignored by the planner but still incur maintenance overhead.",
        lint_id: "0030_invalid_index",
        advice: None,
        needs: Needs::Nothing,
        // Not one still being built, nor one an extension owns.
        sql: concat!(
            params!(),
            r#"select format('Index `%s` on table `%s.%s` is invalid and is not used by the query planner.', ic.relname, n.nspname, c.relname),
                    jsonb_build_object('schema', n.nspname, 'name', c.relname, 'type', 'table', 'index_name', ic.relname)::text,
                    format('invalid_index_%s_%s_%s', n.nspname, c.relname, ic.relname)
               from pg_catalog.pg_index i
               join pg_catalog.pg_class ic on ic.oid = i.indexrelid
               join pg_catalog.pg_class c on c.oid = i.indrelid
               join pg_catalog.pg_namespace n on n.oid = c.relnamespace, p
              where not i.indisvalid and i.indisready and n.nspname <> all(p.managed)
                and not exists (select 1 from pg_catalog.pg_stat_progress_create_index b where b.index_relid = i.indexrelid)
                and not exists (select 1 from pg_catalog.pg_depend d
                                 where d.classid = 'pg_catalog.pg_class'::regclass and d.objid = i.indexrelid and d.deptype = 'e')
              order by n.nspname, c.relname, ic.relname"#
        ),
    },
    Rule {
        name: "rls_policy_null_auth_disjunct",
        title: "RLS Policy True When Auth Is Null",
        level: "WARN",
        category: "SECURITY",
        description: "Detects permissive RLS read policies whose USING clause has a top-level OR disjunct that is true when an auth function returns NULL (for example `auth.uid() IS NULL OR ...`). Such a policy admits every row for any session where that function is NULL, which is almost always an inverted-logic mistake rather than intended access.",
        lint_id: "0030_rls_policy_null_auth_disjunct",
        advice: None,
        needs: Needs::Nothing,
        // On the deparsed USING, lowercased without blanks: each `auth.uid()/jwt()/role()` or
        // `current_setting(…, true)` IS NULL (or NOT (… IS NOT NULL)) becomes `#n#`, the other
        // calls `#f#`; without the outer parentheses and with every parenthesised group folded
        // away, what is left joins by OR alone, and one of the disjuncts is `(#n#)`.
        sql: concat!(
            params!(),
            r#", pol as (
                select n.nspname as schema_name, c.relname as table_name, x.polname as policy_name,
                       (select array_agg(case when r = 0 then 'public' else r::regrole::text end order by r)
                          from unnest(x.polroles) r) as roles,
                       case x.polcmd when 'r' then 'SELECT' else 'ALL' end as command,
                       pg_catalog.pg_get_expr(x.polqual, x.polrelid) as qual
                  from pg_catalog.pg_policy x
                  join pg_catalog.pg_class c on c.oid = x.polrelid
                  join pg_catalog.pg_namespace n on n.oid = c.relnamespace, p
                 where c.relkind = 'r' and c.relrowsecurity and x.polpermissive and x.polcmd in ('r', '*')
                   and n.nspname <> all(p.managed)
                   and (x.polroles = array[0::oid]
                        or exists (select 1 from unnest(x.polroles) r where r::regrole::text in ('anon', 'authenticated')))),
            marked as (
                select pol.*,
                       regexp_replace(regexp_replace(regexp_replace(
                         regexp_replace(
                           regexp_replace(
                             regexp_replace(lower(regexp_replace(coalesce(pol.qual, ''), '[ \n\t]', '', 'g')),
                               'not\((auth\.(uid|jwt|role)\(\)|current_setting\([^)]*,true\))isnotnull\)', '#n#', 'g'),
                             '(auth\.(uid|jwt|role)\(\)|current_setting\([^)]*,true\))isnull', '#n#', 'g'),
                           'current_setting\([^)]*\)', '#f#', 'g'),
                         'auth\.(uid|jwt|role)\(\)', '#f#', 'g'),
                       '^\(', ''), '\)$', '') as inner_qual
                  from pol),
            folded as (
                select marked.*,
                       regexp_replace(regexp_replace(regexp_replace(regexp_replace(regexp_replace(regexp_replace(
                         inner_qual, '\([^()]*\)', '', 'g'), '\([^()]*\)', '', 'g'), '\([^()]*\)', '', 'g'),
                         '\([^()]*\)', '', 'g'), '\([^()]*\)', '', 'g'), '\([^()]*\)', '', 'g') as top
                  from marked)
            select format('Table `%s.%s` has a permissive policy `%s` for `%s` whose USING clause is unconditionally true when `auth.uid()` / `auth.jwt()` / `auth.role()` (or `current_setting(..., true)`) is NULL, so it exposes every row to those sessions (roles: %s). This is almost always a logic error -- the author likely intended `IS NOT NULL AND ...` or a scoped check. Remove the `IS NULL` disjunct or replace it with an explicit deny.',
                          schema_name, table_name, policy_name, command, array_to_string(roles, ', ')),
                   jsonb_build_object('schema', schema_name, 'name', table_name, 'type', 'table',
                     'policy_name', policy_name, 'command', command, 'roles', roles, 'qual', qual)::text,
                   format('rls_policy_null_auth_disjunct_%s_%s_%s', schema_name, table_name, policy_name)
              from folded
             where top ~ 'or' and top !~ 'and' and inner_qual ~ '(^|or)\(#n#\)($|or)'
             order by schema_name, table_name, policy_name"#
        ),
    },
    Rule {
        name: "unused_replication_slot",
        title: "Unused Replication Slot",
        level: "WARN",
        category: "PERFORMANCE",
        description: "Detects replication slots that are inactive and either retaining WAL beyond max_slot_wal_keep_size (risking disk bloat) or already invalidated (unrecoverable, breaking replication for that consumer).",
        lint_id: "0031_unused_replication_slot",
        advice: None,
        needs: Needs::Nothing,
        // ERROR once the slot is lost. supagate's own slot (`supagate_<db>_<hash>`) is read in
        // turns, never held open: while a gateway captures from it (holding the capture lock,
        // advisory key 0x53475254, in the slot's database) it is in use, not forgotten.
        sql: concat!(
            params!(),
            r#"select format('Replication slot `%s` is inactive and its wal_status is `%s`', s.slot_name, s.wal_status),
                    jsonb_build_object('entity', s.slot_name, 'type', 'replication_slot', 'slot_type', s.slot_type,
                      'wal_status', s.wal_status, 'plugin', s.plugin, 'database', s.database)::text,
                    format('unused_replication_slot_%s_%s', s.slot_name, s.wal_status),
                    case s.wal_status when 'lost' then 'ERROR' else 'WARN' end
               from pg_catalog.pg_replication_slots s, p
              where not s.active and s.wal_status in ('unreserved', 'lost')
                and not (s.wal_status = 'unreserved' and s.slot_name like 'supagate\_%'
                         and exists (select 1 from pg_catalog.pg_locks l
                                      where l.locktype = 'advisory' and l.granted and l.database = s.datoid
                                        and l.classid = 0 and l.objid = 1397183060 and l.objsubid = 1))
              order by s.slot_name"#
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
            match r.advice {
                Some(advice) => assert_eq!(r.remediation(), advice),
                None => assert!(r.remediation().ends_with(r.lint_id)),
            }
            // `NNNN_<name>` (0024 links its page under an older name), or the bare name.
            let (number, rest) = r.lint_id.split_at(r.lint_id.len().min(5));
            assert!(
                r.lint_id == r.name
                    || (number[..4].bytes().all(|b| b.is_ascii_digit())
                        && number.ends_with('_')
                        && (rest == r.name || r.name == "rls_policy_always_true")),
                "{}",
                r.lint_id
            );
        }
    }

    #[test]
    fn rules_follow_splinters_numbers() {
        let numbers: Vec<&str> = RULES
            .iter()
            .map(|r| match r.name {
                "unsupported_reg_types" => "0018",
                _ => &r.lint_id[..4],
            })
            .collect();
        let mut sorted = numbers.clone();
        sorted.sort();
        assert_eq!(numbers, sorted);
        assert_eq!(RULES.len(), 34);
        // Only the replication slot's level depends on the row (a fourth column).
        for r in RULES {
            let levelled = r.sql.contains("then 'ERROR' else 'WARN' end\n");
            assert_eq!(levelled, r.name == "unused_replication_slot", "{}", r.name);
        }
        let needs: Vec<(&str, Needs)> = RULES
            .iter()
            .filter(|r| r.needs != Needs::Nothing)
            .map(|r| (r.name, r.needs))
            .collect();
        assert_eq!(
            needs,
            [
                ("auth_allow_anonymous_sign_ins", Needs::AnonymousSignIns),
                (
                    "public_bucket_allows_listing",
                    Needs::Relation("storage.buckets")
                ),
            ]
        );
    }

    #[test]
    fn advice_row_levels_and_always_true() {
        let bloat = RULES.iter().find(|r| r.name == "table_bloat").unwrap();
        assert!(
            bloat
                .remediation()
                .starts_with("Consider running vacuum full")
        );
        let slot = RULES
            .iter()
            .find(|r| r.name == "unused_replication_slot")
            .unwrap();
        let l = Lint::of(slot, "d".into(), None, "k".into());
        assert_eq!(l.level, "WARN");
        assert_eq!(l.clone().at(Some("ERROR".into())).level, "ERROR");
        assert_eq!(l.clone().at(Some("LOUD".into())).level, "WARN");
        assert_eq!(l.at(None).level, "WARN");
        assert_eq!(
            always_true!("q"),
            "coalesce(regexp_replace(lower(q), '[ \\n\\t]', '', 'g') in ('true', '(true)', '1=1', '(1=1)'), false)"
        );
        let anon = RULES
            .iter()
            .find(|r| r.name == "pg_graphql_anon_table_exposed")
            .unwrap();
        assert!(
            anon.sql
                .contains("format('pg_graphql_anon_table_exposed_%s_%s'")
        );
        assert!(anon.sql.contains("has_column_privilege('anon', c.oid"));
        assert!(!anon.sql.contains("authenticated"));
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
