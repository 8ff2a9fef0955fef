//! Starts one real gateway per test binary on a throwaway PostgreSQL cluster (its own data
//! directory, unix socket only, free HTTP port). Its stdin is a pipe held by this process, so
//! the gateway and its cluster stop when the tests end, however they end.
#![allow(dead_code)]

use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Mutex, OnceLock};

pub struct Gateway {
    pub url: String,
    pub anon: String,
    pub service: String,
    pub data_dir: PathBuf,
    _stdin: Mutex<ChildStdin>,
    _child: Mutex<Child>,
}

/// Removes data directories left by test processes that no longer run.
fn sweep(root: &std::path::Path) {
    for entry in std::fs::read_dir(root).into_iter().flatten().flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        if let Some(pid) = name
            .split('-')
            .next_back()
            .and_then(|p| p.parse::<u32>().ok())
            && !std::path::Path::new(&format!("/proc/{pid}")).exists()
        {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

pub fn start(extra_args: &[&str]) -> Gateway {
    let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("gateways");
    std::fs::create_dir_all(&root).unwrap();
    sweep(&root);
    let exe = env!("CARGO_BIN_EXE_supagate");
    let test_name = std::env::args()
        .next()
        .and_then(|a| a.rsplit('/').next().map(str::to_string))
        .unwrap_or_default();
    static COUNT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = COUNT.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let data_dir = root.join(format!(
        "{}{n}-{}",
        test_name.split('-').next().unwrap_or("t"),
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&data_dir);
    let mut child = Command::new(exe)
        .args([
            "--data-dir",
            data_dir.to_str().unwrap(),
            "--port",
            "0",
            "--db-port",
            "0",
            "--stop-on-stdin-close",
        ])
        .args(extra_args)
        .arg("start")
        .env("SUPAGATE_SITE_DIR", data_dir.join("no-site"))
        .env("RUST_LOG", "warn")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start the gateway binary");
    let stdout = child.stdout.take().unwrap();
    let mut lines = BufReader::new(stdout).lines();
    let (mut url, mut anon, mut service) = (String::new(), String::new(), String::new());
    for line in lines.by_ref() {
        let line = line.unwrap();
        let value = || {
            line.split_once(": ")
                .map(|(_, v)| v.trim().to_string())
                .unwrap_or_default()
        };
        if line.trim_start().starts_with("API URL:") {
            url = value();
        } else if line.trim_start().starts_with("anon key:") {
            anon = value();
        } else if line.trim_start().starts_with("service_role key:") {
            service = value();
        } else if line.starts_with("Press Ctrl-C") {
            break;
        }
    }
    assert!(!url.is_empty(), "the gateway did not start");
    // Keep draining stdout so the gateway never blocks on a full pipe.
    std::thread::spawn(move || for _ in lines {});
    let stdin = child.stdin.take().unwrap();
    Gateway {
        url,
        anon,
        service,
        data_dir,
        _stdin: Mutex::new(stdin),
        _child: Mutex::new(child),
    }
}

/// The gateway shared by every test of this binary, with the demo data.
pub fn shared() -> &'static Gateway {
    static G: OnceLock<Gateway> = OnceLock::new();
    G.get_or_init(|| start(&[]))
}

impl Gateway {
    pub fn secret(&self) -> &'static str {
        auth::jwt::DEMO_JWT_SECRET
    }

    /// A signed access token for a user id, as the auth API would issue it.
    pub fn user_token(&self, user_id: &str) -> String {
        let now = chrono::Utc::now().timestamp();
        auth::jwt::JwtKeys::new(self.secret()).sign(&json!({
            "sub": user_id, "role": "authenticated", "aud": "authenticated", "exp": now + 3600, "iat": now,
        }))
    }

    /// Runs SQL as the cluster's superuser (the test owns this cluster); returns the rows of the
    /// last statement as text.
    pub async fn sql(&self, query: &str) -> Vec<Vec<Option<String>>> {
        let mut cfg = tokio_postgres::Config::new();
        cfg.host_path(self.data_dir.join("pg"))
            .port(5432)
            .user("postgres")
            .dbname("postgres");
        let (client, conn) = cfg
            .connect(tokio_postgres::NoTls)
            .await
            .expect("connect as superuser");
        tokio::spawn(conn);
        let mut rows = Vec::new();
        for m in client.simple_query(query).await.expect("run SQL") {
            match m {
                tokio_postgres::SimpleQueryMessage::Row(r) => {
                    rows.push((0..r.len()).map(|i| r.get(i).map(str::to_string)).collect())
                }
                tokio_postgres::SimpleQueryMessage::CommandComplete(_) => {}
                _ => {}
            }
        }
        rows
    }

    /// Creates a user (optionally an admin) directly in the database and returns its id.
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
            req = req
                .header("content-type", "application/json")
                .body(b.to_string());
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
