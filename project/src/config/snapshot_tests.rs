//! Pins what reading config.toml gives, so that a rewrite of the reader can show it changed
//! nothing: the project's own config.toml files, the `init` template, every key of the CLI's
//! structs under many values (in the file, switched on or not, and from `SUPABASE_<KEY>`), and
//! malformed documents. Each case's settings (their Debug, hashed), ignored keys and error text
//! are compared with `project/tests/config_snapshot.txt`; `CONFIG_SNAPSHOT_BLESS=1` rewrites
//! it, `CONFIG_SNAPSHOT_FULL=<file>` writes every case's whole output for a diff.

use super::{Config, keys};
use sha2::Digest;
use std::path::Path;

/// The variables the cases see.
fn env_of(extra: &[(String, String)]) -> impl Fn(&str) -> Option<String> + '_ {
    move |name: &str| {
        let fixed = [
            ("SET", "7"),
            ("SITE", "https://shop.example"),
            ("WORD", "x"),
            ("TRUE", "true"),
            ("SIZE", "5MiB"),
        ];
        fixed
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.to_string())
            .or_else(|| {
                extra
                    .iter()
                    .find(|(n, _)| n == name)
                    .map(|(_, v)| v.clone())
            })
    }
}

/// One case's outcome: its settings' Debug and ignored keys, or its error.
fn outcome(text: &str, extra: &[(String, String)]) -> String {
    let env = env_of(extra);
    match Config::parse(Path::new("supabase/config.toml"), text, &env) {
        Ok(l) => format!("ok {:?}\nignored {:?}", l.config, l.ignored),
        Err(e) => format!("err {e}"),
    }
}

fn short_hash(s: &str) -> String {
    hex::encode(&sha2::Sha256::digest(s.as_bytes())[..8])
}

/// Values tried for every key.
const VALUES: &[&str] = &[
    "true",
    "false",
    "0",
    "7",
    "-1",
    "70000",
    "1.5",
    "\"7s\"",
    "\"x\"",
    "\"\"",
    "\"5MiB\"",
    "[\"x\"]",
    "[1]",
    "\"https://x.example\"",
    "\"env(SET)\"",
    "\"env(WORD)\"",
    "\"env(UNSET)\"",
    "{ a = \"x\" }",
    "1979-05-27T07:32:00Z",
];

/// Whole documents: shapes the reader must refuse or pass over.
const DOCUMENTS: &[&str] = &[
    "",
    "[api\nport = 1",
    "api = 5",
    "auth = \"x\"",
    "[api]\ntls = 1",
    "[storage]\nbuckets = 5",
    "[storage.buckets]\na = 5",
    "[storage.buckets.\"a/b\"]\npublic = true",
    "[storage.buckets.a]\npublik = true",
    "[storage.buckets.a]\nobjects_path = \"\"",
    "[storage.buckets.a]\nfile_size_limit = 0",
    "remotes = 1",
    "[remotes]\na = 1",
    "[remotes.a]\nproject_id = \"short\"",
    "[remotes.a]\nproject_id = \"env(UNSET)\"",
    "[remotes.a]\nproject_id = \"abcdefghijklmnopqrst\"\n[remotes.b]\nproject_id = \"abcdefghijklmnopqrst\"",
    "project_id = \"abcdefghijklmnopqrst\"\n[remotes.a]\nproject_id = \"abcdefghijklmnopqrst\"\n[remotes.a.auth]\nsite_url = \"https://r.example\"\n[remotes.a.db.seed]\nenabled = true",
    "project_id = \"abcdefghijklmnopqrst\"\n[remotes.a]\nproject_id = \"abcdefghijklmnopqrst\"\n[remotes.a.api]\nport = \"x\"",
    "[db]\nsettings = \"x\"",
    "[db.settings]\nfsync = false",
    "[db.settings]\nwork_mem = \"4MB; rm\"",
    "[db.settings]\nwork_mem = \"\"",
    "[db.settings]\nmax_connections = -1",
    "[db.settings]\nsession_replication_role = \"x\"",
    "[db.settings]\ntrack_commit_timestamp = \"t\"",
    "[db]\nvault = 1",
    "[db.vault]\na = 1",
    "[db.vault]\na = \"env(SET)\"\nb = \"env(UNSET)\"\nc = \"x\"",
    "[api]\nexternal_url = \"ftp://x\"",
    "[api.tls]\ncert_path = \"a\"",
    "[api]\nschemas = [\"\"]",
    "[api]\nschemas = \"a, b,,c\"",
    "[studio]\napi_url = \"http://127.0.0.1:9000/\"",
    "[studio]\napi_url = \"http://127.0.0.1\"",
    "[auth.email]\nmax_frequency = \"1h30m\"",
    "[auth.email]\nmax_frequency = \"250ms\"",
    "[auth.email]\nmax_frequency = \"5 m\"",
    "[auth.sms.test_otp]\n\"+15555550100\" = \"123456\"",
    "[auth.sms.twilio]\nenabled = true\naccount_sid = \"AC1\"\nmessage_service_sid = \"MG1\"\nauth_token = \"env(SITE)\"",
    "[auth.sms.vonage]\nenabled = true\napi_secret = \"env(UNSET)\"",
    "[auth.external.github]\nenabled = true\nclient_id = \"a\"\nsecret = \"b\"\nredirect_uri = \"http://x\"\nurl = \"http://y\"\nskip_nonce_check = true\nemail_optional = true",
    "[auth.external.nope]\nenabled = true",
    "[auth.hook.custom_access_token]\nenabled = true\nuri = \"pg-functions://postgres/public/hook\"",
    "[auth.hook.send_email]\nenabled = true\nuri = \"http://x/hook\"\nsecrets = \"v1,whsec_x\"",
    "[auth.email.template.invite]\nsubject = \"s\"\ncontent_path = \"./t.html\"",
    "[auth.email.template.nope]\nsubject = \"s\"",
    "[auth.email.notification.password_changed]\nenabled = true\nsubject = \"s\"",
    "[auth.email.smtp]\nenabled = true\nhost = \"h\"\nport = 25\nuser = \"u\"\npass = \"env(UNSET)\"\nadmin_email = \"a@x\"\nsender_name = \"n\"",
    "[auth.third_party.workos]\nenabled = true\nissuer_url = \"https://w.example\"",
    "[auth.third_party.auth0]\nenabled = true\ntenant = \"t\"\n[auth.third_party.clerk]\nenabled = true\ndomain = \"d\"",
    "[auth.captcha]\nenabled = true\nprovider = \"hcaptcha\"\nsecret = \"s\"",
    "[auth.captcha]\nenabled = true\nprovider = \"nope\"",
    "[auth.sessions]\ntimebox = \"24h\"\ninactivity_timeout = \"8h\"",
    "[auth.mfa]\nmax_enrolled_factors = 3\n[auth.mfa.totp]\nenroll_enabled = false\nverify_enabled = false\n[auth.mfa.phone]\nenroll_enabled = true\nverify_enabled = true\notp_length = 8\ntemplate = \"{{ .Code }}\"\nmax_frequency = \"9s\"",
    "[auth.passkey]\nenabled = true\n[auth.webauthn]\nrp_display_name = \"n\"\nrp_id = \"localhost\"\nrp_origins = [\"http://localhost:3000\"]",
    "[functions.hello]\nverify_jwt = false\nimport_map = \"./import_map.json\"\nentrypoint = \"./functions/hello/index.ts\"\nstatic_files = [\"./a/*\"]",
    "[functions.\"bad name\"]\nverify_jwt = false",
    "[functions]\nhello = 1",
    "[edge_runtime]\npolicy = \"per_worker\"\ninspector_port = 8083\n[edge_runtime.secrets]\na = \"x\"\nb = \"env(UNSET)\"",
    "[edge_runtime]\npolicy = \"nope\"",
    "[realtime]\nip_version = \"IPv4\"\n[storage.s3_protocol]\nenabled = true",
    "[realtime]\nip_version = \"IPv6\"\n[storage.s3_protocol]\nenabled = false",
    "[analytics]\nenabled = true\nport = 1\n[experimental]\norioledb_version = \"x\"",
    "[inbucket]\nenabled = true\nport = 1\nsmtp_port = 2\npop3_port = 3\nadmin_email = \"a@x\"\nsender_name = \"n\"",
    "[auth]\nunknown = 1\n[auth.unknown.deep.table]\na = 1\nb = 2\n[nope]\nenabled = true\nx = 1",
    "[auth.rate_limit]\nemail_sent = 1\nsms_sent = 2\nanonymous_users = 3\ntoken_refresh = 4\nsign_in_sign_ups = 5\ntoken_verifications = 6\nweb3 = 7",
    "[auth]\npassword_requirements = \"letters_digits\"\nminimum_password_length = 10\njwt_expiry = 30",
];

/// A case: its label, its config.toml and the variables set.
type Case = (String, String, Vec<(String, String)>);

/// Each key of the CLI's structs (`*` as `x`) under each value; with its table's `enabled`
/// switched on too when the table has one.
fn key_cases() -> Vec<(String, Vec<Case>)> {
    let mut out = Vec::new();
    for pattern in keys::CLI_KEYS {
        let key = pattern.replace('*', "x");
        let (table, leaf) = key.rsplit_once('.').unwrap_or(("", &key));
        let switchable = pattern
            .rsplit_once('.')
            .map(|(t, _)| format!("{t}.enabled"))
            .is_some_and(|k| leaf != "enabled" && keys::CLI_KEYS.contains(&k.as_str()));
        let mut cases = Vec::new();
        for value in VALUES {
            let mut texts = vec![if table.is_empty() {
                format!("{leaf} = {value}\n")
            } else {
                format!("[{table}]\n{leaf} = {value}\n")
            }];
            if switchable {
                texts.push(format!("[{table}]\nenabled = true\n{leaf} = {value}\n"));
            }
            for text in texts {
                cases.push((format!("{key} = {value}"), text, Vec::new()));
            }
        }
        let var = format!("SUPABASE_{}", key.replace('.', "_").to_uppercase());
        for value in ["7", "x", "true", "5MiB", "a,b"] {
            cases.push((
                format!("{var}={value}"),
                String::new(),
                vec![(var.clone(), value.to_string())],
            ));
            if !table.is_empty() {
                cases.push((
                    format!("{var}={value} over the file"),
                    format!("[{table}]\n{leaf} = \"file\"\n"),
                    vec![(var.clone(), value.to_string())],
                ));
            }
        }
        out.push((key, cases));
    }
    out
}

/// The config.toml files of the repository and the `init` template.
fn files() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut paths = vec![root.join("supabase/config.toml")];
    let fixtures = root.join("tests/fixtures");
    let mut names: Vec<_> = std::fs::read_dir(&fixtures)
        .expect("tests/fixtures")
        .filter_map(|e| e.ok())
        .map(|e| e.path().join("supabase/config.toml"))
        .filter(|p| p.is_file())
        .collect();
    names.sort();
    paths.extend(names);
    if let Ok(more) = std::env::var("CONFIG_SNAPSHOT_MORE") {
        paths.extend(glob::glob(&more).expect("a glob").filter_map(|p| p.ok()));
    }
    let mut out: Vec<(String, String)> = paths
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("a config.toml");
            let name = p.strip_prefix(&root).unwrap_or(&p).display().to_string();
            (name, text)
        })
        .collect();
    out.push(("init template".into(), crate::init::config_toml("snapshot")));
    out
}

#[test]
fn reading_config_toml_matches_the_snapshot() {
    let (mut summary, mut full) = (String::new(), String::new());
    for (name, text) in files() {
        let o = outcome(&text, &[]);
        let ignored = o.lines().last().unwrap_or_default().to_string();
        summary.push_str(&format!("file {name}: {} {ignored}\n", short_hash(&o)));
        full.push_str(&format!("== file {name}\n{o}\n"));
    }
    for text in DOCUMENTS {
        let o = outcome(text, &[]);
        let shown = if o.starts_with("err ") {
            o.clone()
        } else {
            format!(
                "{} {}",
                short_hash(&o),
                o.lines().last().unwrap_or_default()
            )
        };
        summary.push_str(&format!("document {text:?}: {shown}\n"));
        full.push_str(&format!("== document {text:?}\n{o}\n"));
    }
    let mut count = 0;
    for (key, cases) in key_cases() {
        let mut all = String::new();
        for (label, text, vars) in cases {
            count += 1;
            let o = outcome(&text, &vars);
            all.push_str(&format!("== {label}\n{text}\n{o}\n"));
        }
        summary.push_str(&format!("key {key}: {}\n", short_hash(&all)));
        full.push_str(&all);
    }
    assert!(count > 5000, "{count} key cases");
    if let Ok(out) = std::env::var("CONFIG_SNAPSHOT_FULL") {
        std::fs::write(out, &full).expect("the full output written");
    }
    let snapshot = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/config_snapshot.txt");
    if std::env::var_os("CONFIG_SNAPSHOT_BLESS").is_some() {
        std::fs::write(&snapshot, &summary).expect("the snapshot written");
        return;
    }
    let pinned = std::fs::read_to_string(&snapshot).expect("tests/config_snapshot.txt");
    let differ: Vec<(&str, &str)> = pinned
        .lines()
        .zip(summary.lines())
        .filter(|(a, b)| a != b)
        .take(10)
        .collect();
    assert!(
        differ.is_empty() && pinned.lines().count() == summary.lines().count(),
        "config.toml reads differently from the snapshot (pinned, now): {differ:#?}"
    );
}
