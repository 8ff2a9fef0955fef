//! supagate: PostgREST, GoTrue and Supabase Storage compatible API over PostgreSQL in one
//! binary. Pointed at a project's `supabase/` folder it starts that project like
//! `supabase start`; with no DATABASE_URL it runs its own PostgreSQL cluster.

mod auth_api;
mod cli;
mod commands;
mod config;
mod database;
mod db;
mod embedded_pg;
mod error;
mod fairness;
mod guard;
mod http_util;
mod listen;
mod mail;
mod migrate;
mod openapi;
mod pipeline;
mod realtime;
mod request_auth;
mod rest;
mod schema_cache;
mod server;
mod site;
mod state;
mod storage_api;
mod typegen;

use clap::Parser;
use cli::{Cli, Command, DbCommand, GenCommand, MigrationCommand, UsersCommand};
use config::Config;
use std::process::ExitCode;

async fn run(cli: Cli) -> Result<(), String> {
    let project =
        project::Project::open(cli.flags.workdir.as_deref()).map_err(|e| e.to_string())?;
    let cfg = Config::resolve(cli.flags, project)?;
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
    }
}

#[actix_web::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    match run(Cli::parse()).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
