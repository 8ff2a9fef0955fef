//! Edge Functions, as `supabase functions serve` serves them but without Docker: each function
//! of the project's `supabase/functions` runs in a Deno process of its own, started with the
//! gateway or on its first request and kept warm (`per_worker`), or one for each request, the
//! next one started ahead (`oneshot`), listening on a unix socket through `DENO_SERVE_ADDRESS`.
//! Requests reach it over HTTP/1.1 on that socket.
//!
//! The pure parts: [`catalog`] (which functions, with which files), [`answer`] (the router's
//! own answers), [`command`] (Deno's arguments and environment). The I/O edge: [`worker`].

pub mod answer;
pub mod catalog;
pub mod command;
pub mod logs;
pub mod worker;

pub use answer::FunctionsError;
pub use catalog::{Catalog, Function};
pub use worker::{Answer, Functions};

use std::path::PathBuf;
use std::time::Duration;

/// What the gateway knows that functions need.
#[derive(Debug, Clone)]
pub struct FunctionsSettings {
    /// The Deno to run (`deno` on PATH unless configured).
    pub deno: PathBuf,
    /// The folder for sockets and Deno's module cache (inside the project's data directory,
    /// so that a second start needs no network).
    pub work_dir: PathBuf,
    /// `SUPABASE_URL`, the keys, the database URL, JWKS…: the environment the CLI injects.
    pub platform_env: Vec<(String, String)>,
    /// `[edge_runtime.secrets]`: variables of every function.
    pub secrets: Vec<(String, String)>,
    /// `supabase/functions/.env` or `--env-file`, read at each start of a function.
    pub env_file: Option<PathBuf>,
    pub policy: project::Policy,
    /// A function's V8 heap limit.
    pub memory_mb: u32,
    /// A worker's life (edge-runtime's `workerTimeoutMs`): a `per_worker` process takes no new
    /// requests after half of it and is ended at the whole; also the longest a request may
    /// wait for its response head.
    pub wall_clock: Duration,
    /// CPU time a worker may use (the hard limit), from when it listens: over its whole life
    /// with `per_worker` (answers, bodies and work after them alike), for its one request with
    /// `oneshot`. Past it the process is killed.
    pub cpu_time: Duration,
    /// CPU time after which a `per_worker` process is retired: the next request starts another.
    pub cpu_time_soft: Duration,
    /// Longest Deno may take to start listening (the first start also downloads `npm:` modules).
    pub boot_timeout: Duration,
}

impl FunctionsSettings {
    /// edge-runtime's limits.
    pub const MEMORY_MB: u32 = 256;
    pub const WALL_CLOCK: Duration = Duration::from_secs(400);
    /// The CPU limits the CLI gives edge-runtime's workers (`cpuTimeHardLimitMs`,
    /// `cpuTimeSoftLimitMs`).
    pub const CPU_TIME: Duration = Duration::from_secs(2);
    pub const CPU_TIME_SOFT: Duration = Duration::from_secs(1);
}
