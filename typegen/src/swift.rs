//! `gen types --lang swift`: postgres-meta's Swift generator's output (the one the CLI runs):
//! per schema an enum `<Schema>Schema` holding its enums, a `<Table>Select`, `…Insert` and
//! `…Update` struct per table (`Identifiable` when it has an identity column), a `…Select`
//! struct per view and materialized view and one per composite type, each with its
//! `CodingKeys`; columns sorted by name. Pure.

use crate::introspect::{Catalog, Column, Relation, Type};

/// PascalCase, a leading `_` kept (`_key_id_context` → `_KeyIdContext`).
pub fn type_name(name: &str) -> String {
    let (prefix, rest) = match name.strip_prefix('_') {
        Some(r) => ("_", r),
        None => ("", name),
    };
    prefix.to_string() + &crate::go::type_name(rest)
}

/// camelCase; Swift's `in`, `default` and `case` quoted in backticks.
pub fn property_name(name: &str) -> String {
    let p: String = name
        .split(|c: char| !c.is_ascii_alphanumeric())
        .enumerate()
        .map(|(i, w)| {
            let lower = w.to_ascii_lowercase();
            if i == 0 {
                lower
            } else {
                let mut cs = lower.chars();
                match cs.next() {
                    Some(f) => f.to_ascii_uppercase().to_string() + cs.as_str(),
                    None => String::new(),
                }
            }
        })
        .collect();
    if ["in", "default", "case"].contains(&p.as_str()) {
        format!("`{p}`")
    } else {
        p
    }
}

fn swift_type(pg: &str, nullable: bool, cat: &Catalog) -> String {
    let t = match pg {
        "bool" => "Bool".to_string(),
        "int2" => "Int16".into(),
        "int4" => "Int32".into(),
        "int8" => "Int64".into(),
        "float4" => "Float".into(),
        "float8" => "Double".into(),
        "numeric" | "decimal" => "Decimal".into(),
        "uuid" => "UUID".into(),
        "bytea" | "bpchar" | "varchar" | "date" | "text" | "citext" | "time" | "timetz"
        | "timestamp" | "timestamptz" | "interval" | "vector" => "String".into(),
        "json" | "jsonb" => "AnyJSON".into(),
        "void" => "Void".into(),
        "record" => "JSONObject".into(),
        _ => {
            if let Some(inner) = pg.strip_prefix('_') {
                format!("[{}]", swift_type(inner, false, cat))
            } else if let Some(e) = cat
                .types
                .iter()
                .find(|t| t.name == pg && !t.enums.is_empty())
            {
                type_name(&e.name)
            } else if cat.types.iter().any(|t| t.name == pg)
                || cat.relations.iter().any(|r| r.name == pg)
            {
                format!("{}Select", type_name(pg))
            } else {
                "AnyJSON".into()
            }
        }
    };
    if nullable { format!("{t}?") } else { t }
}

struct Attribute {
    name: String,
    ty: String,
    raw: String,
    identity: bool,
}

fn indent(level: usize) -> String {
    " ".repeat(level * 2)
}

fn enumeration(
    name: &str,
    protocols: &str,
    cases: &[(String, String)],
    ac: &str,
    level: usize,
) -> Vec<String> {
    let mut out = vec![format!("{}{ac} enum {name}: {protocols} {{", indent(level))];
    for (case, raw) in cases {
        out.push(format!("{}case {case} = \"{raw}\"", indent(level + 1)));
    }
    out.push(format!("{}}}", indent(level)));
    out
}

fn structure(name: String, attrs: &[Attribute], ac: &str) -> Vec<String> {
    let identity = attrs.iter().find(|a| a.identity);
    let protocols = if identity.is_some() {
        "Codable, Hashable, Sendable, Identifiable"
    } else {
        "Codable, Hashable, Sendable"
    };
    let mut out = vec![format!("  {ac} struct {name}: {protocols} {{")];
    if let Some(id) = identity.filter(|a| a.name != "id") {
        out.push(format!("    {ac} var id: {} {{ {} }}", id.ty, id.name));
    }
    for a in attrs {
        out.push(format!("    {ac} let {}: {}", a.name, a.ty));
    }
    if !attrs.is_empty() {
        let cases: Vec<(String, String)> = attrs
            .iter()
            .map(|a| (a.name.clone(), a.raw.clone()))
            .collect();
        out.extend(enumeration(
            "CodingKeys",
            "String, CodingKey",
            &cases,
            ac,
            2,
        ));
    }
    out.push("  }".into());
    out
}

fn relation(r: &Relation, op: &str, cat: &Catalog, ac: &str) -> Vec<String> {
    let mut cols: Vec<&Column> = r.columns.iter().collect();
    cols.sort_by(|a, b| a.name.cmp(&b.name));
    let attrs: Vec<Attribute> = cols
        .iter()
        .map(|c| {
            let nullable = match op {
                "Insert" => c.nullable || c.identity.is_some() || c.generated || c.has_default,
                "Update" => true,
                _ => c.nullable,
            };
            Attribute {
                name: property_name(&c.name),
                ty: swift_type(&c.type_name, nullable, cat),
                raw: c.name.clone(),
                identity: c.identity.is_some(),
            }
        })
        .collect();
    structure(format!("{}{op}", type_name(&r.name)), &attrs, ac)
}

/// The Swift file for `schemas`, its declarations `access_control` (`internal` by default).
pub fn render(cat: &Catalog, schemas: &[String], access_control: &str) -> String {
    let ac = access_control;
    let mut out = vec![
        "import Foundation".to_string(),
        "import Supabase".into(),
        String::new(),
    ];
    let mut schemas: Vec<&String> = schemas.iter().collect();
    schemas.sort();
    schemas.dedup();
    for s in schemas {
        out.push(format!("{ac} enum {}Schema {{", type_name(s)));
        let mut types: Vec<&Type> = cat.types.iter().filter(|t| &t.schema == s).collect();
        types.sort_by(|a, b| a.name.cmp(&b.name));
        for e in types.iter().filter(|t| !t.enums.is_empty()) {
            let cases: Vec<(String, String)> = e
                .enums
                .iter()
                .map(|v| (property_name(v), v.clone()))
                .collect();
            out.extend(enumeration(
                &type_name(&e.name),
                "String, Codable, Hashable, Sendable",
                &cases,
                ac,
                1,
            ));
        }
        let mut rels: Vec<&Relation> = cat.relations.iter().filter(|r| &r.schema == s).collect();
        rels.sort_by(|a, b| a.name.cmp(&b.name));
        for r in rels
            .iter()
            .filter(|r| ["r", "p", "f"].contains(&r.kind.as_str()))
        {
            for op in ["Select", "Insert", "Update"] {
                out.extend(relation(r, op, cat, ac));
            }
        }
        for r in rels
            .iter()
            .filter(|r| ["v", "m"].contains(&r.kind.as_str()))
        {
            out.extend(relation(r, "Select", cat, ac));
        }
        for t in types.iter().filter(|t| !t.attributes.is_empty()) {
            let attrs: Vec<Attribute> = t
                .attributes
                .iter()
                .map(|a| Attribute {
                    name: type_name(&a.name),
                    ty: swift_type(&a.type_name, false, cat),
                    raw: a.name.clone(),
                    identity: false,
                })
                .collect();
            out.extend(structure(type_name(&t.name), &attrs, ac));
        }
        out.push("}".into());
    }
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_as_the_generator_spells_them() {
        assert_eq!(type_name("_key_id_context"), "_KeyIdContext");
        assert_eq!(property_name("created_at"), "createdAt");
        assert_eq!(property_name("default"), "`default`");
        assert_eq!(property_name("Body-Text"), "bodyText");
    }

    #[test]
    fn a_schema_enum_with_its_structs() {
        let cat: Catalog = serde_json::from_value(serde_json::json!({
            "relations": [{
                "schema": "public", "name": "notes", "kind": "r", "updatable": true,
                "columns": [
                    {"name": "note_id", "type": "int8", "nullable": false, "has_default": false,
                     "identity": "a", "generated": false, "updatable": true},
                    {"name": "mood", "type": "mood", "nullable": true, "has_default": false,
                     "identity": null, "generated": false, "updatable": true}
                ]
            }],
            "relationships": [], "functions": [],
            "types": [{"schema": "public", "name": "mood", "enums": ["very_happy"], "attributes": []}]
        }))
        .unwrap();
        let swift = render(&cat, &["public".to_string()], "internal");
        let want = "import Foundation
import Supabase

internal enum PublicSchema {
  internal enum Mood: String, Codable, Hashable, Sendable {
    case veryHappy = \"very_happy\"
  }
  internal struct NotesSelect: Codable, Hashable, Sendable, Identifiable {
    internal var id: Int64 { noteId }
    internal let mood: Mood?
    internal let noteId: Int64
    internal enum CodingKeys: String, CodingKey {
      case mood = \"mood\"
      case noteId = \"note_id\"
    }
  }
  internal struct NotesInsert: Codable, Hashable, Sendable, Identifiable {
    internal var id: Int64? { noteId }
    internal let mood: Mood?
    internal let noteId: Int64?
    internal enum CodingKeys: String, CodingKey {
      case mood = \"mood\"
      case noteId = \"note_id\"
    }
  }
  internal struct NotesUpdate: Codable, Hashable, Sendable, Identifiable {
    internal var id: Int64? { noteId }
    internal let mood: Mood?
    internal let noteId: Int64?
    internal enum CodingKeys: String, CodingKey {
      case mood = \"mood\"
      case noteId = \"note_id\"
    }
  }
}";
        assert_eq!(swift, want);
    }
}
