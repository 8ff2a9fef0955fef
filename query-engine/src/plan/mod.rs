//! Planning: a parsed request resolved against the schema cache (tables, columns, relationships,
//! function overloads) into a typed plan tree ([`tree`]), which [`crate::render`] turns into one
//! SQL statement with bound parameters ([`crate::compile`] does both). As PostgREST:
//! ApiRequest → Plan → Query.

mod call;
mod read;
mod relationships;
pub mod tree;
pub(crate) mod write;

use crate::error::ApiError;
use crate::error::Pgrst;
use crate::request::*;
use crate::schema::{SchemaCache, Table};
use tree::ActionPlan;

#[derive(Debug, Clone)]
pub struct EngineConfig {
    /// PostgREST's db-max-rows: an upper bound on rows a read returns.
    pub max_rows: Option<u64>,
    /// Exposed schemas; the first is the default.
    pub schemas: Vec<String>,
}

impl EngineConfig {
    /// db-max-rows, from the database (`pgrst.db_max_rows` on the login role) over the
    /// project's config.toml, as PostgREST reads its in-database configuration.
    fn max_rows(&self, cache: &SchemaCache) -> Option<u64> {
        match cache.db_setting("db_max_rows") {
            Some(v) => v.trim().parse().ok().filter(|n| *n > 0),
            None => self.max_rows,
        }
    }
}

/// Applies db-tx-end (`pgrst.db_tx_end`: commit, commit-allow-override, rollback,
/// rollback-allow-override; PostgREST's default is commit) to the request's preferences: `tx=`
/// counts only where overriding is allowed.
fn transaction_end(prefer: &mut Preferences, cache: &SchemaCache) {
    let tx_end = cache.db_setting("db_tx_end").unwrap_or("commit");
    let allow = tx_end.ends_with("-allow-override");
    let rollback_all = tx_end.starts_with("rollback");
    if !allow {
        prefer.applied.retain(|a| !a.starts_with("tx="));
    }
    prefer.tx_rollback =
        (allow && prefer.tx_rollback) || (rollback_all && !(allow && prefer.tx_commit));
}

/// What the gateway received, already split into parts.
#[derive(Clone)]
pub struct Input<'a> {
    pub method: Method,
    pub resource: Resource,
    pub query: &'a [(String, String)],
    pub accept: Option<&'a str>,
    pub prefer: Preferences,
    pub range: Option<&'a str>,
    /// `Accept-Profile` (reads) or `Content-Profile` (writes).
    pub profile: Option<&'a str>,
    /// `Content-Type` of the body (a function's single unnamed parameter depends on it).
    pub content_type: Option<&'a str>,
    pub body: &'a [u8],
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Read,
    Insert,
    /// PUT: one row inserted or replaced.
    Put,
    Update,
    Delete,
    Call {
        void: bool,
    },
}

/// What the response builder needs to know besides the statement's result.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub kind: Kind,
    pub head: bool,
    pub media: MediaType,
    pub return_: Return,
    pub offset: u64,
    pub schema: String,
    pub echo_profile: bool,
    pub prefer: Preferences,
}

/// Names the planner gives the relations of a read (`products_1`), unique in one statement.
#[derive(Default)]
struct Aliases(usize);

impl Aliases {
    fn next(&mut self, base: &str) -> String {
        self.0 += 1;
        format!("{}_{}", base, self.0)
    }
}

/// The request's schema: the profile header's, if exposed, else the first exposed one.
fn resolve_schema(cfg: &EngineConfig, profile: Option<&str>) -> Result<(String, bool), ApiError> {
    match profile {
        None => Ok((
            cfg.schemas
                .first()
                .cloned()
                .unwrap_or_else(|| "public".into()),
            false,
        )),
        Some(p) if cfg.schemas.iter().any(|s| s == p) => Ok((p.to_string(), true)),
        Some(p) => Err(
            ApiError::pgrst(Pgrst::SchemaNotExposed, format!("Invalid schema: {p}")).hint(format!(
                "Only the following schemas are exposed: {}",
                cfg.schemas.join(", ")
            )),
        ),
    }
}

fn table_or_404<'c>(
    cache: &'c SchemaCache,
    schema: &str,
    name: &str,
) -> Result<&'c Table, ApiError> {
    cache.table(schema, name).ok_or_else(|| {
        let e = ApiError::pgrst(
            Pgrst::TableNotFound,
            format!("Could not find the table '{schema}.{name}' in the schema cache"),
        );
        match cache.closest_table(schema, name) {
            Some(c) => e.hint(format!("Perhaps you meant the table '{schema}.{c}'")),
            None => e,
        }
    })
}

/// Builds the plan tree of a request, and what its response needs.
pub fn action<'c>(
    input: &Input,
    cache: &'c SchemaCache,
    cfg: &EngineConfig,
) -> Result<(ActionPlan<'c>, Outcome), ApiError> {
    action_parsed(input, cache, cfg, None)
}

/// [`action`], with a table request's query string already parsed (`parsed`, from
/// [`parse_query`] of `input.query`, or in the plan cache's shape: its values replaced).
pub(crate) fn action_parsed<'c>(
    input: &Input,
    cache: &'c SchemaCache,
    cfg: &EngineConfig,
    parsed: Option<&QueryParams>,
) -> Result<(ActionPlan<'c>, Outcome), ApiError> {
    let (schema, echo_profile) = resolve_schema(cfg, input.profile)?;
    let negotiated = negotiate(input.accept, false)?;
    // A plan is the EXPLAIN of the query its `for` media type would run.
    let media = match negotiated {
        MediaType::Plan(e) if cache.db_setting("db_plan_enabled") == Some("true") => {
            e.target_media()
        }
        MediaType::Plan(_) => {
            return Err(ApiError::pgrst(
                Pgrst::NotAcceptable,
                format!(
                    "None of these media types are available: {}",
                    input.accept.unwrap_or_default()
                ),
            ));
        }
        m => m,
    };
    let head = input.method == Method::Head;
    let return_ = input.prefer.return_.unwrap_or(Return::Minimal);
    let mut outcome = Outcome {
        kind: Kind::Read,
        head,
        media: negotiated,
        return_,
        offset: 0,
        schema: schema.clone(),
        echo_profile,
        prefer: input.prefer.clone(),
    };
    transaction_end(&mut outcome.prefer, cache);
    let action = match &input.resource {
        Resource::Table(name) => {
            let table = table_or_404(cache, &schema, name)?;
            let parsed_here;
            let q = match parsed {
                Some(q) => q,
                None => {
                    parsed_here = parse_query(input.query, false)?;
                    &parsed_here
                }
            };
            write::refuse_unapplied(input.method, q)?;
            let kind = match input.method {
                Method::Get | Method::Head => Kind::Read,
                Method::Post => Kind::Insert,
                Method::Put => Kind::Put,
                Method::Patch => Kind::Update,
                Method::Delete => Kind::Delete,
            };
            outcome.kind = kind;
            if kind == Kind::Read {
                let read = read::plan(cache, cfg, table, q, input, media)?;
                outcome.offset = read.root.offset.unwrap_or(0);
                ActionPlan::Read(read)
            } else {
                ActionPlan::Mutate(write::plan(cache, table, q, input, kind, media)?)
            }
        }
        Resource::Rpc(name) => {
            if !matches!(input.method, Method::Get | Method::Head | Method::Post) {
                return Err(ApiError::pgrst(
                    Pgrst::InvalidRpcMethod,
                    format!("Cannot use the {} method on RPC", input.method.name()),
                ));
            }
            let call = call::plan(cache, cfg, &schema, name, input, media)?;
            outcome.kind = Kind::Call {
                void: call.func.returns_void,
            };
            outcome.offset = call.rows.as_ref().and_then(|r| r.offset).unwrap_or(0);
            ActionPlan::Call(call)
        }
    };
    // After the resource was found, as PostgREST checks it.
    input.prefer.check_strict()?;
    Ok((action, outcome))
}

#[cfg(test)]
mod tests;
