//! supagate's pg_graphql 1.5.11: a GraphQL API over the tables, views and foreign keys the
//! calling role can see, with the SQL surface of supabase/pg_graphql (`graphql.resolve`, the
//! `@graphql(...)` comment directives; `pg_graphql--1.5.11.sql` beside this crate), its type and
//! field names, arguments, responses and error messages. `graphql-parser` reads documents.
//!
//! Everything runs in the caller's transaction as the caller, through SPI: the schema is
//! reflected with the caller's privileges, each field of a request is one statement built from
//! the request with every value bound as a parameter, so grants and row level security decide
//! what a request reads and writes. A backend keeps the last schemas it reflected, by role,
//! search path and the schema version the extension's DDL event triggers move on.

use pgrx::JsonB;
use pgrx::datum::DatumWithOid;
use pgrx::prelude::*;
use pgrx::spi::SpiClient;
use std::cell::RefCell;
use std::rc::Rc;

mod catalog;
mod document;
mod introspect;
mod render;
mod resolve;
mod schema;
mod value;

use render::Param;
use resolve::{Database, Outcome};
use schema::Schema;

pg_module_magic!();

/// How many reflected schemas (roles and search paths) a backend keeps.
const KEPT_SCHEMAS: usize = 8;

thread_local! {
    static SCHEMAS: RefCell<Vec<(String, Rc<Schema>)>> = const { RefCell::new(Vec::new()) };
}

struct Spi<'c, 'conn> {
    client: &'c mut SpiClient<'conn>,
}

impl Database for Spi<'_, '_> {
    fn run(
        &mut self,
        sql: &str,
        params: &[Param],
        write: bool,
    ) -> Result<serde_json::Value, String> {
        let args: Vec<DatumWithOid> = params
            .iter()
            .map(|p| match p {
                Param::Text(t) => DatumWithOid::from(t.clone()),
                Param::TextArray(items) => DatumWithOid::from(items.clone()),
            })
            .collect();
        let table = if write {
            self.client.update(sql, None, &args)
        } else {
            self.client.select(sql, Some(1), &args)
        }
        .map_err(|e| format!("Internal Error: Failed to execute transpiled query: {e}"))?;
        if table.is_empty() {
            return Ok(serde_json::Value::Null);
        }
        let value: Option<JsonB> = table.first().get_one().map_err(|e| {
            format!("Internal Error: Failed to load result from transpiled query: {e}")
        })?;
        Ok(value.map_or(serde_json::Value::Null, |j| j.0))
    }
}

/// The schema the caller sees: kept from an earlier request with the same role, search path
/// and schema version, else reflected now.
fn load_schema(db: &mut dyn Database) -> Result<Rc<Schema>, String> {
    let key = db.run(catalog::CONFIG_SQL, &[], false)?.to_string();
    if let Some(s) = SCHEMAS.with_borrow(|kept| {
        kept.iter()
            .find(|(k, _)| *k == key)
            .map(|(_, s)| Rc::clone(s))
    }) {
        return Ok(s);
    }
    let json = db.run(catalog::CATALOG_SQL, &[], false)?;
    let schema = Rc::new(Schema::build(catalog::Catalog::parse(json)?));
    SCHEMAS.with_borrow_mut(|kept| {
        if kept.len() >= KEPT_SCHEMAS {
            kept.remove(0);
        }
        kept.push((key, Rc::clone(&schema)));
    });
    Ok(schema)
}

#[pg_extern]
fn _internal_resolve(
    query: Option<&str>,
    variables: Option<JsonB>,
    operation_name: Option<&str>,
    _extensions: Option<JsonB>,
) -> JsonB {
    let outcome = pgrx::spi::Spi::connect_mut(|client| {
        resolve::resolve(
            query.unwrap_or_default(),
            Some(variables.map_or(serde_json::json!({}), |v| v.0)),
            operation_name,
            &mut Spi { client },
            load_schema,
        )
    });
    match outcome {
        Outcome::Response(json) => JsonB(json),
        Outcome::Raise(message) => pgrx::error!("{message}"),
    }
}
