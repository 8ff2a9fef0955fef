//! A request compiled: planned against the schema cache ([`crate::plan`]), then rendered
//! into one SQL statement ([`crate::render`]).

use crate::error::ApiError;
use crate::plan::tree::ActionPlan;
use crate::plan::{EngineConfig, Input, Outcome, action_parsed};
use crate::render::{self, Statement};
use crate::request::{MediaType, QueryParams};
use crate::schema::SchemaCache;

#[derive(Debug, Clone)]
pub struct Plan {
    pub statement: Statement,
    pub read_only: bool,
    /// Shared with the plan cache's copy.
    pub outcome: std::sync::Arc<Outcome>,
}

/// Plans a request and renders it as one statement.
pub fn plan(input: &Input, cache: &SchemaCache, cfg: &EngineConfig) -> Result<Plan, ApiError> {
    plan_parsed(input, cache, cfg, None)
}

/// [`plan`], with a table request's query string already parsed.
pub(crate) fn plan_parsed(
    input: &Input,
    cache: &SchemaCache,
    cfg: &EngineConfig,
    parsed: Option<&QueryParams>,
) -> Result<Plan, ApiError> {
    let (action, outcome) = action_parsed(input, cache, cfg, parsed)?;
    let read_only = match &action {
        ActionPlan::Read(_) => true,
        ActionPlan::Mutate(_) => false,
        ActionPlan::Call(c) => input.method.is_read() || c.func.is_read_only(),
    };
    let explain = match outcome.media {
        MediaType::Plan(e) => Some(e),
        _ => None,
    };
    Ok(Plan {
        statement: render::statement(&action, explain),
        read_only,
        outcome: outcome.into(),
    })
}
