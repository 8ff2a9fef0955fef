//! The `ivfflat` index access method: the column's values split into `lists` lists around
//! k-means centers; a scan reads the `ivfflat.probes` lists whose centers are nearest the query
//! and returns their rows in distance order (more lists at a time with
//! `ivfflat.iterative_scan = relaxed_order`, up to `ivfflat.max_probes`).
//!
//! A build samples the table (50 rows per list, at least 10,000, within
//! `maintenance_work_mem`), runs k-means on the sample (k-means++ seeding, then Lloyd's
//! iterations; spherical for the inner product and cosine classes, whose centers are
//! normalized), writes the lists, then assigns every row to its nearest center.

pub mod pages;

use crate::am::{
    Distance, IVFFLAT_DEFAULT_LISTS, IVFFLAT_ITERATIVE_SCAN, IVFFLAT_MAX_PROBES, IVFFLAT_PROBES,
    IVFFLAT_RELOPT_KIND, Kind, TempContext, Tid, Value, index_kind, lock_buffer, optional_proc,
    read_buffer,
};
use crate::fmgr::{raise, report};
use crate::hnsw::insert::{lock_updates, uniform, unlock_updates};
use crate::kernels::{f2h, h2f};
use core::ffi::{c_int, c_void};
use pages::{
    List, Meta, append, entry_bytes, init_page, is_ivfflat_page, list_bytes, next_page, read_lists,
    read_meta, write_meta,
};
use pgrx::pg_sys::errcodes::PgSqlErrorCode;
use pgrx::{PgLogLevel, pg_guard, pg_sys};

/// Support function numbers.
const DISTANCE_PROC: u16 = 1;
const NORM_PROC: u16 = 2;
const KMEANS_NORM_PROC: u16 = 4;
const TYPE_PROC: u16 = 5;

/// What an open ivfflat index works with.
#[derive(Clone, Copy)]
struct Support {
    kind: Kind,
    dist: Distance,
    /// Values are normalized (cosine).
    normalize: bool,
    /// Centers are normalized (inner product and cosine: spherical k-means).
    spherical: bool,
}

impl Support {
    unsafe fn of(index: pg_sys::Relation) -> Support {
        unsafe {
            let kind = index_kind(index, TYPE_PROC);
            Support {
                kind,
                dist: Distance::of_index(index, DISTANCE_PROC, kind),
                normalize: optional_proc(index, NORM_PROC).is_some(),
                spherical: optional_proc(index, KMEANS_NORM_PROC).is_some(),
            }
        }
    }

    /// The value the index stores for a column value (`None`: a zero vector under cosine).
    unsafe fn index_value(&self, d: pg_sys::Datum) -> Option<Value> {
        unsafe {
            let v = Value::copy_of(crate::fmgr::detoast(d));
            let v = if self.normalize {
                v.normalized(self.kind)?
            } else {
                v
            };
            if pages::ENTRY_HEADER + v.len() > pages::max_item_size() {
                raise(
                    PgSqlErrorCode::ERRCODE_PROGRAM_LIMIT_EXCEEDED,
                    "index tuple too large",
                );
            }
            Some(v)
        }
    }

    /// The list whose center is nearest `v`.
    fn nearest(&self, lists: &[List], v: &Value) -> usize {
        let mut best = (f32::INFINITY, 0usize);
        for (i, l) in lists.iter().enumerate() {
            // SAFETY: both are values of the index's type.
            let d = unsafe { self.dist.eval(v.ptr(), l.center.ptr()) };
            if d < best.0 || i == 0 {
                best = (d, i);
            }
        }
        best.1
    }
}

/// The parsed storage parameters.
#[repr(C)]
struct IvfflatOptions {
    vl_len: i32,
    lists: c_int,
}

unsafe fn lists_option(index: pg_sys::Relation) -> c_int {
    unsafe {
        let o = (*index).rd_options.cast::<IvfflatOptions>();
        if o.is_null() {
            IVFFLAT_DEFAULT_LISTS
        } else {
            (*o).lists
        }
    }
}

#[pg_guard]
unsafe extern "C-unwind" fn amoptions(
    reloptions: pg_sys::Datum,
    validate: bool,
) -> *mut pg_sys::bytea {
    let tab = [pg_sys::relopt_parse_elt {
        optname: c"lists".as_ptr(),
        opttype: pg_sys::relopt_type::RELOPT_TYPE_INT,
        offset: core::mem::offset_of!(IvfflatOptions, lists) as c_int,
    }];
    // SAFETY: the table describes IvfflatOptions.
    unsafe {
        pg_sys::build_reloptions(
            reloptions,
            validate,
            IVFFLAT_RELOPT_KIND.get(),
            core::mem::size_of::<IvfflatOptions>(),
            tab.as_ptr(),
            tab.len() as c_int,
        )
        .cast()
    }
}

#[pg_guard]
unsafe extern "C-unwind" fn amvalidate(_opclass: pg_sys::Oid) -> bool {
    true
}

/// pgvector's estimate: the generic cost with half the page reads sequential, of which the
/// probed share of the lists is paid before the first row; infinite without `ORDER BY`.
#[pg_guard]
unsafe extern "C-unwind" fn amcostestimate(
    root: *mut pg_sys::PlannerInfo,
    path: *mut pg_sys::IndexPath,
    loop_count: f64,
    startup: *mut pg_sys::Cost,
    total: *mut pg_sys::Cost,
    selectivity: *mut pg_sys::Selectivity,
    correlation: *mut f64,
    pages_out: *mut f64,
) {
    unsafe {
        if (*path).indexorderbys.is_null() {
            *startup = f64::INFINITY;
            *total = f64::INFINITY;
            *selectivity = 0.0;
            *correlation = 0.0;
            *pages_out = 0.0;
            return;
        }
        let mut costs = pg_sys::GenericCosts::default();
        pg_sys::genericcostestimate(root, path, loop_count, &mut costs);
        let info = (*path).indexinfo;
        let index = pg_sys::index_open((*info).indexoid, pg_sys::NoLock as pg_sys::LOCKMODE);
        let lists = f64::from(read_meta(index).lists.max(1));
        pg_sys::index_close(index, pg_sys::NoLock as pg_sys::LOCKMODE);
        let ratio = (f64::from(IVFFLAT_PROBES.get()) / lists).min(1.0);
        let sequential = 0.5;
        let mut seq_page_cost = 0.0;
        pg_sys::get_tablespace_page_costs(
            (*info).reltablespace,
            core::ptr::null_mut(),
            &mut seq_page_cost,
        );
        costs.indexTotalCost -=
            sequential * costs.numIndexPages * (costs.spc_random_page_cost - seq_page_cost);
        costs.indexStartupCost = costs.indexTotalCost * ratio;
        let startup_pages = costs.numIndexPages * ratio;
        let rel_pages = f64::from((*(*info).rel).pages);
        if startup_pages > rel_pages && ratio < 0.5 {
            costs.indexStartupCost -=
                (1.0 - sequential) * startup_pages * (costs.spc_random_page_cost - seq_page_cost);
            costs.indexStartupCost -= (startup_pages - rel_pages) * seq_page_cost;
        }
        *startup = costs.indexStartupCost;
        *total = costs.indexTotalCost;
        *selectivity = costs.indexSelectivity;
        *correlation = costs.indexCorrelation;
        *pages_out = costs.numIndexPages;
    }
}

/// A value as single precision floats (bits as 0 and 1).
fn to_floats(kind: Kind, v: &Value) -> Vec<f32> {
    // SAFETY: the value is of `kind`.
    unsafe {
        match kind {
            Kind::Vector => crate::vector::vector_at(v.ptr()).x.to_vec(),
            Kind::Halfvec => crate::halfvec::halfvec_at(v.ptr())
                .x
                .iter()
                .map(|h| h2f(*h))
                .collect(),
            Kind::Bit => {
                let b = crate::bitvec::bits_at(v.ptr());
                (0..b.len as usize)
                    .map(|i| f32::from((b.bytes[i / 8] >> (7 - i % 8)) & 1))
                    .collect()
            }
            Kind::Sparsevec => {
                let s = crate::sparsevec::sparsevec_at(v.ptr());
                let mut x = vec![0f32; s.dim.max(0) as usize];
                for (i, val) in s.indices.iter().zip(s.values) {
                    x[*i as usize] = *val;
                }
                x
            }
        }
    }
}

/// A center of `kind` from single precision floats (bits set above one half).
fn from_floats(kind: Kind, x: &[f32]) -> Value {
    let mut bytes: Vec<u8>;
    match kind {
        Kind::Halfvec => {
            bytes = vec![0u8; 8 + 2 * x.len()];
            bytes[4..6].copy_from_slice(&(x.len() as i16).to_ne_bytes());
            for (i, f) in x.iter().enumerate() {
                bytes[8 + 2 * i..10 + 2 * i].copy_from_slice(&f2h(*f).to_ne_bytes());
            }
        }
        Kind::Bit => {
            bytes = vec![0u8; 8 + x.len().div_ceil(8)];
            bytes[4..8].copy_from_slice(&(x.len() as i32).to_ne_bytes());
            for (i, f) in x.iter().enumerate() {
                if *f > 0.5 {
                    bytes[8 + i / 8] |= 1 << (7 - i % 8);
                }
            }
        }
        _ => {
            bytes = vec![0u8; 8 + 4 * x.len()];
            bytes[4..6].copy_from_slice(&(x.len() as i16).to_ne_bytes());
            for (i, f) in x.iter().enumerate() {
                bytes[8 + 4 * i..12 + 4 * i].copy_from_slice(&f.to_ne_bytes());
            }
        }
    }
    let len = bytes.len() as u32;
    bytes[0..4].copy_from_slice(&(len << 2).to_ne_bytes());
    // SAFETY: `bytes` is a complete varlena with a 4-byte header.
    unsafe { Value::copy_of(bytes.as_ptr()) }
}

fn normalize(x: &mut [f32]) {
    let n = crate::kernels::norm(x);
    if n > 0.0 {
        for v in x.iter_mut() {
            *v = (f64::from(*v) / n) as f32;
        }
    }
}

/// The index of the center nearest `x` (squared Euclidean, or largest inner product).
fn closest(centers: &[Vec<f32>], x: &[f32], spherical: bool) -> usize {
    let mut best = (f32::INFINITY, 0usize);
    for (i, c) in centers.iter().enumerate() {
        let d = if spherical {
            -crate::kernels::inner_product(c, x)
        } else {
            crate::kernels::l2_squared(c, x)
        };
        if d < best.0 {
            best = (d, i);
        }
    }
    best.1
}

/// k-means of `samples` into `k` centers of `dims` dimensions.
fn kmeans(samples: &[Vec<f32>], k: usize, dims: usize, spherical: bool) -> Vec<Vec<f32>> {
    let mut centers: Vec<Vec<f32>> = Vec::with_capacity(k);
    if samples.len() <= k {
        centers.extend(samples.iter().cloned());
        while centers.len() < k {
            centers.push((0..dims).map(|_| (uniform() * 2.0 - 1.0) as f32).collect());
        }
    } else {
        // k-means++ seeding.
        let first = ((uniform() * samples.len() as f64) as usize).min(samples.len() - 1);
        centers.push(samples[first].clone());
        let mut d2: Vec<f64> = samples
            .iter()
            .map(|s| f64::from(crate::kernels::l2_squared(s, &centers[0])))
            .collect();
        while centers.len() < k {
            let sum: f64 = d2.iter().sum();
            let pick = if sum > 0.0 {
                let mut target = uniform() * sum;
                let mut idx = samples.len() - 1;
                for (i, d) in d2.iter().enumerate() {
                    if target < *d {
                        idx = i;
                        break;
                    }
                    target -= d;
                }
                idx
            } else {
                ((uniform() * samples.len() as f64) as usize).min(samples.len() - 1)
            };
            let c = samples[pick].clone();
            for (d, s) in d2.iter_mut().zip(samples) {
                *d = d.min(f64::from(crate::kernels::l2_squared(s, &c)));
            }
            centers.push(c);
        }
        // Lloyd's iterations.
        let mut assignment = vec![usize::MAX; samples.len()];
        for _ in 0..50 {
            pg_sys::check_for_interrupts!();
            if spherical {
                centers.iter_mut().for_each(|c| normalize(c));
            }
            let mut changed = false;
            for (a, s) in assignment.iter_mut().zip(samples) {
                let c = closest(&centers, s, spherical);
                if *a != c {
                    *a = c;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
            let mut sums = vec![vec![0f64; dims]; k];
            let mut counts = vec![0usize; k];
            for (a, s) in assignment.iter().zip(samples) {
                counts[*a] += 1;
                for (acc, v) in sums[*a].iter_mut().zip(s) {
                    *acc += f64::from(*v);
                }
            }
            for ((c, sum), n) in centers.iter_mut().zip(&sums).zip(&counts) {
                if *n > 0 {
                    for (cv, s) in c.iter_mut().zip(sum) {
                        *cv = (s / *n as f64) as f32;
                    }
                }
            }
        }
    }
    if spherical {
        centers.iter_mut().for_each(|c| normalize(c));
    }
    centers
}

/// The build's state across both heap scans.
struct BuildState {
    index: pg_sys::Relation,
    support: Support,
    tmp: TempContext,
    /// Reservoir sample.
    samples: Vec<Vec<f32>>,
    sample_target: usize,
    seen: u64,
    /// Lists and rows waiting to be written (assignment scan).
    lists: Vec<List>,
    pending: Vec<(usize, Vec<u8>)>,
    pending_bytes: usize,
    memory_limit: usize,
    heap_tuples: f64,
    index_tuples: f64,
}

#[pg_guard]
unsafe extern "C-unwind" fn sample_callback(
    _index: pg_sys::Relation,
    _tid: pg_sys::ItemPointer,
    values: *mut pg_sys::Datum,
    isnull: *mut bool,
    _alive: bool,
    state: *mut c_void,
) {
    unsafe {
        let st = &mut *state.cast::<BuildState>();
        if *isnull {
            return;
        }
        let support = st.support;
        let d = *values;
        let Some(v) = st.tmp.run(|| support.index_value(d)) else {
            return;
        };
        st.seen += 1;
        let x = to_floats(support.kind, &v);
        if st.samples.len() < st.sample_target {
            st.samples.push(x);
        } else {
            let j = (uniform() * st.seen as f64) as usize;
            if j < st.sample_target {
                st.samples[j] = x;
            }
        }
    }
}

unsafe fn flush(st: &mut BuildState) {
    unsafe {
        let mut pending = core::mem::take(&mut st.pending);
        st.pending_bytes = 0;
        pending.sort_by_key(|p| p.0);
        let mut start = 0;
        while start < pending.len() {
            let list = pending[start].0;
            let end = start + pending[start..].iter().take_while(|p| p.0 == list).count();
            let entries: Vec<Vec<u8>> = pending[start..end].iter().map(|p| p.1.clone()).collect();
            append(st.index, &mut st.lists[list], &entries);
            start = end;
        }
    }
}

#[pg_guard]
unsafe extern "C-unwind" fn assign_callback(
    _index: pg_sys::Relation,
    tid: pg_sys::ItemPointer,
    values: *mut pg_sys::Datum,
    isnull: *mut bool,
    _alive: bool,
    state: *mut c_void,
) {
    unsafe {
        let st = &mut *state.cast::<BuildState>();
        st.heap_tuples += 1.0;
        if *isnull {
            return;
        }
        let support = st.support;
        let d = *values;
        let Some(v) = st.tmp.run(|| support.index_value(d)) else {
            return;
        };
        let list = support.nearest(&st.lists, &v);
        let bytes = entry_bytes(Tid::from_item_pointer(&*tid), &v);
        st.pending_bytes += bytes.len() + 64;
        st.pending.push((list, bytes));
        st.index_tuples += 1.0;
        if st.pending_bytes > st.memory_limit {
            flush(st);
        }
    }
}

/// Writes the metapage and the list pages (lists without entries yet).
unsafe fn write_lists(
    index: pg_sys::Relation,
    fork: pg_sys::ForkNumber::Type,
    meta: &Meta,
    centers: &[Value],
) {
    unsafe {
        let buf = crate::am::new_buffer(index, fork);
        let mut x = crate::am::Xlog::start(index);
        let page = x.register(buf, true);
        init_page(page, pages::FLAG_META);
        write_meta(page, meta);
        x.finish();
        pg_sys::UnlockReleaseBuffer(buf);

        let mut buf = crate::am::new_buffer(index, fork);
        let mut x = crate::am::Xlog::start(index);
        let mut page = x.register(buf, true);
        init_page(page, 0);
        for c in centers {
            let item = list_bytes(pg_sys::InvalidBlockNumber, pg_sys::InvalidBlockNumber, c);
            if !crate::am::fits(page, item.len()) {
                let nbuf = crate::am::new_buffer(index, fork);
                pages::set_next_page(page, pg_sys::BufferGetBlockNumber(nbuf));
                x.finish();
                pg_sys::UnlockReleaseBuffer(buf);
                buf = nbuf;
                x = crate::am::Xlog::start(index);
                page = x.register(buf, true);
                init_page(page, 0);
            }
            crate::am::add_item(index, page, &item);
        }
        x.finish();
        pg_sys::UnlockReleaseBuffer(buf);
        if fork == pg_sys::ForkNumber::INIT_FORKNUM {
            let n = pg_sys::RelationGetNumberOfBlocksInFork(index, fork);
            pg_sys::log_newpage_range(index, fork, 0, n, true);
        }
    }
}

/// Checks a new index's parameters as pgvector does; returns its metapage.
unsafe fn new_meta(index: pg_sys::Relation, support: &Support) -> Meta {
    unsafe {
        crate::am::check_column_type(index, "ivfflat");
        let dims = crate::am::column_dimensions(index);
        if dims < 0 {
            raise(
                PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
                "column does not have dimensions",
            );
        }
        let max = support.kind.max_dimensions();
        if i64::from(dims) > max {
            raise(
                PgSqlErrorCode::ERRCODE_PROGRAM_LIMIT_EXCEEDED,
                format!("column cannot have more than {max} dimensions for ivfflat index"),
            );
        }
        if support.spherical && dims == 1 {
            raise(
                PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
                "dimensions must be greater than one for this opclass",
            );
        }
        Meta {
            dimensions: dims as u32,
            lists: lists_option(index) as u32,
        }
    }
}

#[pg_guard]
unsafe extern "C-unwind" fn ambuild(
    heap: pg_sys::Relation,
    index: pg_sys::Relation,
    index_info: *mut pg_sys::IndexInfo,
) -> *mut pg_sys::IndexBuildResult {
    unsafe {
        let support = Support::of(index);
        let meta = new_meta(index, &support);
        let dims = meta.dimensions as usize;
        let memory_limit = pg_sys::maintenance_work_mem as usize * 1024;
        let per_sample = (dims * 4 + 64).max(1);
        let target = (meta.lists as usize * 50)
            .max(10000)
            .min((memory_limit / per_sample).max(1));
        let mut st = BuildState {
            index,
            support,
            tmp: TempContext::new(c"ivfflat build temporary context"),
            samples: Vec::new(),
            sample_target: target,
            seen: 0,
            lists: Vec::new(),
            pending: Vec::new(),
            pending_bytes: 0,
            memory_limit,
            heap_tuples: 0.0,
            index_tuples: 0.0,
        };
        crate::am::table_index_build_scan(
            heap,
            index,
            index_info,
            false,
            Some(sample_callback),
            (&raw mut st).cast::<c_void>(),
        );
        if st.samples.len() < meta.lists as usize {
            report(
                PgLogLevel::NOTICE,
                PgSqlErrorCode::ERRCODE_SUCCESSFUL_COMPLETION,
                "ivfflat index created with little data".into(),
                "This will cause low recall.",
                "Drop the index until the table has more data.",
            );
        }
        let centers = kmeans(&st.samples, meta.lists as usize, dims, support.spherical);
        st.samples = Vec::new();
        let centers: Vec<Value> = centers
            .iter()
            .map(|c| from_floats(support.kind, c))
            .collect();
        write_lists(index, pg_sys::ForkNumber::MAIN_FORKNUM, &meta, &centers);
        st.lists = read_lists(index);
        crate::am::table_index_build_scan(
            heap,
            index,
            index_info,
            true,
            Some(assign_callback),
            (&raw mut st).cast::<c_void>(),
        );
        flush(&mut st);
        let BuildState {
            tmp,
            heap_tuples,
            index_tuples,
            ..
        } = st;
        tmp.delete();
        let result = pg_sys::palloc0(core::mem::size_of::<pg_sys::IndexBuildResult>())
            .cast::<pg_sys::IndexBuildResult>();
        (*result).heap_tuples = heap_tuples;
        (*result).index_tuples = index_tuples;
        result
    }
}

#[pg_guard]
unsafe extern "C-unwind" fn ambuildempty(index: pg_sys::Relation) {
    unsafe {
        let support = Support::of(index);
        let meta = new_meta(index, &support);
        let centers = kmeans(
            &[],
            meta.lists as usize,
            meta.dimensions as usize,
            support.spherical,
        );
        let centers: Vec<Value> = centers
            .iter()
            .map(|c| from_floats(support.kind, c))
            .collect();
        write_lists(index, pg_sys::ForkNumber::INIT_FORKNUM, &meta, &centers);
    }
}

#[pg_guard]
unsafe extern "C-unwind" fn aminsert(
    index: pg_sys::Relation,
    values: *mut pg_sys::Datum,
    isnull: *mut bool,
    heap_tid: pg_sys::ItemPointer,
    _heap: pg_sys::Relation,
    _check_unique: pg_sys::IndexUniqueCheck::Type,
    _index_unchanged: bool,
    _index_info: *mut pg_sys::IndexInfo,
) -> bool {
    unsafe {
        if *isnull {
            return false;
        }
        let support = Support::of(index);
        let tmp = TempContext::new(c"ivfflat insert temporary context");
        let d = *values;
        let tid = Tid::from_item_pointer(&*heap_tid);
        tmp.run(|| {
            if let Some(v) = support.index_value(d) {
                lock_updates(index);
                let mut lists = read_lists(index);
                if !lists.is_empty() {
                    let i = support.nearest(&lists, &v);
                    append(index, &mut lists[i], &[entry_bytes(tid, &v)]);
                }
                unlock_updates(index);
            }
        });
        tmp.delete();
        false
    }
}

/// A scan in progress.
struct ScanState {
    support: Support,
    started: bool,
    query: Option<Value>,
    /// Lists by distance of their center to the query: first pages.
    order: Vec<u32>,
    next_list: usize,
    probes: usize,
    max_probes: usize,
    results: std::collections::VecDeque<(f32, Tid)>,
}

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

fn new_state(support: Support) -> ScanState {
    ScanState {
        support,
        started: false,
        query: None,
        order: Vec::new(),
        next_list: 0,
        probes: 1,
        max_probes: 1,
        results: std::collections::VecDeque::new(),
    }
}

#[pg_guard]
unsafe extern "C-unwind" fn ambeginscan(
    index: pg_sys::Relation,
    nkeys: c_int,
    norderbys: c_int,
) -> pg_sys::IndexScanDesc {
    unsafe {
        let scan = pg_sys::RelationGetIndexScan(index, nkeys, norderbys);
        let slot = pg_sys::palloc(core::mem::size_of::<Slot>()).cast::<Slot>();
        slot.write(Box::into_raw(Box::new(new_state(Support::of(index)))));
        crate::am::on_context_reset(pg_sys::CurrentMemoryContext, drop_state, slot.cast());
        (*scan).opaque = slot.cast();
        scan
    }
}

unsafe fn state<'a>(scan: pg_sys::IndexScanDesc) -> &'a mut ScanState {
    unsafe {
        let slot = (*scan).opaque.cast::<Slot>();
        if slot.is_null() || (*slot).is_null() {
            raise(
                PgSqlErrorCode::ERRCODE_INTERNAL_ERROR,
                "ivfflat scan has no state",
            );
        }
        &mut **slot
    }
}

#[pg_guard]
unsafe extern "C-unwind" fn amrescan(
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

/// Reads the next `probes` lists into the results, nearest first; false when none is left.
unsafe fn probe(index: pg_sys::Relation, st: &mut ScanState) -> bool {
    unsafe {
        let end = (st.next_list + st.probes)
            .min(st.order.len())
            .min(st.max_probes);
        if st.next_list >= end {
            return false;
        }
        let qptr = st.query.as_ref().map_or(core::ptr::null(), |v| v.ptr());
        let n = pg_sys::RelationGetNumberOfBlocksInFork(index, pg_sys::ForkNumber::MAIN_FORKNUM);
        let mut found: Vec<(f32, Tid)> = Vec::new();
        for &first in &st.order[st.next_list..end] {
            let mut blk = first;
            while blk != pg_sys::InvalidBlockNumber && blk < n {
                pg_sys::check_for_interrupts!();
                let buf = read_buffer(index, blk);
                lock_buffer(buf, false);
                let page = pg_sys::BufferGetPage(buf);
                let next = if is_ivfflat_page(page) {
                    for off in 1..=pg_sys::PageGetMaxOffsetNumber(page) {
                        if let Some((p, len)) = crate::am::item(page, off)
                            && len > pages::ENTRY_HEADER
                        {
                            let heap = Tid::read(p);
                            let d = if qptr.is_null() {
                                0.0
                            } else {
                                st.support.dist.eval(qptr, p.add(pages::ENTRY_HEADER))
                            };
                            found.push((d, heap));
                        }
                    }
                    next_page(page)
                } else {
                    pg_sys::InvalidBlockNumber
                };
                pg_sys::UnlockReleaseBuffer(buf);
                blk = next;
            }
        }
        st.next_list = end;
        found.sort_by(|a, b| a.0.total_cmp(&b.0));
        st.results.extend(found);
        true
    }
}

#[pg_guard]
unsafe extern "C-unwind" fn amgettuple(
    scan: pg_sys::IndexScanDesc,
    _dir: pg_sys::ScanDirection::Type,
) -> bool {
    unsafe {
        let index = (*scan).indexRelation;
        let st = state(scan);
        if !st.started {
            st.started = true;
            if (*scan).orderByData.is_null() || (*scan).numberOfOrderBys < 1 {
                raise(
                    PgSqlErrorCode::ERRCODE_INTERNAL_ERROR,
                    "cannot scan ivfflat index without order",
                );
            }
            if !crate::am::is_mvcc((*scan).xs_snapshot) {
                raise(
                    PgSqlErrorCode::ERRCODE_INTERNAL_ERROR,
                    "non-MVCC snapshots are not supported with ivfflat",
                );
            }
            crate::am::count_index_scan(index);
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
            let lists = read_lists(index);
            let mut order: Vec<(f32, u32)> = lists
                .iter()
                .map(|l| {
                    let d = match &st.query {
                        Some(q) => st.support.dist.eval(q.ptr(), l.center.ptr()),
                        None => 0.0,
                    };
                    (d, l.first_page)
                })
                .collect();
            order.sort_by(|a, b| a.0.total_cmp(&b.0));
            st.order = order.into_iter().map(|o| o.1).collect();
            st.probes = (IVFFLAT_PROBES.get().max(1) as usize).min(st.order.len().max(1));
            st.max_probes = if IVFFLAT_ITERATIVE_SCAN.get() != 0 {
                (IVFFLAT_MAX_PROBES.get().max(1) as usize).max(st.probes)
            } else {
                st.probes
            };
            probe(index, st);
        }
        loop {
            if let Some((_, heap)) = st.results.pop_front() {
                (*scan).xs_heaptid = heap.item_pointer();
                (*scan).xs_recheck = false;
                (*scan).xs_recheckorderby = false;
                return true;
            }
            if !probe(index, st) {
                return false;
            }
        }
    }
}

#[pg_guard]
unsafe extern "C-unwind" fn amendscan(scan: pg_sys::IndexScanDesc) {
    unsafe {
        let slot = (*scan).opaque.cast::<Slot>();
        if !slot.is_null() && !(*slot).is_null() {
            drop(Box::from_raw(*slot));
            *slot = core::ptr::null_mut();
        }
    }
}

#[pg_guard]
unsafe extern "C-unwind" fn ambulkdelete(
    info: *mut pg_sys::IndexVacuumInfo,
    stats: *mut pg_sys::IndexBulkDeleteResult,
    callback: pg_sys::IndexBulkDeleteCallback,
    callback_state: *mut c_void,
) -> *mut pg_sys::IndexBulkDeleteResult {
    unsafe {
        let stats = if stats.is_null() {
            pg_sys::palloc0(core::mem::size_of::<pg_sys::IndexBulkDeleteResult>())
                .cast::<pg_sys::IndexBulkDeleteResult>()
        } else {
            stats
        };
        let Some(callback) = callback else {
            return stats;
        };
        let index = (*info).index;
        lock_updates(index);
        let lists = read_lists(index);
        let n = pg_sys::RelationGetNumberOfBlocksInFork(index, pg_sys::ForkNumber::MAIN_FORKNUM);
        let mut live = 0f64;
        for l in &lists {
            let mut blk = l.first_page;
            while blk != pg_sys::InvalidBlockNumber && blk < n {
                pg_sys::vacuum_delay_point();
                let buf = pg_sys::ReadBufferExtended(
                    index,
                    pg_sys::ForkNumber::MAIN_FORKNUM,
                    blk,
                    pg_sys::ReadBufferMode::RBM_NORMAL,
                    (*info).strategy,
                );
                lock_buffer(buf, true);
                let page = pg_sys::BufferGetPage(buf);
                if !is_ivfflat_page(page) {
                    pg_sys::UnlockReleaseBuffer(buf);
                    break;
                }
                let mut dead: Vec<u16> = Vec::new();
                for off in 1..=pg_sys::PageGetMaxOffsetNumber(page) {
                    if let Some((p, _)) = crate::am::item(page, off) {
                        let mut heap = Tid::read(p).item_pointer();
                        if callback(&mut heap, callback_state) {
                            dead.push(off);
                        } else {
                            live += 1.0;
                        }
                    }
                }
                if !dead.is_empty() {
                    let mut x = crate::am::Xlog::start(index);
                    let p = x.register(buf, false);
                    pg_sys::PageIndexMultiDelete(p, dead.as_mut_ptr(), dead.len() as c_int);
                    x.finish();
                    (*stats).tuples_removed += dead.len() as f64;
                }
                let next = next_page(page);
                pg_sys::UnlockReleaseBuffer(buf);
                blk = next;
            }
        }
        (*stats).num_index_tuples = live;
        unlock_updates(index);
        stats
    }
}

#[pg_guard]
unsafe extern "C-unwind" fn amvacuumcleanup(
    info: *mut pg_sys::IndexVacuumInfo,
    stats: *mut pg_sys::IndexBulkDeleteResult,
) -> *mut pg_sys::IndexBulkDeleteResult {
    unsafe {
        if (*info).analyze_only || stats.is_null() {
            return stats;
        }
        (*stats).num_pages = pg_sys::RelationGetNumberOfBlocksInFork(
            (*info).index,
            pg_sys::ForkNumber::MAIN_FORKNUM,
        );
        stats
    }
}

crate::fmgr::sql_function!(
    /// `ivfflathandler(internal)`: the access method's routines.
    pg_finfo_ivfflathandler, ivfflathandler, |_fc| {
        let r = pg_sys::palloc0(core::mem::size_of::<pg_sys::IndexAmRoutine>()).cast::<pg_sys::IndexAmRoutine>();
        (*r).type_ = pg_sys::NodeTag::T_IndexAmRoutine;
        (*r).amstrategies = 0;
        (*r).amsupport = 5;
        (*r).amcanorderbyop = true;
        (*r).amoptionalkey = true;
        (*r).amparallelvacuumoptions = pg_sys::VACUUM_OPTION_PARALLEL_BULKDEL as u8;
        (*r).amkeytype = pg_sys::InvalidOid;
        (*r).ambuild = Some(ambuild);
        (*r).ambuildempty = Some(ambuildempty);
        (*r).aminsert = Some(aminsert);
        (*r).ambulkdelete = Some(ambulkdelete);
        (*r).amvacuumcleanup = Some(amvacuumcleanup);
        (*r).amcostestimate = Some(amcostestimate);
        (*r).amoptions = Some(amoptions);
        (*r).amvalidate = Some(amvalidate);
        (*r).ambeginscan = Some(ambeginscan);
        (*r).amrescan = Some(amrescan);
        (*r).amgettuple = Some(amgettuple);
        (*r).amendscan = Some(amendscan);
        pg_sys::Datum::from(r)
    }
);
