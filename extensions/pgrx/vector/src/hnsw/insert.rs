//! Adding one element to the graph on the pages (`aminsert`, and builds past their memory).
//!
//! Inserts hold the index's update lock (a heavyweight lock on block 0, exclusive), so one
//! insert or vacuum changes the graph at a time while scans go on. The new element is found its
//! neighbors layer by layer, written (element and neighbor item in one WAL record), then linked
//! from each neighbor, whose list is pruned by the heuristic when full; each such change is its
//! own WAL record, so a crash leaves every link pointing at a complete element. The metapage
//! moves the entry point last.

use super::disk::DiskSpace;
use super::graph::{
    Candidate, descend_wide, layer_limit, random_level, search_layer, select_neighbors,
};
use super::page::{
    self, ElementHeader, META_BLKNO, Meta, element_bytes, init_page, is_data_page, max_level,
    neighbors_bytes, read_layer, write_layer,
};
use crate::am::{Distance, Tid, Value, Xlog, fits, item, lock_buffer, new_buffer, read_buffer};
use crate::fmgr::maxalign;
use pgrx::pg_sys;

/// The block of the update lock (a page lock, not a buffer lock).
pub const UPDATE_LOCK: u32 = 0;

/// Takes the update lock.
///
/// # Safety
/// `index` is open.
pub unsafe fn lock_updates(index: pg_sys::Relation) {
    unsafe {
        pg_sys::LockPage(
            index,
            UPDATE_LOCK,
            pg_sys::ExclusiveLock as pg_sys::LOCKMODE,
        )
    };
}

/// Releases the update lock.
///
/// # Safety
/// The caller holds it.
pub unsafe fn unlock_updates(index: pg_sys::Relation) {
    unsafe {
        pg_sys::UnlockPage(
            index,
            UPDATE_LOCK,
            pg_sys::ExclusiveLock as pg_sys::LOCKMODE,
        )
    };
}

/// A uniform random number in [0, 1) from PostgreSQL's generator.
pub fn uniform() -> f64 {
    // SAFETY: the global generator is this backend's.
    unsafe { pg_sys::pg_prng_double(&raw mut pg_sys::pg_global_prng_state) }
}

/// Adds `value` (already normalized if the operator class wants it) for heap row `heap_tid`.
///
/// # Safety
/// `index` is an open hnsw index; the caller holds the update lock.
pub unsafe fn insert(index: pg_sys::Relation, dist: Distance, value: &Value, heap_tid: Tid) {
    unsafe {
        let meta = page::read_meta(index);
        let m = meta.m;
        let level = random_level(uniform(), m, max_level(m));
        let mut space = DiskSpace::new(index, dist, m, value.ptr());

        let layers = find_neighbors(&mut space, &meta, level);
        let links: Vec<Vec<Tid>> = layers
            .iter()
            .map(|l| l.iter().map(|c| c.id).collect())
            .collect();
        let (tid, new_insert_page) = write_element(index, &meta, level, &links, value, heap_tid);

        for (layer, chosen) in layers.iter().enumerate() {
            for c in chosen {
                link(&mut space, index, c.id, tid, c.distance, layer as u8);
            }
        }

        let new_entry = !meta.entry.is_valid() || i16::from(level) > meta.entry_level;
        if new_entry || new_insert_page != meta.insert_page {
            page::update_meta(index, |mt| {
                if new_entry {
                    mt.entry = tid;
                    mt.entry_level = i16::from(level);
                }
                mt.insert_page = new_insert_page;
            });
        }
    }
}

/// The `ef_construction` nearest elements to `space`'s query on each layer up to `level`
/// (nearest first), found from the entry point of `meta` down; layers above the entry point's
/// have none. Elements marked deleted are among them: they lead searches on.
pub fn search_neighbors(space: &mut DiskSpace, meta: &Meta, level: u8) -> Vec<Vec<Candidate<Tid>>> {
    let mut layers: Vec<Vec<Candidate<Tid>>> = vec![Vec::new(); usize::from(level) + 1];
    let entry = if meta.entry.is_valid() && meta.entry_level >= 0 {
        space.load(meta.entry).map(|d| Candidate {
            distance: d,
            id: meta.entry,
        })
    } else {
        None
    };
    let Some(entry) = entry else {
        return layers;
    };
    let entry_level = meta.entry_level as u8;
    // Wide, as the in-memory build descends (graph.rs's descend_wide says why).
    let mut eps = descend_wide(
        space,
        entry,
        entry_level,
        level,
        usize::from(meta.ef_construction),
    );
    for layer in (0..=level.min(entry_level)).rev() {
        let w = search_layer(
            space,
            &eps,
            usize::from(meta.ef_construction),
            layer,
            None,
            true,
        );
        layers[usize::from(layer)] = w.clone();
        eps = w;
    }
    layers
}

/// The neighbors of a new element of `level` on each of its layers: of the
/// [`search_neighbors`], those [`choose_neighbors`] keeps.
pub fn find_neighbors(space: &mut DiskSpace, meta: &Meta, level: u8) -> Vec<Vec<Candidate<Tid>>> {
    let found = search_neighbors(space, meta, level);
    found
        .iter()
        .enumerate()
        .map(|(layer, w)| choose_neighbors(space, w, layer as u8, meta.m))
        .collect()
}

/// Of the candidates `w` a search found on `layer` (nearest first), those the heuristic
/// chooses among the ones not marked deleted.
pub fn choose_neighbors(
    space: &mut DiskSpace,
    w: &[Candidate<Tid>],
    layer: u8,
    m: u16,
) -> Vec<Candidate<Tid>> {
    let eligible: Vec<Candidate<Tid>> = w
        .iter()
        .filter(|c| !space.is_deleted(c.id))
        .copied()
        .collect();
    select_neighbors(&eligible, layer_limit(layer, m), |a, b| space.pair(a, b))
}

/// Writes a new element and its neighbor item; returns the element's position and the page
/// inserts should try next.
///
/// # Safety
/// As [`insert`].
unsafe fn write_element(
    index: pg_sys::Relation,
    meta: &Meta,
    level: u8,
    links: &[Vec<Tid>],
    value: &Value,
    heap_tid: Tid,
) -> (Tid, u32) {
    unsafe {
        let nbytes = neighbors_bytes(level, meta.m, links);
        let esize = maxalign(page::element_size(value.len()));
        let both = esize + nbytes.len() + core::mem::size_of::<pg_sys::ItemIdData>();

        // A page with room for both: the insert page, then pages the free space map knows
        // (each found full is recorded so and the next one asked for).
        let mut target: Option<pg_sys::Buffer> = None;
        let n = super::disk::nblocks(index);
        let mut candidate = meta.insert_page;
        let mut from_fsm = false;
        for _ in 0..8 {
            if candidate != META_BLKNO && candidate != pg_sys::InvalidBlockNumber && candidate < n {
                let buf = read_buffer(index, candidate);
                lock_buffer(buf, true);
                let page = pg_sys::BufferGetPage(buf);
                if is_data_page(page) && fits(page, both) {
                    target = Some(buf);
                    break;
                }
                let free = if is_data_page(page) {
                    pg_sys::PageGetFreeSpace(page)
                } else {
                    0
                };
                pg_sys::UnlockReleaseBuffer(buf);
                candidate = if from_fsm {
                    pg_sys::RecordAndGetPageWithFreeSpace(index, candidate, free, both)
                } else {
                    pg_sys::GetPageWithFreeSpace(index, both)
                };
            } else if !from_fsm {
                candidate = pg_sys::GetPageWithFreeSpace(index, both);
            } else {
                break;
            }
            from_fsm = true;
        }
        let mut x = Xlog::start(index);
        let (ebuf, epage, nbuf, npage, insert_page);
        match target {
            Some(buf) => {
                let p = x.register(buf, false);
                (ebuf, epage, nbuf, npage) = (buf, p, buf, p);
                // A page from the free space map does not replace the page at the end.
                insert_page = if meta.insert_page == META_BLKNO {
                    pg_sys::BufferGetBlockNumber(buf)
                } else {
                    meta.insert_page
                };
            }
            None => {
                let buf = new_buffer(index, pg_sys::ForkNumber::MAIN_FORKNUM);
                let p = x.register(buf, true);
                init_page(p, 0);
                if fits(p, both) {
                    (ebuf, epage, nbuf, npage) = (buf, p, buf, p);
                    insert_page = pg_sys::BufferGetBlockNumber(buf);
                } else {
                    let buf2 = new_buffer(index, pg_sys::ForkNumber::MAIN_FORKNUM);
                    let p2 = x.register(buf2, true);
                    init_page(p2, 0);
                    (ebuf, epage, nbuf, npage) = (buf, p, buf2, p2);
                    insert_page = pg_sys::BufferGetBlockNumber(buf2);
                }
            }
        }
        let ntid = page::add(index, npage, pg_sys::BufferGetBlockNumber(nbuf), &nbytes);
        let header = ElementHeader {
            level,
            deleted: false,
            neighbors: ntid,
            heap_tid,
        };
        let ebytes = element_bytes(&header, value.bytes());
        let tid = page::add(index, epage, pg_sys::BufferGetBlockNumber(ebuf), &ebytes);
        x.finish();
        if from_fsm && target.is_some() {
            let page = pg_sys::BufferGetPage(ebuf);
            pg_sys::RecordPageWithFreeSpace(
                index,
                pg_sys::BufferGetBlockNumber(ebuf),
                pg_sys::PageGetFreeSpace(page),
            );
        }
        if nbuf != ebuf {
            pg_sys::UnlockReleaseBuffer(nbuf);
        }
        pg_sys::UnlockReleaseBuffer(ebuf);
        (tid, insert_page)
    }
}

/// Links `new` (at `distance`) from `from`'s list on `layer`, pruning a full list by the
/// heuristic over its links and `new`.
///
/// # Safety
/// As [`insert`]; `from` was read by `space`.
pub unsafe fn link(
    space: &mut DiskSpace,
    index: pg_sys::Relation,
    from: Tid,
    new: Tid,
    distance: f32,
    layer: u8,
) {
    unsafe {
        let Some(e) = space.elements.get(&from) else {
            return;
        };
        if e.header.level < layer {
            return;
        }
        let at = e.header.neighbors;
        let m = space.m;
        let current = space.links(from, layer);
        if current.contains(&new) {
            return;
        }
        let limit = layer_limit(layer, m);
        let updated: Vec<Tid> = if current.len() < limit {
            let mut l = current;
            l.push(new);
            l
        } else {
            // The list is full: choose among its links and the new element, from `from`'s side.
            let mut cands = Vec::with_capacity(current.len() + 1);
            cands.push(Candidate { distance, id: new });
            for t in current {
                if !space.elements.contains_key(&t) && space.load(t).is_none() {
                    continue;
                }
                // A link to an element vacuum marked deleted is the first to go.
                if space.is_deleted(t) {
                    continue;
                }
                let d = space.pair(from, t);
                cands.push(Candidate { distance: d, id: t });
            }
            cands.sort_by(|a, b| a.distance.total_cmp(&b.distance));
            select_neighbors(&cands, limit, |a, b| space.pair(a, b))
                .into_iter()
                .map(|c| c.id)
                .collect()
        };
        if at.blk >= super::disk::nblocks(index) {
            return;
        }
        let buf = read_buffer(index, at.blk);
        lock_buffer(buf, true);
        let pg = pg_sys::BufferGetPage(buf);
        let ok = is_data_page(pg)
            && item(pg, at.off).is_some_and(|(p, len)| {
                let mut probe = Vec::new();
                read_layer(p, len, layer, m, &mut probe)
            });
        if ok {
            let mut x = Xlog::start(index);
            let p = x.register(buf, false);
            if let Some((ip, _)) = item(p, at.off) {
                write_layer(ip, layer, m, &updated);
            }
            x.finish();
        }
        pg_sys::UnlockReleaseBuffer(buf);
    }
}
