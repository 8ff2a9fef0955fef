//! Vacuuming an hnsw index (`ambulkdelete`, `amvacuumcleanup`).
//!
//! Under the update lock (inserts wait), in three passes over the pages, as pgvector does:
//! 1. elements whose heap row is dead are marked deleted (scans and searches pass through them
//!    but no longer return or choose them);
//! 2. the graph is repaired: every live element that links to a deleted one (or whose layer 0
//!    list is not full) is found its neighbors anew by a search from the entry point, as if it
//!    were inserted again, and is linked from the neighbors chosen, so the live elements that
//!    only deleted ones led to are reached again. The highest live element other than the entry
//!    point goes first; a deleted entry point is then replaced by it (a live one is repaired
//!    from it), and every other element is repaired from the entry point as it then is. Then
//!    every live element the entry point no longer reaches on one of its layers (all the links
//!    to it came from deleted elements, though its own are live) is linked again from the
//!    elements a search for it finds, one element per part cut off;
//! 3. the deleted elements and their neighbor items are removed from their pages (their line
//!    pointers stay, so no other item moves) and the space is given to the free space map.
//!
//! Each page change is a generic WAL record. A vacuum interrupted between passes leaves deleted
//! marks that the next one finishes.

use super::Support;
use super::disk::{DiskSpace, nblocks};
use super::graph::{Candidate, layer_limit, select_neighbors};
use super::insert::{choose_neighbors, link, lock_updates, search_neighbors, unlock_updates};
use super::page::{self, Meta, is_data_page, read_element, read_layer, set_deleted, write_layer};
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
            repair(index, support, &deleted, &live);
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

/// Whether live element `e` needs new neighbors: it links to a deleted element on some layer,
/// or its layer 0 list is not full (too many of its candidates may have been deleted).
///
/// # Safety
/// `index` is open.
unsafe fn needs_repair(
    index: pg_sys::Relation,
    m: u16,
    deleted: &HashMap<Tid, (Tid, u8)>,
    e: &Live,
) -> bool {
    let links = unsafe { all_links(index, e.neighbors, e.level, m) };
    links.iter().flatten().any(|t| deleted.contains_key(t))
        || links.first().is_none_or(|l0| l0.len() < layer_limit(0, m))
}

/// Relinks live element `e` on each layer where it links to a deleted element (or, on layer 0,
/// has room left): its live links stay, and the room is filled, by the heuristic, from the
/// nearest elements a search from the entry point of `meta` finds (it may be deleted: searches
/// pass through deleted elements) and the live links of its deleted neighbors; each element
/// added links back to `e`.
///
/// # Safety
/// The caller holds the update lock.
unsafe fn repair_element(
    index: pg_sys::Relation,
    support: Support,
    meta: &Meta,
    deleted: &HashMap<Tid, (Tid, u8)>,
    e: &Live,
) {
    unsafe {
        let m = meta.m;
        let mut probe = DiskSpace::new(index, support.dist, m, core::ptr::null());
        let Some(value) = probe.value(e.tid).cloned() else {
            return;
        };
        let mut space = DiskSpace::new(index, support.dist, m, value.ptr());
        let current = all_links(index, e.neighbors, e.level, m);
        let found = search_neighbors(&mut space, meta, e.level);
        let mut links: Vec<Vec<Tid>> = Vec::with_capacity(current.len());
        let mut added: Vec<(u8, Candidate<Tid>)> = Vec::new();
        for (l, now) in current.iter().enumerate() {
            let layer = l as u8;
            let limit = layer_limit(layer, m);
            let lost = now.iter().any(|t| deleted.contains_key(t));
            if !lost && now.len() >= limit {
                links.push(now.clone());
                continue;
            }
            let mut seen: HashSet<Tid> = HashSet::new();
            seen.insert(e.tid);
            let mut kept: Vec<Candidate<Tid>> = Vec::new();
            let mut pool: Vec<Candidate<Tid>> = Vec::new();
            // The live links stay; the deleted ones' live links are candidates.
            for t in now {
                if !deleted.contains_key(t)
                    && seen.insert(*t)
                    && let Some(d) = space.load(*t)
                {
                    kept.push(Candidate {
                        distance: d,
                        id: *t,
                    });
                }
            }
            for t in now {
                let Some((ntid, level)) = deleted.get(t) else {
                    continue;
                };
                for u in all_links(index, *ntid, *level, m)
                    .get(l)
                    .into_iter()
                    .flatten()
                {
                    if !deleted.contains_key(u)
                        && seen.insert(*u)
                        && let Some(d) = space.load(*u)
                    {
                        pool.push(Candidate {
                            distance: d,
                            id: *u,
                        });
                    }
                }
            }
            for c in found.get(l).into_iter().flatten() {
                if !space.is_deleted(c.id) && seen.insert(c.id) {
                    pool.push(*c);
                }
            }
            let before: HashSet<Tid> = kept.iter().map(|c| c.id).collect();
            pool.extend(kept);
            pool.sort_by(|a, b| a.distance.total_cmp(&b.distance));
            let chosen = select_neighbors(&pool, limit, |a, b| space.pair(a, b));
            let mut list: Vec<Tid> = Vec::with_capacity(chosen.len());
            for c in chosen {
                list.push(c.id);
                if !before.contains(&c.id) {
                    added.push((layer, c));
                }
            }
            links.push(list);
        }
        write_links(index, e.neighbors, m, &links);
        for (layer, c) in added {
            link(&mut space, index, c.id, e.tid, c.distance, layer);
        }
    }
}

/// Pass 2: repairs the graph around the deleted elements (the module's comment tells how).
///
/// # Safety
/// The caller holds the update lock; pass 1 marked `deleted`.
unsafe fn repair(
    index: pg_sys::Relation,
    support: Support,
    deleted: &HashMap<Tid, (Tid, u8)>,
    live: &[Live],
) {
    unsafe {
        let meta = page::read_meta(index);
        let m = meta.m;
        // The first live element of the highest level, the entry point aside.
        let mut highest: Option<&Live> = None;
        for e in live {
            if e.tid != meta.entry && highest.is_none_or(|h| e.level > h.level) {
                highest = Some(e);
            }
        }
        if let Some(h) = highest
            && needs_repair(index, m, deleted, h)
        {
            repair_element(index, support, &meta, deleted, h);
        }
        if deleted.contains_key(&meta.entry) {
            page::update_meta(index, |mt| match highest {
                Some(h) => {
                    mt.entry = h.tid;
                    mt.entry_level = i16::from(h.level);
                }
                None => {
                    mt.entry = Tid::INVALID;
                    mt.entry_level = -1;
                }
            });
        } else if let (Some(h), Some(entry)) = (highest, live.iter().find(|e| e.tid == meta.entry))
            && needs_repair(index, m, deleted, entry)
        {
            let from = Meta {
                entry: h.tid,
                entry_level: i16::from(h.level),
                ..meta
            };
            repair_element(index, support, &from, deleted, entry);
        }
        for e in live {
            pg_sys::vacuum_delay_point();
            let current = page::read_meta(index);
            if e.tid == current.entry || !needs_repair(index, m, deleted, e) {
                continue;
            }
            repair_element(index, support, &current, deleted, e);
            if !current.entry.is_valid() || i16::from(e.level) > current.entry_level {
                page::update_meta(index, |mt| {
                    mt.entry = e.tid;
                    mt.entry_level = i16::from(e.level);
                });
            }
        }
        reconnect(index, support, live);
    }
}

/// Makes every live element reachable again, on each of its layers, from the entry point. An
/// element whose own links are all live needs no repair, yet every link *to* it may have come
/// from deleted elements: it, and what only it leads to (a whole cluster of close rows, say),
/// would then drop out of every search. Layer by layer from the top (a search descends through
/// them), each part the entry point does not reach is linked, through one of its elements, from
/// the reached elements a search for that element finds, as an insert links a new element; one
/// search per part.
///
/// # Safety
/// The caller holds the update lock; pass 2's repairs are done.
unsafe fn reconnect(index: pg_sys::Relation, support: Support, live: &[Live]) {
    unsafe {
        let meta = page::read_meta(index);
        if !meta.entry.is_valid() || meta.entry_level < 0 {
            return;
        }
        let m = meta.m;
        let by_tid: HashMap<Tid, &Live> = live.iter().map(|e| (e.tid, e)).collect();
        // Marks what `from` reaches over live elements' links on `layer` (deleted ones are about
        // to go: they lead nowhere).
        let reach = |from: Tid, layer: u8, reached: &mut HashSet<Tid>| {
            let mut stack = vec![from];
            while let Some(t) = stack.pop() {
                let Some(e) = by_tid.get(&t).filter(|e| e.level >= layer) else {
                    continue;
                };
                if !reached.insert(t) {
                    continue;
                }
                let links = all_links(index, e.neighbors, layer, m);
                for u in links.get(usize::from(layer)).into_iter().flatten() {
                    if by_tid.contains_key(u) && !reached.contains(u) {
                        stack.push(*u);
                    }
                }
            }
        };
        for layer in (0..=meta.entry_level as u8).rev() {
            let mut reached = HashSet::new();
            reach(meta.entry, layer, &mut reached);
            for e in live.iter().filter(|e| e.level >= layer) {
                if reached.contains(&e.tid) {
                    continue;
                }
                pg_sys::vacuum_delay_point();
                link_from_reached(index, support, &meta, e);
                reach(e.tid, layer, &mut reached);
            }
        }
    }
}

/// Links live element `e` from the elements a search from the entry point finds for it: on each
/// of its layers from those the heuristic chooses, and on layer 0, when none of them keeps the
/// link, from the nearest with room in its list.
///
/// # Safety
/// The caller holds the update lock.
unsafe fn link_from_reached(index: pg_sys::Relation, support: Support, meta: &Meta, e: &Live) {
    unsafe {
        let mut probe = DiskSpace::new(index, support.dist, meta.m, core::ptr::null());
        let Some(value) = probe.value(e.tid).cloned() else {
            return;
        };
        let mut space = DiskSpace::new(index, support.dist, meta.m, value.ptr());
        let found = search_neighbors(&mut space, meta, e.level);
        for (l, layer) in found.iter().enumerate() {
            let layer_no = l as u8;
            let others: Vec<Candidate<Tid>> =
                layer.iter().filter(|c| c.id != e.tid).copied().collect();
            let mut kept = false;
            for c in choose_neighbors(&mut space, &others, layer_no, meta.m) {
                link(&mut space, index, c.id, e.tid, c.distance, layer_no);
                kept |= space.links(c.id, layer_no).contains(&e.tid);
            }
            // The nearest with room takes it as it is (a full list would choose again among
            // its links, and could drop some).
            if layer_no == 0
                && !kept
                && let Some(c) = others.iter().find(|c| {
                    !space.is_deleted(c.id) && space.links(c.id, 0).len() < layer_limit(0, meta.m)
                })
            {
                link(&mut space, index, c.id, e.tid, c.distance, 0);
            }
        }
    }
}

/// Rewrites every layer of the neighbor item at `at` (layer `l` gets `links[l]`, none when
/// missing), in one WAL record.
///
/// # Safety
/// The caller holds the update lock.
unsafe fn write_links(index: pg_sys::Relation, at: Tid, m: u16, links: &[Vec<Tid>]) {
    unsafe {
        let buf = crate::am::read_buffer(index, at.blk);
        lock_buffer(buf, true);
        let pg = pg_sys::BufferGetPage(buf);
        let level = if is_data_page(pg) {
            item(pg, at.off).and_then(|(p, len)| page::neighbors_level(p, len))
        } else {
            None
        };
        if let Some(level) = level {
            let mut x = Xlog::start(index);
            let p = x.register(buf, false);
            if let Some((ip, _)) = item(p, at.off) {
                for layer in 0..=level {
                    let l = links.get(usize::from(layer)).map_or(&[][..], Vec::as_slice);
                    write_layer(ip, layer, m, l);
                }
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
