//! Several stacks at once: three checkouts of one project started side by side with
//! `--ports auto` (each with its own data in its own folder, and its own ports, the same after a
//! restart), `list` showing them, `stop --all` stopping them; `[api] port = 0` asking for the
//! same.

use crate::support;
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

/// The binary on `workdir` with the machine's records of running projects under `state`
/// (this test's own: `stop --all` must not stop other tests' gateways).
fn supagate(workdir: &Path, state: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_supagate"));
    c.arg("--workdir")
        .arg(workdir)
        .env_remove("DATABASE_URL")
        .env("RUST_LOG", "warn")
        .env("SUPAGATE_CACHE_DIR", support::pg_cache())
        .env("XDG_STATE_HOME", state);
    c
}

/// `start --ports auto` in the background (stopped when the test drops it, however it ends).
fn start_auto(workdir: &Path, state: &Path) -> Child {
    start_with(workdir, state, &["--ports", "auto"])
}

/// `start` with these flags in the background.
fn start_with(workdir: &Path, state: &Path, flags: &[&str]) -> Child {
    supagate(workdir, state)
        .args(flags)
        .args(["--stop-on-stdin-close", "start", "-o", "json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start supagate")
}

/// The ready line's values.
fn ready(child: &mut Child) -> BTreeMap<String, String> {
    let stdout = child.stdout.take().unwrap();
    let mut lines = BufReader::new(stdout).lines();
    let line = lines
        .next()
        .and_then(Result::ok)
        .unwrap_or_else(|| panic!("no ready line (exit {:?})", child.wait()));
    std::thread::spawn(move || for _ in lines {});
    serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"))
}

fn port_of(url: &str) -> u16 {
    url.rsplit(':').next().unwrap().parse().unwrap()
}

#[test]
fn three_checkouts_side_by_side_with_auto_ports() {
    let files = [
        // The same catcher ports in each copy: --ports auto gives each its own.
        (
            "supabase/config.toml",
            "project_id = \"shopcopy\"\n[inbucket]\nsmtp_port = 54325\npop3_port = 54326\n",
        ),
        (
            "supabase/migrations/20240101000000_items.sql",
            "create table items (id int primary key);\n",
        ),
    ];
    let copies: Vec<_> = (0..3).map(|_| support::scratch_project(&files)).collect();
    let state = support::scratch_dir("stacks-state");
    let mut children: Vec<Child> = copies.iter().map(|c| start_auto(c, &state)).collect();
    let values: Vec<_> = children.iter_mut().map(ready).collect();

    let mut apis: Vec<u16> = values.iter().map(|v| port_of(&v["API_URL"])).collect();
    for (copy, v) in copies.iter().zip(&values) {
        // Each copy's data (and remembered ports) in its own folder, by default.
        let remembered: BTreeMap<String, u16> = serde_json::from_str(
            &std::fs::read_to_string(copy.join("supabase/.temp/supagate/ports.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(remembered["api"], port_of(&v["API_URL"]), "{v:?}");
        assert!(
            v["DB_URL"].contains(&format!(":{}/", remembered["db"])),
            "{v:?}"
        );
        assert_eq!(port_of(&v["MAILPIT_URL"]), remembered["mail"]);
        for door in ["smtp", "pop3"] {
            std::net::TcpStream::connect(("127.0.0.1", remembered[door]))
                .unwrap_or_else(|e| panic!("{door} on {}: {e}", remembered[door]));
        }
    }
    apis.sort();
    apis.dedup();
    assert_eq!(apis.len(), 3, "{values:?}");

    // `list` shows the three with their URLs.
    let out = supagate(&copies[0], &state)
        .args(["list", "-o", "json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let listed: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(listed.len(), 3, "{listed:?}");
    for (copy, v) in copies.iter().zip(&values) {
        let row = listed
            .iter()
            .find(|r| r["project"] == copy.display().to_string())
            .unwrap_or_else(|| panic!("{} not listed: {listed:?}", copy.display()));
        assert_eq!(row["API_URL"], v["API_URL"].as_str());
        assert_eq!(row["DB_URL"], v["DB_URL"].as_str());
    }
    let pretty = supagate(&copies[1], &state).arg("list").output().unwrap();
    let pretty = String::from_utf8_lossy(&pretty.stdout);
    for v in &values {
        assert!(pretty.contains(&v["API_URL"]), "{pretty}");
    }

    // A second start of one of them says where it runs, and leaves its remembered ports alone.
    let again = supagate(&copies[2], &state)
        .args(["--ports", "auto", "start"])
        .output()
        .unwrap();
    assert!(!again.status.success());
    let err = String::from_utf8_lossy(&again.stderr);
    assert!(err.contains(&values[2]["API_URL"]), "{err}");

    // Each child reaped as it ends (a zombie would still look like a running supagate); its
    // stdin kept open here until then.
    let stdins: Vec<_> = children.iter_mut().map(|c| c.stdin.take()).collect();
    let exits: Vec<_> = children
        .into_iter()
        .map(|mut c| std::thread::spawn(move || c.wait().unwrap()))
        .collect();
    // `stop --all` stops every one.
    let out = supagate(&copies[0], &state)
        .args(["stop", "--all"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout)
            .matches("Stopped supagate for")
            .count(),
        3
    );
    for e in exits {
        assert!(e.join().unwrap().success());
    }
    drop(stdins);
    let out = supagate(&copies[0], &state).arg("list").output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "No supagate project is running."
    );

    // Started again, a checkout gets the ports it had.
    let mut child = start_auto(&copies[2], &state);
    let v = ready(&mut child);
    assert_eq!(v["API_URL"], values[2]["API_URL"]);
    drop(child.stdin.take());
    assert!(child.wait().unwrap().success());
}

/// The project's remembered ports (`--ports auto`) in its data directory.
fn remembered(project: &Path) -> BTreeMap<String, u16> {
    let file = project.join("supabase/.temp/supagate/ports.json");
    serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap()
}

#[test]
fn api_port_zero_in_config_toml_is_auto_ports() {
    let project = support::scratch_project(&[(
        "supabase/config.toml",
        "project_id = \"zero\"\n[api]\nport = 0\n",
    )]);
    let state = support::scratch_dir("stacks-zero-state");
    let mut child = start_with(&project, &state, &[]);
    let v = ready(&mut child);
    let ports = remembered(&project);
    assert_eq!(port_of(&v["API_URL"]), ports["api"], "{v:?}");
    assert!(v["DB_URL"].contains(&format!(":{}/", ports["db"])), "{v:?}");
    assert!((10_001..32_768).contains(&ports["api"]), "{ports:?}");
    drop(child.stdin.take());
    assert!(child.wait().unwrap().success());
    // Started again: the same ports.
    let mut child = start_with(&project, &state, &[]);
    assert_eq!(ready(&mut child)["API_URL"], v["API_URL"]);
    drop(child.stdin.take());
    assert!(child.wait().unwrap().success());
}
