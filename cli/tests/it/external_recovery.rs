//! A gateway on an external database (DATABASE_URL) whose server goes away and comes back: it
//! answers 503 with Retry-After meanwhile and serves again by itself. (The server is a cluster
//! of the test's own: killing it must not disturb other tests.)

use crate::support;
use std::time::{Duration, Instant};
use support::Api;

#[tokio::test]
async fn the_pool_recovers_when_an_external_server_comes_back() {
    // The gateway uses an external database: a clone on a cluster that another gateway owns.
    let owner = support::start(&[]);
    let gw = support::clone_on(&owner, &support::repo_root(), &[], &[]).await;
    let anon = Api::anon(&gw);
    assert_eq!(
        anon.get("/rest/v1/categories?select=slug&limit=1")
            .await
            .status,
        200
    );
    let owner_dir = gw.socket_dir.parent().unwrap().to_path_buf();
    let postmaster: u32 = std::fs::read_to_string(owner_dir.join("pg/postmaster.pid"))
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    std::process::Command::new("kill")
        .args(["-9", &postmaster.to_string()])
        .status()
        .unwrap();
    // The cluster's own gateway restarts it; this one reconnects on its own. Meanwhile every
    // answer is a 503 with Retry-After (how many depends on how fast the restart is).
    let t0 = Instant::now();
    let restarted = || {
        std::fs::read_to_string(owner_dir.join("pg/postmaster.pid"))
            .ok()
            .and_then(|s| s.lines().next().and_then(|l| l.trim().parse::<u32>().ok()))
            .is_some_and(|pid| pid != postmaster)
    };
    loop {
        let r = anon.get("/rest/v1/categories?select=slug&limit=1").await;
        match r.status {
            200 if restarted() => break,
            200 => {}
            503 => assert_eq!(r.header("retry-after"), Some("1")),
            other => panic!("unexpected {other}: {}", r.text),
        }
        assert!(
            t0.elapsed() < Duration::from_secs(20),
            "never served by the restarted server"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
