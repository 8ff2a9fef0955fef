//! A request from its text to its response: parse, pick the operation, then answer each field of
//! `Query` (one statement per field, errors collected as the response's) or run each field of
//! `Mutation` in turn (any error stops the request and is raised, so the caller's
//! `graphql.resolve` undoes what earlier fields wrote).

use crate::document;
use crate::introspect::Introspector;
use crate::render::{Param, Renderer, Statement};
use crate::schema::{FieldKind, Schema};
use crate::value::{Val, Variables, coerce};
use graphql_parser::query::{OperationDefinition, parse_query};
use serde_json::{Map, Value as Json, json};
use std::rc::Rc;

/// Where statements run: the caller's transaction, as the caller.
pub trait Database {
    /// The `jsonb` in the first column of the statement's first row (null when it has none).
    fn run(&mut self, sql: &str, params: &[Param], write: bool) -> Result<Json, String>;
}

/// What a request comes to: a response, or an error to raise (a mutation's).
pub enum Outcome {
    Response(Json),
    Raise(String),
}

fn errors(message: impl Into<String>) -> Outcome {
    Outcome::Response(json!({"errors": [{"message": message.into()}]}))
}

/// Answers `query`; `load` reflects the schema (or says why it cannot).
pub fn resolve(
    query: &str,
    variables: Option<Json>,
    operation_name: Option<&str>,
    db: &mut dyn Database,
    load: fn(&mut dyn Database) -> Result<Rc<Schema>, String>,
) -> Outcome {
    let doc = match parse_query::<String>(query) {
        Ok(doc) => doc,
        Err(e) => return errors(e.to_string()),
    };
    let schema = match load(db) {
        Ok(s) => s,
        Err(e) => return errors(e),
    };
    let values = match variables {
        None => Map::new(),
        Some(Json::Object(m)) => m,
        Some(_) => return errors("variables must be an object"),
    };
    let (operation, fragments) = match document::pick(doc, operation_name) {
        Ok(picked) => picked,
        Err(e) => return errors(e),
    };
    match &operation {
        OperationDefinition::SelectionSet(set) => match Variables::new(values, &[]) {
            Ok(vars) => query_fields(&schema, set, &fragments, &vars, db),
            Err(e) => errors(e),
        },
        OperationDefinition::Query(q) => match Variables::new(values, &q.variable_definitions) {
            Ok(vars) => query_fields(&schema, &q.selection_set, &fragments, &vars, db),
            Err(e) => errors(e),
        },
        OperationDefinition::Mutation(m) => match Variables::new(values, &m.variable_definitions) {
            Ok(vars) => mutation_fields(&schema, &m.selection_set, &fragments, &vars, db),
            Err(e) => errors(e),
        },
        OperationDefinition::Subscription(_) => errors("Subscriptions are not supported"),
    }
}

fn run(db: &mut dyn Database, statement: Statement, write: bool) -> Result<Json, String> {
    db.run(&statement.sql, &statement.params, write)
}

fn query_fields<'a>(
    schema: &Schema,
    set: &graphql_parser::query::SelectionSet<'a, String>,
    fragments: &document::Fragments<'a>,
    vars: &Variables,
    db: &mut dyn Database,
) -> Outcome {
    let fields = match document::fields(set, fragments, "Query", vars) {
        Ok(f) => f,
        Err(e) => return errors(e),
    };
    if fields.is_empty() {
        return errors("Selection set must not be empty");
    }
    let query = schema.query();
    let mut data = Map::new();
    let mut messages: Vec<String> = vec![];
    for f in &fields {
        let key = document::key(f).to_string();
        if f.name == "__typename" {
            data.insert(key, Json::String("Query".to_string()));
            continue;
        }
        let Some(def) = query.field(&f.name) else {
            messages.push(format!("Unknown field {:?} on type Query", f.name));
            continue;
        };
        let introspector = Introspector {
            schema,
            fragments,
            vars,
        };
        let answer = match def.kind {
            FieldKind::Collection(t) => {
                let mut r = Renderer::new(schema, fragments, vars);
                r.collection(def, f, t)
                    .and_then(|e| run(db, r.finish(e), false))
            }
            FieldKind::NodeEntry => {
                let mut r = Renderer::new(schema, fragments, vars);
                r.node(def, f).and_then(|e| run(db, r.finish(e), false))
            }
            FieldKind::Function(i) => {
                let mut r = Renderer::new(schema, fragments, vars);
                r.function(def, f, i)
                    .and_then(|sql| run(db, r.finish_statement(sql), false))
            }
            FieldKind::TypeEntry => type_name_arg(schema, def, f, vars)
                .and_then(|name| introspector.type_by_name(f, &name)),
            FieldKind::SchemaEntry => introspector.schema(f),
            _ => Err(format!("Unknown field {:?} on type Query", f.name)),
        };
        match answer {
            Ok(v) => {
                data.insert(key, v);
            }
            Err(e) => messages.push(e),
        }
    }
    Outcome::Response(if messages.is_empty() {
        json!({ "data": data })
    } else {
        json!({
            "data": null,
            "errors": messages.into_iter().map(|m| json!({"message": m})).collect::<Vec<_>>(),
        })
    })
}

fn type_name_arg(
    schema: &Schema,
    def: &crate::schema::Field,
    f: &graphql_parser::query::Field<'_, String>,
    vars: &Variables,
) -> Result<String, String> {
    let iv = def.arg("name").ok_or("no name found for __type")?;
    let raw = match f.arguments.iter().find(|(n, _)| n == "name") {
        Some((_, v)) => Val::from_ast(v, vars)?,
        None => Val::Absent,
    };
    match coerce(schema, &iv.ty, &raw, None)? {
        Val::Str(s) => Ok(s),
        _ => Err("Internal Error: failed to parse validated name".to_string()),
    }
}

fn mutation_fields<'a>(
    schema: &Schema,
    set: &graphql_parser::query::SelectionSet<'a, String>,
    fragments: &document::Fragments<'a>,
    vars: &Variables,
    db: &mut dyn Database,
) -> Outcome {
    let Some(mutation) = schema.mutation() else {
        return Outcome::Response(json!({
            "data": null,
            "errors": [{"message": "Unknown type Mutation"}],
        }));
    };
    let fields = match document::fields(set, fragments, "Mutation", vars) {
        Ok(f) => f,
        Err(e) => return errors(e),
    };
    if fields.is_empty() {
        return Outcome::Raise("Selection set must not be empty".to_string());
    }
    let mut data = Map::new();
    for f in &fields {
        let key = document::key(f).to_string();
        if f.name == "__typename" {
            data.insert(key, Json::String("Mutation".to_string()));
            continue;
        }
        let Some(def) = mutation.field(&f.name) else {
            return Outcome::Raise(format!("Unknown field {:?} on type Mutation", f.name));
        };
        let mut r = Renderer::new(schema, fragments, vars);
        let sql = match def.kind {
            FieldKind::Insert(t) => r.insert(def, f, t),
            FieldKind::Update(t) => r.update(def, f, t),
            FieldKind::Delete(t) => r.delete(def, f, t),
            FieldKind::Function(i) => r.function(def, f, i),
            _ => Err(format!("Unknown field {:?} on type Mutation", f.name)),
        };
        let answer = sql.and_then(|sql| run(db, r.finish_statement(sql), true));
        match answer {
            Ok(v) => {
                data.insert(key, v);
            }
            Err(e) => return Outcome::Raise(e),
        }
    }
    Outcome::Response(json!({ "data": data }))
}
