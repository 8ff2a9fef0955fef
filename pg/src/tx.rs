//! The per-request transaction: BEGIN, one set_config statement for role, claims, request info
//! and the role's settings, the main statement, COMMIT — one pipeline with one Sync for REST
//! (`crate::pipeline`), tokio-postgres for auth and storage.
//!
//! Bounded: each connection keeps at most `statement_cache` prepared statements (least recently
//! used ones are closed), and a transaction abandoned mid-statement (the client went away) is
//! cancelled on the server before its connection is dropped.

use crate::error::DbError;
use crate::pipeline::{self, Step};
use crate::pool::Pool;
use bytes::BytesMut;
use deadpool_postgres::Object;
use postgres_types::{Format, IsNull, ToSql, Type, to_sql_checked};
use std::borrow::Cow;
use tokio_postgres_rustls::MakeRustlsConnect;

/// A value sent in text format with its type left to PostgreSQL, like PostgREST's
/// unknown-typed literals: `"col" = $1` parses the text as the column's type.
#[derive(Debug)]
pub struct TextParam<'a>(pub &'a str);

impl ToSql for TextParam<'_> {
    fn to_sql(
        &self,
        _ty: &Type,
        out: &mut BytesMut,
    ) -> Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
        out.extend_from_slice(self.0.as_bytes());
        Ok(IsNull::No)
    }

    fn accepts(_ty: &Type) -> bool {
        true
    }

    fn encode_format(&self, _ty: &Type) -> Format {
        Format::Text
    }

    to_sql_checked!();
}

/// Who the request runs as, and what it tells the database about itself (borrowed from the
/// request while it runs; [`RequestContext::into_owned`] keeps it).
#[derive(Debug, Clone)]
pub struct RequestContext<'a> {
    pub role: Cow<'a, str>,
    pub claims: Cow<'a, str>,
    pub method: Cow<'a, str>,
    pub path: Cow<'a, str>,
    pub headers: String,
    pub search_path: Cow<'a, str>,
    /// Settings for this transaction: the role's own (statement_timeout…) and defaults.
    pub settings: Cow<'a, [(String, String)]>,
    /// db-pre-request: `SELECT <function>()` after the settings, before the main statement
    /// (quoted, schema-qualified).
    pub pre_request: Option<String>,
}

impl RequestContext<'_> {
    pub fn into_owned(self) -> RequestContext<'static> {
        RequestContext {
            role: self.role.into_owned().into(),
            claims: self.claims.into_owned().into(),
            method: self.method.into_owned().into(),
            path: self.path.into_owned().into(),
            headers: self.headers,
            search_path: self.search_path.into_owned().into(),
            settings: self.settings.into_owned().into(),
            pre_request: self.pre_request,
        }
    }
}

/// The setup statement for `n` role settings: search_path, role, claims, request info, then
/// one `set_config` per setting (a handful of variants, each prepared once per connection, and
/// each written once per process).
fn setup_sql(n: usize) -> std::borrow::Cow<'static, str> {
    static MADE: std::sync::LazyLock<Vec<String>> =
        std::sync::LazyLock::new(|| (0..8).map(make_setup_sql).collect());
    match MADE.get(n) {
        Some(sql) => sql.as_str().into(),
        None => make_setup_sql(n).into(),
    }
}

fn make_setup_sql(n: usize) -> String {
    let mut sql = String::from(
        "SELECT set_config('search_path', $1, true), set_config('role', $2, true), \
         set_config('request.jwt.claims', $3, true), set_config('request.method', $4, true), \
         set_config('request.path', $5, true), set_config('request.headers', $6, true)",
    );
    for i in 0..n {
        sql.push_str(&format!(
            ", set_config(${}, ${}, true)",
            7 + 2 * i,
            8 + 2 * i
        ));
    }
    sql
}

/// A transaction in progress. Dropped before `finish` (the client went away mid-request), its
/// statement is cancelled on the server and the connection is discarded rather than returned to
/// the pool mid-transaction.
pub struct Tx {
    client: Option<Object>,
    tls: MakeRustlsConnect,
}

impl Drop for Tx {
    fn drop(&mut self) {
        if let Some(c) = self.client.take() {
            let token = c.cancel_token();
            let tls = self.tls.clone();
            tokio::spawn(async move {
                let _ = token.cancel_query(tls).await;
            });
            drop(Object::take(c));
        }
    }
}

impl Tx {
    pub fn client(&self) -> &Object {
        self.client.as_ref().expect("transaction is open")
    }

    /// The plain tokio-postgres client, for code written against `GenericClient`.
    pub fn pg(&self) -> &tokio_postgres::Client {
        self.client()
    }

    /// Commits or rolls back and hands the connection back to the pool.
    pub async fn finish(mut self, commit: bool) -> Result<(), DbError> {
        let client = self.client.take().expect("transaction is open");
        client
            .batch_execute(if commit { "COMMIT" } else { "ROLLBACK" })
            .await?;
        Ok(())
    }
}

fn settings_arrays(settings: &[(String, String)]) -> (Vec<&str>, Vec<&str>) {
    settings
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .unzip()
}

/// Opens a transaction with the request's role and claims set and runs `sql`, all in one
/// pipeline with one Sync. `end` finishes the transaction in that same pipeline (COMMIT, or
/// ROLLBACK for `Prefer: tx=rollback`) when the outcome cannot change the decision; otherwise
/// the open transaction is returned for the caller to finish. A failed statement rolls
/// everything back.
pub async fn run_statement(
    pool: &pipeline::Pool,
    ctx: &RequestContext<'_>,
    sql: &str,
    params: &[String],
    read_only: bool,
    end: Option<bool>,
) -> Result<(pipeline::Row, Option<pipeline::Session>), DbError> {
    let mut session = pipeline::Session::get(pool).await?;
    let setup_sql = setup_sql(ctx.settings.len());
    let setup = setup_params(ctx);
    let main: Vec<&str> = params.iter().map(String::as_str).collect();
    let begin = if read_only {
        "BEGIN ISOLATION LEVEL READ COMMITTED READ ONLY"
    } else {
        "BEGIN"
    };
    let finish = end.map(|commit| if commit { "COMMIT" } else { "ROLLBACK" });
    let mut steps = Vec::with_capacity(5);
    steps.extend([
        Step {
            sql: begin,
            params: &[],
        },
        Step {
            sql: &setup_sql,
            params: &setup,
        },
    ]);
    let pre_request = ctx.pre_request.as_ref().map(|f| format!("SELECT {f}()"));
    if let Some(pre) = &pre_request {
        steps.push(Step {
            sql: pre,
            params: &[],
        });
    }
    let main_index = steps.len();
    steps.push(Step { sql, params: &main });
    if let Some(f) = finish {
        steps.push(Step {
            sql: f,
            params: &[],
        });
    }
    let mut rows = session.pipeline(&steps).await?;
    let row = rows
        .swap_remove(main_index)
        .ok_or_else(|| DbError::Unavailable("the statement returned no row".into()))?;
    Ok((row, if end.is_some() { None } else { Some(session) }))
}

/// The setup statement's parameters: search_path, role, claims, request info, then each
/// setting's name and value.
fn setup_params<'a>(ctx: &'a RequestContext<'_>) -> Vec<&'a str> {
    let mut setup: Vec<&str> = Vec::with_capacity(8 + 2 * ctx.settings.len());
    setup.extend([
        &*ctx.search_path,
        &ctx.role,
        &ctx.claims,
        &ctx.method,
        &ctx.path,
        &ctx.headers,
    ]);
    for (k, v) in ctx.settings.iter() {
        setup.push(k);
        setup.push(v);
    }
    setup
}

/// [`run_statement`] for a request decided in one round trip, on a connection shared with
/// other requests (`pipeline::Shared`): the settings statement, db-pre-request and `sql` as
/// the implicit transaction of one Sync — committed there, or rolled back by a final ROLLBACK
/// (`Prefer: tx=rollback`) or by any statement's error, which never touches the pipelines
/// before or after it. A read is made read-only with `transaction_read_only`, set with the
/// other settings (the explicit transaction's `BEGIN … READ ONLY` cannot be used: a failed
/// explicit transaction would stay open into the next request's pipeline).
pub async fn run_shared(
    shared: &pipeline::Shared,
    lane: usize,
    ctx: &RequestContext<'_>,
    sql: &str,
    params: &[String],
    read_only: bool,
    commit: bool,
) -> Result<pipeline::Row, DbError> {
    let owned = |s: &[&str]| s.iter().map(|p| p.to_string()).collect::<Vec<_>>();
    let mut setup = owned(&setup_params(ctx));
    if read_only {
        setup.extend(["transaction_read_only".to_string(), "on".to_string()]);
    }
    let mut steps = Vec::with_capacity(4);
    steps.push(pipeline::OwnedStep {
        sql: setup_sql(ctx.settings.len() + usize::from(read_only)).into_owned(),
        params: setup,
    });
    if let Some(f) = &ctx.pre_request {
        steps.push(pipeline::OwnedStep {
            sql: format!("SELECT {f}()"),
            params: Vec::new(),
        });
    }
    let main_index = steps.len();
    steps.push(pipeline::OwnedStep {
        sql: sql.to_string(),
        params: params.to_vec(),
    });
    if !commit {
        steps.push(pipeline::OwnedStep {
            sql: "ROLLBACK".to_string(),
            params: Vec::new(),
        });
    }
    let mut rows = shared.run(lane, steps).await?;
    rows.swap_remove(main_index)
        .ok_or_else(|| DbError::Unavailable("the statement returned no row".into()))
}

/// Opens a transaction as `role` with `claims` and `settings` (the auth and storage paths).
pub async fn begin_as(
    pool: &Pool,
    role: &str,
    claims: &str,
    settings: &[(String, String)],
) -> Result<Tx, DbError> {
    let client = pool.get().await?;
    let tx = Tx {
        client: Some(client),
        tls: pool.tls(),
    };
    let c = tx.client();
    let setup = c
        .prepare_cached(
            "SELECT set_config('role', $1, true), set_config('request.jwt.claims', $2, true), \
             (SELECT count(set_config(k, v, true)) FROM unnest($3::text[], $4::text[]) AS s(k, v))",
        )
        .await?;
    let (keys, values) = settings_arrays(settings);
    let (role, claims) = (TextParam(role), TextParam(claims));
    let params: [&(dyn ToSql + Sync); 4] = [&role, &claims, &keys, &values];
    let (b, s) = tokio::join!(c.batch_execute("BEGIN"), c.query_one(&setup, &params));
    b?;
    s?;
    Ok(tx)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_states_that_mean_come_back_later() {
        assert!(DbError::Unavailable("x".into()).is_unavailable());
        assert!(!DbError::PoolTimeout.is_unavailable());
    }
}
