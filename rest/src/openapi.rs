//! `GET /rest/v1/`: an OpenAPI 2.0 description of the exposed schema, built from the schema
//! cache like PostgREST's.

use query_engine::SchemaCache;
use serde_json::{Map, Value, json};

fn json_type(pg: &str) -> (&'static str, Option<&'static str>) {
    let base = pg.split('(').next().unwrap_or(pg).trim();
    if base.ends_with("[]") {
        return ("array", None);
    }
    match base {
        "integer" | "smallint" | "bigint" => ("integer", Some(base_format(base))),
        "numeric" | "real" | "double precision" => ("number", Some(base_format(base))),
        "boolean" => ("boolean", None),
        "json" | "jsonb" => ("object", None),
        _ => ("string", Some(base_format(base))),
    }
}

fn base_format(pg: &str) -> &'static str {
    match pg {
        "integer" => "integer",
        "smallint" => "smallint",
        "bigint" => "bigint",
        "numeric" => "numeric",
        "real" => "real",
        "double precision" => "double precision",
        "uuid" => "uuid",
        "text" => "text",
        "timestamp with time zone" => "timestamp with time zone",
        "date" => "date",
        _ => "string",
    }
}

/// The document for `schema_name`; `host` is the API's configured `host[:port]`.
pub fn document(cache: &SchemaCache, schema_name: &str, host: &str) -> Value {
    let mut paths = Map::new();
    let mut definitions = Map::new();
    paths.insert("/".into(), json!({"get": {"tags": ["Introspection"], "summary": "OpenAPI description (this document)", "produces": ["application/openapi+json", "application/json"], "responses": {"200": {"description": "OK"}}}}));
    let mut tables: Vec<_> = cache.tables().filter(|t| t.schema == schema_name).collect();
    tables.sort_by(|a, b| a.name.cmp(&b.name));
    for t in tables {
        let mut props = Map::new();
        let mut required = Vec::new();
        for c in &t.columns {
            let (ty, format) = json_type(&c.data_type);
            let mut p = json!({"type": ty, "format": format.unwrap_or(c.data_type.as_str())});
            if let Some(d) = &c.description {
                p["description"] = Value::String(d.clone());
            }
            if t.primary_key.contains(&c.name) {
                p["description"] = Value::String("Note:\nThis is a Primary Key.<pk/>".into());
            }
            if !c.nullable && c.default.is_none() {
                required.push(Value::String(c.name.clone()));
            }
            props.insert(c.name.clone(), p);
        }
        definitions.insert(
            t.name.clone(),
            json!({"type": "object", "required": required, "properties": props}),
        );
        let body = json!({"name": t.name, "in": "body", "required": false, "schema": {"$ref": format!("#/definitions/{}", t.name)}});
        let mut ops = json!({
            "get": {"tags": [t.name], "summary": t.description, "responses": {"200": {"description": "OK", "schema": {"type": "array", "items": {"$ref": format!("#/definitions/{}", t.name)}}}, "206": {"description": "Partial Content"}}},
        });
        if !t.is_view() {
            ops["post"] = json!({"tags": [t.name], "parameters": [body.clone()], "responses": {"201": {"description": "Created"}}});
            ops["patch"] = json!({"tags": [t.name], "parameters": [body], "responses": {"204": {"description": "No Content"}}});
            ops["delete"] =
                json!({"tags": [t.name], "responses": {"204": {"description": "No Content"}}});
        }
        paths.insert(format!("/{}", t.name), ops);
    }
    let mut funcs: Vec<_> = cache
        .all_functions()
        .filter(|f| f.schema == schema_name)
        .collect();
    funcs.sort_by(|a, b| a.name.cmp(&b.name));
    for f in funcs {
        let props: Map<String, Value> = f
            .args
            .iter()
            .map(|a| {
                (
                    a.name.clone(),
                    json!({"type": json_type(&a.data_type).0, "format": a.data_type}),
                )
            })
            .collect();
        paths.insert(
            format!("/rpc/{}", f.name),
            json!({"post": {"tags": ["(rpc) ".to_string() + &f.name], "summary": f.description, "parameters": [{"name": "args", "in": "body", "required": true, "schema": {"type": "object", "properties": props}}], "responses": {"200": {"description": "OK"}}}}),
        );
    }
    json!({
        "swagger": "2.0",
        "info": {"title": "supagate REST API", "description": "PostgREST-compatible API of the exposed schema", "version": env!("CARGO_PKG_VERSION")},
        "host": host,
        "basePath": "/rest/v1",
        "schemes": ["http", "https"],
        "consumes": ["application/json", "application/vnd.pgrst.object+json", "text/csv"],
        "produces": ["application/json", "application/vnd.pgrst.object+json", "text/csv"],
        "paths": paths,
        "definitions": definitions,
    })
}
