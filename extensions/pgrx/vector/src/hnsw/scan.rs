//! Scanning an hnsw index in distance order (`ambeginscan`, `amrescan`, `amgettuple`,
//! `amendscan`).
//!
//! The first call searches the graph: down to layer 1 keeping a few entry points on each layer
//! ([`UPPER_EF`]), then layer 0 keeping the `hnsw.ef_search` nearest; rows come back nearest first. With `hnsw.iterative_scan` on, a scan
//! whose rows ran out (a filter removed them) goes on from the candidates the search left
//! behind, a batch at a time, until `hnsw.max_scan_tuples` elements were visited or the memory
//! allowed (`work_mem` × `hnsw.scan_mem_multiplier`) is used; then the candidates left are
//! returned as they are. `strict_order` drops a row nearer than one already returned.
//!
//! The scan's state is Rust-owned; it is dropped by `amendscan`, or, if the query ends by an
//! error, when the memory context the scan lives in is reset.

use super::Support;
use super::disk::DiskSpace;
use super::graph::{Candidate, Near, Space, descend_wide, search_layer};
use super::page::read_meta;
use crate::am::{
    HNSW_EF_SEARCH, HNSW_ITERATIVE_SCAN, HNSW_MAX_SCAN_TUPLES, HNSW_SCAN_MEM_MULTIPLIER, Tid,
    Value, count_index_scan, is_mvcc, on_context_reset,
};
use crate::fmgr::raise;
use core::ffi::{c_int, c_void};
use pgrx::pg_guard;
use pgrx::pg_sys;
use pgrx::pg_sys::errcodes::PgSqlErrorCode;
use std::collections::{BinaryHeap, VecDeque};

/// How many entry points the descent keeps on each layer above 0. A greedy descent (one, as
/// pgvector and hnswlib descend) ends in a wrong cluster often enough on clustered data that a
/// search of layer 0 from there misses every true neighbour: on 100,000 clustered 384-d vectors
/// (bench/vector.mjs's data) 3 of 50 queries found fewer than 5 of their 10, and recall@10 was
/// 0.87 / 0.93 / 0.94 at ef_search 40 / 100 / 200. Keeping 10 made it 0.95 / 0.99 / 1.0 (4 kept
/// still lost 2 queries) for about 15 % more time per query.
const UPPER_EF: usize = 10;

/// A scan in progress.
struct ScanState {
    support: Support,
    started: bool,
    /// The query; the space points into it.
    query: Option<Value>,
    space: Option<DiskSpace>,
    /// Rows found and not yet returned: distance and heap row.
    results: VecDeque<(f32, Tid)>,
    /// Candidates left behind by the searches so far.
    discarded: BinaryHeap<Near<Tid>>,
    previous: f32,
    done: bool,
}

/// The slot `scan->opaque` points at: the state, or null once dropped.
type Slot = *mut ScanState;

#[pg_guard]
unsafe extern "C-unwind" fn drop_state(arg: *mut c_void) {
    unsafe {
        let slot = arg.cast::<Slot>();
        if !(*slot).is_null() {
            drop(Box::from_raw(*slot));
            *slot = core::ptr::null_mut();
        }
    }
}

/// `ambeginscan`.
#[pg_guard]
pub unsafe extern "C-unwind" fn ambeginscan(
    index: pg_sys::Relation,
    nkeys: c_int,
    norderbys: c_int,
) -> pg_sys::IndexScanDesc {
    unsafe {
        let scan = pg_sys::RelationGetIndexScan(index, nkeys, norderbys);
        let state = Box::new(new_state(Support::of(index)));
        let slot = pg_sys::palloc(core::mem::size_of::<Slot>()).cast::<Slot>();
        slot.write(Box::into_raw(state));
        on_context_reset(pg_sys::CurrentMemoryContext, drop_state, slot.cast());
        (*scan).opaque = slot.cast();
        scan
    }
}

fn new_state(support: Support) -> ScanState {
    ScanState {
        support,
        started: false,
        query: None,
        space: None,
        results: VecDeque::new(),
        discarded: BinaryHeap::new(),
        previous: f32::NEG_INFINITY,
        done: false,
    }
}

/// The scan's state.
///
/// # Safety
/// `scan` was begun by [`ambeginscan`] and not ended.
unsafe fn state<'a>(scan: pg_sys::IndexScanDesc) -> &'a mut ScanState {
    unsafe {
        let slot = (*scan).opaque.cast::<Slot>();
        if slot.is_null() || (*slot).is_null() {
            raise(
                PgSqlErrorCode::ERRCODE_INTERNAL_ERROR,
                "hnsw scan has no state",
            );
        }
        &mut **slot
    }
}

/// `amrescan`.
#[pg_guard]
pub unsafe extern "C-unwind" fn amrescan(
    scan: pg_sys::IndexScanDesc,
    keys: pg_sys::ScanKey,
    _nkeys: c_int,
    orderbys: pg_sys::ScanKey,
    _norderbys: c_int,
) {
    unsafe {
        let st = state(scan);
        *st = new_state(st.support);
        if !keys.is_null() && (*scan).numberOfKeys > 0 {
            core::ptr::copy(keys, (*scan).keyData, (*scan).numberOfKeys as usize);
        }
        if !orderbys.is_null() && (*scan).numberOfOrderBys > 0 {
            core::ptr::copy(
                orderbys,
                (*scan).orderByData,
                (*scan).numberOfOrderBys as usize,
            );
        }
    }
}

/// Queues the non-deleted elements of `found` as rows, nearest first.
fn queue(st: &mut ScanState, found: &[Candidate<Tid>]) {
    let Some(space) = st.space.as_ref() else {
        return;
    };
    for c in found {
        if let Some(e) = space.elements.get(&c.id)
            && !e.header.deleted
            && e.header.heap_tid.is_valid()
        {
            st.results.push_back((c.distance, e.header.heap_tid));
        }
    }
}

/// The first search.
///
/// # Safety
/// `scan` is an hnsw scan with an order by.
unsafe fn start(scan: pg_sys::IndexScanDesc, st: &mut ScanState) {
    unsafe {
        let index = (*scan).indexRelation;
        if (*scan).orderByData.is_null() || (*scan).numberOfOrderBys < 1 {
            raise(
                PgSqlErrorCode::ERRCODE_INTERNAL_ERROR,
                "cannot scan hnsw index without order",
            );
        }
        if !is_mvcc((*scan).xs_snapshot) {
            raise(
                PgSqlErrorCode::ERRCODE_INTERNAL_ERROR,
                "non-MVCC snapshots are not supported with hnsw",
            );
        }
        count_index_scan(index);
        let key = &*(*scan).orderByData;
        st.query = if key.sk_flags & pg_sys::SK_ISNULL as c_int != 0 {
            None
        } else {
            let v = Value::copy_of(crate::fmgr::detoast(key.sk_argument));
            Some(if st.support.normalize {
                v.normalized(st.support.kind).unwrap_or(v)
            } else {
                v
            })
        };
        let qptr = st.query.as_ref().map_or(core::ptr::null(), |v| v.ptr());
        let meta = read_meta(index);
        let mut space = DiskSpace::new(index, st.support.dist, meta.m, qptr);
        if !meta.entry.is_valid() || meta.entry_level < 0 {
            st.done = true;
            st.space = Some(space);
            return;
        }
        let Some(d) = space.load(meta.entry) else {
            st.done = true;
            st.space = Some(space);
            return;
        };
        let eps = descend_wide(
            &mut space,
            Candidate {
                distance: d,
                id: meta.entry,
            },
            meta.entry_level as u8,
            0,
            UPPER_EF.min(HNSW_EF_SEARCH.get() as usize),
        );
        let iterative = HNSW_ITERATIVE_SCAN.get() != 0;
        let found = search_layer(
            &mut space,
            &eps,
            HNSW_EF_SEARCH.get() as usize,
            0,
            iterative.then_some(&mut st.discarded),
            true,
        );
        st.space = Some(space);
        queue(st, &found);
    }
}

/// Whether an iterative scan may search on: under `hnsw.max_scan_tuples` and its memory.
fn may_resume(st: &ScanState) -> bool {
    let Some(space) = st.space.as_ref() else {
        return false;
    };
    // SAFETY: work_mem is a setting read on the backend's thread.
    let work_mem = unsafe { pg_sys::work_mem } as f64;
    let budget = work_mem * 1024.0 * HNSW_SCAN_MEM_MULTIPLIER.get();
    let used = (space.visited_count() * 96 + st.discarded.len() * 16) as f64;
    space.tuples() < HNSW_MAX_SCAN_TUPLES.get() as u64 && used < budget
}

/// The next batch of an iterative scan; false when there is none.
fn resume(st: &mut ScanState) -> bool {
    if st.discarded.is_empty() {
        return false;
    }
    if !may_resume(st) {
        // Return what was left behind, nearest first, without searching further.
        while let Some(Near(c)) = st.discarded.pop() {
            let before = st.results.len();
            queue(st, &[c]);
            if st.results.len() > before {
                return true;
            }
        }
        return false;
    }
    let batch = HNSW_EF_SEARCH.get() as usize;
    let mut entries = Vec::with_capacity(batch);
    while entries.len() < batch {
        match st.discarded.pop() {
            Some(Near(c)) => entries.push(c),
            None => break,
        }
    }
    let Some(mut space) = st.space.take() else {
        return false;
    };
    let found = search_layer(
        &mut space,
        &entries,
        batch,
        0,
        Some(&mut st.discarded),
        false,
    );
    st.space = Some(space);
    queue(st, &found);
    true
}

/// `amgettuple`.
#[pg_guard]
pub unsafe extern "C-unwind" fn amgettuple(
    scan: pg_sys::IndexScanDesc,
    _dir: pg_sys::ScanDirection::Type,
) -> bool {
    unsafe {
        let st = state(scan);
        if !st.started {
            st.started = true;
            start(scan, st);
        }
        let strict = HNSW_ITERATIVE_SCAN.get() == 2;
        loop {
            if let Some((d, heap)) = st.results.pop_front() {
                if strict && d < st.previous {
                    continue;
                }
                st.previous = d;
                (*scan).xs_heaptid = heap.item_pointer();
                (*scan).xs_recheck = false;
                (*scan).xs_recheckorderby = false;
                return true;
            }
            if st.done || HNSW_ITERATIVE_SCAN.get() == 0 || !resume(st) {
                st.done = true;
                return false;
            }
        }
    }
}

/// `amendscan`.
#[pg_guard]
pub unsafe extern "C-unwind" fn amendscan(scan: pg_sys::IndexScanDesc) {
    unsafe {
        let slot = (*scan).opaque.cast::<Slot>();
        if !slot.is_null() && !(*slot).is_null() {
            drop(Box::from_raw(*slot));
            *slot = core::ptr::null_mut();
        }
    }
}
