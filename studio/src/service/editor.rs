//! The SQL editor's runs: as the owner, or in a transaction as a role with a user's claims.

use super::{Result, Studio};
use crate::StudioError;
use crate::ident;
use crate::sql::{self, SqlAnswer, SqlRequest};
use futures_util::StreamExt;
use serde_json::Value;
use tokio_postgres::{Client, SimpleQueryMessage};

impl Studio {
    /// Runs the SQL editor's text: as the owner, or in a transaction as a role (and a user's
    /// claims), committed unless asked to roll back.
    pub async fn run_sql(&self, req: &SqlRequest) -> Result<SqlAnswer> {
        if req.query.len() > sql::MAX_QUERY_BYTES {
            return Err(StudioError::Invalid(format!(
                "the SQL is at most {} bytes",
                sql::MAX_QUERY_BYTES
            )));
        }
        if req.query.trim().is_empty() {
            return Err(StudioError::Invalid("there is no SQL to run".into()));
        }
        let c = self.client().await?;
        c.batch_execute(&format!(
            "SET statement_timeout = '{}'",
            sql::STATEMENT_TIMEOUT
        ))
        .await?;
        let wrapped = req.role.is_some() || req.rollback;
        if wrapped {
            c.batch_execute("BEGIN").await?;
        }
        let (role, claims) = match self.impersonate(&c, req).await {
            Ok(r) => r,
            Err(e) => {
                let _ = c.batch_execute("ROLLBACK").await;
                return Err(e);
            }
        };
        let t0 = std::time::Instant::now();
        let ran = run(&c, &req.query).await;
        let ms = t0.elapsed().as_secs_f64() * 1000.0;
        let (results, statements) = match ran {
            Ok(r) => r,
            Err(e) => {
                if wrapped {
                    let _ = c.batch_execute("ROLLBACK").await;
                }
                return Err(positioned(e, &req.query));
            }
        };
        if wrapped {
            c.batch_execute(if req.rollback { "ROLLBACK" } else { "COMMIT" })
                .await?;
        }
        Ok(SqlAnswer {
            results,
            statements,
            ms,
            role,
            claims,
        })
    }

    /// Sets the role and the claims transaction-locally, as the API does for a request.
    async fn impersonate(&self, c: &Client, req: &SqlRequest) -> Result<(String, Option<Value>)> {
        let Some(role) = req.role.as_deref() else {
            if req.user_id.is_some() {
                return Err(StudioError::Invalid("a user is chosen with a role".into()));
            }
            let me: String = c.query_one("SELECT current_user::text", &[]).await?.get(0);
            return Ok((me, None));
        };
        if !ident::valid(role) {
            return Err(StudioError::Invalid(format!(
                "\"{role}\" is not a role name"
            )));
        }
        // With a user: their token's claims (what the API sees of them), in the chosen role.
        let claims = match req.user_id.as_deref() {
            None => sql::key_claims(role, super::now()),
            Some(id) => {
                let mut claims = super::user_claims(c, &self.issuer, id).await?;
                claims["role"] = Value::from(role);
                claims
            }
        };
        let sub = claims["sub"].as_str().unwrap_or_default().to_string();
        c.execute(
            "SELECT set_config('role', $1, true), set_config('request.jwt.claims', $2, true),
                    set_config('request.jwt.claim.sub', $3, true),
                    set_config('request.jwt.claim.role', $1, true)",
            &[&role, &claims.to_string(), &sub],
        )
        .await?;
        Ok((role.to_string(), Some(claims)))
    }
}

/// Runs SQL text over the simple query protocol, keeping a bounded part of each result.
async fn run(
    c: &Client,
    query: &str,
) -> std::result::Result<(Vec<sql::ResultSet>, usize), tokio_postgres::Error> {
    let stream = c.simple_query_raw(query).await?;
    futures_util::pin_mut!(stream);
    let (mut sets, mut statements, mut open) = (vec![], 0, false);
    while let Some(msg) = stream.next().await {
        let m = match msg? {
            SimpleQueryMessage::RowDescription(cols) => {
                sql::Message::Columns(cols.iter().map(|c| c.name().to_string()).collect())
            }
            SimpleQueryMessage::Row(r) => {
                sql::Message::Row((0..r.len()).map(|i| r.get(i).map(str::to_string)).collect())
            }
            SimpleQueryMessage::CommandComplete(n) => sql::Message::Done(n),
            _ => continue,
        };
        sql::collect(&mut sets, &mut statements, &mut open, m);
    }
    Ok((sets, statements))
}

/// The error with its line and column in the editor's text.
fn positioned(e: tokio_postgres::Error, query: &str) -> StudioError {
    let at = e.as_db_error().and_then(|d| match d.position() {
        Some(tokio_postgres::error::ErrorPosition::Original(p)) => {
            Some(sql::line_and_column(query, *p as usize))
        }
        _ => None,
    });
    match StudioError::from(e) {
        StudioError::Database {
            message,
            code,
            detail,
            hint,
            ..
        } => StudioError::Database {
            message,
            code,
            detail,
            hint,
            at,
        },
        other => other,
    }
}
