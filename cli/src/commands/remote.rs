//! `db push`, `db pull` and `migration down`, as the Supabase CLI's: the local migration files
//! against a database's `supabase_migrations.schema_migrations`. Which migrations are pending
//! and whether two histories agree are pure functions below; running and recording them is
//! `pg::migrate::project`'s, the schema a pull writes is `db diff`'s.

use super::CommandError;
use super::migration::{on_database, prompt};
use super::{Prepare, with_database};
use gateway::config::Config;
use pg::migrate::project as history;
use pg::{Login, connect};

use crate::workflow_args::{DownArgs, PullArgs, PushArgs};
use project::Migration;

/// Where `db push` and `db pull` go: `--db-url`'s database, the local one with `--local`, else
/// the linked project (the CLI's default). `None`: the local database.
fn destination(
    cfg: &Config,
    db_url: Option<String>,
    local: bool,
) -> Result<Option<Login>, CommandError> {
    if local {
        return Ok(None);
    }
    let url = match db_url {
        Some(u) => u,
        None => super::diff::linked_url(&cfg.project)?,
    };
    Login::parse(&url).map(Some).map_err(CommandError::DbUrl)
}

const MISSING_REMOTE: &str =
    "Found local migration files to be inserted before the last migration on remote database.";
const MISSING_LOCAL: &str = "Remote migration versions not found in local migrations directory.";

/// The local versions a push applies, in order, given the versions the database recorded (both
/// sorted), as the CLI decides: a recorded version with no file is an error; a file older than
/// the last recorded version that was never applied is one too, unless `include_all` (then it
/// is applied first, in its order).
pub fn pending(
    local: &[String],
    remote: &[String],
    include_all: bool,
) -> Result<Vec<String>, CommandError> {
    let (mut i, mut j) = (0, 0);
    let (mut missing, mut unapplied) = (Vec::new(), Vec::new());
    while i < remote.len() && j < local.len() {
        match remote[i].cmp(&local[j]) {
            std::cmp::Ordering::Equal => {
                i += 1;
                j += 1;
            }
            std::cmp::Ordering::Less => {
                missing.push(remote[i].clone());
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                unapplied.push(local[j].clone());
                j += 1;
            }
        }
    }
    missing.extend(remote[i..].iter().cloned());
    if !missing.is_empty() {
        return Err(CommandError::Message(format!(
            "{MISSING_LOCAL}\n\nMake sure your local git repo is up-to-date. If the error \
             persists, try repairing the migration history table:\nsupagate migration repair \
             --status reverted {}\n\nAnd update local migrations to match remote database:\n\
             supagate db pull",
            missing.join(" ")
        )));
    }
    if !unapplied.is_empty() && !include_all {
        return Err(CommandError::Message(format!(
            "{MISSING_REMOTE}\n\nRerun the command with --include-all flag to apply these \
             migrations:\n{}",
            unapplied
                .iter()
                .map(|v| format!("supabase/migrations/{v}_*.sql"))
                .collect::<Vec<_>>()
                .join("\n")
        )));
    }
    unapplied.extend(local[j..].iter().cloned());
    Ok(unapplied)
}

/// Whether the database recorded exactly the local versions (what `db pull` needs first); the
/// error says how to repair each difference, as the CLI says it.
pub fn in_sync(local: &[String], remote: &[String]) -> Result<(), CommandError> {
    let extra_remote: Vec<&String> = remote.iter().filter(|v| !local.contains(v)).collect();
    let extra_local: Vec<&String> = local.iter().filter(|v| !remote.contains(v)).collect();
    if extra_remote.is_empty() && extra_local.is_empty() {
        return Ok(());
    }
    let mut msg = "The remote database's migration history does not match local files in \
                   supabase/migrations directory.\n\nMake sure your local git repo is \
                   up-to-date. If the error persists, try repairing the migration history table:"
        .to_string();
    for v in extra_remote {
        msg += &format!("\nsupagate migration repair --status reverted {v}");
    }
    for v in extra_local {
        msg += &format!("\nsupagate migration repair --status applied {v}");
    }
    Err(CommandError::Message(msg))
}

fn file_name(m: &Migration) -> &str {
    m.display.rsplit('/').next().unwrap_or(&m.display)
}

fn bullets<'a>(items: impl Iterator<Item = &'a str>) -> String {
    items.map(|i| format!(" • {i}\n")).collect()
}

/// `db push`.
pub async fn push(cfg: &Config, a: PushArgs) -> Result<(), CommandError> {
    if a.dry_run {
        eprintln!("DRY RUN: migrations will *not* be pushed to the database.");
    }
    let local_target = a.local;
    let target = destination(cfg, a.db_url, a.local)?;
    let (database, status) = if local_target {
        ("local database", "Local database")
    } else {
        ("remote database", "Remote database")
    };
    let push_to = async |c: &mut pg::Client| -> Result<(), CommandError> {
        let (migrations, skipped) = cfg.project.migrations()?;
        for s in skipped {
            eprintln!("{s}");
        }
        let mut pending_files: Vec<&Migration> = Vec::new();
        if !cfg.project.config.db.migrations_enabled {
            eprintln!("Skipping migrations because it is disabled in config.toml.");
        } else {
            let remote = history::applied_versions(c).await?;
            let local: Vec<String> = migrations.iter().map(|m| m.version.clone()).collect();
            for v in pending(&local, &remote, a.include_all)? {
                pending_files.extend(migrations.iter().find(|m| m.version == v));
            }
        }
        let (seed_files, _) = cfg.project.seed_files()?;
        let mut seeds = Vec::new();
        if a.include_seed {
            if !cfg.project.config.db.seed_enabled {
                eprintln!("Skipping seed because it is disabled in config.toml.");
            } else {
                let recorded = history::seed_hashes(c).await?;
                for s in &seed_files {
                    match recorded.get(&s.path) {
                        Some(h) if *h == s.hash => {}
                        Some(_) => seeds.push((s, true)),
                        None => seeds.push((s, false)),
                    }
                }
            }
        }
        let roles_file = cfg.project.supabase_dir.join("roles.sql");
        let roles = (a.include_roles && roles_file.is_file())
            .then(|| std::fs::read_to_string(&roles_file))
            .transpose()
            .map_err(|e| CommandError::io("failed to find custom roles", e))?;
        if pending_files.is_empty() && seeds.is_empty() && roles.is_none() {
            println!("{status} is up to date.");
            return Ok(());
        }
        let seed_list = || {
            let names: Vec<String> = seeds
                .iter()
                .map(|(s, dirty)| {
                    if *dirty {
                        format!("{} (hash update)", s.path)
                    } else {
                        s.path.clone()
                    }
                })
                .collect();
            bullets(names.iter().map(String::as_str))
        };
        let migration_list = bullets(pending_files.iter().map(|m| file_name(m)));
        if a.dry_run {
            if roles.is_some() {
                eprintln!("Would create custom roles supabase/roles.sql...");
            }
            if !pending_files.is_empty() {
                eprintln!("Would push these migrations:");
                eprint!("{migration_list}");
            }
            if !seeds.is_empty() {
                eprintln!("Would seed these files:");
                eprint!("{}", seed_list());
            }
            println!("Finished supagate db push.");
            return Ok(());
        }
        if let Some(sql) = &roles {
            if !prompt(
                "Do you want to create custom roles in the database cluster?",
                true,
            ) {
                return Err(CommandError::Canceled);
            }
            eprintln!("Seeding globals from roles.sql...");
            c.batch_execute(sql)
                .await
                .map_err(|e| CommandError::sql(sql, e))?;
        }
        if !pending_files.is_empty() {
            if !prompt(
                &format!(
                    "Do you want to push these migrations to the {database}?\n{migration_list}\n"
                ),
                true,
            ) {
                return Err(CommandError::Canceled);
            }
            pg::migrate::platform::vault_secrets(c, &cfg.project).await?;
            for m in &pending_files {
                eprintln!("Applying migration {}...", file_name(m));
                history::apply_these(c, &[m]).await?;
            }
        } else {
            eprintln!("Schema migrations are up to date.");
        }
        if !seeds.is_empty() {
            if !prompt(
                &format!(
                    "Do you want to seed the {database} with these files?\n{}\n",
                    seed_list()
                ),
                true,
            ) {
                return Err(CommandError::Canceled);
            }
            for (s, dirty) in &seeds {
                if *dirty {
                    eprintln!("Updating seed hash to {}...", s.path);
                } else {
                    eprintln!("Seeding data from {}...", s.path);
                }
            }
            history::seed_these(c, &seeds).await?;
        } else if a.include_seed {
            eprintln!("Seed files are up to date.");
        }
        if !pending_files.is_empty() {
            // A gateway serving that database reloads its schema cache.
            let _ = c.batch_execute("NOTIFY pgrst, 'reload schema'").await;
        }
        println!("Finished supagate db push.");
        Ok(())
    };
    on_database(cfg, target, Prepare::Never, push_to).await
}

/// `db pull`: the remote database's schema, as the differ sees it against what the local
/// migrations build, written as a new migration and (after a yes) recorded in the remote
/// history as applied.
pub async fn pull(cfg: &Config, a: PullArgs) -> Result<(), CommandError> {
    let name = a.name.unwrap_or_else(|| "remote_schema".into());
    project::Project::check_migration_name(&name)?;
    let target = destination(cfg, a.db_url, a.local)?;
    let mut remote = Vec::new();
    on_database(cfg, target.clone(), Prepare::Never, async |c| {
        remote = history::applied_versions(c).await?;
        Ok(())
    })
    .await?;
    let (migrations, _) = cfg.project.migrations()?;
    let local: Vec<String> = migrations.iter().map(|m| m.version.clone()).collect();
    in_sync(&local, &remote)?;
    let statements = super::diff::compare(cfg, &a.schema, target.clone(), Vec::new()).await?;
    if statements.is_empty() {
        return Err(CommandError::Message("No schema changes found".into()));
    }
    let stamp = chrono::Utc::now().format("%Y%m%d%H%M%S").to_string();
    let path = cfg
        .project
        .write_migration(&name, &stamp, &schema_diff::render(&statements))?;
    eprintln!("Schema written to {}", cfg.project.relative(&path));
    super::diff::warn_drops(&statements);
    if prompt("Update remote migration history table?", true) {
        let (now, _) = cfg.project.migrations()?;
        let m = now.iter().find(|m| m.version == stamp).ok_or_else(|| {
            CommandError::Message(format!("{} disappeared", cfg.project.relative(&path)))
        })?;
        on_database(cfg, target, Prepare::Never, async |c| {
            history::repair(c, false, history::Repair::Applied(&[m]))
                .await
                .map_err(|e| CommandError::other("failed to update migration table", e))
        })
        .await?;
        eprintln!("Repaired migration history: [{stamp}] => applied");
    }
    println!("Finished supagate db pull.");
    Ok(())
}

/// The version `migration down --last n` resets to, given the applied versions in order.
pub fn down_to(applied: &[String], last: u32) -> Result<&str, CommandError> {
    if last == 0 {
        return Err(CommandError::Usage("--last must be greater than 0".into()));
    }
    let total = applied.len();
    if total <= last as usize {
        return Err(CommandError::Usage(format!(
            "--last must be smaller than total applied migrations: {total}\nTry supagate db \
             reset if you want to revert all migrations."
        )));
    }
    Ok(&applied[total - last as usize - 1])
}

/// `migration down --last n`: the local database rebuilt with its migrations up to n versions
/// back (and the seed), after a confirmation.
pub async fn down(cfg: &Config, a: DownArgs) -> Result<(), CommandError> {
    if let Some(login) = super::migration::target(cfg, a.db_url.clone(), a.linked)? {
        return down_remote(cfg, &a, &login).await;
    }
    if !cfg.embedded() {
        return Err(CommandError::Message(
            "migration down rebuilds the embedded database; it never touches a DATABASE_URL \
             server"
                .into(),
        ));
    }
    with_database(cfg, Prepare::UnlessRunning, async |db| {
        let applied = {
            let c = connect(&db.admin).await?;
            history::applied_versions(&c).await?
        };
        let version = down_to(&applied, a.last)?.to_string();
        confirm_down(&applied, a.last)?;
        eprintln!("Resetting database to version: {version}");
        pg::migrate::template::reset_until(&cfg.project, db, cfg.realtime_enabled, Some(&version))
            .await?;
        Ok(())
    })
    .await?;
    println!("Finished supagate migration down.");
    Ok(())
}

/// Asks before the last `last` of `applied` are reverted (no answer: no).
fn confirm_down(applied: &[String], last: u32) -> Result<(), CommandError> {
    let reverted = &applied[applied.len() - last as usize..];
    let question = format!(
        "Do you want to revert the following migrations?\n{}WARNING: you will lose all data in \
         this database.",
        bullets(reverted.iter().map(String::as_str))
    );
    if prompt(&question, false) {
        Ok(())
    } else {
        Err(CommandError::Canceled)
    }
}

/// `migration down` on another server, as the CLI resets a remote database: the project's
/// objects and data dropped, then its migrations up to the version and its seed run again.
async fn down_remote(cfg: &Config, a: &DownArgs, login: &Login) -> Result<(), CommandError> {
    let mut c = connect(login).await?;
    let applied = history::applied_versions(&c).await?;
    let version = down_to(&applied, a.last)?.to_string();
    confirm_down(&applied, a.last)?;
    eprintln!("Resetting database to version: {version}");
    let ran =
        history::reset_remote(&mut c, &cfg.project, &version, workbench::advisors::MANAGED).await?;
    for m in ran {
        eprintln!(
            "Applying migration {}...",
            m.rsplit('/').next().unwrap_or(&m)
        );
    }
    let _ = c.batch_execute("NOTIFY pgrst, 'reload schema'").await;
    println!("Finished supagate migration down.");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    /// (local, remote, include_all) → pending, or the error's first line.
    type Case = (
        &'static [&'static str],
        &'static [&'static str],
        bool,
        Result<&'static [&'static str], &'static str>,
    );

    #[test]
    fn pending_migrations_as_the_cli_finds_them() {
        let cases: &[Case] = &[
            (&["1", "2", "3"], &[], false, Ok(&["1", "2", "3"])),
            (&["1", "2", "3"], &["1", "2"], false, Ok(&["3"])),
            (&["1", "2"], &["1", "2"], false, Ok(&[])),
            (&["1", "3"], &["1", "2", "3"], false, Err(MISSING_LOCAL)),
            (&["1"], &["1", "2"], false, Err(MISSING_LOCAL)),
            (
                &["1", "2", "3", "4"],
                &["1", "3"],
                false,
                Err(MISSING_REMOTE),
            ),
            (&["1", "2", "3", "4"], &["1", "3"], true, Ok(&["2", "4"])),
        ];
        for (local, remote, all, want) in cases {
            let got = pending(&v(local), &v(remote), *all);
            match (got, want) {
                (Ok(g), Ok(w)) => assert_eq!(g, v(w), "{local:?} {remote:?}"),
                (Err(g), Err(w)) => assert!(g.to_string().starts_with(w), "{g}"),
                (g, w) => panic!("{local:?} {remote:?}: {g:?} vs {w:?}"),
            }
        }
        let e = pending(&v(&["1"]), &v(&["1", "2"]), false)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("supagate migration repair --status reverted 2"),
            "{e}"
        );
    }

    #[test]
    fn pull_needs_matching_histories() {
        assert!(in_sync(&v(&["1", "2"]), &v(&["1", "2"])).is_ok());
        assert!(in_sync(&[], &[]).is_ok());
        let e = in_sync(&v(&["1", "3"]), &v(&["1", "2"]))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("--status reverted 2") && e.contains("--status applied 3"),
            "{e}"
        );
    }

    #[test]
    fn down_counts_back_from_the_last() {
        let applied = v(&["1", "2", "3"]);
        assert_eq!(down_to(&applied, 1).unwrap(), "2");
        assert_eq!(down_to(&applied, 2).unwrap(), "1");
        assert!(
            down_to(&applied, 3)
                .unwrap_err()
                .to_string()
                .contains("total applied migrations: 3")
        );
        assert_eq!(
            down_to(&applied, 0).unwrap_err().to_string(),
            "--last must be greater than 0"
        );
    }
}
