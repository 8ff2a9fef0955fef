//! `db diff`'s cache of the schemas the project's files build: the catalog of the database the
//! migrations build and of the one the declared schema files build, kept (as the answers to
//! the catalog queries, `schema_diff::read_keeping`) in `<data dir>/diff-cache`, under a key
//! made of everything that database was built from: this supagate binary, the platform and
//! project migrations, seeds and the settings the build reads (the template's fingerprint and
//! whether the template was there to copy), the declared files (path and content), the schemas
//! diffed, and the server (its version, roles and installed extensions). The declared schema's
//! database does not depend on the migrations: an edited migration leaves its entry valid.
//! When the key is the same, the same database would be built again: its catalog is read from
//! the cache instead, and no database is made, filled, read and dropped. Only for the
//! embedded cluster.

use super::CommandError;
use gateway::config::Config;
use pg::{Database, connect};
use project::{SchemaFile, sha256_hex};
use schema_diff::{Catalog, Scope};
use std::path::PathBuf;

/// Entries kept per kind of database (`migrations`, `declared`), the newest.
const KEEP: usize = 4;
/// A cache file larger than this is not read (a catalog's answers are a few MB at most).
const MAX_BYTES: u64 = 256 << 20;

/// The cache of one `db diff` run: where it is and what every key of this run starts with.
pub struct DiffCache {
    dir: PathBuf,
    base: String,
    /// What the declared schema's database is built from besides its files: the platform and
    /// what a copy of it gets from the project, not the migrations.
    declared_base: String,
}

/// This binary: its version, and its size and modification time (a new build of the same
/// version may read catalogs differently).
fn build_identity() -> String {
    let exe = std::env::current_exe()
        .and_then(std::fs::metadata)
        .map(|m| {
            let modified = m
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map(|d| d.as_nanos())
                .unwrap_or_default();
            format!("{}:{modified}", m.len())
        })
        .unwrap_or_default();
    format!("{}:{exe}", env!("CARGO_PKG_VERSION"))
}

impl DiffCache {
    /// The cache of the project's data directory, its keys made for this build of this project
    /// on the server `db` is on, diffing `schemas` (all the app's when empty).
    /// A server whose facts cannot be read gets no cache (said in the log).
    pub async fn open(cfg: &Config, db: &Database, schemas: &[String]) -> Option<Self> {
        match Self::open_or_fail(cfg, db, schemas).await {
            Ok(cache) => Some(cache),
            Err(e) => {
                tracing::warn!("db diff builds both schemas: no cache ({e})");
                None
            }
        }
    }

    async fn open_or_fail(
        cfg: &Config,
        db: &Database,
        schemas: &[String],
    ) -> Result<Self, CommandError> {
        let c = connect(&db.admin).await?;
        // The server's part: what a database built there depends on besides the files.
        let server: String = c
            .query_one(
                "SELECT concat_ws(E'\\n', version(), current_user, \
                   (SELECT system_identifier::text FROM pg_control_system()), \
                   (SELECT string_agg(oid::text || ':' || rolname, ',' ORDER BY oid) FROM pg_roles), \
                   (SELECT string_agg(name || ':' || coalesce(default_version, ''), ',' ORDER BY name) \
                      FROM pg_available_extensions), \
                   (SELECT 'template:' || coalesce(shobj_description(oid, 'pg_database'), '') \
                      FROM pg_database WHERE datname = $1))",
                &[&pg::migrate::template::TEMPLATE],
            )
            .await?
            .get(0);
        let project = &cfg.project;
        let built_from = pg::migrate::template::fingerprint(project)?;
        let base = |built_from: &str| {
            [
                format!("build:{}", build_identity()),
                format!("server:{}", sha256_hex(server.as_bytes())),
                format!("project:{built_from}"),
                format!(
                    "migrations_enabled:{}",
                    project.config.db.migrations_enabled
                ),
                format!("api_schemas:{:?}", project.config.api.schemas),
                format!("schemas:{schemas:?}"),
            ]
            .join("\n")
        };
        Ok(DiffCache {
            dir: cfg.data_dir.join("diff-cache"),
            base: base(&built_from),
            declared_base: base(&pg::migrate::shadow::kept_key(project)),
        })
    }

    /// The key of the database of kind `side` built from the platform, the migrations' base
    /// (the declared schema's: what a copy of the platform gets from the project) and `files`
    /// applied in order.
    pub fn key(&self, side: &str, files: &[SchemaFile]) -> String {
        let base = match side {
            "declared" => &self.declared_base,
            _ => &self.base,
        };
        let mut all = format!("{base}\nside:{side}\n");
        for f in files {
            all.push_str(&format!(
                "file:{}:{}\n",
                f.path,
                sha256_hex(f.sql.as_bytes())
            ));
        }
        sha256_hex(all.as_bytes())
    }

    fn path(&self, side: &str, key: &str) -> PathBuf {
        self.dir.join(format!("{side}-{key}.json"))
    }

    /// The catalog kept under `key`, if there is one (a file that cannot be read or does not
    /// fit is a miss).
    pub async fn catalog(&self, side: &str, key: &str, scope: &Scope) -> Option<Catalog> {
        let path = self.path(side, key);
        let size = std::fs::metadata(&path).ok()?.len();
        if size > MAX_BYTES {
            return None;
        }
        // `{"key": the full key, "answers": [the answers, in order]}`.
        let mut entry: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&path).ok()?).ok()?;
        if entry["key"].as_str() != Some(key) {
            return None;
        }
        let answers: Vec<String> = serde_json::from_value(entry.get_mut("answers")?.take()).ok()?;
        match schema_diff::read_again(&answers, scope).await {
            Ok(cat) => Some(cat),
            Err(e) => {
                tracing::warn!("the kept catalog {} does not fit: {e}", path.display());
                None
            }
        }
    }

    /// Keeps the answers a catalog was read from under `key` (written whole or not at all), and
    /// only the newest entries of that kind. A failure only loses the entry.
    pub fn keep(&self, side: &str, key: &str, answers: Vec<String>) {
        let entry = serde_json::json!({ "key": key, "answers": answers });
        let path = self.path(side, key);
        let partial = self
            .dir
            .join(format!(".{side}-{key}.{}.partial", std::process::id()));
        let written = std::fs::create_dir_all(&self.dir)
            .and_then(|()| std::fs::write(&partial, entry.to_string()))
            .and_then(|()| std::fs::rename(&partial, &path));
        if let Err(e) = written {
            let _ = std::fs::remove_file(&partial);
            tracing::warn!("could not keep the catalog in {}: {e}", path.display());
            return;
        }
        self.forget_older(side);
    }

    /// Removes the entries of kind `side` but the newest `KEEP`.
    fn forget_older(&self, side: &str) {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return;
        };
        let prefix = format!("{side}-");
        let mut files: Vec<(std::time::SystemTime, PathBuf)> = entries
            .flatten()
            .filter(|e| {
                let name = e.file_name().to_string_lossy().to_string();
                name.starts_with(&prefix) && name.ends_with(".json")
            })
            .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
            .collect();
        files.sort_by_key(|f| std::cmp::Reverse(f.0));
        for (_, path) in files.into_iter().skip(KEEP) {
            let _ = std::fs::remove_file(path);
        }
    }
}
