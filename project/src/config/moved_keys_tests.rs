//! A table of config.toml texts (and `SUPABASE_<KEY>` variables) for the keys that were read
//! apart from the serde model (`project_id`, `[db.vault]`, `[db.settings]`,
//! `auth.sms.test_otp`, `[edge_runtime.secrets]`, `[auth.third_party.*]`, `[remotes.*]`), each
//! with the values it gives or its error text, so that moving them onto serde shows nothing
//! changed.

use super::Config;
use std::path::Path;

/// The variables every case sees, and its own.
fn env_of<'a>(extra: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
    move |name: &str| {
        [
            ("WORD", "x"),
            ("SET", "7"),
            ("TRUE", "true"),
            ("SIZE", "5MiB"),
        ]
        .iter()
        .chain(extra)
        .find(|(n, _)| *n == name)
        .map(|(_, v)| v.to_string())
    }
}

/// The moved keys' values (and the few others a remote block changes), or the error.
fn outcome(text: &str, vars: &[(&str, &str)]) -> String {
    let env = env_of(vars);
    match Config::parse(Path::new("supabase/config.toml"), text, &env) {
        Err(e) => format!("err {e}"),
        Ok(l) => {
            let c = l.config;
            let mut out = Vec::new();
            if let Some(id) = &c.project_id {
                out.push(format!("project_id={id:?}"));
            }
            if !c.remotes.is_empty() {
                out.push(format!("remotes={:?}", c.remotes));
            }
            if !c.db.vault.is_empty() {
                out.push(format!("vault={:?}", c.db.vault));
            }
            if !c.db.settings.is_empty() {
                out.push(format!("settings={:?}", c.db.settings));
            }
            if !c.auth.sms.test_otp.is_empty() {
                out.push(format!("test_otp={:?}", c.auth.sms.test_otp));
            }
            if !c.edge_runtime.secrets.is_empty() {
                out.push(format!("secrets={:?}", c.edge_runtime.secrets));
            }
            if let Some(t) = &c.auth.third_party {
                out.push(format!("third_party={}:{}", t.provider, t.issuer));
            }
            if !c.db.seed_enabled {
                out.push("seed=off".into());
            }
            if c.auth.site_url != "http://127.0.0.1:3000" {
                out.push(format!("site_url={}", c.auth.site_url));
            }
            if c.api.port != 54321 {
                out.push(format!("api.port={}", c.api.port));
            }
            if !l.ignored.is_empty() {
                out.push(format!("ignored={:?}", l.ignored));
            }
            format!("ok {}", out.join(" "))
        }
    }
}

const REF: &str = "abcdefghijklmnopqrst";

/// A case: config.toml, the variables set, the outcome.
type Case = (
    &'static str,
    &'static [(&'static str, &'static str)],
    &'static str,
);

const CASES: &[Case] = &[
    // project_id
    ("", &[], "ok "),
    ("project_id = \"shop\"", &[], "ok project_id=\"shop\""),
    ("project_id = \"env(WORD)\"", &[], "ok project_id=\"x\""),
    (
        "project_id = \"env(UNSET)\"",
        &[],
        "ok project_id=\"env(UNSET)\"",
    ),
    ("project_id = \"\"", &[], "ok project_id=\"\""),
    (
        "project_id = 5",
        &[],
        "err supabase/config.toml: project_id: expected a string, got 5",
    ),
    (
        "project_id = true",
        &[],
        "err supabase/config.toml: project_id: expected a string, got true",
    ),
    (
        "project_id = 1979-05-27T07:32:00Z",
        &[],
        "err supabase/config.toml: project_id: expected a string, got 1979-05-27T07:32:00Z",
    ),
    (
        "project_id = [\"a\"]",
        &[],
        "err supabase/config.toml: project_id: expected a string, got [\"a\"]",
    ),
    (
        "project_id = \"shop\"",
        &[("SUPABASE_PROJECT_ID", "other")],
        "ok project_id=\"other\"",
    ),
    (
        "",
        &[("SUPABASE_PROJECT_ID", "other")],
        "ok project_id=\"other\"",
    ),
    (
        "project_id = 5",
        &[("SUPABASE_PROJECT_ID", "fixed")],
        "ok project_id=\"fixed\"",
    ),
    (
        "project_id = 5\n[api]\nport = \"x\"",
        &[],
        "err supabase/config.toml: project_id: expected a string, got 5",
    ),
    (
        "[project_id]\na = 1",
        &[],
        "err supabase/config.toml: project_id: expected a string, got { a = 1 }",
    ),
    // [db.vault]
    (
        "[db.vault]\na = \"x\"\nb = \"env(WORD)\"\nc = \"env(UNSET)\"\nd = \"\"",
        &[],
        "ok vault={\"a\": \"x\", \"b\": \"x\", \"d\": \"\"}",
    ),
    (
        "[db]\nvault = 1",
        &[],
        "err supabase/config.toml: db.vault: expected a table, got 1",
    ),
    (
        "[db]\nvault = \"env(WORD)\"",
        &[],
        "err supabase/config.toml: db.vault: expected a table, got \"x\" (from the environment variable WORD)",
    ),
    (
        "[db]\nvault = [\"a\"]",
        &[],
        "err supabase/config.toml: db.vault: expected a table, got [\"a\"]",
    ),
    (
        "[db.vault]\na = 1",
        &[],
        "err supabase/config.toml: db.vault.a: expected a string, got 1",
    ),
    (
        "[db.vault]\na = [\"x\"]",
        &[],
        "err supabase/config.toml: db.vault.a: expected a string, got [\"x\"]",
    ),
    (
        "[db.vault.a]\nb = \"x\"",
        &[],
        "err supabase/config.toml: db.vault.a: expected a string, got { b = \"x\" }",
    ),
    (
        "[db.vault]\na = 1979-05-27T07:32:00Z",
        &[],
        "err supabase/config.toml: db.vault.a: expected a string, got 1979-05-27T07:32:00Z",
    ),
    (
        "[db.vault]\na = \"x\"",
        &[("SUPABASE_DB_VAULT_A", "y")],
        "ok vault={\"a\": \"y\"}",
    ),
    (
        "[db.vault]\na = 1",
        &[("SUPABASE_DB_VAULT_A", "y")],
        "ok vault={\"a\": \"y\"}",
    ),
    ("", &[("SUPABASE_DB_VAULT_A", "y")], "ok "),
    (
        "[db]\nport = \"x\"\n[db.vault]\na = 1",
        &[],
        "err supabase/config.toml: db.port: expected a whole number from 1 to 65535, got \"x\"",
    ),
    (
        "[db.vault]\nb = 1\na = 2",
        &[],
        "err supabase/config.toml: db.vault.a: expected a string, got 2",
    ),
    // [db.settings]
    (
        "[db.settings]\nmax_wal_size = \"2GB\"\nmax_connections = 200\ntrack_commit_timestamp = true\nsession_replication_role = \"origin\"\nstatement_timeout = \"8s\"",
        &[],
        "ok settings=[(\"max_connections\", \"200\"), (\"max_wal_size\", \"2GB\"), (\"session_replication_role\", \"origin\"), (\"statement_timeout\", \"8s\"), (\"track_commit_timestamp\", \"on\")]",
    ),
    (
        "[db.settings]\ntrack_commit_timestamp = false\nwork_mem = \" 4MB \"\nstatement_timeout = 5\nmax_connections = \"12\"",
        &[],
        "ok settings=[(\"max_connections\", \"12\"), (\"statement_timeout\", \"5\"), (\"track_commit_timestamp\", \"off\"), (\"work_mem\", \"4MB\")]",
    ),
    (
        "[db.settings]\nmax_connections = \"env(SET)\"\nwork_mem = \"env(SIZE)\"\ntrack_commit_timestamp = \"env(TRUE)\"\nsession_replication_role = \"replica\"",
        &[],
        "ok settings=[(\"max_connections\", \"7\"), (\"session_replication_role\", \"replica\"), (\"track_commit_timestamp\", \"on\"), (\"work_mem\", \"5MiB\")]",
    ),
    (
        "[db.settings]\ntrack_commit_timestamp = \"t\"\nsession_replication_role = \"local\"",
        &[],
        "ok settings=[(\"session_replication_role\", \"local\"), (\"track_commit_timestamp\", \"on\")]",
    ),
    (
        "[db.settings]\nmax_connections = \"env(UNSET)\"",
        &[],
        "err supabase/config.toml: db.settings.max_connections: expected a whole number from 0 to 2147483647, got \"env(UNSET)\" (the environment variable UNSET is not set)",
    ),
    (
        "[db.settings]\nwork_mem = \"env(UNSET)\"",
        &[],
        "err supabase/config.toml: db.settings.work_mem: \"env(UNSET)\" is not a PostgreSQL value (write it like \"128MB\" or \"8s\") (the environment variable UNSET is not set)",
    ),
    (
        "[db.settings]\nmax_connections = \"env(WORD)\"",
        &[],
        "err supabase/config.toml: db.settings.max_connections: expected a whole number from 0 to 2147483647, got \"x\" (from the environment variable WORD)",
    ),
    (
        "",
        &[("SUPABASE_DB_SETTINGS_MAX_CONNECTIONS", "50")],
        "ok settings=[(\"max_connections\", \"50\")]",
    ),
    (
        "[db.settings]\nmax_connections = 10",
        &[("SUPABASE_DB_SETTINGS_MAX_CONNECTIONS", "50")],
        "ok settings=[(\"max_connections\", \"50\")]",
    ),
    (
        "",
        &[("SUPABASE_DB_SETTINGS_MAX_CONNECTIONS", "abc")],
        "err supabase/config.toml: db.settings.max_connections: expected a whole number from 0 to 2147483647, got \"abc\" (from the environment variable SUPABASE_DB_SETTINGS_MAX_CONNECTIONS)",
    ),
    ("", &[("SUPABASE_DB_SETTINGS_FSYNC", "off")], "ok "),
    (
        "[db.settings]\nfsync = \"x\"",
        &[("SUPABASE_DB_SETTINGS_FSYNC", "off")],
        "err supabase/config.toml: db.settings.fsync: not a setting the CLI accepts (use one of effective_cache_size, logical_decoding_work_mem, maintenance_work_mem, max_connections, max_locks_per_transaction, max_parallel_maintenance_workers, max_parallel_workers, max_parallel_workers_per_gather, max_replication_slots, max_slot_wal_keep_size, max_standby_archive_delay, max_standby_streaming_delay, max_wal_size, max_wal_senders, max_worker_processes, session_replication_role, shared_buffers, statement_timeout, track_activity_query_size, track_commit_timestamp, wal_keep_size, wal_sender_timeout, work_mem) (from the environment variable SUPABASE_DB_SETTINGS_FSYNC)",
    ),
    (
        "[db.settings]\nfsync = false",
        &[],
        "err supabase/config.toml: db.settings.fsync: not a setting the CLI accepts (use one of effective_cache_size, logical_decoding_work_mem, maintenance_work_mem, max_connections, max_locks_per_transaction, max_parallel_maintenance_workers, max_parallel_workers, max_parallel_workers_per_gather, max_replication_slots, max_slot_wal_keep_size, max_standby_archive_delay, max_standby_streaming_delay, max_wal_size, max_wal_senders, max_worker_processes, session_replication_role, shared_buffers, statement_timeout, track_activity_query_size, track_commit_timestamp, wal_keep_size, wal_sender_timeout, work_mem)",
    ),
    (
        "[db.settings]\nwork_mem = \"4MB; rm\"",
        &[],
        "err supabase/config.toml: db.settings.work_mem: \"4MB; rm\" is not a PostgreSQL value (write it like \"128MB\" or \"8s\")",
    ),
    (
        "[db.settings]\nwork_mem = \"\"",
        &[],
        "err supabase/config.toml: db.settings.work_mem: \"\" is not a PostgreSQL value (write it like \"128MB\" or \"8s\")",
    ),
    (
        "[db.settings]\nwork_mem = \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"",
        &[],
        "err supabase/config.toml: db.settings.work_mem: \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\" is not a PostgreSQL value (write it like \"128MB\" or \"8s\")",
    ),
    (
        "[db.settings]\nwork_mem = 1.5",
        &[],
        "err supabase/config.toml: db.settings.work_mem: expected a string, got 1.5",
    ),
    (
        "[db.settings]\nwork_mem = true",
        &[],
        "err supabase/config.toml: db.settings.work_mem: expected a string, got true",
    ),
    (
        "[db.settings]\nwork_mem = -1",
        &[],
        "ok settings=[(\"work_mem\", \"-1\")]",
    ),
    (
        "[db.settings]\nwork_mem = 1979-05-27T07:32:00Z",
        &[],
        "err supabase/config.toml: db.settings.work_mem: expected a string, got 1979-05-27T07:32:00Z",
    ),
    (
        "[db.settings]\nwork_mem = { a = 1 }",
        &[],
        "err supabase/config.toml: db.settings.work_mem: expected a string, got { a = 1 }",
    ),
    (
        "[db.settings]\nmax_connections = -1",
        &[],
        "err supabase/config.toml: db.settings.max_connections: expected a whole number from 0 to 2147483647, got -1",
    ),
    (
        "[db.settings]\nmax_connections = 2147483648",
        &[],
        "err supabase/config.toml: db.settings.max_connections: expected a whole number from 0 to 2147483647, got 2147483648",
    ),
    (
        "[db.settings]\nmax_connections = 1.5",
        &[],
        "err supabase/config.toml: db.settings.max_connections: expected a whole number from 0 to 2147483647, got 1.5",
    ),
    (
        "[db.settings]\nsession_replication_role = \"x\"",
        &[],
        "err supabase/config.toml: db.settings.session_replication_role: must be one of [origin replica local]",
    ),
    (
        "[db.settings]\nsession_replication_role = 1",
        &[],
        "err supabase/config.toml: db.settings.session_replication_role: expected a string, got 1",
    ),
    (
        "[db.settings]\ntrack_commit_timestamp = \"maybe\"",
        &[],
        "err supabase/config.toml: db.settings.track_commit_timestamp: expected true or false, got \"maybe\"",
    ),
    (
        "[db]\nsettings = \"x\"",
        &[],
        "err supabase/config.toml: db.settings: expected a table, got \"x\"",
    ),
    (
        "[db]\nsettings = 1.5",
        &[],
        "err supabase/config.toml: db.settings: expected a table, got 1.5",
    ),
    (
        "[db]\nsettings = [1, \"a\"]",
        &[],
        "err supabase/config.toml: db.settings: expected a table, got [1, \"a\"]",
    ),
    (
        "[db]\nsettings = 1979-05-27T07:32:00Z",
        &[],
        "err supabase/config.toml: db.settings: expected a table, got 1979-05-27T07:32:00Z",
    ),
    ("[db.settings]", &[], "ok "),
    (
        "[db.settings]\nfsync = false\nwork_mem = \"\"",
        &[],
        "err supabase/config.toml: db.settings.fsync: not a setting the CLI accepts (use one of effective_cache_size, logical_decoding_work_mem, maintenance_work_mem, max_connections, max_locks_per_transaction, max_parallel_maintenance_workers, max_parallel_workers, max_parallel_workers_per_gather, max_replication_slots, max_slot_wal_keep_size, max_standby_archive_delay, max_standby_streaming_delay, max_wal_size, max_wal_senders, max_worker_processes, session_replication_role, shared_buffers, statement_timeout, track_activity_query_size, track_commit_timestamp, wal_keep_size, wal_sender_timeout, work_mem)",
    ),
    (
        "[db.settings]\nwork_mem = \"\"\nmax_connections = -1",
        &[],
        "err supabase/config.toml: db.settings.max_connections: expected a whole number from 0 to 2147483647, got -1",
    ),
    (
        "[db.settings]\nmax_connections = -1\n[db.vault]\na = 1",
        &[],
        "err supabase/config.toml: db.vault.a: expected a string, got 1",
    ),
    (
        "[db]\nsettings = 1\nvault = 1",
        &[],
        "err supabase/config.toml: db.vault: expected a table, got 1",
    ),
    (
        "[db]\nport = \"x\"\n[db.settings]\nfsync = 1",
        &[],
        "err supabase/config.toml: db.port: expected a whole number from 1 to 65535, got \"x\"",
    ),
    // auth.sms.test_otp
    (
        "[auth.sms.test_otp]\n\"+15555550100\" = \"123456\"\n\"15555550101\" = \"env(SET)\"\n\"15555550102\" = \"env(UNSET)\"",
        &[],
        "ok test_otp={\"15555550100\": \"123456\", \"15555550101\": \"7\"}",
    ),
    (
        "[auth.sms.test_otp]\n\"++1\" = \"1\"\n\"\" = \"2\"",
        &[],
        "ok test_otp={\"\": \"2\", \"1\": \"1\"}",
    ),
    (
        "[auth.sms]\ntest_otp = 1",
        &[],
        "err supabase/config.toml: auth.sms.test_otp: expected a table, got 1",
    ),
    (
        "[auth.sms]\ntest_otp = \"env(WORD)\"",
        &[],
        "err supabase/config.toml: auth.sms.test_otp: expected a table, got \"x\" (from the environment variable WORD)",
    ),
    (
        "[auth.sms.test_otp]\n\"+1\" = 1",
        &[],
        "err supabase/config.toml: auth.sms.test_otp.+1: expected a string, got 1",
    ),
    (
        "[auth.sms.test_otp]\na = \"1\"",
        &[("SUPABASE_AUTH_SMS_TEST_OTP_A", "2")],
        "ok test_otp={\"a\": \"2\"}",
    ),
    (
        "[auth.sms]\ntemplate = 5\n[auth.sms.test_otp]\na = 1",
        &[],
        "err supabase/config.toml: auth.sms.template: expected a string, got 5",
    ),
    (
        "[auth.sms]\nmax_frequency = \"x\"\n[auth.sms.test_otp]\na = 1",
        &[],
        "err supabase/config.toml: auth.sms.max_frequency: \"x\" is not a duration (write it like \"1s\" or \"5m\")",
    ),
    (
        "[auth.sms.test_otp]\na = 1\n[auth.sms.twilio]\nenabled = 5",
        &[],
        "err supabase/config.toml: auth.sms.test_otp.a: expected a string, got 1",
    ),
    (
        "[auth.sms]\nenable_signup = 5\n[auth.sms.test_otp]\na = 1",
        &[],
        "err supabase/config.toml: auth.sms.enable_signup: expected true or false, got 5",
    ),
    ("[auth]\nsms = 1", &[], "ok ignored=[\"auth.sms\"]"),
    // [edge_runtime.secrets]
    (
        "[edge_runtime.secrets]\na = \"x\"\nb = \"env(UNSET)\"\nc = \"env(WORD)\"",
        &[],
        "ok secrets={\"a\": \"x\", \"c\": \"x\"}",
    ),
    (
        "[edge_runtime]\nsecrets = 5",
        &[],
        "err supabase/config.toml: edge_runtime.secrets: expected a table, got 5",
    ),
    (
        "[edge_runtime.secrets]\na = true",
        &[],
        "err supabase/config.toml: edge_runtime.secrets.a: expected a string, got true",
    ),
    (
        "[edge_runtime.secrets]\na = \"x\"",
        &[("SUPABASE_EDGE_RUNTIME_SECRETS_A", "y")],
        "ok secrets={\"a\": \"y\"}",
    ),
    (
        "[edge_runtime]\npolicy = \"nope\"\n[edge_runtime.secrets]\na = 1",
        &[],
        "err supabase/config.toml: edge_runtime.policy: \"nope\" is not a policy (use per_worker or oneshot)",
    ),
    (
        "[edge_runtime]\nenabled = 5\n[edge_runtime.secrets]\na = 1",
        &[],
        "err supabase/config.toml: edge_runtime.enabled: expected true or false, got 5",
    ),
    (
        "[edge_runtime]\nenabled = false\n[edge_runtime.secrets]\na = \"x\"",
        &[],
        "ok secrets={\"a\": \"x\"}",
    ),
    ("edge_runtime = 1", &[], "ok ignored=[\"edge_runtime\"]"),
    // [auth.third_party.*]
    (
        "[auth.third_party.firebase]\nenabled = true\nproject_id = \"env(WORD)\"",
        &[],
        "ok third_party=firebase:https://securetoken.google.com/x",
    ),
    (
        "[auth.third_party.auth0]\nenabled = \"env(TRUE)\"\ntenant = \"shop\"",
        &[],
        "ok third_party=auth0:https://shop.auth0.com",
    ),
    (
        "[auth.third_party.auth0]\nenabled = true\ntenant = \"shop\"\ntenant_region = \"eu\"",
        &[],
        "ok third_party=auth0:https://shop.eu.auth0.com",
    ),
    (
        "[auth.third_party.aws_cognito]\nenabled = true\nuser_pool_id = \"p1\"\nuser_pool_region = \"eu-west-1\"",
        &[],
        "ok third_party=aws_cognito:https://cognito-idp.eu-west-1.amazonaws.com/p1",
    ),
    (
        "[auth.third_party.clerk]\nenabled = true\ndomain = \"fine-cat-12.clerk.accounts.dev\"",
        &[],
        "ok third_party=clerk:https://fine-cat-12.clerk.accounts.dev",
    ),
    (
        "[auth.third_party.workos]\nenabled = true\nissuer_url = \"http://127.0.0.1:9/\"",
        &[],
        "ok third_party=workos:http://127.0.0.1:9",
    ),
    (
        "",
        &[
            ("SUPABASE_AUTH_THIRD_PARTY_WORKOS_ENABLED", "true"),
            (
                "SUPABASE_AUTH_THIRD_PARTY_WORKOS_ISSUER_URL",
                "https://w.example//",
            ),
        ],
        "ok third_party=workos:https://w.example",
    ),
    (
        "[auth.third_party.workos]\nenabled = false\nissuer_url = \"https://w.example\"",
        &[("SUPABASE_AUTH_THIRD_PARTY_WORKOS_ENABLED", "1")],
        "ok third_party=workos:https://w.example",
    ),
    (
        "[auth.third_party.workos]\nenabled = true\nissuer_url = \"https://w.example\"",
        &[("SUPABASE_AUTH_THIRD_PARTY_WORKOS_ENABLED", "no")],
        "err supabase/config.toml: auth.third_party.workos.enabled: expected true or false, got \"no\" (from the environment variable SUPABASE_AUTH_THIRD_PARTY_WORKOS_ENABLED)",
    ),
    (
        "[auth.third_party.clerk]\nenabled = false\ndomain = \"x\"",
        &[],
        "ok ",
    ),
    (
        "[auth.third_party.clerk]\nenabled = false\ndomain = 5",
        &[],
        "err supabase/config.toml: auth.third_party.clerk.domain: expected a string, got 5",
    ),
    (
        "[auth.third_party.clerk]\nenabled = 3\ndomain = 4",
        &[],
        "err supabase/config.toml: auth.third_party.clerk.enabled: expected true or false, got 3",
    ),
    (
        "[auth.third_party.workos]\nenabled = 3\n[auth.third_party.firebase]\nproject_id = 4",
        &[],
        "err supabase/config.toml: auth.third_party.firebase.project_id: expected a string, got 4",
    ),
    (
        "[auth.third_party.auth0]\ntenant = 4\n[auth.third_party.firebase]\nenabled = 3",
        &[],
        "err supabase/config.toml: auth.third_party.firebase.enabled: expected true or false, got 3",
    ),
    (
        "[auth.third_party.firebase]\nenabled = true",
        &[],
        "err supabase/config.toml: auth.third_party.firebase.project_id: auth.third_party.firebase is enabled but without a project_id",
    ),
    (
        "[auth.third_party.firebase]\nenabled = true\nproject_id = \"env(UNSET)\"",
        &[],
        "ok third_party=firebase:https://securetoken.google.com/env(UNSET)",
    ),
    (
        "[auth.third_party.aws_cognito]\nenabled = true\nuser_pool_id = \"p\"",
        &[],
        "err supabase/config.toml: auth.third_party.aws_cognito.user_pool_region: auth.third_party.aws_cognito is enabled but without a user_pool_region",
    ),
    (
        "[auth.third_party.clerk]\nenabled = true\ndomain = \"shop.com\"",
        &[],
        "err supabase/config.toml: auth.third_party.clerk.domain: auth.third_party.clerk has invalid domain, it usually is like clerk.example.com or example.clerk.accounts.dev",
    ),
    (
        "[auth.third_party.clerk]\nenabled = true\ndomain = \"clerk.shop.com\"\n[auth.third_party.auth0]\nenabled = true\ntenant = \"t\"",
        &[],
        "err supabase/config.toml: auth.third_party: Only one third_party provider allowed to be enabled at a time",
    ),
    (
        "[auth.third_party.clerk]\nenabled = true\ndomain = \"shop.com\"\n[auth.third_party.firebase]\nenabled = true",
        &[],
        "err supabase/config.toml: auth.third_party.firebase.project_id: auth.third_party.firebase is enabled but without a project_id",
    ),
    (
        "[auth.third_party.firebase]\nenabled = true\nproject_id = \"p\"\nextra = 1",
        &[],
        "ok third_party=firebase:https://securetoken.google.com/p ignored=[\"auth.third_party.firebase\"]",
    ),
    (
        "[auth.third_party.nope]\nenabled = true\nx = 1",
        &[],
        "ok ignored=[\"auth.third_party.nope\"]",
    ),
    (
        "[auth.third_party.firebase]\nenabled = false\nextra = 1",
        &[],
        "ok ",
    ),
    (
        "[auth]\nthird_party = 5",
        &[],
        "ok ignored=[\"auth.third_party\"]",
    ),
    (
        "[auth.third_party]\nclerk = 5",
        &[],
        "ok ignored=[\"auth.third_party.clerk\"]",
    ),
    (
        "[auth.third_party.clerk]\nenabled = \"env(UNSET)\"",
        &[],
        "err supabase/config.toml: auth.third_party.clerk.enabled: expected true or false, got \"env(UNSET)\" (the environment variable UNSET is not set)",
    ),
    (
        "[auth]\nsite_url = 5\n[auth.third_party.clerk]\nenabled = 3",
        &[],
        "err supabase/config.toml: auth.site_url: expected a string, got 5",
    ),
    (
        "[auth.third_party.clerk]\nenabled = 3\n[auth.sessions]\ntimebox = \"x\"",
        &[],
        "err supabase/config.toml: auth.third_party.clerk.enabled: expected true or false, got 3",
    ),
    // [remotes.*]
    (
        "project_id = \"shop\"\n[remotes.staging]\nproject_id = \"abcdefghijklmnopqrst\"\n[remotes.staging.auth]\nsite_url = \"https://staging.example\"",
        &[],
        "ok project_id=\"shop\" remotes={\"staging\": \"abcdefghijklmnopqrst\"}",
    ),
    (
        "project_id = \"shop\"\n[remotes.staging]\nproject_id = \"abcdefghijklmnopqrst\"\n[remotes.staging.auth]\nsite_url = \"https://staging.example\"",
        &[("SUPABASE_PROJECT_ID", REF)],
        "ok project_id=\"abcdefghijklmnopqrst\" remotes={\"staging\": \"abcdefghijklmnopqrst\"} seed=off site_url=https://staging.example",
    ),
    (
        "project_id = \"abcdefghijklmnopqrst\"\n[remotes.a]\nproject_id = \"abcdefghijklmnopqrst\"\n[remotes.a.db.seed]\nenabled = true\n[remotes.a.auth]\nsite_url = \"https://r.example\"",
        &[("SUPABASE_AUTH_SITE_URL", "https://env.example")],
        "ok project_id=\"abcdefghijklmnopqrst\" remotes={\"a\": \"abcdefghijklmnopqrst\"} site_url=https://r.example",
    ),
    (
        "project_id = \"abcdefghijklmnopqrst\"\n[remotes.a]\nproject_id = \"abcdefghijklmnopqrst\"",
        &[("SUPABASE_DB_SEED_ENABLED", "true")],
        "ok project_id=\"abcdefghijklmnopqrst\" remotes={\"a\": \"abcdefghijklmnopqrst\"} seed=off",
    ),
    (
        "project_id = \"abcdefghijklmnopqrst\"\n[remotes.a]\nproject_id = \"abcdefghijklmnopqrst\"\n[remotes.a.api]\nport = \"x\"",
        &[],
        "err supabase/config.toml: api.port: expected a whole number from 0 to 65535, got \"x\"",
    ),
    (
        "project_id = \"abcdefghijklmnopqrst\"\n[remotes.a]\nproject_id = \"abcdefghijklmnopqrst\"\n[remotes.a.api]\nport = 6000\nnope = 1",
        &[],
        "ok project_id=\"abcdefghijklmnopqrst\" remotes={\"a\": \"abcdefghijklmnopqrst\"} seed=off api.port=6000 ignored=[\"api.nope\"]",
    ),
    (
        "project_id = \"abcdefghijklmnopqrst\"\napi = 5\n[remotes.a]\nproject_id = \"abcdefghijklmnopqrst\"\n[remotes.a.api]\nport = 6000",
        &[],
        "ok project_id=\"abcdefghijklmnopqrst\" remotes={\"a\": \"abcdefghijklmnopqrst\"} seed=off api.port=6000",
    ),
    (
        "[remotes.a]\nproject_id = \"env(REF)\"\n[remotes.a.db.vault]\nk = \"v\"",
        &[("REF", REF), ("SUPABASE_PROJECT_ID", REF)],
        "ok project_id=\"abcdefghijklmnopqrst\" remotes={\"a\": \"abcdefghijklmnopqrst\"} vault={\"k\": \"v\"} seed=off",
    ),
    (
        "[remotes.a]\nproject_id = \"env(UNSET)\"",
        &[],
        "err supabase/config.toml: remotes.a.project_id: Invalid config: must be like abcdefghijklmnopqrst",
    ),
    (
        "[remotes.a]\nproject_id = \"short\"",
        &[],
        "err supabase/config.toml: remotes.a.project_id: Invalid config: must be like abcdefghijklmnopqrst",
    ),
    (
        "[remotes.a]\nproject_id = 5",
        &[],
        "err supabase/config.toml: remotes.a.project_id: Invalid config: must be like abcdefghijklmnopqrst",
    ),
    (
        "[remotes.a]\nx = 1",
        &[],
        "err supabase/config.toml: remotes.a.project_id: Invalid config: must be like abcdefghijklmnopqrst",
    ),
    (
        "[remotes.a]\nproject_id = \"abcdefghijklmnopqrst\"\n[remotes.b]\nproject_id = \"abcdefghijklmnopqrst\"",
        &[],
        "err supabase/config.toml: remotes.b.project_id: duplicate project_id for [remotes.b] and [remotes.a]",
    ),
    (
        "remotes = 1",
        &[],
        "err supabase/config.toml: remotes: expected [remotes.NAME] tables",
    ),
    (
        "[remotes]\na = 1",
        &[],
        "err supabase/config.toml: remotes.a: expected a table",
    ),
    ("[remotes]", &[], "ok "),
    (
        "[remotes.a]\nproject_id = \"abcdefghijklmnopqrst\"\nnope = 1\n[remotes.a.nope2]\nx = 1",
        &[],
        "ok remotes={\"a\": \"abcdefghijklmnopqrst\"}",
    ),
    (
        "[remotes.a]\nproject_id = \"abcdefghijklmnopqrst\"",
        &[("SUPABASE_REMOTES_A_PROJECT_ID", "x")],
        "ok remotes={\"a\": \"abcdefghijklmnopqrst\"}",
    ),
];

#[test]
fn moved_keys_read_as_before() {
    let mut wrong = Vec::new();
    for (text, vars, want) in CASES {
        let got = outcome(text, vars);
        if got != *want {
            wrong.push(format!("{text:?} {vars:?}\n  want {want}\n  got  {got}"));
        }
    }
    eprintln!("cases {}/{}", CASES.len() - wrong.len(), CASES.len());
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
