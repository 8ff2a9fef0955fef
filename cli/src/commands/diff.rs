//! `db diff`, as the Supabase CLI's: the SQL that turns the schema the migrations build into
//! the local database's (or a remote one's, or the declared schema files'), printed or written
//! as a new migration. The migrations' side is a copy of the template in the same cluster (the
//! CLI starts a shadow database for it, about 15 s); the differ is `schema-diff`. The catalogs
//! of the databases the project's files build are kept (`diff_cache`): when none of those files
//! changed, no database is built at all.

use super::CommandError;
use super::diff_cache::DiffCache;
use super::{Prepare, with_database};
use gateway::config::Config;
use pg::migrate::shadow;
use pg::{Database, Login, connect};
use schema_diff::{Catalog, Scope};
use std::time::Instant;

/// What the CLI says after writing a migration.
const WARN_DIFF: &str = "WARNING: The diff tool is not foolproof, so you may need to manually \
rearrange and modify the generated migration.\nRun supagate db reset to verify that the new \
migration does not generate errors.";

/// The linked project's database, as `supabase link` left it: its ref in
/// `supabase/.temp/project-ref`, the password in SUPABASE_DB_PASSWORD.
pub fn linked_url(project: &project::Project) -> Result<String, CommandError> {
    linked_url_of(
        &linked_ref(project)?,
        std::env::var("SUPABASE_DB_PASSWORD").ok(),
    )
}

/// The linked project's ref (`supabase/.temp/project-ref`), as `supabase link` left it.
pub fn linked_ref(project: &project::Project) -> Result<String, CommandError> {
    std::fs::read_to_string(project.supabase_dir.join(".temp/project-ref"))
        .map(|r| r.trim().to_string())
        .map_err(|_| {
            CommandError::Message("Cannot find project ref. Have you run supabase link?".into())
        })
}

/// A project ref as the CLI accepts one: twenty lower-case letters.
pub fn check_ref(reference: &str) -> Result<(), CommandError> {
    if reference.len() != 20 || !reference.chars().all(|c| c.is_ascii_lowercase()) {
        return Err(CommandError::Usage(
            "Invalid project ref format. Must be like `abcdefghijklmnopqrst`.".into(),
        ));
    }
    Ok(())
}

fn linked_url_of(reference: &str, password: Option<String>) -> Result<String, CommandError> {
    check_ref(reference)?;
    let password = password.filter(|p| !p.is_empty()).ok_or_else(|| {
        CommandError::Message(
            "set SUPABASE_DB_PASSWORD to the linked project's database password (or pass its \
             connection string with --db-url)"
                .into(),
        )
    })?;
    let encoded: String = password
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect();
    Ok(format!(
        "postgresql://postgres:{encoded}@db.{reference}.supabase.co:5432/postgres?sslmode=require"
    ))
}

async fn read(login: &Login, scope: &Scope) -> Result<Catalog, CommandError> {
    let c = connect(login).await?;
    schema_diff::read(&c, scope)
        .await
        .map_err(CommandError::from)
}

/// Runs `db diff`. `db_url`/`linked`: the database to compare with instead of the local one.
pub async fn run(
    cfg: &Config,
    file: Option<String>,
    schemas: Vec<String>,
    linked: bool,
    db_url: Option<String>,
) -> Result<(), CommandError> {
    if let Some(name) = &file {
        project::Project::check_migration_name(name)?;
    }
    let target = match (linked, db_url) {
        (true, _) => Some(linked_url(&cfg.project)?),
        (false, url) => url,
    };
    let target = target
        .map(|url| Login::parse(&url).map_err(CommandError::DbUrl))
        .transpose()?;
    // Declared schema files stand for the local database, as in the CLI.
    let declared = if target.is_none() {
        let (files, notes) = cfg.project.schema_files()?;
        if files.is_empty() && !cfg.project.config.db.schema_paths.is_empty() {
            return Err(CommandError::Message(notes.join("\n")));
        }
        for n in notes {
            eprintln!("WARN: {n}");
        }
        files
    } else {
        Vec::new()
    };
    let statements = compare(cfg, &schemas, target, declared).await?;
    eprintln!("Finished supagate db diff.");
    if statements.is_empty() {
        eprintln!("No schema changes found");
        return Ok(());
    }
    let sql = schema_diff::render(&statements);
    match &file {
        Some(name) => {
            let stamp = chrono::Utc::now().format("%Y%m%d%H%M%S").to_string();
            let path = cfg.project.write_migration(name, &stamp, &sql)?;
            eprintln!("Created new migration at {}", cfg.project.relative(&path));
            eprintln!("{WARN_DIFF}");
        }
        None => println!("{sql}"),
    }
    warn_drops(&statements);
    Ok(())
}

/// Says which statements of a diff drop something, as the CLI says it.
pub fn warn_drops(statements: &[schema_diff::Statement]) {
    let drops: Vec<String> = statements
        .iter()
        .filter(|s| s.drops())
        .map(|s| format!("{};", s.sql))
        .collect();
    if !drops.is_empty() {
        eprintln!(
            "Found drop statements in schema diff. Please double check if these are expected:\n{}",
            drops.join("\n")
        );
    }
}

/// The statements that turn the schema the migrations build into `target`'s (a remote
/// database), else the declared schema files' when there are some, else the local database's.
/// On the embedded cluster, the catalogs of the databases the files build come from
/// `diff_cache` when nothing they are built from changed; otherwise those databases are made
/// (copies of the template and of the platform), read, kept in the cache and dropped.
pub async fn compare(
    cfg: &Config,
    schemas: &[String],
    target: Option<Login>,
    declared: Vec<project::SchemaFile>,
) -> Result<Vec<schema_diff::Statement>, CommandError> {
    let scope = Scope::named(schemas);
    let keep_templates = cfg.embedded();
    let mut statements = Vec::new();
    with_database(cfg, Prepare::IfFresh, async |db| {
        let t0 = Instant::now();
        let cache = match keep_templates {
            true => DiffCache::open(cfg, db, schemas).await,
            false => None,
        };
        tracing::debug!("the diff cache opened in {} ms", since(t0));
        let from_db = shadow::name("migrations");
        let declared_db = shadow::name("declared");
        let mut builder = Builder {
            cfg,
            db,
            scope: &scope,
            cache: cache.as_ref(),
            swept: !keep_templates,
            made: Vec::new(),
            kept: Vec::new(),
        };
        let diffed = async {
            let from = builder.catalog("migrations", &[], &from_db).await?;
            let to = match &target {
                Some(login) => Catalogs::Read(login.clone()),
                None if !declared.is_empty() => {
                    eprintln!("Creating local database from declarative schemas:");
                    for f in &declared {
                        eprintln!(" • {}", f.path);
                    }
                    Catalogs::Built(builder.catalog("declared", &declared, &declared_db).await?)
                }
                None => Catalogs::Read(db.admin.clone()),
            };
            if schemas.is_empty() {
                eprintln!("Diffing schemas...");
            } else {
                eprintln!("Diffing schemas: {}", schemas.join(","));
            }
            let t1 = Instant::now();
            let to = match to {
                Catalogs::Built(cat) => cat,
                Catalogs::Read(login) => {
                    let cat = read(&login, &scope).await?;
                    tracing::debug!("the database's catalog read in {} ms", since(t1));
                    cat
                }
            };
            // A schema named that neither side has is a mistake, not "no changes".
            for s in schemas {
                if !from.schemas.contains_key(s) && !to.schemas.contains_key(s) {
                    return Err(CommandError::Message(format!(
                        "schema \"{s}\" does not exist"
                    )));
                }
            }
            let t2 = Instant::now();
            let statements = schema_diff::diff(&from, &to);
            tracing::debug!("the catalogs compared in {} ms", since(t2));
            Ok::<_, CommandError>(statements)
        }
        .await;
        let made: Vec<&str> = builder.made.iter().map(String::as_str).collect();
        let removed = remove(db, &made).await;
        statements = diffed?;
        removed?;
        tracing::info!(
            "diffed in {} ms (databases built: {})",
            t0.elapsed().as_millis(),
            if made.is_empty() {
                "none, the catalogs were kept".to_string()
            } else {
                made.join(", ")
            }
        );
        Ok(())
    })
    .await?;
    Ok(statements)
}

/// Milliseconds since `t0`, for the log.
fn since(t0: Instant) -> u128 {
    t0.elapsed().as_millis()
}

/// The second side of a diff: a catalog built from files, or a database to read.
enum Catalogs {
    Built(Catalog),
    Read(Login),
}

/// Builds (or finds in the cache) the catalogs of the databases the project's files make.
struct Builder<'a> {
    cfg: &'a Config,
    db: &'a Database,
    scope: &'a Scope,
    cache: Option<&'a DiffCache>,
    /// Whether the databases that diffs of processes now gone left behind were dropped.
    swept: bool,
    /// The databases made, to drop.
    made: Vec<String>,
    /// The sessions on the kept platform copies used, rolling back.
    kept: Vec<shadow::Kept>,
}

impl Builder<'_> {
    /// The catalog of the database `side` names: the migrations' (`files` empty) or the
    /// platform with `files` applied, made as `name` unless the cache has it.
    async fn catalog(
        &mut self,
        side: &str,
        files: &[project::SchemaFile],
        name: &str,
    ) -> Result<Catalog, CommandError> {
        let t0 = Instant::now();
        let key = self.cache.map(|c| c.key(side, files));
        if let (Some(cache), Some(key)) = (self.cache, &key)
            && let Some(cat) = cache.catalog(side, key, self.scope).await
        {
            tracing::debug!("the {side} catalog read from the cache in {} ms", since(t0));
            return Ok(cat);
        }
        let keep_templates = self.cfg.embedded();
        let files: Vec<(String, String)> = files
            .iter()
            .map(|f| (f.path.clone(), f.sql.clone()))
            .collect();
        let kept = match keep_templates {
            true => self.on_kept_platform(&files).await,
            false => None,
        };
        let (cat, answers) = match kept {
            Some(read) => read,
            None => self.built(&files, name).await?,
        };
        let t1 = Instant::now();
        if let (Some(cache), Some(key)) = (self.cache, &key) {
            cache.keep(side, key, answers);
        }
        tracing::debug!(
            "the {side} catalog made in {} ms (kept in the cache in {} ms)",
            since(t0),
            since(t1)
        );
        Ok(cat)
    }

    /// The catalog of the platform with `files` applied (the migrations' database when there
    /// are none), read in a transaction on the kept platform copy and rolled back; `None` when
    /// that copy is in use, the migrations' database is a copy of the template (up to date),
    /// or the files do not apply there as they would each in a transaction of its own (then
    /// the database is built).
    async fn on_kept_platform(
        &mut self,
        files: &[(String, String)],
    ) -> Option<(Catalog, Vec<String>)> {
        let project = &self.cfg.project;
        let started = Instant::now();
        let tried = async {
            let (name, migrations, steps) = match files.is_empty() {
                true => {
                    if shadow::template_is_current(project, self.db).await? {
                        return Ok(None);
                    }
                    let (migrations, steps) = shadow::migration_files(project)?;
                    (shadow::KEPT_MIGRATIONS, migrations, steps)
                }
                false => (shadow::KEPT, Vec::new(), files.to_vec()),
            };
            if !shadow::fit_one_transaction(&steps) {
                return Ok(None);
            }
            let key = shadow::kept_key(project);
            let Some(mut kept) =
                shadow::kept_platform(project, self.db, &key, name, &steps).await?
            else {
                tracing::info!("{name} is in use: the database is built");
                return Ok(None);
            };
            let t0 = Instant::now();
            tracing::debug!("{name} is ready after {} ms", since(started));
            let applied = match files.is_empty() {
                true => shadow::try_migrations(&mut kept, project, &migrations, &steps).await?,
                false => shadow::try_files(&mut kept, files).await?,
            };
            if !applied {
                return Ok(None);
            }
            let c = kept.client();
            let applied = t0.elapsed();
            let read = schema_diff::read_keeping_in_transaction(c, self.scope).await;
            shadow::roll_back_unawaited(&kept);
            // Its session ends with the diff (the server then rolls back if it has not yet).
            self.kept.push(kept);
            tracing::info!(
                "{} applied on the kept platform copy in {} ms, read in {} ms",
                if files.is_empty() {
                    "migrations"
                } else {
                    "declared files"
                },
                applied.as_millis(),
                (t0.elapsed() - applied).as_millis()
            );
            read.map(Some)
                .map_err(|e| pg::migrate::MigrateError::Other(e.to_string()))
        }
        .await;
        match tried {
            Ok(read) => read,
            Err::<_, pg::migrate::MigrateError>(e) => {
                tracing::warn!("the kept platform copy could not be used ({e}): built apart");
                None
            }
        }
    }

    /// Makes `name`: the migrations' database (`files` empty) or the platform with `files`
    /// applied, each in a transaction of its own; reads it (it is dropped after the diff).
    async fn built(
        &mut self,
        files: &[(String, String)],
        name: &str,
    ) -> Result<(Catalog, Vec<String>), CommandError> {
        if !self.swept {
            shadow::sweep(self.db).await?;
            self.swept = true;
        }
        let project = &self.cfg.project;
        let keep_templates = self.cfg.embedded();
        self.made.push(name.to_string());
        if files.is_empty() {
            shadow::migrations_copy(project, self.db, name, keep_templates).await?;
        } else {
            let mut c = shadow::platform_copy(project, self.db, name, keep_templates).await?;
            shadow::apply_files(&mut c, files).await?;
        }
        let c = connect(&self.db.admin_on(name)).await?;
        schema_diff::read_keeping(&c, self.scope)
            .await
            .map_err(CommandError::from)
    }
}

/// Drops the databases a diff made (those it did not get to make are not there).
async fn remove(db: &Database, names: &[&str]) -> Result<(), CommandError> {
    for n in names {
        shadow::remove(db, n).await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::linked_url_of;

    #[test]
    fn the_linked_projects_database() {
        assert_eq!(
            linked_url_of("abcdefghijklmnopqrst", Some("p@ss w/rd".into())).unwrap(),
            "postgresql://postgres:p%40ss%20w%2Frd@db.abcdefghijklmnopqrst.supabase.co:5432/postgres?sslmode=require"
        );
        assert!(
            linked_url_of("abcdefghijklmnopqrst", None)
                .unwrap_err()
                .to_string()
                .contains("SUPABASE_DB_PASSWORD")
        );
        assert!(
            linked_url_of("not-a-ref", Some("x".into()))
                .unwrap_err()
                .to_string()
                .contains("Invalid project ref")
        );
    }
}
