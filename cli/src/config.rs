//! Flags (and their environment variables) over the project's config.toml over the Supabase
//! CLI's defaults: the settings a command runs with.

use crate::args::Flags;
use crate::commands::CommandError;
use gateway::config::Config;
use project::Project;

fn default_workers() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
}

/// Resolves the flags against the project.
/// `$XDG_CACHE_HOME/supagate`, else `~/.cache/supagate`, else the data directory.
fn default_cache_dir(data_dir: &std::path::Path) -> std::path::PathBuf {
    let non_empty = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
    non_empty("XDG_CACHE_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| non_empty("HOME").map(|h| std::path::PathBuf::from(h).join(".cache")))
        .map(|c| c.join("supagate"))
        .unwrap_or_else(|| data_dir.join("cache"))
}

/// PostgREST settings read from `PGRST_*` variables and layered under the database's
/// `pgrst.*` settings, as PostgREST does (its other variables are flags: `PGRST_DB_SCHEMAS`,
/// `PGRST_DB_MAX_ROWS`, `PGRST_DB_EXTRA_SEARCH_PATH`).
const PGRST_SETTINGS: [&str; 4] = [
    "db_plan_enabled",
    "db_tx_end",
    "db_aggregates_enabled",
    "db_pre_request",
];
const PGRST_FLAGS: [&str; 3] = ["db_schemas", "db_max_rows", "db_extra_search_path"];

/// The `PGRST_*` settings among `vars`; booleans read as PostgREST reads them (`1`, `yes`, `on`
/// are `true`). Variables PostgREST knows but supagate does not use are named in a warning.
fn pgrst_settings(vars: impl Iterator<Item = (String, String)>) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut ignored = Vec::new();
    for (name, value) in vars {
        let Some(key) = name.strip_prefix("PGRST_").map(str::to_ascii_lowercase) else {
            continue;
        };
        if PGRST_SETTINGS.contains(&key.as_str()) {
            let value = match (key.ends_with("_enabled"), value.trim().to_ascii_lowercase()) {
                (true, v) if ["1", "true", "yes", "on"].contains(&v.as_str()) => "true".into(),
                (true, _) => "false".into(),
                (false, _) => value.trim().to_string(),
            };
            out.push((key, value));
        } else if !PGRST_FLAGS.contains(&key.as_str()) {
            ignored.push(name);
        }
    }
    if !ignored.is_empty() {
        ignored.sort();
        tracing::warn!(
            "not implemented, ignored: {} (supagate connects, listens and signs as its own \
             config says)",
            ignored.join(", ")
        );
    }
    out.sort();
    out
}

/// The project's data directory: --data-dir, else `supabase/.temp/supagate` in the project
/// folder (so each checkout or git worktree of a repository has data of its own).
pub fn data_dir(flags: &Flags, project: &Project) -> std::path::PathBuf {
    let data_dir = flags
        .data_dir
        .clone()
        .unwrap_or_else(|| project.supabase_dir.join(".temp/supagate"));
    std::path::absolute(&data_dir).unwrap_or(data_dir)
}

/// `[api.tls]`'s certificate and key: the files it names (relative to `supabase/`), else a
/// certificate of the project's own for localhost, 127.0.0.1 and ::1, made once and kept in the
/// data directory (trusted once, it stays valid across restarts).
fn api_tls(
    project: &Project,
    data_dir: &std::path::Path,
) -> Result<Option<gateway::config::TlsPem>, CommandError> {
    let tls = &project.config.api.tls;
    if !tls.enabled {
        return Ok(None);
    }
    let read = |key: &str, path: &std::path::Path| {
        std::fs::read(path).map_err(|e| {
            CommandError::io(
                format!("[api.tls] {key}: cannot read {}", path.display()),
                e,
            )
        })
    };
    if let (Some(cert), Some(key)) = (&tls.cert_path, &tls.key_path) {
        return Ok(Some(gateway::config::TlsPem {
            cert: read("cert_path", &project.supabase_dir.join(cert))?,
            key: read("key_path", &project.supabase_dir.join(key))?,
        }));
    }
    let dir = data_dir.join("api-tls");
    let (cert, key) = (dir.join("cert.pem"), dir.join("key.pem"));
    if !cert.is_file() || !key.is_file() {
        let made = rcgen::generate_simple_self_signed(
            ["localhost", "127.0.0.1", "::1"].map(String::from).to_vec(),
        )
        .map_err(|e| CommandError::other("[api.tls]: cannot make a certificate", e))?;
        std::fs::create_dir_all(&dir)
            .and_then(|()| std::fs::write(&cert, made.cert.pem()))
            .and_then(|()| {
                use std::io::Write;
                use std::os::unix::fs::OpenOptionsExt;
                std::fs::OpenOptions::new()
                    .write(true)
                    .create(true)
                    .truncate(true)
                    .mode(0o600)
                    .open(&key)?
                    .write_all(made.signing_key.serialize_pem().as_bytes())
            })
            .map_err(|e| CommandError::io(format!("cannot write {}", dir.display()), e))?;
        tracing::info!(
            "[api.tls]: made a certificate for localhost in {} (trust it to call the API \
             without warnings)",
            cert.display()
        );
    }
    Ok(Some(gateway::config::TlsPem {
        cert: read("cert_path", &cert)?,
        key: read("key_path", &key)?,
    }))
}

pub fn resolve(flags: Flags, project: Project) -> Result<Config, CommandError> {
    let p = &project.config;
    let data_dir = data_dir(&flags, &project);
    let api_tls = api_tls(&project, &data_dir)?;
    let list = |s: &str| -> Vec<String> {
        s.split(',')
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect()
    };
    let schemas = match &flags.db_schemas {
        Some(s) => list(s),
        None => p.api.schemas.clone(),
    };
    let schemas = if schemas.is_empty() {
        // Older CLI templates wrote `schemas = []` under "public and storage are always
        // included"; such projects meant the default.
        tracing::warn!(
            "[api] schemas is empty: exposing public and graphql_public, as the CLI's defaults"
        );
        vec!["public".to_string(), "graphql_public".to_string()]
    } else {
        schemas
    };
    if let Some(e) = flags.jwt_expiry
        && !(30..=604_800).contains(&e)
    {
        return Err(CommandError::Message(format!(
            "--jwt-expiry {e}: must be from 30 to 604800 seconds"
        )));
    }
    let signing_keys = match &p.auth.signing_keys_path {
        Some(path) => {
            let file = project.supabase_dir.join(path);
            let text = std::fs::read_to_string(&file).map_err(|e| {
                let context = format!(
                    "{}: auth.signing_keys_path: cannot read {}",
                    project.relative(project.config_file.as_deref().unwrap_or(&file)),
                    file.display()
                );
                CommandError::io(context, e)
            })?;
            identity::jwt::JwtKeys::with_signing_keys("", &text)
                .map_err(|e| CommandError::other(file.display().to_string(), e))?;
            Some(text)
        }
        None => None,
    };
    let mut auth = p.auth.clone();
    auth.jwt_expiry = flags.jwt_expiry.unwrap_or(auth.jwt_expiry);
    auth.enable_signup = auth.enable_signup && !flags.disable_signup;
    if let Some(n) = flags.rate_limit_sign_in {
        auth.rate_limit.sign_in_sign_ups = n;
    }
    if let Some(n) = flags.rate_limit_token_refresh {
        auth.rate_limit.token_refresh = n;
    }
    if let Some(n) = flags.refresh_token_reuse_interval {
        auth.refresh_token_reuse_interval = n;
    }
    let cache_dir = flags
        .cache_dir
        .clone()
        .map(|d| std::path::absolute(&d).unwrap_or(d))
        .unwrap_or_else(|| default_cache_dir(&data_dir));
    // Three quarters of the open-file limit, less what the pools, the cluster's files and the
    // catcher may hold.
    let connection_budget = (crate::open_file_limit() as usize * 3 / 4)
        .saturating_sub(64)
        .max(32);
    let net_host = flags.host.clone();
    let net_local = match flags.net_local {
        Some(n) => n == crate::args::NetLocal::Allow,
        None => !(p.studio.enabled || gateway::config::is_loopback_host(&net_host)),
    };
    let port = flags.port.unwrap_or(p.api.port);
    // The http extension and the wrappers that make requests (Stripe's) follow pg_net's rule of
    // where requests may go, from settings only a superuser can change; given last, so that
    // --net-local decides them.
    let allow = if net_local { "on" } else { "off" };
    // [db.settings] first, so that --pg-settings (given later on the server's command line)
    // overrides them.
    let db_settings: String =
        p.db.settings
            .iter()
            .map(|(k, v)| format!("{k}={v} "))
            .collect();
    let pg_settings = format!(
        "{db_settings}{} http.supagate_allow_local={allow} http.supagate_api_port={port} wrappers.supagate_allow_local={allow}",
        flags.pg_settings,
    );
    Ok(Config {
        connection_budget,
        data_dir,
        host: flags.host,
        port,
        db_port: flags.db_port.unwrap_or(p.db.port),
        pg_settings,
        database_url: flags.database_url.filter(|u| !u.is_empty()),
        pg_bin_dir: flags.pg_bin_dir,
        cache_dir,
        jwt_secret: flags
            .jwt_secret
            .filter(|s| !s.is_empty())
            .or_else(|| p.auth.jwt_secret.clone())
            .filter(|s| s != identity::jwt::DEMO_JWT_SECRET),
        api_external_url: flags
            .api_external_url
            .or_else(|| p.api.external_url.clone()),
        api_tls,
        site_dir: flags.site_dir,
        schemas,
        extra_search_path: match &flags.db_extra_search_path {
            Some(s) => list(s),
            None => p.api.extra_search_path.clone(),
        },
        db_settings: pgrst_settings(std::env::vars()),
        sms_api_url: flags
            .sms_api_url
            .map(|u| u.trim_end_matches('/').to_string()),
        max_rows: flags.max_rows.unwrap_or(p.api.max_rows),
        workers: flags.workers.unwrap_or_else(default_workers).max(1),
        db_pool: flags.db_pool.max(1),
        db_pool_timeout: flags.db_pool_timeout,
        db_auth_pool: flags.db_auth_pool.max(1),
        max_client_queries: flags
            .max_client_queries
            .unwrap_or(flags.db_pool.max(1).div_ceil(2)),
        statement_cache: flags.statement_cache.max(1),
        statement_timeout_ms: flags.statement_timeout_ms,
        max_body_bytes: flags.max_body_bytes,
        storage_file_size_limit: flags
            .storage_file_size_limit
            .unwrap_or(p.storage.file_size_limit),
        storage_backend: flags.storage_backend,
        storage_image_transformation: p.storage.image_transformation,
        storage_s3_bucket: flags.storage_s3_bucket,
        auth,
        inbucket: p.inbucket.clone(),
        signing_keys,
        mail_port: (p.inbucket.enabled && p.auth.email.smtp.is_none())
            .then(|| flags.mail_port.unwrap_or(p.inbucket.port)),
        mail_host: flags.mail_host.unwrap_or_else(|| "127.0.0.1".into()),
        studio_port: p
            .studio
            .enabled
            .then(|| flags.studio_port.unwrap_or(p.studio.port)),
        studio_api_url: p.studio.api_url.clone(),
        functions_env_file: flags.env_file.or_else(|| {
            let dotenv = project.supabase_dir.join("functions").join(".env");
            dotenv.is_file().then_some(dotenv)
        }),
        deno: flags.deno.unwrap_or_else(|| "deno".into()),
        rate_limit_ip_header: flags.rate_limit_ip_header,
        trusted_proxy_hops: flags.trusted_proxy_hops.max(1),
        insecure_demo_keys: flags.insecure_demo_keys,
        net_local,
        workbench_origins: flags
            .workbench_origins
            .iter()
            .map(|o| o.trim().trim_end_matches('/').to_ascii_lowercase())
            .filter(|o| !o.is_empty())
            .collect(),
        stop_on_stdin_close: flags.stop_on_stdin_close,
        log_requests: flags.log_requests,
        request_history: flags.request_history,
        rest_enabled: p.api.enabled,
        auth_enabled: p.auth.enabled,
        storage_enabled: p.storage.enabled,
        realtime_enabled: p.realtime.enabled,
        realtime_max_header_length: p.realtime.max_header_length as usize,
        realtime_max_transaction_changes: flags.realtime_max_transaction_changes.max(1),
        realtime_resume_grace: std::time::Duration::from_millis(flags.realtime_resume_grace_ms),
        render: storage::service::RenderSettings {
            cache_bytes: flags.render_cache_mb << 20,
            variants: flags.render_variants.max(1),
            memory_bytes: flags.render_memory_mb.max(1) << 20,
        },
        project,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pgrst_variables_become_settings() {
        let vars = [
            ("PGRST_DB_PLAN_ENABLED", "1"),
            ("PGRST_DB_AGGREGATES_ENABLED", "off"),
            ("PGRST_DB_TX_END", " commit-allow-override "),
            ("PGRST_DB_SCHEMAS", "public"),
            ("PGRST_DB_ANON_ROLE", "postgres"),
            ("HOME", "/root"),
        ]
        .map(|(k, v)| (k.to_string(), v.to_string()));
        let pairs = |v: &[(&str, &str)]| {
            v.iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            pgrst_settings(vars.into_iter()),
            pairs(&[
                ("db_aggregates_enabled", "false"),
                ("db_plan_enabled", "true"),
                ("db_tx_end", "commit-allow-override"),
            ])
        );
    }
}
