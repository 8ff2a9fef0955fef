//! How one function's Deno is started: its arguments (permissions, config, memory) and its
//! environment, built over an empty one as the CLI builds it.

use crate::FunctionsSettings;
use crate::catalog::{DenoConfig, Function};
use std::path::Path;

/// Variables passed through from supagate's own environment (registry mirrors, proxies, CAs).
const PASSED_THROUGH: &[&str] = &[
    "NPM_CONFIG_REGISTRY",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    "SSL_CERT_FILE",
    "DENO_CERT",
    "DENO_TLS_CA_STORE",
    "TZ",
];

/// Deno's arguments for `f`, run through the bootstrap module `boot`.
pub fn args(
    f: &Function,
    s: &FunctionsSettings,
    functions_dir: &Path,
    boot: &Path,
    socket_dir: &Path,
    denied: &[String],
) -> Vec<String> {
    let deno_dir = s.work_dir.join("deno");
    // The functions folder, for the modules functions share (`../_shared/…`).
    let mut read = vec![
        functions_dir.to_path_buf(),
        f.dir.clone(),
        deno_dir,
        boot.to_path_buf(),
        socket_dir.to_path_buf(),
    ];
    read.extend(f.static_files.iter().cloned());
    let list = |paths: &[std::path::PathBuf]| {
        paths
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    let mut a = vec![
        "run".to_string(),
        "--no-prompt".into(),
        "--no-lock".into(),
        "--allow-net".into(),
        "--allow-env".into(),
        format!("--allow-read={}", list(&read)),
        format!("--allow-write={}", socket_dir.display()),
        format!("--v8-flags=--max-old-space-size={}", s.memory_mb),
    ];
    if !denied.is_empty() {
        a.push(format!("--deny-net={}", denied.join(",")));
    }
    match &f.config {
        Some(DenoConfig::DenoJson(p)) => a.push(format!("--config={}", p.display())),
        Some(DenoConfig::ImportMap(p)) => {
            a.push("--no-config".into());
            a.push(format!("--import-map={}", p.display()));
        }
        None => a.push("--no-config".into()),
    }
    a.push(boot.display().to_string());
    a.push(format!("file://{}", f.entrypoint.display()));
    a
}

/// The function's environment: user variables (names starting `SUPABASE_` skipped, as the
/// CLI skips them), then what supagate injects, then Deno's own settings. Returns the
/// variables and the names skipped.
pub fn env(
    s: &FunctionsSettings,
    user: &[(String, String)],
    socket: &Path,
    outer: impl Fn(&str) -> Option<String>,
) -> (Vec<(String, String)>, Vec<String>) {
    let mut skipped = Vec::new();
    let mut out: Vec<(String, String)> = Vec::new();
    for (k, v) in user {
        if k.starts_with("SUPABASE_") {
            skipped.push(k.clone());
        } else {
            out.push((k.clone(), v.clone()));
        }
    }
    out.extend(s.platform_env.iter().cloned());
    for name in PASSED_THROUGH {
        if let Some(v) = outer(name) {
            out.push((name.to_string(), v));
        }
    }
    out.push((
        "DENO_DIR".into(),
        s.work_dir.join("deno").display().to_string(),
    ));
    out.push((
        "DENO_SERVE_ADDRESS".into(),
        format!("unix:{}", socket.display()),
    ));
    out.push(("DENO_NO_UPDATE_CHECK".into(), "1".into()));
    // The machine's certificate authorities as well as Deno's own (a registry or API behind a
    // proxy with its own CA is reached as the machine reaches it), unless set otherwise.
    if outer("DENO_TLS_CA_STORE").is_none() {
        out.push(("DENO_TLS_CA_STORE".into(), "system,mozilla".into()));
    }
    out.push(("NO_COLOR".into(), "1".into()));
    (out, skipped)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;
    use std::time::Duration;

    fn settings() -> FunctionsSettings {
        FunctionsSettings {
            deno: "deno".into(),
            work_dir: "/data/functions".into(),
            platform_env: vec![("SUPABASE_URL".into(), "http://127.0.0.1:54321".into())],
            secrets: Vec::new(),
            env_file: None,
            policy: project::Policy::PerWorker,
            memory_mb: 256,
            wall_clock: Duration::from_secs(400),
            cpu_time: Duration::from_secs(2),
            cpu_time_soft: Duration::from_secs(1),
            boot_timeout: Duration::from_secs(30),
        }
    }

    #[test]
    fn user_variables_cannot_replace_what_supagate_injects() {
        let user = vec![
            ("STRIPE_KEY".to_string(), "sk".to_string()),
            ("SUPABASE_URL".to_string(), "http://evil".to_string()),
        ];
        let (env, skipped) = env(&settings(), &user, Path::new("/s/hello.sock"), |n| {
            (n == "NPM_CONFIG_REGISTRY").then(|| "http://mirror".to_string())
        });
        assert_eq!(skipped, ["SUPABASE_URL"]);
        let get = |k: &str| {
            env.iter()
                .filter(|(n, _)| n == k)
                .map(|(_, v)| v.as_str())
                .collect::<Vec<_>>()
        };
        assert_eq!(get("SUPABASE_URL"), ["http://127.0.0.1:54321"]);
        assert_eq!(get("STRIPE_KEY"), ["sk"]);
        assert_eq!(get("NPM_CONFIG_REGISTRY"), ["http://mirror"]);
        assert_eq!(get("DENO_SERVE_ADDRESS"), ["unix:/s/hello.sock"]);
        assert!(get("PATH").is_empty() && get("HOME").is_empty());
    }

    #[test]
    fn permissions_are_net_env_and_reading_the_functions_folder() {
        let f = Function {
            slug: "hello".into(),
            verify_jwt: true,
            entrypoint: "/p/supabase/functions/hello/index.ts".into(),
            dir: "/p/supabase/functions/hello".into(),
            config: Some(DenoConfig::DenoJson(
                "/p/supabase/functions/hello/deno.json".into(),
            )),
            static_files: vec![PathBuf::from("/p/supabase/functions/hello/page.html")],
        };
        let a = args(
            &f,
            &settings(),
            Path::new("/p/supabase/functions"),
            Path::new("/data/functions/boot.mjs"),
            Path::new("/data/functions/sockets"),
            &["127.0.0.1:54323".into(), "localhost:54323".into()],
        );
        assert!(a.contains(&"--deny-net=127.0.0.1:54323,localhost:54323".to_string()));
        assert!(a.contains(&"--allow-read=/p/supabase/functions,/p/supabase/functions/hello,/data/functions/deno,/data/functions/boot.mjs,/data/functions/sockets,/p/supabase/functions/hello/page.html".to_string()));
        assert!(a.contains(&"--allow-write=/data/functions/sockets".to_string()));
        assert!(a.contains(&"--config=/p/supabase/functions/hello/deno.json".to_string()));
        assert!(
            !a.iter()
                .any(|x| x == "--allow-all" || x == "--allow-run" || x == "--allow-ffi")
        );
        assert_eq!(
            a.last().unwrap(),
            "file:///p/supabase/functions/hello/index.ts"
        );
    }
}
