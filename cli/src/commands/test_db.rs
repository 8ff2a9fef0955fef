//! `test db`: the project's pgTAP files against its database (see `workbench::pgtap`).

use super::CommandError;
use super::{Prepare, with_database};
use gateway::config::Config;
use std::path::{Path, PathBuf};
use workbench::pgtap;

pub async fn run(cfg: &Config, paths: Vec<PathBuf>, watch: bool) -> Result<(), CommandError> {
    let root = cfg.project.root.clone();
    let paths: Vec<PathBuf> = if paths.is_empty() {
        vec![cfg.project.supabase_dir.join("tests")]
    } else {
        paths
            .into_iter()
            .map(|p| {
                if p.is_absolute() {
                    p
                } else {
                    std::env::current_dir().unwrap_or_default().join(p)
                }
            })
            .collect()
    };
    let psql = super::pg_programs(cfg).join("psql");
    let cwd = pgtap::working_dir(&paths).unwrap_or_else(|| root.clone());
    with_database(cfg, Prepare::UnlessRunning, async |db| {
        let run = pgtap::Run {
            admin: &db.admin,
            db_url: &db.db_url,
            psql: &psql,
            root: &root,
            cwd: &cwd,
        };
        let mut passed = once(&run, &paths).await?;
        if !watch {
            return if passed {
                Ok(())
            } else {
                Err(CommandError::TestsFailed)
            };
        }
        loop {
            eprintln!(
                "\nWatching {} for changes (Ctrl-C ends)…",
                shown(&paths, &root)
            );
            let before = pgtap::stamp(&paths);
            // Test files are few and small: their times and sizes are compared twice a second.
            while pgtap::stamp(&paths) == before {
                tokio::select! {
                    _ = tokio::time::sleep(std::time::Duration::from_millis(500)) => {}
                    _ = tokio::signal::ctrl_c() => {
                        return if passed { Ok(()) } else { Err(CommandError::TestsFailed) };
                    }
                }
            }
            passed = once(&run, &paths).await.unwrap_or_else(|e| {
                eprintln!("error: {e}");
                false
            });
        }
    })
    .await
}

async fn once(run: &pgtap::Run<'_>, paths: &[PathBuf]) -> Result<bool, CommandError> {
    let files = pgtap::test_files(paths)?;
    pgtap::run_all(run, &files)
        .await
        .map_err(CommandError::from)
}

fn shown(paths: &[PathBuf], root: &Path) -> String {
    paths
        .iter()
        .map(|p| p.strip_prefix(root).unwrap_or(p).display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The CLI's pgTAP template for `test new`.
const PGTAP_TEMPLATE: &str = "BEGIN;
SELECT plan(1);

-- Examples: https://pgtap.org/documentation.html

SELECT * FROM finish();
ROLLBACK;
";

/// Where `test new NAME` writes, relative to supabase/: `tests/<name>_test.sql`. A name may
/// name a subfolder (`rls/profiles`), never leave the tests folder.
pub fn new_test_path(name: &str) -> Result<String, CommandError> {
    let ok = !name.is_empty()
        && name.len() <= 200
        && !name.starts_with('/')
        && name
            .split('/')
            .all(|part| !part.is_empty() && part != "." && part != "..")
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/'));
    if !ok {
        return Err(CommandError::Message(format!(
            "invalid test name {name:?}: use letters, digits, '_', '-', '.' (and '/' for a \
             subfolder of supabase/tests)"
        )));
    }
    Ok(format!("tests/{name}_test.sql"))
}

/// `test new NAME`: a pgTAP file from the CLI's template.
pub fn new(cfg: &Config, name: &str) -> Result<(), CommandError> {
    let relative = new_test_path(name)?;
    let path = cfg.project.supabase_dir.join(&relative);
    let shown = cfg.project.relative(&path);
    if path.exists() {
        return Err(CommandError::Message(format!("{shown} already exists.")));
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| CommandError::io(format!("cannot create {}", dir.display()), e))?;
    }
    std::fs::write(&path, PGTAP_TEMPLATE)
        .map_err(|e| CommandError::io(format!("cannot write {shown}"), e))?;
    println!("Created new pgtap test at {shown}.");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::new_test_path;

    #[test]
    fn test_names() {
        assert_eq!(
            new_test_path("profiles").unwrap(),
            "tests/profiles_test.sql"
        );
        assert_eq!(
            new_test_path("rls/notes").unwrap(),
            "tests/rls/notes_test.sql"
        );
        for bad in ["", "../x", "/etc/x", "a//b", "a b", "a/./b"] {
            assert!(new_test_path(bad).is_err(), "{bad}");
        }
    }
}
