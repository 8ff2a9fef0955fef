//! The embedded cluster keeps `supagate_template`: a copy of the served database as the platform
//! migrations, the project's migrations, its seed and buckets built it, taken right after the
//! build. A reset database (and each test's database) is a clone of it (CREATE DATABASE …
//! TEMPLATE), which takes a fraction of a second; when any of those files change, the served
//! database is built again where it is served, and copied again.

use super::MigrateError;
use crate::database::Database;
use crate::login::connect;
use ::project::Project;
use std::time::{Duration, Instant};
use tokio_postgres::Client;

pub const TEMPLATE: &str = "supagate_template";
const BUILDING: &str = "supagate_template_new";
/// The platform alone (the platform migrations applied to an empty database), kept in the
/// embedded cluster to copy from: a new served database and `db diff`'s start from it.
pub const PLATFORM_TEMPLATE: &str = "supagate_template_platform";
const PLATFORM_BUILDING: &str = "supagate_template_platform_new";
/// The advisory lock (on `template1`) held while the platform template is built.
const PLATFORM_LOCK: i64 = 0x5ba9_d1ff;
/// The database the gateway serves (the Supabase CLI's).
pub(crate) const SERVED: &str = "postgres";

/// What a template built now would be made of.
pub fn fingerprint(project: &Project) -> Result<String, MigrateError> {
    Ok(::project::sha256_hex(
        format!(
            "{}:{}",
            super::platform::fingerprint(),
            project.fingerprint()?
        )
        .as_bytes(),
    ))
}

async fn template_fingerprint(maint: &Client) -> Result<Option<String>, MigrateError> {
    Ok(comment_of(maint, TEMPLATE)
        .await?
        .and_then(|c| c.strip_prefix("supagate:").map(str::to_string)))
}

/// The comment on database `name`.
pub(crate) async fn comment_of(maint: &Client, name: &str) -> Result<Option<String>, MigrateError> {
    Ok(maint
        .query_opt(
            "SELECT shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = $1",
            &[&name],
        )
        .await?
        .and_then(|r| r.get::<_, Option<String>>(0)))
}

/// What the platform template's comment says when these platform migrations made it.
fn platform_stamp() -> String {
    format!("supagate-platform:{}", super::platform::fingerprint())
}

/// Whether the platform template is there and made by these platform migrations.
async fn platform_template_is_current(maint: &Client) -> Result<bool, MigrateError> {
    Ok(comment_of(maint, PLATFORM_TEMPLATE).await?.as_deref() == Some(platform_stamp().as_str()))
}

/// The platform template, built now (on the server `maint` is a session of, with `admin`'s
/// login) when missing or made by other platform migrations.
pub(crate) async fn platform_template(
    maint: &Client,
    admin: &crate::login::Login,
) -> Result<(), MigrateError> {
    if platform_template_is_current(maint).await? {
        return Ok(());
    }
    maint
        .execute("SELECT pg_advisory_lock($1)", &[&PLATFORM_LOCK])
        .await?;
    let built = async {
        // Another process may have built it while this one waited.
        if platform_template_is_current(maint).await? {
            return Ok(());
        }
        drop_database(maint, PLATFORM_BUILDING).await?;
        maint
            .batch_execute(&format!(
                "CREATE DATABASE {PLATFORM_BUILDING} TEMPLATE template0"
            ))
            .await?;
        {
            let mut c = connect(&admin.with_dbname(PLATFORM_BUILDING))
                .await
                .map_err(MigrateError::Connect)?;
            super::platform::apply(&mut c).await?;
        }
        wait_for_no_connections(maint, PLATFORM_BUILDING).await?;
        drop_database(maint, PLATFORM_TEMPLATE).await?;
        maint
            .batch_execute(&format!(
                "ALTER DATABASE {PLATFORM_BUILDING} RENAME TO {PLATFORM_TEMPLATE};
                 ALTER DATABASE {PLATFORM_TEMPLATE} WITH IS_TEMPLATE true ALLOW_CONNECTIONS false;
                 COMMENT ON DATABASE {PLATFORM_TEMPLATE} IS '{}'",
                platform_stamp()
            ))
            .await?;
        Ok(())
    }
    .await;
    maint
        .execute("SELECT pg_advisory_unlock($1)", &[&PLATFORM_LOCK])
        .await?;
    built
}

/// Builds the platform template in the cluster `admin` (its owner, on `template1`) reaches:
/// what a pristine cluster gets, so that every data directory copied from it starts with the
/// platform built.
pub async fn keep_platform_template(admin: &crate::login::Login) -> Result<(), MigrateError> {
    let maint = connect(admin).await.map_err(MigrateError::Connect)?;
    platform_template(&maint, admin).await
}

/// Waits until nobody is connected to `db` (a closed client's backend exits asynchronously).
pub(crate) async fn wait_for_no_connections(maint: &Client, db: &str) -> Result<(), MigrateError> {
    let t0 = Instant::now();
    loop {
        let n: i64 = maint
            .query_one(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = $1",
                &[&db],
            )
            .await?
            .get(0);
        if n == 0 || t0.elapsed() > Duration::from_secs(10) {
            return Ok(());
        }
        // A backend ended exits within milliseconds: a reset waits on this.
        tokio::time::sleep(Duration::from_millis(3)).await;
    }
}

/// Runs each statement on its own: CREATE and DROP DATABASE refuse to run in a transaction.
async fn each(maint: &Client, statements: &[String]) -> Result<(), MigrateError> {
    for s in statements {
        maint.batch_execute(s).await?;
    }
    Ok(())
}

/// Ends every other session on database `name`.
async fn end_sessions(maint: &Client, name: &str) -> Result<(), MigrateError> {
    end_sessions_where(maint, Session::OnDatabase, name).await
}

/// Which sessions [`end_sessions_where`] ends: those whose column of `pg_stat_activity` is
/// the value given.
enum Session {
    OnDatabase,
    NamedApplication,
}

/// Ends every other session on database `value`, or named `value` (`application_name`).
async fn end_sessions_where(maint: &Client, by: Session, value: &str) -> Result<(), MigrateError> {
    let column = match by {
        Session::OnDatabase => "datname",
        Session::NamedApplication => "application_name",
    };
    let sql = format!(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
         WHERE {column} = $1 AND pid <> pg_backend_pid()"
    );
    maint.execute(&sql, &[&value]).await?;
    Ok(())
}

/// A database with a replication slot (realtime's) cannot be dropped: its sessions are ended
/// and its slots dropped first (a slot in use by a session just ended frees within moments).
async fn drop_slots(maint: &Client, name: &str) -> Result<(), MigrateError> {
    let t0 = Instant::now();
    loop {
        end_sessions(maint, name).await?;
        let dropped = maint
            .execute(
                "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots \
                 WHERE database = $1",
                &[&name],
            )
            .await;
        match dropped {
            Ok(_) => return Ok(()),
            Err(_) if t0.elapsed() < Duration::from_secs(5) => {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            Err(e) => return Err(e.into()),
        }
    }
}

pub(crate) async fn drop_database(maint: &Client, name: &str) -> Result<(), MigrateError> {
    let exists = maint
        .query_opt("SELECT 1 FROM pg_database WHERE datname = $1", &[&name])
        .await?
        .is_some();
    if exists {
        drop_slots(maint, name).await?;
        each(
            maint,
            &[
                format!("ALTER DATABASE \"{name}\" IS_TEMPLATE false"),
                format!("DROP DATABASE \"{name}\" WITH (FORCE)"),
            ],
        )
        .await?;
    }
    Ok(())
}

/// Copies the served database, just built, into the template (nobody may be connected to a
/// database while it is copied: sessions of running gateways are ended and reconnect).
async fn snapshot(maint: &Client, fingerprint: &str) -> Result<(), MigrateError> {
    copy_served(maint, BUILDING).await?;
    drop_database(maint, TEMPLATE).await?;
    each(
        maint,
        &[
            format!("ALTER DATABASE \"{BUILDING}\" RENAME TO \"{TEMPLATE}\""),
            format!("ALTER DATABASE \"{TEMPLATE}\" WITH IS_TEMPLATE true ALLOW_CONNECTIONS false"),
            format!("COMMENT ON DATABASE \"{TEMPLATE}\" IS 'supagate:{fingerprint}'"),
        ],
    )
    .await
}

/// Copies the served database into `to` (replaced if it exists). Nobody may be connected to a
/// database while it is copied: connections are refused for the moment of the copy and the
/// sessions of running gateways (pools, pg_cron's scheduler, realtime's capture) are ended;
/// they reconnect by themselves.
pub(crate) async fn copy_served(maint: &Client, to: &str) -> Result<(), MigrateError> {
    // One copy at a time in the cluster (whichever process or replica makes it): two would
    // both switch the served database's connections off and on.
    maint
        .execute("SELECT pg_advisory_lock($1)", &[&COPY_LOCK])
        .await?;
    let copied = copy_served_locked(maint, to).await;
    maint
        .execute("SELECT pg_advisory_unlock($1)", &[&COPY_LOCK])
        .await?;
    copied
}

/// The advisory lock (on `template1`) held while the served database is copied.
const COPY_LOCK: i64 = 0x5ba9_a7e0_c0b1;

async fn copy_served_locked(maint: &Client, to: &str) -> Result<(), MigrateError> {
    drop_database(maint, to).await?;
    maint
        .batch_execute(&format!(
            "ALTER DATABASE \"{SERVED}\" WITH ALLOW_CONNECTIONS false"
        ))
        .await?;
    let copied = async {
        // A session that was connecting as connections were refused may still appear: the
        // copy is tried again then.
        let mut tries = 0;
        loop {
            end_sessions(maint, SERVED).await?;
            wait_for_no_connections(maint, SERVED).await?;
            match maint
                .batch_execute(&format!("CREATE DATABASE \"{to}\" TEMPLATE \"{SERVED}\""))
                .await
            {
                Err(e)
                    if tries < 20
                        && e.code() == Some(&tokio_postgres::error::SqlState::OBJECT_IN_USE) =>
                {
                    tries += 1;
                }
                other => return other.map_err(MigrateError::from),
            }
        }
    }
    .await;
    maint
        .batch_execute(&format!(
            "ALTER DATABASE \"{SERVED}\" WITH ALLOW_CONNECTIONS true"
        ))
        .await?;
    copied
}

/// Replaces the served database by a fresh one: a clone of the template when it is up to date,
/// else built where it is served (platform and project migrations, seed, buckets: pg_cron and
/// pg_net's requests belong to the database of that name), then copied into the template. A
/// failing build leaves the served database empty, never half-migrated: the next start sets
/// it up again. Sessions on the old database are ended; running gateways reconnect by
/// themselves. `slot`: realtime's replication slot is made at once, so no change committed
/// before a gateway captures is lost.
pub async fn reset(project: &Project, db: &Database, slot: bool) -> Result<(), MigrateError> {
    reset_until(project, db, slot, None).await
}

/// `reset` with the project's migrations up to `until` only, when given (`migration down`):
/// such a database is always built where it is served, and the template is left as it is.
pub async fn reset_until(
    project: &Project,
    db: &Database,
    slot: bool,
    until: Option<&str>,
) -> Result<(), MigrateError> {
    let maint = connect(&db.admin_on("template1"))
        .await
        .map_err(MigrateError::Connect)?;
    let want = fingerprint(project)?;
    let current =
        until.is_none() && template_fingerprint(&maint).await?.as_deref() == Some(want.as_str());
    // The last reset's tidying (a spare being made, old databases being dropped) holds
    // transactions that the replication slot made below would wait for: a spare of this
    // template it is making is waited for first, the served database still served (what is
    // left of its copy costs less than a copy made here), then it is ended; the tidying after
    // this reset does what it left.
    if current {
        let t = Instant::now();
        if wait_for_spare(&maint, &want).await? {
            tracing::debug!(
                "reset: waited {} ms for the spare being made",
                t.elapsed().as_millis()
            );
        }
    }
    let t = Instant::now();
    retire_served(&maint).await?;
    end_sessions_where(&maint, Session::NamedApplication, TIDY_APP).await?;
    tracing::debug!(
        "reset: the served database set aside in {} ms",
        t.elapsed().as_millis()
    );
    if current {
        let t = Instant::now();
        if take_spare(&maint, &want).await? {
            tracing::debug!(
                "reset: took the spare clone in {} ms",
                t.elapsed().as_millis()
            );
        } else {
            maint
                .batch_execute(&format!(
                    "CREATE DATABASE \"{SERVED}\" TEMPLATE \"{TEMPLATE}\""
                ))
                .await?;
            tracing::debug!(
                "reset: cloned the template in {} ms",
                t.elapsed().as_millis()
            );
        }
    } else {
        let t0 = Instant::now();
        // From the platform template when it is there (a pristine cluster has it): the
        // platform is then built already, and what a new database gets from the project
        // before its migrations is given here.
        let from_platform = platform_template_is_current(&maint).await?;
        let base = if from_platform {
            PLATFORM_TEMPLATE
        } else {
            "template0"
        };
        maint
            .batch_execute(&format!("CREATE DATABASE \"{SERVED}\" TEMPLATE {base}"))
            .await?;
        let built = async {
            let mut c = connect(&db.admin).await.map_err(MigrateError::Connect)?;
            if from_platform {
                super::platform::api_privileges(&c, project).await?;
                super::platform::vault_secrets(&c, project).await?;
            }
            super::migrate_in_place_until(&mut c, project, db, true, until).await
        }
        .await;
        if let Err(e) = built {
            wait_for_no_connections(&maint, SERVED).await?;
            drop_database(&maint, SERVED).await?;
            maint
                .batch_execute(&format!("CREATE DATABASE \"{SERVED}\" TEMPLATE template0"))
                .await?;
            return Err(e);
        }
        if until.is_none() {
            snapshot(&maint, &want).await?;
        }
        tracing::info!(
            "built the database and its template in {} ms",
            t0.elapsed().as_millis()
        );
    }
    let t = Instant::now();
    served_settings(db, slot).await?;
    tracing::debug!("reset: settings and slot in {} ms", t.elapsed().as_millis());
    Ok(())
}

/// What a served database set aside by a reset is named: `RETIRED` and a unique suffix.
pub const RETIRED: &str = "supagate_retired_";

/// Sets the served database aside (renamed to a `RETIRED` name, dropped later by
/// [`drop_retired`]) rather than dropping it: DROP DATABASE waits for a checkpoint, which costs
/// from tens of milliseconds to seconds with dirty buffers, and a reset need not wait for it.
/// Its sessions are ended first and connections to it refused; its replication slots (which
/// would keep its WAL and name the new database's slot) are dropped.
async fn retire_served(maint: &Client) -> Result<(), MigrateError> {
    let exists = maint
        .query_opt("SELECT 1 FROM pg_database WHERE datname = $1", &[&SERVED])
        .await?
        .is_some();
    if !exists {
        return Ok(());
    }
    maint
        .batch_execute(&format!(
            "ALTER DATABASE \"{SERVED}\" WITH ALLOW_CONNECTIONS false"
        ))
        .await?;
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_micros());
    let retired = format!("{RETIRED}{stamp}_{}", std::process::id());
    let mut tries = 0;
    loop {
        drop_slots(maint, SERVED).await?;
        wait_for_no_connections(maint, SERVED).await?;
        // A session that was connecting as connections were refused may still appear.
        match maint
            .batch_execute(&format!(
                "ALTER DATABASE \"{SERVED}\" RENAME TO \"{retired}\""
            ))
            .await
        {
            Err(e)
                if tries < 20
                    && e.code() == Some(&tokio_postgres::error::SqlState::OBJECT_IN_USE) =>
            {
                tries += 1;
            }
            Err(e) => {
                let _ = maint
                    .batch_execute(&format!(
                        "ALTER DATABASE \"{SERVED}\" WITH ALLOW_CONNECTIONS true"
                    ))
                    .await;
                return Err(e.into());
            }
            Ok(()) => return Ok(()),
        }
    }
}

/// A clone of the template made ahead of the next reset (connections refused, commented with
/// the template's fingerprint): a reset renames it into place instead of copying the template
/// while someone waits (~0.5 s for a small project here, its whole size written to the WAL).
const SPARE: &str = "supagate_spare";

/// A template larger than this gets no spare clone (it would double the disk the project takes).
const SPARE_MAX_BYTES: i64 = 128 << 20;

/// How long a reset waits for a spare that a tidying session is making (a copy takes a
/// fraction of a second; one that takes longer is ended and the reset copies the template).
const SPARE_WAIT: Duration = Duration::from_secs(3);

/// Waits while a tidying session makes the spare clone of the template made of `want`; true
/// when it waited.
async fn wait_for_spare(maint: &Client, want: &str) -> Result<bool, MigrateError> {
    let stamp = format!("supagate:{want}");
    let t0 = Instant::now();
    let mut waited = false;
    while t0.elapsed() < SPARE_WAIT {
        if comment_of(maint, SPARE).await?.as_deref() == Some(stamp.as_str()) {
            break;
        }
        // Its statements name the spare; between two of them the session is idle, the last
        // one run still shown. The last one is the comment: once it has run, the spare is ready.
        let making: i64 = maint
            .query_one(
                "SELECT count(*) FROM pg_stat_activity WHERE application_name = $1 \
                 AND state IN ('active', 'idle') AND strpos(query, $2) > 0 \
                 AND NOT (state = 'idle' AND starts_with(query, 'COMMENT'))",
                &[&TIDY_APP, &format!("\"{SPARE}\"")],
            )
            .await?
            .get(0);
        if making == 0 {
            break;
        }
        waited = true;
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    Ok(waited)
}

/// Puts the spare clone in place as the served database when it is a clone of the template
/// made of `want`.
async fn take_spare(maint: &Client, want: &str) -> Result<bool, MigrateError> {
    if comment_of(maint, SPARE).await?.as_deref() != Some(format!("supagate:{want}").as_str()) {
        return Ok(false);
    }
    each(
        maint,
        &[
            format!("ALTER DATABASE \"{SPARE}\" RENAME TO \"{SERVED}\""),
            format!("ALTER DATABASE \"{SERVED}\" WITH ALLOW_CONNECTIONS true"),
            format!("COMMENT ON DATABASE \"{SERVED}\" IS NULL"),
        ],
    )
    .await?;
    Ok(true)
}

/// The `application_name` of the sessions that tidy after a reset (a reset ends them, once a
/// spare they are making is made).
pub const TIDY_APP: &str = "supagate_tidy";

/// What is left to do after a reset, off the path anyone waits on, as statements to run each
/// on its own (a psql left running may run them): with `spare`, a spare clone of the template
/// (see [`SPARE`]) when there is none and the template is made of that project as it is now;
/// the drops of the databases resets set aside (each drop waits for a checkpoint).
pub async fn tidy_statements(
    maint: &Client,
    spare: Option<&Project>,
) -> Result<Vec<String>, MigrateError> {
    let want = match spare {
        Some(p) => Some(format!("supagate:{}", fingerprint(p)?)),
        None => None,
    };
    let mut statements = Vec::new();
    let template = maint
        .query_opt(
            "SELECT shobj_description(oid, 'pg_database'), pg_database_size(oid) \
             FROM pg_database WHERE datname = $1",
            &[&TEMPLATE],
        )
        .await?;
    if let Some(want) = want
        && let Some(row) = template
        && let Some(stamp) = row.get::<_, Option<String>>(0)
        && stamp == want
        && !stamp.contains('\'')
        && row.get::<_, i64>(1) <= SPARE_MAX_BYTES
        && comment_of(maint, SPARE).await?.as_deref() != Some(stamp.as_str())
    {
        // The comment comes last: a spare without it is never taken (see [`wait_for_spare`]).
        statements.extend([
            format!("DROP DATABASE IF EXISTS \"{SPARE}\" WITH (FORCE)"),
            format!("CREATE DATABASE \"{SPARE}\" TEMPLATE \"{TEMPLATE}\" ALLOW_CONNECTIONS false"),
            format!("COMMENT ON DATABASE \"{SPARE}\" IS '{stamp}'"),
        ]);
    }
    for name in retired(maint).await? {
        statements.push(format!(
            "DROP DATABASE IF EXISTS {} WITH (FORCE)",
            crate::quote_ident(&name)
        ));
    }
    if !statements.is_empty() {
        statements.insert(0, format!("SET application_name = '{TIDY_APP}'"));
    }
    Ok(statements)
}

/// Runs [`tidy_statements`] here (each drop waits for a checkpoint: call it where nobody waits).
pub async fn tidy(db: &Database, spare: Option<&Project>) -> Result<usize, MigrateError> {
    // Named from its connection on: a reset that comes at once sees what it does.
    let maint = connect(&db.admin_on("template1").with_application_name(TIDY_APP))
        .await
        .map_err(MigrateError::Connect)?;
    let statements = tidy_statements(&maint, spare).await?;
    each(&maint, &statements).await?;
    Ok(statements.len())
}

/// The databases resets set aside and not dropped yet, by name.
pub async fn retired(maint: &Client) -> Result<Vec<String>, MigrateError> {
    Ok(maint
        .query(
            "SELECT datname FROM pg_database WHERE starts_with(datname, $1) ORDER BY datname",
            &[&RETIRED],
        )
        .await?
        .iter()
        .map(|r| r.get(0))
        .collect())
}

/// What a new served database needs that CREATE DATABASE does not copy: its settings and
/// (`slot`) realtime's replication slot, made at once so no change committed before a gateway
/// captures is lost.
pub(crate) async fn served_settings(db: &Database, slot: bool) -> Result<(), MigrateError> {
    let c = connect(&db.admin).await.map_err(MigrateError::Connect)?;
    super::platform::settings(&c, db.api_password.as_deref()).await?;
    if slot {
        crate::replication::prepare_slot(&c)
            .await
            .map_err(|e| MigrateError::Other(e.to_string()))?;
    }
    Ok(())
}
