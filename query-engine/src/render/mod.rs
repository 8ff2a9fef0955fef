//! Rendering: a plan tree ([`crate::plan::tree`]) turned into one SQL statement. Every value from
//! the request becomes a parameter sent in text format, so PostgreSQL infers its type from the
//! context (`"col" = $1` takes the column's type), as PostgREST's unknown-typed literals do.
//! Identifiers come from the schema cache or the request and are always quoted.

mod body;
mod call;
mod fragments;
mod read;
mod write;

use crate::plan::tree::ActionPlan;
use crate::request::Explain;

/// SQL text and its parameters, all sent in text format. The text is shared: a cached plan's
/// requests, and the request inspector's history of them, all point at the one the cache keeps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Statement {
    pub sql: std::sync::Arc<str>,
    pub params: Vec<String>,
}

pub fn ident(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\"\""))
}

fn literal(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

fn qualified(schema: &str, name: &str) -> String {
    format!("{}.{}", ident(schema), ident(name))
}

/// The statement being built: its parameters and the aliases it has handed out.
#[derive(Default)]
struct Sql {
    params: Vec<String>,
    aliases: usize,
    /// Values as quoted (unknown-typed) literals instead of parameters: for a query that is
    /// itself passed as a value (EXPLAIN of a planned count).
    inline: bool,
}

impl Sql {
    fn param(&mut self, v: impl Into<String>) -> String {
        if self.inline {
            return literal(&v.into());
        }
        self.params.push(v.into());
        format!("${}", self.params.len())
    }

    fn next_alias(&mut self, base: &str) -> String {
        self.aliases += 1;
        format!("{}_{}", base, self.aliases)
    }
}

/// The outer statement PostgREST wraps every request in: one row with the count, the page size,
/// the body built by Postgres, response GUCs, the Location of an insert and, for an upsert, how
/// many rows it inserted (rather than updated).
fn wrap(ctes: &str, total: &str, body: &str, location: &str) -> String {
    format!(
        "WITH {ctes} SELECT {total} AS total_result_set, pg_catalog.count(_postgrest_t)::bigint AS page_total, \
         {body} AS body, nullif(current_setting('response.headers', true), '') AS response_headers, \
         nullif(current_setting('response.status', true), '') AS response_status, {location} AS location, \
         nullif(current_setting('pgrst.inserted', true), '')::bigint AS inserted \
         FROM (SELECT * FROM pgrst_source) AS _postgrest_t"
    )
}

/// Renders a plan as one statement; with `explain`, one that returns its EXPLAIN instead (the
/// statement, values inline, goes to `supagate.explain` as text).
pub fn statement(action: &ActionPlan, explain: Option<Explain>) -> Statement {
    let mut sql = Sql {
        inline: explain.is_some(),
        ..Sql::default()
    };
    let text = match action {
        ActionPlan::Read(r) => read::statement(r, &mut sql),
        ActionPlan::Mutate(m) => write::statement(m, &mut sql),
        ActionPlan::Call(c) => call::statement(c, &mut sql),
    };
    match explain {
        None => Statement {
            sql: text.into(),
            params: sql.params,
        },
        Some(e) => Statement {
            sql: wrap(
                "pgrst_source AS (SELECT supagate.explain($1::text, $2::text) AS plan)",
                "NULL::bigint",
                "max(_postgrest_t.plan)",
                "NULL::text",
            )
            .into(),
            params: vec![text, e.sql_options()],
        },
    }
}

#[cfg(test)]
mod tests;
