//! Mutate plans: the body's rows and columns, upsert conflicts, the filters of updates and
//! deletes, and how the written rows are returned.

use super::read::{attach_query, build_node, select_tree};
use super::tree::{Conflict, MutatePlan, Node, Write};
use super::{Aliases, Input, Kind};
use crate::ast::{CmpOp, Condition, Filter, Operation};
use crate::error::ApiError;
use crate::error::Pgrst;
use crate::request::*;
use crate::schema::{SchemaCache, Table};
use serde::de::{MapAccess, SeqAccess};

/// Parameters a write would not apply are refused, never ignored: PostgREST v14 accepts `limit`
/// and `offset` on POST, PATCH and DELETE but writes every matching row anyway, which turns
/// "delete one" into "delete all".
pub(super) fn refuse_unapplied(method: Method, q: &QueryParams) -> Result<(), ApiError> {
    let name = match method {
        Method::Put => {
            // As PostgREST: a PUT writes the one row its primary key filters name.
            if q.limit.iter().chain(&q.offset).any(|(p, _)| p.is_empty()) {
                return Err(ApiError::pgrst(
                    Pgrst::PutWithLimit,
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
                return Err(ApiError::pgrst(
                    Pgrst::Parse,
                    format!("the {what} querystring parameter only applies to writes"),
                ));
            }
            return Ok(());
        }
    };
    let top_level = |v: &[(EmbedPath, u64)]| v.iter().any(|(p, _)| p.is_empty());
    if top_level(&q.limit) || top_level(&q.offset) {
        return Err(ApiError::pgrst(
            Pgrst::PutWithLimit,
            format!("limit/offset querystring parameters are not allowed for {name}"),
        )
        .details(
            "A write applies to every row its filters match; limit and offset would not narrow it.",
        )
        .hint("Narrow the write with filters, e.g. on the primary key."));
    }
    if method != Method::Post && q.on_conflict.is_some() {
        return Err(ApiError::pgrst(
            Pgrst::Parse,
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
    let invalid = || ApiError::pgrst(Pgrst::InvalidBody, "Empty or invalid json");
    let text = std::str::from_utf8(body).map_err(|_| invalid())?;
    let top: Top = serde_json::from_str(text).map_err(|_| invalid())?;
    match top {
        Top::Object(keys) => Ok(Body {
            rows: format!("[{text}]"),
            keys,
            array: false,
        }),
        Top::Array(items) if rows == Rows::Many || (rows == Rows::One && items.len() == 1) => {
            let mut items = items.into_iter();
            let first = match items.next() {
                Some(first) => first.ok_or_else(invalid)?,
                None => vec![],
            };
            if !columns_given {
                let mut sorted = first.clone();
                sorted.sort();
                for item in items {
                    let mut k = item.ok_or_else(invalid)?;
                    k.sort();
                    if k != sorted {
                        return Err(ApiError::pgrst(
                            Pgrst::InvalidBody,
                            "All object keys must match",
                        ));
                    }
                }
            }
            Ok(Body {
                rows: text.to_string(),
                keys: first,
                array: true,
            })
        }
        _ => Err(invalid()),
    }
}

/// The top of a write's body as planning reads it: the keys of an object, or of each item of an
/// array (None for an item that is not an object). Every value is checked as reading it into a
/// `serde_json::Value` checks it (numbers in range, strings proper Unicode), never built: a
/// body is read once per request.
enum Top {
    Object(Vec<String>),
    Array(Vec<Option<Vec<String>>>),
    Other,
}

/// Any JSON value, checked and dropped.
struct Checked;

/// A visitor's answers to values that are not objects or arrays: `$v`, all the same.
macro_rules! scalars {
    ($t:ty, $v:expr) => {
        fn visit_bool<E>(self, _: bool) -> Result<$t, E> {
            Ok($v)
        }
        fn visit_i64<E>(self, _: i64) -> Result<$t, E> {
            Ok($v)
        }
        fn visit_u64<E>(self, _: u64) -> Result<$t, E> {
            Ok($v)
        }
        fn visit_f64<E>(self, _: f64) -> Result<$t, E> {
            Ok($v)
        }
        fn visit_str<E>(self, _: &str) -> Result<$t, E> {
            Ok($v)
        }
        fn visit_unit<E>(self) -> Result<$t, E> {
            Ok($v)
        }
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("JSON")
        }
    };
}

impl<'de> serde::Deserialize<'de> for Top {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Top, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Top;
            scalars!(Top, Top::Other);
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Top, A::Error> {
                object_keys(map).map(Top::Object)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Top, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element::<Top>()? {
                    // An array in an array is refused in the end, read like the rest meanwhile.
                    items.push(match item {
                        Top::Object(keys) => Some(keys),
                        Top::Array(_) | Top::Other => None,
                    });
                }
                Ok(Top::Array(items))
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de> serde::Deserialize<'de> for Checked {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Checked, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Checked;
            scalars!(Checked, Checked);
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Checked, A::Error> {
                while map.next_entry::<Checked, Checked>()?.is_some() {}
                Ok(Checked)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Checked, A::Error> {
                while seq.next_element::<Checked>()?.is_some() {}
                Ok(Checked)
            }
        }
        d.deserialize_any(V)
    }
}

/// An object's keys in the body's order, a key given twice once, where it first came (as a JSON
/// object read into a map keeps it).
fn object_keys<'de, A: MapAccess<'de>>(mut map: A) -> Result<Vec<String>, A::Error> {
    let mut keys: Vec<String> = Vec::new();
    // Past a few keys, the ones seen are looked up rather than compared one by one.
    let mut seen: Option<std::collections::HashSet<String>> = None;
    while let Some(k) = map.next_key::<String>()? {
        map.next_value::<Checked>()?;
        let new = match &mut seen {
            Some(seen) => seen.insert(k.clone()),
            None => !keys.contains(&k),
        };
        if new {
            keys.push(k);
            if seen.is_none() && keys.len() == 16 {
                seen = Some(keys.iter().cloned().collect());
            }
        }
    }
    Ok(keys)
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
            return Err(ApiError::pgrst(
                Pgrst::ColumnNotFound,
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
        return Err(ApiError::pgrst(
            Pgrst::InvalidPut,
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
                        return Err(ApiError::pgrst(
                            Pgrst::InvalidRange,
                            "Upsert needs a primary key or the on_conflict parameter",
                        )
                        .with_status(405));
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A body, what it is for, whether `?columns=` is given, and its keys and whether it was an
    /// array, or the error's message.
    type Case<'a> = (&'a [u8], Rows, bool, Result<(Vec<String>, bool), &'a str>);

    #[test]
    fn a_body_is_read_for_its_keys_and_checked_whole() {
        let many = (0..20).map(|i| format!("\"k{i}\":{i}")).collect::<Vec<_>>();
        let wide = format!("{{{},\"k3\":0}}", many.join(","));
        let wide_keys: Vec<String> = (0..20).map(|i| format!("k{i}")).collect();
        const INVALID: &str = "Empty or invalid json";
        let keys = |k: &[&str], array: bool| Ok((k.iter().map(|s| s.to_string()).collect(), array));
        let cases: Vec<Case> = vec![
            (
                br#"{"a":1,"b":[1,{"c":2}]}"#,
                Rows::Many,
                false,
                keys(&["a", "b"], false),
            ),
            (
                br#"{"b":1,"a":2,"b":3}"#,
                Rows::Object,
                false,
                keys(&["b", "a"], false),
            ),
            (wide.as_bytes(), Rows::Many, false, Ok((wide_keys, false))),
            (
                br#"{"a":{"b":[1,2,{"c":"\u00e9"}]}}"#,
                Rows::One,
                false,
                keys(&["a"], false),
            ),
            (
                br#"[{"a":1},{"a":2}]"#,
                Rows::Many,
                false,
                keys(&["a"], true),
            ),
            (
                br#"[{"a":1,"b":2},{"b":3,"a":4}]"#,
                Rows::Many,
                false,
                keys(&["a", "b"], true),
            ),
            (
                br#"[{"a":1},{"b":2}]"#,
                Rows::Many,
                false,
                Err("All object keys must match"),
            ),
            (
                br#"[{"a":1},{"b":2}]"#,
                Rows::Many,
                true,
                keys(&["a"], true),
            ),
            (br#"[{"a":1},[1]]"#, Rows::Many, false, Err(INVALID)),
            (br#"[{"a":1},[1]]"#, Rows::Many, true, keys(&["a"], true)),
            (br#"[1,{"a":1}]"#, Rows::Many, true, Err(INVALID)),
            (b"[]", Rows::Many, false, keys(&[], true)),
            (br#"[{"a":1}]"#, Rows::One, false, keys(&["a"], true)),
            (br#"[{"a":1},{"a":2}]"#, Rows::One, false, Err(INVALID)),
            (br#"[{"a":1}]"#, Rows::Object, false, Err(INVALID)),
            (b"1", Rows::Many, false, Err(INVALID)),
            (br#""x""#, Rows::Many, false, Err(INVALID)),
            (b"null", Rows::Many, false, Err(INVALID)),
            (b"", Rows::Many, false, Err(INVALID)),
            (br#"{"a":1} x"#, Rows::Many, false, Err(INVALID)),
            (br#"{"a":1,}"#, Rows::Many, false, Err(INVALID)),
            (br#"{"a":1e400}"#, Rows::Many, false, Err(INVALID)),
            (br#"{"a":"\ud800"}"#, Rows::Many, false, Err(INVALID)),
            (
                br#"[{"a":1},{"a":[1e400]}]"#,
                Rows::Many,
                true,
                Err(INVALID),
            ),
            (b"{\"a\":\"\xff\"}", Rows::Many, false, Err(INVALID)),
        ];
        for (body, rows, columns, want) in cases {
            let got = read_body(body, rows, columns)
                .map(|b| {
                    let text = if b.array {
                        b.rows.clone()
                    } else {
                        b.rows[1..b.rows.len() - 1].to_string()
                    };
                    assert_eq!(text.as_bytes(), body, "the rows are the body's text");
                    (b.keys, b.array)
                })
                .map_err(|e| e.message);
            let body = String::from_utf8_lossy(body);
            match (got, want) {
                (Ok(got), Ok(want)) => assert_eq!(got, want, "{body}"),
                (Err(got), Err(want)) => assert_eq!(got, want, "{body}"),
                (got, want) => panic!("{body}: {got:?}, wanted {want:?}"),
            }
        }
    }
}
