//! Edge Functions on real Deno processes: the `oneshot` policy, a function added while
//! supagate runs, and its files changing under a warm function. (Bodies, errors and verify_jwt
//! through supabase-js are in tests/contract/functions.test.mjs.)

use crate::support;
use support::{Api, scratch_project, start_project};

const PID: &str = "Deno.serve(() => new Response(String(Deno.pid)))\n";

/// A gateway of its own on a scratch project with this config.toml and one function, `name`,
/// that answers with its process id.
fn serving(config: &str, name: &str) -> (std::path::PathBuf, support::Gateway) {
    let dir = scratch_project(&[
        ("supabase/config.toml", config),
        (&format!("supabase/functions/{name}/index.ts"), PID),
    ]);
    let gw = start_project(&dir, &[]);
    (dir, gw)
}

#[tokio::test]
async fn oneshot_runs_each_request_in_a_new_process() {
    let (dir, gw) = serving("[edge_runtime]\npolicy = \"oneshot\"\n", "pid");
    let api = Api::anon(&gw);
    let a = api.send("POST", "/functions/v1/pid", &[], None).await;
    assert_eq!(a.status, 200, "{}", a.text);
    // The first request's process ends; the next request's is started meanwhile.
    let needle = dir
        .canonicalize()
        .unwrap()
        .join("supabase/functions/pid/index.ts")
        .display()
        .to_string();
    let t0 = std::time::Instant::now();
    let spare = loop {
        if let [pid] = processes(&needle).as_slice()
            && *pid != a.text
        {
            break pid.clone();
        }
        assert!(
            t0.elapsed() < std::time::Duration::from_secs(20),
            "no process was started for the next request: {:?}",
            processes(&needle)
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    };
    let b = api.send("POST", "/functions/v1/pid", &[], None).await;
    assert_eq!(b.status, 200, "{}", b.text);
    assert_ne!(a.text, b.text, "two processes");
    assert_eq!(b.text, spare, "served by the process started for it");
}

#[tokio::test]
async fn warm_functions_follow_their_files_and_new_ones_are_found() {
    let (dir, gw) = serving("project_id = \"fn\"\n", "pid");
    let api = Api::anon(&gw);
    let first = api.send("POST", "/functions/v1/pid", &[], None).await;
    let warm = api.send("POST", "/functions/v1/pid", &[], None).await;
    assert_eq!(first.text, warm.text, "kept warm");
    // A function written while supagate runs is served.
    let later = dir.join("supabase/functions/later");
    std::fs::create_dir_all(&later).unwrap();
    std::fs::write(
        later.join("index.ts"),
        "Deno.serve(() => new Response('v1'))\n",
    )
    .unwrap();
    let mut reply = api.send("POST", "/functions/v1/later", &[], None).await;
    for _ in 0..30 {
        if reply.status == 200 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        reply = api.send("POST", "/functions/v1/later", &[], None).await;
    }
    assert_eq!((reply.status, reply.text.as_str()), (200, "v1"));
    // Its file changes: the next requests reach the new code.
    std::fs::write(
        later.join("index.ts"),
        "Deno.serve(() => new Response('v2'))\n",
    )
    .unwrap();
    let mut text = String::new();
    for _ in 0..30 {
        text = api
            .send("POST", "/functions/v1/later", &[], None)
            .await
            .text;
        if text == "v2" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(text, "v2");
}

#[tokio::test]
async fn a_function_sees_its_request_at_the_api_s_address() {
    let dir = scratch_project(&[
        ("supabase/config.toml", ""),
        (
            "supabase/functions/where/index.ts",
            "Deno.serve((req) => Response.json({ origin: new URL(req.url).origin, url: req.url, \
             clone: req.clone().url }))\n",
        ),
    ]);
    let gw = start_project(&dir, &[]);
    let reply = Api::anon(&gw)
        .send("GET", "/functions/v1/where/a/b?c=1", &[], None)
        .await;
    assert_eq!(reply.status, 200, "{}", reply.text);
    let v = reply.json();
    assert_eq!(v["origin"], gw.url.as_str(), "{v}");
    let url = format!("{}/where/a/b?c=1", gw.url);
    assert_eq!(v["url"], url.as_str());
    assert_eq!(v["clone"], url.as_str());
}

/// The ids of the processes whose command line names `needle`.
fn processes(needle: &str) -> Vec<String> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter(|e| {
            std::fs::read(e.path().join("cmdline"))
                .is_ok_and(|c| String::from_utf8_lossy(&c).contains(needle))
        })
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect()
}

/// Deno processes whose command line names `needle`.
fn processes_running(needle: &str) -> usize {
    processes(needle).len()
}

#[tokio::test]
async fn warm_functions_are_started_with_the_gateway() {
    let (dir, gw) = serving("project_id = \"fn\"\n", "early");
    let needle = dir
        .canonicalize()
        .unwrap()
        .join("supabase/functions/early/index.ts")
        .display()
        .to_string();
    // No request yet: its process is started all the same.
    let t0 = std::time::Instant::now();
    let started = loop {
        if let [pid] = processes(&needle).as_slice() {
            break pid.clone();
        }
        assert!(
            t0.elapsed() < std::time::Duration::from_secs(20),
            "the function was not started with the gateway"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    };
    // Its first request is served by that process.
    let r = Api::anon(&gw)
        .send("POST", "/functions/v1/early", &[], None)
        .await;
    assert_eq!((r.status, r.text.as_str()), (200, started.as_str()));
}

/// The functions start beside the database whether the tools' ports are named (as config.toml
/// names them) or left to the system (0: the ports are bound before the database starts, so the
/// ports functions may not call are known): the process is there when the gateway says it is
/// ready, and serves the first request.
#[tokio::test]
async fn functions_boot_beside_the_database_whatever_the_tools_ports() {
    let named = [
        crate::mail_doors::free_port().to_string(),
        crate::mail_doors::free_port().to_string(),
    ];
    for [mail, studio] in [named, ["0".to_string(), "0".to_string()]] {
        let dir = scratch_project(&[
            ("supabase/config.toml", "project_id = \"fn\"\n"),
            ("supabase/functions/beside/index.ts", PID),
        ]);
        let gw = start_project(&dir, &["--mail-port", &mail, "--studio-port", &studio]);
        let needle = dir
            .canonicalize()
            .unwrap()
            .join("supabase/functions/beside/index.ts")
            .display()
            .to_string();
        let [started] = processes(&needle)
            .try_into()
            .unwrap_or_else(|p: Vec<String>| {
                panic!("ports {mail}/{studio}: one process of the function when ready, not {p:?}")
            });
        let r = Api::anon(&gw)
            .send("POST", "/functions/v1/beside", &[], None)
            .await;
        assert_eq!(
            (r.status, r.text.as_str()),
            (200, started.as_str()),
            "ports {mail}/{studio}"
        );
    }
}

#[tokio::test]
async fn no_function_outlives_a_killed_gateway() {
    let (dir, gw) = serving("project_id = \"fn\"\n", "orphan");
    let r = Api::anon(&gw)
        .send("POST", "/functions/v1/orphan", &[], None)
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    let needle = dir
        .canonicalize()
        .unwrap()
        .join("supabase/functions/orphan")
        .display()
        .to_string();
    assert_eq!(processes_running(&needle), 1);
    // The gateway's PostgreSQL outlives a kill -9 (the next start adopts it): stopped here, so
    // that the test leaves no server running.
    let postmaster = gw.postmaster_pid();
    gw.kill9();
    let t0 = std::time::Instant::now();
    while processes_running(&needle) > 0 {
        assert!(
            t0.elapsed() < std::time::Duration::from_secs(10),
            "the function's Deno outlived its gateway"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let stopped = std::process::Command::new("kill")
        .args(["-INT", &postmaster.to_string()])
        .status()
        .expect("kill");
    assert!(
        stopped.success(),
        "the gateway's PostgreSQL was still running"
    );
    let t0 = std::time::Instant::now();
    while pg::embedded::process_alive(postmaster, "postgres") {
        assert!(
            t0.elapsed() < std::time::Duration::from_secs(30),
            "the gateway's PostgreSQL did not stop"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}
