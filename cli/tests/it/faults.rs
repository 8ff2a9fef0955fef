//! Faults on real processes, each bounded to a few seconds: the embedded PostgreSQL killed under
//! writes, the gateway killed mid-upload, the pool held by slow queries. The gateway heals by
//! itself and loses nothing it acknowledged.

use crate::support;
use serde_json::json;
use std::io::Write;
use std::time::{Duration, Instant};
use support::Api;

#[tokio::test]
async fn postgres_killed_under_writes_comes_back_and_keeps_every_acknowledged_write() {
    let gw = support::start(&[]);
    let svc = Api::service(&gw);
    let mut acknowledged = Vec::new();
    let mut unavailable = 0;
    let mut killed_at = None;
    let mut back_after = None;
    let t0 = Instant::now();
    let mut i = 0;
    // Write until the database has been killed and has accepted writes again (20 s at most).
    while t0.elapsed() < Duration::from_secs(20) {
        i += 1;
        let slug = format!("fault-{i}");
        let r = svc
            .send(
                "POST",
                "/rest/v1/categories",
                &[],
                Some(&json!({"name": slug, "slug": slug}).to_string()),
            )
            .await;
        match r.status {
            201 => {
                acknowledged.push(slug);
                if let Some(k) = killed_at
                    && back_after.is_none()
                {
                    back_after = Some(Instant::now().duration_since(k));
                    if acknowledged.len() > 40 {
                        break;
                    }
                }
            }
            503 => {
                assert_eq!(r.header("retry-after"), Some("1"), "{}", r.text);
                unavailable += 1;
            }
            other => panic!("unexpected {other}: {}", r.text),
        }
        if acknowledged.len() == 20 && killed_at.is_none() {
            let pid = gw.postmaster_pid();
            std::process::Command::new("kill")
                .args(["-9", &pid.to_string()])
                .status()
                .unwrap();
            killed_at = Some(Instant::now());
        }
        if back_after.is_some() && acknowledged.len() > 40 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let back_after = back_after.expect("writes were accepted again after the kill");
    eprintln!(
        "postgres kill -9: {} writes acknowledged, {unavailable} answered 503, serving again after {} ms",
        acknowledged.len(),
        back_after.as_millis()
    );
    let rows = gw
        .sql("SELECT slug FROM public.categories WHERE slug LIKE 'fault-%'")
        .await;
    let stored: std::collections::HashSet<String> =
        rows.into_iter().map(|r| r[0].clone().unwrap()).collect();
    for slug in &acknowledged {
        assert!(stored.contains(slug), "acknowledged write {slug} was lost");
    }
}

/// A backend busy in a statement does not notice its postmaster's death (it looks only when
/// it waits), and its shared memory keeps a new postmaster from starting: the supervisor ends
/// it and the cluster is back within seconds, not when the statement would have ended.
#[tokio::test]
async fn postgres_killed_under_a_long_statement_comes_back_at_once() {
    let gw = support::start(&[]);
    let busy = gw.session_on(&gw.dbname).await;
    let pid: i32 = busy
        .query_one("SELECT pg_backend_pid()", &[])
        .await
        .unwrap()
        .get(0);
    // A loop that never waits, bounded by its own timer (which needs no postmaster).
    let statement = tokio::spawn(async move {
        busy.batch_execute("SET statement_timeout = '40s'; DO $$ BEGIN LOOP END LOOP; END $$")
            .await
    });
    let watcher = gw.session_on(&gw.dbname).await;
    let t0 = Instant::now();
    while watcher
        .query_one(
            "SELECT count(*) FROM pg_stat_activity WHERE pid = $1 AND state = 'active'",
            &[&pid],
        )
        .await
        .unwrap()
        .get::<_, i64>(0)
        == 0
    {
        assert!(
            t0.elapsed() < Duration::from_secs(10),
            "the loop never started"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let postmaster = gw.postmaster_pid();
    std::process::Command::new("kill")
        .args(["-9", &postmaster.to_string()])
        .status()
        .unwrap();
    let killed = Instant::now();
    let anon = Api::anon(&gw);
    loop {
        let r = anon.get("/rest/v1/categories?select=slug&limit=1").await;
        if r.status == 200 && gw.postmaster_pid() != postmaster {
            break;
        }
        assert!(
            killed.elapsed() < Duration::from_secs(20),
            "not served again while the orphaned backend ran ({})",
            r.status
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    eprintln!(
        "postgres kill -9 under a busy backend: serving again after {} ms",
        killed.elapsed().as_millis()
    );
    assert!(
        !pg::embedded::process_alive(pid as u32, "postgres"),
        "the orphaned backend {pid} still runs"
    );
    assert!(statement.await.unwrap().is_err());
}

#[tokio::test]
async fn a_gateway_killed_mid_upload_leaves_no_row_no_bytes_no_staging_file() {
    let gw = support::start(&[]);
    // An upload that sends 1 MiB of a declared 4 MiB and stalls.
    let addr = gw.url.trim_start_matches("http://").to_string();
    let mut sock = std::net::TcpStream::connect(&addr).unwrap();
    write!(
        sock,
        "POST /storage/v1/object/product-images/stalled.png HTTP/1.1\r\nHost: {addr}\r\n\
         apikey: {key}\r\nAuthorization: Bearer {key}\r\nContent-Type: image/png\r\n\
         Content-Length: 4194304\r\n\r\n",
        key = gw.service
    )
    .unwrap();
    let mut chunk = vec![0u8; 1024 * 1024];
    chunk[..8].copy_from_slice(&[0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a]);
    sock.write_all(&chunk).unwrap();
    let versions = gw.data_dir.join("storage/versions");
    let t0 = Instant::now();
    let staging = loop {
        let found: Vec<_> = std::fs::read_dir(&versions)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .collect();
        if !found.is_empty() {
            break found;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(10),
            "the upload never reached the store"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(
        staging.iter().all(|p| p.to_string_lossy().contains('#')),
        "{staging:?}"
    );
    // Renderings and upload parts of a version that is gone (older than the sweep's grace),
    // beside renderings of a live one.
    let live = uuid::Uuid::new_v4().to_string();
    gw.sql(&format!(
        "INSERT INTO storage.objects (bucket_id, name, version) VALUES ('product-images', 'live.png', '{live}')"
    ))
    .await;
    let storage = gw.data_dir.join("storage");
    let derived = [
        storage
            .join("renders")
            .join(uuid::Uuid::new_v4().to_string()),
        storage
            .join("resumable")
            .join(uuid::Uuid::new_v4().to_string()),
        storage.join("renders").join(&live),
    ];
    for d in &derived {
        std::fs::create_dir_all(d).unwrap();
        std::fs::write(d.join("part"), b"x").unwrap();
        let aged = std::process::Command::new("touch")
            .args(["-d", "1 hour ago"])
            .arg(d)
            .status()
            .unwrap();
        assert!(aged.success());
    }
    gw.kill9();
    drop(sock);
    // The next gateway on the same data (its PostgreSQL left running) cleans up.
    let again = support::start_on(&support::repo_root(), &gw.data_dir, &[]);
    let rows = again
        .sql("SELECT count(*) FROM storage.objects WHERE name = 'stalled.png'")
        .await;
    assert_eq!(rows[0][0].as_deref(), Some("0"));
    let left: Vec<_> = std::fs::read_dir(&versions)
        .into_iter()
        .flatten()
        .flatten()
        .collect();
    assert!(left.is_empty(), "nothing remains in the store: {left:?}");
    assert!(
        !derived[0].exists() && !derived[1].exists(),
        "derived files of gone versions"
    );
    assert!(derived[2].exists(), "renderings of a live version stay");
    let r = Api::anon(&again)
        .get("/rest/v1/categories?select=slug&limit=1")
        .await;
    assert_eq!(r.status, 200);
}

#[tokio::test]
async fn a_held_pool_gives_a_quick_clear_answer_and_recovers() {
    let gw = support::shop_with(&[
        "--db-pool",
        "1",
        "--workers",
        "1",
        "--db-pool-timeout",
        "1",
        "--max-client-queries",
        "0",
    ])
    .await;
    gw.sql("CREATE FUNCTION public.nap(secs float8) RETURNS void LANGUAGE sql AS 'SELECT pg_sleep(secs)'").await;
    let anon = Api::anon(&gw);
    let mut ready = false;
    for _ in 0..50 {
        if anon
            .send("POST", "/rest/v1/rpc/nap", &[], Some(r#"{"secs":0}"#))
            .await
            .status
            == 204
        {
            ready = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(ready, "the function appears after DDL");
    // anon's own statement timeout (3 s, a role setting) ends a runaway statement.
    let r = anon
        .send("POST", "/rest/v1/rpc/nap", &[], Some(r#"{"secs":5}"#))
        .await;
    assert_eq!((r.status, r.json()["code"].clone()), (500, json!("57014")));
    // The only connection busy past the pool timeout: another request is told so, not hung.
    let busy = anon.send("POST", "/rest/v1/rpc/nap", &[], Some(r#"{"secs":2}"#));
    let other = Api::anon(&gw);
    let waiting = async {
        tokio::time::sleep(Duration::from_millis(100)).await;
        other.get("/rest/v1/categories?select=id&limit=1").await
    };
    let (first, second) = tokio::join!(busy, waiting);
    assert_eq!(first.status, 204);
    assert_eq!(
        (second.status, second.json()["code"].clone()),
        (504, json!("PGRST003"))
    );
    // And once the slow statement is done, service is back.
    let r = other.get("/rest/v1/categories?select=id&limit=1").await;
    assert_eq!(r.status, 200);
}

#[tokio::test]
async fn idle_connections_past_the_open_file_limit_never_kill_postgres() {
    // The gateway may hold 256 descriptors: twice as many idle connections as that come.
    let gw = support::start_under(&["prlimit", "--nofile=256:256", "--"]);
    let postmaster = gw.postmaster_pid();
    let addr = gw.url.trim_start_matches("http://").to_string();
    let mut idle = Vec::new();
    for _ in 0..512 {
        // Past the budget the gateway stops accepting: connections wait in the listen queue
        // (or are refused by the kernel once it is full).
        match tokio::time::timeout(
            Duration::from_millis(200),
            tokio::net::TcpStream::connect(&addr),
        )
        .await
        {
            Ok(Ok(s)) => idle.push(s),
            _ => break,
        }
    }
    assert!(idle.len() > 256, "only {} connections opened", idle.len());
    // A few supervisor rounds later PostgreSQL still runs, the same postmaster.
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(gw.postmaster_pid(), postmaster, "PostgreSQL was restarted");
    assert!(
        std::path::Path::new(&format!("/proc/{postmaster}")).exists(),
        "PostgreSQL died"
    );
    drop(idle);
    // Once they are gone, requests are served again.
    let started = Instant::now();
    loop {
        let r = Api::anon(&gw)
            .get("/rest/v1/categories?select=slug&limit=1")
            .await;
        if r.status == 200 {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(15),
            "not served again: {}",
            r.status
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(gw.postmaster_pid(), postmaster);
}
