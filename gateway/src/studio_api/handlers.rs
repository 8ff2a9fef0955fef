//! Studio's API: each handler reads its request into the studio crate's types, calls it (or
//! the mail catcher, the inspector, the functions' logs) and answers JSON.

use super::Shared;
use crate::catcher;
use actix_web::{HttpRequest, HttpResponse, ResponseError, web};
use serde::Deserialize;
use serde_json::{Map, Value, json};
use studio::StudioError;

/// A Studio error as its JSON body and status.
#[derive(Debug)]
struct Failure(StudioError);

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl ResponseError for Failure {
    fn status_code(&self) -> actix_web::http::StatusCode {
        actix_web::http::StatusCode::from_u16(self.0.status())
            .unwrap_or(actix_web::http::StatusCode::INTERNAL_SERVER_ERROR)
    }

    fn error_response(&self) -> HttpResponse {
        HttpResponse::build(self.status_code()).json(self.0.body())
    }
}

impl From<StudioError> for Failure {
    fn from(e: StudioError) -> Self {
        Failure(e)
    }
}

type Reply = Result<HttpResponse, Failure>;
type S = web::Data<Shared>;

fn ok(v: impl serde::Serialize) -> Reply {
    Ok(HttpResponse::Ok().json(v))
}

fn unavailable(e: impl std::fmt::Display) -> Failure {
    Failure(StudioError::Unavailable(e.to_string()))
}

async fn session(s: S) -> Reply {
    let st = &s.state;
    let keys = st.keys.api_keys();
    let functions: Vec<String> = st
        .functions
        .as_ref()
        .map(|f| f.catalog().functions.keys().cloned().collect())
        .unwrap_or_default();
    ok(json!({
        "project": st.config.project.name(),
        "version": env!("CARGO_PKG_VERSION"),
        "api_url": s.api_url,
        "anon_key": keys.anon,
        "service_key": keys.service_role,
        "mail": s.catcher.is_some(),
        "realtime": st.realtime.is_some(),
        "functions": functions,
    }))
}

/// The project's settings page: its URLs, keys, JWT details and database.
async fn settings(s: S) -> Reply {
    let cfg = &s.state.config;
    let keys = s.state.keys.api_keys();
    let api = &s.api_url;
    let demo = cfg.jwt_secret() == identity::jwt::DEMO_JWT_SECRET;
    let functions = cfg.project.config.edge_runtime.enabled;
    ok(json!({
        "urls": {
            "api": api,
            "rest": format!("{api}/rest/v1"),
            "graphql": format!("{api}/graphql/v1"),
            "storage": format!("{api}/storage/v1"),
            "realtime": format!("{}/realtime/v1", api.replacen("http", "ws", 1)),
            "functions": functions.then(|| format!("{api}/functions/v1")),
        },
        "keys": {
            "anon": keys.anon,
            "service_role": keys.service_role,
            // The CLI's opaque keys go with its demo secret only.
            "publishable": demo.then_some(identity::jwt::CLI_PUBLISHABLE_KEY),
            "secret": demo.then_some(identity::jwt::CLI_SECRET_KEY),
        },
        "jwt": {
            "secret": cfg.jwt_secret(),
            "algorithm": "HS256",
            "expiry": cfg.project.config.auth.jwt_expiry,
            "demo_secret": demo,
        },
        "database": s.studio.server().await?,
    }))
}

/// The sign-in methods the running auth server offers, as it read config.toml at start.
fn providers(auth: &project::config::Auth) -> Value {
    let mut out = vec![
        json!({"name": "email", "enabled": auth.enable_signup && auth.email.enable_signup}),
        json!({"name": "phone", "enabled": auth.enable_signup && auth.sms.enable_signup}),
        json!({"name": "anonymous", "enabled": auth.enable_anonymous_sign_ins}),
        json!({"name": "web3 (Ethereum)", "enabled": auth.web3.ethereum}),
        json!({"name": "web3 (Solana)", "enabled": auth.web3.solana}),
    ];
    out.extend(
        auth.external
            .iter()
            .map(|(name, p)| json!({"name": name, "enabled": p.enabled})),
    );
    Value::Array(out)
}

/// config.toml's keys with the line each is set on (secrets masked, `env()` values named, not
/// read), whether supagate applies each, and the sign-in methods in force.
async fn settings_config(s: S) -> Reply {
    let project = &s.state.config.project;
    let shown_file = |f: &std::path::Path| {
        f.strip_prefix(&project.root)
            .unwrap_or(f)
            .display()
            .to_string()
    };
    let (file, keys) = match (&project.config_file, &project.config_text) {
        (Some(file), Some(text)) => {
            let env = |name: &str| project.env.get(name);
            let all = project::config::listing::settings(file, text, &env)
                .map_err(|e| Failure(StudioError::Unavailable(e.to_string())))?;
            (Some(shown_file(file)), all)
        }
        _ => (None, Vec::new()),
    };
    let ignored = &project.ignored_keys;
    let keys: Vec<Value> = keys
        .into_iter()
        .map(|k| {
            use project::config::listing::Shown;
            let key = k.path.join(".");
            let applied = !ignored
                .iter()
                .any(|i| key == *i || key.starts_with(&format!("{i}.")));
            // A secret is shown as whether it is empty, an `env()` value as its variable.
            let (value, secret, env) = match k.value {
                Shown::Plain(v) => (json!(v), Value::Null, Value::Null),
                Shown::Secret { empty } => (Value::Null, json!({"empty": empty}), Value::Null),
                Shown::Env { name, set } => {
                    (Value::Null, Value::Null, json!({"name": name, "set": set}))
                }
            };
            json!({
                "key": key,
                "section": k.path[..k.path.len() - 1].join("."),
                "line": k.line,
                "value": value,
                "secret": secret,
                "env": env,
                "overridden_by": k.overridden_by,
                "applied": applied,
            })
        })
        .collect();
    ok(json!({
        "file": file,
        "keys": keys,
        "providers": providers(&project.config.auth),
    }))
}

#[derive(Deserialize)]
struct SchemaQuery {
    #[serde(default)]
    schema: String,
}

async fn tables(s: S, q: web::Query<SchemaQuery>) -> Reply {
    ok(s.studio.tables(&q.schema).await?)
}

async fn table(s: S, p: web::Path<(String, String)>) -> Reply {
    ok(s.studio.table(&p.0, &p.1).await?)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TableChange {
    rls_enabled: bool,
}

async fn change_table(s: S, p: web::Path<(String, String)>, b: web::Json<TableChange>) -> Reply {
    s.studio.set_rls(&p.0, &p.1, b.rls_enabled).await?;
    ok(s.studio.table(&p.0, &p.1).await?)
}

fn row_query(req: &HttpRequest) -> Result<studio::grid::RowQuery, Failure> {
    Ok(studio::grid::RowQuery::parse(
        &crate::http_util::query_pairs(req.query_string()),
    )?)
}

async fn rows(s: S, req: HttpRequest, p: web::Path<(String, String)>) -> Reply {
    ok(s.studio.rows(&p.0, &p.1, &row_query(&req)?).await?)
}

async fn csv(s: S, req: HttpRequest, p: web::Path<(String, String)>) -> Reply {
    let body = s.studio.export(&p.0, &p.1, &row_query(&req)?).await?;
    let name: String =
        p.1.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
    Ok(HttpResponse::Ok()
        .content_type("text/csv; charset=utf-8")
        .insert_header((
            "content-disposition",
            format!("attachment; filename=\"{name}.csv\""),
        ))
        .streaming(futures_util::StreamExt::map(body, |r| {
            r.map_err(|e| actix_web::error::ErrorInternalServerError(e.to_string()))
        })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NewRow {
    #[serde(default)]
    values: Map<String, Value>,
}

async fn insert(s: S, p: web::Path<(String, String)>, b: web::Json<NewRow>) -> Reply {
    Ok(HttpResponse::Created().json(s.studio.insert(&p.0, &p.1, &b.values).await?))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RowChange {
    key: Map<String, Value>,
    values: Map<String, Value>,
}

async fn update(s: S, p: web::Path<(String, String)>, b: web::Json<RowChange>) -> Reply {
    ok(s.studio.update(&p.0, &p.1, &b.key, &b.values).await?)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RowKeys {
    keys: Vec<Map<String, Value>>,
}

async fn delete(s: S, p: web::Path<(String, String)>, b: web::Json<RowKeys>) -> Reply {
    ok(json!({"deleted": s.studio.delete(&p.0, &p.1, &b.keys).await?}))
}

async fn sql(s: S, b: web::Json<studio::sql::SqlRequest>) -> Reply {
    ok(s.studio.run_sql(&b).await?)
}

async fn database(s: S, kind: web::Path<String>, q: web::Query<SchemaQuery>) -> Reply {
    let kind = studio::catalog::Kind::parse(&kind)?;
    ok(s.studio.list(kind, &q.schema).await?)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ExtensionChange {
    enabled: bool,
    schema: Option<String>,
}

async fn extension(s: S, name: web::Path<String>, b: web::Json<ExtensionChange>) -> Reply {
    s.studio
        .set_extension(&name, b.enabled, b.schema.as_deref())
        .await?;
    ok(json!({"name": *name, "enabled": b.enabled}))
}

/// What `db diff` would write now (the local database against the migrations' schema).
async fn migration_diff(s: S) -> Reply {
    let cfg = &s.state.config;
    ok(s.studio.diff(&cfg.project, cfg.embedded()).await?)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NewMigration {
    name: String,
}

/// `db diff -f <name>`: the change becomes a file in supabase/migrations.
async fn save_migration(s: S, b: web::Json<NewMigration>) -> Reply {
    let cfg = &s.state.config;
    let written = s
        .studio
        .save_migration(&cfg.project, &b.name, cfg.embedded())
        .await?;
    Ok(HttpResponse::Created().json(written))
}

async fn snippets(s: S) -> Reply {
    ok(s.studio.snippets().list()?)
}

async fn snippet(s: S, name: web::Path<String>) -> Reply {
    ok(json!({"name": *name, "sql": s.studio.snippets().read(&name)?}))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SnippetBody {
    sql: String,
}

async fn save_snippet(s: S, name: web::Path<String>, b: web::Json<SnippetBody>) -> Reply {
    s.studio.snippets().save(&name, &b.sql)?;
    ok(json!({"name": *name}))
}

async fn delete_snippet(s: S, name: web::Path<String>) -> Reply {
    s.studio.snippets().delete(&name)?;
    Ok(HttpResponse::NoContent().finish())
}

async fn sessions(s: S, id: web::Path<String>) -> Reply {
    ok(s.studio.sessions(&id).await?)
}

async fn end_session(s: S, p: web::Path<(String, String)>) -> Reply {
    s.studio.end_session(&p.0, &p.1).await?;
    Ok(HttpResponse::NoContent().finish())
}

fn caught(s: &Shared) -> Result<&mail::catcher::Catcher, Failure> {
    s.catcher.as_ref().ok_or_else(|| {
        Failure(StudioError::NotFound(
            "the mail catcher (mail goes to the SMTP server in config.toml)".into(),
        ))
    })
}

async fn mail(s: S) -> Reply {
    let found = caught(&s)?.find("", 0, 200).await.map_err(unavailable)?;
    ok(found.mails.iter().map(catcher::summary).collect::<Vec<_>>())
}

async fn one_mail(s: S, id: web::Path<String>) -> Reply {
    match caught(&s)?.open(&id).await.map_err(unavailable)? {
        Some(m) => ok(catcher::whole(&m)),
        None => Err(Failure(StudioError::NotFound("the mail".into()))),
    }
}

async fn delete_mail(s: S) -> Reply {
    caught(&s)?.delete(&[], None).await.map_err(unavailable)?;
    Ok(HttpResponse::NoContent().finish())
}

async fn texts(s: S) -> Reply {
    let found = caught(&s)?.texts(None, 200).await.map_err(unavailable)?;
    ok(found.iter().map(catcher::text_json).collect::<Vec<_>>())
}

async fn requests(s: S) -> HttpResponse {
    s.state.inspector.follow()
}

#[derive(Deserialize)]
struct LogQuery {
    #[serde(default)]
    after: u64,
    function: Option<String>,
}

async fn function_logs(s: S, q: web::Query<LogQuery>) -> Reply {
    let Some(f) = &s.state.functions else {
        return ok(json!([]));
    };
    ok(f.logs().since(q.after, q.function.as_deref(), 500))
}

/// The project's Edge Functions as the gateway serves them: each with `verify_jwt` and its
/// entrypoint; disabled ones and folders that are not functions (with why) beside them.
async fn functions(s: S) -> Reply {
    let Some(f) = &s.state.functions else {
        return ok(json!({"served": false, "functions": [], "disabled": [], "skipped": []}));
    };
    let catalog = f.catalog();
    let base = &s.state.config.project.supabase_dir;
    let list: Vec<_> = catalog
        .functions
        .values()
        .map(|f| {
            json!({
                "slug": f.slug,
                "verify_jwt": f.verify_jwt,
                "entrypoint": f.entrypoint.strip_prefix(base).unwrap_or(&f.entrypoint),
            })
        })
        .collect();
    ok(json!({
        "served": true,
        "functions": list,
        "disabled": catalog.disabled,
        "skipped": catalog.skipped,
    }))
}

async fn channels(s: S) -> Reply {
    ok(s.state
        .realtime
        .as_ref()
        .map(|r| r.channels())
        .unwrap_or_default())
}

pub fn routes(c: &mut web::ServiceConfig) {
    c.route("/session", web::get().to(session))
        .route("/settings", web::get().to(settings))
        .route("/settings/config", web::get().to(settings_config))
        .route("/tables", web::get().to(tables))
        .route("/tables/{schema}/{table}", web::get().to(table))
        .route("/tables/{schema}/{table}", web::patch().to(change_table))
        .route("/rows/{schema}/{table}", web::get().to(rows))
        .route("/rows/{schema}/{table}", web::post().to(insert))
        .route("/rows/{schema}/{table}", web::patch().to(update))
        .route("/rows/{schema}/{table}", web::delete().to(delete))
        .route("/csv/{schema}/{table}", web::get().to(csv))
        .route("/sql", web::post().to(sql))
        .route("/database/{kind}", web::get().to(database))
        .route("/extensions/{name}", web::put().to(extension))
        .route("/migrations/diff", web::get().to(migration_diff))
        .route("/migrations", web::post().to(save_migration))
        .route("/snippets", web::get().to(snippets))
        .route("/snippets/{name}", web::get().to(snippet))
        .route("/snippets/{name}", web::put().to(save_snippet))
        .route("/snippets/{name}", web::delete().to(delete_snippet))
        .route("/users/{id}/sessions", web::get().to(sessions))
        .route(
            "/users/{id}/sessions/{session}",
            web::delete().to(end_session),
        )
        .route("/mail", web::get().to(mail))
        .route("/mail", web::delete().to(delete_mail))
        .route("/mail/{id}", web::get().to(one_mail))
        .route("/sms", web::get().to(texts))
        .route("/requests", web::get().to(requests))
        .route("/functions", web::get().to(functions))
        .route("/functions/logs", web::get().to(function_logs))
        .route("/realtime/channels", web::get().to(channels))
        .default_service(web::to(|| async {
            HttpResponse::NotFound()
                .json(json!({"message": "Studio has no such API", "code": "not_found"}))
        }));
}
