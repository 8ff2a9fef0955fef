//! `db watch`: the declarative loop, live. The declared schema files (`[db.migrations]
//! schema_paths`, else supabase/schemas/**/*.sql) are applied to the local database whenever
//! they change: the files are built into a copy of the platform (as `db diff` builds them),
//! compared with the local database, and the difference is run there in one transaction, so
//! an edit is live in the running gateway (its schema cache reloads on the DDL) without a
//! migration or a reset. `db diff -f` then writes the migration. A file that does not apply,
//! or a difference the database refuses, changes nothing and is reported; the next save is
//! tried again.

use super::CommandError;
use super::diff::warn_drops;
use super::{Prepare, with_database};
use gateway::config::Config;
use pg::migrate::shadow;
use pg::{Database, connect};
use schema_diff::Scope;
use std::time::{Duration, Instant};

/// How often the files are looked at.
const POLL: Duration = Duration::from_millis(300);

/// Runs `db watch`; with `once`, applies the files as they are and returns (an error when they
/// do not apply).
pub async fn run(cfg: &Config, once: bool) -> Result<(), CommandError> {
    with_database(cfg, Prepare::IfFresh, async |db| {
        if !once {
            eprintln!(
                "Watching the declared schema files; each change is applied to the local \
                 database. Ctrl-C stops."
            );
        }
        let mut last: Option<Vec<(String, String)>> = None;
        loop {
            let (files, notes) = cfg.project.schema_files()?;
            let now: Vec<(String, String)> = files.into_iter().map(|f| (f.path, f.sql)).collect();
            if last.as_ref() != Some(&now) {
                for n in &notes {
                    eprintln!("WARN: {n}");
                }
                let result = if now.is_empty() {
                    Err(CommandError::Message(
                        "no declared schema files (supabase/schemas/**/*.sql, or \
                         [db.migrations] schema_paths)"
                            .to_string(),
                    ))
                } else {
                    apply(cfg, db, &now).await
                };
                match (&result, once) {
                    (_, true) => return result,
                    (Err(e), false) => eprintln!("Not applied: {e}"),
                    (Ok(()), false) => {}
                }
                last = Some(now);
            }
            tokio::select! {
                _ = tokio::time::sleep(POLL) => {}
                _ = tokio::signal::ctrl_c() => return Ok(()),
            }
        }
    })
    .await
}

/// Builds `files` into a copy of the platform, and runs on the local database what turns its
/// schema into theirs.
async fn apply(
    cfg: &Config,
    db: &Database,
    files: &[(String, String)],
) -> Result<(), CommandError> {
    let t0 = Instant::now();
    let keep_templates = cfg.embedded();
    if keep_templates {
        shadow::sweep(db).await?;
    }
    let declared_db = shadow::name("watch");
    let scope = Scope::named(&[]);
    let diffed = async {
        let mut c = shadow::platform_copy(&cfg.project, db, &declared_db, keep_templates).await?;
        shadow::apply_files(&mut c, files).await?;
        drop(c);
        let live = connect(&db.admin).await?;
        let from = schema_diff::read(&live, &scope).await?;
        let declared = connect(&db.admin_on(&declared_db)).await?;
        let to = schema_diff::read(&declared, &scope).await?;
        Ok::<_, CommandError>(schema_diff::diff(&from, &to))
    }
    .await;
    shadow::remove(db, &declared_db).await?;
    let statements = diffed?;
    if statements.is_empty() {
        eprintln!("No schema changes found");
        return Ok(());
    }
    let sql = schema_diff::render(&statements);
    let mut c = connect(&db.admin).await?;
    let tx = c.transaction().await?;
    tx.batch_execute(&sql)
        .await
        .map_err(|e| CommandError::sql(&sql, e))?;
    tx.commit().await?;
    eprintln!(
        "Applied {} statement{} in {} ms:\n{sql}",
        statements.len(),
        if statements.len() == 1 { "" } else { "s" },
        t0.elapsed().as_millis()
    );
    warn_drops(&statements);
    Ok(())
}
