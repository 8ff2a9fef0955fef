//! The I/O edge: Deno processes, one per function (or per request with `oneshot`), started on
//! demand, restarted when they died or their files changed, and requests sent to them over
//! their unix sockets.

use crate::answer::FunctionsError;
use crate::catalog::{self, Catalog, Function};
use crate::{FunctionsSettings, command};
use bytes::Bytes;
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use parking_lot::{Mutex, RwLock};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant, SystemTime};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::net::UnixStream;
use tokio::process::{Child, Command};
use tokio::sync::Notify;

const BOOT_SCRIPT: &str = include_str!("boot.mjs");
/// How often a warm function's files are looked at for changes (the restart's debounce).
const CHANGE_CHECK: Duration = Duration::from_millis(500);
/// How often a process's CPU time and age are looked at.
const CPU_CHECK: Duration = Duration::from_millis(50);
/// How often an unknown name makes the functions folder be read again.
const REDISCOVER: Duration = Duration::from_secs(1);
/// Most functions started with the gateway, ahead of their first request (a warm process holds
/// about 40 MB).
const PREWARM_MAX: usize = 8;
/// What Deno prints once `Deno.serve()` listens (unless the function passes its own `onListen`).
const LISTENING: &str = "Listening on ";

pub struct Functions {
    settings: FunctionsSettings,
    project: project::Project,
    catalog: RwLock<Arc<Catalog>>,
    discovered: Mutex<Instant>,
    warm: Mutex<HashMap<String, Arc<tokio::sync::Mutex<Option<Running>>>>>,
    boot: PathBuf,
    sockets: PathBuf,
    next: AtomicU64,
    /// Skipped variable names were reported (once per run, as the CLI reports them once).
    warned: AtomicBool,
    /// What the functions printed lately.
    logs: Arc<crate::logs::LogBook>,
    /// Addresses (`host:port`) no function may reach, set once the tools on them listen.
    denied: RwLock<Vec<String>>,
    /// Processes booting for a request: starting functions ahead of their requests waits for
    /// them.
    booting: AtomicU64,
    /// `oneshot`: a process started ahead for each function's next request (each request is
    /// still served by a process of its own), held locked while it boots.
    spares: Mutex<HashMap<String, Arc<tokio::sync::Mutex<Option<Running>>>>>,
    /// Itself, for the background work a request leaves behind (starting the next spare).
    me: std::sync::Weak<Functions>,
}

/// A function's response, and what must live until its body has been read: the process
/// (a `oneshot` one ends then; a warm one replaced meanwhile, too).
pub struct Answer {
    pub response: http::Response<Incoming>,
    pub keep: Box<dyn std::any::Any + Send>,
}

/// A started Deno process, shared by the requests it serves.
struct Process {
    /// Holds its stdin open (the child's stdin handle stays inside).
    child: Mutex<Child>,
    socket: PathBuf,
    /// A resource limit ended it: its V8 heap ran out (seen in its output), or its supervisor
    /// ended it past its CPU time or wall clock.
    limited: Arc<AtomicBool>,
    /// It takes no new requests (`per_worker`: past the soft CPU limit or half its wall clock):
    /// the next request starts another, and this one ends with the last request it serves.
    retired: AtomicBool,
    /// When it was first handed a request: its wall clock counts from then (a process started
    /// with the gateway waits for its first request without ageing).
    claimed: OnceLock<Instant>,
}

impl Process {
    fn alive(&self) -> bool {
        matches!(self.child.lock().try_wait(), Ok(None))
    }

    fn kill(&self) {
        let _ = self.child.lock().start_kill();
    }

    /// Marks it as serving requests (its wall clock starts at the first).
    fn claim(&self) {
        self.claimed.get_or_init(Instant::now);
    }

    /// How long it has served requests.
    fn age(&self) -> Duration {
        self.claimed.get().map_or(Duration::ZERO, |at| at.elapsed())
    }

    /// CPU time the process has used so far (user and system, all its threads).
    fn cpu(&self) -> Option<Duration> {
        let pid = self.child.lock().id()?;
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // Fields after the command name (which may hold spaces) in parentheses.
        let rest = stat.rsplit_once(')')?.1;
        // utime and stime, the 12th and 13th (ASCII: split without collecting the line's 50).
        let mut fields = rest.split_ascii_whitespace().skip(11);
        let ticks: u64 =
            fields.next()?.parse::<u64>().ok()? + fields.next()?.parse::<u64>().ok()?;
        // Linux reports clock ticks of 1/100 s (USER_HZ).
        Some(Duration::from_millis(ticks * 10))
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.kill();
        let _ = std::fs::remove_file(&self.socket);
    }
}

/// A warm process and what decides when it is replaced.
struct Running {
    process: Arc<Process>,
    /// The functions folder's newest file time when it started.
    files: Option<SystemTime>,
    /// The env file's time when it started (its variables were read then).
    env_file: Option<SystemTime>,
    checked: Instant,
}

impl Functions {
    /// Reads the project's functions and prepares the work folder; no process starts yet.
    pub fn new(
        project: project::Project,
        settings: FunctionsSettings,
    ) -> std::io::Result<Arc<Self>> {
        let sockets = settings.work_dir.join("sockets");
        std::fs::create_dir_all(&sockets)?;
        std::fs::create_dir_all(settings.work_dir.join("deno"))?;
        // Sockets of an earlier run are stale.
        for e in std::fs::read_dir(&sockets)?.flatten() {
            let _ = std::fs::remove_file(e.path());
        }
        let boot = settings.work_dir.join("boot.mjs");
        std::fs::write(&boot, BOOT_SCRIPT)?;
        let found = catalog::discover(&project);
        for s in &found.skipped {
            tracing::warn!("functions: skipped {s}");
        }
        Ok(Arc::new_cyclic(|me| Functions {
            settings,
            project,
            catalog: RwLock::new(Arc::new(found)),
            discovered: Mutex::new(Instant::now()),
            warm: Mutex::new(HashMap::new()),
            boot,
            sockets,
            next: AtomicU64::new(0),
            warned: AtomicBool::new(false),
            logs: Default::default(),
            denied: RwLock::new(Vec::new()),
            booting: AtomicU64::new(0),
            spares: Mutex::new(HashMap::new()),
            me: me.clone(),
        }))
    }

    /// Keeps functions started from now on from reaching these ports of this machine under any
    /// of its names (Deno's `--deny-net`): Studio's and the mail catcher's, which answer this
    /// machine, so that a function with a server-side request bug cannot be turned against them.
    pub fn deny_local_ports(&self, ports: impl IntoIterator<Item = u16>) {
        let addresses = ports
            .into_iter()
            .flat_map(|p| {
                ["127.0.0.1", "localhost", "0.0.0.0", "[::1]"].map(|h| format!("{h}:{p}"))
            })
            .collect();
        *self.denied.write() = addresses;
    }

    /// What the functions printed lately.
    pub fn logs(&self) -> &crate::logs::LogBook {
        &self.logs
    }

    pub fn catalog(&self) -> Arc<Catalog> {
        self.catalog.read().clone()
    }

    /// The function `slug`; the folder is read again (at most once a second) for a name not
    /// known yet, so a function added while supagate runs is served.
    pub fn function(&self, slug: &str) -> Option<Function> {
        if let Some(f) = self.catalog().functions.get(slug) {
            return Some(f.clone());
        }
        {
            let mut at = self.discovered.lock();
            if at.elapsed() < REDISCOVER {
                return None;
            }
            *at = Instant::now();
        }
        let found = Arc::new(catalog::discover(&self.project));
        *self.catalog.write() = found.clone();
        found.functions.get(slug).cloned()
    }

    /// Starts the project's functions (the first [`PREWARM_MAX`] by name; with `oneshot`, as
    /// spares) one after the other in the background, so that a function's first request finds
    /// it listening instead of waiting for Deno to boot. Each is the process its first request
    /// would have started (same arguments, permissions and environment); one that fails to
    /// boot is reported with its reason now, and its first request tries again. Call it once
    /// the ports functions may not reach are known ([`Functions::deny_local_ports`]): the
    /// gateway binds every port it serves before its database starts, and starts them then, so
    /// that they boot while it gets ready.
    pub fn prewarm(self: &Arc<Self>) {
        let functions: Vec<Function> = self
            .catalog()
            .functions
            .values()
            .take(PREWARM_MAX)
            .cloned()
            .collect();
        let weak = Arc::downgrade(self);
        tokio::spawn(async move {
            for f in functions {
                // Stopped meanwhile: nothing more to start.
                let Some(this) = weak.upgrade() else { return };
                while this.booting.load(Ordering::Relaxed) > 0 {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                if this.settings.policy == project::Policy::Oneshot {
                    this.add_spare(&f).await;
                    continue;
                }
                let slot = this.warm.lock().entry(f.slug.clone()).or_default().clone();
                let mut held = slot.lock().await;
                if held.is_some() {
                    continue;
                }
                if let Ok(r) = this.start_once(&f).await {
                    tracing::debug!(target: "functions", function = %f.slug, "started ahead of its first request");
                    *held = Some(r);
                }
            }
        });
    }

    /// `oneshot`: where `f`'s process started ahead is kept.
    fn spare_slot(&self, f: &Function) -> Arc<tokio::sync::Mutex<Option<Running>>> {
        self.spares
            .lock()
            .entry(f.slug.clone())
            .or_default()
            .clone()
    }

    /// `oneshot`: the process started ahead for `f` (waited for while it boots: it started
    /// before this request), unless it died or its files or env file changed since it started
    /// (then it ends, and the request starts another).
    async fn take_spare(&self, f: &Function) -> Option<Arc<Process>> {
        let spare = self.spare_slot(f).lock().await.take()?;
        let fresh = spare.process.alive()
            && spare.files == newest_file(&self.project.supabase_dir.join("functions"))
            && spare.env_file == self.env_file_time();
        fresh.then_some(spare.process)
    }

    /// `oneshot`: starts a process for `f`'s next request, unless one is there or booting.
    async fn add_spare(&self, f: &Function) {
        let slot = self.spare_slot(f);
        let Ok(mut held) = slot.try_lock() else {
            return;
        };
        if held.is_none() {
            *held = self.start_once(f).await.ok();
        }
    }

    /// The env file's modification time.
    fn env_file_time(&self) -> Option<SystemTime> {
        let file = self.settings.env_file.as_ref()?;
        std::fs::metadata(file).and_then(|m| m.modified()).ok()
    }

    /// Sends `req` (its path as the function sees it: `/<slug>/…`) to the function.
    pub async fn forward<B>(
        &self,
        f: &Function,
        req: http::Request<B>,
    ) -> Result<Answer, FunctionsError>
    where
        B: hyper::body::Body<Data = Bytes> + Send + 'static,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        if self.settings.policy == project::Policy::Oneshot {
            let process = match self.take_spare(f).await {
                Some(p) => p,
                None => self.start(f).await?.process,
            };
            process.claim();
            // The next request's process boots meanwhile.
            if let Some(me) = self.me.upgrade() {
                let f = f.clone();
                tokio::spawn(async move { me.add_spare(&f).await });
            }
            let response = self
                .request(&process, req)
                .await
                .map_err(|e| failure(e, &process))?;
            return Ok(Answer {
                response,
                keep: Box::new(process),
            });
        }
        let slot = self.warm.lock().entry(f.slug.clone()).or_default().clone();
        let mut held = slot.lock().await;
        let fresh = match held.as_mut() {
            Some(r) => {
                r.process.alive() && !r.process.retired.load(Ordering::Relaxed) && !self.changed(r)
            }
            None => false,
        };
        if !fresh {
            if held.take().is_some() {
                tracing::info!(target: "functions", function = %f.slug, "restarting");
            }
            *held = Some(self.start(f).await?);
        }
        let process = held.as_ref().expect("started").process.clone();
        drop(held);
        process.claim();
        match self.request(&process, req).await {
            // A process replaced meanwhile (its files changed) lives until this body is read.
            Ok(r) => Ok(Answer {
                response: r,
                keep: Box::new(process),
            }),
            Err(e @ SendError::Body) => Err(failure(e, &process)),
            Err(e) => {
                // The process is gone, or stuck past the wall clock: the next request starts
                // another.
                let mut held = slot.lock().await;
                if held
                    .as_ref()
                    .is_some_and(|r| Arc::ptr_eq(&r.process, &process))
                {
                    held.take();
                }
                Err(failure(e, &process))
            }
        }
    }

    /// The function's response head, within the wall clock (the process's supervisor ends it
    /// past its CPU time: the connection breaks).
    async fn request<B>(
        &self,
        process: &Process,
        req: http::Request<B>,
    ) -> Result<http::Response<Incoming>, SendError>
    where
        B: hyper::body::Body<Data = Bytes> + Send + 'static,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        let exchange = async {
            let stream = UnixStream::connect(&process.socket)
                .await
                .map_err(|_| SendError::Gone)?;
            let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
                .await
                .map_err(|_| SendError::Gone)?;
            tokio::spawn(async move {
                let _ = conn.await;
            });
            sender.send_request(req).await.map_err(|e| {
                // The request's own body failed (too large, or the client went): the process is
                // as good as before.
                if e.is_user() {
                    SendError::Body
                } else {
                    SendError::Gone
                }
            })
        };
        tokio::time::timeout(self.settings.wall_clock, exchange)
            .await
            .unwrap_or(Err(SendError::TimedOut))
    }

    /// Whether the functions folder changed since `r` started (looked at twice a second).
    fn changed(&self, r: &mut Running) -> bool {
        if r.checked.elapsed() < CHANGE_CHECK {
            return false;
        }
        r.checked = Instant::now();
        newest_file(&self.project.supabase_dir.join("functions")) != r.files
    }

    /// Starts a process for `f`. One that exits within seconds of starting is started once
    /// more before the request fails: under load a Deno process failed to boot (exit status 1
    /// in 80 ms) right after another process of the project had been killed at its limit, and
    /// booted the next time. A function that cannot boot fails twice, as fast.
    /// Counted in `booting` while it runs (a request that goes away mid-boot included).
    async fn start(&self, f: &Function) -> Result<Running, FunctionsError> {
        struct Counted<'a>(&'a AtomicU64);
        impl Drop for Counted<'_> {
            fn drop(&mut self) {
                self.0.fetch_sub(1, Ordering::Relaxed);
            }
        }
        self.booting.fetch_add(1, Ordering::Relaxed);
        let _counted = Counted(&self.booting);
        self.start_retrying(f).await
    }

    async fn start_retrying(&self, f: &Function) -> Result<Running, FunctionsError> {
        let t0 = Instant::now();
        match self.start_once(f).await {
            Err(FunctionsError::BootError) if t0.elapsed() < Duration::from_secs(5) => {
                tracing::warn!(target: "functions", function = %f.slug, "booting once more");
                self.start_once(f).await
            }
            other => other,
        }
    }

    async fn start_once(&self, f: &Function) -> Result<Running, FunctionsError> {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let socket = self.sockets.join(format!("{}-{n}.sock", f.slug));
        let _ = std::fs::remove_file(&socket);
        // Before it is read: a change meanwhile makes it look changed, not the same.
        let env_file = self.env_file_time();
        let mut user: Vec<(String, String)> = self.settings.secrets.clone();
        if let Some(file) = &self.settings.env_file {
            user.extend(project::read_dotenv(file));
        }
        let (env, skipped) =
            command::env(&self.settings, &user, &socket, |k| std::env::var(k).ok());
        if !self.warned.swap(true, Ordering::Relaxed) {
            for name in skipped {
                tracing::warn!(target: "functions", "Env name cannot start with SUPABASE_, skipping: {name}");
            }
        }
        let files = newest_file(&self.project.supabase_dir.join("functions"));
        let t0 = Instant::now();
        let mut child = Command::new(&self.settings.deno)
            .args(command::args(
                f,
                &self.settings,
                &self.project.supabase_dir.join("functions"),
                &self.boot,
                &self.sockets,
                &self.denied.read(),
            ))
            .env_clear()
            .envs(env)
            .current_dir(&f.dir)
            // Kept open while this process runs: the bootstrap exits when it closes.
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| {
                self.logs
                    .push(&f.slug, "stderr", &format!("cannot run Deno: {e}"));
                tracing::error!(
                    target: "functions",
                    function = %f.slug,
                    "cannot run Deno ({}): {e}; install it (npm install -g deno) or set DENO_BIN",
                    self.settings.deno.display()
                );
                FunctionsError::BootError
            })?;
        let limited = Arc::new(AtomicBool::new(false));
        // Until it listens, what it prints on stderr says why a boot failed: logged as a warning.
        let booting = Arc::new(AtomicBool::new(true));
        // Deno's "Listening on" line: the socket is worth trying at once.
        let listened = Arc::new(Notify::new());
        if let Some(out) = child.stdout.take() {
            self.pump(&f.slug, "stdout", out, &limited, &booting, Some(&listened));
        }
        if let Some(err) = child.stderr.take() {
            self.pump(&f.slug, "stderr", err, &limited, &booting, None);
        }
        let running = Running {
            process: Arc::new(Process {
                child: Mutex::new(child),
                socket,
                limited,
                retired: AtomicBool::new(false),
                claimed: OnceLock::new(),
            }),
            files,
            env_file,
            checked: Instant::now(),
        };
        // (A process that failed to boot stays `booting`: its last lines may still be on their way.)
        let running = self.listening(f, running, t0, &listened).await?;
        booting.store(false, Ordering::Relaxed);
        self.supervise(&f.slug, &running.process);
        Ok(running)
    }

    /// Watches a listening process until it ends, as edge-runtime's supervisor watches a
    /// worker: its CPU time from now on (booting aside) and its age since its first request.
    /// The same limits hold whether a request waits for its response head, reads its body, or
    /// has long had its answer (a timer, `EdgeRuntime.waitUntil`).
    fn supervise(&self, slug: &str, process: &Arc<Process>) {
        // Without /proc (not Linux) only the wall clock is held.
        let baseline = process.cpu();
        let weak = Arc::downgrade(process);
        let limits = Limits::of(&self.settings);
        let (slug, logs) = (slug.to_string(), self.logs.clone());
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(CPU_CHECK).await;
                // Held for this look only: the process ends when its last user lets it go.
                let Some(p) = weak.upgrade() else { return };
                if !p.alive() {
                    return;
                }
                let used = match (baseline, p.cpu()) {
                    (Some(from), Some(now)) => now.saturating_sub(from),
                    _ => Duration::ZERO,
                };
                let age = p.age();
                match limits.verdict(used, age) {
                    Verdict::Serve => {}
                    Verdict::Retire => {
                        if !p.retired.swap(true, Ordering::Relaxed) {
                            tracing::info!(target: "functions", function = %slug, "retired after {} ms of CPU time, {} s", used.as_millis(), age.as_secs());
                        }
                    }
                    Verdict::End(why) => {
                        p.limited.store(true, Ordering::Relaxed);
                        p.kill();
                        let line = format!("{why}: the worker was ended");
                        logs.push(&slug, "stderr", &line);
                        tracing::warn!(target: "functions", function = %slug, "{line}");
                        return;
                    }
                }
            }
        });
    }

    /// Waits until the process listens on its socket; a process that exits first, or takes
    /// longer than the boot timeout, failed to boot.
    async fn listening(
        &self,
        f: &Function,
        r: Running,
        t0: Instant,
        listened: &Notify,
    ) -> Result<Running, FunctionsError> {
        let mut pause = Duration::from_millis(1);
        loop {
            if UnixStream::connect(&r.process.socket).await.is_ok() {
                tracing::info!(target: "functions", function = %f.slug, "booted in {} ms", t0.elapsed().as_millis());
                return Ok(r);
            }
            let exited = r.process.child.lock().try_wait();
            if let Ok(Some(status)) = exited {
                tracing::error!(target: "functions", function = %f.slug, "failed to boot ({status})");
                self.logs
                    .push(&f.slug, "stderr", &format!("failed to boot ({status})"));
                return Err(FunctionsError::BootError);
            }
            if t0.elapsed() > self.settings.boot_timeout {
                tracing::error!(target: "functions", function = %f.slug, "did not listen within {:?}", self.settings.boot_timeout);
                self.logs
                    .push(&f.slug, "stderr", "did not start listening in time");
                return Err(FunctionsError::BootError);
            }
            // Deno says when it listens; a function with its own `onListen` (or `Deno.listen`)
            // is found by trying.
            tokio::select! {
                _ = listened.notified() => {}
                _ = tokio::time::sleep(pause) => {}
            }
            pause = (pause * 2).min(Duration::from_millis(20));
        }
    }
}

/// The limits a process's supervisor holds it to.
#[derive(Debug, Clone, Copy)]
struct Limits {
    policy: project::Policy,
    cpu_soft: Duration,
    cpu_hard: Duration,
    wall_clock: Duration,
}

/// What a process's supervisor does next.
#[derive(Debug, PartialEq, Eq)]
enum Verdict {
    Serve,
    /// No new requests (`per_worker` only: a `oneshot` process serves one request anyway).
    Retire,
    /// Killed, for this reason.
    End(&'static str),
}

impl Limits {
    fn of(s: &FunctionsSettings) -> Limits {
        Limits {
            policy: s.policy,
            cpu_soft: s.cpu_time_soft,
            cpu_hard: s.cpu_time,
            wall_clock: s.wall_clock,
        }
    }

    /// As edge-runtime's supervisors decide: `per_worker` counts the CPU time of the worker's
    /// whole life, retires it at the soft limit or half its wall clock and ends it at the hard
    /// limit or the wall clock; a `oneshot` worker (one request) ends at the hard limit or the
    /// wall clock.
    fn verdict(&self, cpu: Duration, age: Duration) -> Verdict {
        if cpu >= self.cpu_hard {
            return Verdict::End("CPU time limit reached");
        }
        if age >= self.wall_clock {
            return Verdict::End("wall clock limit reached");
        }
        let per_worker = self.policy == project::Policy::PerWorker;
        if per_worker && (cpu >= self.cpu_soft || age >= self.wall_clock / 2) {
            return Verdict::Retire;
        }
        Verdict::Serve
    }
}

enum SendError {
    /// The connection failed or broke: the process died or is dying.
    Gone,
    /// The request's body failed (the gateway ended it: too large, or the client stalled).
    Body,
    TimedOut,
}

fn failure(e: SendError, process: &Process) -> FunctionsError {
    match e {
        SendError::TimedOut => FunctionsError::WorkerLimit,
        SendError::Gone if process.limited.load(Ordering::Relaxed) => FunctionsError::WorkerLimit,
        SendError::Gone | SendError::Body => FunctionsError::WorkerError,
    }
}

impl Functions {
    /// Reads a process's output line by line into supagate's log (under the function's name)
    /// and the log book; a line about the
    /// heap running out marks the process as ended by its limit.
    fn pump(
        &self,
        slug: &str,
        name: &'static str,
        stream: impl tokio::io::AsyncRead + Unpin + Send + 'static,
        oom: &Arc<AtomicBool>,
        booting: &Arc<AtomicBool>,
        listened: Option<&Arc<Notify>>,
    ) {
        let (slug, oom, logs) = (slug.to_string(), oom.clone(), self.logs.clone());
        let (booting, listened) = (booting.clone(), listened.cloned());
        tokio::spawn(async move {
            let mut lines = BufReader::new(stream).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                if line.starts_with(LISTENING) {
                    if let Some(l) = &listened {
                        l.notify_one();
                    }
                    continue;
                }
                if line.contains("out of memory") || line.contains("heap limit") {
                    oom.store(true, Ordering::Relaxed);
                }
                logs.push(&slug, name, &line);
                if name == "stderr" && booting.load(Ordering::Relaxed) {
                    tracing::warn!(target: "functions", function = %slug, "while booting: {line}");
                } else {
                    tracing::info!(target: "functions", function = %slug, "{line}");
                }
            }
        });
    }
}

/// The newest modification time under `dir` (bounded: a few thousand entries, a few levels).
fn newest_file(dir: &Path) -> Option<SystemTime> {
    fn walk(dir: &Path, depth: usize, budget: &mut usize, newest: &mut Option<SystemTime>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            if *budget == 0 {
                return;
            }
            *budget -= 1;
            let Ok(meta) = e.metadata() else { continue };
            if meta.is_dir() {
                if depth < 6 && e.file_name() != "node_modules" {
                    walk(&e.path(), depth + 1, budget, newest);
                }
            } else if let Ok(m) = meta.modified() {
                *newest = (*newest).max(Some(m));
            }
        }
    }
    let mut newest = None;
    walk(dir, 0, &mut 5000, &mut newest);
    newest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn supervisors_decide_as_edge_runtime_s() {
        let ms = Duration::from_millis;
        let limits = |policy| Limits {
            policy,
            cpu_soft: ms(1000),
            cpu_hard: ms(2000),
            wall_clock: ms(400_000),
        };
        let (per_worker, oneshot) = (
            limits(project::Policy::PerWorker),
            limits(project::Policy::Oneshot),
        );
        let cpu = Verdict::End("CPU time limit reached");
        let wall = Verdict::End("wall clock limit reached");
        // (limits, CPU time used, age, verdict)
        let cases = [
            (per_worker, ms(0), ms(0), Verdict::Serve),
            (per_worker, ms(999), ms(199_999), Verdict::Serve),
            (per_worker, ms(1000), ms(10), Verdict::Retire),
            (per_worker, ms(10), ms(200_000), Verdict::Retire),
            (per_worker, ms(1999), ms(399_999), Verdict::Retire),
            (per_worker, ms(2000), ms(10), cpu),
            (per_worker, ms(10), ms(400_000), wall),
            (oneshot, ms(1999), ms(399_999), Verdict::Serve),
            (
                oneshot,
                ms(2000),
                ms(10),
                Verdict::End("CPU time limit reached"),
            ),
            (
                oneshot,
                ms(0),
                ms(400_000),
                Verdict::End("wall clock limit reached"),
            ),
        ];
        for (l, used, age, want) in cases {
            assert_eq!(
                l.verdict(used, age),
                want,
                "{:?} {used:?} {age:?}",
                l.policy
            );
        }
    }
}
