//! Read plans: the select tree with its embedded relations, and the filters, orders and pages
//! the query string addresses to each level.

use super::tree::{Child, Node, ReadPlan};
use super::{Aliases, EngineConfig, Input, relationships};
use crate::ast::{Field, SelectItem};
use crate::error::ApiError;
use crate::error::Pgrst;
use crate::request::*;
use crate::schema::{SchemaCache, Table};

/// One level of the select tree and, recursively, its embeds.
pub(super) fn build_node<'c>(
    cache: &'c SchemaCache,
    table: Option<&'c Table>,
    alias: String,
    select: &[SelectItem],
    aliases: &mut Aliases,
    depth: usize,
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
                    return Err(ApiError::pgrst(
                        Pgrst::NoRelationship,
                        format!(
                            "Could not find a relationship for '{}' in the schema cache",
                            e.relation
                        ),
                    ));
                };
                let (target, rel) = relationships::find(cache, parent, e)?;
                if node.children.iter().any(|c| c.label == e.label()) {
                    // Two embeds under one key: PostgREST's statement then names two joins
                    // alike, and PostgreSQL refuses it.
                    return Err(ApiError::new(
                        400,
                        "42712",
                        format!(
                            "table name \"{}_{}_{}\" specified more than once",
                            parent.name,
                            e.label(),
                            depth + 1
                        ),
                    ));
                }
                let alias = aliases.next(&target.name);
                let child = build_node(cache, Some(target), alias, &e.select, aliases, depth + 1)?;
                node.children.push(Child {
                    label: e.label().to_string(),
                    rel,
                    inner: e.inner,
                    hidden: e.select.is_empty(),
                    spread: e.spread,
                    node: child,
                });
            }
            other => node.columns.push(other.clone()),
        }
    }
    Ok(node)
}

/// Spelling out `*` as the relation's columns where a level is grouped (it or a level above
/// aggregates) or spread, as PostgREST does: GROUP BY and the spread need each column by name.
fn expand_stars(node: &mut Node, grouped_above: bool, spread: bool) {
    let grouped = grouped_above || node.aggregates();
    if (grouped || spread)
        && let Some(table) = node.table
    {
        node.columns = std::mem::take(&mut node.columns)
            .into_iter()
            .flat_map(|c| match c {
                SelectItem::Star => table
                    .columns
                    .iter()
                    .map(|col| SelectItem::Column {
                        field: Field::simple(&col.name),
                        alias: None,
                        cast: None,
                        aggregate: None,
                    })
                    .collect(),
                other => vec![other],
            })
            .collect();
    }
    for child in &mut node.children {
        expand_stars(&mut child.node, grouped, child.spread);
    }
}

/// The select tree of a request's top level, with PostgREST's checks of aggregates.
pub(super) fn select_tree<'c>(
    cache: &'c SchemaCache,
    table: Option<&'c Table>,
    alias: String,
    select: &[SelectItem],
) -> Result<Node<'c>, ApiError> {
    let mut root = build_node(cache, table, alias, select, &mut Aliases::default(), 0)?;
    if root.uses_aggregates() && cache.db_setting("db_aggregates_enabled") != Some("true") {
        return Err(ApiError::pgrst(
            Pgrst::AggregatesDisabled,
            "Use of aggregate functions is not allowed",
        ));
    }
    expand_stars(&mut root, false, false);
    Ok(root)
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
            ApiError::pgrst(
                Pgrst::FilterNotEmbedded,
                format!("'{first}' is not an embedded resource in this request"),
            )
            .hint(format!(
                "Verify that '{first}' is included in the 'select' query parameter."
            ))
        })?;
    node_at(&mut node.children[idx].node, rest)
}

/// Hangs each filter, order, limit and offset on the level its embed path names.
pub(super) fn attach_query(root: &mut Node, q: &QueryParams) -> Result<(), ApiError> {
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

/// The page of a top-level read: the Range header, then limit/offset, capped by db-max-rows.
pub(super) fn page(root: &mut Node, range: Option<&str>, max_rows: Option<u64>) {
    if let Some((off, lim)) = range.and_then(parse_range) {
        root.offset.get_or_insert(off);
        if let Some(l) = lim {
            root.limit.get_or_insert(l);
        }
    }
    if let Some(max) = max_rows {
        root.limit = Some(root.limit.map_or(max, |l| l.min(max)));
    }
}

pub(super) fn plan<'c>(
    cache: &'c SchemaCache,
    cfg: &EngineConfig,
    table: &'c Table,
    q: &QueryParams,
    input: &Input,
    media: MediaType,
) -> Result<ReadPlan<'c>, ApiError> {
    let mut root = select_tree(cache, Some(table), table.name.clone(), &q.select)?;
    attach_query(&mut root, q)?;
    let max_rows = cfg.max_rows(cache);
    page(&mut root, input.range, max_rows);
    Ok(ReadPlan {
        table,
        root,
        count: input.prefer.count,
        max_rows,
        media,
        head: input.method == Method::Head,
    })
}
