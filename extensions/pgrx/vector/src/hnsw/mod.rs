//! The `hnsw` index access method: a hierarchical navigable small world graph of the column's
//! values on the index's pages, for `ORDER BY column <op> value LIMIT k`. Its operator classes
//! and options are pgvector's (`m`, `ef_construction`, `hnsw.ef_search`, iterative scans).

pub mod build;
pub mod disk;
pub mod graph;
pub mod insert;
pub mod page;
pub mod scan;
pub mod vacuum;

use crate::am::{
    Distance, HNSW_DEFAULT_EF_CONSTRUCTION, HNSW_DEFAULT_M, HNSW_EF_SEARCH, HNSW_RELOPT_KIND, Kind,
    index_kind, optional_proc,
};
use core::ffi::c_int;
use pgrx::pg_guard;
use pgrx::pg_sys;

/// Support function numbers: the distance, the norm (cosine classes), the type.
pub const DISTANCE_PROC: u16 = 1;
/// The norm support function (present for cosine operator classes).
pub const NORM_PROC: u16 = 2;
/// The type support function.
pub const TYPE_PROC: u16 = 3;

/// What an open hnsw index works with.
#[derive(Clone, Copy)]
pub struct Support {
    /// The index.
    pub index: pg_sys::Relation,
    /// The type it holds.
    pub kind: Kind,
    /// Its distance.
    pub dist: Distance,
    /// Whether values are normalized (cosine operator classes).
    pub normalize: bool,
}

impl Support {
    /// The support of `index`.
    ///
    /// # Safety
    /// `index` is an open hnsw index.
    pub unsafe fn of(index: pg_sys::Relation) -> Support {
        unsafe {
            let kind = index_kind(index, TYPE_PROC);
            Support {
                index,
                kind,
                dist: Distance::of_index(index, DISTANCE_PROC, kind),
                normalize: optional_proc(index, NORM_PROC).is_some(),
            }
        }
    }
}

/// The parsed storage parameters.
#[repr(C)]
struct HnswOptions {
    vl_len: i32,
    m: c_int,
    ef_construction: c_int,
}

/// `m` and `ef_construction` of `index` (defaults when not given).
///
/// # Safety
/// `index` is an open hnsw index.
pub unsafe fn options(index: pg_sys::Relation) -> (c_int, c_int) {
    unsafe {
        let o = (*index).rd_options.cast::<HnswOptions>();
        if o.is_null() {
            (HNSW_DEFAULT_M, HNSW_DEFAULT_EF_CONSTRUCTION)
        } else {
            ((*o).m, (*o).ef_construction)
        }
    }
}

#[pg_guard]
unsafe extern "C-unwind" fn amoptions(
    reloptions: pg_sys::Datum,
    validate: bool,
) -> *mut pg_sys::bytea {
    let tab = [
        pg_sys::relopt_parse_elt {
            optname: c"m".as_ptr(),
            opttype: pg_sys::relopt_type::RELOPT_TYPE_INT,
            offset: core::mem::offset_of!(HnswOptions, m) as c_int,
        },
        pg_sys::relopt_parse_elt {
            optname: c"ef_construction".as_ptr(),
            opttype: pg_sys::relopt_type::RELOPT_TYPE_INT,
            offset: core::mem::offset_of!(HnswOptions, ef_construction) as c_int,
        },
    ];
    // SAFETY: the table describes HnswOptions.
    unsafe {
        pg_sys::build_reloptions(
            reloptions,
            validate,
            HNSW_RELOPT_KIND.get(),
            core::mem::size_of::<HnswOptions>(),
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

/// The cost of an index scan: pgvector's estimate of the share of the index a search visits
/// (the layers above 0 at `m` each, and `2·m·ef_search` on layer 0 scaled by how much of it is
/// new), applied to the generic estimate; an index scan without `ORDER BY` costs infinity.
#[pg_guard]
unsafe extern "C-unwind" fn amcostestimate(
    root: *mut pg_sys::PlannerInfo,
    path: *mut pg_sys::IndexPath,
    loop_count: f64,
    startup: *mut pg_sys::Cost,
    total: *mut pg_sys::Cost,
    selectivity: *mut pg_sys::Selectivity,
    correlation: *mut f64,
    pages: *mut f64,
) {
    unsafe {
        if (*path).indexorderbys.is_null() {
            *startup = f64::INFINITY;
            *total = f64::INFINITY;
            *selectivity = 0.0;
            *correlation = 0.0;
            *pages = 0.0;
            return;
        }
        let mut costs = pg_sys::GenericCosts::default();
        pg_sys::genericcostestimate(root, path, loop_count, &mut costs);

        let info = (*path).indexinfo;
        let index = pg_sys::index_open((*info).indexoid, pg_sys::NoLock as pg_sys::LOCKMODE);
        let m = f64::from(page::read_meta(index).m.max(2));
        pg_sys::index_close(index, pg_sys::NoLock as pg_sys::LOCKMODE);

        let tuples = (*info).tuples;
        let ratio = if tuples > 0.0 {
            let ef_search = f64::from(HNSW_EF_SEARCH.get());
            let entry_level = (tuples.ln() / m.ln()).floor();
            let layer0_max = 2.0 * m * ef_search;
            let layer0_share = 0.55 * tuples.ln() / (m.ln() * (1.0 + ef_search.ln()));
            ((entry_level * m + layer0_max * layer0_share) / tuples).min(1.0)
        } else {
            1.0
        };

        let mut seq_page_cost = 0.0;
        pg_sys::get_tablespace_page_costs(
            (*info).reltablespace,
            core::ptr::null_mut(),
            &mut seq_page_cost,
        );
        costs.indexStartupCost = costs.indexTotalCost * ratio;
        let startup_pages = costs.numIndexPages * ratio;
        let rel_pages = f64::from((*(*info).rel).pages);
        if startup_pages > rel_pages && ratio < 0.5 {
            costs.indexStartupCost -= startup_pages * (costs.spc_random_page_cost - seq_page_cost);
            costs.indexStartupCost -= (startup_pages - rel_pages) * seq_page_cost;
        }
        *startup = costs.indexStartupCost;
        *total = costs.indexTotalCost;
        *selectivity = costs.indexSelectivity;
        *correlation = costs.indexCorrelation;
        *pages = costs.numIndexPages;
    }
}

crate::fmgr::sql_function!(
    /// `hnswhandler(internal)`: the access method's routines.
    pg_finfo_hnswhandler, hnswhandler, |_fc| {
        let r = pg_sys::palloc0(core::mem::size_of::<pg_sys::IndexAmRoutine>()).cast::<pg_sys::IndexAmRoutine>();
        (*r).type_ = pg_sys::NodeTag::T_IndexAmRoutine;
        (*r).amstrategies = 0;
        (*r).amsupport = 3;
        (*r).amoptsprocnum = 0;
        (*r).amcanorder = false;
        (*r).amcanorderbyop = true;
        (*r).amcanbackward = false;
        (*r).amcanunique = false;
        (*r).amcanmulticol = false;
        (*r).amoptionalkey = true;
        (*r).amsearcharray = false;
        (*r).amsearchnulls = false;
        (*r).amstorage = false;
        (*r).amclusterable = false;
        (*r).ampredlocks = false;
        (*r).amcanparallel = false;
        (*r).amcaninclude = false;
        (*r).amusemaintenanceworkmem = false;
        (*r).amparallelvacuumoptions = pg_sys::VACUUM_OPTION_PARALLEL_BULKDEL as u8;
        (*r).amkeytype = pg_sys::InvalidOid;
        (*r).ambuild = Some(build::ambuild);
        (*r).ambuildempty = Some(build::ambuildempty);
        (*r).aminsert = Some(build::aminsert);
        (*r).ambulkdelete = Some(vacuum::ambulkdelete);
        (*r).amvacuumcleanup = Some(vacuum::amvacuumcleanup);
        (*r).amcostestimate = Some(amcostestimate);
        (*r).amoptions = Some(amoptions);
        (*r).amvalidate = Some(amvalidate);
        (*r).ambeginscan = Some(scan::ambeginscan);
        (*r).amrescan = Some(scan::amrescan);
        (*r).amgettuple = Some(scan::amgettuple);
        (*r).amendscan = Some(scan::amendscan);
        pg_sys::Datum::from(r)
    }
);
