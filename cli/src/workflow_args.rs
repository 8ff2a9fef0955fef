//! The flags of the workflow commands (`db push`, `db pull`, `db advisors`, `db query`,
//! `migration down`, `inspect`, `seed`), in the CLI's words: a leaf module that `args` and the
//! commands both read, so neither imports the other.

use clap::builder::{PossibleValue, PossibleValuesParser};
use std::path::PathBuf;
use workbench::advisors::{LEVELS, TYPES};
use workbench::inspect::{DEPRECATED, REPORTS};

/// Which database a command works on: the local one unless told otherwise.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct Target {
    /// Works on the database specified by the connection string (must be percent-encoded).
    #[arg(long = "db-url", value_name = "URL", conflicts_with_all = ["linked", "local"])]
    pub db_url: Option<String>,
    /// Works on the linked project (supabase/.temp/project-ref, the password in
    /// SUPABASE_DB_PASSWORD).
    #[arg(long, conflicts_with = "local")]
    pub linked: bool,
    /// Works on the local database (the default).
    #[arg(long)]
    pub local: bool,
}

/// Flags of `db push`.
#[derive(clap::Args, Debug)]
pub struct PushArgs {
    /// Include all migrations not found on remote history table.
    #[arg(long)]
    pub include_all: bool,
    /// Include custom roles from supabase/roles.sql.
    #[arg(long)]
    pub include_roles: bool,
    /// Include seed data from your config.
    #[arg(long)]
    pub include_seed: bool,
    /// Print the migrations that would be applied, but don't actually apply them.
    #[arg(long)]
    pub dry_run: bool,
    /// Pushes to the database specified by the connection string (must be percent-encoded).
    #[arg(long = "db-url", value_name = "URL", conflicts_with_all = ["linked", "local"])]
    pub db_url: Option<String>,
    /// Pushes to the linked project (the default: supabase/.temp/project-ref, the password in
    /// SUPABASE_DB_PASSWORD).
    #[arg(long, conflicts_with = "local")]
    pub linked: bool,
    /// Pushes to the local database.
    #[arg(long)]
    pub local: bool,
}

/// Flags of `db pull`.
#[derive(clap::Args, Debug)]
pub struct PullArgs {
    /// Name of the migration file to write (default: remote_schema).
    #[arg(value_name = "MIGRATION NAME")]
    pub name: Option<String>,
    /// Comma separated list of schema to include.
    #[arg(short = 's', long = "schema", value_delimiter = ',')]
    pub schema: Vec<String>,
    /// Pulls from the database specified by the connection string (must be percent-encoded).
    #[arg(long = "db-url", value_name = "URL", conflicts_with_all = ["linked", "local"])]
    pub db_url: Option<String>,
    /// Pulls from the linked project (the default: supabase/.temp/project-ref, the password in
    /// SUPABASE_DB_PASSWORD).
    #[arg(long, conflicts_with = "local")]
    pub linked: bool,
    /// Pulls from the local database.
    #[arg(long)]
    pub local: bool,
}

/// Flags of `migration down`.
#[derive(clap::Args, Debug)]
pub struct DownArgs {
    /// Reset up to the last n migration versions.
    #[arg(long, default_value_t = 1)]
    pub last: u32,
    /// Resets applied migrations on the database specified by the connection string (must be
    /// percent-encoded).
    #[arg(long = "db-url", value_name = "URL", conflicts_with_all = ["linked", "local"])]
    pub db_url: Option<String>,
    /// Resets applied migrations on the linked project.
    #[arg(long, conflicts_with = "local")]
    pub linked: bool,
    /// Resets applied migrations on the local database (the default).
    #[arg(long)]
    pub local: bool,
}

/// Flags of `db advisors`.
#[derive(clap::Args, Debug)]
pub struct AdvisorsArgs {
    /// Type of advisors to check: all, security, performance.
    #[arg(long = "type", value_parser = TYPES, default_value = "all")]
    pub kind: String,
    /// Minimum issue level to display: info, warn, error.
    #[arg(long, value_parser = LEVELS, default_value = "warn")]
    pub level: String,
    /// Issue level to exit with non-zero status: none, info, warn, error.
    #[arg(long = "fail-on", value_parser = ["none", "info", "warn", "error"], default_value = "none")]
    pub fail_on: String,
    /// Output format: the CLI's JSON, or a table.
    #[arg(short = 'o', long = "output", value_parser = ["json", "table"], default_value = "json")]
    pub output: String,
    #[command(flatten)]
    pub target: Target,
}

/// The names `inspect db` takes, each with what it shows (the deprecated ones hidden).
fn report_names() -> PossibleValuesParser {
    let current = REPORTS
        .iter()
        .map(|r| PossibleValue::new(r.name).help(r.about));
    let old = DEPRECATED
        .iter()
        .map(|(old, _)| PossibleValue::new(*old).hide(true));
    PossibleValuesParser::new(current.chain(old))
}

#[derive(clap::Subcommand, Debug)]
pub enum InspectCommand {
    /// Tools to inspect your Supabase database: one report, as a table.
    Db {
        /// The report.
        #[arg(value_parser = report_names())]
        report: String,
        #[command(flatten)]
        target: Target,
    },
    /// Generate a CSV output for all inspect commands: one file per report in
    /// <output-dir>/<date>.
    Report {
        /// Path to save CSV files in.
        #[arg(long = "output-dir", default_value = ".")]
        output_dir: PathBuf,
        #[command(flatten)]
        target: Target,
    },
}

/// Flags of `db query`.
#[derive(clap::Args, Debug)]
pub struct QueryArgs {
    /// The SQL to run (else --file, else standard input).
    #[arg(value_name = "SQL")]
    pub sql: Option<String>,
    /// Path to a SQL file to execute.
    #[arg(
        short = 'f',
        long = "file",
        value_name = "PATH",
        conflicts_with = "sql"
    )]
    pub file: Option<PathBuf>,
    /// Output format: table, json, or csv.
    #[arg(short = 'o', long = "output", value_parser = ["table", "json", "csv"], default_value = "table")]
    pub output: String,
    #[command(flatten)]
    pub target: Target,
}

#[derive(clap::Subcommand, Debug)]
pub enum SeedCommand {
    /// Seed buckets declared in [storage.buckets]: each created or updated, and the files
    /// under its objects_path uploaded.
    Buckets {
        /// Seeds the local database (the only one it works on).
        #[arg(long)]
        local: bool,
    },
}
