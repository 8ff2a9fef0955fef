//! What the wrappers that read for real (Stripe's, S3's) share: the scan callbacks of an
//! `FdwRoutine` (one foreign path, every qual checked locally, the rows read when the scan
//! begins, a rescan from the first row), the options of a table and its server, Vault's secrets
//! as upstream reads them, a value's datum through its column type's input function, and GET
//! requests through `http_core` under the http extension's reach rule (this machine's own and
//! link-local addresses refused unless `wrappers.supagate_allow_local`, superuser only, is on).

use crate::{raise, routine_refusing};
use http_core::client::{self, Options, Response};
use http_core::reach::Reach;
use http_core::url::Url;
use pgrx::pg_sys;
use pgrx::prelude::*;
use pgrx::{GucContext, GucFlags, GucRegistry, GucSetting, PgTupleDesc};
use std::ffi::CStr;
use std::time::Duration;

/// `wrappers.supagate_allow_local`: requests may reach this machine's own addresses.
pub static ALLOW_LOCAL: GucSetting<bool> = GucSetting::<bool>::new(false);

/// Seconds between the Unix epoch and PostgreSQL's (2000-01-01).
const PG_EPOCH_UNIX: i64 = 946_684_800;

/// Registers the wrappers' setting.
pub fn init() {
    GucRegistry::define_bool_guc(
        c"wrappers.supagate_allow_local",
        c"wrappers' requests may reach this machine's own and link-local addresses",
        c"Only a superuser may change it.",
        &ALLOW_LOCAL,
        GucContext::Suset,
        GucFlags::from_bits_retain(pg_sys::GUC_NOT_IN_SAMPLE as i32),
    );
}

/// The options of a catalog entry (server or foreign table), as (name, value).
pub type CatalogOptions = Vec<(String, String)>;

/// The options of a catalog entry.
///
/// # Safety
/// `list` is a list of `DefElem`s (or NIL).
unsafe fn options(list: *mut pg_sys::List) -> CatalogOptions {
    if list.is_null() {
        return Vec::new();
    }
    // SAFETY: a valid list: `length` cells from `elements`, each a DefElem pointer.
    let length = usize::try_from(unsafe { (*list).length }).unwrap_or(0);
    (0..length)
        .map(|i| unsafe {
            let d = (*(*list).elements.add(i))
                .ptr_value
                .cast::<pg_sys::DefElem>();
            let name = CStr::from_ptr((*d).defname).to_string_lossy().into_owned();
            let value = CStr::from_ptr(pg_sys::defGetString(d))
                .to_string_lossy()
                .into_owned();
            (name, value)
        })
        .collect()
}

/// The value of option `name`, if set.
pub fn option<'a>(options: &'a [(String, String)], name: &str) -> Option<&'a str> {
    options
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
}

/// The value of option `name`, or upstream's error when it is missing.
pub fn require<'a>(options: &'a [(String, String)], name: &str) -> &'a str {
    option(options, name).unwrap_or_else(|| {
        raise(
            PgSqlErrorCode::ERRCODE_FDW_OPTION_NAME_NOT_FOUND,
            format!("required option `{name}` is not specified"),
        )
    })
}

/// The decrypted Vault secret whose id is `id`, as upstream's `get_vault_secret` reads it.
pub fn vault_secret(id: &str) -> String {
    let secret = Spi::get_one_with_args::<String>(
        "select decrypted_secret from vault.decrypted_secrets where id::text = $1",
        &[id.into()],
    );
    match secret {
        Ok(Some(secret)) => secret,
        Ok(None) => raise(
            PgSqlErrorCode::ERRCODE_FDW_ERROR,
            format!("no secret found in vault with id {id}"),
        ),
        Err(e) => raise(
            PgSqlErrorCode::ERRCODE_FDW_ERROR,
            format!("query vault failed \"{id}\": {e}"),
        ),
    }
}

/// Makes a GET request of `url` with `headers` (an answer of at most `max_body` bytes, within
/// `timeout`), where the reach rule lets it go. Any answer is returned, whatever its status.
pub fn get(
    url: &str,
    headers: Vec<(String, String)>,
    max_body: usize,
    timeout: Duration,
) -> Response {
    let url = Url::parse(url).unwrap_or_else(|e| {
        raise(
            PgSqlErrorCode::ERRCODE_FDW_ERROR,
            format!("parse url failed: {e}"),
        )
    });
    let request = client::Request {
        method: "GET".into(),
        url,
        headers,
        body: None,
    };
    let options = Options {
        max_body,
        timeout: Some(timeout),
        ..Options::default()
    };
    let reach = Reach {
        local: ALLOW_LOCAL.get(),
        api_port: None,
    };
    client::perform(
        &request,
        &options,
        reach,
        &mut None,
        &client::system_resolve,
        &mut || {
            pgrx::check_for_interrupts!();
        },
    )
    .unwrap_or_else(|e| {
        raise(
            PgSqlErrorCode::ERRCODE_FDW_ERROR,
            format!("request failed: {e}"),
        )
    })
}

/// A column of the foreign table.
pub struct Column {
    /// Its name.
    pub name: String,
    /// Its position among the table's attributes (dropped ones counted), from 0.
    pub position: usize,
    pub typid: pg_sys::Oid,
    pub typmod: i32,
}

impl Column {
    /// Whether the column's type is a string type, whose empty value is not a missing one.
    pub fn is_string(&self) -> bool {
        [
            pg_sys::TEXTOID,
            pg_sys::VARCHAROID,
            pg_sys::BPCHAROID,
            pg_sys::NAMEOID,
        ]
        .contains(&self.typid)
    }
}

/// One value of a row.
pub enum Cell {
    /// Text, read by the column type's input function.
    Text(String),
    /// Seconds since the Unix epoch, for a timestamp column.
    UnixSeconds(i64),
}

/// The rows a scan reads.
pub trait Rows {
    /// The next row: for each of `columns`, its value or `None` (NULL); `None` at the end.
    fn next(&mut self, columns: &[Column]) -> Option<Vec<Option<Cell>>>;
    /// From the first row again.
    fn rewind(&mut self);
}

/// Opens the rows of a foreign table of wrapper `W`, from the table's and its server's options.
pub(crate) type Open = fn(&[(String, String)], &[(String, String)], &[Column]) -> Box<dyn Rows>;

/// A scan's state, kept in `fdw_state`.
struct Scan {
    rows: Box<dyn Rows>,
    columns: Vec<Column>,
}

/// `GetForeignRelSize`: a guess.
unsafe extern "C-unwind" fn rel_size(
    _root: *mut pg_sys::PlannerInfo,
    baserel: *mut pg_sys::RelOptInfo,
    _table: pg_sys::Oid,
) {
    unsafe { (*baserel).rows = 100.0 };
}

/// `GetForeignPaths`: one path, the whole listing.
unsafe extern "C-unwind" fn paths(
    root: *mut pg_sys::PlannerInfo,
    baserel: *mut pg_sys::RelOptInfo,
    _table: pg_sys::Oid,
) {
    // SAFETY: the planner's own structures, passed to its own functions.
    unsafe {
        pg_sys::submodules::panic::pgrx_extern_c_guard(|| {
            let rows = (*baserel).rows;
            #[cfg(any(feature = "pg13", feature = "pg14", feature = "pg15", feature = "pg16"))]
            let path = pg_sys::create_foreignscan_path(
                root,
                baserel,
                std::ptr::null_mut(),
                rows,
                10.0,
                10.0 + rows,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            );
            #[cfg(any(feature = "pg17", feature = "pg18"))]
            let path = pg_sys::create_foreignscan_path(
                root,
                baserel,
                std::ptr::null_mut(),
                rows,
                10.0,
                10.0 + rows,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            );
            pg_sys::add_path(baserel, path.cast());
        })
    }
}

/// `GetForeignPlan`: every qual checked locally.
unsafe extern "C-unwind" fn plan(
    _root: *mut pg_sys::PlannerInfo,
    baserel: *mut pg_sys::RelOptInfo,
    _table: pg_sys::Oid,
    _path: *mut pg_sys::ForeignPath,
    tlist: *mut pg_sys::List,
    scan_clauses: *mut pg_sys::List,
    outer_plan: *mut pg_sys::Plan,
) -> *mut pg_sys::ForeignScan {
    // SAFETY: as in paths.
    unsafe {
        pg_sys::submodules::panic::pgrx_extern_c_guard(|| {
            let quals = pg_sys::extract_actual_clauses(scan_clauses, false);
            pg_sys::make_foreignscan(
                tlist,
                quals,
                (*baserel).relid,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                outer_plan,
            )
        })
    }
}

/// `BeginForeignScan`: opens the rows (not for EXPLAIN without ANALYZE).
unsafe extern "C-unwind" fn begin<const W: usize>(
    node: *mut pg_sys::ForeignScanState,
    eflags: i32,
) {
    // SAFETY: the executor's node of this scan; its relation is open.
    unsafe {
        pg_sys::submodules::panic::pgrx_extern_c_guard(|| {
            if eflags & pg_sys::EXEC_FLAG_EXPLAIN_ONLY as i32 != 0 {
                return;
            }
            let relation = (*node).ss.ss_currentRelation;
            let table = pg_sys::GetForeignTable((*relation).rd_id);
            let server = pg_sys::GetForeignServer((*table).serverid);
            let table_options = options((*table).options);
            let server_options = options((*server).options);
            let desc = PgTupleDesc::from_pg_unchecked((*relation).rd_att);
            let columns: Vec<Column> = desc
                .iter()
                .enumerate()
                .filter(|(_, attr)| !attr.attisdropped)
                .map(|(position, attr)| Column {
                    name: attr.name().to_owned(),
                    position,
                    typid: attr.atttypid,
                    typmod: attr.atttypmod,
                })
                .collect();
            let rows = crate::opener::<W>()(&table_options, &server_options, &columns);
            // The state is freed with the query's memory context (its reset callback), so an
            // error that ends the query before EndForeignScan leaks nothing.
            let scan = Box::into_raw(Box::new(Scan { rows, columns }));
            let callback = pg_sys::palloc0(std::mem::size_of::<pg_sys::MemoryContextCallback>())
                .cast::<pg_sys::MemoryContextCallback>();
            (*callback).func = Some(free_scan);
            (*callback).arg = scan.cast();
            pg_sys::MemoryContextRegisterResetCallback(pg_sys::CurrentMemoryContext, callback);
            (*node).fdw_state = scan.cast();
        })
    }
}

/// The datum of `cell` for a column of type `typid` (typmod `typmod`).
///
/// # Safety
/// Called inside a guarded callback.
unsafe fn datum(cell: Cell, typid: pg_sys::Oid, typmod: i32) -> pg_sys::Datum {
    let text = match cell {
        Cell::UnixSeconds(seconds)
            if typid == pg_sys::TIMESTAMPOID || typid == pg_sys::TIMESTAMPTZOID =>
        {
            let micros = (seconds.saturating_sub(PG_EPOCH_UNIX)).saturating_mul(1_000_000);
            return pg_sys::Datum::from(micros);
        }
        Cell::UnixSeconds(seconds) => seconds.to_string(),
        Cell::Text(text) => text,
    };
    let text = std::ffi::CString::new(text.replace('\0', "")).expect("no NUL left");
    let mut input = pg_sys::InvalidOid;
    let mut ioparam = pg_sys::InvalidOid;
    // SAFETY: the type's own input function, on a NUL-terminated string.
    unsafe {
        pg_sys::getTypeInputInfo(typid, &mut input, &mut ioparam);
        pg_sys::OidInputFunctionCall(input, text.as_ptr().cast_mut(), ioparam, typmod)
    }
}

/// `IterateForeignScan`: the next row.
unsafe extern "C-unwind" fn iterate(
    node: *mut pg_sys::ForeignScanState,
) -> *mut pg_sys::TupleTableSlot {
    // SAFETY: the slot and state of this scan.
    unsafe {
        pg_sys::submodules::panic::pgrx_extern_c_guard(|| {
            let slot = (*node).ss.ss_ScanTupleSlot;
            if let Some(clear) = (*(*slot).tts_ops).clear {
                clear(slot);
            }
            (*slot).tts_flags |= pg_sys::TTS_FLAG_EMPTY as u16;
            let Some(scan) = (*node).fdw_state.cast::<Scan>().as_mut() else {
                return slot;
            };
            let Some(cells) = scan.rows.next(&scan.columns) else {
                return slot;
            };
            let length = usize::try_from((*(*slot).tts_tupleDescriptor).natts).unwrap_or(0);
            let values = std::slice::from_raw_parts_mut((*slot).tts_values, length);
            let nulls = std::slice::from_raw_parts_mut((*slot).tts_isnull, length);
            values.fill(pg_sys::Datum::from(0usize));
            nulls.fill(true);
            for (column, cell) in scan.columns.iter().zip(cells) {
                if let Some(cell) = cell
                    && column.position < length
                {
                    values[column.position] = datum(cell, column.typid, column.typmod);
                    nulls[column.position] = false;
                }
            }
            pg_sys::ExecStoreVirtualTuple(slot);
            slot
        })
    }
}

/// `ReScanForeignScan`: from the first row again.
unsafe extern "C-unwind" fn rescan(node: *mut pg_sys::ForeignScanState) {
    // SAFETY: this scan's state, if it began.
    unsafe {
        if let Some(scan) = (*node).fdw_state.cast::<Scan>().as_mut() {
            scan.rows.rewind();
        }
    }
}

/// Frees a scan's state: the reset callback of the query's memory context.
unsafe extern "C-unwind" fn free_scan(arg: *mut core::ffi::c_void) {
    // SAFETY: `arg` is the Box registered in begin, freed here once.
    unsafe { drop(Box::from_raw(arg.cast::<Scan>())) }
}

/// `EndForeignScan`: the state goes with the query's memory context.
unsafe extern "C-unwind" fn end(node: *mut pg_sys::ForeignScanState) {
    unsafe { (*node).fdw_state = std::ptr::null_mut() };
}

/// The `FdwRoutine` of wrapper `W`, which reads: scans work, modifications are refused.
pub fn routine<const W: usize>() -> pg_sys::Datum {
    routine_refusing::<W>(|routine| {
        routine.GetForeignRelSize = Some(rel_size);
        routine.GetForeignPaths = Some(paths);
        routine.GetForeignPlan = Some(plan);
        routine.BeginForeignScan = Some(begin::<W>);
        routine.IterateForeignScan = Some(iterate);
        routine.ReScanForeignScan = Some(rescan);
        routine.EndForeignScan = Some(end);
    })
}
