//! The Stripe wrapper, working: a scan of a foreign table lists the table's `object` from the
//! server's `api_url` (Stripe's API by default; a local stand-in in tests), `GET
//! <api_url>/<object>?limit=100`, page after page (`starting_after` the last id while
//! `has_more`), with `Authorization: Bearer <key>`, the key from the server's `api_key` or the
//! Vault secret its `api_key_id` names, as upstream reads them. Each object is a row: a column
//! takes the object's field of its name (a timestamp column from Unix seconds, any other type
//! from the field's text through the type's input function), `attrs` the whole object as jsonb.
//! Requests go through `http_core` under the http extension's reach rule: this machine's own and
//! link-local addresses are refused unless `wrappers.supagate_allow_local` (superuser only) is
//! on. Inserts, updates and deletes are refused (supagate's wrapper reads only).

use crate::{raise, routine_refusing};
use http_core::client::{self, Options, Request};
use http_core::reach::Reach;
use http_core::url::Url;
use pgrx::pg_sys;
use pgrx::prelude::*;
use pgrx::{GucContext, GucFlags, GucRegistry, GucSetting, PgTupleDesc};
use std::ffi::CStr;

/// `wrappers.supagate_allow_local`: requests may reach this machine's own addresses.
pub static ALLOW_LOCAL: GucSetting<bool> = GucSetting::<bool>::new(false);

/// The most pages one scan reads (100 objects each).
const MAX_PAGES: usize = 1000;
/// The largest answer one page may have.
const MAX_BODY: usize = 16 << 20;
/// Seconds between the Unix epoch and PostgreSQL's (2000-01-01).
const PG_EPOCH_UNIX: i64 = 946_684_800;

/// Registers the wrapper's setting.
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

/// The options of a catalog entry, as (name, value).
///
/// # Safety
/// `list` is a list of `DefElem`s (or NIL).
unsafe fn options(list: *mut pg_sys::List) -> Vec<(String, String)> {
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

fn option<'a>(options: &'a [(String, String)], name: &str) -> Option<&'a str> {
    options
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
}

/// The API key: `api_key`, or the Vault secret whose id `api_key_id` is.
fn api_key(server: &[(String, String)]) -> String {
    if let Some(key) = option(server, "api_key") {
        return key.to_owned();
    }
    let Some(id) = option(server, "api_key_id") else {
        raise(
            PgSqlErrorCode::ERRCODE_FDW_ERROR,
            "either api_key_id or api_key_name option is required".into(),
        )
    };
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

/// Lists `object` from `base`, every page.
fn list(base: &str, object: &str, key: &str) -> Vec<serde_json::Value> {
    let reach = Reach {
        local: ALLOW_LOCAL.get(),
        api_port: None,
    };
    let options = Options {
        max_body: MAX_BODY,
        timeout: Some(std::time::Duration::from_secs(30)),
        ..Options::default()
    };
    let mut rows = Vec::new();
    let mut after: Option<String> = None;
    for _ in 0..MAX_PAGES {
        let mut text = format!(
            "{}/{}?limit=100",
            base.trim_end_matches('/'),
            http_core::urlencode(object.as_bytes()).replace("%2F", "/")
        );
        if let Some(id) = &after {
            text.push_str("&starting_after=");
            text.push_str(&http_core::urlencode(id.as_bytes()));
        }
        let url = Url::parse(&text).unwrap_or_else(|e| {
            raise(
                PgSqlErrorCode::ERRCODE_FDW_ERROR,
                format!("parse url failed: {e}"),
            )
        });
        let request = Request {
            method: "GET".into(),
            url,
            headers: vec![("Authorization".into(), format!("Bearer {key}"))],
            body: None,
        };
        let answer = client::perform(
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
        });
        if !(200..300).contains(&answer.status) {
            raise(
                PgSqlErrorCode::ERRCODE_FDW_ERROR,
                format!(
                    "request failed: HTTP status {}: {}",
                    answer.status,
                    String::from_utf8_lossy(&answer.body[..answer.body.len().min(500)])
                ),
            );
        }
        let page: serde_json::Value = serde_json::from_slice(&answer.body).unwrap_or_else(|e| {
            raise(
                PgSqlErrorCode::ERRCODE_FDW_ERROR,
                format!("invalid json response: {e}"),
            )
        });
        let data = match page.get("data") {
            Some(serde_json::Value::Array(data)) => data.clone(),
            // One object (a path such as `balance`): one row.
            _ if page.is_object() => vec![page.clone()],
            _ => Vec::new(),
        };
        let last = data
            .last()
            .and_then(|o| o.get("id"))
            .and_then(|i| i.as_str())
            .map(str::to_owned);
        rows.extend(data);
        let more = page
            .get("has_more")
            .and_then(|m| m.as_bool())
            .unwrap_or(false);
        match (more, last) {
            (true, Some(id)) => after = Some(id),
            _ => return rows,
        }
    }
    rows
}

/// A scan's state, kept in `fdw_state`.
struct Scan {
    rows: Vec<serde_json::Value>,
    next: usize,
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

/// `BeginForeignScan`: reads the listing (not for EXPLAIN without ANALYZE).
unsafe extern "C-unwind" fn begin(node: *mut pg_sys::ForeignScanState, eflags: i32) {
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
            let Some(object) = option(&table_options, "object") else {
                raise(
                    PgSqlErrorCode::ERRCODE_FDW_OPTION_NAME_NOT_FOUND,
                    "required option `object` is not specified".into(),
                )
            };
            let base = option(&server_options, "api_url").unwrap_or("https://api.stripe.com/v1/");
            let key = api_key(&server_options);
            let rows = list(base, object, &key);
            // The state is freed with the query's memory context (its reset callback), so an
            // error that ends the query before EndForeignScan leaks nothing.
            let scan = Box::into_raw(Box::new(Scan { rows, next: 0 }));
            let callback = pg_sys::palloc0(std::mem::size_of::<pg_sys::MemoryContextCallback>())
                .cast::<pg_sys::MemoryContextCallback>();
            (*callback).func = Some(free_scan);
            (*callback).arg = scan.cast();
            pg_sys::MemoryContextRegisterResetCallback(pg_sys::CurrentMemoryContext, callback);
            (*node).fdw_state = scan.cast();
        })
    }
}

/// The datum of `value` for a column of type `typid` (typmod `typmod`).
///
/// # Safety
/// Called inside a guarded callback.
unsafe fn datum(value: &serde_json::Value, typid: pg_sys::Oid, typmod: i32) -> pg_sys::Datum {
    if (typid == pg_sys::TIMESTAMPOID || typid == pg_sys::TIMESTAMPTZOID)
        && let Some(seconds) = value.as_i64()
    {
        let micros = (seconds.saturating_sub(PG_EPOCH_UNIX)).saturating_mul(1_000_000);
        return pg_sys::Datum::from(micros);
    }
    let text = match value {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
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

/// `IterateForeignScan`: the next object as a row.
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
            let Some(object) = scan.rows.get(scan.next) else {
                return slot;
            };
            scan.next += 1;
            let desc = PgTupleDesc::from_pg_unchecked((*slot).tts_tupleDescriptor);
            let values = std::slice::from_raw_parts_mut((*slot).tts_values, desc.len());
            let nulls = std::slice::from_raw_parts_mut((*slot).tts_isnull, desc.len());
            for (i, attr) in desc.iter().enumerate() {
                nulls[i] = true;
                values[i] = pg_sys::Datum::from(0usize);
                if attr.attisdropped {
                    continue;
                }
                let name = attr.name();
                let value = if name == "attrs" {
                    Some(object)
                } else {
                    object.get(name).filter(|v| !v.is_null())
                };
                if let Some(value) = value {
                    let value = if name == "attrs" {
                        &serde_json::Value::String(value.to_string())
                    } else {
                        value
                    };
                    values[i] = datum(value, attr.atttypid, attr.atttypmod);
                    nulls[i] = false;
                }
            }
            pg_sys::ExecStoreVirtualTuple(slot);
            slot
        })
    }
}

/// `ReScanForeignScan`: from the first object again.
unsafe extern "C-unwind" fn rescan(node: *mut pg_sys::ForeignScanState) {
    unsafe {
        let scan = (*node).fdw_state.cast::<Scan>();
        if !scan.is_null() {
            (*scan).next = 0;
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

/// Stripe's `FdwRoutine`: scans work, modifications are refused.
pub fn routine() -> pg_sys::Datum {
    routine_refusing::<{ crate::STRIPE }>(|routine| {
        routine.GetForeignRelSize = Some(rel_size);
        routine.GetForeignPaths = Some(paths);
        routine.GetForeignPlan = Some(plan);
        routine.BeginForeignScan = Some(begin);
        routine.IterateForeignScan = Some(iterate);
        routine.ReScanForeignScan = Some(rescan);
        routine.EndForeignScan = Some(end);
    })
}
