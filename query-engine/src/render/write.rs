//! Writes: the data-modifying CTE of an insert, update or delete, and what it returns.

use super::body::{Shape, body_expr};
use super::fragments::{condition_sql, order_sql, where_sql};
use super::read::node_columns;
use super::{Sql, ident, literal, qualified, wrap};
use crate::plan::tree::{MutatePlan, Write};
use crate::request::{Resolution, Return};
use crate::schema::Table;

/// Counts the rows an upsert inserts, as PostgREST does: each row offered to the INSERT adds
/// one to the transaction-local `pgrst.inserted`, each that turns into an update takes one off.
fn count_inserted(add: bool) -> &'static str {
    if add {
        "set_config('pgrst.inserted', (coalesce(nullif(current_setting('pgrst.inserted', true), '')::int, 0) + 1)::text, true) <> '0'"
    } else {
        "set_config('pgrst.inserted', (coalesce(nullif(current_setting('pgrst.inserted', true), '')::int, 0) - 1)::text, true) <> '-1'"
    }
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

/// The data-modifying statement itself, returning what the response needs.
fn mutation(plan: &MutatePlan, sql: &mut Sql) -> String {
    let table = plan.table;
    let target = format!(
        "{} AS {}",
        qualified(&table.schema, &table.name),
        ident(&table.name)
    );
    let ret = returning(table, plan.return_, &table.name);
    match &plan.write {
        Write::Insert { columns, .. } if columns.is_empty() => {
            format!("INSERT INTO {target} DEFAULT VALUES RETURNING {ret}")
        }
        Write::Insert {
            rows,
            columns,
            missing_default,
            conflict,
            put,
        } => {
            let cols = columns
                .iter()
                .map(|c| ident(c))
                .collect::<Vec<_>>()
                .join(", ");
            let values = columns
                .iter()
                .map(|c| format!("pgrst_body.{}", ident(c)))
                .collect::<Vec<_>>()
                .join(", ");
            let rows_param = sql.param(rows.clone());
            let from = if *missing_default {
                // missing=default, as PostgREST: each row over an object of the defaults (so
                // every row evaluates them, as a sequence's values show).
                let defaults: Vec<String> = columns
                    .iter()
                    .filter_map(|c| {
                        let d = table.column(c)?.default.as_ref()?;
                        Some(format!("{}, {d}", literal(c)))
                    })
                    .collect();
                format!(
                    "jsonb_array_elements({rows_param}::jsonb) AS pgrst_row(j), \
                     LATERAL jsonb_to_record(jsonb_build_object({}) || pgrst_row.j) AS pgrst_body({})",
                    defaults.join(", "),
                    record_type(table, columns)
                )
            } else {
                format!(
                    "json_to_recordset({rows_param}::json) AS pgrst_body({})",
                    record_type(table, columns)
                )
            };
            let merge = conflict
                .as_ref()
                .is_some_and(|c| c.resolution == Resolution::MergeDuplicates);
            let on_conflict = match conflict {
                None => String::new(),
                Some(c) => {
                    let keys = c
                        .keys
                        .iter()
                        .map(|k| ident(k))
                        .collect::<Vec<_>>()
                        .join(", ");
                    let sets: Vec<String> = columns
                        .iter()
                        .map(|c| format!("{} = EXCLUDED.{}", ident(c), ident(c)))
                        .collect();
                    if merge && !sets.is_empty() {
                        format!(
                            " ON CONFLICT ({keys}) DO UPDATE SET {} WHERE {}",
                            sets.join(", "),
                            count_inserted(false)
                        )
                    } else {
                        format!(" ON CONFLICT ({keys}) DO NOTHING")
                    }
                }
            };
            // A PUT writes the body's row only if it matches the URL's primary key filters.
            let mut wheres: Vec<String> = put
                .iter()
                .map(|c| condition_sql(c, "pgrst_body", sql))
                .collect();
            if merge {
                wheres.insert(0, count_inserted(true).to_string());
            }
            let counted = if wheres.is_empty() {
                String::new()
            } else {
                format!(" WHERE {}", wheres.join(" AND "))
            };
            format!(
                "INSERT INTO {target} ({cols}) SELECT {values} FROM {from}{counted}{on_conflict} RETURNING {ret}"
            )
        }
        Write::Update { columns, .. } if columns.is_empty() => {
            format!("SELECT {ret} FROM {target} WHERE false")
        }
        Write::Update {
            rows,
            columns,
            conditions,
        } => {
            let sets: Vec<String> = columns
                .iter()
                .map(|c| format!("{} = pgrst_body.{}", ident(c), ident(c)))
                .collect();
            let rows_param = sql.param(rows.clone());
            let wheres = where_sql(conditions, &table.name, sql);
            format!(
                "UPDATE {target} SET {} FROM (SELECT * FROM json_to_recordset({rows_param}::json) AS pgrst_body({}) LIMIT 1) AS pgrst_body{wheres} RETURNING {ret}",
                sets.join(", "),
                record_type(table, columns)
            )
        }
        Write::Delete { conditions } => {
            let wheres = where_sql(conditions, &table.name, sql);
            format!("DELETE FROM {target}{wheres} RETURNING {ret}")
        }
    }
}

/// Wraps the data-modifying CTE: the representation is re-selected from its RETURNING rows, so
/// `select=` (with embeds) shapes it like a read.
pub(super) fn statement(plan: &MutatePlan, sql: &mut Sql) -> String {
    let table = plan.table;
    let mutation = mutation(plan, sql);
    let (source, body) = match &plan.representation {
        Some(root) => {
            let (joins, cols, group_by) = node_columns(root, sql);
            let order = order_sql(&root.order, &root.alias, sql);
            (
                format!(
                    "SELECT {cols} FROM pgrst_mutation AS {}{joins}{group_by}{order}",
                    ident(&table.name)
                ),
                body_expr(plan.media, Shape::Rows, false),
            )
        }
        None => ("SELECT 1 FROM pgrst_mutation".to_string(), "''".to_string()),
    };
    let location =
        if plan.location && plan.return_ == Return::HeadersOnly && !table.primary_key.is_empty() {
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
    wrap(
        &format!("pgrst_mutation AS ({mutation}), pgrst_source AS ({source})"),
        "NULL::bigint",
        &body,
        &location,
    )
}
