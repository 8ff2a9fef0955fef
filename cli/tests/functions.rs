//! Edge Functions on real Deno processes: the `oneshot` policy, a function added while
//! supagate runs, and its files changing under a warm function. (Bodies, errors and verify_jwt
//! through supabase-js are in tests/contract/functions.test.mjs.)

mod support;
use support::{Api, scratch_project, start_project};

const PID: &str = "Deno.serve(() => new Response(String(Deno.pid)))\n";

#[tokio::test]
async fn oneshot_runs_each_request_in_a_new_process() {
    let dir = scratch_project(&[
        (
            "supabase/config.toml",
            "[edge_runtime]\npolicy = \"oneshot\"\n",
        ),
        ("supabase/functions/pid/index.ts", PID),
    ]);
    let gw = start_project(&dir, &[]);
    let api = Api::anon(&gw);
    let a = api.send("POST", "/functions/v1/pid", &[], None).await;
    let b = api.send("POST", "/functions/v1/pid", &[], None).await;
    assert_eq!((a.status, b.status), (200, 200), "{} {}", a.text, b.text);
    assert_ne!(a.text, b.text, "two processes");
}

#[tokio::test]
async fn warm_functions_follow_their_files_and_new_ones_are_found() {
    let dir = scratch_project(&[
        ("supabase/config.toml", "project_id = \"fn\"\n"),
        ("supabase/functions/pid/index.ts", PID),
    ]);
    let gw = start_project(&dir, &[]);
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
