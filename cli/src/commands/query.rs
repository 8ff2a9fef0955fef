//! `db query`, as the Supabase CLI's: SQL (an argument, `--file`, or standard input) run on the
//! local database or `--db-url`'s, its rows printed as a table, JSON or CSV; a statement that
//! returns no rows prints its command tag. Values arrive as text (the simple protocol, so a
//! script of several statements runs as psql would run it); JSON gives numbers, booleans and
//! JSON columns their own types, read from the statement's column types when it has one.

use super::CommandError;
use super::Prepare;
use super::migration::{on_database, target};
use crate::workflow_args::QueryArgs;
use gateway::config::Config;
use pg::Client;
use serde_json::{Map, Value};
use std::io::{IsTerminal, Read};
use tokio_postgres::SimpleQueryMessage;
use tokio_postgres::types::Type;

/// The largest SQL text read.
const MAX_SQL: u64 = 16 * 1024 * 1024;

/// What a statement that returns no rows reports, as PostgreSQL tags it (`INSERT 0 1`,
/// `UPDATE 2`, `CREATE TABLE`), from its text and the rows it touched.
pub fn command_tag(sql: &str, rows: u64) -> String {
    const MODIFIERS: &[&str] = &[
        "OR",
        "REPLACE",
        "UNIQUE",
        "TEMP",
        "TEMPORARY",
        "UNLOGGED",
        "GLOBAL",
        "LOCAL",
        "TRUSTED",
        "PROCEDURAL",
        "CONSTRAINT",
        "RECURSIVE",
        "IF",
        "NOT",
        "EXISTS",
    ];
    let words: Vec<String> = project::sql::split(sql)
        .last()
        .map(|s| s.text.clone())
        .unwrap_or_default()
        .split_whitespace()
        .map(|w| {
            w.trim_end_matches(';')
                .trim_end_matches('(')
                .to_ascii_uppercase()
        })
        .collect();
    let verb = words.first().cloned().unwrap_or_default();
    match verb.as_str() {
        "INSERT" => format!("INSERT 0 {rows}"),
        "UPDATE" | "DELETE" | "MERGE" | "SELECT" | "COPY" | "FETCH" | "MOVE" => {
            format!("{verb} {rows}")
        }
        "CREATE" | "ALTER" | "DROP" => {
            let mut tag = vec![verb.clone()];
            let rest = words[1..]
                .iter()
                .skip_while(|w| MODIFIERS.contains(&w.as_str()));
            for w in rest.take(2) {
                tag.push(w.clone());
                if !["MATERIALIZED", "FOREIGN", "EVENT", "DEFAULT"].contains(&w.as_str()) {
                    break;
                }
            }
            tag.join(" ")
        }
        "TRUNCATE" => "TRUNCATE TABLE".into(),
        "" => String::new(),
        _ => verb,
    }
}

/// A text value as JSON, by its column's type.
pub fn json_value(text: Option<&str>, ty: Option<&Type>) -> Value {
    let Some(t) = text else {
        return Value::Null;
    };
    let parsed = match ty {
        Some(ty)
            if [
                Type::INT2,
                Type::INT4,
                Type::INT8,
                Type::OID,
                Type::FLOAT4,
                Type::FLOAT8,
                Type::NUMERIC,
            ]
            .contains(ty) =>
        {
            serde_json::from_str::<serde_json::Number>(t)
                .ok()
                .map(Value::Number)
        }
        Some(ty) if *ty == Type::BOOL => Some(Value::Bool(t == "t")),
        Some(ty) if *ty == Type::JSON || *ty == Type::JSONB => serde_json::from_str(t).ok(),
        _ => None,
    };
    parsed.unwrap_or_else(|| Value::String(t.to_string()))
}

/// The rows of the last statement that returned some, or the last statement's tag.
enum Outcome {
    Rows {
        columns: Vec<String>,
        rows: Vec<Vec<Option<String>>>,
        types: Vec<Type>,
    },
    Tag(String),
}

async fn run_sql(c: &Client, sql: &str) -> Result<Outcome, CommandError> {
    // A single statement's column types, when it can be prepared (a script cannot be).
    let types: Vec<Type> = match c.prepare(sql).await {
        Ok(stmt) => stmt.columns().iter().map(|c| c.type_().clone()).collect(),
        Err(_) => Vec::new(),
    };
    let messages = c
        .simple_query(sql)
        .await
        .map_err(|e| CommandError::sql_in("failed to execute query", Some(sql), e))?;
    let mut columns: Option<Vec<String>> = None;
    let mut rows = Vec::new();
    let mut last = None;
    for m in messages {
        match m {
            SimpleQueryMessage::RowDescription(cols) => {
                columns = Some(cols.iter().map(|c| c.name().to_string()).collect());
                rows.clear();
            }
            SimpleQueryMessage::Row(r) => {
                if columns.is_none() {
                    columns = Some(r.columns().iter().map(|c| c.name().to_string()).collect());
                }
                rows.push((0..r.len()).map(|i| r.get(i).map(str::to_string)).collect());
            }
            SimpleQueryMessage::CommandComplete(n) => last = Some(n),
            _ => {}
        }
    }
    Ok(match columns {
        Some(columns) => Outcome::Rows {
            columns,
            rows,
            types,
        },
        None => Outcome::Tag(command_tag(sql, last.unwrap_or(0))),
    })
}

fn read_sql(a: &QueryArgs) -> Result<String, CommandError> {
    if let Some(path) = &a.file {
        let f = std::fs::File::open(path)
            .map_err(|e| CommandError::io("failed to read SQL file", e))?;
        let mut s = String::new();
        f.take(MAX_SQL)
            .read_to_string(&mut s)
            .map_err(|e| CommandError::io("failed to read SQL file", e))?;
        return Ok(s);
    }
    if let Some(sql) = &a.sql {
        return Ok(sql.clone());
    }
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        return Err(CommandError::Usage(
            "no SQL query provided. Pass SQL as an argument, via --file, or pipe to stdin".into(),
        ));
    }
    let mut s = String::new();
    stdin
        .lock()
        .take(MAX_SQL)
        .read_to_string(&mut s)
        .map_err(|e| CommandError::io("failed to read from stdin", e))?;
    if s.trim().is_empty() {
        return Err(CommandError::Usage("no SQL provided via stdin".into()));
    }
    Ok(s)
}

pub async fn run(cfg: &Config, a: QueryArgs) -> Result<(), CommandError> {
    let sql = read_sql(&a)?;
    let remote = target(cfg, a.target.db_url.clone(), a.target.linked)?;
    let mut outcome = None;
    on_database(cfg, remote, Prepare::UnlessRunning, async |c| {
        outcome = Some(run_sql(c, &sql).await?);
        Ok(())
    })
    .await?;
    match outcome.ok_or_else(|| CommandError::Message("no result".into()))? {
        Outcome::Tag(tag) => println!("{tag}"),
        Outcome::Rows {
            columns,
            rows,
            types,
        } => {
            let headers: Vec<&str> = columns.iter().map(String::as_str).collect();
            match a.output.as_str() {
                "json" => {
                    let objects: Vec<Value> = rows
                        .iter()
                        .map(|r| {
                            let mut m = Map::new();
                            for (i, col) in columns.iter().enumerate() {
                                let ty = (types.len() == columns.len()).then(|| &types[i]);
                                m.insert(col.clone(), json_value(r[i].as_deref(), ty));
                            }
                            Value::Object(m)
                        })
                        .collect();
                    println!("{}", serde_json::to_string_pretty(&objects)?);
                }
                "csv" => {
                    let text: Vec<Vec<&str>> = rows
                        .iter()
                        .map(|r| r.iter().map(|v| v.as_deref().unwrap_or("")).collect())
                        .collect();
                    print!("{}", workbench::report::csv(&headers, &text));
                }
                _ => {
                    let text: Vec<Vec<&str>> = rows
                        .iter()
                        .map(|r| r.iter().map(|v| v.as_deref().unwrap_or("NULL")).collect())
                        .collect();
                    print!("{}", workbench::report::table(&headers, &text));
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_as_postgresql_gives_them() {
        for (sql, rows, tag) in [
            ("insert into t values (1), (2)", 2, "INSERT 0 2"),
            ("update t set a = 1", 3, "UPDATE 3"),
            ("delete from t", 0, "DELETE 0"),
            ("create table t (id int)", 0, "CREATE TABLE"),
            (
                "create or replace function f() returns int",
                0,
                "CREATE FUNCTION",
            ),
            ("create unique index i on t (a)", 0, "CREATE INDEX"),
            (
                "create materialized view v as select 1",
                0,
                "CREATE MATERIALIZED VIEW",
            ),
            ("drop table if exists t", 0, "DROP TABLE"),
            ("alter table t add column b int", 0, "ALTER TABLE"),
            ("grant select on t to anon", 0, "GRANT"),
            (
                "create table a (id int); insert into a values (1);",
                1,
                "INSERT 0 1",
            ),
            ("truncate t", 0, "TRUNCATE TABLE"),
        ] {
            assert_eq!(command_tag(sql, rows), tag, "{sql}");
        }
    }

    #[test]
    fn json_values_by_type() {
        assert_eq!(
            json_value(Some("42"), Some(&Type::INT4)),
            serde_json::json!(42)
        );
        assert_eq!(
            json_value(Some("1.5"), Some(&Type::NUMERIC)),
            serde_json::json!(1.5)
        );
        assert_eq!(
            json_value(Some("t"), Some(&Type::BOOL)),
            serde_json::json!(true)
        );
        assert_eq!(
            json_value(Some("{\"a\":[1]}"), Some(&Type::JSONB)),
            serde_json::json!({"a": [1]})
        );
        assert_eq!(
            json_value(Some("NaN"), Some(&Type::FLOAT8)),
            serde_json::json!("NaN")
        );
        assert_eq!(json_value(Some("x"), None), serde_json::json!("x"));
        assert_eq!(json_value(None, Some(&Type::TEXT)), Value::Null);
    }
}
