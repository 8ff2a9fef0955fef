//! The pages of an hnsw index (this implementation's own layout).
//!
//! Block 0 is the metapage: the graph's parameters, its entry point and the page new elements
//! go to. Every other block holds items of two kinds: an *element* (its level, a deleted flag,
//! the heap row it stands for, where its neighbor item is, and the value itself, 8-byte aligned)
//! and an element's *neighbor item* (its links: 2·m slots for layer 0, m for each layer above, an
//! empty slot ending a layer's list). A neighbor item never changes size, so linking rewrites it
//! in place. Each page has 8 bytes of special space naming it an hnsw page.

use crate::am::{Tid, Xlog, add_item, empty_page_free, item};
use crate::fmgr::maxalign;
use pgrx::pg_sys;

/// "HNSW" in the metapage.
pub const MAGIC: u32 = 0x4853_4E57;
/// The layout version.
pub const VERSION: u32 = 1;
/// The metapage's block.
pub const META_BLKNO: u32 = 0;
/// The identifier in each page's special space.
pub const PAGE_ID: u16 = 0xFF91;
/// Bytes of special space.
pub const SPECIAL_SIZE: usize = 8;
/// Special space flag of the metapage.
pub const FLAG_META: u16 = 1;

/// An element item's kind byte.
pub const KIND_ELEMENT: u8 = 1;
/// A neighbor item's kind byte.
pub const KIND_NEIGHBORS: u8 = 2;
/// Bytes before an element's value.
pub const ELEMENT_HEADER: usize = 24;
/// Bytes before a neighbor item's slots.
pub const NEIGHBORS_HEADER: usize = 4;
/// Bytes of a link slot.
pub const SLOT: usize = 6;

/// The metapage's contents.
#[derive(Clone, Copy, Debug)]
pub struct Meta {
    /// The column's dimensions.
    pub dimensions: u32,
    /// Connections per layer (twice this on layer 0).
    pub m: u16,
    /// Candidates considered when linking.
    pub ef_construction: u16,
    /// The element searches start from.
    pub entry: Tid,
    /// Its level (-1 for an empty graph).
    pub entry_level: i16,
    /// The page new elements are tried on first.
    pub insert_page: u32,
}

/// The links an element of `level` has room for, all layers together.
pub fn slots(level: u8, m: u16) -> usize {
    (usize::from(level) + 2) * usize::from(m)
}

/// Where layer `layer`'s slots start, and how many it has.
pub fn layer_slots(layer: u8, m: u16) -> (usize, usize) {
    let m = usize::from(m);
    if layer == 0 {
        (0, 2 * m)
    } else {
        (2 * m + (usize::from(layer) - 1) * m, m)
    }
}

/// The size of a neighbor item for `level`.
pub fn neighbors_size(level: u8, m: u16) -> usize {
    NEIGHBORS_HEADER + slots(level, m) * SLOT
}

/// The size of an element item with a value of `value_len` bytes.
pub fn element_size(value_len: usize) -> usize {
    ELEMENT_HEADER + value_len
}

/// The most item bytes a page holds (one item, its line pointer included).
pub fn max_item_size() -> usize {
    empty_page_free(SPECIAL_SIZE) - core::mem::size_of::<pg_sys::ItemIdData>()
}

/// The highest level whose neighbor item fits a page (at most 255).
pub fn max_level(m: u16) -> u8 {
    let by_size = (max_item_size() - NEIGHBORS_HEADER) / SLOT / usize::from(m);
    by_size.saturating_sub(2).min(255) as u8
}

/// Initializes `page` as an hnsw page.
///
/// # Safety
/// `page` is a page buffer being written.
pub unsafe fn init_page(page: pg_sys::Page, flags: u16) {
    unsafe {
        pg_sys::PageInit(page, pg_sys::BLCKSZ as usize, SPECIAL_SIZE);
        let special = pg_sys::PageGetSpecialPointer(page).cast::<u8>();
        special.cast::<u16>().write(PAGE_ID);
        special.add(2).cast::<u16>().write(flags);
    }
}

/// Whether `page` is an initialized hnsw data page.
///
/// # Safety
/// `page` is locked.
pub unsafe fn is_data_page(page: pg_sys::Page) -> bool {
    unsafe {
        if pg_sys::PageIsNew(page) {
            return false;
        }
        let special = pg_sys::PageGetSpecialPointer(page).cast::<u8>();
        special.cast::<u16>().read() == PAGE_ID
            && special.add(2).cast::<u16>().read() & FLAG_META == 0
    }
}

/// Writes `meta` into the metapage `page` (initialized).
///
/// # Safety
/// `page` is the metapage being changed.
pub unsafe fn write_meta(page: pg_sys::Page, meta: &Meta) {
    unsafe {
        let p = pg_sys::PageGetContents(page).cast::<u8>();
        p.cast::<u32>().write(MAGIC);
        p.add(4).cast::<u32>().write(VERSION);
        p.add(8).cast::<u32>().write(meta.dimensions);
        p.add(12).cast::<u16>().write(meta.m);
        p.add(14).cast::<u16>().write(meta.ef_construction);
        p.add(16).cast::<u32>().write(meta.entry.blk);
        p.add(20).cast::<u16>().write(meta.entry.off);
        p.add(22).cast::<i16>().write(meta.entry_level);
        p.add(24).cast::<u32>().write(meta.insert_page);
        // The contents end before pd_lower, so generic WAL keeps them.
        let header = page.cast::<pg_sys::PageHeaderData>();
        (*header).pd_lower = (p.add(28) as usize - page as usize) as u16;
    }
}

/// Reads the metapage of `index`.
///
/// # Safety
/// `index` is an open hnsw index.
pub unsafe fn read_meta(index: pg_sys::Relation) -> Meta {
    unsafe {
        let buf = crate::am::read_buffer(index, META_BLKNO);
        crate::am::lock_buffer(buf, false);
        let page = pg_sys::BufferGetPage(buf);
        let p = pg_sys::PageGetContents(page).cast::<u8>();
        let magic = p.cast::<u32>().read();
        let meta = Meta {
            dimensions: p.add(8).cast::<u32>().read(),
            m: p.add(12).cast::<u16>().read(),
            ef_construction: p.add(14).cast::<u16>().read(),
            entry: Tid {
                blk: p.add(16).cast::<u32>().read(),
                off: p.add(20).cast::<u16>().read(),
            },
            entry_level: p.add(22).cast::<i16>().read(),
            insert_page: p.add(24).cast::<u32>().read(),
        };
        pg_sys::UnlockReleaseBuffer(buf);
        if magic != MAGIC {
            crate::fmgr::raise(
                pgrx::pg_sys::errcodes::PgSqlErrorCode::ERRCODE_INDEX_CORRUPTED,
                "hnsw index is not valid",
            );
        }
        meta
    }
}

/// Rewrites the metapage with `f` applied, in one WAL record.
///
/// # Safety
/// `index` is an open hnsw index; the caller holds the update lock.
pub unsafe fn update_meta(index: pg_sys::Relation, f: impl FnOnce(&mut Meta)) {
    unsafe {
        let mut meta = read_meta(index);
        f(&mut meta);
        let buf = crate::am::read_buffer(index, META_BLKNO);
        crate::am::lock_buffer(buf, true);
        let mut x = Xlog::start(index);
        let page = x.register(buf, false);
        write_meta(page, &meta);
        x.finish();
        pg_sys::UnlockReleaseBuffer(buf);
    }
}

/// An element as read from its item.
#[derive(Clone, Copy, Debug)]
pub struct ElementHeader {
    /// Its level.
    pub level: u8,
    /// Whether vacuum found its heap row dead.
    pub deleted: bool,
    /// Where its neighbor item is.
    pub neighbors: Tid,
    /// The heap row.
    pub heap_tid: Tid,
}

/// The element item at `p` (`len` bytes), or `None` if it is not one.
///
/// # Safety
/// `p` points at `len` readable bytes of a locked page.
pub unsafe fn read_element(p: *const u8, len: usize) -> Option<(ElementHeader, *const u8)> {
    unsafe {
        if len < ELEMENT_HEADER + 4 || *p != KIND_ELEMENT {
            return None;
        }
        let header = ElementHeader {
            level: *p.add(1),
            deleted: *p.add(2) & 1 != 0,
            neighbors: Tid {
                blk: p.add(8).cast::<u32>().read(),
                off: p.add(4).cast::<u16>().read(),
            },
            heap_tid: Tid::read(p.add(12)),
        };
        Some((header, p.add(ELEMENT_HEADER)))
    }
}

/// The bytes of an element item.
pub fn element_bytes(header: &ElementHeader, value: &[u8]) -> Vec<u8> {
    let mut out = vec![0u8; maxalign(element_size(value.len()))];
    out[0] = KIND_ELEMENT;
    out[1] = header.level;
    out[2] = u8::from(header.deleted);
    out[4..6].copy_from_slice(&header.neighbors.off.to_ne_bytes());
    out[8..12].copy_from_slice(&header.neighbors.blk.to_ne_bytes());
    // SAFETY: six bytes at 12.
    unsafe { header.heap_tid.write(out.as_mut_ptr().add(12)) };
    out[ELEMENT_HEADER..ELEMENT_HEADER + value.len()].copy_from_slice(value);
    out
}

/// Sets or clears the deleted flag of the element item at `p`.
///
/// # Safety
/// `p` points at an element item on a page being changed.
pub unsafe fn set_deleted(p: *mut u8, deleted: bool) {
    unsafe { *p.add(2) = u8::from(deleted) };
}

/// The bytes of a neighbor item for `level` with `layers[l]` linked on layer `l`.
pub fn neighbors_bytes(level: u8, m: u16, layers: &[Vec<Tid>]) -> Vec<u8> {
    let mut out = vec![0u8; maxalign(neighbors_size(level, m))];
    out[0] = KIND_NEIGHBORS;
    out[1] = level;
    for s in 0..slots(level, m) {
        // SAFETY: slot `s` is inside the item.
        unsafe { Tid::INVALID.write(out.as_mut_ptr().add(NEIGHBORS_HEADER + s * SLOT)) };
    }
    for (l, links) in layers.iter().enumerate().take(usize::from(level) + 1) {
        let (start, count) = layer_slots(l as u8, m);
        for (k, t) in links.iter().take(count).enumerate() {
            // SAFETY: as above.
            unsafe { t.write(out.as_mut_ptr().add(NEIGHBORS_HEADER + (start + k) * SLOT)) };
        }
    }
    out
}

/// The links of layer `layer` in the neighbor item at `p` (`len` bytes), or `None` if it is
/// not a neighbor item with that layer.
///
/// # Safety
/// `p` points at `len` readable bytes of a locked page.
pub unsafe fn read_layer(p: *const u8, len: usize, layer: u8, m: u16, out: &mut Vec<Tid>) -> bool {
    unsafe {
        if len < NEIGHBORS_HEADER || *p != KIND_NEIGHBORS || *p.add(1) < layer {
            return false;
        }
        let (start, count) = layer_slots(layer, m);
        if NEIGHBORS_HEADER + (start + count) * SLOT > len {
            return false;
        }
        for k in 0..count {
            let t = Tid::read(p.add(NEIGHBORS_HEADER + (start + k) * SLOT));
            if !t.is_valid() {
                break;
            }
            out.push(t);
        }
        true
    }
}

/// Overwrites layer `layer`'s links in the neighbor item at `p` with `links`.
///
/// # Safety
/// `p` points at a neighbor item with that layer on a page being changed.
pub unsafe fn write_layer(p: *mut u8, layer: u8, m: u16, links: &[Tid]) {
    unsafe {
        let (start, count) = layer_slots(layer, m);
        for k in 0..count {
            let t = links.get(k).copied().unwrap_or(Tid::INVALID);
            t.write(p.add(NEIGHBORS_HEADER + (start + k) * SLOT));
        }
    }
}

/// The level of the neighbor item at `p`, if it is one.
///
/// # Safety
/// `p` points at `len` readable bytes.
pub unsafe fn neighbors_level(p: *const u8, len: usize) -> Option<u8> {
    unsafe { (len >= NEIGHBORS_HEADER && *p == KIND_NEIGHBORS).then(|| *p.add(1)) }
}

/// Adds `bytes` to `page` (which must have room) and returns its position.
///
/// # Safety
/// As [`add_item`].
pub unsafe fn add(index: pg_sys::Relation, page: pg_sys::Page, blk: u32, bytes: &[u8]) -> Tid {
    unsafe {
        Tid {
            blk,
            off: add_item(index, page, bytes),
        }
    }
}

/// The item at `tid.off` of `page`.
///
/// # Safety
/// As [`item`].
pub unsafe fn item_at(page: pg_sys::Page, off: u16) -> Option<(*mut u8, usize)> {
    unsafe { item(page, off) }
}
