//! Reads: the select list, one LATERAL join per embedded relation (each building its JSON in
//! PostgreSQL), and the statement of a read with its count.

use super::body::{Shape, body_expr};
use super::fragments::{condition_sql, field_sql, limit_offset_sql, order_sql, where_sql};
use super::{Sql, ident, qualified, wrap};
use crate::ast::{Aggregate, SelectItem};
use crate::plan::tree::{Node, ReadPlan, Rel};
use crate::request::Count;

/// One output column of a level: `expr AS name`, aggregated when `agg` is set.
pub(super) struct Item {
    /// None for `alias.*`.
    name: Option<String>,
    expr: String,
    agg: Option<Aggregate>,
    /// An embedded body (json): grouped as jsonb, json having no equality.
    json: bool,
}

impl Item {
    /// The item as the level selects it; `raw` leaves aggregation to the parent (a spread).
    fn render(&self, raw: bool, grouping: bool) -> String {
        let mut e = self.expr.clone();
        if self.json && grouping {
            e = format!("{e}::jsonb");
        }
        if let (Some(a), false) = (&self.agg, raw) {
            e = format!("{}({e})", a.function.name().to_ascii_uppercase());
            if let Some(t) = &a.cast {
                e = format!("CAST({e} AS {t})");
            }
        }
        match &self.name {
            Some(n) => format!("{e} AS {}", ident(n)),
            None => e,
        }
    }
}

/// A level's own columns (then its embeds' items, from [`joins_sql`]).
fn column_items(node: &Node, sql: &mut Sql) -> Vec<Item> {
    let mut items = Vec::new();
    for c in &node.columns {
        match c {
            SelectItem::Star => items.push(Item {
                name: None,
                expr: format!("{}.*", ident(&node.alias)),
                agg: None,
                json: false,
            }),
            SelectItem::Column {
                field,
                alias,
                cast,
                aggregate,
            } => {
                let mut expr = if field.name == "*" && aggregate.is_some() {
                    "*".to_string()
                } else {
                    field_sql(field, &node.alias, sql)
                };
                if let Some(t) = cast {
                    expr = format!("CAST({expr} AS {t})");
                }
                // PostgreSQL names an aggregate after its function, as PostgREST's output.
                let name = alias.clone().unwrap_or_else(|| match aggregate {
                    Some(a) => a.function.name().to_string(),
                    None => field.output_name(),
                });
                items.push(Item {
                    name: Some(name),
                    expr,
                    agg: aggregate.clone(),
                    json: false,
                });
            }
            SelectItem::Embed(_) => {}
        }
    }
    items
}

/// The select list of a level and, when it aggregates, its GROUP BY (by position).
fn select_list(items: &[Item], raw: bool) -> (String, String) {
    let grouping = !raw && items.iter().any(|i| i.agg.is_some());
    let cols: Vec<String> = items.iter().map(|i| i.render(raw, grouping)).collect();
    let group: Vec<String> = items
        .iter()
        .enumerate()
        .filter(|(_, i)| i.agg.is_none())
        .map(|(n, _)| (n + 1).to_string())
        .collect();
    let group_by = if grouping && !group.is_empty() {
        format!(" GROUP BY {}", group.join(", "))
    } else {
        String::new()
    };
    (cols.join(", "), group_by)
}

/// `left.a = right.b AND …` for a foreign key's column pairs.
fn pairs(cols: &[String], fcols: &[String], left: &str, right: &str) -> Vec<String> {
    cols.iter()
        .zip(fcols)
        .map(|(a, b)| format!("{left}.{} = {right}.{}", ident(a), ident(b)))
        .collect()
}

/// The LATERAL joins of a node's embedded children, and the items they add to the node's
/// select list: a JSON body per embed, or a spread's columns (aggregated by the node).
/// `only_inner` renders just the `!inner` ones (a count needs them to drop rows).
pub(super) fn joins_sql(node: &Node, sql: &mut Sql, only_inner: bool) -> (String, Vec<Item>) {
    let mut joins = String::new();
    let mut out = Vec::new();
    for child in &node.children {
        let lateral = ident(&sql.next_alias("pgrst"));
        if only_inner && !child.inner {
            continue;
        }
        let c = &child.node;
        let target = c.table.expect("embedded nodes have tables");
        let p = ident(&node.alias);
        let ca = ident(&c.alias);
        let relation = format!("{} AS {ca}", qualified(&target.schema, &target.name));
        let (from, mut wheres) = match &child.rel {
            Rel::ToOne {
                fk,
                parent_holds_fk: true,
            } => (relation, pairs(&fk.foreign_columns, &fk.columns, &ca, &p)),
            Rel::ToOne {
                fk,
                parent_holds_fk: false,
            }
            | Rel::ToMany { fk } => (relation, pairs(&fk.columns, &fk.foreign_columns, &ca, &p)),
            Rel::ManyToMany {
                junction,
                to_parent,
                to_child,
            } => {
                let j = ident(&sql.next_alias(&junction.name));
                let on = pairs(&to_child.columns, &to_child.foreign_columns, &j, &ca).join(" AND ");
                (
                    format!(
                        "{relation} INNER JOIN {} AS {j} ON {on}",
                        qualified(&junction.schema, &junction.name)
                    ),
                    pairs(&to_parent.columns, &to_parent.foreign_columns, &j, &p),
                )
            }
            // The function gets the parent's row (cast to its argument's type, so a call's
            // rows can be passed too).
            Rel::Computed { func, .. } => (
                format!(
                    "{}({p}::{}) AS {ca}",
                    qualified(&func.schema, &func.name),
                    func.args[0].data_type
                ),
                vec![],
            ),
        };
        let to_one = child.rel.is_to_one();
        // A to-one spread's aggregates are the parent's to compute.
        let raw = child.spread && to_one;
        let (inner_joins, child_items) = joins_sql(c, sql, false);
        let mut items = column_items(c, sql);
        items.extend(child_items);
        let (cols, group_by) = select_list(&items, raw);
        for cond in &c.conditions {
            wheres.push(condition_sql(cond, &c.alias, sql));
        }
        let mut q = format!("SELECT {cols} FROM {from}{inner_joins}");
        if !wheres.is_empty() {
            q.push_str(&format!(" WHERE {}", wheres.join(" AND ")));
        }
        q.push_str(&group_by);
        q.push_str(&order_sql(&c.order, &c.alias, sql));
        q.push_str(&limit_offset_sql(c.limit, c.offset, sql));
        let named = |name: &Option<String>| name.clone().unwrap_or_default();
        let body = if child.spread && to_one {
            out.extend(items.iter().map(|i| Item {
                name: i.name.clone(),
                expr: format!("{lateral}.{}", ident(&named(&i.name))),
                agg: i.agg.clone(),
                json: i.json,
            }));
            q
        } else if child.spread {
            // A to-many spread: each column becomes an array.
            let arrays: Vec<String> = items
                .iter()
                .map(|i| {
                    let n = ident(&named(&i.name));
                    format!("coalesce(json_agg(pgrst_row.{n}), '[]') AS {n}")
                })
                .collect();
            out.extend(items.iter().map(|i| Item {
                name: i.name.clone(),
                expr: format!("{lateral}.{}", ident(&named(&i.name))),
                agg: None,
                json: true,
            }));
            format!("SELECT {} FROM ({q}) AS pgrst_row", arrays.join(", "))
        } else {
            if !child.hidden {
                out.push(Item {
                    name: Some(child.label.clone()),
                    expr: format!("{lateral}.body"),
                    agg: None,
                    json: true,
                });
            }
            match (to_one, child.inner) {
                (true, _) => {
                    format!("SELECT row_to_json(pgrst_row) AS body FROM ({q}) AS pgrst_row")
                }
                (false, false) => format!(
                    "SELECT coalesce(json_agg(pgrst_row), '[]') AS body FROM ({q}) AS pgrst_row"
                ),
                (false, true) => format!(
                    "SELECT json_agg(pgrst_row) AS body FROM ({q}) AS pgrst_row HAVING count(*) > 0"
                ),
            }
        };
        let join = if child.inner { "INNER" } else { "LEFT" };
        joins.push_str(&format!(
            " {join} JOIN LATERAL ({body}) AS {lateral} ON TRUE"
        ));
    }
    (joins, out)
}

/// A level's whole select list: its columns, then what its embeds add; and its GROUP BY.
pub(super) fn node_columns(node: &Node, sql: &mut Sql) -> (String, String, String) {
    let (joins, child_items) = joins_sql(node, sql, false);
    let mut items = column_items(node, sql);
    items.extend(child_items);
    let (cols, group_by) = select_list(&items, false);
    (joins, cols, group_by)
}

/// `SELECT … FROM from joins WHERE … ORDER BY … LIMIT … OFFSET …` for a top-level node.
pub(super) fn node_select(node: &Node, from: &str, sql: &mut Sql) -> String {
    let (joins, cols, group_by) = node_columns(node, sql);
    let wheres = where_sql(&node.conditions, &node.alias, sql);
    let mut s = format!("SELECT {cols} FROM {from}{joins}{wheres}{group_by}");
    s.push_str(&order_sql(&node.order, &node.alias, sql));
    s.push_str(&limit_offset_sql(node.limit, node.offset, sql));
    s
}

/// The planner's estimate of the rows a read matches, as PostgREST's planned count: the count
/// query, with its values inline, explained by `supagate.planned_rows`.
fn planned_count(root: &Node, from: &str, sql: &mut Sql) -> String {
    let mut inline = Sql {
        inline: true,
        ..Sql::default()
    };
    let (inner_joins, _) = joins_sql(root, &mut inline, true);
    let wheres = where_sql(&root.conditions, &root.alias, &mut inline);
    let query = format!("SELECT 1 FROM {from}{inner_joins}{wheres}");
    format!("supagate.planned_rows({}::text)", sql.param(query))
}

pub(super) fn statement(plan: &ReadPlan, sql: &mut Sql) -> String {
    let (table, root) = (plan.table, &plan.root);
    let from = format!(
        "{} AS {}",
        qualified(&table.schema, &table.name),
        ident(&root.alias)
    );
    let mut ctes = format!("pgrst_source AS ({})", node_select(root, &from, sql));
    let total = match plan.count {
        None => "NULL::bigint".to_string(),
        // The planner's estimate for the count query, as PostgREST's planned count: the query
        // is explained with its values inline.
        // Row level security may hide rows the statistics count: such tables get an exact
        // count, so that an estimate never tells about rows a caller cannot see.
        Some(Count::Planned) if !table.rls => planned_count(root, &from, sql),
        // Exact; `estimated` is exact up to db-max-rows and planned beyond, as PostgREST.
        Some(count) => {
            let cap = plan
                .max_rows
                .filter(|_| count == Count::Estimated && !table.rls);
            let (inner_joins, _) = joins_sql(root, sql, true);
            let wheres = where_sql(&root.conditions, &root.alias, sql);
            let limit = cap.map(|m| format!(" LIMIT {}", m + 1)).unwrap_or_default();
            ctes.push_str(&format!(
                ", pgrst_source_count AS (SELECT 1 FROM {from}{inner_joins}{wheres}{limit})"
            ));
            match cap {
                None => "(SELECT pg_catalog.count(*) FROM pgrst_source_count)".to_string(),
                Some(m) => format!(
                    "(SELECT CASE WHEN c.n > {m} THEN {} ELSE c.n END \
                     FROM (SELECT pg_catalog.count(*) AS n FROM pgrst_source_count) AS c)",
                    planned_count(root, &from, sql)
                ),
            }
        }
    };
    wrap(
        &ctes,
        &total,
        &body_expr(plan.media, Shape::Rows, plan.head),
        "NULL::text",
    )
}
