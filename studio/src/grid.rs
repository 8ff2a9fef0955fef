//! The table editor's reads and writes as SQL with bound parameters: PostgREST's filters and
//! order as query-engine parses them ([`RowQuery`]) on one table, `limit`/`offset` paging, and
//! single-row inserts, updates and deletes by primary key. Every
//! value is bound as text and cast to its column's type, so PostgreSQL parses it as it would
//! any literal of that type.

mod query;

pub use query::{DEFAULT_LIMIT, MAX_LIMIT, RowQuery};

use crate::StudioError;
use crate::ident::{qualified, quote};
use query_engine::ast::{CmpOp, Direction, Field, Filter, Nulls, Operation, OrderTerm};
use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Column {
    pub name: String,
    /// As `format_type` writes it: `integer`, `character varying(20)`, `public.mood`.
    pub data_type: String,
    pub nullable: bool,
    pub default: Option<String>,
    pub primary_key: bool,
    /// Generated or `GENERATED ALWAYS AS IDENTITY`: never written.
    pub generated: bool,
}

/// What the editor needs of a table or view.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Shape {
    pub schema: String,
    pub name: String,
    /// `table`, `view`, `materialized view`, `foreign table` or `partitioned table`.
    pub kind: String,
    pub columns: Vec<Column>,
}

impl Shape {
    fn column(&self, name: &str) -> Result<&Column, StudioError> {
        self.columns
            .iter()
            .find(|c| c.name == name)
            .ok_or_else(|| StudioError::Invalid(format!("{} has no column \"{name}\"", self.name)))
    }

    pub fn primary_key(&self) -> Vec<&Column> {
        self.columns.iter().filter(|c| c.primary_key).collect()
    }

    fn target(&self) -> String {
        qualified(&self.schema, &self.name)
    }
}

/// A bound parameter: text, or a text array for `in`.
#[derive(Debug, Clone, PartialEq)]
pub enum Param {
    Text(Option<String>),
    List(Vec<String>),
}

impl Param {
    pub fn as_sql(&self) -> &(dyn tokio_postgres::types::ToSql + Sync) {
        match self {
            Param::Text(t) => t,
            Param::List(l) => l,
        }
    }
}

/// A statement and its parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct Statement {
    pub sql: String,
    pub params: Vec<Param>,
}

impl Statement {
    pub fn params(&self) -> Vec<&(dyn tokio_postgres::types::ToSql + Sync)> {
        self.params.iter().map(Param::as_sql).collect()
    }
}

/// `($n::text)::type`, the value bound as text.
fn bind(params: &mut Vec<Param>, value: Option<String>, data_type: &str) -> String {
    params.push(Param::Text(value));
    format!("(${}::text)::{data_type}", params.len())
}

/// The column a filter or an order names: a whole column (Studio does not reach into JSON).
fn column_of<'a>(shape: &'a Shape, field: &Field) -> Result<&'a Column, StudioError> {
    if !field.json_path.is_empty() {
        return Err(StudioError::Invalid(format!(
            "filters and orders here name whole columns ({}), not paths into JSON",
            field.name
        )));
    }
    shape.column(&field.name)
}

/// A LIKE pattern as PostgREST reads it: `*` is `%`.
fn pattern(v: &str) -> String {
    v.replace('*', "%")
}

fn where_clause(
    shape: &Shape,
    filters: &[Filter],
    params: &mut Vec<Param>,
) -> Result<String, StudioError> {
    let mut terms = vec![];
    for f in filters {
        let col = column_of(shape, &f.field)?;
        let c = format!("t.{}", quote(&col.name));
        let ty = &col.data_type;
        let term = match &f.op {
            Operation::Is(v) => format!("{c} IS {}", v.sql()),
            Operation::Compare(op @ (CmpOp::Like | CmpOp::Ilike), v) => {
                params.push(Param::Text(Some(pattern(v))));
                format!("{c}::text {} ${}", op.sql(), params.len())
            }
            Operation::Compare(op @ (CmpOp::Match | CmpOp::Imatch), v) => {
                params.push(Param::Text(Some(v.clone())));
                format!("{c}::text {} ${}", op.sql(), params.len())
            }
            Operation::Compare(op, v) => {
                format!("{c} {} {}", op.sql(), bind(params, Some(v.clone()), ty))
            }
            Operation::Quantified(op, q, list) => {
                let quantifier = q.sql();
                if matches!(
                    op,
                    CmpOp::Like | CmpOp::Ilike | CmpOp::Match | CmpOp::Imatch
                ) {
                    let list = list
                        .iter()
                        .map(|v| {
                            if matches!(op, CmpOp::Like | CmpOp::Ilike) {
                                pattern(v)
                            } else {
                                v.clone()
                            }
                        })
                        .collect();
                    params.push(Param::List(list));
                    format!(
                        "{c}::text {} {quantifier}(${}::text[])",
                        op.sql(),
                        params.len()
                    )
                } else {
                    params.push(Param::List(list.clone()));
                    format!(
                        "{c} {} {quantifier}((${}::text[])::{ty}[])",
                        op.sql(),
                        params.len()
                    )
                }
            }
            Operation::IsDistinct(v) => {
                format!("{c} IS DISTINCT FROM {}", bind(params, Some(v.clone()), ty))
            }
            Operation::In(list) => {
                params.push(Param::List(list.clone()));
                format!("{c} = ANY((${}::text[])::{ty}[])", params.len())
            }
            Operation::Set(op, v) => {
                format!("{c} {} {}", op.sql(), bind(params, Some(v.clone()), ty))
            }
            Operation::Fts {
                kind,
                language,
                query,
            } => {
                let lang = language.as_ref().map(|l| {
                    params.push(Param::Text(Some(l.clone())));
                    format!("${}::regconfig, ", params.len())
                });
                let lang = lang.unwrap_or_default();
                let doc = if ty == "tsvector" {
                    c.clone()
                } else {
                    format!("to_tsvector({lang}{c}::text)")
                };
                params.push(Param::Text(Some(query.clone())));
                format!("{doc} @@ {}({lang}${})", kind.function(), params.len())
            }
        };
        terms.push(if f.negate {
            format!("NOT ({term})")
        } else {
            term
        });
    }
    Ok(if terms.is_empty() {
        String::new()
    } else {
        format!(" WHERE {}", terms.join(" AND "))
    })
}

fn order_clause(shape: &Shape, order: &[OrderTerm]) -> Result<String, StudioError> {
    let mut terms = vec![];
    for o in order {
        let col = column_of(shape, &o.field)?;
        let mut t = format!("t.{}", quote(&col.name));
        if o.direction == Some(Direction::Desc) {
            t.push_str(" DESC");
        }
        match o.nulls {
            Some(Nulls::First) => t.push_str(" NULLS FIRST"),
            Some(Nulls::Last) => t.push_str(" NULLS LAST"),
            None => {}
        }
        terms.push(t);
    }
    // Stable pages: the primary key breaks ties (and orders when nothing else does).
    for k in shape.primary_key() {
        if !order.iter().any(|o| o.field.name == k.name) {
            terms.push(format!("t.{}", quote(&k.name)));
        }
    }
    Ok(if terms.is_empty() {
        String::new()
    } else {
        format!(" ORDER BY {}", terms.join(", "))
    })
}

/// One page of rows, each as JSON text in column order.
pub fn select(shape: &Shape, q: &RowQuery) -> Result<Statement, StudioError> {
    let mut params = vec![];
    let filter = where_clause(shape, &q.filters, &mut params)?;
    let order = order_clause(shape, &q.order)?;
    Ok(Statement {
        sql: format!(
            "SELECT row_to_json(t)::text FROM {} AS t{filter}{order} LIMIT {} OFFSET {}",
            shape.target(),
            q.limit,
            q.offset
        ),
        params,
    })
}

/// How many rows the filters keep.
pub fn count(shape: &Shape, filters: &[Filter]) -> Result<Statement, StudioError> {
    let mut params = vec![];
    let filter = where_clause(shape, filters, &mut params)?;
    Ok(Statement {
        sql: format!("SELECT count(*) FROM {} AS t{filter}", shape.target()),
        params,
    })
}

/// Every row the filters keep, each column as text (for CSV).
pub fn export(shape: &Shape, q: &RowQuery) -> Result<Statement, StudioError> {
    let mut params = vec![];
    let filter = where_clause(shape, &q.filters, &mut params)?;
    let order = order_clause(shape, &q.order)?;
    let columns: Vec<String> = shape
        .columns
        .iter()
        .map(|c| format!("t.{}::text", quote(&c.name)))
        .collect();
    Ok(Statement {
        sql: format!(
            "SELECT {} FROM {} AS t{filter}{order}",
            columns.join(", "),
            shape.target()
        ),
        params,
    })
}

/// A JSON value as the text PostgreSQL reads for its column: strings as they are, null as
/// NULL, objects and arrays as JSON.
pub fn text_of(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

fn values_of<'a>(
    shape: &'a Shape,
    values: &serde_json::Map<String, Value>,
) -> Result<Vec<(&'a Column, Option<String>)>, StudioError> {
    let mut out = vec![];
    for (name, v) in values {
        let col = shape.column(name)?;
        if col.generated {
            return Err(StudioError::Invalid(format!(
                "{name} is generated: it cannot be written"
            )));
        }
        out.push((col, text_of(v)));
    }
    Ok(out)
}

fn writable(shape: &Shape) -> Result<(), StudioError> {
    if shape.kind == "table" || shape.kind == "partitioned table" {
        Ok(())
    } else {
        Err(StudioError::Invalid(format!(
            "{} is a {}: its rows are edited in the tables it reads",
            shape.name, shape.kind
        )))
    }
}

/// The condition that finds one row by its whole primary key.
fn key_clause(
    shape: &Shape,
    key: &serde_json::Map<String, Value>,
    params: &mut Vec<Param>,
) -> Result<String, StudioError> {
    let pk = shape.primary_key();
    if pk.is_empty() {
        return Err(StudioError::Invalid(format!(
            "{} has no primary key: its rows cannot be told apart to change one \
             (add a primary key, or use the SQL editor)",
            shape.name
        )));
    }
    let mut terms = vec![];
    for k in pk {
        let v = key
            .get(&k.name)
            .and_then(text_of)
            .ok_or_else(|| StudioError::Invalid(format!("the row's key needs {}", k.name)))?;
        terms.push(format!(
            "t.{} = {}",
            quote(&k.name),
            bind(params, Some(v), &k.data_type)
        ));
    }
    if key.len() != terms.len() {
        return Err(StudioError::Invalid(
            "the row's key is its primary key's columns only".into(),
        ));
    }
    Ok(terms.join(" AND "))
}

pub fn insert(
    shape: &Shape,
    values: &serde_json::Map<String, Value>,
) -> Result<Statement, StudioError> {
    writable(shape)?;
    let mut params = vec![];
    let given = values_of(shape, values)?;
    let body = if given.is_empty() {
        " DEFAULT VALUES".to_string()
    } else {
        let names: Vec<String> = given.iter().map(|(c, _)| quote(&c.name)).collect();
        let binds: Vec<String> = given
            .into_iter()
            .map(|(c, v)| bind(&mut params, v, &c.data_type))
            .collect();
        format!(" ({}) VALUES ({})", names.join(", "), binds.join(", "))
    };
    Ok(Statement {
        sql: format!(
            "INSERT INTO {} AS t{body} RETURNING row_to_json(t)::text",
            shape.target()
        ),
        params,
    })
}

pub fn update(
    shape: &Shape,
    key: &serde_json::Map<String, Value>,
    values: &serde_json::Map<String, Value>,
) -> Result<Statement, StudioError> {
    writable(shape)?;
    let mut params = vec![];
    let given = values_of(shape, values)?;
    if given.is_empty() {
        return Err(StudioError::Invalid("no value to change".into()));
    }
    let sets: Vec<String> = given
        .into_iter()
        .map(|(c, v)| {
            format!(
                "{} = {}",
                quote(&c.name),
                bind(&mut params, v, &c.data_type)
            )
        })
        .collect();
    let cond = key_clause(shape, key, &mut params)?;
    Ok(Statement {
        sql: format!(
            "UPDATE {} AS t SET {} WHERE {cond} RETURNING row_to_json(t)::text",
            shape.target(),
            sets.join(", ")
        ),
        params,
    })
}

pub fn delete(
    shape: &Shape,
    key: &serde_json::Map<String, Value>,
) -> Result<Statement, StudioError> {
    writable(shape)?;
    let mut params = vec![];
    let cond = key_clause(shape, key, &mut params)?;
    Ok(Statement {
        sql: format!("DELETE FROM {} AS t WHERE {cond}", shape.target()),
        params,
    })
}

/// One CSV record as PostgreSQL's `COPY … CSV` writes it: NULL empty, quotes where needed.
pub fn csv_record(fields: &[Option<String>]) -> String {
    let mut out = String::new();
    for (i, f) in fields.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        if let Some(v) = f {
            if v.is_empty()
                || v.contains([',', '"', '\n', '\r'])
                || v.starts_with(' ')
                || v.ends_with(' ')
            {
                out.push('"');
                out.push_str(&v.replace('"', "\"\""));
                out.push('"');
            } else {
                out.push_str(v);
            }
        }
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests;
