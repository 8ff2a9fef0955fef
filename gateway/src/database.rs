//! The database a gateway talks to: its own embedded cluster (the default) or a server named by
//! DATABASE_URL. Migrations and admin commands log in as the owner; the API pool logs in as
//! `authenticator`, which can only switch to the API roles.

use crate::config::Config;
use crate::embedded_pg::{self, EmbeddedPg};
use std::path::Path;

pub struct Database {
    /// The owner (superuser of the embedded cluster) on the project's database.
    pub admin: tokio_postgres::Config,
    /// The login the API pool uses (PostgREST's authenticator).
    pub api: tokio_postgres::Config,
    /// Password to give `authenticator` (external servers reached over TCP need one).
    pub api_password: Option<String>,
    pub embedded: Option<EmbeddedPg>,
    /// The URL people and tools connect with.
    pub db_url: String,
}

/// Name of the pid file of the gateway that owns a data directory.
const PID_FILE: &str = "supagate.pid";

/// The pid of the live gateway that owns this data directory, if any.
pub fn gateway_pid(data: &Path) -> Option<u32> {
    let pid: u32 = std::fs::read_to_string(data.join(PID_FILE))
        .ok()?
        .trim()
        .parse()
        .ok()?;
    crate::embedded_pg::process_alive(pid, "supagate").then_some(pid)
}

pub fn write_pid(data: &Path) -> Result<(), String> {
    std::fs::write(data.join(PID_FILE), std::process::id().to_string())
        .map_err(|e| format!("cannot write {}: {e}", data.join(PID_FILE).display()))
}

pub fn remove_pid(data: &Path) {
    if gateway_pid(data) == Some(std::process::id()) {
        let _ = std::fs::remove_file(data.join(PID_FILE));
    }
}

impl Database {
    /// Opens the database. `serving`: this process runs the API and owns the embedded cluster;
    /// otherwise (admin commands) a cluster a running gateway owns is used as it is (neither
    /// started nor stopped here), and one nobody runs is started for the duration of the command.
    pub async fn open(cfg: &Config, serving: bool) -> Result<Database, String> {
        if let Some(url) = &cfg.database_url {
            return Self::external(url);
        }
        let bin =
            embedded_pg::find_binaries(cfg.pg_bin_dir.as_deref()).map_err(|e| e.to_string())?;
        let data = &cfg.data_dir;
        std::fs::create_dir_all(data)
            .map_err(|e| format!("cannot create {}: {e}", data.display()))?;
        let pg = EmbeddedPg::new(bin, data, cfg.db_port, &cfg.pg_settings);
        pg.ensure_initialized().await.map_err(|e| e.to_string())?;
        let owner = gateway_pid(data).filter(|p| *p != std::process::id());
        if !serving
            && owner.is_some()
            && let Some(url) = crate::commands::status::running_db_url(data)
        {
            // The cluster a running gateway owns, reached the way that gateway published.
            let mut db = Self::external(&url)?;
            db.api_password = None;
            return Ok(db);
        }
        if serving && let Some(pid) = owner {
            return Err(format!(
                "{} is in use by another supagate (pid {pid}); stop it first with `supagate stop`",
                data.display()
            ));
        }
        pg.start().await.map_err(|e| e.to_string())?;
        if serving {
            write_pid(data)?;
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
            api_password: None,
            embedded: Some(pg),
            db_url,
        })
    }

    fn external(url: &str) -> Result<Database, String> {
        let admin: tokio_postgres::Config = url
            .parse()
            .map_err(|e| format!("DATABASE_URL is not valid: {e}"))?;
        // As in a Supabase database, `authenticator` shares the owner's password unless told
        // otherwise.
        let api_password = std::env::var("AUTHENTICATOR_PASSWORD")
            .ok()
            .or_else(|| {
                admin
                    .get_password()
                    .map(|p| String::from_utf8_lossy(p).to_string())
            })
            .filter(|p| !p.is_empty());
        let mut api = admin.clone();
        api.user("authenticator");
        if let Some(p) = &api_password {
            api.password(p.as_str());
        }
        Ok(Database {
            admin,
            api,
            api_password,
            embedded: None,
            db_url: url.to_string(),
        })
    }

    /// The owner's connection to another database of the same server.
    pub fn admin_on(&self, dbname: &str) -> tokio_postgres::Config {
        let mut c = self.admin.clone();
        c.dbname(dbname);
        c
    }
}

pub async fn connect(pg: &tokio_postgres::Config) -> Result<tokio_postgres::Client, String> {
    let (client, conn) = pg
        .connect(tokio_postgres::NoTls)
        .await
        .map_err(|e| format!("cannot connect to PostgreSQL: {e}"))?;
    tokio::spawn(async move {
        if let Err(e) = conn.await {
            tracing::debug!("admin connection closed: {e}");
        }
    });
    // Migrations' "already exists, skipping" notices are not worth a log line each.
    client
        .batch_execute("SET client_min_messages = warning")
        .await
        .map_err(|e| format!("cannot configure the connection: {e}"))?;
    Ok(client)
}
