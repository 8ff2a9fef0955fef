//! What the table editor asks for, read from its query string with PostgREST's own grammar
//! (query-engine's parser): filters (`col=eq.5`, `not.`, `in.(…)`, `is.null`, `like.*x*`,
//! `cs.{a}`, `fts.word`, `gt(any).{1,2}`, …), `order=col.desc.nullslast` and `limit`/`offset`.

use crate::StudioError;
use query_engine::ast::{Filter, OrderTerm};
use query_engine::parser::{ParseError, parse_filter, parse_order};

/// Rows a page shows at most.
pub const MAX_LIMIT: i64 = 1000;
pub const DEFAULT_LIMIT: i64 = 100;
/// Filters and order terms one request may give.
const MAX_TERMS: usize = 32;

#[derive(Debug, Clone, PartialEq)]
pub struct RowQuery {
    pub filters: Vec<Filter>,
    pub order: Vec<OrderTerm>,
    pub limit: i64,
    pub offset: i64,
}

fn refused(what: &str, e: ParseError) -> StudioError {
    StudioError::Invalid(format!("{what} is not a filter: {}", e.details))
}

impl RowQuery {
    /// Reads query pairs: `limit`, `offset`, `order` and `column=op.value` filters.
    pub fn parse(pairs: &[(String, String)]) -> Result<RowQuery, StudioError> {
        let invalid = |m: String| StudioError::Invalid(m);
        let mut q = RowQuery {
            filters: vec![],
            order: vec![],
            limit: DEFAULT_LIMIT,
            offset: 0,
        };
        for (key, value) in pairs {
            match key.as_str() {
                "limit" => {
                    q.limit = value
                        .parse::<i64>()
                        .ok()
                        .filter(|n| (1..=MAX_LIMIT).contains(n))
                        .ok_or_else(|| invalid(format!("limit is 1 to {MAX_LIMIT}")))?
                }
                "offset" => {
                    q.offset = value
                        .parse::<i64>()
                        .ok()
                        .filter(|n| *n >= 0)
                        .ok_or_else(|| invalid("offset is a number from 0".into()))?
                }
                "order" => q.order.extend(parse_order(value).map_err(|e| {
                    StudioError::Invalid(format!("\"{value}\" is not an order: {}", e.details))
                })?),
                column => q.filters.push(
                    parse_filter(column, value)
                        .map_err(|e| refused(&format!("\"{value}\" on {column}"), e))?,
                ),
            }
        }
        if q.filters.len() + q.order.len() > MAX_TERMS {
            return Err(invalid(format!(
                "at most {MAX_TERMS} filters and order terms"
            )));
        }
        Ok(q)
    }
}
