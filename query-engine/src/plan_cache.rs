//! Compiled table requests kept by the request's shape: the same query string with other values
//! (`id=eq.1`, `id=eq.2`) plans and renders to the same SQL with other parameters, so a
//! statement is made once per shape and reused with the request's own values.
//!
//! A shape is the parsed query string without each value that renders as one parameter
//! unchanged (the right side of `eq`, `gt`, …, `is.distinct`, the set operators, a full-text
//! query), together with everything else planning reads (method, table, `Accept`, `Prefer`,
//! `Range`, profile) and, for a write, its body's layout (object or array, and its keys in
//! order) without the body itself. The shape, a marker in place of each value, is planned and
//! rendered like any request; its statement is kept only if every marker came out as a whole
//! parameter and none reached the SQL text or another parameter (a value inlined for a planned
//! count, or one that rendering changed, makes the shape uncacheable, and such requests are
//! planned each time). A write's body is one parameter: the shape is planned with the body and
//! again with another of the same layout, and kept only if the two differ in that parameter
//! alone.
//! Debug builds plan every cached request directly as well and panic on any difference, so the
//! whole test suite checks the cache.
//!
//! The cache belongs to one schema cache (a reload starts an empty one) and holds at most
//! [`SHAPES`] shapes; when full it starts over.

use crate::ast::{CmpOp, Condition, Operation};
use crate::compile::{Plan, plan_parsed};
use crate::error::ApiError;
use crate::plan::write::{Rows, read_body};
use crate::plan::{EngineConfig, Input, Outcome};
use crate::render::Statement;
use crate::request::{Method, Preferences, QueryParams, Resource, parse_query};
use crate::schema::SchemaCache;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::Arc;

/// Shapes kept per schema cache.
pub const SHAPES: usize = 512;

/// Starts and ends a marker; PostgreSQL's text has no NUL, so no real value is refused for it.
const MARK: char = '\0';

#[derive(PartialEq, Eq, Hash)]
struct Shape {
    method: Method,
    table: String,
    query: QueryParams,
    accept: Option<String>,
    prefer: Preferences,
    range: Option<String>,
    profile: Option<String>,
    /// A write's body: whether it is an array, and its (first) object's keys in order.
    body: Option<(bool, Vec<String>)>,
}

enum Param {
    /// The request's n-th value.
    Value(usize),
    /// The same for every request of the shape (a JSON key, a limit).
    Fixed(String),
}

struct Template {
    /// Shared with each request's statement (no copy per request).
    sql: Arc<str>,
    params: Vec<Param>,
    read_only: bool,
    outcome: Arc<Outcome>,
}

#[derive(Default)]
struct PlanCache(Mutex<HashMap<Shape, Option<Arc<Template>>, foldhash::fast::RandomState>>);

/// A schema cache with the reads compiled against it, by shape: made anew (with no plans) when
/// the schema is reloaded, so a plan never outlives the schema it was compiled against. It is
/// the schema cache for everything else (it dereferences to it).
pub struct Compiled {
    schema: SchemaCache,
    plans: PlanCache,
}

impl Compiled {
    pub fn new(schema: SchemaCache) -> Self {
        Compiled {
            schema,
            plans: PlanCache::default(),
        }
    }
}

impl std::ops::Deref for Compiled {
    type Target = SchemaCache;
    fn deref(&self) -> &SchemaCache {
        &self.schema
    }
}

impl std::fmt::Debug for PlanCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.0.lock().len();
        write!(f, "PlanCache({n} shapes)")
    }
}

impl PlanCache {
    fn get(&self, shape: &Shape) -> Option<Option<Arc<Template>>> {
        self.0.lock().get(shape).cloned()
    }

    fn put(&self, shape: Shape, template: Option<Arc<Template>>) {
        let mut map = self.0.lock();
        if map.len() >= SHAPES {
            map.clear();
        }
        map.insert(shape, template);
    }
}

/// [`crate::plan`], through the plans of `compiled` for requests to tables.
pub fn plan_cached(
    input: &Input,
    compiled: &Compiled,
    cfg: &EngineConfig,
) -> Result<Plan, ApiError> {
    let cache = &compiled.schema;
    let Some((shape, values)) = shape_of(input) else {
        return plan_parsed(input, cache, cfg, None);
    };
    let template = match compiled.plans.get(&shape) {
        Some(t) => t,
        None => {
            let t = template(input, &shape, cache, cfg).map(Arc::new);
            compiled.plans.put(shape, t.clone());
            t
        }
    };
    let Some(t) = template else {
        return plan_parsed(input, cache, cfg, None);
    };
    let plan = Plan {
        statement: Statement {
            sql: t.sql.clone(),
            params: t
                .params
                .iter()
                .map(|p| match p {
                    Param::Value(i) => values[*i].clone(),
                    Param::Fixed(s) => s.clone(),
                })
                .collect(),
        },
        read_only: t.read_only,
        outcome: t.outcome.clone(),
    };
    #[cfg(debug_assertions)]
    {
        let direct = plan_parsed(input, cache, cfg, None).expect("a cached shape plans");
        assert_eq!(plan.statement, direct.statement, "cached plan differs");
        assert_eq!(plan.read_only, direct.read_only);
        assert_eq!(
            format!("{:?}", plan.outcome),
            format!("{:?}", direct.outcome)
        );
    }
    Ok(plan)
}

/// The shape of a table request and its values, in marker order (a write's body, as rows, last);
/// None for what is not cached (calls, a query string or body that does not parse: the direct
/// path says why).
fn shape_of(input: &Input) -> Option<(Shape, Vec<String>)> {
    let Resource::Table(table) = &input.resource else {
        return None;
    };
    // The values are taken out (the shape keeps empty ones); markers go in only to plan it.
    let mut query = parse_query(input.query, false).ok()?;
    let mut values = Vec::new();
    for (_, c) in &mut query.conditions {
        values_of(c, &mut |v| values.push(std::mem::take(v)));
    }
    let body = match Rows::of(input.method) {
        Some(rows) => {
            let b = read_body(input.body, rows, query.columns.is_some()).ok()?;
            values.push(b.rows);
            Some((b.array, b.keys))
        }
        None => None,
    };
    let owned = |s: Option<&str>| s.map(str::to_string);
    Some((
        Shape {
            method: input.method,
            table: table.clone(),
            query,
            accept: owned(input.accept),
            prefer: input.prefer.clone(),
            range: owned(input.range),
            profile: owned(input.profile),
            body,
        },
        values,
    ))
}

/// The n-th value's stand-in while a shape is planned (once per shape).
fn marker(i: usize) -> String {
    format!("{MARK}{i}{MARK}")
}

/// Calls `each` on each value of `c` that renders as one parameter as it is, in order.
fn values_of(c: &mut Condition, each: &mut impl FnMut(&mut String)) {
    match c {
        Condition::Tree { children, .. } => children.iter_mut().for_each(|c| values_of(c, each)),
        Condition::Filter(f) => match &mut f.op {
            // LIKE's `*` becomes `%`: such values stay in the shape.
            Operation::Compare(CmpOp::Like | CmpOp::Ilike, _) => {}
            Operation::Compare(_, v) | Operation::IsDistinct(v) | Operation::Set(_, v) => each(v),
            Operation::Fts { query, .. } => each(query),
            Operation::Quantified(..) | Operation::Is(_) | Operation::In(_) => {}
        },
    }
}

/// The shape's statement, if every marker became a whole parameter and nothing else.
fn template(
    input: &Input,
    shape: &Shape,
    cache: &SchemaCache,
    cfg: &EngineConfig,
) -> Option<Template> {
    let mut marked = shape.query.clone();
    let mut n = 0;
    for (_, c) in &mut marked.conditions {
        values_of(c, &mut |v| {
            *v = marker(n);
            n += 1;
        });
    }
    let plan = plan_parsed(input, cache, cfg, Some(&marked)).ok()?;
    if plan.statement.sql.contains(MARK) {
        return None;
    }
    // A write's body: planned again with another body of the same layout, the one parameter
    // that differs is the body's.
    let body = match &shape.body {
        Some((array, keys)) => {
            let rows = read_body(input.body, Rows::of(input.method)?, true)
                .ok()?
                .rows;
            let other = other_body(*array, keys, &rows);
            let probe = Input {
                body: other.as_bytes(),
                ..input.clone()
            };
            let again = plan_parsed(&probe, cache, cfg, Some(&marked)).ok()?;
            let other_rows = read_body(other.as_bytes(), Rows::of(input.method)?, true)
                .ok()?
                .rows;
            if again.statement.sql != plan.statement.sql
                || again.statement.params.len() != plan.statement.params.len()
            {
                return None;
            }
            let mut differ = (0..plan.statement.params.len())
                .filter(|&i| plan.statement.params[i] != again.statement.params[i]);
            let at = differ.next();
            let whole = at.is_none_or(|i| {
                plan.statement.params[i] == rows && again.statement.params[i] == other_rows
            });
            if !whole || differ.next().is_some() {
                return None;
            }
            at.map(|i| (i, n))
        }
        None => None,
    };
    let params = plan
        .statement
        .params
        .into_iter()
        .enumerate()
        .map(|(i, p)| match body {
            Some((at, value)) if at == i => Some(Param::Value(value)),
            _ => match p.strip_prefix(MARK).and_then(|r| r.strip_suffix(MARK)) {
                Some(n) => n.parse().ok().map(Param::Value),
                None if p.contains(MARK) => None,
                None => Some(Param::Fixed(p)),
            },
        })
        .collect::<Option<Vec<_>>>()?;
    Some(Template {
        sql: plan.statement.sql,
        params,
        read_only: plan.read_only,
        outcome: plan.outcome,
    })
}

/// A body of the same layout as the one whose rows are `rows` (an array, or an object, with
/// `keys` in that order) and other values, never the same text: each value is a string with a
/// NUL (`"\u0000a"`, or `"\u0000b"` if that would give `rows` itself).
fn other_body(array: bool, keys: &[String], rows: &str) -> String {
    let object = |value: &str| {
        let fields: Vec<String> = keys
            .iter()
            .map(|k| format!("{}:{}", serde_json::Value::from(k.as_str()), value))
            .collect();
        format!("{{{}}}", fields.join(","))
    };
    // Two candidates: at least one differs from the body's own rows.
    let made = |value: &str| {
        let o = object(value);
        if array { format!("[{o}]") } else { o }
    };
    let first = made("\"\\u0000a\"");
    let wrapped = if array {
        first.clone()
    } else {
        format!("[{first}]")
    };
    if wrapped == rows {
        made("\"\\u0000b\"")
    } else {
        first
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::parse_prefer;

    /// The shop's schema, with no plans yet.
    fn shop() -> Compiled {
        Compiled::new(crate::schema::fixture::shop())
    }

    fn cfg() -> EngineConfig {
        EngineConfig {
            max_rows: Some(1000),
            schemas: vec!["public".into()],
        }
    }

    /// Plans `query` on products through the cache and directly.
    fn both(cache: &Compiled, query: &[(&str, &str)], prefer: &str) -> (Plan, Plan) {
        let query: Vec<(String, String)> = query
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let input = Input {
            method: Method::Get,
            resource: Resource::Table("products".into()),
            query: &query,
            accept: None,
            prefer: parse_prefer([prefer]),
            range: None,
            profile: None,
            content_type: None,
            body: b"",
        };
        let cached = plan_cached(&input, cache, &cfg()).unwrap();
        let direct = crate::plan(&input, cache, &cfg()).unwrap();
        (cached, direct)
    }

    fn shapes(cache: &Compiled) -> Vec<bool> {
        let map = cache.plans.0.lock();
        let mut v: Vec<bool> = map.values().map(Option::is_some).collect();
        v.sort();
        v
    }

    #[test]
    fn one_shape_serves_other_values_and_keeps_them_apart() {
        // (a query string, the same with other values, Prefer, the shapes kept after both:
        // cacheable or not).
        type Row<'a> = (
            &'a [(&'a str, &'a str)],
            &'a [(&'a str, &'a str)],
            &'a str,
            &'a [bool],
        );
        let table: &[Row] = &[
            (&[("id", "eq.1")], &[("id", "eq.2")], "", &[true]),
            (
                &[("name", "gt.a b"), ("order", "name.desc")],
                &[("name", "gt.c"), ("order", "name.desc")],
                "",
                &[true],
            ),
            (
                &[("name", "isdistinct.x'\"\\*")],
                &[("name", "isdistinct.)")],
                "",
                &[true],
            ),
            (
                &[("or", "(name.eq.a,slug.neq.b)")],
                &[("or", "(name.eq.c,slug.neq.d)")],
                "count=exact",
                &[true],
            ),
            (
                &[("name", "fts(english).rose")],
                &[("name", "fts(english).tulip")],
                "",
                &[true],
            ),
            // LIKE's and IN's values stay in the shape: two shapes.
            (
                &[("name", "like.*a*")],
                &[("name", "like.*b*")],
                "",
                &[true, true],
            ),
            (
                &[("id", "in.(1,2)")],
                &[("id", "in.(3)")],
                "",
                &[true, true],
            ),
            // A planned count inlines its values: not cacheable.
            (
                &[("name", "eq.x")],
                &[("name", "eq.y")],
                "count=planned",
                &[false],
            ),
        ];
        for (query, other, prefer, kept) in table {
            let cache = shop();
            let (first, direct) = both(&cache, query, prefer);
            assert_eq!(first.statement, direct.statement, "{query:?}");
            let (second, direct) = both(&cache, other, prefer);
            assert_eq!(second.statement, direct.statement, "{other:?}");
            assert_ne!(first.statement.params, second.statement.params);
            assert_eq!(shapes(&cache), kept.to_vec(), "{query:?}");
        }
    }

    /// Plans a write to products through the cache and directly.
    fn write(
        cache: &Compiled,
        method: Method,
        query: &[(&str, &str)],
        body: &str,
        prefer: &str,
    ) -> (Plan, Plan) {
        let query: Vec<(String, String)> = query
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let input = Input {
            method,
            resource: Resource::Table("products".into()),
            query: &query,
            accept: None,
            prefer: parse_prefer([prefer]),
            range: None,
            profile: None,
            content_type: Some("application/json"),
            body: body.as_bytes(),
        };
        let cached = plan_cached(&input, cache, &cfg()).unwrap();
        let direct = crate::plan(&input, cache, &cfg()).unwrap();
        (cached, direct)
    }

    #[test]
    fn writes_share_a_shape_by_their_body_layout() {
        // (method, query string, a body, another, Prefer, the shapes kept after both).
        type Row<'a> = (
            Method,
            &'a [(&'a str, &'a str)],
            &'a str,
            &'a str,
            &'a str,
            &'a [bool],
        );
        let table: &[Row] = &[
            (
                Method::Post,
                &[("select", "*")],
                r#"{"name":"a","sku":"x"}"#,
                r#"{"name":"b","sku":"y"}"#,
                "return=representation",
                &[true],
            ),
            (
                Method::Post,
                &[],
                r#"[{"name":"a"},{"name":"b"}]"#,
                r#"[{"name":"c"}]"#,
                "resolution=merge-duplicates",
                &[true],
            ),
            // An object and an array, other keys, or the same keys in another order: shapes
            // of their own.
            (
                Method::Post,
                &[],
                r#"{"name":"a"}"#,
                r#"[{"name":"b"}]"#,
                "",
                &[true, true],
            ),
            (
                Method::Post,
                &[],
                r#"{"name":"a","sku":"x"}"#,
                r#"{"sku":"y","name":"b"}"#,
                "",
                &[true, true],
            ),
            (
                Method::Patch,
                &[("id", "eq.1")],
                r#"{"base_price":1}"#,
                r#"{"base_price":2}"#,
                "",
                &[true],
            ),
            (
                Method::Put,
                &[("id", "eq.1")],
                r#"{"id":1,"name":"a"}"#,
                r#"[{"id":2,"name":"b"}]"#,
                "",
                &[true, true],
            ),
            (
                Method::Delete,
                &[("id", "eq.1")],
                "",
                "",
                "return=representation",
                &[true],
            ),
            // A body that is its own probe's text is planned the same.
            (
                Method::Patch,
                &[("id", "eq.1")],
                r#"{"name":"\u0000a"}"#,
                r#"{"name":"\u0000b"}"#,
                "",
                &[true],
            ),
        ];
        for (method, query, body, other, prefer, kept) in table {
            let cache = shop();
            let (first, direct) = write(&cache, *method, query, body, prefer);
            assert_eq!(first.statement, direct.statement, "{body}");
            let (second, direct) = write(&cache, *method, query, other, prefer);
            assert_eq!(second.statement, direct.statement, "{other}");
            assert_eq!(shapes(&cache), kept.to_vec(), "{method:?} {body} {other}");
        }
    }

    #[test]
    fn a_body_that_does_not_plan_is_refused_as_directly() {
        let cache = shop();
        for body in ["", "[1]", r#"[{"name":"a"},{"sku":"b"}]"#, r#"{"nope":1}"#] {
            let query: Vec<(String, String)> = vec![];
            let input = Input {
                method: Method::Post,
                resource: Resource::Table("products".into()),
                query: &query,
                accept: None,
                prefer: parse_prefer([""]),
                range: None,
                profile: None,
                content_type: Some("application/json"),
                body: body.as_bytes(),
            };
            let cached = plan_cached(&input, &cache, &cfg()).unwrap_err();
            let direct = crate::plan(&input, &cache, &cfg()).unwrap_err();
            assert_eq!(cached.code, direct.code, "{body}");
            assert_eq!(cached.message, direct.message, "{body}");
        }
    }

    #[test]
    fn a_value_with_a_nul_is_planned_as_it_is() {
        let cache = shop();
        let (cached, direct) = both(&cache, &[("name", "eq.\u{0}0\u{0}")], "");
        assert_eq!(cached.statement, direct.statement);
        assert_eq!(cached.statement.params[0], "\u{0}0\u{0}");
    }

    #[test]
    fn a_full_cache_starts_over() {
        let cache = shop();
        for i in 0..=SHAPES {
            both(&cache, &[("select", &format!("id,x{i}:name"))], "");
        }
        assert_eq!(shapes(&cache).len(), 1);
    }
}
