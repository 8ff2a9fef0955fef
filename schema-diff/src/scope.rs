//! Which schemas a diff covers, as the Supabase CLI's `db diff` decides: every schema but those
//! Supabase (and supagate) manage and those extensions own, unless schemas are named. Triggers
//! and policies an app puts on managed tables (a trigger on `auth.users`, a policy on
//! `storage.objects`) are the app's, and are covered too.

/// The schemas Supabase manages as the CLI's `pkg/migration/dump.go` lists them (what `db dump`
/// leaves out), and supagate's own. `*` ends a prefix pattern.
pub const INTERNAL_SCHEMAS: &[&str] = &[
    "information_schema",
    "pg_*",
    "_analytics",
    "_realtime",
    "_supavisor",
    "auth",
    "etl",
    "extensions",
    "pgbouncer",
    "realtime",
    "storage",
    "supabase_functions",
    "supabase_migrations",
    "cron",
    "dbdev",
    "graphql",
    "graphql_public",
    "net",
    "pgmq",
    "pgsodium",
    "pgsodium_masks",
    "pgtle",
    "repack",
    "tiger",
    "tiger_data",
    "timescaledb_*",
    "_timescaledb_*",
    "topology",
    "vault",
    "supagate",
];

/// Schemas left out of a diff unless named besides those: `internal/db/diff/migra.go`'s managed
/// ones that dump.go does not list.
const DIFF_MANAGED_SCHEMAS: &[&str] = &["pgroonga"];

/// Schemas never read at all, even for triggers and policies.
const SYSTEM_SCHEMAS: &[&str] = &["information_schema", "pg_*"];

fn matches(pattern: &str, name: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => pattern == name,
    }
}

/// Whether Supabase or supagate manages the schema (it is left out unless named).
pub fn is_managed(schema: &str) -> bool {
    INTERNAL_SCHEMAS
        .iter()
        .chain(DIFF_MANAGED_SCHEMAS)
        .any(|p| matches(p, schema))
}

fn is_system(schema: &str) -> bool {
    SYSTEM_SCHEMAS.iter().any(|p| matches(p, schema))
}

/// What to read from a database.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scope {
    /// `--schema`: exactly these schemas, whole (managed ones included); empty: every schema
    /// the app owns.
    pub named: Vec<String>,
}

/// How much of one schema a diff covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coverage {
    /// Everything in it.
    Whole,
    /// Only the triggers and policies on its tables (a managed schema's tables are Supabase's,
    /// what the app puts on them is the app's).
    TriggersAndPolicies,
    None,
}

impl Scope {
    pub fn named(schemas: &[String]) -> Scope {
        Scope {
            named: schemas.to_vec(),
        }
    }

    /// How much of `schema` is covered; `extension_owned`: an extension created the schema.
    pub fn coverage(&self, schema: &str, extension_owned: bool) -> Coverage {
        if !self.named.is_empty() {
            return if self.named.iter().any(|n| n == schema) {
                Coverage::Whole
            } else {
                Coverage::None
            };
        }
        if is_system(schema) {
            Coverage::None
        } else if is_managed(schema) || extension_owned {
            Coverage::TriggersAndPolicies
        } else {
            Coverage::Whole
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn managed_schemas_are_left_out_unless_named() {
        let all = Scope::default();
        let cases = [
            ("public", false, Coverage::Whole),
            ("api", false, Coverage::Whole),
            ("auth", false, Coverage::TriggersAndPolicies),
            ("storage", false, Coverage::TriggersAndPolicies),
            ("supagate", false, Coverage::TriggersAndPolicies),
            (
                "timescaledb_information",
                false,
                Coverage::TriggersAndPolicies,
            ),
            ("made_by_an_extension", true, Coverage::TriggersAndPolicies),
            ("pg_catalog", false, Coverage::None),
            ("pg_toast", false, Coverage::None),
            ("information_schema", false, Coverage::None),
        ];
        for (schema, ext, want) in cases {
            assert_eq!(all.coverage(schema, ext), want, "{schema}");
        }
        let named = Scope::named(&["auth".into(), "api".into()]);
        assert_eq!(named.coverage("auth", false), Coverage::Whole);
        assert_eq!(named.coverage("api", false), Coverage::Whole);
        assert_eq!(named.coverage("public", false), Coverage::None);
        assert_eq!(named.coverage("storage", false), Coverage::None);
    }
}
