//! `db lint`, as the Supabase CLI's: plpgsql_check over every PL/pgSQL function of the project's
//! schemas (in a transaction that is rolled back: the extension is only there for the check),
//! the issues filtered by `--level` and printed as the CLI's JSON, `--fail-on` for CI. Reading
//! plpgsql_check's JSON, filtering and printing are pure; the queries run at the edge.

use super::CommandError;
use super::{Prepare, with_database};
use gateway::config::Config;
use pg::{Client, Login, connect};
use serde_json::Value;

/// The levels `--level` and `--fail-on` name, least severe first.
pub const LEVELS: [&str; 2] = ["warning", "error"];

/// Schemas that are never linted unless named (LIKE patterns, the CLI's list).
const MANAGED: &[&str] = &[
    "information\\_schema",
    "pg\\_%",
    "\\_analytics",
    "\\_realtime",
    "\\_supavisor",
    "pgbouncer",
    "pgmq",
    "pgsodium",
    "pgtle",
    "supabase\\_migrations",
    "vault",
    "supagate",
];

/// An issue's rank among `LEVELS` (`warning extra` is a warning); `None` for other levels
/// (`performance`, `security`), which no `--level` shows.
pub fn rank(level: &str) -> Option<usize> {
    LEVELS.iter().position(|l| level.starts_with(l))
}

/// One function's issues: `schema.name` and plpgsql_check's issue objects.
#[derive(Debug, Clone, PartialEq)]
pub struct Linted {
    pub function: String,
    pub issues: Vec<Value>,
}

/// plpgsql_check's JSON report of one function (`{"issues": [...]}`).
pub fn parse(function: String, report: &str) -> Result<Linted, CommandError> {
    let v: Value = serde_json::from_str(report).map_err(|e| {
        CommandError::other(
            format!("failed to read plpgsql_check's report of {function}"),
            e,
        )
    })?;
    let issues = v
        .get("issues")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    Ok(Linted { function, issues })
}

fn level_of(issue: &Value) -> &str {
    issue.get("level").and_then(Value::as_str).unwrap_or("")
}

/// The functions with issues at `min` or above, those issues only.
pub fn filter(results: &[Linted], min: usize) -> Vec<Linted> {
    results
        .iter()
        .filter_map(|r| {
            let issues: Vec<Value> = r
                .issues
                .iter()
                .filter(|i| rank(level_of(i)).is_some_and(|l| l >= min))
                .cloned()
                .collect();
            (!issues.is_empty()).then(|| Linted {
                function: r.function.clone(),
                issues,
            })
        })
        .collect()
}

/// A JSON string as Go's encoder writes it (`<`, `>` and `&` escaped).
fn json_string(s: &str) -> String {
    serde_json::to_string(s)
        .unwrap_or_default()
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
}

/// A scalar as a string (plpgsql_check's line numbers and positions are strings already).
fn text_of(v: &Value) -> Option<String> {
    match v {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// The report as the CLI prints it: the fields in its order, two-space indents.
pub fn render(results: &[Linted]) -> String {
    let mut out = String::from("[\n");
    for (i, r) in results.iter().enumerate() {
        out += &format!(
            "  {{\n    \"function\": {},\n    \"issues\": [\n",
            json_string(&r.function)
        );
        for (j, issue) in r.issues.iter().enumerate() {
            let mut fields: Vec<String> = Vec::new();
            for key in ["level", "message"] {
                let v = issue.get(key).and_then(text_of).unwrap_or_default();
                fields.push(format!("        \"{key}\": {}", json_string(&v)));
            }
            for (key, inner) in [
                ("statement", ["lineNumber", "text"]),
                ("query", ["position", "text"]),
            ] {
                if let Some(obj) = issue.get(key).filter(|o| o.is_object()) {
                    let parts: Vec<String> = inner
                        .iter()
                        .map(|k| {
                            let v = obj.get(*k).and_then(text_of).unwrap_or_default();
                            format!("          \"{k}\": {}", json_string(&v))
                        })
                        .collect();
                    fields.push(format!(
                        "        \"{key}\": {{\n{}\n        }}",
                        parts.join(",\n")
                    ));
                }
            }
            for key in ["hint", "detail", "context", "sqlState"] {
                if let Some(v) = issue.get(key).and_then(text_of) {
                    fields.push(format!("        \"{key}\": {}", json_string(&v)));
                }
            }
            out += &format!("      {{\n{}\n      }}", fields.join(",\n"));
            out += if j + 1 < r.issues.len() { ",\n" } else { "\n" };
        }
        out += "    ]\n  }";
        out += if i + 1 < results.len() { ",\n" } else { "\n" };
    }
    out += "]\n";
    out
}

/// The level that makes the command fail, if any issue reaches it.
pub fn failing(results: &[Linted], fail_on: Option<usize>) -> Option<&'static str> {
    let f = fail_on?;
    results
        .iter()
        .flat_map(|r| &r.issues)
        .any(|i| rank(level_of(i)).is_some_and(|l| l >= f))
        .then_some(LEVELS[f])
}

async fn lint_on(c: &mut Client, schemas: &[String]) -> Result<Vec<Linted>, CommandError> {
    let tx = c.transaction().await?;
    let schemas: Vec<String> = if schemas.is_empty() {
        let managed: Vec<&str> = MANAGED.to_vec();
        tx.query(
            "SELECT n.nspname::text FROM pg_namespace n
               LEFT JOIN pg_depend d ON d.objid = n.oid
              WHERE d.deptype IS NULL AND NOT n.nspname LIKE ANY($1)
                AND n.nspowner::regrole::text <> 'supabase_admin'
              ORDER BY 1",
            &[&managed],
        )
        .await
        .map_err(|e| CommandError::query("failed to list schemas", e))?
        .iter()
        .map(|r| r.get(0))
        .collect()
    } else {
        schemas.to_vec()
    };
    tx.batch_execute("CREATE EXTENSION IF NOT EXISTS plpgsql_check")
        .await
        .map_err(|e| CommandError::query("failed to enable pgsql_check", e))?;
    let mut results = Vec::new();
    for s in &schemas {
        eprintln!("Linting schema: {s}");
        let rows = tx
            .query(
                "SELECT p.proname::text, string_agg(r, E'\\n')
                   FROM pg_catalog.pg_namespace n
                   JOIN pg_catalog.pg_proc p ON p.pronamespace = n.oid
                   JOIN pg_catalog.pg_language l ON p.prolang = l.oid,
                        LATERAL plpgsql_check_function(p.oid, format := 'json') r
                  WHERE l.lanname = 'plpgsql' AND p.prorettype <> 2279 AND n.nspname = $1::text
                  GROUP BY p.oid, p.proname ORDER BY p.proname, p.oid",
                &[s],
            )
            .await
            .map_err(|e| CommandError::query("failed to query rows", e))?;
        for r in rows {
            let name: String = r.get(0);
            let report: String = r.get(1);
            results.push(parse(format!("{s}.{name}"), &report)?);
        }
    }
    // Lint has no side effects: the extension goes with the transaction.
    tx.rollback().await?;
    Ok(results)
}

/// Runs `db lint`; `level` and `fail_on` are indexes into `LEVELS`.
pub async fn run(
    cfg: &Config,
    remote: Option<Login>,
    schemas: Vec<String>,
    level: usize,
    fail_on: Option<usize>,
) -> Result<(), CommandError> {
    let results = match remote {
        Some(login) => lint_on(&mut connect(&login).await?, &schemas).await?,
        None => {
            let mut got = Vec::new();
            with_database(cfg, Prepare::UnlessRunning, async |db| {
                got = lint_on(&mut connect(&db.admin).await?, &schemas).await?;
                Ok(())
            })
            .await?;
            got
        }
    };
    let shown = filter(&results, level);
    if shown.is_empty() {
        eprintln!("\nNo schema errors found");
        return Ok(());
    }
    print!("{}", render(&shown));
    match failing(&shown, fail_on) {
        Some(l) => Err(CommandError::Message(format!(
            "fail-on is set to {l}, non-zero exit"
        ))),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<Linted> {
        vec![
            parse(
                "public.f".into(),
                r#"{ "issues":[
                  {"level":"error","message":"column \"nope\" does not exist",
                   "statement":{"lineNumber":"3","text":"RETURN"},
                   "query":{"position":"8","text":"SELECT nope < 1"},
                   "context":"PL/pgSQL function","sqlState":"42703"},
                  {"level":"warning extra","message":"never read variable \"x\"","sqlState":"00000"},
                  {"level":"performance","message":"p"}]}"#,
            )
            .unwrap(),
            parse("public.g".into(), r#"{"issues":[]}"#).unwrap(),
        ]
    }

    #[test]
    fn levels_filter_and_fail() {
        assert_eq!(rank("warning extra"), Some(0));
        assert_eq!(rank("error"), Some(1));
        assert_eq!(rank("performance"), None);
        let all = sample();
        let warnings = filter(&all, 0);
        assert_eq!(warnings.len(), 1);
        assert_eq!(warnings[0].issues.len(), 2);
        assert_eq!(filter(&all, 1)[0].issues.len(), 1);
        assert_eq!(failing(&warnings, Some(1)), Some("error"));
        assert_eq!(failing(&warnings, None), None);
        let only_warning = filter(
            &[parse(
                "s.f".into(),
                r#"{"issues":[{"level":"warning","message":"m"}]}"#,
            )
            .unwrap()],
            0,
        );
        assert_eq!(failing(&only_warning, Some(1)), None);
        assert!(
            parse("s.f".into(), "not json")
                .unwrap_err()
                .to_string()
                .contains("s.f")
        );
    }

    #[test]
    fn renders_as_the_clis_json() {
        let out = render(&filter(&sample(), 1));
        assert_eq!(
            out,
            r#"[
  {
    "function": "public.f",
    "issues": [
      {
        "level": "error",
        "message": "column \"nope\" does not exist",
        "statement": {
          "lineNumber": "3",
          "text": "RETURN"
        },
        "query": {
          "position": "8",
          "text": "SELECT nope \u003c 1"
        },
        "context": "PL/pgSQL function",
        "sqlState": "42703"
      }
    ]
  }
]
"#
        );
        let parsed: Value = serde_json::from_str(&render(&filter(&sample(), 0))).unwrap();
        assert_eq!(parsed[0]["issues"][1]["level"], "warning extra");
    }
}
