//! `db advisors`, as the Supabase CLI's: the dashboard's lints (`workbench::advisors`, splinter's
//! names and levels) run against the local database or `--db-url`'s, in one read-only
//! transaction, printed as the CLI's JSON (or a table), `--fail-on` for CI.

use super::CommandError;
use super::Prepare;
use super::migration::{on_database, target};
use crate::workflow_args::AdvisorsArgs;
use gateway::config::Config;
use pg::Client;
use workbench::advisors::{self, Lint, Needs};

/// Every rule of `kind` on `c`, in one read-only transaction. A rule that needs anonymous
/// sign-ins runs when `anonymous` (the project's `[auth] enable_anonymous_sign_ins`), one that
/// needs a relation when the database has it.
async fn check(
    c: &mut Client,
    kind: &str,
    exposed: &[String],
    anonymous: bool,
) -> Result<Vec<Lint>, CommandError> {
    let managed: Vec<String> = advisors::MANAGED.iter().map(|s| s.to_string()).collect();
    let tx = c
        .build_transaction()
        .read_only(true)
        .start()
        .await
        .map_err(|e| CommandError::query("failed to begin transaction", e))?;
    tx.batch_execute("set local search_path = ''")
        .await
        .map_err(|e| CommandError::query("failed to prepare lint session", e))?;
    let mut lints = Vec::new();
    for rule in advisors::rules_of(kind) {
        let wanted = match rule.needs {
            Needs::Nothing => true,
            Needs::AnonymousSignIns => anonymous,
            Needs::Relation(name) => tx
                .query_one("select pg_catalog.to_regclass($1) is not null", &[&name])
                .await
                .map_err(|e| {
                    CommandError::query(format!("failed to query lints ({})", rule.name), e)
                })?
                .get(0),
        };
        if !wanted {
            continue;
        }
        let rows = tx
            .query(rule.sql, &[&exposed, &managed])
            .await
            .map_err(|e| {
                CommandError::sql_in(
                    format!("failed to query lints ({})", rule.name),
                    Some(rule.sql),
                    e,
                )
            })?;
        for r in rows {
            let meta: Option<String> = r.get(1);
            let level: Option<String> = if r.len() > 3 { r.get(3) } else { None };
            lints.push(Lint::of(rule, r.get(0), meta.as_deref(), r.get(2)).at(level));
        }
    }
    tx.rollback().await?;
    Ok(lints)
}

pub async fn run(cfg: &Config, a: AdvisorsArgs) -> Result<(), CommandError> {
    let remote = target(cfg, a.target.db_url, a.target.linked)?;
    let mut lints = Vec::new();
    on_database(cfg, remote, Prepare::UnlessRunning, async |c| {
        lints = check(c, &a.kind, &cfg.schemas, cfg.auth.enable_anonymous_sign_ins).await?;
        Ok(())
    })
    .await?;
    let lints = advisors::at_least(lints, &a.level);
    if lints.is_empty() {
        eprintln!("No issues found");
        return Ok(());
    }
    match a.output.as_str() {
        "table" => print!("{}", advisors::table(&lints)),
        _ => println!("{}", serde_json::to_string_pretty(&lints)?),
    }
    match advisors::failure(&lints, &a.fail_on) {
        Some(e) => Err(CommandError::Message(e)),
        None => Ok(()),
    }
}
