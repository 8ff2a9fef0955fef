//! supagate: PostgREST, GoTrue, Storage and Realtime compatible APIs over PostgreSQL in one
//! binary. Pointed at a project's `supabase/` folder it starts that project like
//! `supabase start`; with no DATABASE_URL it runs its own PostgreSQL cluster. This crate is
//! the command line: it reads flags and config.toml, runs the commands, and for `start` wires
//! the services into the gateway.

mod args;
mod commands;
mod config;
mod services;

use args::{Cli, Command, DbCommand, FunctionsCommand, GenCommand, MigrationCommand, UsersCommand};
use clap::Parser;
use std::process::ExitCode;

async fn run(cli: Cli) -> Result<(), String> {
    let project =
        project::Project::open(cli.flags.workdir.as_deref()).map_err(|e| e.to_string())?;
    let cfg = config::resolve(cli.flags, project)?;
    match cli.command.unwrap_or(Command::Start { output: None }) {
        Command::Start { output } => commands::start::start(cfg, output).await,
        Command::Stop => commands::status::stop(&cfg),
        Command::Status { output } => commands::status::status(&cfg, output),
        Command::Db(DbCommand::Reset) => commands::db::reset(&cfg).await,
        Command::Migration(MigrationCommand::New { name }) => {
            commands::db::new_migration(&cfg, &name)
        }
        Command::Migration(MigrationCommand::List) => commands::db::list(&cfg).await,
        Command::Migration(MigrationCommand::Up) => commands::db::up(&cfg).await,
        Command::Gen(GenCommand::Types { schemas, .. }) => {
            commands::codegen::types(&cfg, schemas).await
        }
        Command::Users(UsersCommand::Create { email, password }) => {
            commands::users::create(&cfg, &email, &password).await
        }
        Command::Functions(FunctionsCommand::New { name }) => {
            let api = commands::start::api_url(&cfg, cfg.port);
            commands::functions::new(&cfg, &api, &name)
        }
        Command::Functions(FunctionsCommand::List) => {
            commands::functions::list(&cfg);
            Ok(())
        }
    }
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
        .init();
    raise_open_file_limit();
    match run(Cli::parse()).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
