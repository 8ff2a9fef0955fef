//! The I/O edge: one connection as the database owner per call (Studio is one developer's
//! tool: nothing is pooled or kept), and the snippets folder.

use crate::StudioError;
use crate::catalog::{self, Kind};
use crate::grid::{self, RowQuery, Shape};
use crate::ident::{self, quote};
use crate::snippets::Snippets;
use bytes::Bytes;
use futures_util::{Stream, StreamExt};
use serde::Serialize;
use serde_json::{Map, Value, json};
use std::path::Path;
use tokio_postgres::Client;

mod editor;
mod migration;

pub use migration::{Diff, Written};

type Result<T> = std::result::Result<T, StudioError>;

/// Tables smaller than this (by the planner's estimate) are counted exactly in lists.
const EXACT_COUNT_BELOW: i64 = 100_000;
/// Rows of a CSV export sent in one chunk.
const CSV_CHUNK_ROWS: usize = 512;
/// Tables counted exactly in one list at most.
const EXACT_COUNTS: usize = 200;

pub struct Studio {
    owner: pg::Login,
    snippets: Snippets,
    /// Held while a migration diff runs (its shadow database is named after the process).
    diffing: tokio::sync::Mutex<()>,
    /// `iss` of the project's access tokens (`[auth] jwt_issuer`), in a user's claims.
    issuer: String,
}

/// A table or view as the editor opens it.
#[derive(Debug, Serialize)]
pub struct TableInfo {
    #[serde(flatten)]
    pub shape: Shape,
    pub rls_enabled: bool,
    pub rls_forced: bool,
    /// Foreign keys from this table (`outgoing`) and to it.
    pub relations: Value,
    pub policies: Value,
    /// Its indexes (method, key columns, predicate, the constraint one backs).
    pub indexes: Value,
}

/// A page of rows and how many the filters keep (`exact` false: the planner's estimate, for a
/// large table without filters).
#[derive(Debug, Serialize)]
pub struct Page {
    pub rows: Vec<Value>,
    pub count: i64,
    pub exact: bool,
}

fn parse_json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or(Value::Null)
}

impl Studio {
    /// `owner`: the database owner's login; `supabase_dir`: the project's `supabase/` folder;
    /// `issuer`: the `iss` of the project's access tokens.
    pub fn new(owner: pg::Login, supabase_dir: &Path, issuer: &str) -> Studio {
        Studio {
            owner,
            snippets: Snippets::new(supabase_dir),
            diffing: tokio::sync::Mutex::new(()),
            issuer: issuer.to_string(),
        }
    }

    pub fn snippets(&self) -> &Snippets {
        &self.snippets
    }

    async fn client(&self) -> Result<Client> {
        pg::connect(&self.owner)
            .await
            .map_err(|e| StudioError::Unavailable(e.to_string()))
    }

    /// One of the Database pages' lists (`schema` '' for every schema).
    pub async fn list(&self, kind: Kind, schema: &str) -> Result<Value> {
        let c = self.client().await?;
        list(&c, kind, schema).await
    }

    /// The tables and views of a schema with their row counts: exact for those the planner
    /// thinks small, its estimate otherwise.
    pub async fn tables(&self, schema: &str) -> Result<Value> {
        let c = self.client().await?;
        let mut tables = list(&c, Kind::Tables, schema).await?;
        let Some(list) = tables.as_array_mut() else {
            return Ok(tables);
        };
        let small: Vec<usize> = (0..list.len())
            .filter(|&i| {
                let t = &list[i];
                t["estimate"].as_i64().unwrap_or(-1) < EXACT_COUNT_BELOW
                    && matches!(t["kind"].as_str(), Some("table" | "partitioned table"))
            })
            .take(EXACT_COUNTS)
            .collect();
        // Pipelined: every count is sent before the first answer is read.
        let queries = small.iter().map(|&i| {
            let sql = format!(
                "SELECT count(*) FROM {}",
                ident::qualified(
                    list[i]["schema"].as_str().unwrap_or_default(),
                    list[i]["name"].as_str().unwrap_or_default()
                )
            );
            let c = &c;
            async move { c.query_one(&sql, &[]).await.map(|r| r.get::<_, i64>(0)) }
        });
        let counts = futures_util::future::join_all(queries).await;
        for (i, n) in small.into_iter().zip(counts) {
            match n {
                Ok(n) => {
                    list[i]["rows"] = json!(n);
                    list[i]["exact"] = json!(true);
                }
                // Not readable by the owner (another role's table): the estimate stands.
                Err(_) => list[i]["exact"] = json!(false),
            }
        }
        for t in list.iter_mut() {
            if t.get("rows").is_none() {
                t["rows"] = json!(t["estimate"].as_i64().unwrap_or(-1).max(0));
                t["exact"] = json!(false);
            }
        }
        Ok(tables)
    }

    pub async fn table(&self, schema: &str, name: &str) -> Result<TableInfo> {
        let c = self.client().await?;
        let (shape, rls_enabled, rls_forced, _, oid) = shape(&c, schema, name).await?;
        let relations: String = c.query_one(catalog::RELATIONS, &[&oid]).await?.get(0);
        let policies: String = c
            .query_one(&Kind::Policies.sql_of_table(), &[&schema, &name])
            .await?
            .get(0);
        let indexes: String = c
            .query_one(&Kind::Indexes.sql_of_table(), &[&schema, &name])
            .await?
            .get(0);
        Ok(TableInfo {
            shape,
            rls_enabled,
            rls_forced,
            relations: parse_json(&relations),
            policies: parse_json(&policies),
            indexes: parse_json(&indexes),
        })
    }

    pub async fn rows(&self, schema: &str, name: &str, q: &RowQuery) -> Result<Page> {
        let c = self.client().await?;
        let (shape, _, _, estimate, _) = shape(&c, schema, name).await?;
        let select = grid::select(&shape, q)?;
        let rows = c.query(&select.sql, &select.params()).await?;
        let rows = rows
            .iter()
            .map(|r| parse_json(r.get::<_, &str>(0)))
            .collect();
        let (count, exact) = if q.filters.is_empty() && estimate >= EXACT_COUNT_BELOW {
            (estimate, false)
        } else {
            let n = grid::count(&shape, &q.filters)?;
            (c.query_one(&n.sql, &n.params()).await?.get(0), true)
        };
        Ok(Page { rows, count, exact })
    }

    /// The rows the filters keep as CSV (a header line, then one record per row), streamed.
    pub async fn export(
        &self,
        schema: &str,
        name: &str,
        q: &RowQuery,
    ) -> Result<impl Stream<Item = std::result::Result<Bytes, StudioError>> + use<>> {
        let c = self.client().await?;
        let (shape, ..) = shape(&c, schema, name).await?;
        let statement = grid::export(&shape, q)?;
        let header = grid::csv_record(
            &shape
                .columns
                .iter()
                .map(|col| Some(col.name.clone()))
                .collect::<Vec<_>>(),
        );
        let rows = c
            .query_raw(&statement.sql, statement.params.iter().map(|p| p.as_sql()))
            .await?;
        let width = shape.columns.len();
        // The stream owns the connection: it lives while the rows are read.
        // Rows go out in chunks of up to CSV_CHUNK_ROWS (one write per chunk, not per row).
        let body = rows.chunks(CSV_CHUNK_ROWS).map(move |batch| {
            let _connection = &c;
            let mut out = String::new();
            for row in batch {
                let row = row?;
                let fields: Vec<Option<String>> = (0..width).map(|i| row.get(i)).collect();
                out.push_str(&grid::csv_record(&fields));
            }
            Ok(Bytes::from(out))
        });
        Ok(futures_util::stream::once(async move { Ok(Bytes::from(header)) }).chain(body))
    }

    pub async fn insert(
        &self,
        schema: &str,
        name: &str,
        values: &Map<String, Value>,
    ) -> Result<Value> {
        let c = self.client().await?;
        let (shape, ..) = shape(&c, schema, name).await?;
        let s = grid::insert(&shape, values)?;
        let row = c.query_one(&s.sql, &s.params()).await?;
        Ok(parse_json(row.get(0)))
    }

    pub async fn update(
        &self,
        schema: &str,
        name: &str,
        key: &Map<String, Value>,
        values: &Map<String, Value>,
    ) -> Result<Value> {
        let c = self.client().await?;
        let (shape, ..) = shape(&c, schema, name).await?;
        let s = grid::update(&shape, key, values)?;
        match c.query_opt(&s.sql, &s.params()).await? {
            Some(row) => Ok(parse_json(row.get(0))),
            None => Err(StudioError::NotFound("the row".into())),
        }
    }

    /// Deletes rows by their keys, all or none.
    pub async fn delete(
        &self,
        schema: &str,
        name: &str,
        keys: &[Map<String, Value>],
    ) -> Result<u64> {
        if keys.is_empty() || keys.len() > grid::MAX_LIMIT as usize {
            return Err(StudioError::Invalid(format!(
                "delete 1 to {} rows at a time",
                grid::MAX_LIMIT
            )));
        }
        let mut c = self.client().await?;
        let (shape, ..) = shape(&c, schema, name).await?;
        let tx = c.transaction().await?;
        let mut deleted = 0;
        for key in keys {
            let s = grid::delete(&shape, key)?;
            deleted += tx.execute(&s.sql, &s.params()).await?;
        }
        tx.commit().await?;
        Ok(deleted)
    }

    pub async fn set_rls(&self, schema: &str, name: &str, enabled: bool) -> Result<()> {
        let c = self.client().await?;
        let (shape, ..) = shape(&c, schema, name).await?;
        if shape.kind != "table" && shape.kind != "partitioned table" {
            return Err(StudioError::Invalid(format!(
                "{name} is a {}: row level security is a table's",
                shape.kind
            )));
        }
        let switch = if enabled { "ENABLE" } else { "DISABLE" };
        c.batch_execute(&format!(
            "ALTER TABLE {} {switch} ROW LEVEL SECURITY",
            ident::qualified(schema, name)
        ))
        .await?;
        Ok(())
    }

    /// Creates or drops an extension (in `schema` when given).
    pub async fn set_extension(
        &self,
        name: &str,
        enabled: bool,
        schema: Option<&str>,
    ) -> Result<()> {
        if !ident::valid(name) || schema.is_some_and(|s| !ident::valid(s)) {
            return Err(StudioError::Invalid(
                "not an extension or schema name".into(),
            ));
        }
        let c = self.client().await?;
        let sql = match (enabled, schema) {
            (true, Some(s)) => format!(
                "CREATE EXTENSION IF NOT EXISTS {} WITH SCHEMA {}",
                quote(name),
                quote(s)
            ),
            (true, None) => format!("CREATE EXTENSION IF NOT EXISTS {}", quote(name)),
            (false, _) => format!("DROP EXTENSION IF EXISTS {}", quote(name)),
        };
        c.batch_execute(&sql).await?;
        Ok(())
    }

    /// Where the database server listens and who Studio is on it (the settings page's
    /// connection strings).
    pub async fn server(&self) -> Result<Value> {
        let c = self.client().await?;
        let row = c
            .query_one(
                "SELECT current_setting('port'), current_database()::text, current_user::text,
                        current_setting('listen_addresses'), current_setting('server_version')",
                &[],
            )
            .await?;
        Ok(json!({
            "port": row.get::<_, String>(0),
            "database": row.get::<_, String>(1),
            "user": row.get::<_, String>(2),
            "listen_addresses": row.get::<_, String>(3),
            "version": row.get::<_, String>(4),
        }))
    }

    /// The claims of the short-lived token Studio signs for the user `id`
    /// ([`crate::token::user_claims`]): the same the SQL editor and the policies' preview run
    /// with as that user.
    pub async fn user_claims(&self, id: &str) -> Result<Value> {
        user_claims(&self.client().await?, &self.issuer, id).await
    }

    /// A user's sessions, newest first.
    pub async fn sessions(&self, user_id: &str) -> Result<Value> {
        let c = self.client().await?;
        let text: String = c
            .query_one(
                "SELECT coalesce(json_agg(s ORDER BY s.created_at DESC), '[]')::text FROM (
                   SELECT id, created_at, updated_at, refreshed_at, not_after, aal, factor_id,
                          user_agent, host(ip) AS ip
                   FROM auth.sessions WHERE user_id = $1::text::uuid) s",
                &[&user_id],
            )
            .await?
            .get(0);
        Ok(parse_json(&text))
    }

    /// Ends one session of a user (its refresh tokens go with it).
    pub async fn end_session(&self, user_id: &str, session_id: &str) -> Result<()> {
        let c = self.client().await?;
        let n = c
            .execute(
                "DELETE FROM auth.sessions WHERE user_id = $1::text::uuid AND id = $2::text::uuid",
                &[&user_id, &session_id],
            )
            .await?;
        if n == 0 {
            return Err(StudioError::NotFound("the session".into()));
        }
        Ok(())
    }
}

/// The claims of `id`'s token, issued by `issuer` now.
async fn user_claims(c: &Client, issuer: &str, id: &str) -> Result<Value> {
    let user = user_json(c, id).await?;
    Ok(crate::token::user_claims(&user, issuer, now()))
}

/// Seconds since the Unix epoch.
fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or_default()
}

/// A user's auth.users row as their token's claims read it.
async fn user_json(c: &Client, id: &str) -> Result<Value> {
    let row = c
        .query_opt(
            "SELECT json_build_object('id', id, 'email', email, 'phone', phone,
               'app_metadata', raw_app_meta_data, 'user_metadata', raw_user_meta_data,
               'is_anonymous', is_anonymous)::text
             FROM auth.users WHERE id::text = $1",
            &[&id],
        )
        .await?;
    Ok(parse_json(
        row.ok_or_else(|| StudioError::NotFound(format!("the user {id}")))?
            .get(0),
    ))
}

async fn list(c: &Client, kind: Kind, schema: &str) -> Result<Value> {
    if kind == Kind::Migrations && !pg::migrate::project::history_exists(c).await? {
        return Ok(json!([]));
    }
    let text: String = c.query_one(&kind.sql(), &[&schema]).await?.get(0);
    Ok(parse_json(&text))
}

/// The table's shape, RLS switches, estimated rows and oid.
async fn shape(c: &Client, schema: &str, name: &str) -> Result<(Shape, bool, bool, i64, i64)> {
    let row = c
        .query_opt(catalog::SHAPE, &[&schema, &name])
        .await?
        .ok_or_else(|| StudioError::NotFound(format!("the table {schema}.{name}")))?;
    let columns = serde_json::from_str(row.get(1))
        .map_err(|e| StudioError::Unavailable(format!("the catalog's columns: {e}")))?;
    Ok((
        Shape {
            schema: schema.to_string(),
            name: name.to_string(),
            kind: row.get(0),
            columns,
        },
        row.get(2),
        row.get(3),
        row.get(4),
        row.get(5),
    ))
}
