//! `status` and `stop`, and the values both print: the URLs and keys of a running project under
//! the Supabase CLI's names. A running gateway keeps them in its data directory.

use super::CommandError;
use super::tables::{self, Group, Kind};
use crate::args::Output;
use gateway::config::Config;
use pg::database::owner_pid as gateway_pid;
use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Name → value, with the CLI's names (API_URL, DB_URL, ANON_KEY, …).
pub type Values = BTreeMap<String, String>;

pub fn state_file(data: &Path) -> PathBuf {
    data.join("supagate-status.json")
}

/// The URLs of the tools beside the API, when they run.
#[derive(Default)]
pub struct Tools<'a> {
    pub mail: Option<&'a str>,
    /// Studio's address and the secret of its link (see `gateway::studio_api`).
    pub studio: Option<(&'a str, &'a str)>,
}

pub fn values(cfg: &Config, api_url: &str, db_url: &str, tools: Tools) -> Values {
    let keys = identity::jwt::JwtKeys::new(cfg.jwt_secret()).api_keys();
    let mut v = Values::new();
    v.insert("API_URL".into(), api_url.to_string());
    v.insert("REST_URL".into(), format!("{api_url}/rest/v1"));
    if cfg.project.config.edge_runtime.enabled {
        v.insert("FUNCTIONS_URL".into(), format!("{api_url}/functions/v1"));
    }
    v.insert("DB_URL".into(), db_url.to_string());
    v.insert("JWT_SECRET".into(), cfg.jwt_secret().to_string());
    v.insert("ANON_KEY".into(), keys.anon);
    v.insert("SERVICE_ROLE_KEY".into(), keys.service_role);
    if let Some((url, token)) = tools.studio {
        v.insert("STUDIO_URL".into(), url.to_string());
        // Studio's API answers only the browser that opened this link.
        v.insert("STUDIO_TOKEN".into(), token.to_string());
    }
    if let Some(m) = tools.mail {
        v.insert("MAILPIT_URL".into(), m.to_string());
        v.insert("INBUCKET_URL".into(), m.to_string());
    }
    if cfg.jwt_secret.is_none() {
        v.insert(
            "PUBLISHABLE_KEY".into(),
            identity::jwt::CLI_PUBLISHABLE_KEY.into(),
        );
        v.insert("SECRET_KEY".into(), identity::jwt::CLI_SECRET_KEY.into());
    }
    v
}

/// Records the values of a gateway that is ready (readable by its owner only: it holds keys).
pub fn write_state(data: &Path, values: &Values) -> Result<(), CommandError> {
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
        .map_err(|e| CommandError::io(format!("cannot write {}", path.display()), e))
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

/// The address a developer opens Studio at: its URL with the secret of this start.
pub fn studio_link(v: &Values) -> Option<String> {
    let url = v.get("STUDIO_URL")?;
    Some(match v.get("STUDIO_TOKEN") {
        Some(t) => format!("{url}/?token={t}"),
        None => url.clone(),
    })
}

/// The groups of tables the CLI's `status` and `start` print, from the values.
fn groups<'a>(v: &'a Values, studio_link: Option<&'a str>) -> Vec<Group<'a>> {
    let get = |k: &str| v.get(k).map(String::as_str);
    // With a JWT secret of its own a project has no opaque keys (they are the CLI's demo keys):
    // its JWT keys take their place.
    let keys = if v.contains_key("PUBLISHABLE_KEY") {
        vec![
            ("Publishable", get("PUBLISHABLE_KEY"), Kind::Key),
            ("Secret", get("SECRET_KEY"), Kind::Key),
        ]
    } else {
        vec![
            ("Anon key", get("ANON_KEY"), Kind::Key),
            ("Service role key", get("SERVICE_ROLE_KEY"), Kind::Key),
        ]
    };
    vec![
        Group {
            name: "🔧 Development Tools",
            rows: vec![
                ("Studio", studio_link, Kind::Link),
                ("Mailpit", get("MAILPIT_URL"), Kind::Link),
                ("MCP", get("MCP_URL"), Kind::Link),
            ],
        },
        Group {
            name: "🌐 APIs",
            rows: vec![
                ("Project URL", get("API_URL"), Kind::Link),
                ("REST", get("REST_URL"), Kind::Link),
                ("GraphQL", get("GRAPHQL_URL"), Kind::Link),
                ("Edge Functions", get("FUNCTIONS_URL"), Kind::Link),
            ],
        },
        Group {
            name: "⛁ Database",
            rows: vec![("URL", get("DB_URL"), Kind::Link)],
        },
        Group {
            name: "🔑 Authentication Keys",
            rows: keys,
        },
        Group {
            name: "📦 Storage (S3)",
            rows: vec![
                ("URL", get("STORAGE_S3_URL"), Kind::Link),
                ("Access Key", get("S3_PROTOCOL_ACCESS_KEY_ID"), Kind::Key),
                (
                    "Secret Key",
                    get("S3_PROTOCOL_ACCESS_KEY_SECRET"),
                    Kind::Key,
                ),
                ("Region", get("S3_PROTOCOL_REGION"), Kind::Text),
            ],
        },
    ]
}

/// Whether stdout is a terminal that takes colours (as lipgloss decides for the CLI).
fn colour() -> bool {
    std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none()
}

/// Writes the values as the CLI's `status -o …` does; `line`: JSON on one line. A reader that
/// closed stdout (`| head -1`) is an error for the caller to take, not a panic.
pub fn print(values: &Values, output: Output, line: bool) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    match output {
        Output::Env => {
            for (k, v) in values {
                writeln!(
                    out,
                    "{k}=\"{}\"",
                    v.replace('\\', "\\\\").replace('"', "\\\"")
                )?;
            }
        }
        Output::Json if line => writeln!(out, "{}", serde_json::to_string(values)?)?,
        Output::Json => writeln!(out, "{}", serde_json::to_string_pretty(values)?)?,
        Output::Toml => write!(
            out,
            "{}",
            toml::to_string(values).map_err(std::io::Error::other)?
        )?,
        Output::Yaml => {
            for (k, v) in values {
                writeln!(out, "{k}: {}", yaml_scalar(v))?;
            }
        }
        Output::Pretty => {
            let link = studio_link(values);
            write!(
                out,
                "{}",
                tables::render(&groups(values, link.as_deref()), colour())
            )?
        }
    }
    out.flush()
}

/// A string as YAML writes it: plain when it reads back as the same string, else quoted.
fn yaml_scalar(v: &str) -> String {
    let plain = !v.is_empty()
        && v.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:@?=&%+~".contains(c))
        && v.starts_with(|c: char| c.is_ascii_alphabetic())
        && !matches!(
            v.to_ascii_lowercase().as_str(),
            "true" | "false" | "yes" | "no" | "on" | "off" | "null" | "y" | "n"
        );
    if plain {
        v.to_string()
    } else {
        serde_json::to_string(v).expect("string")
    }
}

/// The values of the gateway running this project.
pub fn running_values(cfg: &Config) -> Result<Values, CommandError> {
    let not_running = || {
        CommandError::Message(format!(
            "supagate is not running for {} (start it with `supagate start`)",
            cfg.project.root.display()
        ))
    };
    gateway_pid(&cfg.data_dir).ok_or_else(not_running)?;
    let text = std::fs::read_to_string(state_file(&cfg.data_dir)).map_err(|_| not_running())?;
    serde_json::from_str(&text).map_err(|e| CommandError::other("unreadable status file", e))
}

pub fn status(cfg: &Config, output: Output) -> Result<(), CommandError> {
    let values = running_values(cfg)?;
    if output == Output::Pretty {
        eprintln!("supagate local development setup is running.\n");
    }
    match print(&values, output, false) {
        // The reader took what it wanted.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => r.map_err(|e| CommandError::io("cannot write the status", e)),
    }
}

pub fn stop(cfg: &Config) -> Result<(), CommandError> {
    let Some(pid) = gateway_pid(&cfg.data_dir) else {
        println!(
            "supagate is not running for {}.",
            cfg.project.root.display()
        );
        return Ok(());
    };
    signal_stop(pid)?;
    wait_stopped(pid)?;
    println!("Stopped supagate for {}.", cfg.project.root.display());
    Ok(())
}

/// Asks the gateway `pid` to stop (SIGTERM: it stops its cluster and removes its state).
pub fn signal_stop(pid: u32) -> Result<(), CommandError> {
    let sent = std::process::Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .map_err(|e| CommandError::io(format!("cannot signal pid {pid}"), e))?;
    if !sent.success() {
        return Err(CommandError::Message(format!(
            "cannot signal supagate (pid {pid})"
        )));
    }
    Ok(())
}

/// Waits until the gateway `pid` ended (up to a minute).
pub fn wait_stopped(pid: u32) -> Result<(), CommandError> {
    let t0 = Instant::now();
    while pg::embedded::process_alive(pid, "supagate") {
        if t0.elapsed() > Duration::from_secs(60) {
            return Err(CommandError::Message(format!(
                "supagate (pid {pid}) did not stop within 60 s"
            )));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Ok(())
}
