//! The command line: commands named as the Supabase CLI names them, and flags (each with an
//! environment variable) that override what the project's config.toml says.

use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(
    name = "supagate",
    version = concat!(env!("CARGO_PKG_VERSION"), " (", env!("SUPAGATE_COMMIT"), ")"),
    about = "Supabase-compatible REST, Auth and Storage over PostgreSQL, in one binary. \
             Runs a project's supabase/ folder like `supabase start`."
)]
pub struct Cli {
    #[command(flatten)]
    pub flags: Flags,
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// Flags every command's help shows; the others are the server's, shown by `start` and `exec`
/// (still accepted anywhere, before or after the command, with their environment variables).
const SHOWN_EVERYWHERE: [&str; 2] = ["workdir", "data_dir"];

/// The server's flags as a help section: `long` for `--help`, else `-h`'s one line each.
fn server_options(long: bool) -> clap::builder::StyledStr {
    let mut c = Flags::augment_args(clap::Command::new("supagate"))
        .disable_help_flag(true)
        .help_template("Server options (given before or after the command):\n{options}")
        .mut_args(|a| {
            let hide = SHOWN_EVERYWHERE.contains(&a.get_id().as_str()) || a.is_hide_set();
            a.global(false).hide(hide)
        });
    if long {
        c.render_long_help()
    } else {
        c.render_help()
    }
}

/// The command line: each command's help shows its own options and the global ones it uses;
/// the server's options are listed by `start`, `exec` and the default command's help only.
pub fn command() -> clap::Command {
    let server: Vec<String> = Flags::augment_args(clap::Command::new("flags"))
        .get_arguments()
        .map(|a| a.get_id().to_string())
        .filter(|id| !SHOWN_EVERYWHERE.contains(&id.as_str()))
        .collect();
    let with_server = |c: clap::Command| {
        c.after_help(server_options(false))
            .after_long_help(server_options(true))
    };
    Cli::command()
        .mut_args(|a| {
            if server.iter().any(|id| id == a.get_id().as_str()) {
                a.hide(true)
            } else {
                a
            }
        })
        .after_help(
            "Server options (--port, --db-port, --host, --jwt-secret, …): `supagate start --help`.",
        )
        .mut_subcommand("start", with_server)
        .mut_subcommand("exec", with_server)
}

/// Parses the process's arguments (exits with clap's message on a bad one, or after help).
pub fn parse() -> Cli {
    let matches = command().get_matches();
    Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit())
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Initialize a local project.
    ///
    /// Writes supabase/config.toml as `supabase init` does (the CLI's template, project_id from
    /// the folder's name) and, inside a git repository, the CLI's supabase/.gitignore. Refuses
    /// to replace a config.toml without --force; migrations and functions are left alone.
    Init {
        /// Overwrite existing supabase/config.toml.
        #[arg(long)]
        force: bool,
    },
    /// Start the project (the default): database, migrations, seed on a new database, API.
    Start {
        /// `json`: print one line of JSON (the `status -o json` values) when ready, no banner.
        #[arg(short = 'o', long = "output", value_enum)]
        output: Option<Output>,
        #[command(flatten)]
        state: StateFolders,
    },
    /// Stop the supagate running this project.
    Stop {
        /// Stop every project supagate runs on this machine (those `supagate list` shows).
        #[arg(long)]
        all: bool,
    },
    /// List every project supagate runs on this machine, with its URLs.
    List {
        /// `json`: an array of objects (project, data_dir, pid and the URLs).
        #[arg(short = 'o', long = "output", value_enum, default_value = "pretty")]
        output: ListOutput,
    },
    /// Show the URLs and keys of the running project.
    Status {
        #[arg(short = 'o', long = "output", value_enum, default_value = "pretty")]
        output: Output,
    },
    /// Database commands.
    #[command(subcommand)]
    Db(DbCommand),
    /// Migration files.
    #[command(subcommand)]
    Migration(MigrationCommand),
    /// Generate code from the database schema.
    #[command(subcommand)]
    Gen(GenCommand),
    /// Tools to inspect your Supabase project: the database's reports (`inspect db <report>`)
    /// as tables, or all of them as CSV files (`inspect report`).
    #[command(subcommand)]
    Inspect(crate::workflow_args::InspectCommand),
    /// Seed a Supabase project from supabase/config.toml.
    #[command(subcommand)]
    Seed(crate::workflow_args::SeedCommand),
    /// Users of the auth API (what GoTrue's admin API does).
    #[command(subcommand)]
    Users(UsersCommand),
    /// Edge Functions under supabase/functions.
    #[command(subcommand)]
    Functions(FunctionsCommand),
    /// Tests: `test db` runs the project's pgTAP files.
    #[command(subcommand)]
    Test(TestCommand),
    /// Follows the running gateway's requests: each with its role, the SQL it ran and what
    /// row level security did (rows hidden, or why a write was refused).
    Logs {
        #[arg(short = 'f', long)]
        follow: bool,
        /// The events as JSON lines.
        #[arg(long)]
        json: bool,
    },
    /// Named snapshots of the whole state (database: auth users, sessions, every schema, caught
    /// mail and texts, realtime's messages; and the stored objects), kept beside the project's
    /// database. Restoring takes a fraction of a second.
    #[command(subcommand)]
    Snapshot(SnapshotCommand),
    /// Prints a shell completion script: `source <(supagate completion bash)`, or into zsh's
    /// `fpath` as `_supagate`, or fish's completions folder.
    Completion {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Starts the project, runs COMMAND with its URLs and keys in the environment (the names
    /// `status -o env` prints, plus SUPABASE_URL, SUPABASE_ANON_KEY, SUPABASE_SERVICE_ROLE_KEY
    /// and SUPABASE_DB_URL), stops it, and exits with the command's exit code.
    Exec {
        /// A throwaway data directory and free ports: nothing of the project's own data is
        /// touched, and several `exec`s of one project can run at once. Otherwise the project's
        /// data directory and its configured ports.
        #[arg(long)]
        fresh: bool,
        #[command(flatten)]
        state: StateFolders,
        /// The command and its arguments (after `--`).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, required = true)]
        command: Vec<String>,
    },
}

/// A snapshot folder loaded at start and written at the end (as Firebase's emulators take
/// `--import` and `--export-on-exit`).
#[derive(Args, Debug, Clone, Default)]
pub struct StateFolders {
    /// Loads the state from a snapshot folder before serving.
    #[arg(long, value_name = "DIR")]
    pub import: Option<PathBuf>,
    /// Writes the whole state to a snapshot folder when stopping.
    #[arg(long = "export-on-exit", value_name = "DIR")]
    pub export_on_exit: Option<PathBuf>,
}

#[derive(Subcommand, Debug)]
pub enum SnapshotCommand {
    /// Saves the state as NAME (replacing a snapshot of that name).
    Save {
        name: String,
    },
    /// Puts snapshot NAME back (running gateways reconnect by themselves).
    Restore {
        name: String,
    },
    List,
    Delete {
        name: String,
    },
    /// Writes the state to a portable snapshot folder (what `--import` loads).
    Export {
        dir: PathBuf,
    },
    /// Loads a snapshot folder.
    Import {
        dir: PathBuf,
    },
}

#[derive(Subcommand, Debug)]
pub enum TestCommand {
    /// Runs pgTAP tests (supabase/tests/**/*.sql and *.pg, or the paths given) against the
    /// project's database, as `supabase test db` does: each file through psql as the database
    /// owner, pgTAP and the test helpers (`tests.create_supabase_user`, `tests.authenticate_as`,
    /// …) enabled for the run. Failing assertions are printed in full; exits 1 when any fails.
    Db {
        /// Files or folders (default: supabase/tests).
        paths: Vec<PathBuf>,
        /// Runs again whenever a test file changes (Ctrl-C ends).
        #[arg(long)]
        watch: bool,
    },
    /// Create a new test file: supabase/tests/<name>_test.sql from the CLI's pgTAP template.
    New {
        name: String,
        /// Template framework to generate.
        #[arg(short = 't', long, value_parser = ["pgtap"], default_value = "pgtap")]
        template: String,
    },
}

#[derive(Subcommand, Debug)]
pub enum FunctionsCommand {
    /// Create supabase/functions/<name>/index.ts from a template and declare it in config.toml.
    New { name: String },
    /// List the project's functions.
    List,
}

#[derive(Subcommand, Debug)]
pub enum DbCommand {
    /// Rebuild the local database from the migrations and seed files.
    Reset,
    /// Diffs the local database for schema changes.
    ///
    /// Prints the SQL that turns the schema the migrations build (a copy of the template
    /// database, not a shadow database) into the local database's, or a remote one's, or,
    /// when there are declared schema files (`[db.migrations] schema_paths`, else
    /// supabase/schemas/**/*.sql), theirs. Schemas Supabase manages are left out unless named,
    /// but the triggers and policies an app puts on their tables are included.
    Diff {
        /// Saves schema diff to a new migration file.
        #[arg(short = 'f', long = "file", value_name = "NAME")]
        file: Option<String>,
        /// Comma separated list of schema to include.
        #[arg(short = 's', long = "schema", value_delimiter = ',')]
        schema: Vec<String>,
        /// Diffs local migration files against the linked project (supabase/.temp/project-ref,
        /// the password in SUPABASE_DB_PASSWORD).
        #[arg(long, conflicts_with_all = ["db_url", "local"])]
        linked: bool,
        /// Diffs against the database specified by the connection string (must be
        /// percent-encoded).
        #[arg(long = "db-url", value_name = "URL", conflicts_with = "local")]
        db_url: Option<String>,
        /// Diffs local migration files against the local database (the default).
        #[arg(long)]
        local: bool,
    },
    /// Applies the declared schema files to the local database as they change.
    ///
    /// The files (`[db.migrations] schema_paths`, else supabase/schemas/**/*.sql) are built
    /// into a copy of the platform, compared with the local database, and the difference is
    /// run there in one transaction: an edit is live in the running gateway without a
    /// migration or a reset (`db diff -f` then writes the migration). A file that does not
    /// apply changes nothing and is reported.
    Watch {
        /// Applies the files once, as they are, and exits (non-zero when they do not apply).
        #[arg(long)]
        once: bool,
    },
    /// Checks local database for typing error: plpgsql_check over every PL/pgSQL function of
    /// the project's schemas (nothing is left in the database), issues printed as JSON.
    Lint {
        /// Comma separated list of schema to include.
        #[arg(short = 's', long = "schema", value_delimiter = ',')]
        schema: Vec<String>,
        /// Error level to emit.
        #[arg(long, value_parser = ["warning", "error"], default_value = "warning")]
        level: String,
        /// Error level to exit with non-zero status.
        #[arg(long = "fail-on", value_parser = ["none", "warning", "error"], default_value = "none")]
        fail_on: String,
        #[command(flatten)]
        target: MigrationTarget,
    },
    /// Dumps data or schemas from the local database (or --db-url's, or the linked project's):
    /// pg_dump of the project's PostgreSQL version, the schemas and roles Supabase manages left
    /// out as the CLI leaves them out.
    Dump {
        /// Dumps only data records.
        #[arg(long, conflicts_with = "role_only")]
        data_only: bool,
        /// Dumps only cluster roles.
        #[arg(long)]
        role_only: bool,
        /// Use copy statements in place of inserts.
        #[arg(long, requires = "data_only")]
        use_copy: bool,
        /// List of schema.tables to exclude from data-only dump.
        #[arg(
            short = 'x',
            long = "exclude",
            value_delimiter = ',',
            requires = "data_only"
        )]
        exclude: Vec<String>,
        /// Keeps commented lines from pg_dump output.
        #[arg(long, conflicts_with = "data_only")]
        keep_comments: bool,
        /// File path to save the dumped contents.
        #[arg(short = 'f', long = "file", value_name = "PATH")]
        file: Option<PathBuf>,
        /// Comma separated list of schema to include.
        #[arg(
            short = 's',
            long = "schema",
            value_delimiter = ',',
            conflicts_with = "role_only"
        )]
        schema: Vec<String>,
        /// Prints the pg_dump script that would be executed.
        #[arg(long)]
        dry_run: bool,
        #[command(flatten)]
        target: MigrationTarget,
    },
    /// Push new migrations to the remote database: the local migrations it has not recorded
    /// in supabase_migrations.schema_migrations, each applied and recorded as the CLI records
    /// it (the linked project unless --db-url or --local).
    Push(crate::workflow_args::PushArgs),
    /// Pull schema from the remote database: what it has that the local migrations do not
    /// build, written as a new migration by the schema differ and recorded in its history.
    Pull(crate::workflow_args::PullArgs),
    /// Checks database for security and performance issues: the dashboard's lints (missing
    /// RLS policies, unindexed foreign keys, exposed auth.users, and more), with the same
    /// names, levels and remediation links, printed as JSON.
    Advisors(crate::workflow_args::AdvisorsArgs),
    /// Execute a SQL query against the database: the local one (or --db-url's), its rows as a
    /// table, JSON or CSV.
    Query(crate::workflow_args::QueryArgs),
}

/// Which database a migration command works on: the local one unless told otherwise.
pub use crate::workflow_args::Target as MigrationTarget;

#[derive(Subcommand, Debug)]
pub enum MigrationCommand {
    /// Create an empty migration script supabase/migrations/<timestamp>_<name>.sql.
    New { name: String },
    /// List local and remote migrations: each version of supabase/migrations beside the
    /// versions the database's supabase_migrations.schema_migrations records.
    List {
        #[command(flatten)]
        target: MigrationTarget,
    },
    /// Apply pending migrations to local database (or --db-url's), recording each as the CLI
    /// records it.
    Up {
        #[command(flatten)]
        target: MigrationTarget,
    },
    /// Repair the migration history table: record versions as applied (without running them)
    /// or forget them. Without versions, the whole table is made to match the local files
    /// (after a confirmation).
    Repair {
        /// Version status to update.
        #[arg(long, value_enum, required = true)]
        status: RepairStatus,
        /// Versions (the timestamps of the files' names).
        versions: Vec<String>,
        #[command(flatten)]
        target: MigrationTarget,
    },
    /// Fetch migration files from history table: each recorded migration written to
    /// supabase/migrations/<version>_<name>.sql from its recorded statements (existing files are
    /// overwritten after a confirmation).
    Fetch {
        #[command(flatten)]
        target: MigrationTarget,
    },
    /// Resets applied migrations up to the last n versions: the database rebuilt from the
    /// migrations before them (and the seed), after a confirmation; the local one unless
    /// --db-url or --linked.
    Down(crate::workflow_args::DownArgs),
    /// Squash migrations to a single file: the schema the migrations up to --version build
    /// (written over the last of them, the others removed). Data the migrations insert is not
    /// kept, as in the CLI. With --db-url, that database's history is baselined to the version.
    Squash {
        /// Squash up to the specified version.
        #[arg(long, value_name = "VERSION")]
        version: Option<String>,
        #[command(flatten)]
        target: MigrationTarget,
    },
}

/// `--status` of `migration repair`.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum RepairStatus {
    Applied,
    Reverted,
}

#[derive(Subcommand, Debug)]
pub enum GenCommand {
    /// Generate types from Postgres schema: TypeScript, as `supabase gen types typescript
    /// --local` prints them, Go structs (`go`), Swift types (`swift`) or Python models
    /// (`python`), as postgres-meta generates them.
    Types {
        #[arg(value_parser = ["typescript", "go", "swift", "python"])]
        lang: Option<String>,
        /// Accepted for compatibility with the Supabase CLI (the database is always the local one).
        #[arg(long)]
        local: bool,
        /// Output language of the generated types.
        #[arg(long = "lang", value_parser = ["typescript", "go", "swift", "python"])]
        lang_flag: Option<String>,
        /// Access control for Swift generated types.
        #[arg(long = "swift-access-control", value_parser = ["internal", "public", "private", "package"], default_value = "internal")]
        swift_access_control: String,
        /// Schemas to include (default: public and the API's schemas).
        #[arg(short = 's', long = "schema", value_delimiter = ',')]
        schemas: Vec<String>,
    },
    /// Generate a Bearer Auth JWT for accessing Data API, signed as the project signs tokens
    /// (its [auth] signing key when it has one, else its JWT secret).
    BearerJwt {
        /// Postgres role to use.
        #[arg(long, required = true)]
        role: String,
        /// User ID to impersonate (default: anonymous).
        #[arg(long)]
        sub: Option<String>,
        /// Expiry timestamp for this token (RFC 3339).
        #[arg(long)]
        exp: Option<String>,
        /// Validity duration for this token.
        #[arg(long = "valid-for", default_value = "30m")]
        valid_for: String,
        /// Custom claims in JSON format.
        #[arg(long, default_value = "{}")]
        payload: String,
    },
    /// Generate keys for preview branch: its host, database password, JWT secret and API keys,
    /// derived as the Supabase CLI derives them (the JWT secret is given here: the CLI reads it
    /// from the Management API).
    Keys {
        /// Project ref of the Supabase project (default: the linked one).
        #[arg(long = "project-ref")]
        project_ref: Option<String>,
        /// The project's JWT secret (Project Settings → API).
        #[arg(
            long = "jwt-secret",
            env = "SUPABASE_AUTH_JWT_SECRET",
            hide_env_values = true
        )]
        jwt_secret: Option<String>,
        /// Override specific variable names (KEY=NAME, e.g. auth.anon_key=VITE_ANON_KEY).
        #[arg(long = "override-name", value_delimiter = ',')]
        override_name: Vec<String>,
        /// Output format of key variables.
        #[arg(short = 'o', long, value_parser = ["env", "json"], default_value = "env")]
        output: String,
    },
    /// Generate a JWT signing key: a private JWK printed, or written to `[auth]
    /// signing_keys_path` when the project names a file there (ES256 or RS256).
    SigningKey {
        /// Algorithm for signing key generation.
        #[arg(long, value_parser = ["ES256", "RS256"], default_value = "ES256")]
        algorithm: String,
        /// Append new key to existing keys file instead of overwriting.
        #[arg(long)]
        append: bool,
    },
}

#[derive(Subcommand, Debug)]
pub enum UsersCommand {
    /// Create a confirmed user with an e-mail and password.
    Create { email: String, password: String },
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    Pretty,
    Env,
    Json,
    Toml,
    Yaml,
}

/// How `list` prints.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListOutput {
    Pretty,
    Json,
}

/// Where a project's ports come from.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum PortsMode {
    /// config.toml's ports (the CLI's defaults: 54321…).
    Config,
    /// Ports of the project folder's own (see `--ports`).
    Auto,
}

/// Flags override config.toml, which overrides the CLI's defaults.
#[derive(Args, Debug, Clone)]
pub struct Flags {
    /// The project folder (the one that holds supabase/); default: the nearest folder at or
    /// above the current one with supabase/config.toml.
    #[arg(long, env = "SUPABASE_WORKDIR", global = true)]
    pub workdir: Option<PathBuf>,
    /// Where the embedded PostgreSQL cluster and stored files live
    /// (default: <project>/supabase/.temp/supagate).
    #[arg(long, env = "SUPAGATE_DATA_DIR", global = true)]
    pub data_dir: Option<PathBuf>,
    /// Address the HTTP server binds to.
    #[arg(
        long,
        env = "SUPAGATE_HOST",
        default_value = "127.0.0.1",
        global = true
    )]
    pub host: String,
    /// HTTP port; 0 picks a free one (default: config.toml [api] port, 54321).
    #[arg(long, env = "SUPAGATE_PORT", global = true)]
    pub port: Option<u16>,
    /// TCP port of the embedded PostgreSQL on 127.0.0.1; 0: unix socket only
    /// (default: config.toml [db] port, 54322).
    #[arg(long, env = "SUPAGATE_DB_PORT", global = true)]
    pub db_port: Option<u16>,
    /// Port of the built-in mail catcher's page and API; 0 picks a free one (default:
    /// config.toml [inbucket] port, 54324).
    #[arg(long, env = "SUPAGATE_MAIL_PORT", global = true)]
    pub mail_port: Option<u16>,
    /// `auto`: ports of the project's own for every port no flag names (API, database, Studio,
    /// mail catcher and its SMTP and POP3 ports: a block of ten from a hash of the project
    /// folder, checked free and kept in
    /// the data directory), so several projects or worktrees run side by side and each keeps
    /// its ports across restarts; config.toml's `[api] port = 0` asks for it too. `config`
    /// (default): config.toml's ports.
    #[arg(long, env = "SUPAGATE_PORTS", value_enum, global = true)]
    pub ports: Option<PortsMode>,
    /// Port of Studio, the dashboard; 0 picks a free one (default: config.toml [studio] port,
    /// 54323). It listens on 127.0.0.1 only.
    #[arg(long, env = "SUPAGATE_STUDIO_PORT", global = true)]
    pub studio_port: Option<u16>,
    /// Environment of Edge Functions (default: supabase/functions/.env when it exists); names
    /// starting with SUPABASE_ are skipped, as the CLI skips them.
    #[arg(long, env = "SUPAGATE_FUNCTIONS_ENV_FILE", global = true)]
    pub env_file: Option<std::path::PathBuf>,
    /// The Deno that runs Edge Functions (default: `deno` on PATH).
    #[arg(long, env = "DENO_BIN", global = true)]
    pub deno: Option<std::path::PathBuf>,
    /// Address the mail catcher listens on. It shows sign-in links and codes: it stays on
    /// loopback unless asked, whatever --host says (default: 127.0.0.1).
    #[arg(long, env = "SUPAGATE_MAIL_HOST", global = true)]
    pub mail_host: Option<String>,
    /// Extra settings for the embedded PostgreSQL, as `name=value` pairs separated by spaces.
    #[arg(long, env = "SUPAGATE_PG_SETTINGS", default_value = "", global = true)]
    pub pg_settings: String,
    /// Use this PostgreSQL server instead of the embedded one. The user must be able to create
    /// roles and schemas (for migrations).
    #[arg(long, env = "DATABASE_URL", global = true, hide_env_values = true)]
    pub database_url: Option<String>,
    /// Folder with PostgreSQL's initdb, pg_ctl and postgres (found automatically when unset).
    #[arg(long, env = "PG_BIN_DIR", global = true)]
    pub pg_bin_dir: Option<PathBuf>,
    /// Where the private installations of PostgreSQL (the system's, with supagate's
    /// extensions) and a pristine cluster for new data directories are kept, shared by every
    /// project (default: $XDG_CACHE_HOME/supagate, else ~/.cache/supagate).
    #[arg(long, env = "SUPAGATE_CACHE_DIR", global = true)]
    pub cache_dir: Option<PathBuf>,
    /// HS256 secret for access tokens and API keys (default: the Supabase CLI's demo secret).
    #[arg(long, env = "JWT_SECRET", global = true, hide_env_values = true)]
    pub jwt_secret: Option<String>,
    /// Access token lifetime in seconds (default: config.toml [auth] jwt_expiry, 3600).
    #[arg(long, env = "JWT_EXPIRY", global = true)]
    pub jwt_expiry: Option<i64>,
    /// Public URL of the API, as clients reach it (default: http://<host>:<port>).
    #[arg(long, env = "API_EXTERNAL_URL", global = true)]
    pub api_external_url: Option<String>,
    /// A built site (e.g. a Vite `dist` folder) to serve at `/`.
    #[arg(long, env = "SUPAGATE_SITE_DIR", global = true)]
    pub site_dir: Option<PathBuf>,
    /// Schemas exposed by /rest/v1, comma separated (default: config.toml [api] schemas).
    #[arg(long, env = "PGRST_DB_SCHEMAS", global = true)]
    pub db_schemas: Option<String>,
    /// The base URL of the enabled SMS provider's API, for a compatible service or a stand-in
    /// (default: the provider's own: https://api.twilio.com, https://rest.messagebird.com,
    /// https://api.textlocal.in, https://rest.nexmo.com).
    #[arg(
        long,
        visible_alias = "twilio-api-url",
        env = "SUPAGATE_SMS_API_URL",
        global = true
    )]
    pub sms_api_url: Option<String>,
    /// Schemas on every request's search_path after the exposed one, comma separated (default:
    /// config.toml [api] extra_search_path).
    #[arg(long, env = "PGRST_DB_EXTRA_SEARCH_PATH", global = true)]
    pub db_extra_search_path: Option<String>,
    /// Most rows a read returns (default: config.toml [api] max_rows, 1000).
    #[arg(long, env = "PGRST_DB_MAX_ROWS", global = true)]
    pub max_rows: Option<u64>,
    /// HTTP worker threads (default: one per CPU).
    #[arg(long, env = "SUPAGATE_WORKERS", global = true)]
    pub workers: Option<usize>,
    /// Connections for REST requests, shared out among the workers; storage, schema reloads and
    /// health checks have half as many of their own.
    #[arg(long, env = "DB_POOL", default_value_t = 10, global = true)]
    pub db_pool: usize,
    /// Most REST requests one client address runs at once (default: half the pool); more wait
    /// their turn without holding up other clients. 0 turns the limit off.
    #[arg(long, env = "MAX_CLIENT_QUERIES", global = true)]
    pub max_client_queries: Option<usize>,
    /// Changes of one transaction realtime delivers one by one at most; a larger transaction
    /// reaches each subscriber of its tables as one overflow system message.
    #[arg(
        long,
        env = "REALTIME_MAX_TRANSACTION_CHANGES",
        default_value_t = 10_000,
        global = true
    )]
    pub realtime_max_transaction_changes: usize,
    /// Milliseconds a gateway waits after starting for change subscribers to come back before
    /// it delivers what was committed while it was down.
    #[arg(
        long,
        env = "REALTIME_RESUME_GRACE_MS",
        default_value_t = 10_000,
        global = true
    )]
    pub realtime_resume_grace_ms: u64,
    /// MiB of image renderings kept in the object store, all objects together; the least
    /// recently used go first.
    #[arg(
        long,
        env = "SUPAGATE_RENDER_CACHE_MB",
        default_value_t = 256,
        global = true
    )]
    pub render_cache_mb: u64,
    /// Renderings kept per object (distinct sizes and formats); its least recently used go.
    #[arg(
        long,
        env = "SUPAGATE_RENDER_VARIANTS",
        default_value_t = 16,
        global = true
    )]
    pub render_variants: u32,
    /// MiB image renderings in progress may take together (each counted from its source's
    /// header before decoding; one that needs more runs alone).
    #[arg(
        long,
        env = "SUPAGATE_RENDER_MEMORY_MB",
        default_value_t = 512,
        global = true
    )]
    pub render_memory_mb: u64,
    /// Connections kept for the auth API apart from the pool, so that sign-in works while REST
    /// requests hold every pooled connection.
    #[arg(long, env = "DB_AUTH_POOL", default_value_t = 2, global = true)]
    pub db_auth_pool: usize,
    /// Prepared statements each connection keeps (least recently used ones are closed), so that
    /// many distinct queries cannot grow the server's memory without bound.
    #[arg(long, env = "DB_STATEMENT_CACHE", default_value_t = 256, global = true)]
    pub statement_cache: usize,
    /// Seconds to wait for a pool connection before answering 504 PGRST003.
    #[arg(long, env = "DB_POOL_TIMEOUT", default_value_t = 10, global = true)]
    pub db_pool_timeout: u64,
    /// Statement timeout of requests whose role has none of its own, in milliseconds.
    #[arg(
        long,
        env = "DB_STATEMENT_TIMEOUT",
        default_value_t = 8000,
        global = true
    )]
    pub statement_timeout_ms: u64,
    /// Largest REST or Auth request body, in bytes.
    #[arg(long, env = "MAX_BODY_BYTES", default_value_t = 10 * 1024 * 1024, global = true)]
    pub max_body_bytes: usize,
    /// Largest stored object in bytes (default: config.toml [storage] file_size_limit, 50 MiB).
    #[arg(long, env = "STORAGE_FILE_SIZE_LIMIT", global = true)]
    pub storage_file_size_limit: Option<u64>,
    /// Where object bytes are kept: `file` (under the data directory) or `s3`.
    #[arg(long, env = "STORAGE_BACKEND", default_value = "file", global = true)]
    pub storage_backend: String,
    /// Bucket of the S3 backend (credentials and endpoint from the AWS_* variables).
    #[arg(long, env = "STORAGE_S3_BUCKET", global = true)]
    pub storage_s3_bucket: Option<String>,
    /// Refuse new sign-ups (default: config.toml [auth] enable_signup).
    #[arg(long, env = "DISABLE_SIGNUP", global = true)]
    pub disable_signup: bool,
    /// Sign-ins and sign-ups per address per 5 minutes (default: [auth.rate_limit]).
    #[arg(long, env = "RATE_LIMIT_SIGN_IN", global = true)]
    pub rate_limit_sign_in: Option<u32>,
    /// Refresh-token grants per address per 5 minutes (default: [auth.rate_limit]).
    #[arg(long, env = "RATE_LIMIT_TOKEN_REFRESH", global = true)]
    pub rate_limit_token_refresh: Option<u32>,
    /// Header in which trusted proxies put the client address (e.g. X-Forwarded-For); unset:
    /// the TCP peer address.
    #[arg(long, env = "RATE_LIMIT_IP_HEADER", global = true)]
    pub rate_limit_ip_header: Option<String>,
    /// How many proxies in front of the gateway append to that header: the client address is
    /// the entry this many from the right (entries further left are the client's own claims).
    #[arg(long, env = "TRUSTED_PROXY_HOPS", default_value_t = 1, global = true)]
    pub trusted_proxy_hops: usize,
    /// Allow listening on a non-loopback address with the public demo JWT secret (anyone could
    /// then sign their own service_role token). Never do this outside a throwaway setup.
    #[arg(long, env = "SUPAGATE_INSECURE_DEMO_KEYS", global = true)]
    pub insecure_demo_keys: bool,
    /// Whether the database's HTTP requests (pg_net) may reach this machine's own addresses
    /// (loopback) and link-local ones. `refuse` is the default whenever Studio is served or the
    /// API listens on loopback: Studio, the mail catcher and the workbench answer loopback, and
    /// pg_net is callable by `anon`. The project's API (Edge Functions) stays reachable.
    #[arg(long, env = "SUPAGATE_NET_LOCAL", value_enum, global = true)]
    pub net_local: Option<NetLocal>,
    /// Browser origins the workbench API (`/_supagate/v1`) answers, comma-separated
    /// (default: none; requests that carry another Origin are refused).
    #[arg(
        long,
        env = "SUPAGATE_WORKBENCH_ORIGINS",
        value_delimiter = ',',
        global = true
    )]
    pub workbench_origins: Vec<String>,
    /// Seconds a rotated refresh token stays usable (default: config.toml [auth]).
    #[arg(long, env = "REFRESH_TOKEN_REUSE_INTERVAL", global = true)]
    pub refresh_token_reuse_interval: Option<i64>,
    /// Log every request (method, path, status, time, request id); server errors are always
    /// logged.
    #[arg(long, env = "SUPAGATE_LOG_REQUESTS", global = true)]
    pub log_requests: bool,
    /// Requests kept in memory per service (REST, Auth, Storage…) for Studio's Logs: the last
    /// ones, their secrets blanked (0: none kept; at most 50000).
    #[arg(
        long,
        env = "SUPAGATE_REQUEST_HISTORY",
        default_value_t = 2000,
        global = true
    )]
    pub request_history: usize,
    /// Shut down when standard input closes: test harnesses use it so that a gateway (and its
    /// PostgreSQL) never outlives the process that started it.
    #[arg(
        long,
        env = "SUPAGATE_STOP_ON_STDIN_CLOSE",
        default_value_t = false,
        global = true,
        hide = true
    )]
    pub stop_on_stdin_close: bool,
}

/// `--net-local`: what the database's requests may reach on this machine.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum NetLocal {
    Refuse,
    Allow,
}
