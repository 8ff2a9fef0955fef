//! `start`: the database (embedded or external) brought up to date, then the API until Ctrl-C,
//! SIGTERM or `supagate stop`.

use super::CommandError;
use super::status;
use crate::args::{Output, StateFolders};
use gateway::config::Config;
use gateway::{server, state};
use pg::database::remove_pid;
use pg::embedded::StopGuard;
use pg::{Database, migrate};
use std::io::Write;
use std::sync::Arc;
use std::time::Instant;

/// The URL clients reach the API on: `API_EXTERNAL_URL`, else the bound address (an unspecified
/// one, 0.0.0.0 or ::, named as 127.0.0.1 — set API_EXTERNAL_URL when serving other hosts).
pub fn api_url(cfg: &Config, port: u16) -> String {
    if let Some(url) = &cfg.api_external_url {
        return url.trim_end_matches('/').to_string();
    }
    let host = match cfg.host.parse::<std::net::IpAddr>() {
        Ok(ip) if ip.is_unspecified() => {
            tracing::warn!(
                "listening on {} without API_EXTERNAL_URL: links in mail point to \
                 http://127.0.0.1:{port}; set API_EXTERNAL_URL to the address clients use",
                cfg.host
            );
            "127.0.0.1".to_string()
        }
        Ok(std::net::IpAddr::V6(ip)) => format!("[{ip}]"),
        _ => cfg.host.clone(),
    };
    let scheme = if cfg.api_tls.is_some() {
        "https"
    } else {
        "http"
    };
    format!("{scheme}://{host}:{port}")
}

/// One warning line naming the config.toml keys supagate ignores.
pub fn warn_ignored_keys(cfg: &Config) {
    if !cfg.project.ignored_keys.is_empty() {
        tracing::warn!(
            "{}: not implemented by supagate yet, ignored: {}",
            cfg.project
                .config_file
                .as_ref()
                .map(|f| cfg.project.relative(f))
                .unwrap_or_default(),
            cfg.project.ignored_keys.join(", ")
        );
    }
}

/// The Deno `program` names, found as a shell finds it: a path as it is, a bare name on PATH.
pub fn find_deno(program: &std::path::Path) -> Option<std::path::PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let runnable = |p: &std::path::Path| {
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if program.components().count() > 1 {
        return runnable(program).then(|| program.to_path_buf());
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(program))
        .find(|p| runnable(p))
}

/// A project whose functions need Deno is told at start when there is none, with how to get it
/// (its functions would otherwise answer BOOT_ERROR on every call).
fn warn_missing_deno(cfg: &Config) {
    if !cfg.project.config.edge_runtime.enabled {
        return;
    }
    let catalog = functions::catalog::discover(&cfg.project);
    if catalog.functions.is_empty() || find_deno(&cfg.deno).is_some() {
        return;
    }
    tracing::warn!(
        "supabase/functions has {} function(s) but Deno ({}) was not found, so each would \
         answer BOOT_ERROR: install it with `npm install -g deno` (the npm deno package) or \
         from https://deno.com, or point DENO_BIN (--deno) at it",
        catalog.functions.len(),
        cfg.deno.display()
    );
}

/// The public demo secret signs anyone's service_role token: it stays on loopback unless the
/// operator insists.
fn check_exposure(cfg: &Config) -> Result<(), CommandError> {
    if cfg.jwt_secret.is_none() && !cfg.on_loopback() {
        if !cfg.insecure_demo_keys {
            return Err(CommandError::Message(format!(
                "refusing to listen on {} with the public demo JWT secret: anyone could sign a \
                 service_role token. Set JWT_SECRET (32 or more random characters), or pass \
                 --insecure-demo-keys for a throwaway setup",
                cfg.host
            )));
        }
        tracing::warn!(
            "INSECURE: listening on {} with the PUBLIC demo JWT secret and keys \
             (--insecure-demo-keys): anyone who can reach this port can sign a service_role token",
            cfg.host
        );
    }
    if let Some(s) = &cfg.jwt_secret
        && s.len() < 32
    {
        tracing::warn!("the JWT secret has {} characters; use 32 or more", s.len());
    }
    Ok(())
}

/// What the started project is for.
pub enum Mode {
    /// `start`: serve until Ctrl-C, SIGTERM or `supagate stop`.
    Serve { output: Option<Output> },
    /// `exec`: run a command against it, then stop.
    Exec { command: Vec<String> },
}

/// Starts the project and serves it as `mode` says. Returns the exit code to end with (the
/// command's, for `exec`).
pub async fn start(cfg: Config, mode: Mode, folders: StateFolders) -> Result<i32, CommandError> {
    let t0 = Instant::now();
    check_exposure(&cfg)?;
    // A second start of a running project says where it runs (and leaves it alone).
    if let Ok(values) = status::running_values(&cfg) {
        let api = values.get("API_URL").cloned().unwrap_or_default();
        return Err(CommandError::Message(format!(
            "supagate is already running for {} (API {api}): `supagate status` shows its \
             URLs and keys, `supagate stop` stops it",
            cfg.project.root.display()
        )));
    }
    warn_ignored_keys(&cfg);
    warn_missing_deno(&cfg);
    let early = listen_early(&cfg, &mode)?;
    let db = super::open_database(&cfg, true).await?;
    tracing::debug!(
        "start: the database is up at {} ms",
        t0.elapsed().as_millis()
    );
    // Stops the embedded cluster on every way out of here, panics included.
    let _guard = db.embedded.as_ref().map(StopGuard);
    let result = serve(&cfg, &db, t0, mode, &folders, early).await;
    super::running::unregister(&cfg.data_dir);
    status::remove_state(&cfg.data_dir);
    remove_pid(&cfg.data_dir);
    tracing::info!("stopped");
    result
}

async fn wait_for_shutdown(stdin_close: bool) {
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .expect("SIGTERM handler");
    let stdin_closed = async {
        if !stdin_close {
            return std::future::pending::<()>().await;
        }
        // Read on a thread of its own: tokio's stdin is a blocking task the runtime waits for
        // when it shuts down, so a gateway stopped by a signal would hang with its stdin open.
        let (closed, on_close) = tokio::sync::oneshot::channel();
        std::thread::spawn(move || {
            let mut buf = [0u8; 256];
            let mut stdin = std::io::stdin();
            while std::io::Read::read(&mut stdin, &mut buf).is_ok_and(|n| n > 0) {}
            let _ = closed.send(());
        });
        let _ = on_close.await;
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {},
        _ = term.recv() => {},
        _ = stdin_closed => {},
    }
}

/// Uploads the `objects_path` files of `[storage.buckets.*]`, as a new or reset database gets them.
pub async fn upload_seed_objects(
    cfg: &Config,
    db: &Database,
    store: &dyn object_store::ObjectStore,
) -> Result<(), CommandError> {
    let c = pg::connect(&db.admin).await?;
    storage::seed::upload_all(&cfg.project, cfg.storage_file_size_limit, &c, store)
        .await
        .map_err(CommandError::from)
}

pub fn open_store(cfg: &Config) -> Result<Arc<dyn object_store::ObjectStore>, CommandError> {
    let backend = match (cfg.storage_backend.as_str(), &cfg.storage_s3_bucket) {
        ("file", _) => storage::backend::local(&cfg.data_dir.join("storage")),
        ("s3", Some(bucket)) => storage::backend::BackendConfig::S3 {
            bucket: bucket.clone(),
        },
        ("s3", None) => {
            return Err(CommandError::Message(
                "STORAGE_BACKEND=s3 needs STORAGE_S3_BUCKET".into(),
            ));
        }
        (other, _) => {
            return Err(CommandError::Message(format!(
                "unknown STORAGE_BACKEND {other:?} (use file or s3)"
            )));
        }
    };
    storage::backend::open(&backend)
        .map_err(|e| CommandError::other("cannot open the object store", e))
}

/// The tools' listeners, bound before the database starts so that their ports (0 in the settings:
/// any free port) are known to the functions started beside it, which may not call them.
#[derive(Default)]
struct ToolDoors {
    /// Studio's, when serving (None when its port is taken: the project is what the developer
    /// started, so Studio is left out with a warning).
    studio: Option<std::net::TcpListener>,
    /// The mail catcher's page.
    mail: Option<std::net::TcpListener>,
    /// The catcher's SMTP and POP3 doors (`[inbucket] smtp_port`, `pop3_port`).
    smtp: Option<std::net::TcpListener>,
    pop3: Option<std::net::TcpListener>,
}

impl ToolDoors {
    fn bind(cfg: &Config, mode: &Mode) -> Result<Self, CommandError> {
        let mut doors = Self::default();
        if let Some(p) = cfg.mail_port {
            let host = &cfg.mail_host;
            let door = |port: u16, what: &str| {
                server::listen(host, port).map_err(|e| {
                    CommandError::io(format!("cannot listen on {host}:{port} ({what})"), e)
                })
            };
            doors.mail = Some(door(p, "mail catcher")?);
            doors.smtp = (cfg.inbucket.smtp_port)
                .map(|p| door(p, "[inbucket] smtp_port"))
                .transpose()?;
            doors.pop3 = (cfg.inbucket.pop3_port)
                .map(|p| door(p, "[inbucket] pop3_port"))
                .transpose()?;
        }
        if let (Some(p), Mode::Serve { .. }) = (cfg.studio_port, mode) {
            match server::listen("127.0.0.1", p) {
                Ok(l) => doors.studio = Some(l),
                Err(e) => {
                    tracing::warn!("Studio is not served: cannot listen on 127.0.0.1:{p}: {e}")
                }
            }
        }
        Ok(doors)
    }

    /// The ports functions may not call: Studio's, the catcher's page and its POP3 door (they
    /// answer this machine).
    fn denied_to_functions(&self) -> Vec<u16> {
        [&self.studio, &self.mail, &self.pop3]
            .into_iter()
            .flatten()
            .filter_map(|l| l.local_addr().ok())
            .map(|a| a.port())
            .collect()
    }
}

/// What is set up before the database starts: the API's and the tools' listeners, and the
/// functions, started when serving so that they boot beside the database.
struct Early {
    listener: std::net::TcpListener,
    tools: ToolDoors,
    /// The settings with the port bound (`--port 0` asks for any).
    bound: Config,
    api: String,
    /// The functions (None inside: the project has none to serve); None when they are made
    /// after the database started (another supagate owned the data directory: the start stops
    /// at the database unless it ended meanwhile).
    functions: Option<Option<Arc<functions::Functions>>>,
}

/// Binds the API's and the tools' ports and, when serving, starts the project's functions: they
/// boot while the database starts, so that a first request after ready finds them warm. The
/// ports are bound first, so that a function's code
/// that calls the API as it loads waits for the API to answer instead of being refused; every
/// URL supagate builds (mail links, `iss`, TUS `Location`) names this address when
/// API_EXTERNAL_URL is not set, never a request's Host.
fn listen_early(cfg: &Config, mode: &Mode) -> Result<Early, CommandError> {
    let listener = server::listen(&cfg.host, cfg.port)
        .map_err(|e| CommandError::io(format!("cannot listen on {}:{}", cfg.host, cfg.port), e))?;
    let port = listener.local_addr()?.port();
    let bound = Config {
        port,
        ..cfg.clone()
    };
    let api = api_url(&bound, port);
    let tools = ToolDoors::bind(cfg, mode)?;
    let prewarm = matches!(mode, Mode::Serve { .. }) && find_deno(&cfg.deno).is_some();
    // Not while another supagate owns the data directory: its functions' sockets are in it.
    let functions = match pg::database::owner_pid(&cfg.data_dir) {
        Some(_) => None,
        None => {
            let db_url = pg::database::url(&super::db_settings(cfg));
            Some(crate::services::functions(&bound, &api, &db_url)?)
        }
    };
    if let Some(Some(f)) = &functions {
        f.deny_local_ports(tools.denied_to_functions());
        if prewarm {
            f.prewarm();
        }
    }
    Ok(Early {
        listener,
        tools,
        bound,
        api,
        functions,
    })
}

async fn serve(
    cfg: &Config,
    db: &Database,
    t0: Instant,
    mode: Mode,
    folders: &StateFolders,
    early: Early,
) -> Result<i32, CommandError> {
    // REST's schema cache is read beside the check of what is pending when the database was set
    // up before (a start on existing data then spends the check's time once), and read again
    // before ready if the check applied anything.
    let target = crate::services::Target {
        admin: db.admin.clone(),
        api: db.api.clone(),
        branch: false,
    }
    .sited(&early.bound, &early.api);
    let mut ahead = None;
    let mut prepared = migrate::prepare_with(&cfg.project, db, cfg.realtime_enabled, || {
        let (cfg, target) = (early.bound.clone(), target.clone());
        ahead = Some(tokio::spawn(async move {
            crate::services::start_rest(&cfg, &target).await
        }));
    })
    .await
    .inspect_err(|_| ahead.iter().for_each(|a| a.abort()))?;
    // A served database built now comes with a template built now: no reset has needed a spare
    // clone of it yet (see serve_api's tidying).
    let built_now = prepared.fresh;
    tracing::debug!(
        "start: migrations checked at {} ms",
        t0.elapsed().as_millis()
    );
    if let Some(dir) = &folders.import {
        let t = Instant::now();
        super::snapshot::state(cfg, db)
            .import(dir)
            .await
            .map_err(|e| CommandError::other(format!("cannot import {}", dir.display()), e))?;
        prepared.fresh = false;
        tracing::info!(
            "imported {} in {} ms",
            dir.display(),
            t.elapsed().as_millis()
        );
    }
    let ahead = ahead.map(|started| crate::services::RestAhead {
        started,
        stale: !prepared.applied.is_empty() || folders.import.is_some(),
    });
    // From here on, a cluster that dies is started again (aborted before the planned stop).
    let supervisor = db.embedded.clone().map(|pg| pg.supervise());
    let served = Served { target, ahead };
    let result = serve_api(db, t0, mode, prepared, early, built_now, served).await;
    if let Some(s) = supervisor {
        s.abort();
    }
    if let Some(dir) = &folders.export_on_exit {
        super::snapshot::state(cfg, db)
            .export(dir)
            .await
            .map_err(|e| CommandError::other(format!("cannot export to {}", dir.display()), e))?;
        eprintln!("Exported the state to {}.", dir.display());
    }
    result
}

/// The database the services serve, and REST when it started beside the migrations' check.
struct Served {
    target: crate::services::Target,
    ahead: Option<crate::services::RestAhead>,
}

async fn serve_api(
    db: &Database,
    t0: Instant,
    mode: Mode,
    prepared: migrate::Prepared,
    early: Early,
    built_now: bool,
    served: Served,
) -> Result<i32, CommandError> {
    let Early {
        listener,
        tools,
        bound,
        api,
        functions,
    } = early;
    let cfg = &bound;
    let functions = match functions {
        Some(made) => made,
        None => {
            // Made now (another supagate owned the data directory when this one began): not
            // started ahead of requests, booted by the first of each.
            let made = crate::services::functions(cfg, &api, &db.db_url)?;
            if let Some(f) = &made {
                f.deny_local_ports(tools.denied_to_functions());
            }
            made
        }
    };
    let store = open_store(cfg)?;
    // The stored files checked, the services built and the branches an earlier run left
    // dropped at once: each waits on its own connections.
    let tidy = async {
        if cfg.storage_backend == "file" {
            // This process owns the data directory: what an earlier one left half-written goes.
            let c = pg::connect(&db.admin).await?;
            match storage::sweep::local_versions(
                &cfg.data_dir.join("storage"),
                &c,
                std::time::Duration::from_secs(300),
            )
            .await
            {
                Ok(s) if s != storage::sweep::Swept::default() => tracing::warn!(
                    "removed {} unfinished upload(s), {} unreferenced stored version(s) and {} \
                     folder(s) of renderings or upload parts of versions that are gone",
                    s.staging,
                    s.orphans,
                    s.derived
                ),
                Ok(_) => {}
                Err(e) => tracing::warn!("could not check stored versions: {e}"),
            }
        }
        if prepared.fresh {
            upload_seed_objects(cfg, db, store.as_ref()).await?;
        }
        Ok::<(), CommandError>(())
    };
    let build = crate::services::build(
        cfg,
        served.target,
        &api,
        store.clone(),
        functions.clone(),
        served.ahead,
    );
    let branches = crate::services::branches(cfg, db, &api, store.clone(), functions.clone());
    let left_behind = async {
        if db.embedded.is_some() {
            branches.drop_left_behind().await;
        }
    };
    let (tidied, built, ()) = tokio::join!(tidy, build, left_behind);
    tidied?;
    let built = built?;
    tracing::debug!("start: services built at {} ms", t0.elapsed().as_millis());
    let realtime = built.services.realtime.clone();
    let mailer = built.mailer.clone();
    let state = Arc::new(state::AppState::new(
        cfg.clone(),
        built.services,
        api.clone(),
    ));
    let tasks = built.tasks;
    let server = server::serve(state.clone(), Some(branches.clone()), listener)
        .map_err(|e| CommandError::io(format!("cannot listen on {}:{}", cfg.host, cfg.port), e))?;
    let handle = server.handle();
    let running = tokio::spawn(server);
    let host = &cfg.mail_host;
    let mail = match tools.mail {
        Some(listener) => {
            let port = listener.local_addr()?.port();
            let server =
                gateway::catcher::serve(mailer.catcher(), host, listener).map_err(|e| {
                    CommandError::io(format!("cannot serve the mail catcher on {host}:{port}"), e)
                })?;
            Some((tokio::spawn(server), format!("http://{host}:{port}")))
        }
        None => None,
    };
    // The catcher's SMTP and POP3 doors, beside its page.
    let mut doors = Vec::new();
    for (listener, pop3) in [(tools.smtp, false), (tools.pop3, true)] {
        let Some(listener) = listener else { continue };
        listener.set_nonblocking(true)?;
        let listener = tokio::net::TcpListener::from_std(listener)?;
        let catcher = mailer.catcher();
        doors.push(if pop3 {
            tokio::spawn(mail::receive::serve_pop3(catcher, listener))
        } else {
            tokio::spawn(mail::receive::serve_smtp(catcher, listener))
        });
    }
    // Studio beside the API when serving (not for `exec`).
    let studio = match tools.studio {
        Some(listener) => {
            let catcher = cfg.mail_port.map(|_| mailer.catcher());
            match gateway::studio_api::serve(state.clone(), catcher, listener) {
                Ok(b) => Some((
                    tokio::spawn(b.server),
                    format!("http://127.0.0.1:{}", b.port),
                    b.token,
                )),
                Err(e) => {
                    tracing::warn!("Studio is not served: {e}");
                    None
                }
            }
        }
        None => None,
    };
    let values = status::values(
        cfg,
        &api,
        &db.db_url,
        status::Tools {
            mail: mail.as_ref().map(|m| m.1.as_str()),
            studio: studio.as_ref().map(|s| (s.1.as_str(), s.2.as_str())),
        },
    );
    status::write_state(&cfg.data_dir, &values)?;
    super::running::register(&cfg.project.root, &cfg.data_dir);
    let output = match &mode {
        Mode::Serve { output } => *output,
        Mode::Exec { .. } => None,
    };
    let written = match (&mode, output) {
        (Mode::Exec { .. }, _) => Ok(()),
        (_, Some(o)) => status::print(&values, o, true),
        (_, None) => {
            // As the CLI: the news on stderr, the tables setup scripts parse on stdout.
            eprintln!(
                "Started supagate {} local development setup for {}.\n",
                env!("CARGO_PKG_VERSION"),
                cfg.project.name()
            );
            let written =
                status::print(&values, Output::Pretty, false).and_then(|()| match cfg.site_dir {
                    Some(_) => writeln!(std::io::stdout(), "The site is served at {api}/\n"),
                    None => Ok(()),
                });
            eprintln!("Press Ctrl-C to stop.");
            written
        }
    };
    // A reader that went away (`start -o json | head -c1`) does not stop the project.
    if let Err(e) = written {
        tracing::warn!("the ready message was not written to stdout: {e}");
    }
    tracing::info!("ready in {} ms", t0.elapsed().as_millis());
    if db.embedded.is_some() {
        // Databases resets set aside and did not drop, in the background: each drop waits for
        // a checkpoint. A spare clone for the next reset when the template is current and was
        // there before this start (a reset on a data directory used before then takes it; a new
        // cluster would copy its template right after start for nothing, a reset makes one).
        let db = db.clone_logins();
        let project = (!built_now).then(|| cfg.project.clone());
        tokio::spawn(async move {
            if let Err(e) = pg::migrate::template::tidy(&db, project.as_ref()).await {
                tracing::warn!("could not tidy what resets left: {e}");
            }
        });
    }
    let code = match &mode {
        Mode::Serve { .. } => {
            wait_for_shutdown(cfg.stop_on_stdin_close).await;
            // stdout may be a closed pipe by now (a test harness that went away): never panic.
            if output.is_none() {
                let _ = writeln!(std::io::stdout(), "\nStopping…");
            }
            0
        }
        Mode::Exec { command } => run_command(command, &values, cfg.stop_on_stdin_close).await?,
    };
    if let Some(rt) = &realtime {
        rt.shutdown().await;
    }
    handle.stop(true).await;
    let _ = running.await;
    for door in doors {
        door.abort();
    }
    for task in mail.map(|m| m.0).into_iter().chain(studio.map(|s| s.0)) {
        task.abort();
    }
    branches.drop_all().await;
    for t in tasks {
        t.abort();
    }
    Ok(code)
}

/// The environment `exec` gives its command: the `status -o env` names and the names apps and
/// test setups commonly read.
pub fn command_env(values: &status::Values) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> =
        values.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    for (name, from) in [
        ("SUPABASE_URL", "API_URL"),
        ("SUPABASE_ANON_KEY", "ANON_KEY"),
        ("SUPABASE_SERVICE_ROLE_KEY", "SERVICE_ROLE_KEY"),
        ("SUPABASE_DB_URL", "DB_URL"),
    ] {
        if let Some(v) = values.get(from) {
            env.push((name.into(), v.clone()));
        }
    }
    env
}

/// Runs `exec`'s command to its end (or until supagate is told to stop, which stops it too).
async fn run_command(
    command: &[String],
    values: &status::Values,
    stdin_close: bool,
) -> Result<i32, CommandError> {
    let (program, args) = command
        .split_first()
        .ok_or_else(|| CommandError::Usage("exec needs a command after --".into()))?;
    let mut child = tokio::process::Command::new(program)
        .args(args)
        .envs(command_env(values))
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| CommandError::io(format!("cannot run {program}"), e))?;
    tokio::select! {
        status = child.wait() => {
            let status = status.map_err(|e| CommandError::io(program.as_str(), e))?;
            use std::os::unix::process::ExitStatusExt;
            Ok(status.code().unwrap_or_else(|| 128 + status.signal().unwrap_or(0)))
        }
        _ = wait_for_shutdown(stdin_close) => {
            let _ = child.kill().await;
            Ok(130)
        }
    }
}
