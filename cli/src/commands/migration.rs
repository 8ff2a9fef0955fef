//! `migration list | up | repair | squash`, as the Supabase CLI's: the local migration files
//! against a database's `supabase_migrations.schema_migrations` (the local database, or
//! `--db-url`'s). The table, version checks and prompt answers are pure functions below; the
//! database work is `pg::migrate`'s.

use super::CommandError;
use super::{Prepare, with_database};
use crate::args::RepairStatus;
use gateway::config::Config;
use pg::migrate::{project as history, shadow};
use pg::{Client, Login, connect};
use project::Migration;
use schema_diff::Scope;
use std::io::BufRead;

/// The database a migration command works on: `--db-url`'s, the linked project's, or (the
/// default) the local one.
pub fn target(
    cfg: &Config,
    db_url: Option<String>,
    linked: bool,
) -> Result<Option<Login>, CommandError> {
    let url = if linked {
        Some(super::diff::linked_url(&cfg.project)?)
    } else {
        db_url
    };
    url.map(|u| Login::parse(&u).map_err(CommandError::DbUrl))
        .transpose()
}

/// Runs `f` on a session of the target database: `remote`'s, else the local one, brought up to
/// date first as `prepare` says (`Prepare::Never` for the history commands, which look at it as
/// it is; `Prepare::UnlessRunning` for `db advisors`, `db query` and `inspect`).
pub async fn on_database<F>(
    cfg: &Config,
    remote: Option<Login>,
    prepare: Prepare,
    f: F,
) -> Result<(), CommandError>
where
    F: AsyncFnOnce(&mut Client) -> Result<(), CommandError>,
{
    match remote {
        Some(login) => {
            let mut c = connect(&login).await?;
            f(&mut c).await
        }
        None => {
            with_database(cfg, prepare, async move |db| {
                let mut c = connect(&db.admin).await?;
                f(&mut c).await
            })
            .await
        }
    }
}

/// `20240101123456` as the CLI shows it, `2024-01-01 12:34:56`; a version that is not such a
/// timestamp as it is.
pub fn version_time(v: &str) -> String {
    match chrono::NaiveDateTime::parse_from_str(v, "%Y%m%d%H%M%S") {
        Ok(t) if v.len() == 14 => t.format("%Y-%m-%d %H:%M:%S").to_string(),
        _ => v.to_string(),
    }
}

/// The rows of `migration list`, oldest first: (local, remote) versions side by side, matched
/// as the CLI matches them (versions compared as numbers; one that is not a number is left out).
pub fn list_rows(local: &[String], remote: &[String]) -> Vec<(String, String)> {
    let number = |v: &String| v.parse::<i64>().ok().map(|n| (n, v.clone()));
    let local: Vec<(i64, String)> = local.iter().filter_map(number).collect();
    let remote: Vec<(i64, String)> = remote.iter().filter_map(number).collect();
    let (mut i, mut j) = (0, 0);
    let mut rows = Vec::new();
    while i < remote.len() || j < local.len() {
        let r = remote.get(i).map_or(i64::MAX, |x| x.0);
        let l = local.get(j).map_or(i64::MAX, |x| x.0);
        if l < r {
            rows.push((local[j].1.clone(), String::new()));
            j += 1;
        } else if r < l {
            rows.push((String::new(), remote[i].1.clone()));
            i += 1;
        } else {
            rows.push((local[j].1.clone(), remote[i].1.clone()));
            i += 1;
            j += 1;
        }
    }
    rows
}

/// The table `migration list` prints: the CLI's `Local | Remote | Time (UTC)` columns, laid out
/// as its plain-text renderer lays them out.
pub fn render_list(rows: &[(String, String)]) -> String {
    let mut cells = vec![[
        "Local".to_string(),
        "Remote".to_string(),
        "Time (UTC)".to_string(),
    ]];
    for (l, r) in rows {
        let v = if r.is_empty() { l } else { r };
        cells.push([l.clone(), r.clone(), version_time(v)]);
    }
    let width: Vec<usize> = (0..3)
        .map(|c| {
            cells
                .iter()
                .map(|row| row[c].chars().count())
                .max()
                .unwrap_or(0)
                + 2
        })
        .collect();
    let line = |row: &[String; 3]| {
        let parts: Vec<String> = (0..3)
            .map(|c| format!(" {:<w$}", row[c], w = width[c] - 1))
            .collect();
        format!("  {}\n", parts.join("|"))
    };
    let mut out = String::from("\n");
    out += &line(&cells[0]);
    let rule: Vec<String> = width.iter().map(|w| "-".repeat(*w)).collect();
    out += &format!("  {}\n", rule.join("|"));
    for row in &cells[1..] {
        out += &line(row);
    }
    out.push('\n');
    out
}

/// Versions given on the command line must be numbers, as the CLI checks them.
pub fn check_versions(versions: &[String]) -> Result<(), CommandError> {
    for v in versions {
        if v.is_empty() || v.len() > 18 || v.parse::<i64>().is_err() {
            return Err(CommandError::Usage(format!(
                "failed to parse {v}: invalid version number"
            )));
        }
    }
    Ok(())
}

/// The local migration of `version`, as the CLI finds it (`<version>_*.sql`).
fn local_migration<'a>(
    migrations: &'a [Migration],
    version: &str,
) -> Result<&'a Migration, CommandError> {
    migrations
        .iter()
        .find(|m| m.version == version)
        .ok_or_else(|| {
            CommandError::Message(format!(
                "glob supabase/migrations/{version}_*.sql: file does not exist"
            ))
        })
}

fn local_migrations(cfg: &Config) -> Result<Vec<Migration>, CommandError> {
    let (migrations, skipped) = cfg.project.migrations()?;
    for s in skipped {
        eprintln!("{s}");
    }
    Ok(migrations)
}

/// A yes/no answer read from standard input (`default` for an empty line or none).
pub fn answer(line: Option<&str>, default: bool) -> bool {
    match line.map(|l| l.trim().to_ascii_lowercase()) {
        Some(l) if l == "y" || l == "yes" => true,
        Some(l) if l == "n" || l == "no" => false,
        _ => default,
    }
}

pub fn prompt(question: &str, default: bool) -> bool {
    let hint = if default { "[Y/n]" } else { "[y/N]" };
    eprint!("{question} {hint} ");
    let mut line = String::new();
    let read = std::io::stdin().lock().read_line(&mut line).unwrap_or(0);
    eprintln!();
    answer((read > 0).then_some(line.as_str()), default)
}

pub async fn list(cfg: &Config, remote: Option<Login>) -> Result<(), CommandError> {
    let local: Vec<String> = local_migrations(cfg)?
        .into_iter()
        .map(|m| m.version)
        .collect();
    on_database(cfg, remote, Prepare::Never, async |c| {
        let applied = history::applied_versions(c).await?;
        print!("{}", render_list(&list_rows(&local, &applied)));
        Ok(())
    })
    .await
}

pub async fn up(cfg: &Config, remote: Option<Login>) -> Result<(), CommandError> {
    match remote {
        None => with_database(cfg, Prepare::Always, async |_| Ok(())).await?,
        Some(login) => {
            let mut c = connect(&login).await?;
            let applied = history::apply_migrations(&mut c, &cfg.project).await?;
            for a in applied {
                eprintln!("Applying migration {a}...");
            }
        }
    }
    println!("Local database is up to date.");
    Ok(())
}

pub async fn repair(
    cfg: &Config,
    remote: Option<Login>,
    status: RepairStatus,
    versions: Vec<String>,
) -> Result<(), CommandError> {
    check_versions(&versions)?;
    let local = local_migrations(cfg)?;
    let all = versions.is_empty();
    if all
        && !prompt(
            "Do you want to repair the entire migration history table to match local migration files?",
            false,
        )
    {
        return Err(CommandError::Canceled);
    }
    let versions: Vec<String> = if all {
        local.iter().map(|m| m.version.clone()).collect()
    } else {
        versions
    };
    // Every file is found before anything is written.
    let files: Vec<&Migration> = match status {
        RepairStatus::Applied => versions
            .iter()
            .map(|v| local_migration(&local, v))
            .collect::<Result<_, _>>()?,
        RepairStatus::Reverted => Vec::new(),
    };
    let what = match status {
        RepairStatus::Applied => history::Repair::Applied(&files),
        RepairStatus::Reverted => history::Repair::Reverted(&versions),
    };
    on_database(cfg, remote, Prepare::Never, async |c| {
        history::repair(c, all, what)
            .await
            .map_err(|e| CommandError::other("failed to update migration table", e))
    })
    .await?;
    if !all {
        eprintln!(
            "Repaired migration history: [{}] => {}",
            versions.join(" "),
            status_name(status)
        );
    }
    println!("Finished supagate migration repair.");
    eprintln!("Run supagate migration list to show the updated migration history.");
    Ok(())
}

fn status_name(s: RepairStatus) -> &'static str {
    match s {
        RepairStatus::Applied => "applied",
        RepairStatus::Reverted => "reverted",
    }
}

/// The migrations `squash` merges: those up to `version` (all without one).
pub fn squashed<'a>(
    migrations: &'a [Migration],
    version: Option<&str>,
) -> Result<&'a [Migration], CommandError> {
    let end = match version {
        None => migrations.len(),
        Some(v) => {
            check_versions(&[v.to_string()])
                .map_err(|_| CommandError::Usage("invalid version number".into()))?;
            local_migration(migrations, v)?;
            migrations
                .iter()
                .take_while(|m| m.version.as_str() <= v)
                .count()
        }
    };
    if end == 0 {
        return Err(CommandError::Usage("version not found".into()));
    }
    Ok(&migrations[..end])
}

pub async fn squash(
    cfg: &Config,
    remote: Option<Login>,
    version: Option<String>,
) -> Result<(), CommandError> {
    let local = local_migrations(cfg)?;
    let merged = squashed(&local, version.as_deref())?;
    let last = merged.last().expect("squashed is never empty");
    if merged.len() == 1 {
        eprintln!("{} is already the earliest migration.", last.display);
        println!("Finished supagate migration squash.");
        return Ok(());
    }
    let keep_templates = cfg.embedded();
    let mut statements = Vec::new();
    with_database(cfg, Prepare::Never, async |db| {
        if keep_templates {
            shadow::sweep(db).await?;
        }
        let base = shadow::name("squash_base");
        let built = shadow::name("squash");
        let diffed = async {
            drop(shadow::platform_copy(&cfg.project, db, &base, keep_templates).await?);
            let mut c = shadow::platform_copy(&cfg.project, db, &built, keep_templates).await?;
            let files: Vec<(String, String)> = merged
                .iter()
                .map(|m| (m.display.clone(), m.sql.clone()))
                .collect();
            shadow::apply_files(&mut c, &files).await?;
            drop(c);
            let scope = Scope::named(&[]);
            let read = async |name: &str| {
                let c = connect(&db.admin_on(name)).await?;
                schema_diff::read(&c, &scope)
                    .await
                    .map_err(CommandError::from)
            };
            let from = read(&base).await?;
            let to = read(&built).await?;
            Ok::<_, CommandError>(schema_diff::diff(&from, &to))
        }
        .await;
        let mut removed = Ok(());
        for n in [&base, &built] {
            if let Err(e) = shadow::remove(db, n).await {
                removed = Err(CommandError::from(e));
            }
        }
        statements = diffed?;
        removed
    })
    .await?;
    let sql = if statements.is_empty() {
        String::new()
    } else {
        schema_diff::render(&statements)
    };
    let path = cfg.project.root.join(&last.display);
    std::fs::write(&path, sql)
        .map_err(|e| CommandError::io(format!("failed to write {}", last.display), e))?;
    eprintln!("Squashed local migrations to {}", last.display);
    for m in &merged[..merged.len() - 1] {
        if let Err(e) = std::fs::remove_file(cfg.project.root.join(&m.display)) {
            eprintln!("remove {}: {e}", m.display);
        }
    }
    match remote {
        Some(login) => {
            eprintln!("Baselining migration history to {}", last.version);
            let mut c = connect(&login).await?;
            history::ensure_history(&c).await?;
            // The file as it now is: the squashed statements are what the history records.
            let (now, _) = cfg.project.migrations()?;
            let m = local_migration(&now, &last.version)?;
            history::baseline(&mut c, m)
                .await
                .map_err(|e| CommandError::other("failed to update migration history", e))?;
        }
        None => eprintln!(
            "Run supagate migration repair --status applied to update your remote migration \
             history table."
        ),
    }
    println!("Finished supagate migration squash.");
    Ok(())
}

/// The file `migration fetch` writes for one recorded migration: its name and contents (the
/// statements, each ended by `;`, as the CLI joins them). A version or name that could not
/// name a file in supabase/migrations is refused.
pub fn fetched_file(
    version: &str,
    name: &str,
    statements: &[String],
) -> Result<(String, String), CommandError> {
    check_versions(&[version.to_string()]).map_err(|_| {
        CommandError::Message(format!(
            "the history holds {version:?}, which is not a version number"
        ))
    })?;
    if !name.is_empty() {
        project::Project::check_migration_name(name)?;
    }
    // The CLI records statements without their `;`; a history supagate wrote has them.
    let trimmed: Vec<&str> = statements
        .iter()
        .map(|s| s.trim().trim_end_matches(';').trim_end())
        .collect();
    Ok((
        format!("{version}_{name}.sql"),
        format!("{};\n", trimmed.join(";\n")),
    ))
}

/// `migration fetch`: the history table's migrations written as files.
pub async fn fetch(cfg: &Config, remote: Option<Login>) -> Result<(), CommandError> {
    let dir = cfg.project.migrations_dir();
    std::fs::create_dir_all(&dir).map_err(|e| {
        CommandError::io(
            format!("failed to create {}", cfg.project.relative(&dir)),
            e,
        )
    })?;
    let empty = std::fs::read_dir(&dir)
        .map_err(|e| CommandError::io("failed to read migrations", e))?
        .next()
        .is_none();
    if !empty
        && !prompt(
            &format!(
                "Do you want to overwrite existing files in {} directory?",
                cfg.project.relative(&dir)
            ),
            true,
        )
    {
        return Err(CommandError::Canceled);
    }
    let mut rows = Vec::new();
    on_database(cfg, remote, Prepare::Never, async |c| {
        rows = history::history(c).await?;
        Ok(())
    })
    .await?;
    // Every file is checked before any is written.
    let files: Vec<(String, String)> = rows
        .iter()
        .map(|(v, n, s)| fetched_file(v, n, s))
        .collect::<Result<_, _>>()?;
    for (file, sql) in &files {
        std::fs::write(dir.join(file), sql)
            .map_err(|e| CommandError::io("failed to write migration", e))?;
    }
    eprintln!(
        "Fetched {} migrations into {}.",
        files.len(),
        cfg.project.relative(&dir)
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn list_matches_versions_side_by_side() {
        let rows = list_rows(
            &v(&["20240101000000", "20240102000000", "x", "20240104000000"]),
            &v(&["20240101000000", "20240103000000", "20240104000000"]),
        );
        let want = [
            ("20240101000000", "20240101000000"),
            ("20240102000000", ""),
            ("", "20240103000000"),
            ("20240104000000", "20240104000000"),
        ];
        assert_eq!(rows.len(), want.len());
        for (got, want) in rows.iter().zip(want) {
            assert_eq!((got.0.as_str(), got.1.as_str()), want);
        }
    }

    #[test]
    fn list_renders_as_the_cli() {
        let out = render_list(&[
            ("20240101000000".into(), "20240101000000".into()),
            ("".into(), "7".into()),
        ]);
        let want = [
            "",
            "   Local          | Remote         | Time (UTC)          ",
            "  ----------------|----------------|---------------------",
            "   20240101000000 | 20240101000000 | 2024-01-01 00:00:00 ",
            "                  | 7              | 7                   ",
            "",
            "",
        ];
        assert_eq!(out, want.join("\n"));
    }

    #[test]
    fn versions_are_numbers() {
        assert!(check_versions(&v(&["20240101000000", "1"])).is_ok());
        for bad in ["abc", "", "2024-01-01", "99999999999999999999"] {
            assert_eq!(
                check_versions(&v(&[bad])).unwrap_err().to_string(),
                format!("failed to parse {bad}: invalid version number")
            );
        }
        assert_eq!(version_time("20241231235959"), "2024-12-31 23:59:59");
        assert_eq!(version_time("20241399000000"), "20241399000000");
    }

    #[test]
    fn fetched_files() {
        assert_eq!(
            fetched_file(
                "20240101000000",
                "notes",
                &v(&["create table t (id int)", "select 1"])
            )
            .unwrap(),
            (
                "20240101000000_notes.sql".to_string(),
                "create table t (id int);\nselect 1;\n".to_string()
            )
        );
        assert_eq!(fetched_file("1", "", &[]).unwrap().0, "1_.sql");
        assert!(fetched_file("../1", "x", &[]).is_err());
        assert!(fetched_file("1", "../../etc/x", &[]).is_err());
    }

    #[test]
    fn answers() {
        assert!(answer(Some("y\n"), false));
        assert!(answer(Some("YES"), false));
        assert!(!answer(Some("n"), true));
        assert!(answer(None, true));
        assert!(!answer(Some("\n"), false));
    }

    fn m(version: &str) -> Migration {
        Migration {
            version: version.into(),
            name: "x".into(),
            display: format!("supabase/migrations/{version}_x.sql"),
            sql: String::new(),
            statements: Vec::new(),
        }
    }

    #[test]
    fn squash_takes_the_migrations_up_to_the_version() {
        let all = [m("1"), m("2"), m("3")];
        assert_eq!(squashed(&all, None).unwrap().len(), 3);
        assert_eq!(squashed(&all, Some("2")).unwrap().len(), 2);
        assert!(
            squashed(&all, Some("4"))
                .unwrap_err()
                .to_string()
                .contains("file does not exist")
        );
        assert_eq!(
            squashed(&all, Some("x")).unwrap_err().to_string(),
            "invalid version number"
        );
        assert_eq!(
            squashed(&[], None).unwrap_err().to_string(),
            "version not found"
        );
    }
}
