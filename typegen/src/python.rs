//! `gen types --lang python`: pydantic models and TypedDicts as postgres-meta's Python
//! generator writes them (the one the CLI runs): every enum as a `Literal` alias, per table a
//! `<Schema><Table>` model (what a select returns) and `…Insert` / `…Update` TypedDicts, per
//! view and materialized view a model, per composite type a model; columns sorted by name.
//! Pure.

use crate::go::type_name;
use crate::introspect::{Catalog, Column, Relation, Type};

const HEADER: &str = "from __future__ import annotations

import datetime
import uuid
from typing import (
    Annotated,
    Any,
    List,
    Literal,
    NotRequired,
    Optional,
    TypeAlias,
    TypedDict,
)

from pydantic import BaseModel, Field, Json";

fn mapped(pg: &str) -> Option<&'static str> {
    Some(match pg {
        "bool" => "bool",
        "int2" | "int4" | "int8" => "int",
        "float4" | "float8" | "numeric" => "float",
        "bytea" => "bytes",
        "bpchar" | "varchar" | "string" | "text" | "citext" | "interval" | "int4range"
        | "int4multirange" | "int8range" | "int8multirange" | "numrange" | "nummultirange"
        | "tsrange" | "tsmultirange" | "tstzrange" | "tstzmultirange" | "daterange"
        | "datemultirange" => "str",
        "date" => "datetime.date",
        "time" | "timetz" => "datetime.time",
        "timestamp" | "timestamptz" => "datetime.datetime",
        "uuid" => "uuid.UUID",
        "vector" => "list[Any]",
        "json" | "jsonb" => "Json[Any]",
        "void" => "None",
        "record" => "dict[str, Any]",
        _ => return None,
    })
}

/// A name in snake_case: words split on anything not a letter or digit, lower-cased.
pub fn attribute_name(name: &str) -> String {
    name.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect::<Vec<_>>()
        .join("_")
}

fn py_type(pg: &str, types: &[Type]) -> String {
    if let Some(inner) = pg.strip_prefix('_') {
        return format!("List[{}]", py_type(inner, types));
    }
    if let Some(t) = types.iter().find(|t| t.name == pg && !t.enums.is_empty()) {
        return format!("{}{}", type_name(&t.schema), type_name(&t.name));
    }
    if let Some(p) = mapped(pg) {
        return p.to_string();
    }
    match types.iter().find(|t| t.name == pg) {
        Some(t) => format!("{}{}", type_name(&t.schema), type_name(&t.name)),
        None => "Any".into(),
    }
}

fn optional(ty: String, nullable: bool) -> String {
    if nullable {
        format!("Optional[{ty}]")
    } else {
        ty
    }
}

fn class(name: String, parent: &str, lines: Vec<String>) -> String {
    let body = if lines.is_empty() {
        "    pass".to_string()
    } else {
        lines.join("\n")
    };
    format!("class {name}({parent}):\n{body}")
}

fn sorted(r: &Relation) -> Vec<&Column> {
    let mut cols: Vec<&Column> = r.columns.iter().collect();
    cols.sort_by(|a, b| a.name.cmp(&b.name));
    cols
}

fn model(schema: &str, name: &str, attrs: Vec<(String, String, bool)>) -> String {
    let lines = attrs
        .into_iter()
        .map(|(n, ty, nullable)| {
            format!(
                "    {}: {} = Field(alias=\"{n}\")",
                attribute_name(&n),
                optional(ty, nullable)
            )
        })
        .collect();
    class(
        format!("{}{}", type_name(schema), type_name(name)),
        "BaseModel",
        lines,
    )
}

fn typed_dict(r: &Relation, op: &str, types: &[Type]) -> String {
    let lines = sorted(r)
        .into_iter()
        .map(|c| {
            let ty = optional(py_type(&c.type_name, types), c.nullable);
            let annotation = format!("Annotated[{ty}, Field(alias=\"{}\")]", c.name);
            let not_required =
                op == "Update" || c.nullable || c.identity.is_some() || c.has_default;
            let rhs = if not_required {
                format!("NotRequired[{annotation}]")
            } else {
                annotation
            };
            format!("    {}: {rhs}", attribute_name(&c.name))
        })
        .collect();
    class(
        format!("{}{}{op}", type_name(&r.schema), type_name(&r.name)),
        "TypedDict",
        lines,
    )
}

fn relation_model(r: &Relation, types: &[Type]) -> String {
    let attrs = sorted(r)
        .into_iter()
        .map(|c| (c.name.clone(), py_type(&c.type_name, types), c.nullable))
        .collect();
    model(&r.schema, &r.name, attrs)
}

/// The Python module for `schemas`.
pub fn render(cat: &Catalog, schemas: &[String]) -> String {
    let mut types: Vec<&Type> = cat.types.iter().collect();
    types.sort_by(|a, b| (&a.schema, &a.name).cmp(&(&b.schema, &b.name)));
    let enums = types
        .iter()
        .filter(|t| !t.enums.is_empty())
        .map(|t| {
            let variants: Vec<String> = t.enums.iter().map(|v| format!("\"{v}\"")).collect();
            format!(
                "{}{}: TypeAlias = Literal[{}]",
                type_name(&t.schema),
                type_name(&t.name),
                variants.join(", ")
            )
        })
        .collect::<Vec<_>>()
        .join("\n\n");
    let mut relations: Vec<&Relation> = cat
        .relations
        .iter()
        .filter(|r| schemas.contains(&r.schema))
        .collect();
    relations.sort_by(|a, b| (&a.schema, &a.name).cmp(&(&b.schema, &b.name)));
    let of = |kinds: &'static [&'static str]| -> Vec<&Relation> {
        relations
            .iter()
            .copied()
            .filter(|r| kinds.contains(&r.kind.as_str()))
            .collect()
    };
    let tables = of(&["r", "p"])
        .into_iter()
        .flat_map(|r| {
            [
                relation_model(r, &cat.types),
                typed_dict(r, "Insert", &cat.types),
                typed_dict(r, "Update", &cat.types),
            ]
        })
        .collect::<Vec<_>>()
        .join("\n\n");
    let views = of(&["v"])
        .into_iter()
        .map(|r| relation_model(r, &cat.types))
        .collect::<Vec<_>>()
        .join("\n\n");
    let matviews = of(&["m"])
        .into_iter()
        .map(|r| relation_model(r, &cat.types))
        .collect::<Vec<_>>()
        .join("\n\n");
    let composites = types
        .iter()
        .filter(|t| !t.attributes.is_empty() && schemas.contains(&t.schema))
        .map(|t| {
            let attrs = t
                .attributes
                .iter()
                .map(|a| (a.name.clone(), py_type(&a.type_name, &cat.types), false))
                .collect();
            model(&t.schema, &t.name, attrs)
        })
        .collect::<Vec<_>>()
        .join("\n\n");
    format!("\n{HEADER}\n\n{enums}\n\n{tables}\n\n{views}\n\n{matviews}\n\n{composites}\n\n")
        .trim()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn models_and_dicts_as_the_generator_writes_them() {
        assert_eq!(attribute_name("Body-Text"), "body_text");
        let cat: Catalog = serde_json::from_value(serde_json::json!({
            "relations": [{
                "schema": "public", "name": "notes", "kind": "r", "updatable": true,
                "columns": [
                    {"name": "id", "type": "int8", "nullable": false, "has_default": false,
                     "identity": "a", "generated": false, "updatable": true},
                    {"name": "tags", "type": "_text", "nullable": true, "has_default": false,
                     "identity": null, "generated": false, "updatable": true},
                    {"name": "mood", "type": "mood", "nullable": false, "has_default": false,
                     "identity": null, "generated": false, "updatable": true}
                ]
            }],
            "relationships": [], "functions": [],
            "types": [{"schema": "public", "name": "mood", "enums": ["happy", "sad"], "attributes": []}]
        }))
        .unwrap();
        let py = render(&cat, &["public".to_string()]);
        let want = format!(
            "{HEADER}

PublicMood: TypeAlias = Literal[\"happy\", \"sad\"]

class PublicNotes(BaseModel):
    id: int = Field(alias=\"id\")
    mood: PublicMood = Field(alias=\"mood\")
    tags: Optional[List[str]] = Field(alias=\"tags\")

class PublicNotesInsert(TypedDict):
    id: NotRequired[Annotated[int, Field(alias=\"id\")]]
    mood: Annotated[PublicMood, Field(alias=\"mood\")]
    tags: NotRequired[Annotated[Optional[List[str]], Field(alias=\"tags\")]]

class PublicNotesUpdate(TypedDict):
    id: NotRequired[Annotated[int, Field(alias=\"id\")]]
    mood: NotRequired[Annotated[PublicMood, Field(alias=\"mood\")]]
    tags: NotRequired[Annotated[Optional[List[str]], Field(alias=\"tags\")]]"
        );
        assert_eq!(py, want);
    }
}
