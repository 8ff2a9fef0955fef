//! A PostgreSQL cluster of the test's own under the target directory, with a database set up
//! as supagate sets up a Supabase database (the platform migrations: roles, auth, storage,
//! realtime, default privileges) kept as a template; each database a test asks for is a new
//! copy of it.
#![allow(dead_code)]

use pg::embedded::{EmbeddedPg, StopGuard};
use schema_diff::{Catalog, Scope, Statement};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use tokio_postgres::Client;

pub struct Cluster {
    pg: EmbeddedPg,
    count: AtomicUsize,
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _stop = StopGuard(&self.pg);
    }
}

/// Removes clusters left by test processes that no longer run.
fn sweep(root: &std::path::Path) {
    for entry in std::fs::read_dir(root).into_iter().flatten().flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        if let Some(pid) = name.rsplit('-').next().and_then(|p| p.parse::<u32>().ok())
            && !std::path::Path::new(&format!("/proc/{pid}")).exists()
        {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// `SUPAGATE_TEST_TMPDIR` when set (scripts/test points it at a tmpfs large enough), else
/// cargo's `target/tmp`.
fn test_tmp() -> PathBuf {
    std::env::var_os("SUPAGATE_TEST_TMPDIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_TARGET_TMPDIR")))
}

impl Cluster {
    pub async fn start(tag: &str) -> Cluster {
        let root = test_tmp().join("schema-diff");
        std::fs::create_dir_all(&root).unwrap();
        sweep(&root);
        let dir = root.join(format!("{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let bin = pg::embedded::find_binaries(None, None, None).expect("PostgreSQL's programs");
        let mut pg = EmbeddedPg::new(bin, &dir.join("data"), 0, "");
        pg.ensure_initialized().await.unwrap();
        // Beside the checkout, as the integration tests' (their support says why).
        let cache = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("pg-cache");
        pg.install(&cache).unwrap();
        pg.start().await.unwrap();
        let cluster = Cluster {
            pg,
            count: AtomicUsize::new(0),
        };
        // The platform, as every project's database has it.
        let project_dir = dir.join("project");
        std::fs::create_dir_all(project_dir.join("supabase")).unwrap();
        let project = project::Project::open(Some(&project_dir)).unwrap();
        let maint = cluster.client("postgres").await;
        maint.batch_execute("CREATE DATABASE base").await.unwrap();
        let db = pg::Database {
            admin: cluster.pg.login("postgres", "base"),
            api: cluster.pg.login("authenticator", "base"),
            api_password: None,
            embedded: None,
            db_url: String::new(),
        };
        let mut c = pg::connect(&db.admin).await.unwrap();
        pg::migrate::migrate_in_place(&mut c, &project, &db, false)
            .await
            .unwrap();
        drop(c);
        cluster
    }

    pub async fn client(&self, db: &str) -> Client {
        pg::connect(&self.pg.login("postgres", db)).await.unwrap()
    }

    /// A new copy of the platform database with `sql` run in it; its name and a connection.
    pub async fn database(&self, sql: &str) -> (String, Client) {
        let name = format!("d{}", self.count.fetch_add(1, Ordering::SeqCst));
        let maint = self.client("postgres").await;
        // The template's last session may still be closing.
        for tries in 0.. {
            match maint
                .batch_execute(&format!("CREATE DATABASE {name} TEMPLATE base"))
                .await
            {
                Err(e)
                    if tries < 100
                        && e.code() == Some(&tokio_postgres::error::SqlState::OBJECT_IN_USE) =>
                {
                    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                }
                other => {
                    other.unwrap();
                    break;
                }
            }
        }
        maint
            .batch_execute(&format!(
                "ALTER DATABASE {name} SET search_path = \"$user\", public, extensions"
            ))
            .await
            .unwrap();
        let c = self.client(&name).await;
        if let Err(e) = c.batch_execute(sql).await {
            panic!(
                "{}\nin:\n{sql}",
                pg::migrate::describe_db_error(&e, Some(sql))
            );
        }
        (name, c)
    }
}

pub async fn catalog(c: &Client) -> Catalog {
    schema_diff::read(c, &Scope::default()).await.unwrap()
}

/// Runs a migration in one transaction, as supagate runs migration files.
pub async fn apply(c: &Client, statements: &[Statement]) -> Result<(), String> {
    let sql = schema_diff::render(statements);
    match c.batch_execute(&format!("BEGIN;\n{sql}\nCOMMIT;")).await {
        Ok(()) => Ok(()),
        Err(e) => {
            let _ = c.batch_execute("ROLLBACK").await;
            Err(format!(
                "{}\nin:\n{sql}",
                pg::migrate::describe_db_error(&e, Some(&sql))
            ))
        }
    }
}
