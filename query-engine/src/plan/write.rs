//! Mutate plans: the body's rows and columns, upsert conflicts, the filters of updates and
//! deletes, and how the written rows are returned.

use super::read::{attach_query, build_node, select_tree};
use super::tree::{Conflict, MutatePlan, Node, Write};
use super::{Aliases, Input, Kind};
use crate::ast::{CmpOp, Condition, Filter, Operation};
use crate::error::ApiError;
use crate::request::*;
use crate::schema::{SchemaCache, Table};
use serde_json::Value;

/// Parameters a write would not apply are refused, never ignored: PostgREST v14 accepts `limit`
/// and `offset` on POST, PATCH and DELETE but writes every matching row anyway, which turns
/// "delete one" into "delete all".
pub(super) fn refuse_unapplied(method: Method, q: &QueryParams) -> Result<(), ApiError> {
    let name = match method {
        Method::Put => {
            // As PostgREST: a PUT writes the one row its primary key filters name.
            if q.limit.iter().chain(&q.offset).any(|(p, _)| p.is_empty()) {
                return Err(ApiError::new(
                    400,
                    "PGRST114",
                    "limit/offset querystring parameters are not allowed for PUT",
                ));
            }
            return Ok(());
        }
        Method::Post | Method::Patch | Method::Delete => method.name(),
        Method::Get | Method::Head => {
            if let Some(what) = [
                ("on_conflict", q.on_conflict.is_some()),
                ("columns", q.columns.is_some()),
            ]
            .iter()
            .find_map(|(n, set)| set.then_some(*n))
            {
                return Err(ApiError::new(
                    400,
                    "PGRST100",
                    format!("the {what} querystring parameter only applies to writes"),
                ));
            }
            return Ok(());
        }
    };
    let top_level = |v: &[(EmbedPath, u64)]| v.iter().any(|(p, _)| p.is_empty());
    if top_level(&q.limit) || top_level(&q.offset) {
        return Err(ApiError::new(
            400,
            "PGRST114",
            format!("limit/offset querystring parameters are not allowed for {name}"),
        )
        .details(
            "A write applies to every row its filters match; limit and offset would not narrow it.",
        )
        .hint("Narrow the write with filters, e.g. on the primary key."));
    }
    if method != Method::Post && q.on_conflict.is_some() {
        return Err(ApiError::new(
            400,
            "PGRST100",
            format!("the on_conflict querystring parameter only applies to POST, not {name}"),
        ));
    }
    Ok(())
}

/// How many rows a write's body may hold.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Rows {
    /// POST: an object or an array of them.
    Many,
    /// PATCH: one object.
    Object,
    /// PUT: one row, as an object or an array of one.
    One,
}

impl Rows {
    /// What a write of `method` takes; None for methods without a body.
    pub(crate) fn of(method: Method) -> Option<Rows> {
        match method {
            Method::Post => Some(Rows::Many),
            Method::Put => Some(Rows::One),
            Method::Patch => Some(Rows::Object),
            _ => None,
        }
    }
}

/// A write's JSON body as planning reads it.
pub(crate) struct Body {
    /// The rows as a JSON array text (an object is wrapped in one).
    pub rows: String,
    /// The keys of the (first) object, in the body's order.
    pub keys: Vec<String>,
    /// Whether it came as an array.
    pub array: bool,
}

/// Reads a write's JSON body: an object, or (as `rows` allows) an array of objects, all with the
/// same keys unless `?columns=` names the columns.
pub(crate) fn read_body(body: &[u8], rows: Rows, columns_given: bool) -> Result<Body, ApiError> {
    let invalid = || ApiError::new(400, "PGRST102", "Empty or invalid json");
    let value: Value = serde_json::from_slice(body).map_err(|_| invalid())?;
    let keys_of =
        |v: &Value| -> Option<Vec<String>> { v.as_object().map(|o| o.keys().cloned().collect()) };
    match &value {
        Value::Object(_) => Ok(Body {
            rows: format!("[{}]", String::from_utf8_lossy(body)),
            keys: keys_of(&value).unwrap_or_default(),
            array: false,
        }),
        Value::Array(items) if rows == Rows::Many || (rows == Rows::One && items.len() == 1) => {
            let first = items
                .first()
                .map(keys_of)
                .unwrap_or(Some(vec![]))
                .ok_or_else(invalid)?;
            if !columns_given {
                let mut sorted = first.clone();
                sorted.sort();
                for item in items {
                    let mut k = keys_of(item).ok_or_else(invalid)?;
                    k.sort();
                    if k != sorted {
                        return Err(ApiError::new(400, "PGRST102", "All object keys must match"));
                    }
                }
            }
            Ok(Body {
                rows: String::from_utf8_lossy(body).into_owned(),
                keys: first,
                array: true,
            })
        }
        _ => Err(invalid()),
    }
}

/// Parses the JSON body of a write: its rows as a JSON array text and the columns to write.
fn body_rows(
    table: &Table,
    q: &QueryParams,
    body: &[u8],
    rows: Rows,
) -> Result<(String, Vec<String>), ApiError> {
    let Body { rows, keys, .. } = read_body(body, rows, q.columns.is_some())?;
    let columns = q.columns.clone().unwrap_or(keys);
    for c in &columns {
        if table.column(c).is_none() {
            return Err(ApiError::new(
                400,
                "PGRST204",
                format!(
                    "Could not find the '{c}' column of '{}' in the schema cache",
                    table.name
                ),
            ));
        }
    }
    Ok((rows, columns))
}

/// The top-level filters of an update or delete (embedded ones cannot apply to a write).
fn filters<'c>(
    cache: &'c SchemaCache,
    table: &'c Table,
    q: &QueryParams,
) -> Result<Node<'c>, ApiError> {
    let mut root = build_node(
        cache,
        Some(table),
        table.name.clone(),
        &[],
        &mut Aliases::default(),
        0,
    )?;
    attach_query(&mut root, q)?;
    Ok(root)
}

/// A PUT's filters: exactly the primary key's columns, each with `eq` (PostgREST's rule).
fn put_filters(
    cache: &SchemaCache,
    table: &Table,
    q: &QueryParams,
) -> Result<Vec<Condition>, ApiError> {
    let conditions = filters(cache, table, q)?.conditions;
    let mut named: Vec<&str> = Vec::new();
    let all_eq = conditions.iter().all(|c| match c {
        Condition::Filter(Filter {
            field,
            negate: false,
            op: Operation::Compare(CmpOp::Eq, _),
        }) if field.json_path.is_empty() => {
            named.push(&field.name);
            true
        }
        _ => false,
    });
    let mut pk: Vec<&str> = table.primary_key.iter().map(String::as_str).collect();
    named.sort();
    named.dedup();
    pk.sort();
    if !all_eq || pk.is_empty() || named != pk {
        return Err(ApiError::new(
            405,
            "PGRST105",
            "Filters must include all and only primary key columns with 'eq' operators",
        ));
    }
    Ok(conditions)
}

/// The representation of the written rows: `select=` with embeds; the written rows are the top
/// level (its filters already chose them, and re-applying them could drop rows an update
/// changed), while embedded filters, orders and pages and the top-level order shape it.
fn representation<'c>(
    cache: &'c SchemaCache,
    table: &'c Table,
    q: &QueryParams,
) -> Result<Node<'c>, ApiError> {
    let nested =
        |v: &[(EmbedPath, u64)]| v.iter().filter(|(p, _)| !p.is_empty()).cloned().collect();
    let shaping = QueryParams {
        conditions: q
            .conditions
            .iter()
            .filter(|(p, _)| !p.is_empty())
            .cloned()
            .collect(),
        order: q.order.clone(),
        limit: nested(&q.limit),
        offset: nested(&q.offset),
        ..QueryParams::default()
    };
    let mut root = select_tree(cache, Some(table), table.name.clone(), &q.select)?;
    attach_query(&mut root, &shaping)?;
    Ok(root)
}

pub(super) fn plan<'c>(
    cache: &'c SchemaCache,
    table: &'c Table,
    q: &QueryParams,
    input: &Input,
    kind: Kind,
    media: MediaType,
) -> Result<MutatePlan<'c>, ApiError> {
    let return_ = input.prefer.return_.unwrap_or(Return::Minimal);
    let write = match kind {
        Kind::Insert => {
            let (rows, columns) = body_rows(table, q, input.body, Rows::Many)?;
            let conflict = match input.prefer.resolution {
                None => None,
                Some(resolution) => {
                    let keys = q
                        .on_conflict
                        .clone()
                        .unwrap_or_else(|| table.primary_key.clone());
                    if keys.is_empty() {
                        return Err(ApiError::new(
                            405,
                            "PGRST103",
                            "Upsert needs a primary key or the on_conflict parameter",
                        ));
                    }
                    Some(Conflict { resolution, keys })
                }
            };
            Write::Insert {
                rows,
                columns,
                missing_default: input.prefer.missing_default,
                conflict,
                put: vec![],
            }
        }
        Kind::Put => {
            let conditions = put_filters(cache, table, q)?;
            let (rows, columns) = body_rows(table, q, input.body, Rows::One)?;
            Write::Insert {
                rows,
                columns,
                missing_default: false,
                conflict: Some(Conflict {
                    resolution: Resolution::MergeDuplicates,
                    keys: table.primary_key.clone(),
                }),
                put: conditions,
            }
        }
        Kind::Update => {
            let (rows, columns) = body_rows(table, q, input.body, Rows::Object)?;
            Write::Update {
                rows,
                columns,
                conditions: filters(cache, table, q)?.conditions,
            }
        }
        _ => Write::Delete {
            conditions: filters(cache, table, q)?.conditions,
        },
    };
    let representation = if return_ == Return::Representation {
        Some(representation(cache, table, q)?)
    } else {
        None
    };
    Ok(MutatePlan {
        table,
        location: kind == Kind::Insert,
        write,
        return_,
        representation,
        media,
    })
}
