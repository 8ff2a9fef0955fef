//! supagate: PostgREST, GoTrue, Storage and Realtime compatible APIs over PostgreSQL in one
//! binary. Pointed at a project's `supabase/` folder it starts that project like
//! `supabase start`; with no DATABASE_URL it runs its own PostgreSQL cluster. This crate is
//! the command line: it reads flags and config.toml, runs the commands, and for `start` wires
//! the services into the gateway.

mod args;
mod commands;
mod config;
mod ports;
mod services;
mod workflow_args;

use args::{
    Cli, Command, DbCommand, FunctionsCommand, GenCommand, MigrationCommand, TestCommand,
    UsersCommand,
};
use commands::CommandError;
use std::process::ExitCode;

/// mimalloc instead of glibc's malloc: a request allocates and frees a few hundred small blocks,
/// and glibc's free alone was 8 % of the gateway's instructions per request (docs/BENCHMARKS.md).
/// Built without transparent huge pages (`no_thp`): mimalloc asked for them on its arena, and the
/// kernel then backed a few MB of live heap with whole 2 MB pages (16 MB of the gateway's 24 MB of
/// anonymous memory at idle; 8 MB without).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// A port nothing listens on now (the embedded cluster's TCP port for `exec --fresh`).
fn free_port() -> Result<u16, CommandError> {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|e| CommandError::io("cannot find a free port", e))
}

async fn run(mut cli: Cli) -> Result<(), CommandError> {
    // Completions need no project.
    if let Some(Command::Completion { shell }) = &cli.command {
        let mut cmd = args::command();
        let mut script = Vec::new();
        clap_complete::generate(*shell, &mut cmd, "supagate", &mut script);
        // A reader that stops early (`| head`) is no error.
        let _ = std::io::Write::write_all(&mut std::io::stdout(), &script);
        return Ok(());
    }
    // `list` and `stop --all` are about every project, not one.
    match &cli.command {
        Some(Command::List { output }) => return commands::running::list(*output),
        Some(Command::Stop { all: true }) => return commands::running::stop_all(),
        _ => {}
    }
    // `init` makes the project the other commands need, where it is asked to.
    if let Some(Command::Init { force }) = &cli.command {
        return commands::init::run(cli.flags.workdir.as_deref(), *force);
    }
    let project = project::Project::open(cli.flags.workdir.as_deref())?;
    commands::init::require(&project)?;
    // The keys file `gen signing-key` writes may not exist yet: the configuration (which reads
    // it) is not resolved for it.
    if let Some(Command::Gen(GenCommand::SigningKey { algorithm, append })) = &cli.command {
        return commands::keys::run(&project, algorithm, *append);
    }
    // `exec --fresh`: a data directory of its own (removed after) and ports nobody uses.
    let mut throwaway = None;
    if let Some(Command::Exec { fresh: true, .. }) = &cli.command {
        let f = &mut cli.flags;
        if f.data_dir.is_none() {
            let dir = std::env::temp_dir().join(format!("supagate-exec-{}", std::process::id()));
            f.data_dir = Some(dir.clone());
            throwaway = Some(dir);
        }
        f.port = f.port.or(Some(0));
        f.mail_port = f.mail_port.or(Some(0));
        f.db_port = match f.db_port {
            Some(p) => Some(p),
            None => Some(free_port()?),
        };
    }
    // `--ports auto` (for what serves): the project folder's own ports where no flag names one.
    let serves = matches!(
        cli.command,
        None | Some(Command::Start { .. }) | Some(Command::Exec { fresh: false, .. })
    );
    let mut auto_ports = None;
    // `[api] port = 0` (or SUPABASE_API_PORT=0) asks for the same unless `--ports config` says
    // otherwise (then the API takes any free port).
    let auto = match cli.flags.ports {
        Some(mode) => mode == args::PortsMode::Auto,
        None => project.config.api.port == 0,
    };
    if serves && auto {
        let data_dir = config::data_dir(&cli.flags, &project);
        // A project already running keeps its ports (start then says where it runs).
        if pg::database::owner_pid(&data_dir).is_none() {
            let p = ports::choose(&project.root, &data_dir)?;
            let f = &mut cli.flags;
            f.port = f.port.or(Some(p.api));
            f.db_port = f.db_port.or(Some(p.db));
            f.studio_port = f.studio_port.or(Some(p.studio));
            f.mail_port = f.mail_port.or(Some(p.mail));
            auto_ports = Some(p);
        }
    }
    let mut cfg = config::resolve(cli.flags, project)?;
    // The catcher's SMTP and POP3 ports too, where config.toml asks for them.
    if let Some(p) = auto_ports {
        let inbucket = &mut cfg.inbucket;
        inbucket.smtp_port = inbucket.smtp_port.map(|_| p.smtp);
        inbucket.pop3_port = inbucket.pop3_port.map(|_| p.pop3);
    }
    let command = cli.command.unwrap_or(Command::Start {
        output: None,
        state: Default::default(),
    });
    let result = dispatch(cfg, command).await;
    if let Some(dir) = throwaway {
        let _ = std::fs::remove_dir_all(dir);
    }
    match result? {
        0 => Ok(()),
        code => {
            // The command's own code, after every guard above has run.
            std::process::exit(code);
        }
    }
}

/// Runs one command; returns the exit code it asks for (`exec`: its command's).
async fn dispatch(cfg: gateway::config::Config, command: Command) -> Result<i32, CommandError> {
    use commands::start::Mode;
    let done = match command {
        Command::Start { output, state } => {
            return commands::start::start(cfg, Mode::Serve { output }, state).await;
        }
        Command::Exec { command, state, .. } => {
            return commands::start::start(cfg, Mode::Exec { command }, state).await;
        }
        Command::Snapshot(c) => commands::snapshot::run(&cfg, c).await,
        Command::Logs { follow, json } => commands::logs::follow(&cfg, follow, json).await,
        Command::Stop { .. } => commands::status::stop(&cfg),
        Command::List { output } => commands::running::list(output),
        Command::Status { output } => commands::status::status(&cfg, output),
        Command::Init { force } => commands::init::run(Some(&cfg.project.root), force),
        Command::Completion { .. } => Ok(()),
        Command::Db(DbCommand::Reset) => commands::db::reset(&cfg).await,
        Command::Db(DbCommand::Diff {
            file,
            schema,
            linked,
            db_url,
            local: _,
        }) => commands::diff::run(&cfg, file, schema, linked, db_url).await,
        Command::Db(DbCommand::Watch { once }) => commands::watch::run(&cfg, once).await,
        Command::Db(DbCommand::Lint {
            schema,
            level,
            fail_on,
            target,
        }) => {
            let rank = |l: &str| commands::lint::LEVELS.iter().position(|x| *x == l);
            let remote = commands::migration::target(&cfg, target.db_url, target.linked)?;
            let level = rank(&level).unwrap_or(0);
            commands::lint::run(&cfg, remote, schema, level, rank(&fail_on)).await
        }
        Command::Db(DbCommand::Dump {
            data_only,
            role_only,
            use_copy,
            exclude,
            keep_comments,
            file,
            schema,
            dry_run,
            target,
        }) => {
            use commands::dump::{Kind, Options};
            let kind = match (data_only, role_only) {
                (true, _) => Kind::Data,
                (_, true) => Kind::Roles,
                _ => Kind::Schema,
            };
            let remote = if target.linked {
                Some(commands::diff::linked_url(&cfg.project)?)
            } else {
                target.db_url
            };
            let opt = Options {
                schemas: schema,
                keep_comments,
                use_copy,
                exclude_tables: exclude,
            };
            commands::dump::run(&cfg, kind, opt, file, remote, dry_run).await
        }
        Command::Db(DbCommand::Push(a)) => commands::remote::push(&cfg, a).await,
        Command::Db(DbCommand::Pull(a)) => commands::remote::pull(&cfg, a).await,
        Command::Db(DbCommand::Advisors(a)) => commands::advisors::run(&cfg, a).await,
        Command::Inspect(c) => commands::inspect::run(&cfg, c).await,
        Command::Db(DbCommand::Query(a)) => commands::query::run(&cfg, a).await,
        Command::Seed(c) => commands::seed::run(&cfg, c).await,
        Command::Migration(MigrationCommand::Down(a)) => commands::remote::down(&cfg, a).await,
        Command::Migration(MigrationCommand::New { name }) => {
            commands::db::new_migration(&cfg, &name)
        }
        Command::Migration(MigrationCommand::List { target }) => {
            let remote = commands::migration::target(&cfg, target.db_url, target.linked)?;
            commands::migration::list(&cfg, remote).await
        }
        Command::Migration(MigrationCommand::Up { target }) => {
            let remote = commands::migration::target(&cfg, target.db_url, target.linked)?;
            commands::migration::up(&cfg, remote).await
        }
        Command::Migration(MigrationCommand::Repair {
            status,
            versions,
            target,
        }) => {
            let remote = commands::migration::target(&cfg, target.db_url, target.linked)?;
            commands::migration::repair(&cfg, remote, status, versions).await
        }
        Command::Migration(MigrationCommand::Fetch { target }) => {
            let remote = commands::migration::target(&cfg, target.db_url, target.linked)?;
            commands::migration::fetch(&cfg, remote).await
        }
        Command::Migration(MigrationCommand::Squash { version, target }) => {
            let remote = commands::migration::target(&cfg, target.db_url, target.linked)?;
            commands::migration::squash(&cfg, remote, version).await
        }
        Command::Gen(GenCommand::Types {
            schemas,
            lang,
            lang_flag,
            swift_access_control,
            ..
        }) => {
            let lang = lang.or(lang_flag).unwrap_or_else(|| "typescript".into());
            commands::codegen::types(&cfg, schemas, &lang, &swift_access_control).await
        }
        Command::Gen(GenCommand::BearerJwt {
            role,
            sub,
            exp,
            valid_for,
            payload,
        }) => commands::codegen::bearer_jwt(
            &cfg,
            &role,
            sub.as_deref(),
            exp.as_deref(),
            &valid_for,
            &payload,
        ),
        Command::Gen(GenCommand::Keys {
            project_ref,
            jwt_secret,
            override_name,
            output,
        }) => commands::codegen::gen_keys(
            &cfg,
            project_ref.as_deref(),
            jwt_secret.as_deref(),
            &override_name,
            &output,
        ),
        Command::Gen(GenCommand::SigningKey { algorithm, append }) => {
            commands::keys::run(&cfg.project, &algorithm, append)
        }
        Command::Users(UsersCommand::Create { email, password }) => {
            commands::users::create(&cfg, &email, &password).await
        }
        Command::Test(TestCommand::Db { paths, watch }) => {
            commands::test_db::run(&cfg, paths, watch).await
        }
        Command::Test(TestCommand::New { name, template: _ }) => {
            commands::test_db::new(&cfg, &name)
        }
        Command::Functions(FunctionsCommand::New { name }) => {
            let api = commands::start::api_url(&cfg, cfg.port);
            commands::functions::new(&cfg, &api, &name)
        }
        Command::Functions(FunctionsCommand::List) => {
            commands::functions::list(&cfg);
            Ok(())
        }
    };
    done.map(|()| 0)
}

/// Raises the open-file limit to what the system allows (sockets, pool connections and files all
/// count against it; 1024 is a common default), so that the connection budget the gateway
/// keeps within is as large as the machine permits.
fn raise_open_file_limit() {
    match rlimit::increase_nofile_limit(u64::MAX) {
        Ok(n) => tracing::debug!("open-file limit: {n}"),
        Err(e) => tracing::warn!("cannot raise the open-file limit: {e}"),
    }
}

/// The open-file limit now in force.
pub fn open_file_limit() -> u64 {
    rlimit::getrlimit(rlimit::Resource::NOFILE)
        .map(|(soft, _)| soft)
        .unwrap_or(1024)
}

#[actix_web::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()),
        )
        .with_writer(std::io::stderr)
        // Colour codes only on a terminal (a log written to a file or a pipe stays plain).
        .with_ansi(
            std::io::IsTerminal::is_terminal(&std::io::stderr())
                && std::env::var_os("NO_COLOR").is_none(),
        )
        .init();
    raise_open_file_limit();
    match run(args::parse()).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
