//! `test db`: the project's pgTAP files against its database (see `workbench::pgtap`).

use super::{Prepare, with_database};
use gateway::config::Config;
use std::path::{Path, PathBuf};
use workbench::pgtap;

pub async fn run(cfg: &Config, paths: Vec<PathBuf>, watch: bool) -> Result<(), String> {
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
    with_database(cfg, Prepare::UnlessRunning, async |db| {
        let run = pgtap::Run {
            admin: &db.admin,
            db_url: &db.db_url,
            psql: &psql,
            root: &root,
        };
        let mut passed = once(&run, &paths).await?;
        if !watch {
            return if passed {
                Ok(())
            } else {
                Err("some tests failed".into())
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
                        return if passed { Ok(()) } else { Err("some tests failed".into()) };
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

async fn once(run: &pgtap::Run<'_>, paths: &[PathBuf]) -> Result<bool, String> {
    let files = pgtap::test_files(paths).map_err(|e| e.to_string())?;
    pgtap::run_all(run, &files).await.map_err(|e| e.to_string())
}

fn shown(paths: &[PathBuf], root: &Path) -> String {
    paths
        .iter()
        .map(|p| p.strip_prefix(root).unwrap_or(p).display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}
