//! The CLI's loading rules: `.env` files chosen by `SUPABASE_ENV` (first file wins), and
//! `SUPABASE_<PATH>` variables over config.toml's keys; `[db.settings]` applied to the cluster.

use crate::support::{self, scratch_project};

#[tokio::test]
async fn env_files_and_supabase_variables_set_config_keys() {
    let dir = scratch_project(&[
        (
            "supabase/config.toml",
            "[auth]\nsite_url = \"http://file.example\"\n[remotes.staging]\nproject_id = \"abcdefghijklmnopqrst\"\n",
        ),
        // SUPABASE_ENV=test: .env.test.local, .env.test, .env (not .env.local); first wins.
        (
            "supabase/.env.test",
            "SUPABASE_AUTH_SITE_URL=\"https://from-env-test.example\"\n",
        ),
        (
            "supabase/.env.local",
            "SUPABASE_AUTH_SITE_URL=https://local.example\n",
        ),
        (
            "supabase/.env",
            "SUPABASE_AUTH_SITE_URL=https://wrong.example\n",
        ),
    ]);
    let gw = support::start_project_env(&dir, &[], &[("SUPABASE_ENV", "test")]);
    let no_redirects = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let r = no_redirects
        .get(format!("{}/auth/v1/verify?token=nope&type=signup", gw.url))
        .send()
        .await
        .unwrap();
    let status = r.status();
    let location = r.headers()["location"].to_str().unwrap().to_string();
    assert!(
        location.starts_with("https://from-env-test.example"),
        "{status} {location}"
    );
}

#[tokio::test]
async fn db_settings_reach_the_embedded_cluster() {
    let dir = scratch_project(&[(
        "supabase/config.toml",
        "[db.settings]\nmax_wal_size = \"2GB\"\nwork_mem = \"8MB\"\ntrack_commit_timestamp = true\nmax_connections = 120\n",
    )]);
    // SUPABASE_DB_SETTINGS_WORK_MEM overrides the file's, as any key.
    let gw = support::start_project_env(&dir, &[], &[("SUPABASE_DB_SETTINGS_WORK_MEM", "16MB")]);
    let rows = gw
        .sql(
            "select current_setting('max_wal_size'), current_setting('work_mem'), \
             current_setting('track_commit_timestamp'), current_setting('max_connections')",
        )
        .await;
    let got: Vec<&str> = rows[0].iter().map(|v| v.as_deref().unwrap_or("")).collect();
    assert_eq!(got, ["2GB", "16MB", "on", "120"]);
}
