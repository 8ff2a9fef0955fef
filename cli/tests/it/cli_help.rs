//! The command line's manners: each command's help shows its own options (and the global
//! --workdir and --data-dir), the server's options only on `start` and `exec`, and the server's
//! flags are still accepted wherever they were.

use std::process::Command;

fn supagate(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_supagate"))
        .args(args)
        .env_remove("DATABASE_URL")
        .output()
        .expect("run supagate")
}

/// The commands a help text lists under "Commands:".
fn commands_in(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .filter(|c| c != "help")
        .collect()
}

#[test]
fn every_command_helps_with_its_own_options() {
    let mut todo: Vec<Vec<String>> = vec![vec![]];
    let mut seen = 0;
    while let Some(path) = todo.pop() {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("--help");
        let out = supagate(&args);
        assert!(out.status.success(), "{args:?}");
        let help = String::from_utf8_lossy(&out.stdout).to_string();
        seen += 1;
        for c in commands_in(&help) {
            let mut p = path.clone();
            p.push(c);
            todo.push(p);
        }
        let server = matches!(path.as_slice(), [c] if c == "start" || c == "exec");
        assert_eq!(
            help.contains("--db-pool <DB_POOL>"),
            server,
            "{args:?}:\n{help}"
        );
        assert_eq!(
            help.contains("--db-port <DB_PORT>"),
            server,
            "{args:?}:\n{help}"
        );
        if !server {
            // `-h`: one line per option (`--help` adds each value's description).
            args.pop();
            args.push("-h");
            let short = String::from_utf8_lossy(&supagate(&args).stdout).to_string();
            let lines = short.lines().count();
            assert!(lines < 40, "{args:?}: {lines} lines:\n{short}");
        }
        assert!(help.contains("--workdir"), "{args:?}");
    }
    assert!(seen > 20, "{seen} help texts");
}

#[test]
fn server_flags_are_still_accepted_before_and_after_a_command() {
    let dir = crate::support::scratch_project(&[("supabase/config.toml", "")]);
    let dir = dir.to_str().unwrap();
    for args in [
        vec!["--workdir", dir, "--port", "0", "--db-port", "0", "status"],
        vec![
            "--workdir",
            dir,
            "status",
            "--port",
            "0",
            "--jwt-expiry",
            "600",
        ],
    ] {
        let out = supagate(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("is not running"), "{args:?}: {err}");
    }
}

#[test]
fn a_database_port_in_use_is_named_with_how_to_change_it() {
    let holder = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = holder.local_addr().unwrap().port().to_string();
    let dir = crate::support::scratch_project(&[("supabase/config.toml", "")]);
    let data = dir.join("data");
    let out = Command::new(env!("CARGO_BIN_EXE_supagate"))
        .arg("--workdir")
        .arg(&dir)
        .arg("--data-dir")
        .arg(&data)
        .args(["--port", "0", "--mail-port", "0", "--studio-port", "0"])
        .args(["--db-port", &port, "start"])
        .env_remove("DATABASE_URL")
        .env("RUST_LOG", "error")
        .env("SUPAGATE_CACHE_DIR", crate::support::pg_cache())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    let said = err.lines().find(|l| l.starts_with("error:")).unwrap_or("");
    assert!(
        said.contains(&format!("the database port {port} is already in use"))
            && said.contains("[db] port")
            && said.contains("--db-port"),
        "{err}"
    );
    assert!(!err.contains("pg_ctl"), "{err}");
    drop(holder);
}

#[test]
fn functions_without_deno_are_told_at_start() {
    let dir = crate::support::scratch_project(&[
        ("supabase/config.toml", ""),
        (
            "supabase/functions/hello/index.ts",
            "Deno.serve(() => new Response('hi'));\n",
        ),
    ]);
    let run = |deno: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_supagate"))
            .arg("--workdir")
            .arg(&dir)
            .args(["exec", "--fresh", "--", "true"])
            .env_remove("DATABASE_URL")
            .env("DENO_BIN", deno)
            .env("RUST_LOG", "warn")
            .env("SUPAGATE_CACHE_DIR", crate::support::pg_cache())
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8_lossy(&out.stderr).to_string()
    };
    let err = run("/nonexistent/deno");
    assert!(
        err.contains("1 function(s) but Deno (/nonexistent/deno) was not found")
            && err.contains("npm install -g deno")
            && err.contains("DENO_BIN"),
        "{err}"
    );
    // Written to a pipe: no colour codes.
    assert!(!err.contains('\u{1b}'), "{err:?}");
    // A Deno that is there: no such warning.
    let err = run("/bin/true");
    assert!(!err.contains("was not found"), "{err}");
}

#[test]
fn the_version_names_the_commit() {
    let out = supagate(&["--version"]);
    let v = String::from_utf8_lossy(&out.stdout);
    let commit = v
        .trim()
        .strip_prefix(&format!("supagate {} (", env!("CARGO_PKG_VERSION")))
        .and_then(|r| r.strip_suffix(')'))
        .unwrap_or_else(|| panic!("{v}"));
    assert!(
        commit == "unknown"
            || (commit.len() == 12 && commit.bytes().all(|b| b.is_ascii_hexdigit())),
        "{v}"
    );
}

#[test]
fn completions_for_bash_zsh_and_fish() {
    for (shell, says) in [
        ("bash", "complete -F _supagate"),
        ("zsh", "#compdef supagate"),
        ("fish", "complete -c supagate"),
    ] {
        let out = supagate(&["completion", shell]);
        assert!(out.status.success(), "{shell}");
        let script = String::from_utf8_lossy(&out.stdout);
        assert!(
            script.contains(says) && script.contains("migration"),
            "{shell}"
        );
    }
    assert!(!supagate(&["completion", "tcsh"]).status.success());
}

#[test]
fn a_second_start_says_where_the_project_runs() {
    let dir = crate::support::scratch_project(&[("supabase/config.toml", "")]);
    let gw = crate::support::start_project(&dir, &[]);
    let out = gw.command(&dir, &["--port", "0", "--db-port", "0", "start"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("is already running for") && err.contains(&format!("(API {})", gw.url)),
        "{err}"
    );
    // The first one still serves.
    let rows = tokio::runtime::Runtime::new()
        .unwrap()
        .block_on(gw.sql("select 1"));
    assert_eq!(rows[0][0].as_deref(), Some("1"));
}
