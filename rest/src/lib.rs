//! `/rest/v1`, as PostgREST answers it: the request (already read off HTTP) is planned by the
//! query engine against the schema cache, run as one transaction — BEGIN, the role, claims,
//! request info and the role's settings, the statement, COMMIT — pipelined with one Sync on a
//! connection of this worker thread's pool, and shaped into PostgREST's response. A client
//! address runs at most its fair share of requests at once ([`fairness`]); the schema cache is
//! kept fresh by `NOTIFY pgrst` ([`schema_cache`]).

pub mod fairness;
pub mod inspect;
mod openapi;
mod result;
pub mod schema_cache;

use parking_lot::RwLock;
use pg::pipeline::{self, Epoch};
use pg::{DbError, Login, Pool, RequestContext, RoleSettings};
use query_engine::Pgrst;
use query_engine::request::{Method, Resource, parse_prefer};
use query_engine::{ApiError, Compiled, EngineConfig, Input, SchemaCache};
use std::sync::Arc;
use std::time::Duration;

/// What config.toml and the flags say about the REST API.
pub struct RestSettings {
    /// `[api] schemas`.
    pub schemas: Vec<String>,
    /// `[api] extra_search_path`.
    pub extra_search_path: Vec<String>,
    /// `[api] max_rows` (0: none).
    pub max_rows: u64,
    /// Connections in all, shared out among `workers` threads (and a reserve of half as many
    /// for newcomers when they are all busy: [`fairness`]).
    pub pool_size: usize,
    pub workers: usize,
    pub pool_timeout: Duration,
    /// Prepared statements a connection keeps.
    pub statement_cache: usize,
    /// Requests one client address runs at once (0: no limit).
    pub max_client_queries: usize,
    /// PostgREST settings from the environment (`PGRST_DB_TX_END=commit` as `db_tx_end`,
    /// `commit`); the database's `pgrst.*` settings win over them.
    pub db_settings: Vec<(String, String)>,
}

/// One REST request as read off HTTP: the part of the path after `/rest/v1/`, its query, the
/// headers PostgREST reads, the body and who is asking.
pub struct RestRequest<'a> {
    pub method: Method,
    /// The HTTP method as sent (PGRST117 names it).
    pub method_name: &'a str,
    pub path: &'a str,
    pub query: &'a [(String, String)],
    pub accept: Option<&'a str>,
    pub prefer: Vec<&'a str>,
    pub range: Option<&'a str>,
    pub accept_profile: Option<&'a str>,
    pub content_profile: Option<&'a str>,
    pub content_type: Option<&'a str>,
    pub body: &'a [u8],
    pub role: &'a str,
    /// The JWT claims as JSON text.
    pub claims: &'a str,
    /// The client address (fair shares) and what SQL sees of the request.
    pub client: &'a str,
    pub request_path: &'a str,
    pub headers_json: String,
    /// The API's configured `host[:port]` (the OpenAPI document's `host`).
    pub host: &'a str,
}

/// PostgREST's answer.
pub struct RestResponse {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    /// None: no body (HEAD, 204).
    pub body: Option<bytes::Bytes>,
    /// A write was committed, not rolled back (change subscribers hear of it sooner).
    pub wrote: bool,
}

pub struct Rest {
    engine: EngineConfig,
    extra_search_path: Vec<String>,
    /// Each exposed schema's search_path, made once.
    search_paths: Vec<(String, String)>,
    /// The schema cache, with the plans compiled against it.
    schema: RwLock<Arc<Compiled>>,
    /// Pipelined connections in lanes, one per HTTP worker: a thread uses its own lane's while
    /// one is free, so that a request and its connection usually stay on one thread.
    lanes: Vec<(pipeline::Pool, fairness::Lane)>,
    /// Connections beyond the lanes for addresses that run nothing when every lane is busy
    /// (half as many as the lanes', opened when first needed).
    reserve: pipeline::Pool,
    /// The schema generation REST connections prepare their statements under.
    epoch: Epoch,
    /// A few plain connections for schema reloads and health checks.
    meta: Pool,
    slots: Arc<fairness::ClientSlots>,
    pool_timeout: Duration,
    role_settings: RoleSettings,
    db_settings: Vec<(String, String)>,
    /// One connection as the owner, made when the request inspector first needs it.
    owner_pool: std::sync::OnceLock<pipeline::Pool>,
    /// Connections many requests' transactions share, each request one implicit transaction
    /// of one Sync (`SUPAGATE_REST_SHARED`: how many; unset or 0, none): requests decided in
    /// one round trip run there, the others on the lanes' pools.
    shared: Option<pipeline::Shared>,
    /// The `pgrst` channel's events, listened to from before the first read of the cache, until
    /// [`Rest::spawn_listener`] takes them.
    events: parking_lot::Mutex<Option<tokio::sync::mpsc::Receiver<pg::listen::Event>>>,
}

impl Rest {
    /// Loads the schema cache as `api` (the authenticator login) and prepares the pools.
    pub async fn start(
        s: RestSettings,
        api: &Login,
        role_settings: RoleSettings,
    ) -> Result<Arc<Rest>, schema_cache::SchemaError> {
        let epoch = Epoch::default();
        let (login, statements, share, timeout, counter) = (
            api.clone(),
            s.statement_cache,
            pg::pool::share(s.pool_size, s.workers),
            s.pool_timeout,
            epoch.0.clone(),
        );
        let lanes = (0..s.workers.max(1) as u64)
            .map(|id| {
                let pool = pipeline::build_pool(
                    login.clone(),
                    share,
                    timeout,
                    statements,
                    counter.clone(),
                );
                (pool, fairness::Lane { id, size: share })
            })
            .collect::<Vec<_>>();
        let reserve_size = s.pool_size.div_ceil(2).max(1);
        let reserve = pipeline::build_pool(
            login.clone(),
            reserve_size,
            timeout,
            statements,
            counter.clone(),
        );
        let meta = Pool::new(api, 2, s.pool_timeout);
        let (cache, events) =
            schema_cache::first_load(&meta, api, &s.schemas, &s.db_settings, s.pool_timeout)
                .await?;
        role_settings.set(cache.all_role_settings().clone());
        let search_paths = s
            .schemas
            .iter()
            .map(|x| (x.clone(), search_path(x, &s.extra_search_path)))
            .collect();
        Ok(Arc::new(Rest {
            engine: EngineConfig {
                max_rows: (s.max_rows > 0).then_some(s.max_rows),
                schemas: s.schemas,
            },
            search_paths,
            extra_search_path: s.extra_search_path,
            schema: RwLock::new(Arc::new(Compiled::new(cache))),
            slots: fairness::ClientSlots::new(
                s.max_client_queries,
                lanes.iter().map(|(_, l)| *l).collect(),
                reserve_size,
            ),
            lanes,
            reserve,
            epoch,
            meta,
            pool_timeout: s.pool_timeout,
            role_settings,
            db_settings: s.db_settings,
            owner_pool: std::sync::OnceLock::new(),
            shared: shared_count()
                .map(|n| pipeline::Shared::new(api.clone(), n, statements, counter)),
            events: parking_lot::Mutex::new(Some(events)),
        }))
    }

    /// The API roles' settings, read with the schema cache: the other APIs apply them too.
    pub fn role_settings(&self) -> RoleSettings {
        self.role_settings.clone()
    }

    pub fn schema(&self) -> Arc<Compiled> {
        self.schema.read().clone()
    }

    /// Replaces the schema cache (and the role settings read with it); statements prepared
    /// before are dropped on next use, as their plans may name dropped objects.
    fn set_schema(&self, cache: SchemaCache) {
        self.role_settings.set(cache.all_role_settings().clone());
        *self.schema.write() = Arc::new(Compiled::new(cache));
        self.epoch.bump();
    }

    /// Whether the database answers (the health check).
    pub async fn database_ok(&self) -> bool {
        match self.meta.get().await {
            Ok(c) => c.simple_query("SELECT 1").await.is_ok(),
            Err(_) => false,
        }
    }

    /// [`search_path`], made once per exposed schema.
    fn search_path(&self, schema: &str) -> std::borrow::Cow<'_, str> {
        match self.search_paths.iter().find(|(s, _)| s == schema) {
            Some((_, path)) => path.as_str().into(),
            None => search_path(schema, &self.extra_search_path).into(),
        }
    }

    /// Answers one request.
    pub async fn handle(&self, r: RestRequest<'_>) -> Result<RestResponse, ApiError> {
        self.handle_traced(r, None).await
    }

    /// [`Rest::handle`]; with `tracing`, also says there what ran (for the request inspector,
    /// while it records: the copies cost on every request).
    pub async fn handle_traced(
        &self,
        r: RestRequest<'_>,
        mut tracing: Option<&mut inspect::Tracing>,
    ) -> Result<RestResponse, ApiError> {
        let path = r.path.trim_end_matches('/');
        if path.is_empty() {
            return self.root(&r);
        }
        let resource = match path.strip_prefix("rpc/") {
            Some(f) => Resource::Rpc(f.to_string()),
            None if path.contains('/') => {
                return Err(ApiError::pgrst(
                    Pgrst::InvalidPath,
                    format!("Invalid path specified in request URL: /{path}"),
                ));
            }
            None => Resource::Table(path.to_string()),
        };
        let read = r.method.is_read();
        let input = Input {
            method: r.method,
            resource,
            query: r.query,
            accept: r.accept,
            prefer: parse_prefer(r.prefer.iter().copied()),
            range: if read { r.range } else { None },
            profile: if read {
                r.accept_profile
            } else {
                r.content_profile
            },
            content_type: r.content_type,
            body: r.body,
        };
        let schema = self.schema();
        let plan = query_engine::plan_cached(&input, &schema, &self.engine)?;
        let anon = r.role == "anon";
        let fail = |e: DbError| db_error(e, anon);
        let role_settings = self.role_settings.of(r.role);
        let mut settings = std::borrow::Cow::Borrowed(role_settings.as_slice());
        // Prefer: timezone=…, set for the transaction as PostgREST sets it.
        if let Some(tz) = &plan.outcome.prefer.timezone {
            settings.to_mut().push(("timezone".into(), tz.clone()));
        }
        let ctx = RequestContext {
            role: r.role.into(),
            claims: r.claims.into(),
            method: r.method_name.into(),
            path: r.request_path.into(),
            headers: r.headers_json,
            search_path: self.search_path(&plan.outcome.schema),
            settings,
            pre_request: schema.db_setting("db_pre_request").map(quote_function),
        };
        // Only a singular response (PGRST116), max-affected (PGRST124) or a PUT whose body does
        // not match its URL (PGRST115) can still turn a write into a rollback; everything else
        // is decided now, so the transaction ends in the same pipeline.
        let decided_later = plan.outcome.media.is_singular()
            || plan.outcome.prefer.affected_limit().is_some()
            || plan.outcome.kind == query_engine::plan::Kind::Put;
        let end = if decided_later && !plan.read_only {
            None
        } else {
            Some(!plan.outcome.prefer.tx_rollback)
        };
        let table = match (&tracing, &input.resource) {
            (Some(t), Resource::Table(name)) if t.for_rls => {
                Some((plan.outcome.schema.clone(), name.clone()))
            }
            _ => None,
        };
        // The slot is held until the transaction has finished (dropped at the end).
        let ran = async {
            let own = fairness::thread_lane(self.lanes.len());
            let share = self
                .slots
                .acquire(r.client, self.lanes[own].1, self.pool_timeout)
                .await
                .ok_or_else(|| fail(DbError::PoolTimeout))?;
            let pool = match share.place {
                fairness::Place::Lane(lane) => &self.lanes[lane as usize].0,
                fairness::Place::Reserve => &self.reserve,
            };
            let (row, tx) = match (&self.shared, end) {
                (Some(shared), Some(commit)) => {
                    let lane = match share.place {
                        fairness::Place::Lane(lane) => lane as usize,
                        fairness::Place::Reserve => own,
                    };
                    let row = pg::tx::run_shared(
                        shared,
                        lane,
                        &ctx,
                        &plan.statement.sql,
                        &plan.statement.params,
                        plan.read_only,
                        commit,
                    )
                    .await
                    .map_err(fail)?;
                    (row, None)
                }
                _ => pg::tx::run_statement(
                    pool,
                    &ctx,
                    &plan.statement.sql,
                    &plan.statement.params,
                    plan.read_only,
                    end,
                )
                .await
                .map_err(fail)?,
            };
            Ok::<_, ApiError>((row, tx, share))
        }
        .await;
        // What ran, for the inspector: the statement and the context moved in once it has run
        // (whether it failed or not), not copied before.
        if let Some(t) = tracing.as_deref_mut() {
            // The context (its settings, search path…) only for what RLS did; the claims are
            // the caller's own (`RestRequest::claims`).
            let (headers, context) = if t.for_rls {
                let ctx = ctx.into_owned();
                (ctx.headers.clone(), Some(inspect::Context { ctx, table }))
            } else {
                (ctx.headers, None)
            };
            t.trace = Some(inspect::Trace {
                sql: plan.statement.sql,
                params: plan.statement.params,
                headers,
                read_only: plan.read_only,
                rows: None,
                context,
            });
        }
        let (row, tx, _share) = ran?;
        let row = result::result_row(row).map_err(fail)?;
        if let Some(Some(t)) = tracing.map(|t| &mut t.trace) {
            t.rows = Some(row.page_total);
        }
        let built = query_engine::response::build(&plan.outcome, row);
        let committed = match tx {
            Some(tx) => {
                let commit = built.as_ref().map(|r| r.commit).unwrap_or(false);
                tx.finish(commit).await.map_err(|e| fail(e.into()))?;
                commit
            }
            None => end == Some(true),
        };
        let out = built?;
        Ok(RestResponse {
            status: out.status,
            headers: out.headers,
            body: out.body.filter(|_| r.method != Method::Head),
            wrote: committed && !plan.read_only,
        })
    }

    /// `GET /rest/v1/`: the OpenAPI description of the schema the profile names.
    fn root(&self, r: &RestRequest<'_>) -> Result<RestResponse, ApiError> {
        if !r.method.is_read() {
            return Err(ApiError::pgrst(
                Pgrst::UnsupportedMethod,
                format!("Unsupported HTTP method: {}", r.method_name),
            ));
        }
        let schema_name = r
            .accept_profile
            .unwrap_or_else(|| {
                self.engine
                    .schemas
                    .first()
                    .map(String::as_str)
                    .unwrap_or("public")
            })
            .to_string();
        if !self.engine.schemas.contains(&schema_name) {
            return Err(ApiError::pgrst(
                Pgrst::SchemaNotExposed,
                format!("Invalid schema: {schema_name}"),
            ));
        }
        let doc = openapi::document(&self.schema(), &schema_name, r.host);
        Ok(RestResponse {
            status: 200,
            headers: vec![(
                "Content-Type".into(),
                "application/openapi+json; charset=utf-8".into(),
            )],
            body: Some(doc.to_string().into()),
            wrote: false,
        })
    }
}

/// How many shared connections `SUPAGATE_REST_SHARED` asks for (None: unset, 0 or not a number).
fn shared_count() -> Option<usize> {
    std::env::var("SUPAGATE_REST_SHARED")
        .ok()?
        .trim()
        .parse()
        .ok()
        .filter(|n| *n > 0)
}

/// The search_path of a request to `schema`: the schema, then `[api] extra_search_path`,
/// as PostgREST sets it (a repeat included, as EXPLAIN's settings show it).
fn search_path(schema: &str, extra: &[String]) -> String {
    std::iter::once(schema)
        .chain(extra.iter().map(String::as_str))
        .map(pg::quote_ident)
        .collect::<Vec<_>>()
        .join(", ")
}

/// A function name from `pgrst.db_pre_request` (`check_request` or `api.check_request`), quoted.
fn quote_function(name: &str) -> String {
    name.split('.')
        .map(|part| pg::quote_ident(part.trim().trim_matches('"')))
        .collect::<Vec<_>>()
        .join(".")
}

/// A PostgreSQL error as PostgREST answers it: its SQLSTATE decides the status; `is_anon`
/// decides 401 or 403 for 42501.
fn server_error(
    code: &str,
    message: &str,
    details: Option<String>,
    hint: Option<String>,
    is_anon: bool,
) -> ApiError {
    let status = query_engine::error::status_for_sqlstate(code, message, is_anon);
    let mut err = ApiError::new(status, code, message);
    err.details = details.map(|d| Box::new(serde_json::Value::String(d)));
    err.hint = hint;
    err
}

/// A database failure as PostgREST reports it.
pub fn db_error(e: DbError, is_anon: bool) -> ApiError {
    match e {
        DbError::PoolTimeout => ApiError::pgrst(
            Pgrst::PoolTimeout,
            "Timed out acquiring connection from connection pool.",
        ),
        DbError::Unavailable(m) => ApiError::pgrst(
            Pgrst::ConnectionLost,
            "Database client error. Retrying the connection.",
        )
        .details(m),
        DbError::Server(e) => server_error(&e.code, &e.message, e.detail, e.hint, is_anon),
        DbError::Postgres(e) => match e.as_db_error() {
            Some(db) => server_error(
                db.code().code(),
                db.message(),
                db.detail().map(str::to_string),
                db.hint().map(str::to_string),
                is_anon,
            ),
            None => {
                tracing::warn!("database connection error: {e}");
                ApiError::pgrst(
                    Pgrst::ConnectionLost,
                    "Database client error. Retrying the connection.",
                )
                .details(e.to_string())
            }
        },
    }
}
