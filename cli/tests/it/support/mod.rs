//! Real gateways for integration tests, on throwaway PostgreSQL clusters under the cargo target
//! directory or `SUPAGATE_TEST_TMPDIR` (never a user's data, never a server the tests did not
//! start).
//!
//! - [`shop`] gives a test its own database, a clone of the shop's template (migrations + seed),
//!   and its own gateway on it: no test sees another's writes.
//! - [`start`] gives a test a whole new cluster for any project folder.
//!
//! Every gateway's stdin is a pipe held here, so gateways and clusters stop when the tests end,
//! however they end. Gateways are read through their one-line JSON ready message (`start -o
//! json`), the same values `supagate status -o json` prints.
#![allow(dead_code)]

pub mod sql;
pub mod table;

use serde_json::{Value, json};
use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

pub struct Gateway {
    pub url: String,
    pub anon: String,
    pub service: String,
    pub data_dir: PathBuf,
    /// Where the cluster's unix socket is, and the database this gateway serves.
    pub socket_dir: PathBuf,
    pub dbname: String,
    pub status: BTreeMap<String, String>,
    /// The data directory to remove once the gateway has exited, when this module made it.
    remove: Mutex<Option<PathBuf>>,
    _stdin: Mutex<Option<ChildStdin>>,
    _child: Mutex<Option<Child>>,
}

/// A gateway dropped without [`Gateway::stop`] closes its stdin (it stops, and its PostgreSQL
/// with it); a data directory this module made is removed once it has, in the background, so
/// that a run's clusters do not pile up (on a tmpfs they are memory).
impl Drop for Gateway {
    fn drop(&mut self) {
        let remove = lock(&self.remove).take();
        drop(lock(&self._stdin).take());
        if let (Some(dir), Some(mut child)) = (remove, lock(&self._child).take()) {
            std::thread::spawn(move || {
                let _ = child.wait();
                let _ = std::fs::remove_dir_all(dir);
            });
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A gateway on a new data directory of this module's (tagged `tag`), removed when it is gone.
fn spawn_fresh(
    tag: &str,
    wrapper: &[&str],
    workdir: &Path,
    args: &[&str],
    env: &[(&str, &str)],
) -> Gateway {
    let gw = spawn_under(wrapper, &new_data_dir(tag), workdir, args, env);
    *lock(&gw.remove) = Some(gw.data_dir.clone());
    gw
}

pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Where the tests keep their clusters and folders: `SUPAGATE_TEST_TMPDIR` when set (scripts/test
/// points it at a tmpfs when the machine has one large enough), else cargo's `target/tmp`.
fn test_tmp() -> PathBuf {
    std::env::var_os("SUPAGATE_TEST_TMPDIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_TARGET_TMPDIR")))
}

/// The private installations of PostgreSQL the tests' clusters share (not the user's cache).
/// Always in `target/tmp`, beside the checkout: a private installation links the files of the
/// one it comes from where it can, and on another file system (a tmpfs) its links would lead
/// into the checkout's folders, which the user PostgreSQL runs as may not be able to enter.
pub fn pg_cache() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("pg-cache")
}

/// `<name>` in [`test_tmp`], rid once per test process of what processes that no longer run
/// left there (data directories and project folders are named `…-<pid>`).
fn tmp_root(name: &str) -> PathBuf {
    static SWEPT: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let root = test_tmp().join(name);
    std::fs::create_dir_all(&root).unwrap();
    let mut swept = SWEPT.lock().unwrap_or_else(|e| e.into_inner());
    if !swept.iter().any(|n| n == name) {
        sweep(&root);
        swept.push(name.to_string());
    }
    root
}

/// Removes data directories left by test processes that no longer run.
fn sweep(root: &Path) {
    for entry in std::fs::read_dir(root).into_iter().flatten().flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        if let Some(pid) = name
            .split('-')
            .next_back()
            .and_then(|p| p.parse::<u32>().ok())
            && !Path::new(&format!("/proc/{pid}")).exists()
        {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

fn new_data_dir(tag: &str) -> PathBuf {
    static COUNT: AtomicUsize = AtomicUsize::new(0);
    let root = tmp_root("gateways");
    let test_bin = std::env::args()
        .next()
        .and_then(|a| a.rsplit('/').next().map(str::to_string))
        .unwrap_or_default();
    let bin = test_bin.split('-').next().unwrap_or("t");
    let n = COUNT.fetch_add(1, Ordering::SeqCst);
    let dir = root.join(format!("{bin}-{tag}{n}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Spawns `supagate … start -o json` and waits for its ready line.
fn spawn(data_dir: &Path, workdir: &Path, args: &[&str], env: &[(&str, &str)]) -> Gateway {
    spawn_under(&[], data_dir, workdir, args, env)
}

/// The same, run under `wrapper` (a program and its arguments, e.g. `prlimit --nofile=256`).
fn spawn_under(
    wrapper: &[&str],
    data_dir: &Path,
    workdir: &Path,
    args: &[&str],
    env: &[(&str, &str)],
) -> Gateway {
    let exe = env!("CARGO_BIN_EXE_supagate");
    let mut cmd = match wrapper.split_first() {
        Some((program, rest)) => {
            let mut c = Command::new(program);
            c.args(rest).arg(exe);
            c
        }
        None => Command::new(exe),
    };
    cmd.arg("--workdir")
        .arg(workdir)
        .arg("--data-dir")
        .arg(data_dir)
        // Free ports, unless the test names one.
        .args(
            ["--port", "--db-port", "--mail-port", "--studio-port"]
                .into_iter()
                .filter(|flag| !args.contains(flag))
                .flat_map(|flag| [flag, "0"]),
        )
        .arg("--stop-on-stdin-close")
        .args(args)
        .args(["start", "-o", "json"])
        .env_remove("DATABASE_URL")
        .env("RUST_LOG", "warn")
        .env("SUPAGATE_CACHE_DIR", pg_cache())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("start the gateway binary");
    let stdout = child.stdout.take().unwrap();
    let mut lines = BufReader::new(stdout).lines();
    let status: BTreeMap<String, String> = match lines.next() {
        Some(Ok(line)) => serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("the ready line is not JSON ({e}): {line}")),
        _ => {
            let code = child.wait().ok();
            panic!("the gateway did not start (exit {code:?})")
        }
    };
    // Keep draining stdout so the gateway never blocks on a full pipe.
    std::thread::spawn(move || for _ in lines {});
    let db_url = &status["DB_URL"];
    let socket_dir = db_url
        .split("host=")
        .nth(1)
        .map(|s| PathBuf::from(s.split('&').next().unwrap()))
        .unwrap_or_else(|| data_dir.join("pg"));
    let dbname = db_url
        .split('/')
        .nth(3)
        .map(|s| s.split('?').next().unwrap().to_string())
        .unwrap_or_else(|| "postgres".into());
    let stdin = child.stdin.take().unwrap();
    Gateway {
        url: status["API_URL"].clone(),
        anon: status["ANON_KEY"].clone(),
        service: status["SERVICE_ROLE_KEY"].clone(),
        data_dir: data_dir.to_path_buf(),
        socket_dir,
        dbname,
        status,
        remove: Mutex::new(None),
        _stdin: Mutex::new(Some(stdin)),
        _child: Mutex::new(Some(child)),
    }
}

/// An empty folder of the calling test's own, under `scratch` in [`test_tmp`] (swept once its
/// process is gone): each call makes a new one, so that tests running at once never empty each
/// other's (two site tests shared one and one emptied the other's `_exists` under its gateway).
pub fn scratch_dir(tag: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = tmp_root("scratch").join(format!(
        "{tag}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A scratch project folder with these files (paths relative to the project root).
pub fn scratch_project(files: &[(&str, &str)]) -> PathBuf {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let dir = tmp_root("projects").join(format!(
        "p{}-{}",
        N.fetch_add(1, std::sync::atomic::Ordering::SeqCst),
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("supabase")).unwrap();
    for (path, content) in files {
        let p = dir.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, content).unwrap();
    }
    dir
}

/// A new cluster of its own, running the project in `workdir` (default: the shop).
pub fn start_project(workdir: &Path, args: &[&str]) -> Gateway {
    spawn_fresh("c", &[], workdir, args, &[])
}

/// A new cluster of its own for the project in `workdir`, with extra environment variables.
pub fn start_project_env(workdir: &Path, args: &[&str], env: &[(&str, &str)]) -> Gateway {
    spawn_fresh("c", &[], workdir, args, env)
}

/// A gateway on an existing data directory (a cluster earlier commands created).
pub fn start_on(workdir: &Path, data_dir: &Path, args: &[&str]) -> Gateway {
    spawn(data_dir, workdir, args, &[])
}

/// A new cluster of its own running the shop, under a wrapper program.
pub fn start_under(wrapper: &[&str]) -> Gateway {
    spawn_fresh("c", wrapper, &repo_root(), &[], &[])
}

/// A new cluster of its own running the shop, with extra flags.
pub fn start(args: &[&str]) -> Gateway {
    start_project(&repo_root(), args)
}

/// The cluster of this test binary for a project: its first gateway built the project's
/// template database, which tests clone.
fn cluster(workdir: &Path) -> &'static Gateway {
    static CLUSTERS: OnceLock<Mutex<HashMap<PathBuf, &'static Gateway>>> = OnceLock::new();
    let mut all = CLUSTERS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    all.entry(workdir.to_path_buf())
        .or_insert_with(|| Box::leak(Box::new(start_project(workdir, &[]))))
}

/// A gateway of its own, with extra flags, on a new database cloned from the template of the
/// project in `workdir`: a fresh copy of the project's database for one test (or table).
pub async fn clone_of(workdir: &Path, args: &[&str]) -> Gateway {
    clone_of_env(workdir, args, &[]).await
}

/// Likewise, with extra environment variables.
pub async fn clone_of_env(workdir: &Path, args: &[&str], env: &[(&str, &str)]) -> Gateway {
    clone_on(cluster(workdir), workdir, args, env).await
}

/// A gateway of its own on a new database cloned from the template that `owner`, a gateway
/// started on the project in `workdir`, built: for a test that must not share the binary's
/// cluster (it stops or kills its PostgreSQL).
pub async fn clone_on(c: &Gateway, workdir: &Path, args: &[&str], env: &[(&str, &str)]) -> Gateway {
    static N: AtomicUsize = AtomicUsize::new(0);
    let dbname = format!(
        "t{}_{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    );
    c.sql_on(
        "postgres",
        &format!("CREATE DATABASE \"{dbname}\" TEMPLATE supagate_template"),
    )
    .await;
    let url = format!(
        "postgresql://postgres@/{dbname}?host={}&port=5432",
        c.socket_dir.display()
    );
    let mut env = env.to_vec();
    env.push(("DATABASE_URL", url.as_str()));
    spawn_fresh("g", &[], workdir, args, &env)
}

/// A gateway of its own on a new database cloned from the shop's template, with extra flags.
pub async fn shop_with(args: &[&str]) -> Gateway {
    clone_of(&repo_root(), args).await
}

/// A gateway of its own on a new copy of the shop's database.
pub async fn shop() -> Gateway {
    shop_with(&[]).await
}

impl Gateway {
    pub fn secret(&self) -> &'static str {
        identity::jwt::DEMO_JWT_SECRET
    }

    /// A signed access token for a user id, as the auth API would issue it.
    pub fn user_token(&self, user_id: &str) -> String {
        let now = chrono::Utc::now().timestamp();
        identity::jwt::JwtKeys::new(self.secret()).sign(&json!({
            "sub": user_id, "role": "authenticated", "aud": "authenticated", "exp": now + 3600, "iat": now,
        }))
    }

    /// A connection of its own as the cluster's superuser on `dbname`, for tests that hold a
    /// session (locks, transactions) while they send requests.
    pub async fn session_on(&self, dbname: &str) -> tokio_postgres::Client {
        let mut cfg = tokio_postgres::Config::new();
        cfg.host_path(&self.socket_dir)
            .port(5432)
            .user("postgres")
            .dbname(dbname);
        let (client, conn) = cfg
            .connect(tokio_postgres::NoTls)
            .await
            .expect("connect as superuser");
        tokio::spawn(conn);
        client
    }

    async fn sql_on(&self, dbname: &str, query: &str) -> Vec<Vec<Option<String>>> {
        let client = self.session_on(dbname).await;
        let mut rows = Vec::new();
        for m in client.simple_query(query).await.expect("run SQL") {
            if let tokio_postgres::SimpleQueryMessage::Row(r) = m {
                rows.push((0..r.len()).map(|i| r.get(i).map(str::to_string)).collect())
            }
        }
        rows
    }

    /// Runs SQL as the cluster's superuser on this gateway's database; returns the rows of the
    /// statements as text.
    pub async fn sql(&self, query: &str) -> Vec<Vec<Option<String>>> {
        self.sql_on(&self.dbname, query).await
    }

    /// Creates a user (optionally a shop admin) directly in the database and returns its id.
    pub async fn create_user(&self, email: &str, admin: bool) -> String {
        let id = uuid::Uuid::new_v4().to_string();
        let mut q = format!(
            "INSERT INTO auth.users (id, email, encrypted_password, email_confirmed_at) VALUES ('{id}', '{email}', 'x', now());"
        );
        if admin {
            q.push_str(&format!(
                "INSERT INTO public.user_roles (user_id, role) VALUES ('{id}', 'admin');"
            ));
        }
        self.sql(&q).await;
        id
    }

    /// Creates a bucket with the service role.
    pub async fn create_bucket(&self, id: &str, public: bool) {
        let body = json!({"id": id, "name": id, "public": public}).to_string();
        let r = Api::service(self)
            .send("POST", "/storage/v1/bucket", &[], Some(&body))
            .await;
        assert_eq!(r.status, 200, "{}", r.text);
    }

    /// The mail this gateway caught, oldest first: (recipient, HTML and text).
    pub async fn caught_mail(&self) -> Vec<(String, String)> {
        let mailpit = &self.status["MAILPIT_URL"];
        let get = |url: String| async move {
            reqwest::get(url)
                .await
                .unwrap()
                .json::<Value>()
                .await
                .unwrap()
        };
        let listed = get(format!("{mailpit}/api/v1/messages")).await;
        let mut mails = Vec::new();
        for m in listed["messages"].as_array().unwrap().iter().rev() {
            let one = get(format!(
                "{mailpit}/api/v1/message/{}",
                m["ID"].as_str().unwrap()
            ))
            .await;
            let to = one["To"][0]["Address"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            mails.push((
                to,
                format!(
                    "{}\n{}",
                    one["HTML"].as_str().unwrap_or_default(),
                    one["Text"].as_str().unwrap_or_default()
                ),
            ));
        }
        mails
    }

    /// Another gateway on this one's database (a replica behind the same load balancer).
    pub fn replica(&self) -> Gateway {
        spawn_fresh(
            "r",
            &[],
            &repo_root(),
            &[],
            &[("DATABASE_URL", self.status["DB_URL"].as_str())],
        )
    }

    /// Stops the gateway as closing its stdin does, and waits until it (and the PostgreSQL it
    /// runs) exited: its data directory is free for the next one.
    pub fn stop(self) {
        lock(&self.remove).take();
        drop(lock(&self._stdin).take());
        if let Some(mut child) = lock(&self._child).take() {
            let _ = child.wait();
        }
    }

    /// The gateway process.
    pub fn pid(&self) -> u32 {
        lock(&self._child).as_ref().expect("a running gateway").id()
    }

    /// kill -9: the gateway dies without a chance to clean up (its PostgreSQL stays).
    pub fn kill9(&self) {
        // Its PostgreSQL lives on in the data directory, which the test may start on again.
        lock(&self.remove).take();
        let mut child = lock(&self._child);
        let child = child.as_mut().expect("a running gateway");
        child.kill().expect("kill the gateway");
        let _ = child.wait();
    }

    /// The pid of the cluster's postmaster (embedded clusters only).
    pub fn postmaster_pid(&self) -> u32 {
        std::fs::read_to_string(self.data_dir.join("pg/postmaster.pid"))
            .expect("postmaster.pid")
            .lines()
            .next()
            .unwrap()
            .trim()
            .parse()
            .unwrap()
    }

    /// Runs the binary's other commands (status, gen types, db reset…) against this gateway's
    /// project and data directory.
    pub fn command(&self, workdir: &Path, args: &[&str]) -> std::process::Output {
        self.command_for(workdir, args)
            .output()
            .expect("run supagate")
    }

    /// The command [`Gateway::command`] runs, to be spawned (a long-running one, e.g.
    /// `db watch`).
    pub fn command_for(&self, workdir: &Path, args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_supagate"));
        c.arg("--workdir")
            .arg(workdir)
            .arg("--data-dir")
            .arg(&self.data_dir)
            .args(args)
            .env_remove("DATABASE_URL")
            .env("RUST_LOG", "warn")
            .env("SUPAGATE_CACHE_DIR", pg_cache());
        c
    }
}

/// A small HTTP client that sends what supabase-js sends.
pub struct Api<'a> {
    pub gw: &'a Gateway,
    pub client: reqwest::Client,
    pub token: Option<String>,
}

pub struct Reply {
    pub status: u16,
    pub headers: reqwest::header::HeaderMap,
    pub text: String,
}

impl Reply {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.text).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text))
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}

impl<'a> Api<'a> {
    pub fn anon(gw: &'a Gateway) -> Self {
        Api {
            gw,
            client: reqwest::Client::new(),
            token: None,
        }
    }

    pub fn service(gw: &'a Gateway) -> Self {
        Api {
            gw,
            client: reqwest::Client::new(),
            token: Some(gw.service.clone()),
        }
    }

    /// Requests with this bearer token (a session's access token).
    pub fn bearer(gw: &'a Gateway, token: &str) -> Self {
        Api {
            gw,
            client: reqwest::Client::new(),
            token: Some(token.to_string()),
        }
    }

    pub fn user(gw: &'a Gateway, user_id: &str) -> Self {
        Api {
            gw,
            client: reqwest::Client::new(),
            token: Some(gw.user_token(user_id)),
        }
    }

    pub async fn send(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: Option<&str>,
    ) -> Reply {
        let mut all: Vec<(&str, &str)> = headers.to_vec();
        if body.is_some() {
            all.push(("content-type", "application/json"));
        }
        let body = body.map(|b| b.as_bytes().to_vec());
        self.request(method, path, &all, body).await
    }

    /// A POST whose body is sent as is with this Content-Type.
    pub async fn post_raw(&self, path: &str, content_type: &str, body: Vec<u8>) -> Reply {
        self.request("POST", path, &[("content-type", content_type)], Some(body))
            .await
    }

    pub async fn request(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: Option<Vec<u8>>,
    ) -> Reply {
        let url = format!("{}{}", self.gw.url, path);
        let mut req = self
            .client
            .request(reqwest::Method::from_bytes(method.as_bytes()).unwrap(), url)
            .header("apikey", &self.gw.anon)
            .header(
                "authorization",
                format!("Bearer {}", self.token.as_deref().unwrap_or(&self.gw.anon)),
            );
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        if let Some(b) = body {
            req = req.body(b);
        }
        let res = req.send().await.expect("request");
        let status = res.status().as_u16();
        let headers = res.headers().clone();
        let text = res.text().await.unwrap();
        Reply {
            status,
            headers,
            text,
        }
    }

    pub async fn get(&self, path: &str) -> Reply {
        self.send("GET", path, &[], None).await
    }
}

/// The http(s) links in a mail's HTML or text, entities decoded.
pub fn links_in(body: &str) -> Vec<String> {
    body.match_indices("http")
        .map(|(i, _)| {
            let rest = &body[i..];
            let end = rest
                .find(|c: char| matches!(c, '"' | '\'' | '<' | '\\') || c.is_whitespace())
                .unwrap_or(rest.len());
            rest[..end].replace("&amp;", "&")
        })
        .collect()
}

/// Runs the binary once on `workdir` and `data_dir`, ports chosen by the system, with `args`.
pub fn run_cli(workdir: &Path, data_dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_supagate"))
        .arg("--workdir")
        .arg(workdir)
        .arg("--data-dir")
        .arg(data_dir)
        .args([
            "--port",
            "0",
            "--db-port",
            "0",
            "--mail-port",
            "0",
            "--studio-port",
            "0",
        ])
        .args(args)
        .env_remove("DATABASE_URL")
        .env("RUST_LOG", "warn")
        .env("SUPAGATE_CACHE_DIR", pg_cache())
        .output()
        .expect("run supagate")
}
