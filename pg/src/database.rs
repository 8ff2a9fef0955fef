//! The database supagate serves: its own embedded cluster (the default) or a server named by
//! DATABASE_URL. Migrations and admin commands log in as the owner; the API pools log in as
//! `authenticator`, which can only switch to the API roles.

use crate::embedded::{self, EmbeddedError, EmbeddedPg};
use crate::login::{Login, LoginError};
use std::path::{Path, PathBuf};

/// Why the database could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error(transparent)]
    Embedded(#[from] EmbeddedError),
    #[error("cannot create {}: {}", .0.display(), .1)]
    CreateDataDir(PathBuf, std::io::Error),
    #[error("{} is in use by another supagate (pid {}); stop it first with `supagate stop`",
        .0.display(), .1)]
    InUse(PathBuf, u32),
    #[error("cannot write {}: {}", .0.display(), .1)]
    WritePid(PathBuf, std::io::Error),
    #[error("DATABASE_URL: {0}")]
    DatabaseUrl(LoginError),
}

/// Where the database is, from flags and config.toml.
pub struct DbSettings<'a> {
    /// An external server; None: the embedded cluster.
    pub database_url: Option<&'a str>,
    pub pg_bin_dir: Option<&'a Path>,
    pub data_dir: &'a Path,
    /// TCP port of the embedded cluster on 127.0.0.1 (0: unix socket only).
    pub db_port: u16,
    /// Extra `name=value` settings of the embedded cluster.
    pub pg_settings: &'a str,
    /// `[db] major_version`: the PostgreSQL to run when several are installed.
    pub major_version: Option<u32>,
    /// The extensions the project creates: a wanted major that lacks one gives way to an
    /// installation that has them all.
    pub extensions: Vec<String>,
    /// Where private installations of PostgreSQL are kept (shared by every project).
    pub cache_dir: &'a Path,
    /// What a new data directory's cluster gets besides initdb's (supagate's platform), kept
    /// with it in the cache: see [`EmbeddedPg::ensure_initialized_from`].
    pub pristine: Option<&'a embedded::PristineSetup>,
}

pub struct Database {
    /// The owner (superuser of the embedded cluster) on the project's database.
    pub admin: Login,
    /// The login the API pools use (PostgREST's authenticator).
    pub api: Login,
    /// Password to give `authenticator` (external servers reached over TCP need one).
    pub api_password: Option<String>,
    pub embedded: Option<EmbeddedPg>,
    /// The URL people and tools connect with.
    pub db_url: String,
}

/// Name of the pid file of the process that owns a data directory.
const PID_FILE: &str = "supagate.pid";

/// The pid of the live supagate that owns this data directory, if any.
pub fn owner_pid(data: &Path) -> Option<u32> {
    let pid: u32 = std::fs::read_to_string(data.join(PID_FILE))
        .ok()?
        .trim()
        .parse()
        .ok()?;
    embedded::process_alive(pid, "supagate").then_some(pid)
}

/// The URL people and tools connect with to the database these settings name, known before it
/// starts (what [`Database::open`] gives as `db_url` when it serves it).
pub fn url(s: &DbSettings<'_>) -> String {
    match s.database_url {
        Some(url) => url.to_string(),
        None => embedded_url(&embedded::socket_dir_of(s.data_dir), s.db_port),
    }
}

/// The URL of the embedded cluster: its TCP port on 127.0.0.1, else its unix socket in
/// `socket_dir` (named by the port PostgreSQL's default, 5432).
fn embedded_url(socket_dir: &Path, tcp_port: u16) -> String {
    if tcp_port == 0 {
        format!(
            "postgresql://postgres@/postgres?host={}&port=5432",
            socket_dir.display()
        )
    } else {
        format!(
            "postgresql://postgres:{}@127.0.0.1:{tcp_port}/postgres",
            embedded::SUPERUSER_PASSWORD
        )
    }
}

pub fn write_pid(data: &Path) -> Result<(), OpenError> {
    let file = data.join(PID_FILE);
    std::fs::write(&file, std::process::id().to_string()).map_err(|e| OpenError::WritePid(file, e))
}

pub fn remove_pid(data: &Path) {
    if owner_pid(data) == Some(std::process::id()) {
        let _ = std::fs::remove_file(data.join(PID_FILE));
    }
}

impl Database {
    /// Opens the database. `serving`: this process runs the API and owns the embedded cluster;
    /// otherwise (admin commands) a cluster a running gateway owns is used as it is (neither
    /// started nor stopped here) through `published_url`, the URL that gateway published, and
    /// one nobody runs is started for the duration of the command.
    pub async fn open(
        s: &DbSettings<'_>,
        serving: bool,
        published_url: Option<&str>,
    ) -> Result<Database, OpenError> {
        if let Some(url) = s.database_url {
            return Self::external(url);
        }
        let data = s.data_dir;
        let owner = owner_pid(data).filter(|p| *p != std::process::id());
        if !serving
            && owner.is_some()
            && let Some(url) = published_url
        {
            // The cluster a running gateway owns, reached the way that gateway published
            // (nothing of the installation is looked at: that gateway found and started it).
            let mut db = Self::external(url)?;
            db.api_password = None;
            return Ok(db);
        }
        let t0 = std::time::Instant::now();
        let bin = embedded::find_binaries_for(
            s.pg_bin_dir,
            s.major_version,
            EmbeddedPg::data_major(data),
            &s.extensions,
            Some(s.cache_dir),
        )?;
        std::fs::create_dir_all(data)
            .map_err(|e| OpenError::CreateDataDir(data.to_path_buf(), e))?;
        let mut pg = EmbeddedPg::new(bin, data, s.db_port, s.pg_settings);
        pg.install(s.cache_dir)?;
        pg.ensure_initialized_from(Some(s.cache_dir), s.pristine)
            .await?;
        if serving && let Some(pid) = owner {
            return Err(OpenError::InUse(data.to_path_buf(), pid));
        }
        let prepared = t0.elapsed().as_millis();
        pg.start().await?;
        tracing::debug!(
            "PostgreSQL {}: installation and data directory ready in {prepared} ms, started in {} ms",
            pg.major(),
            t0.elapsed().as_millis() - prepared
        );
        if serving {
            write_pid(data)?;
        }
        let admin = pg.login("postgres", "postgres");
        let api = admin.with_user("authenticator");
        let db_url = embedded_url(pg.socket_dir(), pg.tcp_port());
        Ok(Database {
            admin,
            api,
            api_password: None,
            embedded: Some(pg),
            db_url,
        })
    }

    /// `db_url` naming database `name` instead (for tools such as pg_restore).
    pub fn url_of(&self, name: &str) -> String {
        let url = &self.db_url;
        let Some(scheme_end) = url.find("://") else {
            // The keyword form: a later `dbname` wins.
            return format!(
                "{url} dbname='{}'",
                name.replace('\\', "\\\\").replace('\'', "\\'")
            );
        };
        let rest = &url[scheme_end + 3..];
        let path_start = rest
            .find(['/', '?'])
            .map_or(url.len(), |i| scheme_end + 3 + i);
        let (head, tail) = url.split_at(path_start);
        let query = tail.find('?').map_or("", |i| &tail[i..]);
        let encoded: String = name
            .bytes()
            .map(|b| {
                if b.is_ascii_alphanumeric() || b"-_.".contains(&b) {
                    (b as char).to_string()
                } else {
                    format!("%{b:02X}")
                }
            })
            .collect();
        format!("{head}/{encoded}{query}")
    }

    fn external(url: &str) -> Result<Database, OpenError> {
        let admin = Login::parse(url).map_err(OpenError::DatabaseUrl)?;
        // As in a Supabase database, `authenticator` shares the owner's password unless told
        // otherwise.
        let api_password = std::env::var("AUTHENTICATOR_PASSWORD")
            .ok()
            .or_else(|| admin.password())
            .filter(|p| !p.is_empty());
        let mut api = admin.with_user("authenticator");
        if let Some(p) = &api_password {
            api = api.with_password(p);
        }
        Ok(Database {
            admin,
            api,
            api_password,
            embedded: None,
            db_url: url.to_string(),
        })
    }

    /// The same logins without the embedded cluster's handle (which its owner keeps: it stops
    /// the cluster).
    pub fn clone_logins(&self) -> Database {
        Database {
            admin: self.admin.clone(),
            api: self.api.clone(),
            api_password: self.api_password.clone(),
            embedded: None,
            db_url: self.db_url.clone(),
        }
    }

    /// The owner's login on another database of the same server.
    pub fn admin_on(&self, dbname: &str) -> Login {
        self.admin.with_dbname(dbname)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_naming_another_database() {
        let cases = [
            (
                "postgresql://postgres@/postgres?host=/tmp/s&port=5432",
                "postgresql://postgres@/supagate_snapshot_a?host=/tmp/s&port=5432",
            ),
            (
                "postgresql://postgres:pw@127.0.0.1:54322/postgres",
                "postgresql://postgres:pw@127.0.0.1:54322/supagate_snapshot_a",
            ),
            (
                "postgres://u@h:5432",
                "postgres://u@h:5432/supagate_snapshot_a",
            ),
            (
                "postgres://u@h:5432?sslmode=require",
                "postgres://u@h:5432/supagate_snapshot_a?sslmode=require",
            ),
            (
                "host=/tmp/s user=postgres",
                "host=/tmp/s user=postgres dbname='supagate_snapshot_a'",
            ),
        ];
        for (url, want) in cases {
            let db = Database {
                admin: Login::parse("host=/tmp dbname=postgres").unwrap(),
                api: Login::parse("host=/tmp dbname=postgres").unwrap(),
                api_password: None,
                embedded: None,
                db_url: url.into(),
            };
            assert_eq!(db.url_of("supagate_snapshot_a"), want, "{url}");
        }
    }

    /// The errors' texts, as they were written before they were variants.
    #[test]
    fn open_errors_read_as_before() {
        let missing = Path::new("/nonexistent/supagate-data");
        let io = || std::io::Error::from(std::io::ErrorKind::NotFound);
        let external = |url: &str| Database::external(url).err().unwrap().to_string();
        let cases = [
            (
                external("postgresql://u@h/app?sslmode=on"),
                "DATABASE_URL: the connection string is not valid: invalid sslmode value: \"on\"",
            ),
            (
                OpenError::InUse(missing.into(), 42).to_string(),
                "/nonexistent/supagate-data is in use by another supagate (pid 42); stop it first \
                 with `supagate stop`",
            ),
            (
                write_pid(missing).unwrap_err().to_string(),
                "cannot write /nonexistent/supagate-data/supagate.pid: No such file or directory \
                 (os error 2)",
            ),
            (
                OpenError::CreateDataDir(missing.into(), io()).to_string(),
                "cannot create /nonexistent/supagate-data: entity not found",
            ),
        ];
        for (got, want) in cases {
            assert_eq!(got, want);
        }
    }
}
