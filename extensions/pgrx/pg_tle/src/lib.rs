//! supagate's pg_tle 1.4: Trusted Language Extensions with the SQL surface of aws/pg_tle 1.4.0
//! (`pg_tle--1.4.0.sql` beside this crate). An extension is installed from SQL
//! (`pgtle.install_extension`, `install_extension_version_sql`, `install_update_path`,
//! `set_default_version`) and kept as upstream keeps it: functions in the `pgtle` schema named
//! `<name>.control` (the control file's text) and `<name>--<version>.sql` /
//! `<name>--<from>--<to>.sql` (the scripts), each depending on the pg_tle extension. A plain
//! `CREATE EXTENSION`, `ALTER EXTENSION … UPDATE` and `DROP EXTENSION` then work on it.
//!
//! How: a `ProcessUtility` hook (the library is in `shared_preload_libraries`, as upstream
//! requires and as supagate starts its clusters when the library is installed) sees
//! `CREATE EXTENSION` / `ALTER EXTENSION` of a name that has a `<name>.control` function, writes
//! the control and script files of every TLE of the database into a folder of this backend's own
//! (`base/pgsql_tmp/pgsql_tmp_pg_tle_<pid>`, which PostgreSQL empties at a restart after a crash)
//! beside links to the installation's own files, and points this backend's `my_exec_path` there
//! for that one statement, so PostgreSQL's own extension code (versions, update paths, requires,
//! schema, `pg_extension`, member dependencies) does the work, exactly as for a file-based
//! extension. `available_extensions()`, `available_extension_versions()` and
//! `extension_update_paths()` read PostgreSQL's own views the same way.
//!
//! Unsafe code: the hook, `my_exec_path` and `recordDependencyOn` are PostgreSQL's C interface.

use pgrx::JsonB;
use pgrx::pg_sys;
use pgrx::prelude::*;
use std::ffi::{CStr, CString, c_char};
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

pg_module_magic!();

/// The dollar quotes the script functions are written with; an extension's text may not hold them.
const OUTER: &str = "$_pgtle_o_$";
const INNER: &str = "$_pgtle_i_$";
/// PostgreSQL's MAXPGPATH (the size of `my_exec_path`) and NAMEDATALEN.
const MAXPGPATH: usize = 1024;
const NAMEDATALEN: usize = 64;
/// The most extensions `requires` may name (upstream's limit).
const REQUIRES_LIMIT: usize = 1024;

static mut NEXT_HOOK: pg_sys::ProcessUtility_hook_type = None;
/// Whether this backend's extension folder is pointed at the TLEs' files now.
static ACTIVE: AtomicBool = AtomicBool::new(false);

/// Installs the hook; as upstream, only from `shared_preload_libraries` (a hook loaded by one
/// backend would leave `CREATE EXTENSION` of a TLE failing in every other).
#[pg_guard]
pub extern "C-unwind" fn _PG_init() {
    // SAFETY: PostgreSQL calls this once as the library loads, before this backend runs anything.
    unsafe {
        if !pg_sys::process_shared_preload_libraries_in_progress {
            raise(
                PgSqlErrorCode::ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
                "pg_tle must be loaded via shared_preload_libraries".into(),
            );
        }
        NEXT_HOOK = pg_sys::ProcessUtility_hook;
        pg_sys::ProcessUtility_hook = Some(process_utility);
    }
}

fn raise(code: PgSqlErrorCode, message: String) -> ! {
    ereport!(ERROR, code, message);
}

/// Raises with a detail and/or a hint.
fn raise_with(
    code: PgSqlErrorCode,
    message: String,
    detail: Option<String>,
    hint: Option<String>,
) -> ! {
    let mut report = pgrx::pg_sys::panic::ErrorReport::new(code, message, "pg_tle");
    if let Some(d) = detail {
        report = report.set_detail(d);
    }
    if let Some(h) = hint {
        report = report.set_hint(h);
    }
    report.report(PgLogLevel::ERROR);
    unreachable!("an ERROR does not return")
}

fn internal(message: String) -> ! {
    raise(PgSqlErrorCode::ERRCODE_INTERNAL_ERROR, message)
}

#[pg_guard]
unsafe extern "C-unwind" fn process_utility(
    pstmt: *mut pg_sys::PlannedStmt,
    query: *const c_char,
    read_only_tree: bool,
    context: pg_sys::ProcessUtilityContext::Type,
    params: pg_sys::ParamListInfo,
    query_env: *mut pg_sys::QueryEnvironment,
    dest: *mut pg_sys::DestReceiver,
    qc: *mut pg_sys::QueryCompletion,
) {
    // SAFETY: the arguments are PostgreSQL's own, passed on unchanged; the next hook (or the
    // standard function) is called through pgrx's guard so an ERROR unwinds as a Rust panic.
    let next = || unsafe {
        match NEXT_HOOK {
            Some(hook) => pg_sys::ffi::pg_guard_ffi_boundary(|| {
                hook(
                    pstmt,
                    query,
                    read_only_tree,
                    context,
                    params,
                    query_env,
                    dest,
                    qc,
                )
            }),
            None => pg_sys::standard_ProcessUtility(
                pstmt,
                query,
                read_only_tree,
                context,
                params,
                query_env,
                dest,
                qc,
            ),
        }
    };
    // SAFETY: the statement PostgreSQL is running.
    let name = unsafe { extension_statement((*pstmt).utilityStmt) };
    match name {
        Some(name) if is_tle(&name) => with_tle_files(true, next),
        _ => next(),
    }
}

/// The extension a `CREATE EXTENSION` or `ALTER EXTENSION … UPDATE` names.
unsafe fn extension_statement(node: *mut pg_sys::Node) -> Option<String> {
    if node.is_null() {
        return None;
    }
    // SAFETY: the node's tag says which statement it is.
    let name = unsafe {
        match (*node).type_ {
            pg_sys::NodeTag::T_CreateExtensionStmt => {
                (*(node as *mut pg_sys::CreateExtensionStmt)).extname
            }
            pg_sys::NodeTag::T_AlterExtensionStmt => {
                (*(node as *mut pg_sys::AlterExtensionStmt)).extname
            }
            _ => return None,
        }
    };
    if name.is_null() {
        return None;
    }
    // SAFETY: a NUL-terminated string of the parse tree.
    Some(
        unsafe { CStr::from_ptr(name) }
            .to_string_lossy()
            .into_owned(),
    )
}

/// Whether pg_tle is created in this database and `name` is one of its extensions.
fn is_tle(name: &str) -> bool {
    // SAFETY: a catalog lookup in the statement's transaction.
    let installed = unsafe { pg_sys::get_extension_oid(c"pg_tle".as_ptr(), true) };
    installed != pg_sys::InvalidOid && tle_function(&format!("{name}.control")).is_some()
}

/// The oid of `pgtle."<proname>"()`, if there is one (a scalar subquery: always one row).
fn tle_function(proname: &str) -> Option<pg_sys::Oid> {
    Spi::get_one_with_args::<pg_sys::Oid>(
        "select (select p.oid from pg_catalog.pg_proc p where p.pronamespace = \
         pg_catalog.to_regnamespace('pgtle') and p.proname = $1::pg_catalog.name and p.pronargs = 0)",
        &[proname.into()],
    )
    .unwrap_or_else(|e| internal(format!("pg_tle could not read pg_proc: {e}")))
}

/// Every `pgtle."<x>.control"()` and `pgtle."<x>--….sql"()` function with the text it returns.
fn tle_files() -> Vec<(String, String)> {
    let names: Vec<String> = Spi::connect(|client| {
        client
            .select(
                "select p.proname::text from pg_catalog.pg_proc p \
                 where p.pronamespace = pg_catalog.to_regnamespace('pgtle') and p.pronargs = 0 \
                 and p.prorettype = 'pg_catalog.text'::pg_catalog.regtype \
                 and (p.proname like '%.control' or p.proname like '%--%.sql') order by 1",
                None,
                &[],
            )?
            .map(|row| row.get::<String>(1).map(Option::unwrap_or_default))
            .collect::<Result<Vec<_>, _>>()
    })
    .unwrap_or_else(|e| internal(format!("pg_tle could not read pg_proc: {e}")));
    names
        .into_iter()
        // No paths, and no secondary control files (`<name>--<version>.control`).
        .filter(|n| {
            !n.contains('/')
                && !n.starts_with('.')
                && (!n.ends_with(".control") || !n.contains("--"))
        })
        .map(|n| {
            let text = function_text(&n);
            (n, text)
        })
        .collect()
}

/// What `pgtle."<proname>"()` returns.
fn function_text(proname: &str) -> String {
    Spi::get_one::<String>(&format!("select pgtle.{}()", quote_ident(proname)))
        .unwrap_or_else(|e| internal(format!("pg_tle could not read {proname}: {e}")))
        .unwrap_or_default()
}

/// An identifier quoted when it needs to be, as PostgreSQL's `quote_identifier`.
fn quote_ident(name: &str) -> String {
    let c = CString::new(name).unwrap_or_default();
    // SAFETY: a NUL-terminated string in, a palloc'd (or the same) NUL-terminated string out.
    unsafe { CStr::from_ptr(pg_sys::quote_identifier(c.as_ptr())) }
        .to_string_lossy()
        .into_owned()
}

/// A string literal as PostgreSQL's `quote_literal_cstr` writes it.
fn quote_literal(s: &str) -> String {
    let body = s.replace('\'', "''");
    if s.contains('\\') {
        format!("E'{}'", body.replace('\\', "\\\\"))
    } else {
        format!("'{body}'")
    }
}

/// A control function's text as a control file, keeping only what a TLE may say (its
/// `default_version`, `comment`, `requires` and `schema`) and saying `relocatable`, `superuser`
/// and `trusted` false, as upstream forces them: a function written into pgtle by hand cannot ask
/// for a superuser's script (`trusted`), another `directory` or a `module_pathname`.
/// `key = E'…'` (quote_literal's form for values with backslashes, which the control file's
/// grammar reads without the `E`) becomes `key = '…'`.
fn control_file(text: &str) -> String {
    let mut out = String::from("relocatable = false\nsuperuser = false\ntrusted = false\n");
    for line in text.lines() {
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let key = key.trim();
        if !["default_version", "comment", "requires", "schema"].contains(&key) {
            continue;
        }
        let value = value.trim();
        let value = value
            .strip_prefix('E')
            .filter(|v| v.starts_with('\''))
            .unwrap_or(value);
        out.push_str(&format!("{key} = {value}\n"));
    }
    out
}

/// This backend's `my_exec_path`.
fn exec_path() -> String {
    // SAFETY: a NUL-terminated path of MAXPGPATH bytes set at backend start.
    unsafe { CStr::from_ptr(std::ptr::addr_of!(pg_sys::my_exec_path) as *const c_char) }
        .to_string_lossy()
        .into_owned()
}

fn set_exec_path(path: &str) {
    let bytes = path.as_bytes();
    assert!(bytes.len() < MAXPGPATH && !bytes.contains(&0));
    // SAFETY: my_exec_path is MAXPGPATH bytes; the path and its NUL fit (checked above).
    unsafe {
        let dst = std::ptr::addr_of_mut!(pg_sys::my_exec_path) as *mut u8;
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), dst, bytes.len());
        *dst.add(bytes.len()) = 0;
    }
}

/// The share folder PostgreSQL derives from an executable's path.
fn share_path(exec: &str) -> String {
    let exec = CString::new(exec).unwrap_or_default();
    let mut buf = [0 as c_char; MAXPGPATH];
    // SAFETY: get_share_path writes at most MAXPGPATH bytes, NUL-terminated.
    unsafe {
        pg_sys::get_share_path(exec.as_ptr(), buf.as_mut_ptr());
        CStr::from_ptr(buf.as_ptr()).to_string_lossy().into_owned()
    }
}

/// The installation's own `extension` folder.
fn extension_dir() -> PathBuf {
    Path::new(&share_path(&exec_path())).join("extension")
}

/// Whether `name` is a file-based extension of the installation.
fn file_based(name: &str) -> bool {
    extension_dir().join(format!("{name}.control")).exists()
}

fn io_error(path: &Path, e: std::io::Error) -> ! {
    raise(
        PgSqlErrorCode::ERRCODE_IO_ERROR,
        format!("pg_tle could not write \"{}\": {e}", path.display()),
    )
}

/// Links every entry of `from` into `to` except those `skip` names.
fn link_entries(from: &Path, to: &Path, skip: &dyn Fn(&str) -> bool) {
    let entries = std::fs::read_dir(from).unwrap_or_else(|e| io_error(from, e));
    for entry in entries.flatten() {
        let name = entry.file_name();
        if skip(&name.to_string_lossy()) {
            continue;
        }
        let link = to.join(&name);
        std::os::unix::fs::symlink(entry.path(), &link).unwrap_or_else(|e| io_error(&link, e));
    }
}

/// Runs `f` with this backend's extension folder holding the files of every TLE of the database
/// (and, when `system`, links to the installation's own share folder and extensions, so
/// `CASCADE` finds them), then puts `my_exec_path` back and removes the folder, error or not.
fn with_tle_files<R>(system: bool, f: impl FnOnce() -> R) -> R {
    // Already there (a TLE's script reading pgtle.available_extensions()): the files are in place.
    if ACTIVE.load(Ordering::Relaxed) {
        return f();
    }
    let files = tle_files();
    let tles: Vec<String> = files
        .iter()
        .filter_map(|(n, _)| n.strip_suffix(".control").map(str::to_string))
        .collect();
    // SAFETY: DataDir (absolute) and MyProcPid are set at backend start.
    let (data_dir, pid) = unsafe {
        (
            CStr::from_ptr(pg_sys::DataDir)
                .to_string_lossy()
                .into_owned(),
            pg_sys::MyProcPid,
        )
    };
    let saved = exec_path();
    let share = share_path(&saved);
    let root = PathBuf::from(format!("{data_dir}/base/pgsql_tmp/pgsql_tmp_pg_tle_{pid}"));
    let exec_dir = Path::new(&saved)
        .parent()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    let fake_exec = format!("{}{exec_dir}/postgres", root.display());
    let fake_share = format!("{}{share}", root.display());
    if fake_exec.len() >= MAXPGPATH || share_path(&fake_exec) != fake_share {
        internal(format!(
            "pg_tle cannot place extension files for \"{fake_exec}\" (share folder \"{share}\")"
        ));
    }
    let _ = std::fs::remove_dir_all(&root);
    let ext_dir = Path::new(&fake_share).join("extension");
    std::fs::create_dir_all(&ext_dir).unwrap_or_else(|e| io_error(&ext_dir, e));
    if system {
        link_entries(Path::new(&share), Path::new(&fake_share), &|n| {
            n == "extension"
        });
        link_entries(&Path::new(&share).join("extension"), &ext_dir, &|n| {
            tles.iter()
                .any(|t| n == format!("{t}.control") || n.starts_with(&format!("{t}--")))
        });
    }
    for (name, text) in &files {
        let path = ext_dir.join(name);
        let bytes = if name.ends_with(".control") {
            control_file(text)
        } else {
            text.clone()
        };
        std::fs::write(&path, bytes).unwrap_or_else(|e| io_error(&path, e));
    }
    ACTIVE.store(true, Ordering::Relaxed);
    set_exec_path(&fake_exec);
    PgTryBuilder::new(AssertUnwindSafe(f))
        .finally(|| {
            ACTIVE.store(false, Ordering::Relaxed);
            set_exec_path(&saved);
            let _ = std::fs::remove_dir_all(&root);
        })
        .execute()
}

fn invalid(message: String, detail: &str) -> ! {
    raise_with(
        PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
        message,
        Some(detail.to_string()),
        None,
    )
}

/// PostgreSQL's (and upstream's) rules for an extension's name.
fn check_name(name: &str) {
    check_part(name, "extension name", "Extension names");
    if !name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'@')
    {
        invalid(
            format!("invalid extension name: \"{name}\""),
            "Extension names must only contain alphanumeric characters or valid separators.",
        );
    }
}

/// PostgreSQL's (and upstream's) rules for a version's name.
fn check_version(version: &str) {
    check_part(version, "extension version name", "Version names");
}

/// The rules an extension's name and a version's name share: `what` as the error names it,
/// `names` as its detail does.
fn check_part(value: &str, what: &str, names: &str) {
    let message = format!("invalid {what}: \"{value}\"");
    if value.is_empty() {
        invalid(message, &format!("{names} must not be empty."));
    }
    if value.contains("--") {
        invalid(message, &format!("{names} must not contain \"--\"."));
    }
    if value.starts_with('-') || value.ends_with('-') {
        invalid(
            message,
            &format!("{names} must not begin or end with \"-\"."),
        );
    }
    if value.contains('/') {
        invalid(
            message,
            &format!("{names} must not contain directory separator characters."),
        );
    }
}

fn check_function_name(name: &str) {
    if name.len() >= NAMEDATALEN {
        raise_with(
            PgSqlErrorCode::ERRCODE_NAME_TOO_LONG,
            format!("generated function name \"{name}\" is too long"),
            Some(format!(
                "pg_tle function names must be less than {NAMEDATALEN} bytes."
            )),
            None,
        );
    }
}

fn required<'a>(value: Option<&'a str>, argument: &str) -> &'a str {
    value.unwrap_or_else(|| {
        raise(
            PgSqlErrorCode::ERRCODE_NULL_VALUE_NOT_ALLOWED,
            format!("\"{argument}\" is a required argument"),
        )
    })
}

/// Refuses a text holding the dollar quotes the functions are written with.
fn check_delimiters(texts: &[&str], message: &str, quoted: bool) {
    if texts.iter().any(|t| t.contains(OUTER) || t.contains(INNER)) {
        let (o, i) = if quoted {
            (format!("\"{OUTER}\""), format!("\"{INNER}\""))
        } else {
            (OUTER.to_string(), INNER.to_string())
        };
        raise_with(
            PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
            message.to_string(),
            Some(format!(
                "Use of string delimiters {o} and {i} are forbidden in extension definitions."
            )),
            Some(
                "This may be an attempt at a SQL injection attack. Please verify your installation file."
                    .into(),
            ),
        );
    }
}

/// Creates (or replaces) `pgtle."<proname>"()` returning `body`; a new function depends on the
/// pg_tle extension, as upstream records it (dropping pg_tle then needs CASCADE).
fn write_function(proname: &str, body: &str, replace: bool) {
    let existed = tle_function(proname).is_some();
    Spi::run(&format!(
        "CREATE {}FUNCTION pgtle.{}() RETURNS TEXT AS {OUTER}SELECT {INNER}{body}{INNER}{OUTER} LANGUAGE SQL",
        if replace { "OR REPLACE " } else { "" },
        quote_ident(proname)
    ))
    .unwrap_or_else(|e| internal(format!("failed to install pg_tle function {proname}: {e}")));
    if existed {
        return;
    }
    let function = tle_function(proname)
        .unwrap_or_else(|| internal(format!("could not find function {proname} in schema pgtle")));
    // SAFETY: a catalog lookup in the caller's transaction.
    let pg_tle = unsafe { pg_sys::get_extension_oid(c"pg_tle".as_ptr(), false) };
    let depender = pg_sys::ObjectAddress {
        classId: pg_sys::ProcedureRelationId,
        objectId: function,
        objectSubId: 0,
    };
    let referenced = pg_sys::ObjectAddress {
        classId: pg_sys::ExtensionRelationId,
        objectId: pg_tle,
        objectSubId: 0,
    };
    // SAFETY: both objects exist; pg_depend is written in the caller's transaction.
    unsafe {
        pg_sys::recordDependencyOn(
            &depender,
            &referenced,
            pg_sys::DependencyType::DEPENDENCY_NORMAL,
        )
    };
}

fn duplicate(message: String, hint: Option<String>) -> ! {
    raise_with(
        PgSqlErrorCode::ERRCODE_DUPLICATE_OBJECT,
        message,
        None,
        hint,
    )
}

fn not_prerequisite(message: String) -> ! {
    raise(
        PgSqlErrorCode::ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
        message,
    )
}

#[pg_extern]
fn install_extension(
    name: Option<&str>,
    version: Option<&str>,
    description: Option<&str>,
    ext: Option<&str>,
    requires: Option<Vec<Option<String>>>,
) -> bool {
    let name = required(name, "name");
    check_name(name);
    if file_based(name) {
        not_prerequisite(format!(
            "control file already exists for the {name} extension"
        ));
    }
    let version = required(version, "version");
    check_version(version);
    let description = required(description, "description");
    let ext = required(ext, "ext");
    let mut requires: Vec<String> = requires.unwrap_or_default().into_iter().flatten().collect();
    if requires.len() > REQUIRES_LIMIT {
        raise(
            PgSqlErrorCode::ERRCODE_PROGRAM_LIMIT_EXCEEDED,
            format!("\"requires\" limited to {REQUIRES_LIMIT} entries for \"{name}\" extensions"),
        );
    }
    for r in &requires {
        check_name(r);
    }
    let script = format!("{name}--{version}.sql");
    let control_name = format!("{name}.control");
    check_function_name(&script);
    check_function_name(&control_name);
    if !requires.iter().any(|r| r == "pg_tle") {
        requires.push("pg_tle".into());
    }
    let control = format!(
        "default_version = {}\ncomment = {}\nrelocatable = false\nsuperuser = false\ntrusted = false\nrequires = {}\n",
        quote_literal(version),
        quote_literal(description),
        quote_literal(&requires.join(","))
    );
    check_delimiters(
        &[&control, ext],
        "invalid character in extension definition",
        true,
    );
    if tle_function(&script).is_some() {
        duplicate(format!("extension \"{name}\" already installed"), None);
    }
    write_function(&script, ext, false);
    write_function(&control_name, &control, true);
    true
}

#[pg_extern]
fn install_extension_version_sql(
    name: Option<&str>,
    version: Option<&str>,
    ext: Option<&str>,
) -> bool {
    let name = required(name, "name");
    check_name(name);
    if file_based(name) {
        not_prerequisite(format!(
            "extension {} is not a tle extension",
            quote_ident(name)
        ));
    }
    let control_name = format!("{name}.control");
    if tle_function(&control_name).is_none() {
        not_prerequisite(format!(
            "could not find control function {} for extension {} in schema pgtle",
            quote_ident(&control_name),
            quote_ident(name)
        ));
    }
    let version = required(version, "version");
    check_version(version);
    let ext = required(ext, "ext");
    check_delimiters(&[ext], "invalid character in extension definition", true);
    let script = format!("{name}--{version}.sql");
    check_function_name(&script);
    if tle_function(&script).is_some() {
        duplicate(
            format!("version \"{version}\" of extension \"{name}\" already installed"),
            None,
        );
    }
    write_function(&script, ext, false);
    true
}

#[pg_extern]
fn install_update_path(
    name: Option<&str>,
    fromvers: Option<&str>,
    tovers: Option<&str>,
    ext: Option<&str>,
) -> bool {
    let name = required(name, "name");
    check_name(name);
    if file_based(name) {
        not_prerequisite(format!(
            "control file already exists for the \"{name}\" extension"
        ));
    }
    let fromvers = required(fromvers, "fromvers");
    let tovers = required(tovers, "tovers");
    check_version(fromvers);
    check_version(tovers);
    let ext = required(ext, "ext");
    check_delimiters(
        &[ext],
        "invalid character in extension update definition",
        true,
    );
    let script = format!("{name}--{fromvers}--{tovers}.sql");
    check_function_name(&script);
    if tle_function(&script).is_some() {
        duplicate(
            format!("extension \"{name}\" update path \"{fromvers}-{tovers}\" already installed"),
            Some(
                "To update this specific install path, first use \"pgtle.uninstall_update_path\"."
                    .into(),
            ),
        );
    }
    write_function(&script, ext, false);
    true
}

#[pg_extern]
fn set_default_version(name: Option<&str>, version: Option<&str>) -> bool {
    let name = name.unwrap_or_else(|| {
        raise(
            PgSqlErrorCode::ERRCODE_NULL_VALUE_NOT_ALLOWED,
            "\"name\" is a required argument.".into(),
        )
    });
    check_name(name);
    if file_based(name) {
        not_prerequisite(format!(
            "control file already exists for the {name} extension"
        ));
    }
    let version = required(version, "version");
    check_version(version);
    let exists = Spi::get_one_with_args::<bool>(
        "select exists (select from pgtle.available_extension_versions() v \
         where v.name = $1::pg_catalog.name and v.version = $2)",
        &[name.into(), version.into()],
    )
    .unwrap_or_else(|e| internal(format!("could not validate extension name: {e}")))
    .unwrap_or(false);
    if !exists {
        raise_with(
            PgSqlErrorCode::ERRCODE_UNDEFINED_OBJECT,
            "extension and version do not exist".into(),
            None,
            Some("Try installing the extension with \"pgtle.install_extension\".".into()),
        );
    }
    let control_name = format!("{name}.control");
    let mut control = String::new();
    let mut found = false;
    for line in function_text(&control_name).lines() {
        if line.starts_with("default_version = ") {
            control.push_str(&format!("default_version = {}\n", quote_literal(version)));
            found = true;
        } else {
            control.push_str(line);
            control.push('\n');
        }
    }
    if !found {
        control.insert_str(
            0,
            &format!("default_version = {}\n", quote_literal(version)),
        );
    }
    check_delimiters(
        &[&control],
        "invalid character in extension definition",
        false,
    );
    write_function(&control_name, &control, true);
    true
}

/// Rows of PostgreSQL's own extension catalog views for the database's TLEs, as a JSON array:
/// `extensions` (pg_available_extensions), `versions` (pg_available_extension_versions) or
/// `paths` (pg_extension_update_paths(extname)). The SQL functions of the install script type
/// them as upstream's.
#[pg_extern]
fn supagate_catalog(kind: &str, extname: Option<&str>) -> JsonB {
    // Only the TLEs' rows: the installation's own extensions are linked in too when this runs
    // within CREATE EXTENSION (a TLE's script reading pgtle.available_extensions()).
    const TLES: &str = "r.name in (select pg_catalog.left(p.proname, -8) \
         from pg_catalog.pg_proc p where p.pronamespace = pg_catalog.to_regnamespace('pgtle') \
         and p.proname like '%.control')";
    let (query, filter) = match kind {
        "extensions" => (
            "select e.name, e.default_version, e.comment from pg_catalog.pg_available_extensions e",
            TLES,
        ),
        "versions" => (
            "select v.name, v.version, v.superuser, v.trusted, v.relocatable, v.schema, \
             v.requires, v.comment from pg_catalog.pg_available_extension_versions v",
            TLES,
        ),
        "paths" => (
            "select p.source, p.target, p.path \
             from pg_catalog.pg_extension_update_paths($1::pg_catalog.name) p",
            "true",
        ),
        _ => raise(
            PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
            format!("unknown pg_tle catalog \"{kind}\""),
        ),
    };
    let sql = format!(
        "select coalesce(pg_catalog.jsonb_agg(pg_catalog.to_jsonb(r)), '[]') from ({query}) r \
         where {filter}"
    );
    with_tle_files(false, || {
        let rows = match (kind, extname) {
            ("paths", Some(name)) => Spi::get_one_with_args::<JsonB>(&sql, &[name.into()]),
            ("paths", None) => Ok(None),
            _ => Spi::get_one::<JsonB>(&sql),
        };
        rows.unwrap_or_else(|e| internal(format!("pg_tle could not read the catalog: {e}")))
            .unwrap_or(JsonB(serde_json::Value::Array(Vec::new())))
    })
}
