//! supagate's pg_cron 1.6 (extensions/pg_cron--1.6.sql, run by workers/src/cron): a project
//! whose migration creates pg_cron and schedules jobs gets them run by the gateway, second
//! schedules included, each run recorded as pg_cron records it; a job never runs twice at once;
//! unscheduled jobs stop; users see and change only their own jobs; the extension's schedule
//! check agrees with the runner's parser; `db diff` rebuilds the migrations in a database of
//! its own and `db reset` needs no restart for the jobs to run again; jobs keep the workbench's
//! clock.

use crate::support::{self, Api, Gateway};
use std::time::{Duration, Instant};

const MIGRATION: &str = "
create extension if not exists pg_cron;
create table public.ticks (n int, who text default current_user, at timestamptz default clock_timestamp());
select cron.schedule('tick', '1 seconds', 'insert into public.ticks (n) values (1)');
select cron.schedule('broken', '1 seconds', 'select * from public.nope');
select cron.schedule('slow', '1 seconds', 'select pg_sleep(2)');
select cron.schedule('daily', '0 3 * * *', 'select 1');
";

async fn one(gw: &Gateway, sql: &str) -> String {
    gw.sql(sql).await[0][0].clone().unwrap_or_default()
}

/// Waits (at most `limit`) until `sql`'s first value is `true`.
async fn until(gw: &Gateway, sql: &str, limit: Duration) {
    let t0 = Instant::now();
    while one(gw, sql).await != "t" {
        assert!(t0.elapsed() < limit, "not within {limit:?}: {sql}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn session_as(gw: &Gateway, user: &str) -> tokio_postgres::Client {
    let mut cfg = tokio_postgres::Config::new();
    cfg.host_path(&gw.socket_dir)
        .port(5432)
        .user(user)
        .dbname(&gw.dbname);
    let (client, conn) = cfg.connect(tokio_postgres::NoTls).await.expect("connect");
    tokio::spawn(conn);
    client
}

async fn error_of(c: &tokio_postgres::Client, sql: &str) -> (String, Option<String>) {
    let e = c.simple_query(sql).await.expect_err(sql);
    let db = e.as_db_error().expect("a database error");
    (db.message().to_string(), db.hint().map(str::to_string))
}

#[tokio::test]
async fn scheduled_jobs_run_as_pg_cron_runs_them() {
    let dir =
        support::scratch_project(&[("supabase/migrations/20240101000000_cron.sql", MIGRATION)]);
    let gw = support::start_project(&dir, &[]);
    let limit = Duration::from_secs(20);

    // '1 seconds' jobs run, and each run is recorded with pg_cron's status and message.
    until(&gw, "select count(*) >= 2 from public.ticks", limit).await;
    until(
        &gw,
        "select count(*) > 0 from cron.job_run_details d join cron.job j using (jobid)
         where j.jobname = 'broken' and d.status = 'failed'",
        limit,
    )
    .await;
    let rows = gw
        .sql(
            "select j.jobname, d.status, d.return_message, d.username, d.database = current_database(),
                    d.job_pid is not null, d.start_time <= d.end_time
             from cron.job_run_details d join cron.job j using (jobid)
             where j.jobname in ('tick', 'broken') and d.status in ('succeeded', 'failed')
             order by d.runid",
        )
        .await;
    let first = |name: &str| rows.iter().find(|r| r[0].as_deref() == Some(name)).unwrap();
    let t = |s: &str| Some(s.to_string());
    assert_eq!(
        first("tick")[1..],
        [
            t("succeeded"),
            t("INSERT 0 1"),
            t("postgres"),
            t("t"),
            t("t"),
            t("t")
        ]
    );
    assert_eq!(
        first("broken")[1..3],
        [
            t("failed"),
            t("ERROR: relation \"public.nope\" does not exist")
        ]
    );
    assert_eq!(
        one(&gw, "select who from public.ticks limit 1").await,
        "postgres"
    );

    // The slow job (2 s on a 1 s schedule) never runs twice at once.
    until(
        &gw,
        "select count(*) >= 2 from cron.job_run_details d join cron.job j using (jobid)
         where j.jobname = 'slow' and d.status = 'succeeded'",
        limit,
    )
    .await;
    assert_eq!(
        one(
            &gw,
            "select count(*) from (
               select d.start_time, lag(d.end_time) over (order by d.runid) as before
               from cron.job_run_details d join cron.job j using (jobid)
               where j.jobname = 'slow' and d.status = 'succeeded') r
             where r.start_time < r.before"
        )
        .await,
        "0"
    );
    assert_eq!(
        one(
            &gw,
            "select return_message from cron.job_run_details d join cron.job j using (jobid)
             where j.jobname = 'slow' and d.status = 'succeeded' limit 1"
        )
        .await,
        "SELECT 1"
    );

    // Unscheduled, a job stops: once its last run ended and two more runs of another job were
    // recorded, no tick was added.
    assert_eq!(
        one(&gw, "select cron.unschedule('tick')::text").await,
        "true"
    );
    until(
        &gw,
        "select count(*) = 0 from cron.job_run_details where status in ('starting', 'running')
           and command like 'insert into public.ticks%'",
        limit,
    )
    .await;
    let ticks = one(&gw, "select count(*) from public.ticks").await;
    let broken = one(
        &gw,
        "select count(*) from cron.job_run_details where command = 'select * from public.nope'",
    )
    .await
    .parse::<i64>()
    .unwrap();
    until(
        &gw,
        &format!(
            "select count(*) >= {} from cron.job_run_details where command = 'select * from public.nope'",
            broken + 2
        ),
        limit,
    )
    .await;
    assert_eq!(one(&gw, "select count(*) from public.ticks").await, ticks);
    gw.sql("select cron.unschedule('broken'); select cron.unschedule('slow')")
        .await;

    // A user who may log in sees, runs and changes only their own jobs.
    gw.sql(
        "create role cron_user login;
         grant usage on schema cron to cron_user;
         grant insert on public.ticks to cron_user;",
    )
    .await;
    let user = session_as(&gw, "cron_user").await;
    let mine = user
        .query_one(
            "select cron.schedule('mine', '1 seconds', 'insert into public.ticks (n) values (2)')",
            &[],
        )
        .await
        .unwrap()
        .get::<_, i64>(0);
    until(
        &gw,
        "select count(*) > 0 from public.ticks where n = 2",
        limit,
    )
    .await;
    assert_eq!(
        one(&gw, "select who from public.ticks where n = 2 limit 1").await,
        "cron_user"
    );
    let seen: Vec<String> = user
        .query("select jobname from cron.job order by jobid", &[])
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(seen, ["mine"]);
    let runs: Vec<String> = user
        .query("select distinct username from cron.job_run_details", &[])
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(runs, ["cron_user"]);
    let daily = one(&gw, "select jobid from cron.job where jobname = 'daily'").await;
    assert_eq!(
        error_of(&user, &format!("select cron.unschedule({daily})"))
            .await
            .0,
        format!("could not find valid entry for job {daily}")
    );
    assert_eq!(
        error_of(&user, "select cron.schedule('x', 'nope', 'select 1')").await,
        (
            "invalid schedule: nope".to_string(),
            Some("Use cron format (e.g. 5 4 * * *), or interval format '[1-59] seconds'".into())
        )
    );
    assert_eq!(
        error_of(
            &user,
            "select cron.schedule_in_database('x', '* * * * *', 'select 1', 'postgres')"
        )
        .await
        .0,
        "permission denied for function schedule_in_database"
    );
    assert_eq!(
        error_of(&user, "select cron.unschedule('daily')").await.0,
        "could not find valid entry for job 'daily'"
    );
    // The superuser changes anyone's job; the user their own.
    gw.sql(&format!(
        "select cron.alter_job({mine}, schedule => '*/5 * * * *', active => false)"
    ))
    .await;
    assert_eq!(
        gw.sql(&format!(
            "select schedule, active::text, username from cron.job where jobid = {mine}"
        ))
        .await[0],
        [t("*/5 * * * *"), t("false"), t("cron_user")]
    );
    user.simple_query(&format!("select cron.unschedule({mine})"))
        .await
        .unwrap();
    assert_eq!(
        one(&gw, "select count(*) from cron.job where jobname = 'mine'").await,
        "0"
    );
    assert_eq!(
        error_of(
            &session_as(&gw, "postgres").await,
            "select cron.alter_job(12345, command => 'select 2')"
        )
        .await
        .0,
        "Job 12345 does not exist or you don't own it"
    );

    // db reset builds the database again from the migrations: their jobs run without a restart.
    let out = gw.command(&dir, &["db", "reset"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    until(&gw, "select count(*) >= 1 from public.ticks", limit).await;
    assert_eq!(
        one(&gw, "select count(*) from public.ticks where n = 2").await,
        "0"
    );

    // db diff builds the migrations again in a database of its own: pg_cron is created there too.
    std::fs::write(
        dir.join("supabase/migrations/20240101000001_more.sql"),
        "create table public.more (id int);",
    )
    .unwrap();
    let out = gw.command(&dir, &["db", "diff"]);
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("DROP TABLE \"public\".\"more\";"), "{text}");
    // Its database's jobs are not run: only the served database's are.
    assert_eq!(
        one(
            &gw,
            "select count(*) from cron.job_run_details where database <> current_database()"
        )
        .await,
        "0"
    );
}

/// The scheduler keeps the clock the workbench sets: a nightly job runs when that clock says.
#[tokio::test]
async fn jobs_follow_the_workbench_clock() {
    let dir = support::scratch_project(&[(
        "supabase/migrations/20240101000000_cron.sql",
        "create extension if not exists pg_cron;
         create table public.runs (at timestamptz default now());
         select cron.schedule('nightly', '0 3 * * *', 'insert into public.runs default values');",
    )]);
    let gw = support::start_project(&dir, &[]);
    let now = chrono::Utc::now();
    let mut next = now.date_naive().and_hms_opt(3, 0, 0).unwrap().and_utc();
    if next <= now + chrono::Duration::seconds(30) {
        next += chrono::Duration::days(1);
    }
    let offset = (next - now).num_seconds() - 3;
    let body = serde_json::json!({ "offset_seconds": offset }).to_string();
    let r = Api::service(&gw)
        .send("PUT", "/_supagate/v1/clock", &[], Some(&body))
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    until(
        &gw,
        "select count(*) = 1 from public.runs",
        Duration::from_secs(20),
    )
    .await;
    assert_eq!(
        one(
            &gw,
            "select status || ' ' || return_message from cron.job_run_details"
        )
        .await,
        "succeeded INSERT 0 1"
    );
}

/// A branch is a copy of the project's database: its jobs do not run (their rows name the
/// project's database), and the project's go on, as they do after a snapshot is put back, with
/// no restart of the cluster.
#[tokio::test]
async fn branches_and_snapshots_leave_the_projects_jobs_running() {
    let dir = support::scratch_project(&[(
        "supabase/migrations/20240101000000_cron.sql",
        "create extension if not exists pg_cron;
         create table public.ticks (at timestamptz default clock_timestamp());
         select cron.schedule('tick', '1 seconds', 'insert into public.ticks default values');",
    )]);
    let gw = support::start_project(&dir, &[]);
    let limit = Duration::from_secs(20);
    until(&gw, "select count(*) >= 1 from public.ticks", limit).await;
    let r = Api::service(&gw)
        .send(
            "POST",
            "/_supagate/v1/branches",
            &[],
            Some(r#"{"name":"b1"}"#),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    let branch = gw.session_on("supagate_branch_b1").await;
    let count = async |sql: &str| -> i64 { branch.query_one(sql, &[]).await.unwrap().get(0) };
    let runs = count("select count(*) from cron.job_run_details").await;
    let ticks = count("select count(*) from public.ticks").await;
    let main: i64 = one(&gw, "select count(*) from public.ticks")
        .await
        .parse()
        .unwrap();
    until(
        &gw,
        &format!("select count(*) >= {} from public.ticks", main + 2),
        limit,
    )
    .await;
    assert_eq!(
        count("select count(*) from cron.job_run_details").await,
        runs
    );
    assert_eq!(count("select count(*) from public.ticks").await, ticks);

    let out = gw.command(&dir, &["snapshot", "save", "s1"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let saved: i64 = one(&gw, "select count(*) from public.ticks")
        .await
        .parse()
        .unwrap();
    let out = gw.command(&dir, &["snapshot", "restore", "s1"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    until(
        &gw,
        &format!("select count(*) >= {} from public.ticks", saved + 2),
        limit,
    )
    .await;
}

/// The extension's check of a schedule (at `cron.schedule`) and the runner's parser agree.
#[tokio::test]
async fn the_extension_and_the_runner_read_schedules_alike() {
    let dir = support::scratch_project(&[(
        "supabase/migrations/20240101000000_cron.sql",
        // As real migrations say it; Supabase's image puts it in pg_catalog all the same.
        "create extension if not exists pg_cron with schema extensions;",
    )]);
    let gw = support::start_project(&dir, &[]);
    assert_eq!(
        one(
            &gw,
            "select extnamespace::regnamespace::text from pg_extension where extname = 'pg_cron'"
        )
        .await,
        "pg_catalog"
    );
    let cases = [
        "* * * * *",
        "*/5 * * * *",
        "0-59/15 * * * *",
        "1,2,3 1-5 1-31/2 1-12 0-7",
        "0 9 * JAN-dec mon-FRI",
        "0 0 $ * *",
        "  0 0 1 1 *",
        "* * * * * extra words",
        "@reboot",
        "@yearly",
        "@hourly and more",
        "@every",
        "@Daily",
        "1 seconds",
        "59 seconds",
        "2 second",
        "10 SECONDS",
        "10seconds",
        " 30 seconds ",
        "0 seconds",
        "60 seconds",
        "10 minutes",
        "",
        "* * * *",
        "* * * * ",
        "60 * * * *",
        "* 24 * * *",
        "* * 0 * *",
        "* * * 13 *",
        "* * * * 8",
        "1/20 * * * *",
        "*/0 * * * *",
        "*/60 * * * *",
        "1,,2 * * * *",
        "* * $1 * *",
        "* * * Janu *",
        "*-5 * * * *",
    ];
    let c = gw.session_on(&gw.dbname).await;
    for s in cases {
        let sql: bool = c
            .query_one("select cron._valid_schedule($1)", &[&s])
            .await
            .unwrap()
            .get(0);
        assert_eq!(
            sql,
            workers::cron::schedule::parse(s).is_ok(),
            "{s:?}: the extension says {sql}"
        );
    }
}
