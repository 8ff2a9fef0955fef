//! What the table editor asks for, read from its query string: PostgREST's filter operators
//! (`col=eq.5`, `not.`, `in.(…)`, `is.null`, `like.*x*`), `order=col.desc.nullslast` and
//! `limit`/`offset` paging.

use crate::StudioError;

/// Rows a page shows at most.
pub const MAX_LIMIT: i64 = 1000;
pub const DEFAULT_LIMIT: i64 = 100;
/// Filters and order terms one request may give.
const MAX_TERMS: usize = 32;

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Op {
    Eq,
    Neq,
    Gt,
    Gte,
    Lt,
    Lte,
    Like,
    Ilike,
    Is,
    In,
}

impl Op {
    fn parse(s: &str) -> Option<Op> {
        Some(match s {
            "eq" => Op::Eq,
            "neq" => Op::Neq,
            "gt" => Op::Gt,
            "gte" => Op::Gte,
            "lt" => Op::Lt,
            "lte" => Op::Lte,
            "like" => Op::Like,
            "ilike" => Op::Ilike,
            "is" => Op::Is,
            "in" => Op::In,
            _ => return None,
        })
    }

    pub(crate) fn comparison(self) -> Option<&'static str> {
        Some(match self {
            Op::Eq => "=",
            Op::Neq => "<>",
            Op::Gt => ">",
            Op::Gte => ">=",
            Op::Lt => "<",
            Op::Lte => "<=",
            _ => return None,
        })
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Filter {
    pub column: String,
    pub negated: bool,
    pub op: Op,
    pub value: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Order {
    pub column: String,
    pub descending: bool,
    /// `Some(true)`: NULLS FIRST.
    pub nulls_first: Option<bool>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct RowQuery {
    pub filters: Vec<Filter>,
    pub order: Vec<Order>,
    pub limit: i64,
    pub offset: i64,
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
                "order" => {
                    for term in value.split(',').filter(|t| !t.is_empty()) {
                        q.order.push(parse_order(term)?);
                    }
                }
                column => q.filters.push(parse_filter(column, value)?),
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

fn parse_order(term: &str) -> Result<Order, StudioError> {
    let mut parts: Vec<&str> = term.split('.').collect();
    let mut order = Order {
        column: String::new(),
        descending: false,
        nulls_first: None,
    };
    // The modifiers are at the end; a column name may hold dots.
    while let Some(last) = parts.last().copied() {
        match last {
            "asc" if parts.len() > 1 => order.descending = false,
            "desc" if parts.len() > 1 => order.descending = true,
            "nullsfirst" if parts.len() > 1 => order.nulls_first = Some(true),
            "nullslast" if parts.len() > 1 => order.nulls_first = Some(false),
            _ => break,
        }
        parts.pop();
    }
    order.column = parts.join(".");
    if order.column.is_empty() {
        return Err(StudioError::Invalid(format!("\"{term}\" is not an order")));
    }
    Ok(order)
}

fn parse_filter(column: &str, value: &str) -> Result<Filter, StudioError> {
    let (negated, rest) = match value.strip_prefix("not.") {
        Some(r) => (true, r),
        None => (false, value),
    };
    let (op, operand) = rest.split_once('.').unwrap_or((rest, ""));
    let op = Op::parse(op).ok_or_else(|| {
        StudioError::Invalid(format!(
            "\"{value}\" on {column} is not a filter: use eq, neq, gt, gte, lt, lte, like, \
             ilike, is or in, as in eq.5"
        ))
    })?;
    if op == Op::Is && !matches!(operand, "null" | "true" | "false" | "unknown") {
        return Err(StudioError::Invalid(format!(
            "is takes null, true, false or unknown, not \"{operand}\""
        )));
    }
    if op == Op::In && !(operand.starts_with('(') && operand.ends_with(')')) {
        return Err(StudioError::Invalid(format!(
            "in takes a list in parentheses, as in in.(1,2,3), not \"{operand}\""
        )));
    }
    Ok(Filter {
        column: column.to_string(),
        negated,
        op,
        value: operand.to_string(),
    })
}

/// `(a,"b,c",d)` → `[a, b,c, d]` (double quotes keep commas; `\"` inside them).
pub fn list_items(list: &str) -> Vec<String> {
    let inner = &list[1..list.len() - 1];
    let mut items = vec![];
    let mut cur = String::new();
    let (mut quoted, mut escaped, mut was_quoted) = (false, false, false);
    for ch in inner.chars() {
        match ch {
            _ if escaped => {
                cur.push(ch);
                escaped = false;
            }
            '\\' if quoted => escaped = true,
            '"' => {
                quoted = !quoted;
                was_quoted = true;
            }
            ',' if !quoted => {
                items.push(if was_quoted {
                    cur.clone()
                } else {
                    cur.trim().to_string()
                });
                cur.clear();
                was_quoted = false;
            }
            _ => cur.push(ch),
        }
    }
    if !inner.is_empty() {
        items.push(if was_quoted {
            cur
        } else {
            cur.trim().to_string()
        });
    }
    items
}
