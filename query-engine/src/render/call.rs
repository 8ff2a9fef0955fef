//! Function calls: arguments from a JSON record (named) or the whole body (one unnamed
//! parameter); the call's rows in a CTE of their own so the function runs once, and filters,
//! order, page and a count apply to them as to a table.

use super::body::{Shape, body_expr};
use super::read::node_select;
use super::{Sql, ident, qualified, wrap};
use crate::plan::tree::{CallArgs, CallPlan};
use serde_json::Value;

pub(super) fn statement(plan: &CallPlan, sql: &mut Sql) -> String {
    let func = plan.func;
    // Unnamed parameters are passed by position; the rest by name.
    let arg_ref = |a: &str| {
        if a.is_empty() {
            "pgrst_args.pgrst_unnamed".to_string()
        } else {
            format!("{} := pgrst_args.{}", ident(a), ident(a))
        }
    };
    let (call_args, args_from) = match &plan.args {
        CallArgs::None => (vec![], String::new()),
        CallArgs::Whole(value) => (
            vec![format!(
                "{}::{}",
                sql.param(value.clone()),
                func.args[0].data_type
            )],
            String::new(),
        ),
        CallArgs::Named(args) => {
            let types = args
                .keys()
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
            (
                args.keys().map(|a| arg_ref(a)).collect(),
                format!("json_to_record({p}::json) AS pgrst_args({types})"),
            )
        }
    };
    let call = format!(
        "{}({})",
        qualified(&func.schema, &func.name),
        call_args.join(", ")
    );
    let from_args = |rest: &str| -> String {
        match (args_from.is_empty(), rest.is_empty()) {
            (true, true) => String::new(),
            (true, false) => format!(" FROM {rest}"),
            (false, true) => format!(" FROM {args_from}"),
            (false, false) => format!(" FROM {args_from}, LATERAL {rest}"),
        }
    };
    let (ctes, total, body) = match &plan.rows {
        Some(root) => {
            let a = ident(&root.alias);
            let rows = format!(
                "pgrst_call_rows AS (SELECT {a}.*{})",
                from_args(&format!("{call} AS {a}"))
            );
            let source = node_select(root, &format!("pgrst_call_rows AS {a}"), sql);
            // A count counts the filtered rows without the page, as PostgREST.
            let total = if plan.count {
                let wheres = super::fragments::where_sql(&root.conditions, &root.alias, sql);
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
                body_expr(plan.media, shape, plan.head),
            )
        }
        None => {
            let (source, shape) = if func.returns_set {
                (
                    format!(
                        "SELECT pgrst_scalar{}",
                        from_args(&format!("{call} AS pgrst_scalar"))
                    ),
                    Shape::SetOfScalar,
                )
            } else {
                (
                    format!("SELECT {call} AS pgrst_scalar{}", from_args("")),
                    Shape::Scalar,
                )
            };
            let total = if plan.count && !func.returns_void {
                "(SELECT pg_catalog.count(*) FROM pgrst_source)".to_string()
            } else {
                "NULL::bigint".to_string()
            };
            (
                format!("pgrst_source AS ({source})"),
                total,
                body_expr(plan.media, shape, plan.head || func.returns_void),
            )
        }
    };
    wrap(&ctes, &total, &body, "NULL::text")
}
