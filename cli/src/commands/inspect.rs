//! `inspect db <report>` and `inspect report`, as the Supabase CLI's: the reports of
//! `workbench::inspect` run on the local database (or `--db-url`'s) in a read-only transaction,
//! printed as a table, or all of them written as CSV files.

use super::CommandError;
use super::Prepare;
use super::migration::{on_database, target};
use crate::workflow_args::InspectCommand;
use gateway::config::Config;
use pg::Client;
use workbench::inspect::{self, REPORTS, Report};

/// A report's column names and rows, every value as text (NULL as empty).
type Rows = (Vec<String>, Vec<Vec<String>>);

/// Runs one report in a read-only transaction; `pg_stat_statements` is found in its schema.
async fn run_report(c: &mut Client, r: &Report) -> Result<Rows, CommandError> {
    let managed: Vec<String> = workbench::advisors::MANAGED
        .iter()
        .map(|s| s.to_string())
        .collect();
    let tx = c.build_transaction().read_only(true).start().await?;
    if r.needs_statements() {
        let schema: Option<String> = tx
            .query_opt(
                "select n.nspname::text from pg_catalog.pg_extension e
                   join pg_catalog.pg_namespace n on n.oid = e.extnamespace
                  where e.extname = 'pg_stat_statements'",
                &[],
            )
            .await?
            .map(|row| row.get(0));
        let Some(schema) = schema else {
            return Err(CommandError::Message(format!(
                "{}: pg_stat_statements is not installed in this database (create extension \
                 pg_stat_statements with schema extensions)",
                r.name
            )));
        };
        tx.execute(
            "select pg_catalog.set_config('search_path', $1, true)",
            &[&format!("{}, pg_catalog", pg::quote_ident(&schema))],
        )
        .await?;
    }
    let stmt = tx
        .prepare(r.sql)
        .await
        .map_err(|e| CommandError::sql_in(r.name, None, e))?;
    let names: Vec<String> = stmt
        .columns()
        .iter()
        .map(|c| c.name().to_string())
        .collect();
    let rows = tx
        .query(&stmt, &[&managed])
        .await
        .map_err(|e| CommandError::sql_in(r.name, None, e))?
        .iter()
        .map(|row| {
            (0..row.len())
                .map(|i| row.get::<_, Option<String>>(i).unwrap_or_default())
                .collect()
        })
        .collect();
    tx.rollback().await?;
    Ok((names, rows))
}

pub async fn run(cfg: &Config, command: InspectCommand) -> Result<(), CommandError> {
    match command {
        InspectCommand::Db { report, target: t } => {
            let (r, notice) = inspect::find(&report)
                .ok_or_else(|| CommandError::Usage(format!("unknown report {report}")))?;
            if let Some(n) = notice {
                eprintln!("{n}");
            }
            let remote = target(cfg, t.db_url, t.linked)?;
            let mut out = (Vec::new(), Vec::new());
            on_database(cfg, remote, Prepare::UnlessRunning, async |c| {
                out = run_report(c, r).await?;
                Ok(())
            })
            .await?;
            print!("{}", workbench::report::table(r.columns, &out.1));
            Ok(())
        }
        InspectCommand::Report {
            output_dir,
            target: t,
        } => {
            let dir = output_dir.join(chrono::Local::now().format("%Y-%m-%d").to_string());
            std::fs::create_dir_all(&dir)
                .map_err(|e| CommandError::io(format!("failed to create {}", dir.display()), e))?;
            let remote = target(cfg, t.db_url, t.linked)?;
            eprintln!("Running queries...");
            on_database(cfg, remote, Prepare::UnlessRunning, async |c| {
                for r in REPORTS {
                    let (names, rows) = match run_report(c, r).await {
                        Ok(got) => got,
                        Err(e) if r.needs_statements() => {
                            eprintln!("WARN: skipped {e}");
                            continue;
                        }
                        Err(e) => return Err(e),
                    };
                    let header: Vec<&str> = names.iter().map(String::as_str).collect();
                    let path = dir.join(format!("{}.csv", r.file));
                    std::fs::write(&path, workbench::report::csv(&header, &rows)).map_err(|e| {
                        CommandError::io(format!("failed to write {}", path.display()), e)
                    })?;
                }
                Ok(())
            })
            .await?;
            eprintln!("Reports saved to {}", dir.display());
            Ok(())
        }
    }
}
