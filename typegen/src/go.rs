//! `gen types --lang go`: structs as postgres-meta's Go generator writes them (the one the CLI
//! runs): per table a `<Schema><Table>Select`, `…Insert` and `…Update` struct, per view and
//! materialized view a `…Select` one, per composite type one, columns sorted by name and
//! aligned as gofmt aligns them. Pure.

use crate::introspect::{Catalog, Relation, Type};

#[derive(Clone, Copy, PartialEq)]
enum Operation {
    Select,
    Insert,
    Update,
}

impl Operation {
    fn name(self) -> &'static str {
        match self {
            Operation::Select => "Select",
            Operation::Insert => "Insert",
            Operation::Update => "Update",
        }
    }
}

/// A name in PascalCase: split on anything not a letter or digit, each word's first letter
/// upper-cased (`pokemon_center` → `PokemonCenter`).
pub fn type_name(name: &str) -> String {
    name.split(|c: char| !c.is_ascii_alphanumeric())
        .map(|w| {
            let mut cs = w.chars();
            match cs.next() {
                Some(f) => f.to_ascii_uppercase().to_string() + cs.as_str(),
                None => String::new(),
            }
        })
        .collect()
}

fn base_type(pg: &str) -> Option<&'static str> {
    Some(match pg {
        "bool" => "bool",
        "int2" => "int16",
        "int4" => "int32",
        "int8" => "int64",
        "float4" => "float32",
        "float8" | "numeric" => "float64",
        "bytea" => "[]byte",
        "bpchar" | "varchar" | "date" | "text" | "citext" | "time" | "timetz" | "timestamp"
        | "timestamptz" | "interval" | "uuid" | "vector" | "int4range" | "int4multirange"
        | "int8range" | "int8multirange" | "numrange" | "nummultirange" | "tsrange"
        | "tsmultirange" | "tstzrange" | "tstzmultirange" | "daterange" | "datemultirange" => {
            "string"
        }
        "json" | "jsonb" | "void" => "interface{}",
        "record" => "map[string]interface{}",
        _ => return None,
    })
}

fn nullable_type(go: &str) -> String {
    match go {
        "[]byte" | "interface{}" | "map[string]interface{}" => go.to_string(),
        other => format!("*{other}"),
    }
}

/// The Go type of a PostgreSQL type name (`_x`: an array of `x`), as the generator maps it.
fn go_type(pg: &str, nullable: bool, types: &[Type]) -> String {
    let mut go = base_type(pg);
    if types.iter().any(|t| t.name == pg && !t.enums.is_empty()) {
        go = Some("string");
    }
    if let Some(go) = go {
        return if nullable {
            nullable_type(go)
        } else {
            go.to_string()
        };
    }
    if types
        .iter()
        .any(|t| t.name == pg && !t.attributes.is_empty())
    {
        return "map[string]interface{}".into();
    }
    if let Some(inner) = pg.strip_prefix('_') {
        // The generator's own spelling, trailing space included.
        return format!("[]{} ", go_type(inner, nullable, types));
    }
    "interface{}".into()
}

/// One struct, its fields aligned.
fn structure(name: String, fields: Vec<(String, String, String)>) -> String {
    let w_name = fields
        .iter()
        .map(|f| f.0.chars().count())
        .max()
        .unwrap_or(0);
    let w_type = fields
        .iter()
        .map(|f| f.1.chars().count())
        .max()
        .unwrap_or(0);
    let lines: Vec<String> = fields
        .iter()
        .map(|(n, t, json)| format!("  {n:<w_name$} {t:<w_type$} `json:\"{json}\"`"))
        .collect();
    format!("type {name} struct {{\n{}\n}}", lines.join("\n"))
}

fn relation_structs(r: &Relation, ops: &[Operation], types: &[Type]) -> Vec<String> {
    let mut columns: Vec<_> = r.columns.iter().collect();
    columns.sort_by(|a, b| a.name.cmp(&b.name));
    ops.iter()
        .map(|op| {
            let fields = columns
                .iter()
                .map(|c| {
                    let nullable = match op {
                        Operation::Insert => {
                            c.nullable || c.identity.is_some() || c.generated || c.has_default
                        }
                        Operation::Update => true,
                        Operation::Select => c.nullable,
                    };
                    (
                        type_name(&c.name),
                        go_type(&c.type_name, nullable, types),
                        c.name.clone(),
                    )
                })
                .collect();
            structure(
                format!(
                    "{}{}{}",
                    type_name(&r.schema),
                    type_name(&r.name),
                    op.name()
                ),
                fields,
            )
        })
        .collect()
}

/// The Go file for `schemas`.
pub fn render(cat: &Catalog, schemas: &[String]) -> String {
    let mut relations: Vec<&Relation> = cat
        .relations
        .iter()
        .filter(|r| schemas.contains(&r.schema))
        .collect();
    relations.sort_by(|a, b| (&a.schema, &a.name).cmp(&(&b.schema, &b.name)));
    let section = |kinds: &[&str], ops: &[Operation]| {
        relations
            .iter()
            .filter(|r| kinds.contains(&r.kind.as_str()))
            .flat_map(|r| relation_structs(r, ops, &cat.types))
            .collect::<Vec<_>>()
            .join("\n\n")
    };
    let all = [Operation::Select, Operation::Insert, Operation::Update];
    let tables = section(&["r", "p"], &all);
    let views = section(&["v"], &[Operation::Select]);
    let matviews = section(&["m"], &[Operation::Select]);
    let mut composites: Vec<&Type> = cat
        .types
        .iter()
        .filter(|t| !t.attributes.is_empty() && schemas.contains(&t.schema))
        .collect();
    composites.sort_by(|a, b| (&a.schema, &a.name).cmp(&(&b.schema, &b.name)));
    let composites = composites
        .iter()
        .map(|t| {
            let fields = t
                .attributes
                .iter()
                .map(|a| {
                    (
                        type_name(&a.name),
                        go_type(&a.type_name, false, &[]),
                        a.name.clone(),
                    )
                })
                .collect();
            structure(
                format!("{}{}", type_name(&t.schema), type_name(&t.name)),
                fields,
            )
        })
        .collect::<Vec<_>>()
        .join("\n\n");
    format!("\npackage database\n\n{tables}\n\n{views}\n\n{matviews}\n\n{composites}\n")
        .trim()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_types_as_the_generator_spells_them() {
        assert_eq!(type_name("pokemon_center"), "PokemonCenter");
        assert_eq!(type_name("victory-road"), "VictoryRoad");
        assert_eq!(type_name("public"), "Public");
        assert_eq!(go_type("int8", false, &[]), "int64");
        assert_eq!(go_type("int8", true, &[]), "*int64");
        assert_eq!(go_type("jsonb", true, &[]), "interface{}");
        assert_eq!(go_type("_text", true, &[]), "[]*string ");
        assert_eq!(go_type("geometry", false, &[]), "interface{}");
    }

    #[test]
    fn structs_align_their_fields() {
        let cat: Catalog = serde_json::from_value(serde_json::json!({
            "relations": [{
                "schema": "public", "name": "notes", "kind": "r", "updatable": true,
                "columns": [
                    {"name": "id", "type": "int8", "nullable": false, "has_default": false,
                     "identity": "a", "generated": false, "updatable": true},
                    {"name": "body_text", "type": "text", "nullable": true, "has_default": false,
                     "identity": null, "generated": false, "updatable": true},
                    {"name": "mood", "type": "mood", "nullable": false, "has_default": true,
                     "identity": null, "generated": false, "updatable": true}
                ]
            }],
            "relationships": [], "functions": [],
            "types": [{"schema": "public", "name": "mood", "enums": ["happy"], "attributes": []}]
        }))
        .unwrap();
        let go = render(&cat, &["public".to_string()]);
        let want = "package database

type PublicNotesSelect struct {
  BodyText *string `json:\"body_text\"`
  Id       int64   `json:\"id\"`
  Mood     string  `json:\"mood\"`
}

type PublicNotesInsert struct {
  BodyText *string `json:\"body_text\"`
  Id       *int64  `json:\"id\"`
  Mood     *string `json:\"mood\"`
}

type PublicNotesUpdate struct {
  BodyText *string `json:\"body_text\"`
  Id       *int64  `json:\"id\"`
  Mood     *string `json:\"mood\"`
}";
        assert_eq!(go, want);
    }
}
