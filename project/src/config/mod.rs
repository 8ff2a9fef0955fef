//! `supabase/config.toml`, read as the Supabase CLI reads it: the same keys and defaults, sizes
//! such as "50MiB", `env(NAME)` values. A bad value is an error naming the file, the key and the
//! reason; keys supagate does not implement are returned so the caller can name them in one
//! warning line (keys left at the CLI's defaults, and switched-off sections, are not).
//!
//! Every key is read by `#[derive(Deserialize)]` structs through `Doc::section` (unknown keys
//! found by `serde_ignored`). Two steps come before them and rewrite the document rather than
//! read it: the `[remotes.<name>]` block of the linked project merged over the file
//! (`read_remotes`), then the `SUPABASE_<KEY>` variables set over it (`apply_env_overrides`).
//! Those stay outside the model because the keys they apply to are the CLI's (`keys::CLI_KEYS`),
//! which include keys supagate does not model but reports as ignored when changed.

mod auth;
mod auth_trust;
mod doc;
mod external;
mod fields;
mod functions;
mod keys;
pub mod listing;
#[cfg(test)]
mod moved_keys_tests;
mod sms;
#[cfg(test)]
mod snapshot_tests;
mod webauthn;

pub use auth::*;
pub use auth_trust::{Captcha, Sessions, ThirdParty};
use doc::{Doc, apply_env_overrides, collect_leaves, matches, starts_with};
pub use external::External;
pub use functions::{EdgeRuntime, FunctionConfig, Policy};
use serde::Deserialize;
pub use sms::{OtherProvider, Sms, Twilio};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use toml::Value;
pub use webauthn::WebAuthn;

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {0}: {1}")]
    Read(PathBuf, std::io::Error),
    #[error("{file} is not valid TOML: {message}")]
    Syntax { file: PathBuf, message: String },
    #[error("{file}: {key}: {reason}")]
    Value {
        file: PathBuf,
        key: String,
        reason: String,
    },
}

/// The settings supagate applies, with the Supabase CLI's defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    pub project_id: Option<String>,
    /// `[remotes.<name>]`: the hosted projects' references by block name. A block applies
    /// (over the rest of the file) only to the project whose `project_id` it names, as the
    /// CLI merges it; locally it is read, checked and otherwise left alone.
    pub remotes: BTreeMap<String, String>,
    pub api: Api,
    pub db: Db,
    pub auth: Auth,
    pub storage: Storage,
    pub realtime: Realtime,
    pub inbucket: Inbucket,
    pub studio: Studio,
    /// `[functions.<slug>]`.
    pub functions: BTreeMap<String, FunctionConfig>,
    pub edge_runtime: EdgeRuntime,
}

/// `[studio]`: the dashboard on its own port.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default)]
pub struct Studio {
    #[serde(deserialize_with = "fields::flag")]
    pub enabled: bool,
    #[serde(deserialize_with = "fields::int::<1, 65535, _, _>")]
    pub port: u16,
    /// The API address the dashboard's browser calls, when config.toml gives one with a port
    /// (the template's `http://127.0.0.1` without one means the API's own address).
    #[serde(deserialize_with = "studio_api_url")]
    pub api_url: Option<String>,
}

impl Default for Studio {
    fn default() -> Self {
        Studio {
            enabled: true,
            port: 54323,
            api_url: None,
        }
    }
}

/// `[studio] api_url`, kept when it names a port.
fn studio_api_url<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let url = fields::text(d)?;
    Ok(url
        .rsplit_once(':')
        .is_some_and(|(_, p)| p.trim_end_matches('/').parse::<u16>().is_ok())
        .then(|| url.trim_end_matches('/').to_string()))
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default)]
pub struct Realtime {
    #[serde(deserialize_with = "fields::flag")]
    pub enabled: bool,
    /// Longest request head (URL and headers) the WebSocket upgrade accepts, in bytes.
    #[serde(deserialize_with = "fields::int::<1024, { 1 << 20 }, _, _>")]
    pub max_header_length: u64,
}

impl Default for Realtime {
    fn default() -> Self {
        Realtime {
            enabled: true,
            max_header_length: 4096,
        }
    }
}

/// The document's own keys besides the sections.
#[derive(Deserialize, Default)]
#[serde(default)]
struct TopKeys {
    #[serde(deserialize_with = "fields::given_text")]
    project_id: Option<String>,
}

/// `[db]`'s keys (`settings` is read after them, by [`DbSettingsKeys`], so that a bad vault
/// entry is named before a bad setting, as before).
#[derive(Deserialize)]
#[serde(default)]
struct DbKeys {
    #[serde(deserialize_with = "fields::int::<1, 65535, _, _>")]
    port: u16,
    #[serde(deserialize_with = "fields::some_int::<13, 99, _, _>")]
    major_version: Option<u32>,
    migrations: DbMigrations,
    seed: DbSeed,
    #[serde(deserialize_with = "fields::secrets")]
    vault: BTreeMap<String, String>,
}

impl Default for DbKeys {
    fn default() -> Self {
        DbKeys {
            port: 54322,
            major_version: None,
            migrations: DbMigrations::default(),
            seed: DbSeed::default(),
            vault: BTreeMap::new(),
        }
    }
}

/// `[db.settings]`.
#[derive(Deserialize, Default)]
#[serde(default)]
struct DbSettingsKeys {
    #[serde(deserialize_with = "db_settings")]
    settings: Vec<(String, String)>,
}

/// `[db.migrations]`.
#[derive(Deserialize)]
#[serde(default)]
struct DbMigrations {
    #[serde(deserialize_with = "fields::flag")]
    enabled: bool,
    #[serde(deserialize_with = "fields::list")]
    schema_paths: Vec<String>,
}

impl Default for DbMigrations {
    fn default() -> Self {
        DbMigrations {
            enabled: true,
            schema_paths: Vec::new(),
        }
    }
}

/// `[db.seed]`.
#[derive(Deserialize)]
#[serde(default)]
struct DbSeed {
    #[serde(deserialize_with = "fields::flag")]
    enabled: bool,
    #[serde(deserialize_with = "fields::list")]
    sql_paths: Vec<String>,
}

impl Default for DbSeed {
    fn default() -> Self {
        DbSeed {
            enabled: true,
            sql_paths: vec!["./seed.sql".into()],
        }
    }
}

/// `[storage]`'s keys read through serde (`buckets` is read apart).
#[derive(Deserialize)]
#[serde(default)]
struct StorageKeys {
    #[serde(deserialize_with = "fields::flag")]
    enabled: bool,
    #[serde(deserialize_with = "fields::size")]
    file_size_limit: u64,
    image_transformation: fields::SwitchedOn,
}

impl Default for StorageKeys {
    fn default() -> Self {
        StorageKeys {
            enabled: true,
            file_size_limit: 50 * 1024 * 1024,
            image_transformation: fields::SwitchedOn::default(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default)]
pub struct Api {
    #[serde(deserialize_with = "fields::flag")]
    pub enabled: bool,
    /// 0: ports of the project folder's own (`--ports auto`).
    #[serde(deserialize_with = "fields::int::<0, 65535, _, _>")]
    pub port: u16,
    /// Schemas `/rest/v1` exposes; the first is the default.
    #[serde(deserialize_with = "fields::list")]
    pub schemas: Vec<String>,
    /// Appended to every request's search_path.
    #[serde(deserialize_with = "fields::list")]
    pub extra_search_path: Vec<String>,
    #[serde(deserialize_with = "fields::int::<0, { i64::MAX }, _, _>")]
    pub max_rows: u64,
    /// Whether tables `postgres` creates in `public` are granted to the API roles by default.
    #[serde(deserialize_with = "fields::flag")]
    pub auto_expose_new_tables: bool,
    /// `[api.tls]`: HTTPS on the API port.
    pub tls: ApiTls,
    /// `[api] external_url`: the URL clients reach the API at (None: the bound address, with
    /// `https` when TLS is on).
    #[serde(deserialize_with = "fields::some_text")]
    pub external_url: Option<String>,
}

impl Default for Api {
    fn default() -> Self {
        Api {
            enabled: true,
            port: 54321,
            schemas: vec!["public".into(), "graphql_public".into()],
            extra_search_path: vec!["public".into(), "extensions".into()],
            max_rows: 1000,
            auto_expose_new_tables: true,
            tls: ApiTls::default(),
            external_url: None,
        }
    }
}

/// `[api.tls]`: the certificate and key files (PEM, relative to `supabase/`); without them a
/// certificate of the project's own is made for localhost.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct ApiTls {
    #[serde(deserialize_with = "fields::flag")]
    pub enabled: bool,
    #[serde(deserialize_with = "fields::some_text")]
    pub cert_path: Option<String>,
    #[serde(deserialize_with = "fields::some_text")]
    pub key_path: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Db {
    pub port: u16,
    /// `major_version`: the PostgreSQL to run when several are installed.
    pub major_version: Option<u32>,
    /// `[db.vault]`: secrets put into Supabase Vault when the database is set up, by name
    /// (those whose `env()` variable is unset are left out, as the CLI leaves them out).
    pub vault: BTreeMap<String, String>,
    pub migrations_enabled: bool,
    /// `[db.migrations] schema_paths`: declared schema files or glob patterns, relative to the
    /// `supabase/` folder (empty: every `.sql` file under `supabase/schemas`, as the CLI).
    pub schema_paths: Vec<String>,
    pub seed_enabled: bool,
    /// Seed files or glob patterns, relative to the `supabase/` folder.
    pub seed_paths: Vec<String>,
    /// `[db.settings]`: PostgreSQL settings (name, value) for the server, in name order.
    pub settings: Vec<(String, String)>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Storage {
    pub enabled: bool,
    pub file_size_limit: u64,
    /// `[storage.image_transformation] enabled`: the `/render/image` routes.
    pub image_transformation: bool,
    pub buckets: BTreeMap<String, Bucket>,
}

#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(default)]
pub struct Bucket {
    #[serde(deserialize_with = "fields::given_flag")]
    pub public: Option<bool>,
    /// None when absent or 0.
    #[serde(deserialize_with = "bucket_size")]
    pub file_size_limit: Option<u64>,
    #[serde(deserialize_with = "fields::given_list")]
    pub allowed_mime_types: Option<Vec<String>>,
    /// Files uploaded into the bucket, relative to the `supabase/` folder.
    #[serde(deserialize_with = "fields::some_text")]
    pub objects_path: Option<String>,
}

/// A bucket's size limit; 0 is none.
fn bucket_size<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    fields::size(d).map(|s| Some(s).filter(|s| *s > 0))
}

impl Db {
    fn from_keys(k: DbKeys) -> Db {
        Db {
            port: k.port,
            major_version: k.major_version,
            vault: k.vault,
            migrations_enabled: k.migrations.enabled,
            schema_paths: k.migrations.schema_paths,
            seed_enabled: k.seed.enabled,
            seed_paths: k.seed.sql_paths,
            settings: Vec::new(),
        }
    }
}

impl Storage {
    fn from_keys(k: StorageKeys) -> Storage {
        Storage {
            enabled: k.enabled,
            file_size_limit: k.file_size_limit,
            image_transformation: k.image_transformation.enabled,
            buckets: BTreeMap::new(),
        }
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            project_id: None,
            remotes: BTreeMap::new(),
            api: Api::default(),
            db: Db::from_keys(DbKeys::default()),
            auth: Auth::default(),
            storage: Storage::from_keys(StorageKeys::default()),
            realtime: Realtime::default(),
            inbucket: Inbucket::default(),
            studio: Studio::default(),
            functions: BTreeMap::new(),
            edge_runtime: EdgeRuntime::default(),
        }
    }
}

/// A value the CLI accepts but supagate does not act on, and its CLI default: left at the
/// default it changes nothing, so it is not reported.
enum Default_ {
    Bool(bool),
    Int(i64),
    Str(&'static str),
}

/// Keys supagate does not act on (yet), with the CLI defaults. `*` matches any one name.
const NOT_IMPLEMENTED_DEFAULTS: &[(&str, Default_)] = {
    use Default_::*;
    &[
        ("realtime.ip_version", Str("IPv4")),
        ("storage.s3_protocol.enabled", Bool(true)),
        // No inspector is opened for functions (`functions serve --inspect` has no counterpart).
        ("edge_runtime.inspector_port", Int(8083)),
    ]
};

/// Sections of services supagate has no counterpart of by design (Studio, edge functions, the
/// analytics stack, the pooler, settings of the hosted platform).
const OUT_OF_SCOPE: &[&str] = &[
    "project_id",
    // Studio's AI assistant and the CLI's image names.
    "studio.openai_api_key",
    "studio.image",
    "studio.pgmeta_image",
    "analytics",
    "edge_runtime.deno_version",
    "experimental",
    "remotes",
    "db.pooler",
    "db.network_restrictions",
    "db.ssl_enforcement",
    "db.shadow_port",
    "db.health_timeout",
    "db.root_key",
    "storage.analytics",
    "storage.vector",
];

impl Default_ {
    fn equals(&self, v: &Value) -> bool {
        match (self, v) {
            (Default_::Bool(d), Value::Boolean(b)) => d == b,
            (Default_::Int(d), Value::Integer(i)) => d == i,
            (Default_::Str(d), Value::String(s)) => d == s,
            _ => false,
        }
    }
}

impl Doc<'_> {
    /// Whether a table on the way to `path` (or the leaf itself) says `enabled = false`.
    fn switched_off(&self, path: &[String]) -> bool {
        (1..=path.len()).any(|n| {
            let mut table = &self.root;
            for p in &path[..n - 1] {
                match table.get(p).and_then(Value::as_table) {
                    Some(t) => table = t,
                    None => return false,
                }
            }
            let here = if n == path.len() {
                // The leaf itself: `enabled = false` is a switched-off feature.
                (path[n - 1] == "enabled")
                    .then(|| table.get("enabled"))
                    .flatten()
            } else {
                table
                    .get(&path[n - 1])
                    .and_then(Value::as_table)
                    .and_then(|t| t.get("enabled"))
            };
            matches!(here, Some(Value::Boolean(false)))
        })
    }

    /// Leaves nobody read that change something supagate does not implement.
    fn ignored(&self) -> Vec<String> {
        let mut leaves = Vec::new();
        for (k, v) in &self.root {
            collect_leaves(v, vec![k.clone()], &mut leaves);
        }
        let leaves = leaves
            .into_iter()
            .filter(|(p, _)| !self.used.contains(p))
            .filter(|(p, _)| !OUT_OF_SCOPE.iter().any(|o| starts_with(o, p)))
            .filter(|(p, _)| !self.switched_off(p))
            .filter(|(p, v)| {
                !NOT_IMPLEMENTED_DEFAULTS
                    .iter()
                    .any(|(pattern, d)| matches(pattern, p) && d.equals(v))
            })
            .map(|(p, _)| p)
            .collect::<Vec<_>>();
        let mut out = Vec::new();
        for p in &leaves {
            // A whole feature (its `enabled` switched on, or a deep table) is named once.
            let parent = &p[..p.len() - 1];
            let feature_on = leaves.iter().any(|q| {
                q.len() == p.len() && q[..q.len() - 1] == *parent && q[q.len() - 1] == "enabled"
            });
            let name = if parent.len() >= 3 || (feature_on && !parent.is_empty()) {
                parent.join(".")
            } else {
                p.join(".")
            };
            if !out.contains(&name) {
                out.push(name);
            }
        }
        out
    }
}

/// The result of reading config.toml: the settings, and the keys supagate ignores.
#[derive(Debug)]
pub struct Loaded {
    pub config: Config,
    pub ignored: Vec<String>,
}

impl Config {
    /// Reads and checks `file`; `env` resolves `env(NAME)` values.
    pub fn load(file: &Path, env: &dyn Fn(&str) -> Option<String>) -> Result<Loaded, ConfigError> {
        let text = std::fs::read_to_string(file).map_err(|e| ConfigError::Read(file.into(), e))?;
        Self::parse(file, &text, env)
    }

    pub fn parse(
        file: &Path,
        text: &str,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Loaded, ConfigError> {
        let mut root: toml::Table =
            text.parse()
                .map_err(|e: toml::de::Error| ConfigError::Syntax {
                    file: file.into(),
                    message: e.to_string().trim().to_string(),
                })?;
        let (remotes, remote_keys) = read_remotes(file, &mut root, env)?;
        let overridden = apply_env_overrides(&mut root, keys::CLI_KEYS, env, &remote_keys);
        let mut doc = Doc {
            file,
            root,
            used: BTreeSet::new(),
            env,
            overridden,
        };
        let TopKeys { project_id } = doc.section(&[], &[])?;
        let api: Api = doc.section(&["api"], &["tls"])?;
        if let Some(u) = &api.external_url
            && !(u.starts_with("http://") || u.starts_with("https://"))
        {
            return Err(doc.err(
                &["api", "external_url"],
                format!("\"{u}\" is not an http:// or https:// URL"),
            ));
        }
        if api.tls.cert_path.is_some() != api.tls.key_path.is_some() {
            return Err(doc.err(
                &["api", "tls"],
                "cert_path and key_path go together (or neither, for a certificate of the \
                 project's own)",
            ));
        }
        for s in api.schemas.iter().chain(&api.extra_search_path) {
            if s.is_empty() || s.len() > 63 {
                return Err(doc.err(&["api", "schemas"], format!("\"{s}\" is not a schema name")));
            }
        }
        let mut db = Db::from_keys(doc.section(&["db"], &["migrations", "seed"])?);
        db.settings = doc.section::<DbSettingsKeys>(&["db"], &[])?.settings;
        let auth = auth::read(&mut doc)?;
        let inbucket: Inbucket = doc.section(&["inbucket"], &[])?;
        let mut storage = Storage::from_keys(doc.section(&["storage"], &["image_transformation"])?);
        storage.buckets = read_buckets(&mut doc)?;
        let realtime: Realtime = doc.section(&["realtime"], &[])?;
        let studio: Studio = doc.section(&["studio"], &[])?;
        let functions = functions::read_functions(&mut doc)?;
        let edge_runtime = functions::read_edge_runtime(&mut doc)?;
        let ignored = doc.ignored();
        Ok(Loaded {
            config: Config {
                project_id,
                remotes,
                api,
                db,
                auth,
                storage,
                realtime,
                inbucket,
                studio,
                functions,
                edge_runtime,
            },
            ignored,
        })
    }
}

/// How a `[db.settings]` value is written.
enum Setting {
    /// A whole number (the CLI's uint).
    Count,
    /// A PostgreSQL value with its unit ("128MB", "8s", "-1").
    Text,
    Bool,
    /// `session_replication_role`.
    Role,
}

/// The PostgreSQL settings the CLI's `[db.settings]` accepts.
const DB_SETTINGS: &[(&str, Setting)] = {
    use Setting::*;
    &[
        ("effective_cache_size", Text),
        ("logical_decoding_work_mem", Text),
        ("maintenance_work_mem", Text),
        ("max_connections", Count),
        ("max_locks_per_transaction", Count),
        ("max_parallel_maintenance_workers", Count),
        ("max_parallel_workers", Count),
        ("max_parallel_workers_per_gather", Count),
        ("max_replication_slots", Count),
        ("max_slot_wal_keep_size", Text),
        ("max_standby_archive_delay", Text),
        ("max_standby_streaming_delay", Text),
        ("max_wal_size", Text),
        ("max_wal_senders", Count),
        ("max_worker_processes", Count),
        ("session_replication_role", Role),
        ("shared_buffers", Text),
        ("statement_timeout", Text),
        ("track_activity_query_size", Text),
        ("track_commit_timestamp", Bool),
        ("wal_keep_size", Text),
        ("wal_sender_timeout", Text),
        ("work_mem", Text),
    ]
};

/// A `[db.settings]` entry, checked: only the CLI's settings, values PostgreSQL could take
/// (letters, digits, `.`, `_`, `-`: they are passed on the server's command line).
struct DbSetting(String);

impl fields::Entry for DbSetting {
    fn read<'de, D: serde::Deserializer<'de>>(name: &str, d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let Some((_, kind)) = DB_SETTINGS.iter().find(|(n, _)| *n == name) else {
            let known: Vec<&str> = DB_SETTINGS.iter().map(|(n, _)| *n).collect();
            return Err(D::Error::custom(format!(
                "not a setting the CLI accepts (use one of {})",
                known.join(", ")
            )));
        };
        let value = match kind {
            Setting::Count => fields::int::<0, { i32::MAX as i64 }, i64, D>(d)?.to_string(),
            Setting::Bool => if fields::flag(d)? { "on" } else { "off" }.to_string(),
            Setting::Role => {
                let v = fields::text(d)?;
                if !["origin", "replica", "local"].contains(&v.as_str()) {
                    return Err(D::Error::custom("must be one of [origin replica local]"));
                }
                v
            }
            Setting::Text => {
                let v = match fields::value(d)? {
                    Value::String(s) => s.trim().to_string(),
                    Value::Integer(i) => i.to_string(),
                    other => {
                        return Err(D::Error::custom(format!("expected a string, got {other}")));
                    }
                };
                let ok = !v.is_empty()
                    && v.len() <= 64
                    && v.chars()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
                if !ok {
                    return Err(D::Error::custom(format!(
                        "\"{v}\" is not a PostgreSQL value (write it like \"128MB\" or \"8s\")"
                    )));
                }
                v
            }
        };
        Ok(DbSetting(value))
    }
}

/// `[db.settings]`: PostgreSQL settings (name, value), in name order.
fn db_settings<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<(String, String)>, D::Error> {
    Ok(fields::table_of::<DbSetting, D>(d)?
        .into_iter()
        .map(|(name, DbSetting(v))| (name, v))
        .collect())
}

/// Paths of leaves in the document.
type Leaves = BTreeSet<Vec<String>>;

/// Reads `[remotes.<name>]` blocks as the CLI does: each names a hosted project by a 20-letter
/// `project_id`, no two the same; the block whose `project_id` is this file's own (after its
/// `SUPABASE_PROJECT_ID` override) is merged over the file, `db.seed.enabled` false unless it
/// says otherwise. Returns the references and the leaves a merged block set.
///
/// Not read through the serde model, on purpose: like the `SUPABASE_<KEY>` overrides, the
/// merge rewrites the document before the sections are read (the CLI merges the block over
/// the file before it decodes it), so its errors come before any section's and do not say
/// where an `env()` came from, and a merged value is then read, checked and reported by the
/// sections like any other.
fn read_remotes(
    file: &Path,
    root: &mut toml::Table,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<(BTreeMap<String, String>, Leaves), ConfigError> {
    let bad = |key: String, reason: &str| ConfigError::Value {
        file: file.into(),
        key,
        reason: reason.into(),
    };
    let mut refs = BTreeMap::new();
    let blocks = match root.get("remotes") {
        None => return Ok((refs, BTreeSet::new())),
        Some(Value::Table(t)) => t.clone(),
        Some(_) => return Err(bad("remotes".into(), "expected [remotes.NAME] tables")),
    };
    let mut by_ref: BTreeMap<String, String> = BTreeMap::new();
    for (name, block) in &blocks {
        let Value::Table(block) = block else {
            return Err(bad(format!("remotes.{name}"), "expected a table"));
        };
        let reference = match block.get("project_id") {
            Some(Value::String(s)) => match doc::env_reference(s) {
                Some(var) => env(var).unwrap_or_default(),
                None => s.clone(),
            },
            _ => String::new(),
        };
        if reference.len() != 20 || !reference.bytes().all(|b| b.is_ascii_lowercase()) {
            return Err(bad(
                format!("remotes.{name}.project_id"),
                "Invalid config: must be like abcdefghijklmnopqrst",
            ));
        }
        if let Some(other) = by_ref.insert(reference.clone(), name.clone()) {
            return Err(bad(
                format!("remotes.{name}.project_id"),
                &format!("duplicate project_id for [remotes.{name}] and [remotes.{other}]"),
            ));
        }
        refs.insert(name.clone(), reference);
    }
    let own = env("SUPABASE_PROJECT_ID").or_else(|| match root.get("project_id") {
        Some(Value::String(s)) => Some(s.clone()),
        _ => None,
    });
    let mut set = BTreeSet::new();
    if let Some(name) = own.as_ref().and_then(|id| by_ref.get(id))
        && let Some(Value::Table(block)) = blocks.get(name)
    {
        let mut leaves = Vec::new();
        for (k, v) in block {
            collect_leaves(v, vec![k.clone()], &mut leaves);
        }
        let leaves: Vec<(Vec<String>, Value)> =
            leaves.into_iter().map(|(p, v)| (p, v.clone())).collect();
        for (path, value) in leaves {
            merge_leaf(root, &path, value);
            set.insert(path);
        }
        let seed = vec!["db".to_string(), "seed".into(), "enabled".into()];
        if !set.contains(&seed) {
            merge_leaf(root, &seed, Value::Boolean(false));
            set.insert(seed);
        }
    }
    Ok((refs, set))
}

fn merge_leaf(root: &mut toml::Table, path: &[String], value: Value) {
    let Some((last, parents)) = path.split_last() else {
        return;
    };
    let mut table = root;
    for p in parents {
        let entry = table
            .entry(p.clone())
            .or_insert_with(|| Value::Table(Default::default()));
        if !entry.is_table() {
            *entry = Value::Table(Default::default());
        }
        let Value::Table(t) = entry else { return };
        table = t;
    }
    table.insert(last.clone(), value);
}

fn read_buckets(doc: &mut Doc) -> Result<BTreeMap<String, Bucket>, ConfigError> {
    let names: Vec<String> = match doc.lookup(&["storage", "buckets"]) {
        None => return Ok(BTreeMap::new()),
        Some(Value::Table(t)) => t.keys().cloned().collect(),
        Some(other) => {
            return Err(doc.err(
                &["storage", "buckets"],
                format!("expected [storage.buckets.NAME] tables, got {other}"),
            ));
        }
    };
    let mut out = BTreeMap::new();
    for name in names {
        let base = ["storage", "buckets", name.as_str()];
        if !matches!(doc.lookup(&base), Some(Value::Table(_))) {
            return Err(doc.err(&base, "expected a table of bucket settings"));
        }
        if name.is_empty() || name.len() > 100 || name.contains('/') {
            return Err(doc.err(&base, "a bucket name has 1 to 100 characters and no '/'"));
        }
        let bucket: Bucket = doc.section(&base, &[])?;
        let known = [
            "public",
            "file_size_limit",
            "allowed_mime_types",
            "objects_path",
        ];
        if let Some(Value::Table(t)) = doc.lookup(&base)
            && let Some(other) = t.keys().find(|k| !known.contains(&k.as_str()))
        {
            let other = other.clone();
            return Err(doc.err(
                &[base[0], base[1], base[2], &other],
                "unknown bucket setting (use public, file_size_limit, allowed_mime_types, objects_path)",
            ));
        }
        out.insert(name.clone(), bucket);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Loaded, ConfigError> {
        Config::parse(Path::new("supabase/config.toml"), text, &|name| {
            (name == "SITE").then(|| "https://shop.example".to_string())
        })
    }

    #[test]
    fn an_empty_file_is_the_cli_defaults() {
        let l = parse("").unwrap();
        assert_eq!(l.config, Config::default());
        assert!(l.ignored.is_empty());
    }

    #[test]
    fn phone_sign_ins_and_their_provider() {
        let l = parse(
            r#"
            [auth.sms]
            enable_signup = true
            max_frequency = "1m"
            [auth.sms.test_otp]
            "+15555550100" = "123456"
            [auth.sms.twilio]
            enabled = true
            account_sid = "AC1"
            message_service_sid = "MG1"
            auth_token = "env(SITE)"
            [auth.oauth_server]
            enabled = true
            authorization_url_path = "/consent"
            "#,
        )
        .unwrap();
        let a = l.config.auth;
        assert!(a.sms.enable_signup && !a.sms.enable_confirmations);
        assert_eq!(a.sms.max_frequency, 60);
        assert_eq!(a.sms.test_otp["15555550100"], "123456");
        assert_eq!(a.sms.provider(), Some(("twilio", true)));
        let t = a.sms.twilio.unwrap();
        assert_eq!(
            (t.account_sid.as_str(), t.auth_token.as_str()),
            ("AC1", "https://shop.example")
        );
        // A secret whose variable is unset is no secret: the local catcher stands in.
        let unset = parse("[auth.sms.vonage]\nenabled = true\napi_secret = \"env(UNSET)\"\n")
            .unwrap()
            .config
            .auth
            .sms;
        assert_eq!(unset.provider(), Some(("vonage", false)));
        assert!(a.oauth_server.enabled && !a.oauth_server.allow_dynamic_registration);
        assert_eq!(a.oauth_server.authorization_url_path, "/consent");
        assert!(l.ignored.is_empty(), "{:?}", l.ignored);
    }

    #[test]
    fn values_sizes_buckets_and_env() {
        let l = parse(
            r#"
            project_id = "shop"
            [api]
            port = 6000
            schemas = ["public", "api"]
            max_rows = 50
            [db]
            port = 6001
            [db.seed]
            sql_paths = ["./seeds/*.sql"]
            [auth]
            site_url = "env(SITE)"
            jwt_expiry = 600
            [auth.rate_limit]
            sign_in_sign_ups = 5
            [storage]
            file_size_limit = "20mb"
            [storage.buckets.images]
            public = true
            file_size_limit = "5MiB"
            allowed_mime_types = ["image/png"]
            "#,
        )
        .unwrap();
        let c = l.config;
        assert_eq!(c.project_id.as_deref(), Some("shop"));
        assert_eq!((c.api.port, c.db.port, c.api.max_rows), (6000, 6001, 50));
        assert_eq!(c.api.schemas, ["public", "api"]);
        assert_eq!(c.db.seed_paths, ["./seeds/*.sql"]);
        assert_eq!(c.auth.site_url, "https://shop.example");
        assert_eq!(c.auth.rate_limit.sign_in_sign_ups, 5);
        assert_eq!(c.storage.file_size_limit, 20_971_520);
        let b = &c.storage.buckets["images"];
        assert_eq!(b.public, Some(true));
        assert_eq!(b.file_size_limit, Some(5 * 1024 * 1024));
        assert_eq!(
            b.allowed_mime_types.as_deref(),
            Some(&["image/png".to_string()][..])
        );
        assert!(l.ignored.is_empty(), "{:?}", l.ignored);
    }

    #[test]
    fn env_reads_into_every_kind_of_field() {
        let env = |name: &str| {
            [
                ("PORT", "6100"),
                ("ROWS", "25"),
                ("OFF", "false"),
                ("FREQ", "2s"),
                ("SIZE", "5MiB"),
                ("SCHEMA", "api"),
                ("MAJOR", "17"),
            ]
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.to_string())
        };
        let text = r#"
            [api]
            port = "env(PORT)"
            max_rows = "env(ROWS)"
            schemas = ["public", "env(SCHEMA)"]
            [auth]
            enable_signup = "env(OFF)"
            [auth.email]
            max_frequency = "env(FREQ)"
            [storage]
            file_size_limit = "env(SIZE)"
            [db]
            major_version = "env(MAJOR)"
            [db.vault]
            project_url = "env(PORT)"
            unset = "env(NOPE)"
            plain = "x"
        "#;
        let c = Config::parse(Path::new("supabase/config.toml"), text, &env)
            .unwrap()
            .config;
        assert_eq!((c.api.port, c.api.max_rows), (6100, 25));
        assert_eq!(c.api.schemas, ["public", "api"]);
        assert!(!c.auth.enable_signup);
        assert_eq!(c.auth.email.max_frequency, 2);
        assert_eq!(c.storage.file_size_limit, 5 * 1024 * 1024);
        assert_eq!(c.db.major_version, Some(17));
        let vault: Vec<(&str, &str)> =
            c.db.vault
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str()))
                .collect();
        assert_eq!(vault, [("plain", "x"), ("project_url", "6100")]);
        let cases = [
            (
                "[api]\nport = \"env(NOPE)\"",
                "the environment variable NOPE is not set",
            ),
            (
                "[api]\nport = \"env(FREQ)\"",
                "got \"2s\" (from the environment variable FREQ)",
            ),
            (
                "[auth]\nenable_signup = \"env(PORT)\"",
                "from the environment variable PORT",
            ),
        ];
        for (text, says) in cases {
            let e = Config::parse(Path::new("supabase/config.toml"), text, &env)
                .unwrap_err()
                .to_string();
            assert!(e.contains(says), "{text} → {e}");
        }
    }

    #[test]
    fn bad_values_name_the_file_key_and_reason() {
        let cases = [
            ("[api]\nport = \"abc\"", "api.port", "whole number"),
            ("[api]\nport = 70000", "api.port", "65535"),
            (
                "[storage]\nfile_size_limit = \"lots\"",
                "storage.file_size_limit",
                "not a size",
            ),
            (
                "[auth]\nenable_signup = 3",
                "auth.enable_signup",
                "true or false",
            ),
            ("[auth]\njwt_expiry = 10", "auth.jwt_expiry", "30 to 604800"),
            (
                "[storage.buckets.a]\npublik = true",
                "storage.buckets.a.publik",
                "unknown bucket",
            ),
            (
                "[auth]\npassword_requirements = \"strong\"",
                "auth.password_requirements",
                "not one of",
            ),
        ];
        for (text, key, reason) in cases {
            let e = parse(text).unwrap_err().to_string();
            assert!(e.starts_with("supabase/config.toml: "), "{e}");
            assert!(e.contains(key) && e.contains(reason), "{text} → {e}");
        }
        let e = parse("[api\nport = 1").unwrap_err().to_string();
        assert!(e.contains("not valid TOML"), "{e}");
    }

    #[test]
    fn supabase_variables_override_every_key() {
        let vars = [
            ("SUPABASE_AUTH_SITE_URL", "https://env.example"),
            ("SUPABASE_DB_PORT", "6543"),
            ("SUPABASE_API_SCHEMAS", "public,api"),
            ("SUPABASE_AUTH_ENABLE_SIGNUP", "F"),
            ("SUPABASE_AUTH_EXTERNAL_GITHUB_CLIENT_ID", "gh-id"),
            ("SUPABASE_STORAGE_BUCKETS_IMAGES_PUBLIC", "true"),
            ("SUPABASE_API_PORT", "not-a-port"),
            ("SITE", "https://site.example"),
        ];
        let env = |name: &str| {
            vars.iter()
                .find(|(n, _)| *n == name && *n != "SUPABASE_API_PORT")
                .map(|(_, v)| v.to_string())
        };
        let text = r#"
            [auth]
            site_url = "env(SITE)"
            [auth.external.github]
            enabled = true
            client_id = "file-id"
            secret = "s"
            [storage.buckets.images]
            public = false
        "#;
        let l = Config::parse(Path::new("supabase/config.toml"), text, &env).unwrap();
        let c = l.config;
        assert_eq!(c.auth.site_url, "https://env.example");
        assert_eq!(c.db.port, 6543);
        assert_eq!(c.api.schemas, ["public", "api"]);
        assert!(!c.auth.enable_signup);
        assert_eq!(c.auth.external["github"].client_id, "gh-id");
        assert_eq!(c.storage.buckets["images"].public, Some(true));
        assert!(l.ignored.is_empty(), "{:?}", l.ignored);
        // A bad value names its variable.
        let env = |name: &str| {
            vars.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.to_string())
        };
        let e = Config::parse(Path::new("supabase/config.toml"), "", &env)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("api.port") && e.contains("environment variable SUPABASE_API_PORT"),
            "{e}"
        );
    }

    #[test]
    fn remotes_are_read_and_checked_and_apply_only_to_their_project() {
        let text = r#"
            project_id = "shop"
            [db.seed]
            enabled = true
            [remotes.staging]
            project_id = "abcdefghijklmnopqrst"
            [remotes.staging.auth]
            site_url = "https://staging.example"
        "#;
        let l = parse(text).unwrap();
        assert_eq!(l.config.remotes["staging"], "abcdefghijklmnopqrst");
        assert_eq!(l.config.auth.site_url, "http://127.0.0.1:3000");
        assert!(l.config.db.seed_enabled);
        assert!(l.ignored.is_empty(), "{:?}", l.ignored);
        // The linked project's own id: its block is merged, the seed off unless it says so.
        let merged = Config::parse(Path::new("supabase/config.toml"), text, &|n| {
            (n == "SUPABASE_PROJECT_ID").then(|| "abcdefghijklmnopqrst".to_string())
        })
        .unwrap()
        .config;
        assert_eq!(merged.auth.site_url, "https://staging.example");
        assert!(!merged.db.seed_enabled);
        let cases = [
            (
                "[remotes.a]\nproject_id = \"short\"",
                "must be like abcdefghijklmnopqrst",
            ),
            (
                "[remotes.a]\nproject_id = \"abcdefghijklmnopqrst\"\n[remotes.b]\nproject_id = \"abcdefghijklmnopqrst\"",
                "duplicate project_id for [remotes.b] and [remotes.a]",
            ),
        ];
        for (text, says) in cases {
            let e = parse(text).unwrap_err().to_string();
            assert!(e.contains(says), "{text} → {e}");
        }
    }

    #[test]
    fn db_settings_are_the_clis_postgresql_settings() {
        let l = parse(
            r#"
            [db.settings]
            max_wal_size = "2GB"
            max_connections = 200
            track_commit_timestamp = true
            session_replication_role = "origin"
            statement_timeout = "8s"
            "#,
        )
        .unwrap();
        let got: Vec<(&str, &str)> = l
            .config
            .db
            .settings
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("max_connections", "200"),
                ("max_wal_size", "2GB"),
                ("session_replication_role", "origin"),
                ("statement_timeout", "8s"),
                ("track_commit_timestamp", "on"),
            ]
        );
        assert!(l.ignored.is_empty(), "{:?}", l.ignored);
        let cases = [
            (
                "[db.settings]\nfsync = false",
                "db.settings.fsync",
                "not a setting",
            ),
            (
                "[db.settings]\nwork_mem = \"4MB; rm\"",
                "db.settings.work_mem",
                "not a PostgreSQL value",
            ),
            (
                "[db.settings]\nmax_connections = -1",
                "db.settings.max_connections",
                "whole number",
            ),
            (
                "[db.settings]\nsession_replication_role = \"x\"",
                "session_replication_role",
                "origin",
            ),
        ];
        for (text, key, says) in cases {
            let e = parse(text).unwrap_err().to_string();
            assert!(e.contains(key) && e.contains(says), "{text} → {e}");
        }
    }

    /// Every key of the CLI's config structs, set to a value other than its default, is read
    /// by supagate (used, or refused with its name), or named in the not-implemented warning,
    /// or out of scope by design: never dropped without a word.
    #[test]
    fn every_cli_key_is_read_named_or_out_of_scope() {
        let candidates = [
            "true",
            "false",
            "7",
            "\"7s\"",
            "\"x\"",
            "[\"x\"]",
            "\"https://x.example\"",
        ];
        let (mut read, mut named, mut out) = (Vec::new(), Vec::new(), Vec::new());
        for pattern in keys::CLI_KEYS {
            let key = pattern.replace("*", "x");
            let path: Vec<String> = key.split('.').map(String::from).collect();
            if path[0] == "remotes" || OUT_OF_SCOPE.iter().any(|o| starts_with(o, &path)) {
                out.push(key);
                continue;
            }
            let (table, leaf) = key.rsplit_once('.').unwrap_or(("", &key));
            let mut verdict = None;
            for (switched, value) in [true, false]
                .into_iter()
                .flat_map(|s| candidates.iter().map(move |v| (s, *v)))
            {
                if verdict.is_some() && !switched {
                    break;
                }
                // A feature's keys are read when it is switched on, as in the CLI.
                let switch = pattern
                    .rsplit_once('.')
                    .map(|(t, _)| format!("{t}.enabled"))
                    .filter(|k| {
                        switched && leaf != "enabled" && keys::CLI_KEYS.contains(&k.as_str())
                    })
                    .map(|_| "enabled = true\n")
                    .unwrap_or("");
                let text = if table.is_empty() {
                    format!("{leaf} = {value}\n")
                } else {
                    format!("[{table}]\n{switch}{leaf} = {value}\n")
                };
                match parse(&text) {
                    // Refused, naming the key (or its table: an unknown template name).
                    Err(e)
                        if (2..=path.len()).any(|n| {
                            e.to_string()
                                .contains(&format!(": {}:", path[..n].join(".")))
                        }) =>
                    {
                        verdict = Some(true)
                    }
                    Err(_) => {}
                    Ok(l) => {
                        let reported = l.ignored.iter().any(|i| starts_with(i, &path));
                        verdict = Some(!reported);
                        if !reported {
                            break;
                        }
                    }
                }
            }
            match verdict {
                Some(true) => read.push(key),
                Some(false) => named.push(key),
                None => panic!("{key}: no value parsed, and no error named it"),
            }
        }
        eprintln!(
            "{} keys: {} read, {} named as not implemented, {} out of scope\nnamed: {named:?}",
            keys::CLI_KEYS.len(),
            read.len(),
            named.len(),
            out.len()
        );
        assert_eq!(read.len() + named.len() + out.len(), keys::CLI_KEYS.len());
        for key in [
            "auth.site_url",
            "db.settings.max_wal_size",
            "db.port",
            "api.schemas",
            "auth.hook.send_email.secrets",
            "auth.third_party.workos.issuer_url",
            "auth.sessions.inactivity_timeout",
            "auth.captcha.provider",
            "auth.jwt_issuer",
            "auth.external_url",
            "auth.web3.solana.enabled",
            "auth.web3.ethereum.enabled",
            "auth.rate_limit.web3",
        ] {
            assert!(read.contains(&key.to_string()), "{key}");
        }
    }

    #[test]
    fn only_changed_unimplemented_keys_are_reported() {
        let l = parse(
            r#"
            [realtime]
            enabled = true
            [studio]
            port = 54323
            [auth.web3.solana]
            enabled = true
            [auth.mfa.totp]
            enroll_enabled = false
            [auth.external.github]
            enabled = false
            client_id = "x"
            [auth.external.google]
            enabled = true
            [auth.rate_limit]
            web3 = 5
            [api]
            max_row = 5
            "#,
        )
        .unwrap();
        assert_eq!(l.ignored, ["api.max_row"]);
        assert!(l.config.auth.web3.solana && !l.config.auth.web3.ethereum);
        assert_eq!(l.config.auth.rate_limit.web3, 5);
    }
}
