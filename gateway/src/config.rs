//! Command line and environment configuration. Every option has a flag and an environment
//! variable; defaults match the Supabase CLI's local stack so existing `.env` files work.

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

pub const DEFAULT_PORT: u16 = 54321;
pub const DEFAULT_DB_PORT: u16 = 54322;

#[derive(Parser, Debug)]
#[command(
    name = "supagate",
    version,
    about = "Supabase-compatible REST, Auth and Storage gateway over PostgreSQL, in one binary"
)]
pub struct Cli {
    #[command(flatten)]
    pub config: Config,
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Start the API and the site (the default command).
    Start,
    /// Print URLs and keys as KEY=value lines for scripts and .env files.
    Env,
    /// Apply pending migrations and exit.
    Migrate,
    /// Delete the embedded database (data directory) and start over with demo data on next start.
    Reset {
        /// Confirm deleting every row, user and file of the local data directory.
        #[arg(long)]
        yes: bool,
    },
    /// Manage the shop's administrators.
    #[command(subcommand)]
    Admin(AdminCommand),
}

#[derive(Subcommand, Debug)]
pub enum AdminCommand {
    /// Create a user with a password and the admin role (or give an existing one the role and password).
    Create { email: String, password: String },
    /// Give the admin role to an existing user.
    Grant { email: String },
    /// Take the admin role away from a user.
    Revoke { email: String },
    /// List the administrators.
    List,
}

#[derive(Args, Debug, Clone)]
pub struct Config {
    /// Directory for the embedded PostgreSQL cluster and stored files.
    #[arg(
        long,
        env = "SUPAGATE_DATA_DIR",
        default_value = "./.data",
        global = true
    )]
    pub data_dir: PathBuf,
    /// Address the HTTP server binds to.
    #[arg(
        long,
        env = "SUPAGATE_HOST",
        default_value = "127.0.0.1",
        global = true
    )]
    pub host: String,
    /// HTTP port (0 picks a free one and prints it).
    #[arg(long, env = "SUPAGATE_PORT", default_value_t = DEFAULT_PORT, global = true)]
    pub port: u16,
    /// TCP port of the embedded PostgreSQL on 127.0.0.1 (0: unix socket only).
    #[arg(long, env = "SUPAGATE_DB_PORT", default_value_t = DEFAULT_DB_PORT, global = true)]
    pub db_port: u16,
    /// Extra settings for the embedded PostgreSQL, as `name=value` pairs separated by spaces
    /// (e.g. "shared_buffers=256MB synchronous_commit=off").
    #[arg(long, env = "SUPAGATE_PG_SETTINGS", default_value = "", global = true)]
    pub pg_settings: String,
    /// Use this PostgreSQL server instead of the embedded one. The user must be able to create
    /// roles and schemas (for migrations) and switch to anon, authenticated and service_role.
    #[arg(long, env = "DATABASE_URL", global = true)]
    pub database_url: Option<String>,
    /// Directory holding PostgreSQL's initdb, pg_ctl and postgres (found automatically when unset).
    #[arg(long, env = "PG_BIN_DIR", global = true)]
    pub pg_bin_dir: Option<PathBuf>,
    /// HS256 secret for access tokens and API keys (default: the Supabase CLI's demo secret).
    #[arg(long, env = "JWT_SECRET", global = true, hide_env_values = true)]
    pub jwt_secret: Option<String>,
    /// Access token lifetime in seconds.
    #[arg(long, env = "JWT_EXPIRY", default_value_t = 3600, global = true)]
    pub jwt_expiry: i64,
    /// Public URL of the API, as clients reach it (default: http://<host>:<port>).
    #[arg(long, env = "API_EXTERNAL_URL", global = true)]
    pub api_external_url: Option<String>,
    /// Built site to serve at / (a Vite `dist` folder).
    #[arg(
        long,
        env = "SUPAGATE_SITE_DIR",
        default_value = "frontend/dist",
        global = true
    )]
    pub site_dir: PathBuf,
    /// Schemas exposed by /rest/v1, comma separated; the first is the default.
    #[arg(
        long,
        env = "PGRST_DB_SCHEMAS",
        default_value = "public",
        global = true
    )]
    pub db_schemas: String,
    /// Most rows a REST read returns (PostgREST's db-max-rows; the CLI sets 1000).
    #[arg(long, env = "PGRST_DB_MAX_ROWS", default_value_t = 1000, global = true)]
    pub max_rows: u64,
    /// HTTP worker threads (default: one per CPU).
    #[arg(long, env = "SUPAGATE_WORKERS", default_value_t = default_workers(), global = true)]
    pub workers: usize,
    /// Connections in the pool (shared out among the workers).
    #[arg(long, env = "DB_POOL", default_value_t = 10, global = true)]
    pub db_pool: usize,
    /// Seconds to wait for a pool connection before answering 504 PGRST003.
    #[arg(long, env = "DB_POOL_TIMEOUT", default_value_t = 10, global = true)]
    pub db_pool_timeout: u64,
    /// Statement timeout for API requests, in milliseconds.
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
    /// Largest stored object, in bytes (Supabase's default 50 MiB).
    #[arg(long, env = "STORAGE_FILE_SIZE_LIMIT", default_value_t = 50 * 1024 * 1024, global = true)]
    pub storage_file_size_limit: u64,
    /// Where object bytes are kept: `file` (under the data directory) or `s3` (an S3-compatible
    /// bucket; credentials and endpoint from the AWS_* variables).
    #[arg(long, env = "STORAGE_BACKEND", default_value = "file", global = true)]
    pub storage_backend: String,
    /// Bucket of the S3 backend.
    #[arg(long, env = "STORAGE_S3_BUCKET", global = true)]
    pub storage_s3_bucket: Option<String>,
    /// Refuse new sign-ups (GoTrue's "Signups not allowed for this instance").
    #[arg(long, env = "DISABLE_SIGNUP", default_value_t = false, global = true)]
    pub disable_signup: bool,
    /// Sign-in and sign-up requests per client address per 5 minutes (GoTrue's default 30).
    #[arg(long, env = "RATE_LIMIT_SIGN_IN", default_value_t = 30, global = true)]
    pub rate_limit_sign_in: i32,
    /// Refresh-token grants per client address per 5 minutes (GoTrue's default 150).
    #[arg(
        long,
        env = "RATE_LIMIT_TOKEN_REFRESH",
        default_value_t = 150,
        global = true
    )]
    pub rate_limit_token_refresh: i32,
    /// Header holding the client address behind a trusted proxy (e.g. X-Forwarded-For); unset:
    /// the TCP peer address.
    #[arg(long, env = "RATE_LIMIT_IP_HEADER", global = true)]
    pub rate_limit_ip_header: Option<String>,
    /// Seconds a rotated refresh token may still be used (GoTrue's refresh_token_reuse_interval).
    #[arg(
        long,
        env = "REFRESH_TOKEN_REUSE_INTERVAL",
        default_value_t = 10,
        global = true
    )]
    pub refresh_token_reuse_interval: i64,
    /// Load the demo catalogue and admin into a new local database (only with the embedded
    /// database and the demo secret).
    #[arg(long, env = "SUPAGATE_DEMO", default_value_t = true, action = clap::ArgAction::Set, global = true)]
    pub demo: bool,
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

fn default_workers() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
}

impl Config {
    pub fn jwt_secret(&self) -> &str {
        self.jwt_secret
            .as_deref()
            .unwrap_or(auth::jwt::DEMO_JWT_SECRET)
    }

    /// Local default mode: embedded database and the public demo secret. Only here do demo data
    /// and the demo admin exist.
    pub fn is_local_demo(&self) -> bool {
        self.demo && self.database_url.is_none() && self.jwt_secret() == auth::jwt::DEMO_JWT_SECRET
    }

    pub fn schemas(&self) -> Vec<String> {
        self.db_schemas
            .split(',')
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect()
    }

    pub fn data_dir_abs(&self) -> PathBuf {
        std::path::absolute(&self.data_dir).unwrap_or_else(|_| self.data_dir.clone())
    }
}
