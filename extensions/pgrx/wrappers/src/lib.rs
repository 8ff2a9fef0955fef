//! supagate's wrappers 0.4.4: the SQL surface of Supabase's foreign data wrapper framework
//! (supabase/wrappers, the version Supabase's PostgreSQL 15 image ships), so that a project's
//! migrations that create its foreign data wrappers, servers and foreign tables apply as they do
//! on Supabase.
//!
//! For every wrapper that release builds (`all_fdws`: Airtable, Auth0, BigQuery, ClickHouse,
//! Cognito, Firebase, Logflare, SQL Server, Redis, S3, Stripe and Wasm) the install script
//! (`wrappers--0.4.4.sql`) declares upstream's three functions: `<name>_fdw_handler()` (the
//! `fdw_handler`), `<name>_fdw_validator(options text[], catalog oid)` and `<name>_fdw_meta()`
//! (name, version, author, website), with `<name>` upstream's snake case of its Rust type
//! (`big_query`, `click_house`). The validators require the options upstream's require, with its
//! error texts and SQLSTATEs; `import foreign schema` imports nothing, as none of 0.4.4's wrappers
//! implements it. Stripe's wrapper reads for real (`stripe.rs`: its `api_url`, a local stand-in
//! in tests, with the key from `api_key` or Vault's `api_key_id`), and so does S3's (`s3.rs`:
//! CSV, JSON Lines and Parquet objects from any S3 endpoint, SeaweedFS in tests), both on the
//! scan of `scan.rs`. The services the other wrappers talk to are hosted ones supagate does not
//! stand in for, so planning a query on one of their foreign tables (a scan, an insert, an
//! update, a delete), or a write to Stripe's or S3's, fails with "<name> wrapper is not
//! supported in supagate: <reason>" (`feature_not_supported`).

use pgrx::pg_sys;
use pgrx::pg_sys::panic::ErrorReport;
use pgrx::prelude::*;
use pgrx::{PgBox, PgLogLevel};

mod s3;
mod scan;
mod stripe;

pg_module_magic!();

/// Loads the library: registers `wrappers.supagate_allow_local`.
#[pg_guard]
pub extern "C-unwind" fn _PG_init() {
    scan::init();
}

/// What a validator requires of the options of one catalog (server or foreign table).
enum Check {
    /// Nothing.
    Nothing,
    /// Each of these options, in this order.
    Options(&'static [&'static str]),
    /// Auth0's server: `url`, and exactly one of `api_key` and `api_key_id`.
    Auth0Server,
    /// Cognito's server: the AWS keys, with exactly one of `aws_secret_access_key` and
    /// `api_key_id`.
    CognitoServer,
}

/// One of upstream's wrappers.
struct Wrapper {
    /// The name its documentation gives it, in the error a query gets.
    label: &'static str,
    /// Its Rust type's name upstream, what `<name>_fdw_meta()` answers as `name`.
    type_name: &'static str,
    /// Its folder in upstream's repository (`website`).
    folder: &'static str,
    /// Its own version in wrappers 0.4.4.
    version: &'static str,
    author: &'static str,
    server: Check,
    table: Check,
    /// Why a query cannot run here.
    reason: &'static str,
}

const AIRTABLE: usize = 0;
const AUTH0: usize = 1;
const BIG_QUERY: usize = 2;
const CLICK_HOUSE: usize = 3;
const COGNITO: usize = 4;
const FIREBASE: usize = 5;
const LOGFLARE: usize = 6;
const MSSQL: usize = 7;
const REDIS: usize = 8;
const S3: usize = 9;
pub(crate) const STRIPE: usize = 10;

/// The way wrapper `W` (one that reads: Stripe or S3) opens its rows.
fn opener<const W: usize>() -> scan::Open {
    if W == STRIPE { stripe::open } else { s3::open }
}
const WASM: usize = 11;

/// The wrappers, indexed by the constants above.
static WRAPPERS: [Wrapper; 12] = [
    Wrapper {
        label: "Airtable",
        type_name: "AirtableFdw",
        folder: "airtable_fdw",
        version: "0.1.4",
        author: "Ankur Goyal",
        server: Check::Nothing,
        table: Check::Options(&["base_id", "table_id"]),
        reason: "it reads Airtable's hosted API, which supagate does not stand in for",
    },
    Wrapper {
        label: "Auth0",
        type_name: "Auth0Fdw",
        folder: "auth0_fdw",
        version: "0.1.2",
        author: "Joel",
        server: Check::Auth0Server,
        table: Check::Options(&["object"]),
        reason: "it reads Auth0's hosted management API, which supagate does not stand in for",
    },
    Wrapper {
        label: "BigQuery",
        type_name: "BigQueryFdw",
        folder: "bigquery_fdw",
        version: "0.1.5",
        author: "Supabase",
        server: Check::Nothing,
        table: Check::Nothing,
        reason: "it queries Google BigQuery, a hosted service supagate does not stand in for",
    },
    Wrapper {
        label: "ClickHouse",
        type_name: "ClickHouseFdw",
        folder: "clickhouse_fdw",
        version: "0.1.5",
        author: "Supabase",
        server: Check::Nothing,
        table: Check::Nothing,
        reason: "it speaks ClickHouse's native protocol, which supagate has no client for",
    },
    Wrapper {
        label: "Cognito",
        type_name: "CognitoFdw",
        folder: "cognito_fdw",
        version: "0.1.3",
        author: "Joel",
        server: Check::CognitoServer,
        table: Check::Options(&["object"]),
        reason: "it reads AWS Cognito user pools, a hosted service supagate does not stand in for",
    },
    Wrapper {
        label: "Firebase",
        type_name: "FirebaseFdw",
        folder: "firebase_fdw",
        version: "0.1.3",
        author: "Supabase",
        server: Check::Nothing,
        table: Check::Options(&["object"]),
        reason: "it reads Google Firebase, a hosted service supagate does not stand in for",
    },
    Wrapper {
        label: "Logflare",
        type_name: "LogflareFdw",
        folder: "logflare_fdw",
        version: "0.1.1",
        author: "Supabase",
        server: Check::Nothing,
        table: Check::Options(&["endpoint"]),
        reason: "it queries Logflare's hosted endpoints, which supagate does not stand in for",
    },
    Wrapper {
        label: "SQL Server",
        type_name: "MssqlFdw",
        folder: "mssql_fdw",
        version: "0.1.2",
        author: "Supabase",
        server: Check::Nothing,
        table: Check::Nothing,
        reason: "it speaks SQL Server's TDS protocol, which supagate has no client for",
    },
    Wrapper {
        label: "Redis",
        type_name: "RedisFdw",
        folder: "redis_fdw",
        version: "0.1.1",
        author: "Supabase",
        server: Check::Nothing,
        table: Check::Nothing,
        reason: "it speaks the Redis protocol, which supagate has no client for",
    },
    Wrapper {
        label: "S3",
        type_name: "S3Fdw",
        folder: "s3_fdw",
        version: "0.1.4",
        author: "Supabase",
        server: Check::Nothing,
        table: Check::Options(&["uri", "format"]),
        // Only modifications are refused: scans work (src/s3.rs).
        reason: "writing is not, the S3 wrapper only reads",
    },
    Wrapper {
        label: "Stripe",
        type_name: "StripeFdw",
        folder: "stripe_fdw",
        version: "0.1.11",
        author: "Supabase",
        server: Check::Nothing,
        table: Check::Options(&["object"]),
        // Only modifications are refused: scans work (src/stripe.rs).
        reason: "writing is not, supagate's Stripe wrapper only reads",
    },
    Wrapper {
        label: "Wasm",
        type_name: "WasmFdw",
        folder: "wasm_fdw",
        version: "0.1.4",
        author: "Supabase",
        server: Check::Options(&["fdw_package_url", "fdw_package_name", "fdw_package_version"]),
        table: Check::Nothing,
        reason: "it downloads and runs WebAssembly wrapper packages, and supagate has no WebAssembly runtime",
    },
];

/// Raises an ERROR with `code` and `message`.
pub(crate) fn raise(code: PgSqlErrorCode, message: String) -> ! {
    ErrorReport::new(code, message, "").report(PgLogLevel::ERROR);
    unreachable!("an ERROR report does not return")
}

/// Whether `options` (`name=value` strings, as PostgreSQL passes them) has one named `name`.
fn has(options: &[Option<String>], name: &str) -> bool {
    options.iter().flatten().any(|option| {
        option
            .strip_prefix(name)
            .is_some_and(|rest| rest.starts_with('='))
    })
}

/// Raises upstream's error for a missing required option.
fn require(options: &[Option<String>], name: &str) {
    if !has(options, name) {
        raise(
            PgSqlErrorCode::ERRCODE_FDW_OPTION_NAME_NOT_FOUND,
            format!("required option `{name}` is not specified"),
        );
    }
}

/// Checks `options` against `check`, raising upstream's error for the first thing missing.
fn check(check: &Check, options: &[Option<String>]) {
    match check {
        Check::Nothing => {}
        Check::Options(names) => names.iter().for_each(|name| require(options, name)),
        Check::Auth0Server => {
            if has(options, "api_key") == has(options, "api_key_id") {
                raise(
                    PgSqlErrorCode::ERRCODE_FDW_ERROR,
                    "exactly one of `api_key` or `api_key_id` options must be set".into(),
                );
            }
            if !has(options, "url") {
                raise(
                    PgSqlErrorCode::ERRCODE_FDW_ERROR,
                    "`url` option must be set".into(),
                );
            }
        }
        Check::CognitoServer => {
            let secret = has(options, "aws_secret_access_key");
            if !has(options, "aws_access_key_id") && !secret {
                raise(
                    PgSqlErrorCode::ERRCODE_FDW_ERROR,
                    "both `api_key` and `api_secret_key` options must be set".into(),
                );
            }
            if has(options, "api_key_id") == secret {
                raise(
                    PgSqlErrorCode::ERRCODE_FDW_ERROR,
                    "exactly one of `aws_secret_access_key` or `api_key_id` options must be set"
                        .into(),
                );
            }
        }
    }
}

/// The validator of wrapper `index`: the server's and the foreign table's options are checked,
/// those of the wrapper itself and of user mappings are not (as upstream).
fn validate(index: usize, options: &[Option<String>], catalog: Option<pg_sys::Oid>) {
    let wrapper = &WRAPPERS[index];
    match catalog {
        Some(oid) if oid == pg_sys::ForeignServerRelationId => check(&wrapper.server, options),
        Some(oid) if oid == pg_sys::ForeignTableRelationId => check(&wrapper.table, options),
        _ => {}
    }
}

/// The row `<name>_fdw_meta()` returns: name, version, author, website.
type Meta = (
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
);

/// The one row of `<name>_fdw_meta()` for wrapper `index`.
fn meta(index: usize) -> TableIterator<'static, Meta> {
    let wrapper = &WRAPPERS[index];
    TableIterator::once((
        Some(wrapper.type_name.to_owned()),
        Some(wrapper.version.to_owned()),
        Some(wrapper.author.to_owned()),
        Some(format!(
            "https://github.com/supabase/wrappers/tree/main/wrappers/src/fdw/{}",
            wrapper.folder
        )),
    ))
}

/// Raises the error a query on a foreign table of wrapper `W` gets.
fn refuse<const W: usize>() -> ! {
    let wrapper = &WRAPPERS[W];
    raise(
        PgSqlErrorCode::ERRCODE_FEATURE_NOT_SUPPORTED,
        format!(
            "{} wrapper is not supported in supagate: {}",
            wrapper.label, wrapper.reason
        ),
    )
}

/// `GetForeignRelSize`, the first callback planning a scan of a foreign table makes: refuses it.
///
/// # Safety
/// Called by PostgreSQL's planner.
unsafe extern "C-unwind" fn refuse_scan<const W: usize>(
    _root: *mut pg_sys::PlannerInfo,
    _baserel: *mut pg_sys::RelOptInfo,
    _table: pg_sys::Oid,
) {
    // SAFETY: the guard runs the closure once on this thread and turns the Rust-side ERROR into
    // PostgreSQL's longjmp.
    unsafe { pg_sys::submodules::panic::pgrx_extern_c_guard(|| refuse::<W>()) }
}

/// `PlanForeignModify`, called when planning an insert, update or delete: refuses it.
///
/// # Safety
/// Called by PostgreSQL's planner.
unsafe extern "C-unwind" fn refuse_modify<const W: usize>(
    _root: *mut pg_sys::PlannerInfo,
    _plan: *mut pg_sys::ModifyTable,
    _relation: pg_sys::Index,
    _subplan: core::ffi::c_int,
) -> *mut pg_sys::List {
    // SAFETY: as in refuse_scan.
    unsafe { pg_sys::submodules::panic::pgrx_extern_c_guard(|| refuse::<W>()) }
}

/// `ImportForeignSchema`: no statements (none of wrappers 0.4.4's wrappers imports anything).
///
/// # Safety
/// Called by PostgreSQL's `IMPORT FOREIGN SCHEMA`.
unsafe extern "C-unwind" fn import_nothing(
    _stmt: *mut pg_sys::ImportForeignSchemaStmt,
    _server: pg_sys::Oid,
) -> *mut pg_sys::List {
    std::ptr::null_mut()
}

/// The `FdwRoutine` of wrapper `W`, allocated in the current memory context, as a datum:
/// scans and modifications refused, then `adjust` applied.
pub(crate) fn routine_refusing<const W: usize>(
    adjust: impl FnOnce(&mut pg_sys::FdwRoutine),
) -> pg_sys::Datum {
    // SAFETY: a palloc'd zeroed node of the right tag, filled with callbacks of the right types.
    let mut routine =
        unsafe { PgBox::<pg_sys::FdwRoutine>::alloc_node(pg_sys::NodeTag::T_FdwRoutine) };
    routine.GetForeignRelSize = Some(refuse_scan::<W>);
    routine.PlanForeignModify = Some(refuse_modify::<W>);
    routine.ImportForeignSchema = Some(import_nothing);
    adjust(&mut routine);
    pg_sys::Datum::from(routine.into_pg())
}

/// The `FdwRoutine` of wrapper `W`: every query refused (Stripe's and S3's reads work).
fn routine<const W: usize>() -> pg_sys::Datum {
    if W == STRIPE || W == S3 {
        scan::routine::<W>()
    } else {
        routine_refusing::<W>(|_| {})
    }
}

/// Declares wrapper `$index`'s handler (a raw version-1 function, as `fdw_handler` is a
/// pseudo-type), validator and meta functions under upstream's names; the install script binds
/// each to its `_wrapper` symbol.
macro_rules! wrapper {
    ($index:ident, $finfo:ident, $handler:ident, $validator:ident, $meta:ident) => {
        #[doc = concat!("The version-1 record of `", stringify!($handler), "`.")]
        #[unsafe(no_mangle)]
        pub extern "C" fn $finfo() -> &'static pg_sys::Pg_finfo_record {
            const V1: pg_sys::Pg_finfo_record = pg_sys::Pg_finfo_record { api_version: 1 };
            &V1
        }

        #[doc = concat!("`", stringify!($handler), "`: the wrapper's `FdwRoutine`.")]
        ///
        /// # Safety
        /// Called by PostgreSQL's function manager.
        #[unsafe(no_mangle)]
        pub unsafe extern "C-unwind" fn $handler(
            _fcinfo: pg_sys::FunctionCallInfo,
        ) -> pg_sys::Datum {
            // SAFETY: the guard runs the closure once, on this thread.
            unsafe { pg_sys::submodules::panic::pgrx_extern_c_guard(routine::<$index>) }
        }

        #[doc = concat!("`", stringify!($validator), "(options text[], catalog oid)`.")]
        #[pg_extern]
        fn $validator(options: Vec<Option<String>>, catalog: Option<pg_sys::Oid>) {
            validate($index, &options, catalog)
        }

        #[doc = concat!("`", stringify!($meta), "()`: name, version, author, website.")]
        #[pg_extern]
        fn $meta() -> TableIterator<
            'static,
            (
                name!(name, Option<String>),
                name!(version, Option<String>),
                name!(author, Option<String>),
                name!(website, Option<String>),
            ),
        > {
            meta($index)
        }
    };
}

wrapper!(
    AIRTABLE,
    pg_finfo_airtable_fdw_handler_wrapper,
    airtable_fdw_handler_wrapper,
    airtable_fdw_validator,
    airtable_fdw_meta
);
wrapper!(
    AUTH0,
    pg_finfo_auth0_fdw_handler_wrapper,
    auth0_fdw_handler_wrapper,
    auth0_fdw_validator,
    auth0_fdw_meta
);
wrapper!(
    BIG_QUERY,
    pg_finfo_big_query_fdw_handler_wrapper,
    big_query_fdw_handler_wrapper,
    big_query_fdw_validator,
    big_query_fdw_meta
);
wrapper!(
    CLICK_HOUSE,
    pg_finfo_click_house_fdw_handler_wrapper,
    click_house_fdw_handler_wrapper,
    click_house_fdw_validator,
    click_house_fdw_meta
);
wrapper!(
    COGNITO,
    pg_finfo_cognito_fdw_handler_wrapper,
    cognito_fdw_handler_wrapper,
    cognito_fdw_validator,
    cognito_fdw_meta
);
wrapper!(
    FIREBASE,
    pg_finfo_firebase_fdw_handler_wrapper,
    firebase_fdw_handler_wrapper,
    firebase_fdw_validator,
    firebase_fdw_meta
);
wrapper!(
    LOGFLARE,
    pg_finfo_logflare_fdw_handler_wrapper,
    logflare_fdw_handler_wrapper,
    logflare_fdw_validator,
    logflare_fdw_meta
);
wrapper!(
    MSSQL,
    pg_finfo_mssql_fdw_handler_wrapper,
    mssql_fdw_handler_wrapper,
    mssql_fdw_validator,
    mssql_fdw_meta
);
wrapper!(
    REDIS,
    pg_finfo_redis_fdw_handler_wrapper,
    redis_fdw_handler_wrapper,
    redis_fdw_validator,
    redis_fdw_meta
);
wrapper!(
    S3,
    pg_finfo_s3_fdw_handler_wrapper,
    s3_fdw_handler_wrapper,
    s3_fdw_validator,
    s3_fdw_meta
);
wrapper!(
    STRIPE,
    pg_finfo_stripe_fdw_handler_wrapper,
    stripe_fdw_handler_wrapper,
    stripe_fdw_validator,
    stripe_fdw_meta
);
wrapper!(
    WASM,
    pg_finfo_wasm_fdw_handler_wrapper,
    wasm_fdw_handler_wrapper,
    wasm_fdw_validator,
    wasm_fdw_meta
);
