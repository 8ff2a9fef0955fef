//! `test db`: pgTAP files run as the Supabase CLI runs them (pg_prove: each file through psql
//! with `ON_ERROR_STOP`, as the database owner), pgTAP enabled for the run (`extensions` schema)
//! and removed after it when it was not there before. The test helpers are an extension a test
//! creates in its transaction: `create extension "basejump-supabase_test_helpers"`.

use crate::tap::{self, Verdict};
use pg::Login;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

#[derive(Debug, thiserror::Error)]
pub enum TestDbError {
    #[error("{0}")]
    Database(#[from] tokio_postgres::Error),
    #[error("cannot connect: {0}")]
    Connect(pg::ConnectError),
    #[error("cannot run {0}: {1}")]
    Psql(String, String),
    #[error("{0}: {1}")]
    Files(String, String),
    #[error("no test files (*.sql, *.pg) under {0}")]
    NoFiles(String),
}

/// One file's run may take this long before it is stopped.
const FILE_TIMEOUT: Duration = Duration::from_secs(600);

/// Test files under `paths` (files as given, folders searched recursively for `.sql` and
/// `.pg`, as pg_prove `--ext .pg --ext .sql -r`), in name order.
pub fn test_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, TestDbError> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), TestDbError> {
        let entries = std::fs::read_dir(dir)
            .map_err(|e| TestDbError::Files(dir.display().to_string(), e.to_string()))?;
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out)?;
            } else if matches!(p.extension().and_then(|x| x.to_str()), Some("sql" | "pg")) {
                out.push(p);
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut found = Vec::new();
            walk(p, &mut found)?;
            found.sort();
            out.extend(found);
        } else if p.is_file() {
            out.push(p.clone());
        } else {
            return Err(TestDbError::Files(
                p.display().to_string(),
                "no such file or folder".into(),
            ));
        }
    }
    Ok(out)
}

/// What changes when a test file is edited, added or removed: `--watch` runs again then.
pub fn stamp(paths: &[PathBuf]) -> Vec<(PathBuf, Option<SystemTime>, u64)> {
    test_files(paths)
        .unwrap_or_default()
        .into_iter()
        .map(|p| {
            let m = std::fs::metadata(&p).ok();
            let modified = m.as_ref().and_then(|m| m.modified().ok());
            (p, modified, m.map_or(0, |m| m.len()))
        })
        .collect()
}

/// Where and how the files run.
pub struct Run<'a> {
    /// The database owner.
    pub admin: &'a Login,
    /// The URL psql connects with (as the owner).
    pub db_url: &'a str,
    pub psql: &'a Path,
    /// File names are printed relative to this folder (the project's).
    pub root: &'a Path,
    /// psql's working folder for every file (`working_dir`): a file's `\i other.sql` is
    /// found from there, as in the CLI's container.
    pub cwd: &'a Path,
}

/// The folder the CLI runs pg_prove in: the first path given, or its folder when it names a
/// file (by its extension, as the CLI tells them apart); the tests folder by default.
pub fn working_dir(paths: &[PathBuf]) -> Option<PathBuf> {
    let first = paths.first()?;
    Some(if first.extension().is_some() {
        first
            .parent()
            .map_or_else(|| first.clone(), Path::to_path_buf)
    } else {
        first.clone()
    })
}

/// Enables pgTAP as the CLI does; returns whether it was added (and so is removed after).
async fn enable_pgtap(c: &tokio_postgres::Client) -> Result<bool, TestDbError> {
    let there = c
        .query_opt("SELECT 1 FROM pg_extension WHERE extname = 'pgtap'", &[])
        .await?
        .is_some();
    if !there {
        c.batch_execute("CREATE EXTENSION IF NOT EXISTS pgtap WITH SCHEMA extensions")
            .await?;
    }
    Ok(!there)
}

/// Runs one file through psql as pg_prove does.
async fn run_file(run: &Run<'_>, file: &Path) -> Result<Verdict, TestDbError> {
    let name = file
        .strip_prefix(run.root)
        .unwrap_or(file)
        .display()
        .to_string();
    let mut cmd = tokio::process::Command::new(run.psql);
    cmd.args([
        "-X",
        "-q",
        "-t",
        "-A",
        "-v",
        "ON_ERROR_STOP=1",
        "--pset",
        "pager=off",
        "-f",
    ])
    .arg(file)
    .arg(run.db_url)
    .current_dir(run.cwd)
    .stdin(std::process::Stdio::null())
    .kill_on_drop(true);
    let out = tokio::time::timeout(FILE_TIMEOUT, cmd.output())
        .await
        .map_err(|_| {
            TestDbError::Psql(
                name.clone(),
                format!("still running after {} s", FILE_TIMEOUT.as_secs()),
            )
        })?
        .map_err(|e| TestDbError::Psql(run.psql.display().to_string(), e.to_string()))?;
    let stderr = String::from_utf8_lossy(&out.stderr).trim().to_string();
    let error = if out.status.success() {
        if !stderr.is_empty() {
            eprintln!("{stderr}");
        }
        None
    } else {
        Some(if stderr.is_empty() {
            format!("psql ended with {}", out.status)
        } else {
            stderr
        })
    };
    Ok(Verdict {
        name,
        output: tap::parse(&String::from_utf8_lossy(&out.stdout)),
        error,
    })
}

/// Runs every file, printing each file's line (and its failures in full) as it ends, then the
/// summary. Returns whether all passed.
pub async fn run_all(run: &Run<'_>, files: &[PathBuf]) -> Result<bool, TestDbError> {
    if files.is_empty() {
        return Err(TestDbError::NoFiles(run.root.display().to_string()));
    }
    let t0 = Instant::now();
    let c = pg::connect(run.admin).await.map_err(TestDbError::Connect)?;
    let added = enable_pgtap(&c).await?;
    let width = files
        .iter()
        .map(|f| {
            f.strip_prefix(run.root)
                .unwrap_or(f)
                .display()
                .to_string()
                .chars()
                .count()
        })
        .max()
        .unwrap_or(0);
    let mut verdicts = Vec::new();
    let mut failure = None;
    for f in files {
        match run_file(run, f).await {
            Ok(v) => {
                println!("{}", v.line(width));
                verdicts.push(v);
            }
            Err(e) => {
                failure = Some(e);
                break;
            }
        }
    }
    if added && let Err(e) = c.batch_execute("DROP EXTENSION IF EXISTS pgtap").await {
        tracing::warn!("failed to disable pgTAP: {e}");
    }
    if let Some(e) = failure {
        return Err(e);
    }
    print!("{}", tap::summary(&verdicts, t0.elapsed().as_secs_f64()));
    Ok(verdicts.iter().all(Verdict::passed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn psql_works_where_the_cli_runs_pg_prove() {
        let p = |s: &str| PathBuf::from(s);
        assert_eq!(
            working_dir(&[p("/w/supabase/tests")]),
            Some(p("/w/supabase/tests"))
        );
        assert_eq!(
            working_dir(&[p("/w/supabase/tests/db/a.sql"), p("/w/other")]),
            Some(p("/w/supabase/tests/db"))
        );
        assert_eq!(working_dir(&[]), None);
    }
}
