//! SQL for the parts of a query string: fields with JSON paths, filters and logic trees, orders
//! and pages.

use super::{Sql, ident};
use crate::ast::*;

pub(super) fn field_sql(f: &Field, alias: &str, sql: &mut Sql) -> String {
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
            format!(
                "{e} {} {}({})",
                op.sql(),
                q.sql(),
                sql.param(array_literal(&vs))
            )
        }
        Operation::Is(v) => format!("{e} IS {}", v.sql()),
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

pub(super) fn condition_sql(c: &Condition, alias: &str, sql: &mut Sql) -> String {
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

pub(super) fn order_sql(terms: &[OrderTerm], alias: &str, sql: &mut Sql) -> String {
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

/// ` LIMIT $n OFFSET $m`, each only when set.
pub(super) fn limit_offset_sql(limit: Option<u64>, offset: Option<u64>, sql: &mut Sql) -> String {
    let mut s = String::new();
    if let Some(l) = limit {
        s.push_str(&format!(" LIMIT {}", sql.param(l.to_string())));
    }
    if let Some(o) = offset {
        s.push_str(&format!(" OFFSET {}", sql.param(o.to_string())));
    }
    s
}

/// ` WHERE c1 AND c2`, or nothing without conditions.
pub(super) fn where_sql(conditions: &[Condition], alias: &str, sql: &mut Sql) -> String {
    let parts: Vec<String> = conditions
        .iter()
        .map(|c| condition_sql(c, alias, sql))
        .collect();
    if parts.is_empty() {
        String::new()
    } else {
        format!(" WHERE {}", parts.join(" AND "))
    }
}
