//! A Supabase project folder as the Supabase CLI reads it: `supabase/config.toml`,
//! `supabase/migrations/<version>_<name>.sql` and the seed files. Only files are read here; the
//! gateway applies them to a database.

pub mod config;
pub mod env;
pub mod init;
pub mod size;
pub mod sql;

pub use config::{Bucket, Config, ConfigError, EdgeRuntime, FunctionConfig, Policy};
use sha2::Digest;
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum ProjectError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("cannot read {0}: {1}")]
    Io(PathBuf, std::io::Error),
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Env(#[from] env::EnvError),
}

/// A project: the folder holding `supabase/` and what its config.toml says.
#[derive(Debug, Clone)]
pub struct Project {
    /// The CLI's workdir: the folder that contains `supabase/`.
    pub root: PathBuf,
    pub supabase_dir: PathBuf,
    /// None when the project has no config.toml (the CLI's defaults apply).
    pub config_file: Option<PathBuf>,
    /// The text of config.toml as it was read (for the lines `config::listing` names).
    pub config_text: Option<String>,
    pub config: Config,
    /// Keys of config.toml supagate does not implement yet (and the user changed).
    pub ignored_keys: Vec<String>,
    /// The process environment over the `.env` files the CLI loads.
    pub env: env::Environment,
}

/// One migration file.
#[derive(Debug, Clone)]
pub struct Migration {
    pub version: String,
    pub name: String,
    /// As shown to people: `supabase/migrations/<file>`.
    pub display: String,
    pub sql: String,
    pub statements: Vec<sql::Statement>,
}

/// One declared schema file (`[db.migrations] schema_paths`).
#[derive(Debug, Clone)]
pub struct SchemaFile {
    /// Relative to the project root: `supabase/schemas/profiles.sql`.
    pub path: String,
    pub sql: String,
}

/// One seed file, with the hash the CLI records in `supabase_migrations.seed_files`.
#[derive(Debug, Clone)]
pub struct SeedFile {
    /// Relative to the project root, as the CLI records it (`supabase/seed.sql`).
    pub path: String,
    pub sql: String,
    pub hash: String,
}

pub fn sha256_hex(data: &[u8]) -> String {
    hex::encode(sha2::Sha256::digest(data))
}

/// The nearest folder at or above `start` with a `supabase/config.toml` (as the CLI looks).
pub fn find_root(start: &Path) -> Option<PathBuf> {
    start
        .ancestors()
        .find(|d| d.join("supabase/config.toml").is_file())
        .map(Path::to_path_buf)
}

/// `KEY=value` lines of a `.env` file (quotes removed, `#` comments skipped).
pub fn read_dotenv(path: &Path) -> Vec<(String, String)> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    text.lines()
        .filter_map(|l| {
            let l = l.trim();
            let l = l.strip_prefix("export ").unwrap_or(l);
            if l.starts_with('#') {
                return None;
            }
            let (k, v) = l.split_once('=')?;
            let v = v.trim();
            let v = v
                .strip_prefix('"')
                .and_then(|v| v.strip_suffix('"'))
                .or_else(|| v.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')))
                .unwrap_or(v);
            Some((k.trim().to_string(), v.to_string()))
        })
        .collect()
}

impl Project {
    /// Opens the project in `workdir`, or (without one) the nearest folder at or above the
    /// current directory that has `supabase/config.toml`, or else the current directory with
    /// the CLI's defaults.
    pub fn open(workdir: Option<&Path>) -> Result<Project, ProjectError> {
        let cwd = std::env::current_dir().map_err(|e| ProjectError::Io(".".into(), e))?;
        let root = match workdir {
            Some(w) => std::path::absolute(w).map_err(|e| ProjectError::Io(w.into(), e))?,
            None => find_root(&cwd).unwrap_or(cwd),
        };
        if !root.is_dir() {
            return Err(ProjectError::Invalid(format!(
                "the project folder {} does not exist",
                root.display()
            )));
        }
        let supabase_dir = root.join("supabase");
        let file = supabase_dir.join("config.toml");
        let environment = env::Environment::load(&root, &supabase_dir)?;
        let env = |name: &str| environment.get(name);
        let (config_file, config_text, config, ignored_keys) = if file.is_file() {
            let text =
                std::fs::read_to_string(&file).map_err(|e| ConfigError::Read(file.clone(), e))?;
            let loaded = Config::parse(&file, &text, &env)?;
            (Some(file), Some(text), loaded.config, loaded.ignored)
        } else {
            (None, None, Config::default(), Vec::new())
        };
        Ok(Project {
            root,
            supabase_dir,
            config_file,
            config_text,
            config,
            ignored_keys,
            env: environment,
        })
    }

    /// A name for the project in messages: config.toml's project_id or the folder name.
    pub fn name(&self) -> String {
        self.config.project_id.clone().unwrap_or_else(|| {
            self.root
                .file_name()
                .map(|n| n.to_string_lossy().to_string())
                .unwrap_or_else(|| "project".into())
        })
    }

    pub fn migrations_dir(&self) -> PathBuf {
        self.supabase_dir.join("migrations")
    }

    /// The migration files in version order, and a note for each file skipped.
    pub fn migrations(&self) -> Result<(Vec<Migration>, Vec<String>), ProjectError> {
        let dir = self.migrations_dir();
        let mut names: Vec<String> = match std::fs::read_dir(&dir) {
            Ok(entries) => entries
                .filter_map(|e| e.ok())
                .filter(|e| e.file_type().map(|t| t.is_file()).unwrap_or(false))
                .map(|e| e.file_name().to_string_lossy().to_string())
                .collect(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(ProjectError::Io(dir, e)),
        };
        names.sort();
        let mut out: Vec<Migration> = Vec::new();
        let mut skipped = Vec::new();
        for file in names {
            let Some((version, name)) = parse_migration_name(&file) else {
                skipped.push(format!(
                    "Skipping migration {file}... (file name must match pattern \"<timestamp>_name.sql\")"
                ));
                continue;
            };
            if let Some(prev) = out.iter().find(|m| m.version == version) {
                return Err(ProjectError::Invalid(format!(
                    "two migrations have version {version}: {} and supabase/migrations/{file}",
                    prev.display
                )));
            }
            let path = dir.join(&file);
            let sql = std::fs::read_to_string(&path).map_err(|e| ProjectError::Io(path, e))?;
            out.push(Migration {
                version: version.to_string(),
                name: name.to_string(),
                display: format!("supabase/migrations/{file}"),
                statements: sql::split(&sql),
                sql,
            });
        }
        Ok((out, skipped))
    }

    /// The seed files `[db.seed] sql_paths` names, in order, and a note for each pattern that
    /// matched nothing.
    pub fn seed_files(&self) -> Result<(Vec<SeedFile>, Vec<String>), ProjectError> {
        let mut files: Vec<PathBuf> = Vec::new();
        let mut notes = Vec::new();
        for pattern in &self.config.db.seed_paths {
            let full = self.supabase_dir.join(pattern);
            let text = full.to_string_lossy().to_string();
            let mut matched: Vec<PathBuf> = glob::glob(&text)
                .map_err(|e| {
                    ProjectError::Invalid(format!("db.seed.sql_paths: \"{pattern}\": {e}"))
                })?
                .filter_map(Result::ok)
                .filter(|p| p.is_file())
                .collect();
            matched.sort();
            if matched.is_empty() {
                notes.push(format!(
                    "no files matched pattern: {}",
                    self.relative(&full)
                ));
            }
            for m in matched {
                let m = normalize(&m);
                if !files.contains(&m) {
                    files.push(m);
                }
            }
        }
        let seeds = files
            .into_iter()
            .map(|p| {
                let sql =
                    std::fs::read_to_string(&p).map_err(|e| ProjectError::Io(p.clone(), e))?;
                Ok(SeedFile {
                    path: self.relative(&p),
                    hash: sha256_hex(sql.as_bytes()),
                    sql,
                })
            })
            .collect::<Result<_, ProjectError>>()?;
        Ok((seeds, notes))
    }

    /// The declared schema files, in the order `db diff` applies them, as the CLI finds them:
    /// `[db.migrations] schema_paths` in order (each pattern's matches sorted, a file once,
    /// `*` never crossing a `/`), else every `.sql` file under `supabase/schemas`, by path.
    /// With it, a note for each pattern that matched nothing.
    pub fn schema_files(&self) -> Result<(Vec<SchemaFile>, Vec<String>), ProjectError> {
        let mut files: Vec<PathBuf> = Vec::new();
        let mut notes = Vec::new();
        if self.config.db.schema_paths.is_empty() {
            let dir = self.supabase_dir.join("schemas");
            let mut stack = vec![dir];
            while let Some(d) = stack.pop() {
                let entries = match std::fs::read_dir(&d) {
                    Ok(e) => e,
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                    Err(e) => return Err(ProjectError::Io(d, e)),
                };
                for entry in entries.flatten() {
                    let path = entry.path();
                    match entry.file_type() {
                        Ok(t) if t.is_dir() => stack.push(path),
                        Ok(t) if t.is_file() && path.extension().is_some_and(|x| x == "sql") => {
                            files.push(path)
                        }
                        _ => {}
                    }
                }
            }
            files.sort_by_key(|p| p.to_string_lossy().to_string());
        } else {
            let options = glob::MatchOptions {
                require_literal_separator: true,
                ..Default::default()
            };
            for pattern in &self.config.db.schema_paths {
                let full = self.supabase_dir.join(pattern);
                let mut matched: Vec<PathBuf> = glob::glob_with(&full.to_string_lossy(), options)
                    .map_err(|e| {
                        ProjectError::Invalid(format!(
                            "db.migrations.schema_paths: \"{pattern}\": {e}"
                        ))
                    })?
                    .filter_map(Result::ok)
                    .filter(|p| p.is_file())
                    .map(|p| normalize(&p))
                    .collect();
                matched.sort();
                if matched.is_empty() {
                    notes.push(format!(
                        "no files matched pattern: {}",
                        self.relative(&full)
                    ));
                }
                for m in matched {
                    if !files.contains(&m) {
                        files.push(m);
                    }
                }
            }
        }
        let files = files
            .into_iter()
            .map(|p| {
                let sql =
                    std::fs::read_to_string(&p).map_err(|e| ProjectError::Io(p.clone(), e))?;
                Ok(SchemaFile {
                    path: self.relative(&p),
                    sql,
                })
            })
            .collect::<Result<_, ProjectError>>()?;
        Ok((files, notes))
    }

    /// `path` relative to the project root, for messages and the seed table.
    pub fn relative(&self, path: &Path) -> String {
        let path = normalize(path);
        path.strip_prefix(&self.root)
            .unwrap_or(&path)
            .to_string_lossy()
            .to_string()
    }

    /// Creates `supabase/migrations/<UTC timestamp>_<name>.sql` (empty), as `migration new` does.
    pub fn new_migration(&self, name: &str, timestamp: &str) -> Result<PathBuf, ProjectError> {
        self.write_migration(name, timestamp, "")
    }

    /// Whether `name` can name a migration file (letters, digits, `_` and `-`).
    pub fn check_migration_name(name: &str) -> Result<(), ProjectError> {
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            return Err(ProjectError::Invalid(format!(
                "\"{name}\" is not a migration name: use letters, digits, _ and -"
            )));
        }
        Ok(())
    }

    /// Creates `supabase/migrations/<UTC timestamp>_<name>.sql` holding `sql` (never replacing
    /// a file).
    pub fn write_migration(
        &self,
        name: &str,
        timestamp: &str,
        sql: &str,
    ) -> Result<PathBuf, ProjectError> {
        Self::check_migration_name(name)?;
        let dir = self.migrations_dir();
        std::fs::create_dir_all(&dir).map_err(|e| ProjectError::Io(dir.clone(), e))?;
        let path = dir.join(format!("{timestamp}_{name}.sql"));
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .and_then(|mut f| std::io::Write::write_all(&mut f, sql.as_bytes()))
            .map_err(|e| ProjectError::Io(path.clone(), e))?;
        Ok(path)
    }

    /// Whether the project's migrations or seeds mention `word` (case-insensitively): how
    /// supagate tells that a project uses pg_cron before its database exists.
    pub fn mentions(&self, word: &str) -> bool {
        let word = word.to_ascii_lowercase();
        let migrations = self.migrations().map(|(m, _)| m).unwrap_or_default();
        let seeds = self.seed_files().map(|(s, _)| s).unwrap_or_default();
        migrations
            .iter()
            .map(|m| &m.sql)
            .chain(seeds.iter().map(|s| &s.sql))
            .any(|sql| sql.to_ascii_lowercase().contains(&word))
    }

    /// The extensions the project's migrations and seeds create (`create extension [if not
    /// exists] name`), each once, in order of first appearance.
    pub fn created_extensions(&self) -> Vec<String> {
        let migrations = self.migrations().map(|(m, _)| m).unwrap_or_default();
        let seeds = self.seed_files().map(|(s, _)| s).unwrap_or_default();
        let mut names = Vec::new();
        for sql in migrations
            .iter()
            .map(|m| &m.sql)
            .chain(seeds.iter().map(|s| &s.sql))
        {
            for n in extension_names(sql) {
                if !names.contains(&n) {
                    names.push(n);
                }
            }
        }
        names
    }

    /// A digest of everything a database built from this project depends on: its migrations,
    /// seeds and bucket settings.
    pub fn fingerprint(&self) -> Result<String, ProjectError> {
        let (migrations, _) = self.migrations()?;
        let (seeds, _) = self.seed_files()?;
        let mut all = String::new();
        for m in &migrations {
            all.push_str(&format!(
                "m:{}:{}\n",
                m.version,
                sha256_hex(m.sql.as_bytes())
            ));
        }
        if self.config.db.seed_enabled {
            for s in &seeds {
                all.push_str(&format!("s:{}:{}\n", s.path, s.hash));
            }
        }
        all.push_str(&format!("b:{:?}\n", self.config.storage.buckets));
        all.push_str(&format!("x:{}\n", self.config.api.auto_expose_new_tables));
        all.push_str(&format!(
            "v:{}\n",
            sha256_hex(format!("{:?}", self.config.db.vault).as_bytes())
        ));
        Ok(sha256_hex(all.as_bytes()))
    }
}

/// `<digits>_<name>.sql` → (version, name).
pub fn parse_migration_name(file: &str) -> Option<(&str, &str)> {
    let stem = file.strip_suffix(".sql")?;
    let (version, name) = stem.split_once('_')?;
    (!version.is_empty() && version.chars().all(|c| c.is_ascii_digit())).then_some((version, name))
}

/// Removes `.` components (glob returns `supabase/./seed.sql` for `./seed.sql`).
fn normalize(p: &Path) -> PathBuf {
    p.components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .collect()
}

/// The names in `create extension [if not exists] name` statements of `sql` (bare names folded
/// to lower case, quoted ones as written). Comments are not told apart: a name in a comment
/// counts, which at worst makes supagate prefer an installation that has it.
pub fn extension_names(sql: &str) -> Vec<String> {
    let words: Vec<&str> = sql.split_whitespace().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i + 2 < words.len() {
        if words[i].eq_ignore_ascii_case("create") && words[i + 1].eq_ignore_ascii_case("extension")
        {
            let mut j = i + 2;
            if words.len() > j + 2
                && words[j].eq_ignore_ascii_case("if")
                && words[j + 1].eq_ignore_ascii_case("not")
                && words[j + 2].eq_ignore_ascii_case("exists")
            {
                j += 3;
            }
            if let Some(w) = words.get(j) {
                let w = w.trim_end_matches(';');
                let name = match w.strip_prefix('"') {
                    Some(q) => q.split('"').next().unwrap_or_default().to_string(),
                    None => w
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
                        .collect::<String>()
                        .to_ascii_lowercase(),
                };
                if !name.is_empty() && !out.contains(&name) {
                    out.push(name);
                }
            }
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extension_names_as_create_extension_writes_them() {
        for (sql, names) in [
            ("create extension postgis;", vec!["postgis"]),
            (
                "CREATE EXTENSION IF NOT EXISTS \"uuid-ossp\" WITH SCHEMA extensions;",
                vec!["uuid-ossp"],
            ),
            (
                "create extension if not exists\n  VECTOR\nwith schema extensions;",
                vec!["vector"],
            ),
            (
                "create extension pg_cron; create extension pg_cron;",
                vec!["pg_cron"],
            ),
            (
                "drop extension postgis; create table extension (a int);",
                vec![],
            ),
        ] {
            assert_eq!(extension_names(sql), names, "{sql}");
        }
    }

    fn project(files: &[(&str, &str)]) -> (tempfile::TempDir, Project) {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let p = dir.path().join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        let p = Project::open(Some(dir.path())).unwrap();
        (dir, p)
    }

    #[test]
    fn migrations_in_version_order_with_bad_names_skipped() {
        let (_d, p) = project(&[
            ("supabase/config.toml", ""),
            ("supabase/migrations/20240102000000_second.sql", "select 2;"),
            (
                "supabase/migrations/20240101000000_first.sql",
                "select 1; select 11;",
            ),
            ("supabase/migrations/notes.md", "x"),
            ("supabase/migrations/init.sql", "x"),
        ]);
        let (m, skipped) = p.migrations().unwrap();
        assert_eq!(
            m.iter()
                .map(|m| (m.version.as_str(), m.name.as_str()))
                .collect::<Vec<_>>(),
            [("20240101000000", "first"), ("20240102000000", "second")]
        );
        assert_eq!(m[0].statements.len(), 2);
        assert_eq!(m[0].display, "supabase/migrations/20240101000000_first.sql");
        assert_eq!(skipped.len(), 2);
    }

    #[test]
    fn seeds_follow_the_patterns_in_order() {
        let (_d, mut p) = project(&[
            (
                "supabase/config.toml",
                "[db.seed]\nsql_paths = ['./seed.sql', './seeds/*.sql', './missing.sql']",
            ),
            ("supabase/seed.sql", "select 1;"),
            ("supabase/seeds/b.sql", "select 3;"),
            ("supabase/seeds/a.sql", "select 2;"),
        ]);
        let (seeds, notes) = p.seed_files().unwrap();
        assert_eq!(
            seeds.iter().map(|s| s.path.as_str()).collect::<Vec<_>>(),
            [
                "supabase/seed.sql",
                "supabase/seeds/a.sql",
                "supabase/seeds/b.sql"
            ]
        );
        assert_eq!(seeds[0].hash, sha256_hex(b"select 1;"));
        assert_eq!(notes, ["no files matched pattern: supabase/missing.sql"]);
        let before = p.fingerprint().unwrap();
        p.config.db.seed_enabled = false;
        assert_ne!(before, p.fingerprint().unwrap());
    }

    #[test]
    fn declared_schema_files_as_the_cli_finds_them() {
        // No schema_paths: every .sql file under supabase/schemas, by path.
        let (_d, p) = project(&[
            ("supabase/config.toml", ""),
            ("supabase/schemas/b.sql", "select 2;"),
            ("supabase/schemas/a.sql", "select 1;"),
            ("supabase/schemas/sub/c.sql", "select 3;"),
            ("supabase/schemas/notes.md", "x"),
        ]);
        let (files, notes) = p.schema_files().unwrap();
        assert_eq!(
            files.iter().map(|f| f.path.as_str()).collect::<Vec<_>>(),
            [
                "supabase/schemas/a.sql",
                "supabase/schemas/b.sql",
                "supabase/schemas/sub/c.sql"
            ]
        );
        assert_eq!(files[0].sql, "select 1;");
        assert!(notes.is_empty());
        // schema_paths: in the order given, each pattern's matches sorted, a file once, `*`
        // within one folder.
        let (_d, p) = project(&[
            (
                "supabase/config.toml",
                "[db.migrations]\nschema_paths = ['./schemas/types.sql', './schemas/*.sql', './none/*.sql']",
            ),
            ("supabase/schemas/types.sql", "create type t as enum ('a');"),
            ("supabase/schemas/a.sql", "select 1;"),
            ("supabase/schemas/sub/c.sql", "select 3;"),
        ]);
        let (files, notes) = p.schema_files().unwrap();
        assert_eq!(
            files.iter().map(|f| f.path.as_str()).collect::<Vec<_>>(),
            ["supabase/schemas/types.sql", "supabase/schemas/a.sql"]
        );
        assert_eq!(notes, ["no files matched pattern: supabase/none/*.sql"]);
        // No folder, no files.
        let (_d, p) = project(&[("supabase/config.toml", "")]);
        assert!(p.schema_files().unwrap().0.is_empty());
    }

    #[test]
    fn a_folder_without_config_uses_the_defaults_and_new_migrations_are_empty_files() {
        let (_d, p) = project(&[]);
        assert!(p.config_file.is_none());
        assert_eq!(p.config, Config::default());
        assert!(p.migrations().unwrap().0.is_empty());
        let path = p.new_migration("add_notes", "20250101120000").unwrap();
        assert!(path.ends_with("supabase/migrations/20250101120000_add_notes.sql"));
        assert_eq!(p.migrations().unwrap().0[0].name, "add_notes");
        assert!(p.new_migration("bad name", "1").is_err());
    }
}
