//! `status` and `stop`, and the values both print: the URLs and keys of a running project under
//! the Supabase CLI's names. A running gateway keeps them in its data directory.

use crate::args::Output;
use gateway::config::Config;
use pg::database::owner_pid as gateway_pid;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Name → value, with the CLI's names (API_URL, DB_URL, ANON_KEY, …).
pub type Values = BTreeMap<String, String>;

fn state_file(data: &Path) -> PathBuf {
    data.join("supagate-status.json")
}

pub fn values(cfg: &Config, api_url: &str, db_url: &str, mail_url: Option<&str>) -> Values {
    let keys = auth::jwt::JwtKeys::new(cfg.jwt_secret()).api_keys();
    let mut v = Values::new();
    v.insert("API_URL".into(), api_url.to_string());
    v.insert("REST_URL".into(), format!("{api_url}/rest/v1"));
    v.insert("DB_URL".into(), db_url.to_string());
    v.insert("JWT_SECRET".into(), cfg.jwt_secret().to_string());
    v.insert("ANON_KEY".into(), keys.anon);
    v.insert("SERVICE_ROLE_KEY".into(), keys.service_role);
    if let Some(m) = mail_url {
        v.insert("MAILPIT_URL".into(), m.to_string());
        v.insert("INBUCKET_URL".into(), m.to_string());
    }
    if cfg.jwt_secret.is_none() {
        v.insert(
            "PUBLISHABLE_KEY".into(),
            auth::jwt::CLI_PUBLISHABLE_KEY.into(),
        );
        v.insert("SECRET_KEY".into(), auth::jwt::CLI_SECRET_KEY.into());
    }
    v
}

/// Records the values of a gateway that is ready (readable by its owner only: it holds keys).
pub fn write_state(data: &Path, values: &Values) -> Result<(), String> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let path = state_file(data);
    let text = serde_json::to_string_pretty(values).expect("values serialise");
    std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&path)
        .and_then(|mut f| f.write_all(text.as_bytes()))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// The DB_URL a running gateway published for its data directory.
pub fn running_db_url(data: &Path) -> Option<String> {
    let text = std::fs::read_to_string(state_file(data)).ok()?;
    let values: Values = serde_json::from_str(&text).ok()?;
    values.get("DB_URL").cloned()
}

pub fn remove_state(data: &Path) {
    let _ = std::fs::remove_file(state_file(data));
}

/// Prints the values as the CLI's `status -o …` does; `line`: JSON on one line.
pub fn print(values: &Values, output: Output, line: bool) {
    match output {
        Output::Env => {
            for (k, v) in values {
                println!("{k}=\"{}\"", v.replace('\\', "\\\\").replace('"', "\\\""));
            }
        }
        Output::Json if line => println!("{}", serde_json::to_string(values).expect("json")),
        Output::Json => println!("{}", serde_json::to_string_pretty(values).expect("json")),
        Output::Pretty => {
            let rows = [
                ("API URL", "API_URL"),
                ("REST URL", "REST_URL"),
                ("DB URL", "DB_URL"),
                ("Mailpit URL", "MAILPIT_URL"),
                ("Publishable key", "PUBLISHABLE_KEY"),
                ("Secret key", "SECRET_KEY"),
                ("JWT secret", "JWT_SECRET"),
                ("anon key", "ANON_KEY"),
                ("service_role key", "SERVICE_ROLE_KEY"),
            ];
            for (label, name) in rows {
                if let Some(v) = values.get(name) {
                    println!("{label:>16}: {v}");
                }
            }
        }
    }
}

pub fn status(cfg: &Config, output: Output) -> Result<(), String> {
    let not_running = || {
        format!(
            "supagate is not running for {} (start it with `supagate start`)",
            cfg.project.root.display()
        )
    };
    gateway_pid(&cfg.data_dir).ok_or_else(not_running)?;
    let text = std::fs::read_to_string(state_file(&cfg.data_dir)).map_err(|_| not_running())?;
    let values: Values =
        serde_json::from_str(&text).map_err(|e| format!("unreadable status file: {e}"))?;
    print(&values, output, false);
    Ok(())
}

pub fn stop(cfg: &Config) -> Result<(), String> {
    let Some(pid) = gateway_pid(&cfg.data_dir) else {
        println!(
            "supagate is not running for {}.",
            cfg.project.root.display()
        );
        return Ok(());
    };
    let sent = std::process::Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .map_err(|e| format!("cannot signal pid {pid}: {e}"))?;
    if !sent.success() {
        return Err(format!("cannot signal supagate (pid {pid})"));
    }
    let t0 = Instant::now();
    while pg::embedded::process_alive(pid, "supagate") {
        if t0.elapsed() > Duration::from_secs(60) {
            return Err(format!("supagate (pid {pid}) did not stop within 60 s"));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    println!("Stopped supagate for {}.", cfg.project.root.display());
    Ok(())
}
