//! PostgreSQL types as TypeScript types, and names as prettier prints them.

use super::introspect::Catalog;

pub(crate) fn q(s: &str) -> String {
    serde_json::Value::String(s.to_string()).to_string()
}

/// A property name as prettier prints it: bare when it is an identifier, quoted otherwise.
pub(crate) fn key(s: &str) -> String {
    let ident = s
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
    if ident { s.to_string() } else { q(s) }
}

pub(crate) struct Ctx<'a> {
    pub cat: &'a Catalog,
    pub schemas: &'a [String],
}

impl Ctx<'_> {
    /// The TypeScript type of a PostgreSQL type name (pg_type.typname).
    pub fn ts(&self, pg: &str) -> String {
        match pg {
            "bool" => return "boolean".into(),
            "int2" | "int4" | "int8" | "float4" | "float8" | "numeric" => return "number".into(),
            "bytea" | "bpchar" | "varchar" | "date" | "text" | "citext" | "time" | "timetz"
            | "timestamp" | "timestamptz" | "uuid" | "vector" => return "string".into(),
            "json" | "jsonb" => return "Json".into(),
            "void" => return "undefined".into(),
            "record" => return "Record<string, unknown>".into(),
            _ => {}
        }
        if let Some(element) = pg.strip_prefix('_') {
            return format!("{}[]", self.ts(element));
        }
        let included = |schema: &str| self.schemas.iter().any(|s| s == schema);
        // Of types sharing a name in several schemas (an app's `request_status` and pg_net's),
        // the one in a schema the types are generated for.
        let enums = || {
            self.cat
                .types
                .iter()
                .filter(|t| t.name == pg && !t.enums.is_empty())
        };
        if let Some(t) = enums()
            .find(|t| included(&t.schema))
            .or_else(|| enums().next())
        {
            return if included(&t.schema) {
                format!("Database[{}][\"Enums\"][{}]", q(&t.schema), q(&t.name))
            } else {
                t.enums.iter().map(|v| q(v)).collect::<Vec<_>>().join(" | ")
            };
        }
        if let Some(t) = self
            .cat
            .types
            .iter()
            .find(|t| t.name == pg && !t.attributes.is_empty())
        {
            return if included(&t.schema) {
                format!(
                    "Database[{}][\"CompositeTypes\"][{}]",
                    q(&t.schema),
                    q(&t.name)
                )
            } else {
                "unknown".into()
            };
        }
        if let Some(r) = self.cat.relations.iter().find(|r| r.name == pg) {
            let group = if r.is_view() { "Views" } else { "Tables" };
            return format!(
                "Database[{}][\"{group}\"][{}][\"Row\"]",
                q(&r.schema),
                q(&r.name)
            );
        }
        "unknown".into()
    }
}
