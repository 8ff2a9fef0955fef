//! supagate: PostgREST, GoTrue and Supabase Storage compatible API over PostgreSQL, plus the
//! shop's site, in one binary. With no DATABASE_URL it runs its own PostgreSQL cluster.

mod admins;
mod auth_api;
mod config;
mod db;
mod embedded_pg;
mod error;
mod http_util;
mod migrate;
mod openapi;
mod request_auth;
mod rest;
mod schema_cache;
mod server;
mod site;
mod state;
mod storage_api;

use clap::Parser;
use config::{AdminCommand, Cli, Command, Config};
use embedded_pg::EmbeddedPg;
use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

/// The demo administrator created in a new local database.
pub const DEMO_ADMIN_EMAIL: &str = "admin@example.com";
pub const DEMO_ADMIN_PASSWORD: &str = "bloom-admin-123";

/// The database the gateway talks to, and the embedded cluster when it runs one.
struct Database {
    /// Superuser (or owner) connection for migrations and admin commands.
    admin: tokio_postgres::Config,
    /// The login the API pool uses (PostgREST's authenticator).
    api: tokio_postgres::Config,
    embedded: Option<EmbeddedPg>,
    db_url: String,
}

/// Whether a gateway process holds this data directory (its pid file names a live process).
fn gateway_pid(data: &std::path::Path) -> Option<u32> {
    let pid: u32 = std::fs::read_to_string(data.join("supagate.pid"))
        .ok()?
        .trim()
        .parse()
        .ok()?;
    std::path::Path::new(&format!("/proc/{pid}"))
        .exists()
        .then_some(pid)
}

/// Opens the database. `serving`: this process runs the API and owns the embedded cluster;
/// otherwise (admin commands) a cluster a running gateway owns is used as it is.
async fn open_database(cfg: &Config, serving: bool) -> Result<Database, String> {
    if let Some(url) = &cfg.database_url {
        let pg: tokio_postgres::Config = url
            .parse()
            .map_err(|e| format!("DATABASE_URL is not valid: {e}"))?;
        return Ok(Database {
            admin: pg.clone(),
            api: pg,
            embedded: None,
            db_url: url.clone(),
        });
    }
    let bin = embedded_pg::find_binaries(cfg.pg_bin_dir.as_deref()).map_err(|e| e.to_string())?;
    let data = cfg.data_dir_abs();
    std::fs::create_dir_all(&data).map_err(|e| format!("cannot create {}: {e}", data.display()))?;
    let pg = EmbeddedPg::new(bin, &data, cfg.db_port, &cfg.pg_settings);
    pg.ensure_initialized().await.map_err(|e| e.to_string())?;
    let owner = gateway_pid(&data).filter(|p| *p != std::process::id());
    let shared = !serving && owner.is_some() && pg.is_running().await;
    if serving && let Some(pid) = owner {
        return Err(format!(
            "{} is in use by another supagate (pid {pid}); stop it first",
            data.display()
        ));
    }
    if !shared {
        pg.start().await.map_err(|e| e.to_string())?;
    }
    if serving {
        std::fs::write(data.join("supagate.pid"), std::process::id().to_string())
            .map_err(|e| e.to_string())?;
    }
    let mut admin = tokio_postgres::Config::new();
    admin
        .host_path(pg.socket_dir())
        .port(pg.port())
        .user("postgres")
        .dbname("postgres");
    let mut api = admin.clone();
    api.user("authenticator");
    let db_url = if pg.tcp_port() == 0 {
        format!(
            "postgresql://postgres@/postgres?host={}&port={}",
            pg.socket_dir().display(),
            pg.port()
        )
    } else {
        format!(
            "postgresql://postgres:{}@127.0.0.1:{}/postgres",
            embedded_pg::SUPERUSER_PASSWORD,
            pg.tcp_port()
        )
    };
    Ok(Database {
        admin,
        api,
        // A cluster another gateway owns is neither started nor stopped here.
        embedded: (!shared).then_some(pg),
        db_url,
    })
}

async fn connect(pg: &tokio_postgres::Config) -> Result<tokio_postgres::Client, String> {
    let (client, conn) = pg
        .connect(tokio_postgres::NoTls)
        .await
        .map_err(|e| format!("cannot connect to PostgreSQL: {e}"))?;
    tokio::spawn(async move {
        if let Err(e) = conn.await {
            tracing::debug!("admin connection closed: {e}");
        }
    });
    Ok(client)
}

/// Applies migrations and, in a new local database, the demo catalogue and admin.
async fn prepare(cfg: &Config, db: &Database) -> Result<bool, String> {
    let mut client = connect(&db.admin).await?;
    let outcome = migrate::run(&mut client).await.map_err(|e| e.to_string())?;
    for m in &outcome.applied {
        tracing::info!("applied migration {m}");
    }
    let demo = outcome.fresh && cfg.is_local_demo();
    if demo {
        migrate::load_demo_catalogue(&mut client)
            .await
            .map_err(|e| e.to_string())?;
        admins::create(&mut client, DEMO_ADMIN_EMAIL, DEMO_ADMIN_PASSWORD)
            .await
            .map_err(|e| e.to_string())?;
        tracing::info!("loaded the demo catalogue and admin");
    }
    Ok(demo)
}

fn api_url(cfg: &Config, port: u16) -> String {
    cfg.api_external_url
        .clone()
        .unwrap_or_else(|| format!("http://{}:{port}", cfg.host))
}

fn print_banner(cfg: &Config, state: &state::AppState, port: u16, db_url: &str, demo_login: bool) {
    let api = api_url(cfg, port);
    println!("supagate {} is running.\n", env!("CARGO_PKG_VERSION"));
    println!("         API URL: {api}");
    println!("        REST URL: {api}/rest/v1");
    println!("        Auth URL: {api}/auth/v1");
    println!("     Storage URL: {api}/storage/v1");
    println!("          DB URL: {db_url}");
    if cfg.jwt_secret.is_none() {
        println!("      JWT secret: {}", cfg.jwt_secret());
    }
    println!("        anon key: {}", state.api_keys.anon);
    println!("service_role key: {}", state.api_keys.service_role);
    println!("            Site: {api}/");
    println!("           Admin: {api}/admin");
    if demo_login {
        println!("Demo admin login: {DEMO_ADMIN_EMAIL} / {DEMO_ADMIN_PASSWORD}");
    }
    println!("\nPress Ctrl-C to stop.");
}

async fn wait_for_shutdown(stdin_close: bool) {
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .expect("SIGTERM handler");
    let stdin_closed = async {
        if !stdin_close {
            return std::future::pending::<()>().await;
        }
        let mut buf = [0u8; 256];
        let mut stdin = tokio::io::stdin();
        while tokio::io::AsyncReadExt::read(&mut stdin, &mut buf)
            .await
            .is_ok_and(|n| n > 0)
        {}
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {},
        _ = term.recv() => {},
        _ = stdin_closed => {},
    }
}

async fn start(cfg: Config) -> Result<(), String> {
    let t0 = Instant::now();
    let db = open_database(&cfg, true).await?;
    // Stops the embedded cluster on every way out of here, panics included.
    let _guard = db.embedded.as_ref().map(embedded_pg::StopGuard);
    let result = serve(&cfg, &db, t0).await;
    let _ = std::fs::remove_file(cfg.data_dir_abs().join("supagate.pid"));
    tracing::info!("stopped");
    result
}

async fn serve(cfg: &Config, db: &Database, t0: Instant) -> Result<(), String> {
    prepare(cfg, db).await?;
    let schema = {
        let (client, conn) = db
            .api
            .connect(tokio_postgres::NoTls)
            .await
            .map_err(|e| format!("the API login cannot connect: {e}"))?;
        tokio::spawn(conn);
        schema_cache::load(&client, &cfg.schemas())
            .await
            .map_err(|e| format!("cannot load the schema cache: {e}"))?
    };
    let backend = match (cfg.storage_backend.as_str(), &cfg.storage_s3_bucket) {
        ("file", _) => storage::backend::local(&cfg.data_dir_abs().join("storage")),
        ("s3", Some(bucket)) => storage::backend::BackendConfig::S3 {
            bucket: bucket.clone(),
        },
        ("s3", None) => return Err("STORAGE_BACKEND=s3 needs STORAGE_S3_BUCKET".into()),
        (other, _) => {
            return Err(format!(
                "unknown STORAGE_BACKEND {other:?} (use file or s3)"
            ));
        }
    };
    let store = storage::backend::open(&backend)
        .map_err(|e| format!("cannot open the object store: {e}"))?;
    let state = Arc::new(state::AppState::new(
        cfg.clone(),
        db.api.clone(),
        schema,
        store,
    ));
    schema_cache::spawn_listener(state.clone(), db.api.clone());
    let (server, port) = server::bind(state.clone(), &cfg.host, cfg.port)
        .map_err(|e| format!("cannot listen on {}:{}: {e}", cfg.host, cfg.port))?;
    let handle = server.handle();
    let running = tokio::spawn(server);
    // The demo login is printed whenever the local demo mode is on and that admin exists.
    let demo_login = cfg.is_local_demo() && demo_admin_exists(db).await;
    print_banner(cfg, &state, port, &db.db_url, demo_login);
    tracing::info!("ready in {} ms", t0.elapsed().as_millis());
    wait_for_shutdown(cfg.stop_on_stdin_close).await;
    // stdout may be a closed pipe by now (a test harness that went away): never panic here.
    let _ = writeln!(std::io::stdout(), "\nStopping…");
    handle.stop(true).await;
    let _ = running.await;
    Ok(())
}

async fn demo_admin_exists(db: &Database) -> bool {
    match connect(&db.admin).await {
        Ok(c) => auth::users::find_id_by_email(&c, DEMO_ADMIN_EMAIL)
            .await
            .ok()
            .flatten()
            .is_some(),
        Err(_) => false,
    }
}

/// Runs `f` against the database (starting the embedded cluster for the duration if needed).
async fn with_database<F>(cfg: &Config, f: F) -> Result<(), String>
where
    F: AsyncFnOnce(&mut tokio_postgres::Client) -> Result<(), String>,
{
    let db = open_database(cfg, false).await?;
    let _guard = db.embedded.as_ref().map(embedded_pg::StopGuard);

    async {
        prepare(cfg, &db).await?;
        let mut client = connect(&db.admin).await?;
        f(&mut client).await
    }
    .await
}

fn reset(cfg: &Config, yes: bool) -> Result<(), String> {
    if cfg.database_url.is_some() {
        return Err(
            "reset only deletes the embedded database; it never touches a DATABASE_URL server"
                .into(),
        );
    }
    if !yes {
        return Err(format!(
            "this deletes every row, user and file in {}; run again with --yes to confirm",
            cfg.data_dir.display()
        ));
    }
    let pid = cfg.data_dir_abs().join("pg/postmaster.pid");
    if pid.exists() {
        return Err("the database is running; stop supagate first".into());
    }
    match std::fs::remove_dir_all(&cfg.data_dir) {
        Ok(()) => {
            println!(
                "Deleted {}. The next start creates a new database with the demo data.",
                cfg.data_dir.display()
            );
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(format!("cannot delete {}: {e}", cfg.data_dir.display())),
    }
}

fn print_env(cfg: &Config) {
    let keys = auth::jwt::JwtKeys::new(cfg.jwt_secret()).api_keys();
    let api = api_url(cfg, cfg.port);
    let db_url = cfg.database_url.clone().unwrap_or_else(|| {
        format!(
            "postgresql://postgres:{}@127.0.0.1:{}/postgres",
            embedded_pg::SUPERUSER_PASSWORD,
            cfg.db_port
        )
    });
    for (k, v) in [
        ("API_URL", api.clone()),
        ("REST_URL", format!("{api}/rest/v1")),
        ("AUTH_URL", format!("{api}/auth/v1")),
        ("STORAGE_URL", format!("{api}/storage/v1")),
        ("DB_URL", db_url),
        ("JWT_SECRET", cfg.jwt_secret().to_string()),
        ("ANON_KEY", keys.anon.clone()),
        ("SERVICE_ROLE_KEY", keys.service_role),
        ("SITE_URL", format!("{api}/")),
        ("VITE_SUPABASE_URL", api),
        ("VITE_SUPABASE_ANON_KEY", keys.anon),
    ] {
        println!("{k}=\"{v}\"");
    }
}

#[actix_web::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    let cli = Cli::parse();
    let cfg = cli.config;
    let result = match cli.command.unwrap_or(Command::Start) {
        Command::Start => start(cfg).await,
        Command::Env => {
            print_env(&cfg);
            Ok(())
        }
        Command::Migrate => with_database(&cfg, async |_| Ok(())).await,
        Command::Reset { yes } => reset(&cfg, yes),
        Command::Admin(cmd) => {
            with_database(&cfg, async |c| {
                match cmd {
                    AdminCommand::Create { email, password } => {
                        admins::create(c, &email, &password)
                            .await
                            .map_err(|e| e.to_string())?;
                        println!("{email} is an administrator.");
                    }
                    AdminCommand::Grant { email } => {
                        admins::grant(c, &email).await.map_err(|e| e.to_string())?;
                        println!("{email} is an administrator.");
                    }
                    AdminCommand::Revoke { email } => {
                        let removed = admins::revoke(c, &email).await.map_err(|e| e.to_string())?;
                        println!(
                            "{}",
                            if removed {
                                format!("{email} is no longer an administrator.")
                            } else {
                                format!("{email} was not an administrator.")
                            }
                        );
                    }
                    AdminCommand::List => {
                        let list = admins::list(c).await.map_err(|e| e.to_string())?;
                        if list.is_empty() {
                            println!("No administrators.");
                        }
                        for (email, since) in list {
                            println!("{email}\t(since {since})");
                        }
                    }
                }
                Ok(())
            })
            .await
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
