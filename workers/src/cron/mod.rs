//! pg_cron's jobs, run by supagate: the scheduler reads `cron.job` of the database it serves at
//! each second of the clock and decides which jobs are due: cron schedules at the start of each
//! minute they name (a few minutes missed are caught up, as pg_cron does; a larger jump of the
//! clock runs only the current minute), interval schedules when that many seconds passed since
//! the last run started, `@reboot` jobs once when the scheduler starts. A job never runs twice at
//! once: a run due while the last one goes on waits for it. Each run logs in as the job's user to
//! the job's database (`application_name` `pg_cron`), runs the command with the simple query
//! protocol and is recorded in `cron.job_run_details` (starting, running, then succeeded or
//! failed with pg_cron's return message, [`run`]); at most 32 runs at once, as pg_cron's
//! `cron.max_running_jobs`.
//!
//! One scheduler per database: it holds an advisory lock in it for as long as it runs (another
//! gateway on the same database waits for it). A database without the extension holds no
//! connection: whether it has `cron.job` is looked at every few seconds. The clock is the wall
//! clock moved by the workbench's offset (`PUT /_supagate/v1/clock`), whole seconds.

pub mod run;
pub mod schedule;

use chrono::{DateTime, Duration as Span, Utc};
use pg::Login;
use schedule::Schedule;
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;
use tokio_postgres::Client;

/// The session's name, as pg_cron's launcher is named.
const APPLICATION_NAME: &str = "pg_cron scheduler";
/// The name of a job's session.
const JOB_APPLICATION_NAME: &str = "pg_cron";
/// The advisory lock the scheduler of a database holds (any constant of supagate's own).
const LOCK: i64 = 0x7375_7061_6372_6f6e;
/// How often a database without the extension, or whose scheduler runs elsewhere, is looked at.
const IDLE: Duration = Duration::from_secs(2);
/// Runs at once, at most (pg_cron's `cron.max_running_jobs` default): each holds a connection.
const MAX_RUNNING: usize = 32;
/// How many minutes missed are caught up (pg_cron's vixie cron logic).
const CATCH_UP_MINUTES: i64 = 5;

#[derive(Debug, thiserror::Error)]
pub enum CronError {
    #[error("database: {0}")]
    Db(#[from] tokio_postgres::Error),
    #[error("{0}")]
    Connect(pg::ConnectError),
}

/// The offset of the clock, in seconds (the workbench's clock).
pub type Offset = fn() -> i64;

/// Runs the jobs of the database `admin` logs in to, for as long as the process runs.
pub fn spawn(admin: Login, offset: Offset) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        loop {
            match lead(&admin).await {
                Ok(Some(c)) => {
                    let mut s = Scheduler::new(admin.clone(), Arc::new(c), offset);
                    if let Err(e) = s.serve().await {
                        tracing::debug!("pg_cron scheduler: {e}");
                    }
                    tokio::time::sleep(IDLE).await;
                }
                Ok(None) => tokio::time::sleep(IDLE).await,
                Err(e) => {
                    tracing::debug!("pg_cron scheduler: {e}");
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
            }
        }
    })
}

/// A connection holding the database's scheduler lock, or None when the database has no
/// pg_cron or another scheduler holds the lock.
async fn lead(admin: &Login) -> Result<Option<Client>, CronError> {
    let c = pg::connect(admin).await.map_err(CronError::Connect)?;
    c.batch_execute(&format!("SET application_name = '{APPLICATION_NAME}'"))
        .await?;
    let row = c
        .query_one(
            "SELECT to_regclass('cron.job') IS NOT NULL AND pg_try_advisory_lock($1),
                    (SELECT extversion FROM pg_extension WHERE extname = 'pg_cron')",
            &[&LOCK],
        )
        .await?;
    if let Some(version) = row.get::<_, Option<String>>(1).filter(|v| v != "1.6")
        && row.get::<_, bool>(0)
    {
        // A database made when supagate ran the distribution's pg_cron: its jobs run, but its
        // functions are C ones that only load when preloaded.
        tracing::warn!(
            "this database has pg_cron {version} from the distribution, whose functions need              shared_preload_libraries: its jobs run, but cron.schedule fails; `supagate db              reset` (or drop extension pg_cron and create it again) installs supagate's 1.6"
        );
    }
    Ok(row.get::<_, bool>(0).then_some(c))
}

struct Job {
    id: i64,
    schedule: Schedule,
    command: String,
    database: String,
    username: String,
    active: bool,
}

#[derive(Default)]
struct Task {
    running: Arc<AtomicBool>,
    pending: u32,
    last_start: Option<i64>,
}

struct Scheduler {
    admin: Login,
    c: Arc<Client>,
    offset: Offset,
    jobs: Vec<Job>,
    tasks: HashMap<i64, Task>,
}

impl Scheduler {
    fn new(admin: Login, c: Arc<Client>, offset: Offset) -> Scheduler {
        Scheduler {
            admin,
            c,
            offset,
            jobs: Vec::new(),
            tasks: HashMap::new(),
        }
    }

    fn now(&self) -> DateTime<Utc> {
        Utc::now() + Span::seconds((self.offset)())
    }

    /// Runs the jobs until the extension or the connection goes.
    async fn serve(&mut self) -> Result<(), CronError> {
        self.c
            .execute(
                "UPDATE cron.job_run_details SET status = 'failed', return_message = 'server restarted'
                 WHERE status IN ('starting', 'running')",
                &[],
            )
            .await
            .map(|_| ())
            .or_else(missing_table)?;
        if !self.load().await? {
            return Ok(());
        }
        for job in &self.jobs {
            if job.active && job.schedule == Schedule::Reboot {
                self.tasks.entry(job.id).or_default().pending += 1;
            }
        }
        let mut last_minute = self.now().timestamp().div_euclid(60);
        loop {
            let now = self.now();
            let second = now.timestamp();
            let minute = second.div_euclid(60);
            let minutes: Vec<i64> = match minute - last_minute {
                0 => Vec::new(),
                1..=CATCH_UP_MINUTES => (last_minute + 1..=minute).collect(),
                _ => vec![minute],
            };
            last_minute = minute;
            for job in &self.jobs {
                let task = self.tasks.entry(job.id).or_default();
                if !job.active {
                    task.pending = 0;
                    continue;
                }
                match &job.schedule {
                    Schedule::Seconds(every) => {
                        if task.pending == 0
                            && task
                                .last_start
                                // The clock set back: the interval starts again.
                                .is_none_or(|t| second - t >= i64::from(*every) || second < t)
                        {
                            task.pending += 1;
                        }
                    }
                    Schedule::Cron(cron) => {
                        for m in &minutes {
                            if let Some(t) = DateTime::from_timestamp(m * 60, 0)
                                && cron.matches(t)
                            {
                                task.pending = task.pending.saturating_add(1);
                            }
                        }
                    }
                    Schedule::Reboot => {}
                }
            }
            self.start_due(second).await?;
            // Until the next second of the clock.
            let wait = 1000 - u64::from(now.timestamp_subsec_millis()).min(999) + 5;
            tokio::time::sleep(Duration::from_millis(wait)).await;
            if !self.load().await? {
                return Ok(());
            }
        }
    }

    /// Reads the jobs; false when the extension is gone.
    async fn load(&mut self) -> Result<bool, CronError> {
        let rows = match self
            .c
            .query(
                "SELECT jobid, schedule, command, database, username, active FROM cron.job
                 ORDER BY jobid",
                &[],
            )
            .await
        {
            Ok(rows) => rows,
            Err(e) => return missing_table(e).map(|()| false),
        };
        self.jobs = rows
            .iter()
            .filter_map(|r| {
                let id: i64 = r.get(0);
                let text: &str = r.get(1);
                match schedule::parse(text) {
                    Ok(schedule) => Some(Job {
                        id,
                        schedule,
                        command: r.get(2),
                        database: r.get(3),
                        username: r.get(4),
                        active: r.get(5),
                    }),
                    Err(e) => {
                        tracing::info!("pg_cron: job {id} is skipped: {e}");
                        None
                    }
                }
            })
            .collect();
        let ids: Vec<i64> = self.jobs.iter().map(|j| j.id).collect();
        self.tasks.retain(|id, _| ids.contains(id));
        Ok(true)
    }

    /// Starts every job with a run due whose last run has ended, up to [`MAX_RUNNING`] runs at
    /// once (the others wait for a later second).
    async fn start_due(&mut self, second: i64) -> Result<(), CronError> {
        let mut running = self
            .tasks
            .values()
            .filter(|t| t.running.load(Ordering::Acquire))
            .count();
        for job in &self.jobs {
            if running >= MAX_RUNNING {
                break;
            }
            let Some(task) = self.tasks.get_mut(&job.id) else {
                continue;
            };
            if task.pending == 0 || task.running.load(Ordering::Acquire) {
                continue;
            }
            task.pending -= 1;
            task.last_start = Some(second);
            let runid: i64 = self
                .c
                .query_one(
                    "INSERT INTO cron.job_run_details (jobid, database, username, command, status)
                     VALUES ($1, $2, $3, $4, 'starting') RETURNING runid",
                    &[&job.id, &job.database, &job.username, &job.command],
                )
                .await?
                .get(0);
            task.running.store(true, Ordering::Release);
            running += 1;
            let done = task.running.clone();
            let c = self.c.clone();
            let login = self
                .admin
                .with_user(&job.username)
                .with_dbname(&job.database)
                .with_application_name(JOB_APPLICATION_NAME);
            let command = job.command.clone();
            tokio::spawn(async move {
                if let Err(e) = execute(&c, &login, runid, &command).await {
                    tracing::warn!("pg_cron: recording run {runid} failed: {e}");
                }
                done.store(false, Ordering::Release);
            });
        }
        Ok(())
    }
}

/// A query on the extension's tables before the extension exists.
fn missing_table(e: tokio_postgres::Error) -> Result<(), CronError> {
    if e.code() == Some(&tokio_postgres::error::SqlState::UNDEFINED_TABLE) {
        Ok(())
    } else {
        Err(e.into())
    }
}

/// Runs one job's command as its user and records how it went.
async fn execute(c: &Client, login: &Login, runid: i64, command: &str) -> Result<(), CronError> {
    let mut conn = match pg::pipeline::Conn::connect(login, 8, Arc::new(AtomicU64::new(0))).await {
        Ok(conn) => conn,
        Err(e) => {
            tracing::debug!("pg_cron: run {runid}: {e}");
            return finish(c, runid, &run::broken(run::CONNECTION_FAILED)).await;
        }
    };
    c.execute(
        "UPDATE cron.job_run_details SET status = 'running', job_pid = $2, start_time = now()
         WHERE runid = $1",
        &[&runid, &conn.backend_pid()],
    )
    .await?;
    let outcome = match conn.script(command).await {
        Ok(said) => run::outcome(&said),
        Err(e) => run::broken(&e.to_string()),
    };
    finish(c, runid, &outcome).await
}

async fn finish(c: &Client, runid: i64, o: &run::Outcome) -> Result<(), CronError> {
    c.execute(
        "UPDATE cron.job_run_details SET status = $2, return_message = $3, end_time = now()
         WHERE runid = $1",
        &[&runid, &o.status, &o.message],
    )
    .await?;
    Ok(())
}
