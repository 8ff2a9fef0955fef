//! Vacuuming an hnsw index (`ambulkdelete`, `amvacuumcleanup`).
//!
//! Under the update lock (inserts wait), in three passes over the pages:
//! 1. elements whose heap row is dead are marked deleted (scans pass through them but no longer
//!    return them);
//! 2. every live element that links to a deleted one gets new links on that layer, chosen by the
//!    heuristic among its remaining links and the deleted elements' live links; an entry point
//!    that was deleted is replaced by the live element of the highest level;
//! 3. the deleted elements and their neighbor items are removed from their pages (their line
//!    pointers stay, so no other item moves) and the space is given to the free space map.
//!
//! Each page change is a generic WAL record. A vacuum interrupted between passes leaves deleted
//! marks that the next one finishes.

use super::Support;
use super::disk::{DiskSpace, nblocks};
use super::graph::{Candidate, layer_limit, select_neighbors};
use super::insert::{lock_updates, unlock_updates};
use super::page::{self, is_data_page, read_element, read_layer, set_deleted, write_layer};
use crate::am::{Tid, Xlog, item, lock_buffer};
use core::ffi::c_void;
use pgrx::pg_guard;
use pgrx::pg_sys;
use std::collections::{BTreeMap, HashMap, HashSet};

/// A block read with the vacuum's buffer strategy.
///
/// # Safety
/// `info` is the vacuum's; the block exists.
unsafe fn read(info: *mut pg_sys::IndexVacuumInfo, blk: u32) -> pg_sys::Buffer {
    unsafe {
        pg_sys::ReadBufferExtended(
            (*info).index,
            pg_sys::ForkNumber::MAIN_FORKNUM,
            blk,
            pg_sys::ReadBufferMode::RBM_NORMAL,
            (*info).strategy,
        )
    }
}

/// A live element and what its repair needs.
struct Live {
    tid: Tid,
    level: u8,
    neighbors: Tid,
}

/// `ambulkdelete`.
#[pg_guard]
pub unsafe extern "C-unwind" fn ambulkdelete(
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
        let index = (*info).index;
        let Some(callback) = callback else {
            return stats;
        };
        lock_updates(index);
        let support = Support::of(index);
        let meta = page::read_meta(index);
        let n = nblocks(index);

        // Pass 1: mark.
        let mut deleted: HashMap<Tid, (Tid, u8)> = HashMap::new();
        let mut live: Vec<Live> = Vec::new();
        let mut live_tuples = 0f64;
        for blk in 1..n {
            pg_sys::vacuum_delay_point();
            let buf = read(info, blk);
            lock_buffer(buf, true);
            let pg = pg_sys::BufferGetPage(buf);
            if !is_data_page(pg) {
                pg_sys::UnlockReleaseBuffer(buf);
                continue;
            }
            let mut dead = Vec::new();
            for off in 1..=pg_sys::PageGetMaxOffsetNumber(pg) {
                let Some((p, len)) = item(pg, off) else {
                    continue;
                };
                let Some((h, _)) = read_element(p, len) else {
                    continue;
                };
                let tid = Tid { blk, off };
                let mut heap = h.heap_tid.item_pointer();
                if h.deleted || callback(&mut heap, callback_state) {
                    deleted.insert(tid, (h.neighbors, h.level));
                    if !h.deleted {
                        dead.push(off);
                    }
                } else {
                    live.push(Live {
                        tid,
                        level: h.level,
                        neighbors: h.neighbors,
                    });
                    live_tuples += 1.0;
                }
            }
            if !dead.is_empty() {
                let mut x = Xlog::start(index);
                let p = x.register(buf, false);
                for off in &dead {
                    if let Some((ip, _)) = item(p, *off) {
                        set_deleted(ip, true);
                    }
                }
                x.finish();
                (*stats).tuples_removed += dead.len() as f64;
            }
            pg_sys::UnlockReleaseBuffer(buf);
        }
        (*stats).num_index_tuples = live_tuples;

        if !deleted.is_empty() {
            repair(index, support, meta.m, &deleted, &live);
            if deleted.contains_key(&meta.entry) {
                let best = live.iter().max_by_key(|l| l.level);
                page::update_meta(index, |mt| match best {
                    Some(l) => {
                        mt.entry = l.tid;
                        mt.entry_level = i16::from(l.level);
                    }
                    None => {
                        mt.entry = Tid::INVALID;
                        mt.entry_level = -1;
                    }
                });
            }
            free(info, &deleted);
        }
        unlock_updates(index);
        stats
    }
}

/// The links of the neighbor item at `at` on every layer up to `level`.
///
/// # Safety
/// `index` is open.
unsafe fn all_links(index: pg_sys::Relation, at: Tid, level: u8, m: u16) -> Vec<Vec<Tid>> {
    unsafe {
        let mut out = vec![Vec::new(); usize::from(level) + 1];
        if !at.is_valid() || at.blk >= nblocks(index) {
            return out;
        }
        let buf = crate::am::read_buffer(index, at.blk);
        lock_buffer(buf, false);
        let pg = pg_sys::BufferGetPage(buf);
        if is_data_page(pg)
            && let Some((p, len)) = item(pg, at.off)
        {
            for (l, links) in out.iter_mut().enumerate() {
                read_layer(p, len, l as u8, m, links);
            }
        }
        pg_sys::UnlockReleaseBuffer(buf);
        out
    }
}

/// Pass 2: relinks every live element that links to a deleted one.
///
/// # Safety
/// The caller holds the update lock.
unsafe fn repair(
    index: pg_sys::Relation,
    support: Support,
    m: u16,
    deleted: &HashMap<Tid, (Tid, u8)>,
    live: &[Live],
) {
    unsafe {
        // The deleted elements' links, read once.
        let mut deleted_links: HashMap<Tid, Vec<Vec<Tid>>> = HashMap::new();
        for (tid, (ntid, level)) in deleted {
            deleted_links.insert(*tid, all_links(index, *ntid, *level, m));
        }
        for e in live {
            pg_sys::vacuum_delay_point();
            let links = all_links(index, e.neighbors, e.level, m);
            if !links.iter().flatten().any(|t| deleted.contains_key(t)) {
                continue;
            }
            let mut space = DiskSpace::new(index, support.dist, m, core::ptr::null());
            if space.value(e.tid).is_none() {
                continue;
            }
            for (layer, current) in links.iter().enumerate() {
                if !current.iter().any(|t| deleted.contains_key(t)) {
                    continue;
                }
                let mut pool: Vec<Tid> = Vec::new();
                let mut seen: HashSet<Tid> = HashSet::new();
                seen.insert(e.tid);
                let mut add = |t: Tid, pool: &mut Vec<Tid>| {
                    if !deleted.contains_key(&t) && seen.insert(t) {
                        pool.push(t);
                    }
                };
                for t in current {
                    if let Some(dl) = deleted_links.get(t) {
                        for u in dl.get(layer).into_iter().flatten() {
                            add(*u, &mut pool);
                        }
                    } else {
                        add(*t, &mut pool);
                    }
                }
                let mut cands: Vec<Candidate<Tid>> = Vec::with_capacity(pool.len());
                for t in pool {
                    if space.value(t).is_some() {
                        let d = space.pair(e.tid, t);
                        cands.push(Candidate { distance: d, id: t });
                    }
                }
                cands.sort_by(|a, b| a.distance.total_cmp(&b.distance));
                let chosen: Vec<Tid> =
                    select_neighbors(&cands, layer_limit(layer as u8, m), |a, b| space.pair(a, b))
                        .into_iter()
                        .map(|c| c.id)
                        .collect();
                write_links(index, e.neighbors, layer as u8, m, &chosen);
            }
        }
    }
}

/// Rewrites layer `layer` of the neighbor item at `at`.
///
/// # Safety
/// The caller holds the update lock.
unsafe fn write_links(index: pg_sys::Relation, at: Tid, layer: u8, m: u16, links: &[Tid]) {
    unsafe {
        let buf = crate::am::read_buffer(index, at.blk);
        lock_buffer(buf, true);
        let pg = pg_sys::BufferGetPage(buf);
        let ok = is_data_page(pg)
            && item(pg, at.off)
                .is_some_and(|(p, len)| page::neighbors_level(p, len).is_some_and(|l| l >= layer));
        if ok {
            let mut x = Xlog::start(index);
            let p = x.register(buf, false);
            if let Some((ip, _)) = item(p, at.off) {
                write_layer(ip, layer, m, links);
            }
            x.finish();
        }
        pg_sys::UnlockReleaseBuffer(buf);
    }
}

/// Pass 3: removes the deleted elements and their neighbor items from their pages.
///
/// # Safety
/// The caller holds the update lock; pass 2 is done.
unsafe fn free(info: *mut pg_sys::IndexVacuumInfo, deleted: &HashMap<Tid, (Tid, u8)>) {
    unsafe {
        let index = (*info).index;
        let mut by_page: BTreeMap<u32, Vec<(u16, bool)>> = BTreeMap::new();
        for (tid, (ntid, _)) in deleted {
            by_page.entry(tid.blk).or_default().push((tid.off, true));
            if ntid.is_valid() {
                by_page.entry(ntid.blk).or_default().push((ntid.off, false));
            }
        }
        let n = nblocks(index);
        for (blk, mut offs) in by_page {
            if blk == page::META_BLKNO || blk >= n {
                continue;
            }
            pg_sys::vacuum_delay_point();
            // Highest offsets first, so a removed last line pointer does not shift the others.
            offs.sort_by_key(|o| core::cmp::Reverse(o.0));
            let buf = read(info, blk);
            lock_buffer(buf, true);
            let pg = pg_sys::BufferGetPage(buf);
            if is_data_page(pg) {
                let mut x = Xlog::start(index);
                let p = x.register(buf, false);
                for (off, element) in &offs {
                    let Some((ip, len)) = item(p, *off) else {
                        continue;
                    };
                    let kind_ok = if *element {
                        read_element(ip, len).is_some_and(|(h, _)| h.deleted)
                    } else {
                        page::neighbors_level(ip, len).is_some()
                    };
                    if kind_ok {
                        pg_sys::PageIndexTupleDeleteNoCompact(p, *off);
                    }
                }
                let header = p.cast::<pg_sys::PageHeaderData>();
                (*header).pd_flags |= pg_sys::PD_HAS_FREE_LINES as u16;
                let free_space = pg_sys::PageGetFreeSpace(p);
                x.finish();
                pg_sys::RecordPageWithFreeSpace(index, blk, free_space);
            }
            pg_sys::UnlockReleaseBuffer(buf);
        }
        pg_sys::FreeSpaceMapVacuum(index);
    }
}

/// `amvacuumcleanup`.
#[pg_guard]
pub unsafe extern "C-unwind" fn amvacuumcleanup(
    info: *mut pg_sys::IndexVacuumInfo,
    stats: *mut pg_sys::IndexBulkDeleteResult,
) -> *mut pg_sys::IndexBulkDeleteResult {
    unsafe {
        if (*info).analyze_only || stats.is_null() {
            return stats;
        }
        (*stats).num_pages = nblocks((*info).index);
        stats
    }
}
