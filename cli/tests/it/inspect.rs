//! `inspect db <report>` as tables and `inspect report` as CSV files, on a project with a
//! table, an index, a lock held by one session and a second session waiting on it.

use crate::support;

use std::process::Output;
use std::time::{Duration, Instant};

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// The table's header cells and its rows' cells.
fn table(out: &Output) -> (Vec<String>, Vec<Vec<String>>) {
    assert!(out.status.success(), "{}", text(out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let mut lines = stdout.lines();
    let cells = |l: &str| {
        l.split('|')
            .map(|c| c.trim().to_string())
            .collect::<Vec<_>>()
    };
    let header = cells(lines.next().expect("a header"));
    let rule = lines.next().unwrap();
    assert!(rule.trim_start().starts_with("---"), "{stdout}");
    (header, lines.map(cells).collect())
}

const SCHEMA: &str = "
create extension if not exists pg_stat_statements with schema extensions;
create table public.items (id bigint primary key, name text);
create index items_name on public.items (name);
insert into public.items select g, 'item ' || g from generate_series(1, 500) g;
";

#[tokio::test]
async fn inspect_reports_as_tables_and_csv() {
    let dir = support::scratch_project(&[
        ("supabase/config.toml", "project_id = \"inspected\"\n"),
        ("supabase/migrations/20240101000000_items.sql", SCHEMA),
    ]);
    let gw = support::start_project(&dir, &[]);
    gw.sql("analyze public.items; select count(*) from public.items where name = 'item 7'")
        .await;

    // Sizes and counts.
    let (header, rows) = table(&gw.command(&dir, &["inspect", "db", "table-stats"]));
    assert_eq!(
        header,
        [
            "Name",
            "Table size",
            "Index size",
            "Total size",
            "Estimated row count",
            "Seq scans"
        ]
    );
    let items = rows
        .iter()
        .find(|r| r[0] == "public.items")
        .unwrap_or_else(|| panic!("{rows:?}"));
    assert_eq!(items[4], "500");
    assert!(
        rows.iter()
            .all(|r| !r[0].starts_with("auth.") && !r[0].starts_with("storage.")),
        "managed schemas are left out: {rows:?}"
    );
    let (header, rows) = table(&gw.command(&dir, &["inspect", "db", "index-stats"]));
    assert_eq!(header[0], "Name");
    assert!(rows.iter().any(|r| r[0] == "public.items_name"), "{rows:?}");
    let (header, rows) = table(&gw.command(&dir, &["inspect", "db", "db-stats"]));
    assert_eq!(header[1], "Database Size");
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0][0], "postgres");
    // A deprecated name runs its replacement and says so.
    let out = gw.command(&dir, &["inspect", "db", "table-record-counts"]);
    assert!(
        text(&out).contains(
            "Command \"table-record-counts\" is deprecated, use \"table-stats\" instead."
        ),
        "{}",
        text(&out)
    );
    assert_eq!(table(&out).0[4], "Estimated row count");
    // Every name runs (the deprecated ones run their replacements).
    for name in workbench::inspect::names() {
        let out = gw.command(&dir, &["inspect", "db", name]);
        assert!(out.status.success(), "{name}: {}", text(&out));
    }
    let out = gw.command(&dir, &["inspect", "db", "nope"]);
    assert!(!out.status.success() && text(&out).contains("invalid value 'nope'"));
    // pg_stat_statements' reports.
    let (header, rows) = table(&gw.command(&dir, &["inspect", "db", "calls"]));
    assert_eq!(header[0], "Query");
    assert!(!rows.is_empty());

    // One session holds a lock, another waits on it.
    let holder = gw.session_on(&gw.dbname).await;
    holder
        .batch_execute("begin; lock table public.items in access exclusive mode")
        .await
        .unwrap();
    let waiter = gw.session_on(&gw.dbname).await;
    let waiting = tokio::spawn(async move {
        waiter
            .simple_query("select count(*) from public.items")
            .await
            .map(|_| ())
    });
    let t0 = Instant::now();
    let (header, rows) = loop {
        let got = table(&gw.command(&dir, &["inspect", "db", "blocking"]));
        if !got.1.is_empty() || t0.elapsed() > Duration::from_secs(10) {
            break got;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(header[0], "blocked pid");
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(
        rows[0][1],
        "begin; lock table public.items in access exclusive mode"
    );
    assert_eq!(rows[0][4], "select count(*) from public.items");
    let (_, rows) = table(&gw.command(&dir, &["inspect", "db", "locks"]));
    assert!(
        rows.iter().any(|r| r[1] == "items" && r[3] == "true"),
        "{rows:?}"
    );
    holder.batch_execute("commit").await.unwrap();
    waiting.await.unwrap().unwrap();

    // Every report as a CSV file, in a folder of the day.
    let out_dir = support::scratch_dir("inspect-report");
    let out = gw.command(
        &dir,
        &[
            "inspect",
            "report",
            "--output-dir",
            out_dir.to_str().unwrap(),
        ],
    );
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("Reports saved to "), "{}", text(&out));
    let day = out_dir.join(chrono::Local::now().format("%Y-%m-%d").to_string());
    let mut files: Vec<String> = std::fs::read_dir(&day)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            "bloat.csv",
            "blocking.csv",
            "calls.csv",
            "db_stats.csv",
            "index_stats.csv",
            "locks.csv",
            "long_running_queries.csv",
            "outliers.csv",
            "replication_slots.csv",
            "role_stats.csv",
            "table_stats.csv",
            "traffic_profile.csv",
            "vacuum_stats.csv",
        ]
    );
    let csv = std::fs::read_to_string(day.join("table_stats.csv")).unwrap();
    assert!(
        csv.starts_with("name,table_size,index_size,total_size,estimated_row_count,seq_scans\n"),
        "{csv}"
    );
    assert!(csv.contains("\npublic.items,"), "{csv}");
    let slots = std::fs::read_to_string(day.join("replication_slots.csv")).unwrap();
    assert!(slots.starts_with("slot_name,active,state,"), "{slots}");
    gw.stop();
}
