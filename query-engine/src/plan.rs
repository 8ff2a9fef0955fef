//! Planning: a parsed request resolved against the schema cache (tables, columns, relationships,
//! function overloads) and rendered as one SQL statement with bound parameters.
//!
//! Every value from the request becomes a parameter sent in text format, so PostgreSQL infers its
//! type from the context (`"col" = $1` takes the column's type), as PostgREST's unknown-typed
//! literals do. Identifiers come from the request but are always quoted.

use crate::ast::*;
use crate::error::ApiError;
use crate::request::*;
use crate::schema::{ForeignKey, Function, SchemaCache, Table};
use serde_json::Value;

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

/// SQL text and its parameters, all sent in text format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Statement {
    pub sql: String,
    pub params: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Read,
    Insert,
    Update,
    Delete,
    Call { void: bool },
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

#[derive(Debug, Clone)]
pub struct Plan {
    pub statement: Statement,
    pub read_only: bool,
    pub outcome: Outcome,
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

struct Sql {
    params: Vec<String>,
    aliases: usize,
}

impl Sql {
    fn param(&mut self, v: impl Into<String>) -> String {
        self.params.push(v.into());
        format!("${}", self.params.len())
    }

    fn next_alias(&mut self, base: &str) -> String {
        self.aliases += 1;
        format!("{}_{}", base, self.aliases)
    }
}

// ------------------------------------------------------------------ read tree

enum Rel<'c> {
    /// The parent holds the foreign key (or the child's key is unique): one object or null.
    ToOne {
        fk: &'c ForeignKey,
        parent_holds_fk: bool,
    },
    /// The child holds the foreign key: an array.
    ToMany { fk: &'c ForeignKey },
    ManyToMany {
        junction: &'c Table,
        to_parent: &'c ForeignKey,
        to_child: &'c ForeignKey,
    },
}

struct Child<'c> {
    label: String,
    rel: Rel<'c>,
    inner: bool,
    /// `rel()` with an empty select: joins (for filtering with !inner) but adds no key.
    hidden: bool,
    node: Node<'c>,
}

struct Node<'c> {
    table: Option<&'c Table>,
    alias: String,
    columns: Vec<SelectItem>,
    children: Vec<Child<'c>>,
    conditions: Vec<Condition>,
    order: Vec<OrderTerm>,
    limit: Option<u64>,
    offset: Option<u64>,
}

fn find_relationships<'c>(
    cache: &'c SchemaCache,
    parent: &'c Table,
    embed: &Embed,
) -> Result<(&'c Table, Rel<'c>), ApiError> {
    let schema = &parent.schema;
    let mut candidates: Vec<(&'c Table, Rel<'c>, Vec<String>)> = Vec::new();
    let fks = &cache.foreign_keys;
    let is_unique = |t: &Table, cols: &[String]| {
        t.primary_key == cols || t.unique_keys.iter().any(|u| u.as_slice() == cols)
    };
    if let Some(target) = cache.table(schema, &embed.relation) {
        for fk in fks {
            if fk.schema == *schema && fk.table == parent.name && fk.foreign_table == target.name {
                let mut keys = vec![fk.name.clone()];
                keys.extend(fk.columns.iter().cloned());
                candidates.push((
                    target,
                    Rel::ToOne {
                        fk,
                        parent_holds_fk: true,
                    },
                    keys,
                ));
            }
            if fk.schema == *schema && fk.table == target.name && fk.foreign_table == parent.name {
                let mut keys = vec![fk.name.clone()];
                keys.extend(fk.columns.iter().cloned());
                let rel = if is_unique(target, &fk.columns) {
                    Rel::ToOne {
                        fk,
                        parent_holds_fk: false,
                    }
                } else {
                    Rel::ToMany { fk }
                };
                candidates.push((target, rel, keys));
            }
        }
        for junction in cache.tables().filter(|t| t.schema == *schema) {
            for to_parent in fks
                .iter()
                .filter(|f| f.table == junction.name && f.foreign_table == parent.name)
            {
                for to_child in fks
                    .iter()
                    .filter(|f| f.table == junction.name && f.foreign_table == target.name)
                {
                    let key_cols =
                        |f: &ForeignKey| f.columns.iter().all(|c| junction.primary_key.contains(c));
                    if to_parent.name != to_child.name && key_cols(to_parent) && key_cols(to_child)
                    {
                        candidates.push((
                            target,
                            Rel::ManyToMany {
                                junction,
                                to_parent,
                                to_child,
                            },
                            vec![
                                junction.name.clone(),
                                to_parent.name.clone(),
                                to_child.name.clone(),
                            ],
                        ));
                    }
                }
            }
        }
    } else {
        // Embedding by the foreign key column: `category:category_id(*)`.
        for fk in fks {
            if fk.schema == *schema
                && fk.table == parent.name
                && fk.columns == [embed.relation.clone()]
                && let Some(target) = cache.table(&fk.foreign_schema, &fk.foreign_table)
            {
                candidates.push((
                    target,
                    Rel::ToOne {
                        fk,
                        parent_holds_fk: true,
                    },
                    vec![fk.name.clone()],
                ));
            }
        }
    }
    if let Some(hint) = &embed.hint {
        candidates.retain(|(_, _, keys)| keys.contains(hint));
    }
    match candidates.len() {
        0 => Err(ApiError::new(
            400,
            "PGRST200",
            format!(
                "Could not find a relationship between '{}' and '{}' in the schema cache",
                parent.name, embed.relation
            ),
        )
        .details(format!(
            "Searched for a foreign key relationship between '{}' and '{}'{} in the schema '{}', but no matches were found.",
            parent.name,
            embed.relation,
            embed
                .hint
                .as_ref()
                .map(|h| format!(" using the hint '{h}'"))
                .unwrap_or_default(),
            schema
        ))),
        1 => {
            let (t, r, _) = candidates.pop().expect("one candidate");
            Ok((t, r))
        }
        _ => {
            let details: Vec<Value> = candidates
                .iter()
                .map(|(t, r, _)| describe_relationship(&parent.name, &t.name, r))
                .collect();
            let hints: Vec<String> = candidates
                .iter()
                .map(|(t, r, _)| {
                    let via = match r {
                        Rel::ToOne { fk, .. } | Rel::ToMany { fk } => fk.name.as_str(),
                        Rel::ManyToMany { junction, .. } => junction.name.as_str(),
                    };
                    format!("'{}!{via}'", t.name)
                })
                .collect();
            Err(ApiError::new(
                300,
                "PGRST201",
                format!(
                    "Could not embed because more than one relationship was found for '{}' and '{}'",
                    parent.name, embed.relation
                ),
            )
            .details_json(Value::Array(details))
            .hint(format!(
                "Try changing '{}' to one of the following: {}. Find the desired relationship in the 'details' key.",
                embed.relation,
                hints.join(", ")
            )))
        }
    }
}

/// One candidate of an ambiguous embedding, as PostgREST lists it in PGRST201's details.
fn describe_relationship(parent: &str, child: &str, r: &Rel) -> Value {
    let cols = |c: &[String]| format!("({})", c.join(", "));
    let (cardinality, relationship) = match r {
        Rel::ToOne {
            fk,
            parent_holds_fk: true,
        } => (
            "many-to-one",
            format!(
                "{} using {parent}{} and {child}{}",
                fk.name,
                cols(&fk.columns),
                cols(&fk.foreign_columns)
            ),
        ),
        Rel::ToOne { fk, .. } => (
            "one-to-one",
            format!(
                "{} using {parent}{} and {child}{}",
                fk.name,
                cols(&fk.foreign_columns),
                cols(&fk.columns)
            ),
        ),
        Rel::ToMany { fk } => (
            "one-to-many",
            format!(
                "{} using {parent}{} and {child}{}",
                fk.name,
                cols(&fk.foreign_columns),
                cols(&fk.columns)
            ),
        ),
        Rel::ManyToMany {
            junction,
            to_parent,
            to_child,
        } => (
            "many-to-many",
            format!(
                "{} using {}{} and {}{}",
                junction.name,
                to_parent.name,
                cols(&to_parent.columns),
                to_child.name,
                cols(&to_child.columns)
            ),
        ),
    };
    serde_json::json!({
        "cardinality": cardinality,
        "embedding": format!("{parent} with {child}"),
        "relationship": relationship,
    })
}

fn build_node<'c>(
    cache: &'c SchemaCache,
    table: Option<&'c Table>,
    alias: String,
    select: &[SelectItem],
    sql: &mut Sql,
) -> Result<Node<'c>, ApiError> {
    let mut node = Node {
        table,
        alias,
        columns: vec![],
        children: vec![],
        conditions: vec![],
        order: vec![],
        limit: None,
        offset: None,
    };
    for item in select {
        match item {
            SelectItem::Embed(e) => {
                let Some(parent) = table else {
                    return Err(ApiError::new(
                        400,
                        "PGRST200",
                        format!(
                            "Could not find a relationship for '{}' in the schema cache",
                            e.relation
                        ),
                    ));
                };
                let (target, rel) = find_relationships(cache, parent, e)?;
                let alias = sql.next_alias(&target.name);
                let child = build_node(cache, Some(target), alias, &e.select, sql)?;
                node.children.push(Child {
                    label: e.label().to_string(),
                    rel,
                    inner: e.inner,
                    hidden: e.select.is_empty(),
                    node: child,
                });
            }
            other => node.columns.push(other.clone()),
        }
    }
    Ok(node)
}

fn node_at<'n, 'c>(node: &'n mut Node<'c>, path: &[String]) -> Result<&'n mut Node<'c>, ApiError> {
    let Some((first, rest)) = path.split_first() else {
        return Ok(node);
    };
    let idx = node
        .children
        .iter()
        .position(|c| c.label == *first)
        .ok_or_else(|| {
            ApiError::new(
                400,
                "PGRST108",
                format!("'{first}' is not an embedded resource in this request"),
            )
            .hint(format!(
                "Verify that '{first}' is included in the 'select' query parameter."
            ))
        })?;
    node_at(&mut node.children[idx].node, rest)
}

fn attach_query(root: &mut Node, q: &QueryParams) -> Result<(), ApiError> {
    for (path, c) in &q.conditions {
        node_at(root, path)?.conditions.push(c.clone());
    }
    for (path, o) in &q.order {
        node_at(root, path)?.order.extend(o.iter().cloned());
    }
    for (path, l) in &q.limit {
        node_at(root, path)?.limit = Some(*l);
    }
    for (path, o) in &q.offset {
        node_at(root, path)?.offset = Some(*o);
    }
    Ok(())
}

// ------------------------------------------------------------------ SQL fragments

fn field_sql(f: &Field, alias: &str, sql: &mut Sql) -> String {
    let mut s = format!("{}.{}", ident(alias), ident(&f.name));
    for step in &f.json_path {
        let (op, key) = match step {
            JsonStep::Arrow(k) => ("->", k),
            JsonStep::DoubleArrow(k) => ("->>", k),
        };
        let key = match key {
            JsonKey::Name(n) => format!("{}::text", sql.param(n.clone())),
            JsonKey::Index(i) => format!("{}::integer", sql.param(i.to_string())),
        };
        s = format!("{s}{op}{key}");
    }
    s
}

fn select_list(node: &Node, sql: &mut Sql, laterals: &[String]) -> String {
    let mut items = Vec::new();
    for c in &node.columns {
        match c {
            SelectItem::Star => items.push(format!("{}.*", ident(&node.alias))),
            SelectItem::Column { field, alias, cast } => {
                let mut e = field_sql(field, &node.alias, sql);
                if let Some(t) = cast {
                    e = format!("CAST({e} AS {t})");
                }
                let name = alias.clone().unwrap_or_else(|| field.output_name());
                items.push(format!("{e} AS {}", ident(&name)));
            }
            SelectItem::Embed(_) => {}
        }
    }
    for (child, lateral) in node.children.iter().zip(laterals) {
        if !child.hidden {
            items.push(format!(
                "{}.body AS {}",
                ident(lateral),
                ident(&child.label)
            ));
        }
    }
    items.join(", ")
}

fn array_literal(values: &[String]) -> String {
    let items: Vec<String> = values
        .iter()
        .map(|v| format!("\"{}\"", v.replace('\\', "\\\\").replace('"', "\\\"")))
        .collect();
    format!("{{{}}}", items.join(","))
}

fn filter_sql(f: &Filter, alias: &str, sql: &mut Sql) -> String {
    let e = field_sql(&f.field, alias, sql);
    let like = |op: CmpOp, v: &str| {
        if matches!(op, CmpOp::Like | CmpOp::Ilike) {
            v.replace('*', "%")
        } else {
            v.to_string()
        }
    };
    let expr = match &f.op {
        Operation::Compare(op, v) => format!("{e} {} {}", op.sql(), sql.param(like(*op, v))),
        Operation::Quantified(op, q, vs) => {
            let vs: Vec<String> = vs.iter().map(|v| like(*op, v)).collect();
            let q = match q {
                Quantifier::Any => "ANY",
                Quantifier::All => "ALL",
            };
            format!("{e} {} {q}({})", op.sql(), sql.param(array_literal(&vs)))
        }
        Operation::Is(v) => format!(
            "{e} IS {}",
            match v {
                IsValue::Null => "NULL",
                IsValue::NotNull => "NOT NULL",
                IsValue::True => "TRUE",
                IsValue::False => "FALSE",
                IsValue::Unknown => "UNKNOWN",
            }
        ),
        Operation::IsDistinct(v) => format!("{e} IS DISTINCT FROM {}", sql.param(v.clone())),
        Operation::In(vs) => format!("{e} = ANY({})", sql.param(array_literal(vs))),
        Operation::Set(op, v) => format!("{e} {} {}", op.sql(), sql.param(v.clone())),
        Operation::Fts {
            kind,
            language,
            query,
        } => match language {
            Some(l) => {
                let l = sql.param(l.clone());
                format!(
                    "{e} @@ {}({l}::regconfig, {})",
                    kind.function(),
                    sql.param(query.clone())
                )
            }
            None => format!("{e} @@ {}({})", kind.function(), sql.param(query.clone())),
        },
    };
    if f.negate {
        format!("NOT ({expr})")
    } else {
        expr
    }
}

fn condition_sql(c: &Condition, alias: &str, sql: &mut Sql) -> String {
    match c {
        Condition::Filter(f) => filter_sql(f, alias, sql),
        Condition::Tree {
            logic,
            negate,
            children,
        } => {
            let sep = match logic {
                Logic::And => " AND ",
                Logic::Or => " OR ",
            };
            let parts: Vec<String> = children
                .iter()
                .map(|c| condition_sql(c, alias, sql))
                .collect();
            let s = format!("({})", parts.join(sep));
            if *negate { format!("NOT {s}") } else { s }
        }
    }
}

fn order_sql(terms: &[OrderTerm], alias: &str, sql: &mut Sql) -> String {
    let parts: Vec<String> = terms
        .iter()
        .map(|t| {
            let mut s = field_sql(&t.field, alias, sql);
            match t.direction {
                Some(Direction::Asc) => s.push_str(" ASC"),
                Some(Direction::Desc) => s.push_str(" DESC"),
                None => {}
            }
            match t.nulls {
                Some(Nulls::First) => s.push_str(" NULLS FIRST"),
                Some(Nulls::Last) => s.push_str(" NULLS LAST"),
                None => {}
            }
            s
        })
        .collect();
    if parts.is_empty() {
        String::new()
    } else {
        format!(" ORDER BY {}", parts.join(", "))
    }
}

/// The LATERAL joins of a node's embedded children; returns (join SQL, lateral aliases).
fn joins_sql(node: &Node, sql: &mut Sql, only_inner: bool) -> (String, Vec<String>) {
    let mut joins = String::new();
    let mut laterals = Vec::new();
    for child in &node.children {
        let lateral = sql.next_alias("pgrst");
        laterals.push(lateral.clone());
        if only_inner && !child.inner {
            continue;
        }
        let c = &child.node;
        let target = c.table.expect("embedded nodes have tables");
        let p = ident(&node.alias);
        let ca = ident(&c.alias);
        let pairs = |cols: &[String], fcols: &[String], left: &str, right: &str| -> Vec<String> {
            cols.iter()
                .zip(fcols)
                .map(|(a, b)| format!("{left}.{} = {right}.{}", ident(a), ident(b)))
                .collect()
        };
        let (from, mut wheres) = match &child.rel {
            Rel::ToOne {
                fk,
                parent_holds_fk: true,
            } => (
                format!("{} AS {ca}", qualified(&target.schema, &target.name)),
                pairs(&fk.foreign_columns, &fk.columns, &ca, &p),
            ),
            Rel::ToOne {
                fk,
                parent_holds_fk: false,
            }
            | Rel::ToMany { fk } => (
                format!("{} AS {ca}", qualified(&target.schema, &target.name)),
                pairs(&fk.columns, &fk.foreign_columns, &ca, &p),
            ),
            Rel::ManyToMany {
                junction,
                to_parent,
                to_child,
            } => {
                let j = ident(&sql.next_alias(&junction.name));
                let on = pairs(&to_child.columns, &to_child.foreign_columns, &j, &ca).join(" AND ");
                (
                    format!(
                        "{} AS {ca} INNER JOIN {} AS {j} ON {on}",
                        qualified(&target.schema, &target.name),
                        qualified(&junction.schema, &junction.name)
                    ),
                    pairs(&to_parent.columns, &to_parent.foreign_columns, &j, &p),
                )
            }
        };
        let (inner_joins, inner_laterals) = joins_sql(c, sql, false);
        let cols = select_list(c, sql, &inner_laterals);
        for cond in &c.conditions {
            wheres.push(condition_sql(cond, &c.alias, sql));
        }
        let mut q = format!(
            "SELECT {cols} FROM {from}{inner_joins} WHERE {}",
            wheres.join(" AND ")
        );
        q.push_str(&order_sql(&c.order, &c.alias, sql));
        q.push_str(&limit_offset_sql(c.limit, c.offset, sql));
        let to_one = matches!(child.rel, Rel::ToOne { .. });
        let body = match (to_one, child.inner) {
            (true, _) => {
                "SELECT row_to_json(pgrst_row) AS body FROM (".to_string() + &q + ") AS pgrst_row"
            }
            (false, false) => format!(
                "SELECT coalesce(json_agg(pgrst_row), '[]') AS body FROM ({q}) AS pgrst_row"
            ),
            (false, true) => format!(
                "SELECT json_agg(pgrst_row) AS body FROM ({q}) AS pgrst_row HAVING count(*) > 0"
            ),
        };
        let join = if child.inner { "INNER" } else { "LEFT" };
        joins.push_str(&format!(
            " {join} JOIN LATERAL ({body}) AS {} ON TRUE",
            ident(&lateral)
        ));
    }
    (joins, laterals)
}

/// ` LIMIT $n OFFSET $m`, each only when set.
fn limit_offset_sql(limit: Option<u64>, offset: Option<u64>, sql: &mut Sql) -> String {
    let mut s = String::new();
    if let Some(l) = limit {
        s.push_str(&format!(" LIMIT {}", sql.param(l.to_string())));
    }
    if let Some(o) = offset {
        s.push_str(&format!(" OFFSET {}", sql.param(o.to_string())));
    }
    s
}

fn where_sql(node: &Node, sql: &mut Sql) -> String {
    let parts: Vec<String> = node
        .conditions
        .iter()
        .map(|c| condition_sql(c, &node.alias, sql))
        .collect();
    if parts.is_empty() {
        String::new()
    } else {
        format!(" WHERE {}", parts.join(" AND "))
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

/// Counts the rows an upsert inserts, as PostgREST does: each row offered to the INSERT adds
/// one to the transaction-local `pgrst.inserted`, each that turns into an update takes one off.
fn count_inserted(add: bool) -> &'static str {
    if add {
        "set_config('pgrst.inserted', (coalesce(nullif(current_setting('pgrst.inserted', true), '')::int, 0) + 1)::text, true) <> '0'"
    } else {
        "set_config('pgrst.inserted', (coalesce(nullif(current_setting('pgrst.inserted', true), '')::int, 0) - 1)::text, true) <> '-1'"
    }
}

/// What the source rows are, for the body: table rows, one row of a function returning a
/// single composite, or a function's scalar(s) in `pgrst_scalar`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    Rows,
    SingleRow,
    Scalar,
    SetOfScalar,
}

/// The body PostgreSQL builds for the media type, as PostgREST's aggregates do: JSON (nulls
/// stripped on request), one object, CSV (a header from the first row's keys, then each
/// row's text form without its parentheses, so quoting is PostgreSQL's) or GeoJSON.
fn body_expr(media: MediaType, shape: Shape, head: bool) -> String {
    if head {
        return "NULL::text".into();
    }
    let strip = |e: String| {
        if media.strips_nulls() {
            format!("json_strip_nulls({e})")
        } else {
            e
        }
    };
    let value = match shape {
        Shape::Rows | Shape::SingleRow => "_postgrest_t",
        Shape::Scalar | Shape::SetOfScalar => "_postgrest_t.pgrst_scalar",
    };
    let one = || {
        format!(
            "coalesce({}, 'null')::text",
            strip(format!("json_agg({value})->0"))
        )
    };
    let all = || {
        format!(
            "coalesce({}, '[]')::text",
            strip(format!("json_agg({value})"))
        )
    };
    match media {
        MediaType::Csv => "(SELECT coalesce(string_agg(a.k, ','), '') FROM (SELECT json_object_keys(r)::text AS k \
             FROM (SELECT row_to_json(hh) AS r FROM pgrst_source AS hh LIMIT 1) s) a) || '\n' || \
             coalesce(string_agg(substring(_postgrest_t::text, 2, length(_postgrest_t::text) - 2), '\n'), '')"
            .into(),
        MediaType::GeoJson => "json_build_object('type', 'FeatureCollection', 'features', \
             coalesce(json_agg(ST_AsGeoJSON(_postgrest_t)::json), '[]'))::text"
            .into(),
        m if m.is_singular() => one(),
        _ if matches!(shape, Shape::SingleRow | Shape::Scalar) => one(),
        _ => all(),
    }
}

// ------------------------------------------------------------------ entry point

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
            ApiError::new(406, "PGRST106", format!("Invalid schema: {p}")).hint(format!(
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
        let e = ApiError::new(
            404,
            "PGRST205",
            format!("Could not find the table '{schema}.{name}' in the schema cache"),
        );
        match cache.closest_table(schema, name) {
            Some(c) => e.hint(format!("Perhaps you meant the table '{schema}.{c}'")),
            None => e,
        }
    })
}

pub fn plan(input: &Input, cache: &SchemaCache, cfg: &EngineConfig) -> Result<Plan, ApiError> {
    let (schema, echo_profile) = resolve_schema(cfg, input.profile)?;
    let media = negotiate(input.accept, false)?;
    let mut sql = Sql {
        params: vec![],
        aliases: 0,
    };
    let head = input.method == Method::Head;
    let return_ = input.prefer.return_.unwrap_or(Return::Minimal);
    let mut outcome = Outcome {
        kind: Kind::Read,
        head,
        media,
        return_,
        offset: 0,
        schema: schema.clone(),
        echo_profile,
        prefer: input.prefer.clone(),
    };
    transaction_end(&mut outcome.prefer, cache);

    let (text, read_only) = match &input.resource {
        Resource::Table(name) => {
            let table = table_or_404(cache, &schema, name)?;
            let q = parse_query(input.query, &|_| false)?;
            refuse_unapplied(input.method, &q)?;
            match input.method {
                Method::Get | Method::Head => {
                    let (sql_text, offset) =
                        read_sql(cache, cfg, table, &q, input, media, head, &mut sql)?;
                    outcome.offset = offset;
                    (sql_text, true)
                }
                Method::Post => {
                    outcome.kind = Kind::Insert;
                    (
                        insert_sql(cache, table, &q, input, media, return_, &mut sql)?,
                        false,
                    )
                }
                Method::Patch => {
                    outcome.kind = Kind::Update;
                    (
                        update_sql(cache, table, &q, input, media, return_, &mut sql)?,
                        false,
                    )
                }
                Method::Delete => {
                    outcome.kind = Kind::Delete;
                    (
                        delete_sql(cache, table, &q, input, media, return_, &mut sql)?,
                        false,
                    )
                }
            }
        }
        Resource::Rpc(name) => {
            let (text, read_only, void) = call_sql(
                cache,
                cfg,
                &schema,
                name,
                input,
                media,
                head,
                &mut outcome,
                &mut sql,
            )?;
            outcome.kind = Kind::Call { void };
            (text, read_only)
        }
    };
    // After the resource was found, as PostgREST checks it.
    input.prefer.check_strict()?;
    Ok(Plan {
        statement: Statement {
            sql: text,
            params: sql.params,
        },
        read_only,
        outcome,
    })
}

/// Parameters a write would not apply are refused, never ignored: PostgREST v14 accepts `limit`
/// and `offset` on POST, PATCH and DELETE but writes every matching row anyway, which turns
/// "delete one" into "delete all".
fn refuse_unapplied(method: Method, q: &QueryParams) -> Result<(), ApiError> {
    let name = match method {
        Method::Post => "POST",
        Method::Patch => "PATCH",
        Method::Delete => "DELETE",
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

#[allow(clippy::too_many_arguments)]
fn read_sql(
    cache: &SchemaCache,
    cfg: &EngineConfig,
    table: &Table,
    q: &QueryParams,
    input: &Input,
    media: MediaType,
    head: bool,
    sql: &mut Sql,
) -> Result<(String, u64), ApiError> {
    let mut root = build_node(cache, Some(table), table.name.clone(), &q.select, sql)?;
    attach_query(&mut root, q)?;
    // Range header, then limit/offset parameters, then db-max-rows.
    if let Some((off, lim)) = input.range.and_then(parse_range) {
        root.offset.get_or_insert(off);
        if let Some(l) = lim {
            root.limit.get_or_insert(l);
        }
    }
    if let Some(max) = cfg.max_rows(cache) {
        root.limit = Some(root.limit.map_or(max, |l| l.min(max)));
    }
    let offset = root.offset.unwrap_or(0);
    let (joins, laterals) = joins_sql(&root, sql, false);
    let cols = select_list(&root, sql, &laterals);
    let from = format!(
        "{} AS {}",
        qualified(&table.schema, &table.name),
        ident(&root.alias)
    );
    let wheres = where_sql(&root, sql);
    let mut source = format!("SELECT {cols} FROM {from}{joins}{wheres}");
    source.push_str(&order_sql(&root.order, &root.alias, sql));
    if let Some(l) = root.limit {
        source.push_str(&format!(" LIMIT {}", sql.param(l.to_string())));
    }
    if root.offset.is_some() {
        source.push_str(&format!(" OFFSET {}", sql.param(offset.to_string())));
    }
    let mut ctes = format!("pgrst_source AS ({source})");
    let total = match input.prefer.count {
        None => "NULL::bigint".to_string(),
        // Row level security may hide rows the statistics count: such tables get an exact count,
        // so that a planned one never tells how many rows a caller cannot see.
        Some(Count::Planned)
            if root.conditions.is_empty()
                && !root.children.iter().any(|c| c.inner)
                && !table.rls =>
        {
            // An estimate from the planner's statistics, as PostgREST's planned count.
            format!(
                "(SELECT greatest(reltuples, 0)::bigint FROM pg_catalog.pg_class WHERE oid = {}::regclass)",
                literal(&qualified(&table.schema, &table.name))
            )
        }
        Some(_) => {
            let (inner_joins, _) = joins_sql(&root, sql, true);
            let wheres = where_sql(&root, sql);
            ctes.push_str(&format!(
                ", pgrst_source_count AS (SELECT 1 FROM {from}{inner_joins}{wheres})"
            ));
            "(SELECT pg_catalog.count(*) FROM pgrst_source_count)".to_string()
        }
    };
    Ok((
        wrap(
            &ctes,
            &total,
            &body_expr(media, Shape::Rows, head),
            "NULL::text",
        ),
        offset,
    ))
}

/// Parses the JSON body of a write: its rows as a JSON array text and the columns to write.
fn body_rows(
    table: &Table,
    q: &QueryParams,
    body: &[u8],
    single_only: bool,
) -> Result<(String, Vec<String>), ApiError> {
    let invalid = || ApiError::new(400, "PGRST102", "Empty or invalid json");
    let value: Value = serde_json::from_slice(body).map_err(|_| invalid())?;
    let keys_of =
        |v: &Value| -> Option<Vec<String>> { v.as_object().map(|o| o.keys().cloned().collect()) };
    let (rows_text, keys) = match &value {
        Value::Object(_) => (
            format!("[{}]", String::from_utf8_lossy(body)),
            keys_of(&value).unwrap_or_default(),
        ),
        Value::Array(items) if !single_only => {
            let first = items
                .first()
                .map(keys_of)
                .unwrap_or(Some(vec![]))
                .ok_or_else(invalid)?;
            if q.columns.is_none() {
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
            (String::from_utf8_lossy(body).into_owned(), first)
        }
        _ => return Err(invalid()),
    };
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
    Ok((rows_text, columns))
}

fn record_type(table: &Table, columns: &[String]) -> String {
    columns
        .iter()
        .map(|c| {
            format!(
                "{} {}",
                ident(c),
                table
                    .column(c)
                    .map(|x| x.data_type.as_str())
                    .unwrap_or("text")
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// What a write returns: all columns when the representation (or a Location) is wanted,
/// otherwise a constant so that SELECT policies do not apply to RETURNING.
fn returning(table: &Table, return_: Return, alias: &str) -> String {
    match return_ {
        Return::Representation => format!("{}.*", ident(alias)),
        Return::HeadersOnly if !table.primary_key.is_empty() => table
            .primary_key
            .iter()
            .map(|c| format!("{}.{}", ident(alias), ident(c)))
            .collect::<Vec<_>>()
            .join(", "),
        _ => "1".to_string(),
    }
}

/// Wraps a data-modifying CTE: the representation is re-selected from its RETURNING rows, so
/// `select=` (with embeds) shapes it like a read.
#[allow(clippy::too_many_arguments)]
fn mutation_wrap(
    cache: &SchemaCache,
    table: &Table,
    q: &QueryParams,
    mutation: &str,
    media: MediaType,
    return_: Return,
    location: bool,
    sql: &mut Sql,
) -> Result<String, ApiError> {
    let source = if return_ == Return::Representation {
        let mut root = build_node(cache, Some(table), table.name.clone(), &q.select, sql)?;
        // The written rows are the top level: its filters already chose them (re-applying them
        // could drop rows an update changed). Embedded filters, orders and limits shape the
        // representation, and so does the top-level order.
        let shaping = QueryParams {
            conditions: q
                .conditions
                .iter()
                .filter(|(p, _)| !p.is_empty())
                .cloned()
                .collect(),
            order: q.order.clone(),
            limit: q
                .limit
                .iter()
                .filter(|(p, _)| !p.is_empty())
                .cloned()
                .collect(),
            offset: q
                .offset
                .iter()
                .filter(|(p, _)| !p.is_empty())
                .cloned()
                .collect(),
            ..QueryParams::default()
        };
        attach_query(&mut root, &shaping)?;
        let (joins, laterals) = joins_sql(&root, sql, false);
        let cols = select_list(&root, sql, &laterals);
        let order = order_sql(&root.order, &root.alias, sql);
        format!(
            "SELECT {cols} FROM pgrst_mutation AS {}{joins}{order}",
            ident(&table.name)
        )
    } else {
        "SELECT 1 FROM pgrst_mutation".to_string()
    };
    let body = if return_ == Return::Representation {
        body_expr(media, Shape::Rows, false)
    } else {
        "''".to_string()
    };
    let location = if location && return_ == Return::HeadersOnly && !table.primary_key.is_empty() {
        let parts: Vec<String> = table
            .primary_key
            .iter()
            .map(|c| format!("{} || {}::text", literal(&format!("{c}=eq.")), ident(c)))
            .collect();
        format!(
            "(SELECT {} || '?' || concat_ws('&', {}) FROM pgrst_mutation LIMIT 1)",
            literal(&format!("/{}", table.name)),
            parts.join(", ")
        )
    } else {
        "NULL::text".to_string()
    };
    Ok(wrap(
        &format!("pgrst_mutation AS ({mutation}), pgrst_source AS ({source})"),
        "NULL::bigint",
        &body,
        &location,
    ))
}

fn insert_sql(
    cache: &SchemaCache,
    table: &Table,
    q: &QueryParams,
    input: &Input,
    media: MediaType,
    return_: Return,
    sql: &mut Sql,
) -> Result<String, ApiError> {
    let (rows, columns) = body_rows(table, q, input.body, false)?;
    let target = format!(
        "{} AS {}",
        qualified(&table.schema, &table.name),
        ident(&table.name)
    );
    let ret = returning(table, return_, &table.name);
    let mutation = if columns.is_empty() {
        format!("INSERT INTO {target} DEFAULT VALUES RETURNING {ret}")
    } else {
        let cols = columns
            .iter()
            .map(|c| ident(c))
            .collect::<Vec<_>>()
            .join(", ");
        let values = columns
            .iter()
            .map(|c| match table.column(c).and_then(|x| x.default.as_ref()) {
                // missing=default: a key absent from a row takes the column default.
                Some(d) if input.prefer.missing_default => {
                    format!(
                        "CASE WHEN pgrst_row.j ? {} THEN pgrst_body.{} ELSE {d} END",
                        sql.param(c.clone()),
                        ident(c)
                    )
                }
                _ => format!("pgrst_body.{}", ident(c)),
            })
            .collect::<Vec<_>>()
            .join(", ");
        let rows_param = sql.param(rows);
        let from = if input.prefer.missing_default {
            format!(
                "jsonb_array_elements({rows_param}::jsonb) AS pgrst_row(j), LATERAL jsonb_to_record(pgrst_row.j) AS pgrst_body({})",
                record_type(table, &columns)
            )
        } else {
            format!(
                "json_to_recordset({rows_param}::json) AS pgrst_body({})",
                record_type(table, &columns)
            )
        };
        let conflict = match input.prefer.resolution {
            None => String::new(),
            Some(res) => {
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
                let target = keys.iter().map(|c| ident(c)).collect::<Vec<_>>().join(", ");
                match res {
                    Resolution::IgnoreDuplicates => format!(" ON CONFLICT ({target}) DO NOTHING"),
                    Resolution::MergeDuplicates => {
                        let sets: Vec<String> = columns
                            .iter()
                            .map(|c| format!("{} = EXCLUDED.{}", ident(c), ident(c)))
                            .collect();
                        if sets.is_empty() {
                            format!(" ON CONFLICT ({target}) DO NOTHING")
                        } else {
                            format!(
                                " ON CONFLICT ({target}) DO UPDATE SET {} WHERE {}",
                                sets.join(", "),
                                count_inserted(false)
                            )
                        }
                    }
                }
            }
        };
        let counted = if input.prefer.resolution == Some(Resolution::MergeDuplicates) {
            format!(" WHERE {}", count_inserted(true))
        } else {
            String::new()
        };
        format!(
            "INSERT INTO {target} ({cols}) SELECT {values} FROM {from}{counted}{conflict} RETURNING {ret}"
        )
    };
    mutation_wrap(cache, table, q, &mutation, media, return_, true, sql)
}

fn update_sql(
    cache: &SchemaCache,
    table: &Table,
    q: &QueryParams,
    input: &Input,
    media: MediaType,
    return_: Return,
    sql: &mut Sql,
) -> Result<String, ApiError> {
    let (rows, columns) = body_rows(table, q, input.body, true)?;
    let mut root = build_node(cache, Some(table), table.name.clone(), &[], sql)?;
    attach_query(&mut root, q)?;
    let target = format!(
        "{} AS {}",
        qualified(&table.schema, &table.name),
        ident(&table.name)
    );
    let ret = returning(table, return_, &table.name);
    let mutation = if columns.is_empty() {
        format!("SELECT {ret} FROM {target} WHERE false")
    } else {
        let sets: Vec<String> = columns
            .iter()
            .map(|c| format!("{} = pgrst_body.{}", ident(c), ident(c)))
            .collect();
        let rows_param = sql.param(rows);
        let wheres = where_sql(&root, sql);
        format!(
            "UPDATE {target} SET {} FROM (SELECT * FROM json_to_recordset({rows_param}::json) AS pgrst_body({}) LIMIT 1) AS pgrst_body{wheres} RETURNING {ret}",
            sets.join(", "),
            record_type(table, &columns)
        )
    };
    mutation_wrap(cache, table, q, &mutation, media, return_, false, sql)
}

fn delete_sql(
    cache: &SchemaCache,
    table: &Table,
    q: &QueryParams,
    _input: &Input,
    media: MediaType,
    return_: Return,
    sql: &mut Sql,
) -> Result<String, ApiError> {
    let mut root = build_node(cache, Some(table), table.name.clone(), &[], sql)?;
    attach_query(&mut root, q)?;
    let target = format!(
        "{} AS {}",
        qualified(&table.schema, &table.name),
        ident(&table.name)
    );
    let wheres = where_sql(&root, sql);
    let ret = returning(table, return_, &table.name);
    let mutation = format!("DELETE FROM {target}{wheres} RETURNING {ret}");
    mutation_wrap(cache, table, q, &mutation, media, return_, false, sql)
}

/// How a function's arguments arrive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Content {
    /// GET/HEAD: the query string.
    Query,
    /// POST with a JSON body (named arguments, or the body for one unnamed json/jsonb one).
    Json,
    /// POST with a raw body for one unnamed parameter of this type.
    Raw(&'static str),
}

fn hex_encode(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Picks the overload a call means, as PostgREST's findProc: the overloads whose parameters
/// the given keys match; failing those, one taking a single unnamed parameter of the body's
/// type; more than one candidate is ambiguous (300 PGRST203), none is PGRST202.
fn resolve_function<'f>(
    overloads: &[&'f Function],
    schema: &str,
    name: &str,
    given: &[&str],
    content: Content,
) -> Result<&'f Function, ApiError> {
    let matching: Vec<&Function> = overloads
        .iter()
        .copied()
        .filter(|f| {
            if f.args.is_empty() {
                given.is_empty() && !matches!(content, Content::Raw(_))
            } else {
                f.accepts(given)
            }
        })
        .collect();
    let single_unnamed: Vec<&Function> = overloads
        .iter()
        .copied()
        .filter(|f| {
            f.args.len() == 1
                && f.args[0].name.is_empty()
                && match content {
                    Content::Json => matches!(f.args[0].data_type.as_str(), "json" | "jsonb"),
                    Content::Raw(t) => f.args[0].data_type == t,
                    Content::Query => false,
                }
        })
        .collect();
    let ambiguous = |fs: &[&Function]| {
        // Listed by signature, as PostgREST's message lists them.
        let mut list: Vec<String> = fs
            .iter()
            .map(|f| {
                let params = f
                    .args
                    .iter()
                    .map(|a| format!("{} => {}", a.name, a.data_type))
                    .collect::<Vec<_>>()
                    .join(", ");
                format!("{}.{}({params})", f.schema, f.name)
            })
            .collect();
        list.sort();
        let list = list.join(", ");
        ApiError::new(
            300,
            "PGRST203",
            format!("Could not choose the best candidate function between: {list}"),
        )
        .hint("Try renaming the parameters or the function itself in the database so function overloading can be resolved")
    };
    match (matching.as_slice(), single_unnamed.as_slice()) {
        ([f], _) | ([], [f]) => Ok(f),
        ([], []) => Err(no_function(schema, name, given, content)),
        ([], many) | (many, _) => Err(ambiguous(many)),
    }
}

/// PGRST202 with PostgREST's message and details.
fn no_function(schema: &str, name: &str, given: &[&str], content: Content) -> ApiError {
    let func = format!("{schema}.{name}");
    let keys = given.join(", ");
    let with_params = if given.is_empty() {
        " without parameters".to_string()
    } else if given.len() > 1 {
        format!(" with parameters {keys}")
    } else {
        format!(" with parameter {keys}")
    };
    // With a raw body PostgREST names no parameters; otherwise the keys, or "without".
    let named = if given.is_empty() {
        " without parameters".to_string()
    } else {
        format!("({keys})")
    };
    let (named, searched) = match content {
        Content::Raw(t) => (
            String::new(),
            format!(" with a single unnamed {t} parameter"),
        ),
        Content::Json => (
            named,
            format!("{with_params} or with a single unnamed json/jsonb parameter"),
        ),
        Content::Query => (named, with_params),
    };
    let message = format!("Could not find the function {func}{named} in the schema cache");
    ApiError::new(404, "PGRST202", message).details(format!(
        "Searched for the function {func}{searched}, but no matches were found in the schema cache."
    ))
}

#[allow(clippy::too_many_arguments)]
fn call_sql(
    cache: &SchemaCache,
    cfg: &EngineConfig,
    schema: &str,
    name: &str,
    input: &Input,
    media: MediaType,
    head: bool,
    outcome: &mut Outcome,
    sql: &mut Sql,
) -> Result<(String, bool, bool), ApiError> {
    let overloads = cache.functions(schema, name);
    let is_arg = |k: &str| overloads.iter().any(|f| f.args.iter().any(|a| a.name == k));
    let q = parse_query(input.query, &|k| input.method.is_read() && is_arg(k))?;
    let post = !input.method.is_read();
    // A POST's body type: JSON (the default), or a raw body for one unnamed parameter.
    let content = if post {
        match input
            .content_type
            .map(|c| {
                c.split(';')
                    .next()
                    .unwrap_or("")
                    .trim()
                    .to_ascii_lowercase()
            })
            .as_deref()
        {
            Some("text/plain") => Content::Raw("text"),
            Some("text/xml") => Content::Raw("xml"),
            Some("application/octet-stream") => Content::Raw("bytea"),
            _ => Content::Json,
        }
    } else {
        Content::Query
    };
    let mut whole_body: Option<Value> = None;
    let args: serde_json::Map<String, Value> = match content {
        Content::Query => q
            .rpc_args
            .iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect(),
        Content::Raw(_) => serde_json::Map::new(),
        Content::Json if input.body.iter().all(u8::is_ascii_whitespace) => serde_json::Map::new(),
        Content::Json => match serde_json::from_slice::<Value>(input.body) {
            Ok(Value::Object(m)) => {
                whole_body = Some(Value::Object(m.clone()));
                m
            }
            Ok(other) => {
                whole_body = Some(other);
                serde_json::Map::new()
            }
            Err(_) => return Err(ApiError::new(400, "PGRST102", "Empty or invalid json")),
        },
    };
    let given: Vec<&str> = args.keys().map(String::as_str).collect();
    let candidates: Vec<&Function> = overloads.iter().collect();
    let func = resolve_function(&candidates, schema, name, &given, content)?;
    let unnamed = func.args.len() == 1 && func.args[0].name.is_empty() && !given.contains(&"");
    if whole_body.is_some() && !unnamed && !matches!(whole_body, Some(Value::Object(_))) {
        return Err(ApiError::new(400, "PGRST102", "Empty or invalid json"));
    }
    if input.prefer.affected_limit().is_some() && !func.returns_set {
        return Err(ApiError::new(
            400,
            "PGRST128",
            "Function must return SETOF or TABLE when max-affected preference is used with handling=strict",
        ));
    }
    let read_only = input.method.is_read() || func.is_read_only();
    // Unnamed parameters are passed by position; the rest by name.
    let arg_ref = |a: &str| {
        if a.is_empty() {
            "pgrst_args.pgrst_unnamed".to_string()
        } else {
            format!("{} := pgrst_args.{}", ident(a), ident(a))
        }
    };
    let mut call_args: Vec<String> = given.iter().map(|a| arg_ref(a)).collect();
    if unnamed {
        // The whole body is the argument: JSON as sent, raw text, or bytes.
        let data_type = func.args[0].data_type.as_str();
        let value = match content {
            Content::Raw("bytea") => format!("\\x{}", hex_encode(input.body)),
            _ => std::str::from_utf8(input.body)
                .map_err(|_| ApiError::new(400, "PGRST102", "The body is not valid UTF-8"))?
                .to_string(),
        };
        call_args = vec![format!("{}::{data_type}", sql.param(value))];
    }
    let args_from = if given.is_empty() || unnamed {
        String::new()
    } else {
        let types = given
            .iter()
            .map(|a| {
                let t = func
                    .args
                    .iter()
                    .find(|x| x.name == *a)
                    .map(|x| x.data_type.as_str())
                    .unwrap_or("text");
                let column = if a.is_empty() { "pgrst_unnamed" } else { a };
                format!("{} {t}", ident(column))
            })
            .collect::<Vec<_>>()
            .join(", ");
        // An unnamed argument (`{"": …}`) is read under a name a record can have.
        let named: serde_json::Map<String, Value> = args
            .iter()
            .map(|(k, v)| {
                let k = if k.is_empty() { "pgrst_unnamed" } else { k };
                (k.to_string(), v.clone())
            })
            .collect();
        let p = sql.param(Value::Object(named).to_string());
        format!("json_to_record({p}::json) AS pgrst_args({types})")
    };
    let call = format!("{}({})", qualified(schema, name), call_args.join(", "));
    let from_args = |rest: &str| -> String {
        match (args_from.is_empty(), rest.is_empty()) {
            (true, true) => String::new(),
            (true, false) => format!(" FROM {rest}"),
            (false, true) => format!(" FROM {args_from}"),
            (false, false) => format!(" FROM {args_from}, LATERAL {rest}"),
        }
    };
    // The call's rows are a CTE of their own (the function runs once); filters, order and
    // page apply to it, and a count counts the filtered rows without the page, as PostgREST.
    let counting = input.prefer.count.is_some();
    let (ctes, total, body, void) = if func.returns_rows {
        let alias = "pgrst_call".to_string();
        let mut root = build_node(cache, None, alias.clone(), &q.select, sql)?;
        attach_query(&mut root, &q)?;
        if let Some(max) = cfg.max_rows(cache).filter(|_| func.returns_set) {
            root.limit = Some(root.limit.map_or(max, |l| l.min(max)));
        }
        outcome.offset = root.offset.unwrap_or(0);
        let cols = select_list(&root, sql, &[]);
        let wheres = where_sql(&root, sql);
        let a = ident(&alias);
        let rows = format!(
            "pgrst_call_rows AS (SELECT {a}.*{})",
            from_args(&format!("{call} AS {a}"))
        );
        let mut source = format!("SELECT {cols} FROM pgrst_call_rows AS {a}{wheres}");
        source.push_str(&order_sql(&root.order, &alias, sql));
        source.push_str(&limit_offset_sql(root.limit, root.offset, sql));
        let total = if counting {
            format!("(SELECT pg_catalog.count(*) FROM pgrst_call_rows AS {a}{wheres})")
        } else {
            "NULL::bigint".to_string()
        };
        let shape = if func.returns_set {
            Shape::Rows
        } else {
            Shape::SingleRow
        };
        (
            format!("{rows}, pgrst_source AS ({source})"),
            total,
            body_expr(media, shape, head),
            false,
        )
    } else {
        let source = if func.returns_set {
            format!(
                "SELECT pgrst_scalar{}",
                from_args(&format!("{call} AS pgrst_scalar"))
            )
        } else {
            format!("SELECT {call} AS pgrst_scalar{}", from_args(""))
        };
        let shape = if func.returns_set {
            Shape::SetOfScalar
        } else {
            Shape::Scalar
        };
        let total = if counting && !func.returns_void {
            "(SELECT pg_catalog.count(*) FROM pgrst_source)".to_string()
        } else {
            "NULL::bigint".to_string()
        };
        (
            format!("pgrst_source AS ({source})"),
            total,
            body_expr(media, shape, head || func.returns_void),
            func.returns_void,
        )
    };
    let statement = wrap(&ctes, &total, &body, "NULL::text");
    Ok((statement, read_only, void))
}

#[cfg(test)]
mod tests;
