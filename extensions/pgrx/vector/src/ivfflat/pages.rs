//! The pages of an ivfflat index (this implementation's own layout).
//!
//! Block 0 is the metapage (dimensions, number of lists). Blocks from 1 hold the lists' items,
//! in list order, chained by the next-page field of each page's special space: a list item is
//! its center (a value of the index's type), the first page of its entries and the page new
//! entries go to. Each list's entries are items on a chain of pages of their own: the heap row
//! and the value.

use crate::am::{
    Tid, Value, Xlog, add_item, empty_page_free, fits, item, lock_buffer, new_buffer, read_buffer,
};
use crate::fmgr::{maxalign, raise};
use pgrx::pg_sys;
use pgrx::pg_sys::errcodes::PgSqlErrorCode;

/// "IVFF" in the metapage.
pub const MAGIC: u32 = 0x4956_4646;
/// The layout version.
pub const VERSION: u32 = 1;
/// The metapage's block.
pub const META_BLKNO: u32 = 0;
/// The first list page.
pub const FIRST_LIST_BLKNO: u32 = 1;
/// The identifier in each page's special space.
pub const PAGE_ID: u16 = 0xFF85;
/// Bytes of special space: next page, identifier, flags.
pub const SPECIAL_SIZE: usize = 8;
/// Special space flag of the metapage.
pub const FLAG_META: u16 = 1;
/// Bytes before a list item's center.
pub const LIST_HEADER: usize = 8;
/// Bytes before an entry's value.
pub const ENTRY_HEADER: usize = 8;

/// The metapage's contents.
#[derive(Clone, Copy, Debug)]
pub struct Meta {
    /// The column's dimensions.
    pub dimensions: u32,
    /// The number of lists.
    pub lists: u32,
}

/// A list: where its item is, its center and its pages.
pub struct List {
    /// The list item's position.
    pub tid: Tid,
    /// The first page of its entries.
    pub first_page: u32,
    /// The page new entries go to.
    pub insert_page: u32,
    /// Its center.
    pub center: Value,
}

/// Initializes `page` as an ivfflat page with no next page.
///
/// # Safety
/// `page` is a page buffer being written.
pub unsafe fn init_page(page: pg_sys::Page, flags: u16) {
    unsafe {
        pg_sys::PageInit(page, pg_sys::BLCKSZ as usize, SPECIAL_SIZE);
        let special = pg_sys::PageGetSpecialPointer(page).cast::<u8>();
        special.cast::<u32>().write(pg_sys::InvalidBlockNumber);
        special.add(4).cast::<u16>().write(PAGE_ID);
        special.add(6).cast::<u16>().write(flags);
    }
}

/// The next page of `page`'s chain.
///
/// # Safety
/// `page` is a locked ivfflat page.
pub unsafe fn next_page(page: pg_sys::Page) -> u32 {
    unsafe { pg_sys::PageGetSpecialPointer(page).cast::<u32>().read() }
}

/// Sets the next page of `page`'s chain.
///
/// # Safety
/// `page` is an ivfflat page being changed.
pub unsafe fn set_next_page(page: pg_sys::Page, next: u32) {
    unsafe {
        pg_sys::PageGetSpecialPointer(page)
            .cast::<u32>()
            .write(next)
    };
}

/// Whether `page` is an initialized ivfflat page.
///
/// # Safety
/// `page` is locked.
pub unsafe fn is_ivfflat_page(page: pg_sys::Page) -> bool {
    unsafe {
        !pg_sys::PageIsNew(page)
            && pg_sys::PageGetSpecialPointer(page)
                .cast::<u8>()
                .add(4)
                .cast::<u16>()
                .read()
                == PAGE_ID
    }
}

/// Writes the metapage contents.
///
/// # Safety
/// `page` is the metapage being written.
pub unsafe fn write_meta(page: pg_sys::Page, meta: &Meta) {
    unsafe {
        let p = pg_sys::PageGetContents(page).cast::<u8>();
        p.cast::<u32>().write(MAGIC);
        p.add(4).cast::<u32>().write(VERSION);
        p.add(8).cast::<u32>().write(meta.dimensions);
        p.add(12).cast::<u32>().write(meta.lists);
        let header = page.cast::<pg_sys::PageHeaderData>();
        (*header).pd_lower = (p.add(16) as usize - page as usize) as u16;
    }
}

/// Reads the metapage of `index`.
///
/// # Safety
/// `index` is an open ivfflat index.
pub unsafe fn read_meta(index: pg_sys::Relation) -> Meta {
    unsafe {
        let buf = read_buffer(index, META_BLKNO);
        lock_buffer(buf, false);
        let p = pg_sys::PageGetContents(pg_sys::BufferGetPage(buf)).cast::<u8>();
        let magic = p.cast::<u32>().read();
        let meta = Meta {
            dimensions: p.add(8).cast::<u32>().read(),
            lists: p.add(12).cast::<u32>().read(),
        };
        pg_sys::UnlockReleaseBuffer(buf);
        if magic != MAGIC {
            raise(
                PgSqlErrorCode::ERRCODE_INDEX_CORRUPTED,
                "ivfflat index is not valid",
            );
        }
        meta
    }
}

/// The bytes of a list item.
pub fn list_bytes(first_page: u32, insert_page: u32, center: &Value) -> Vec<u8> {
    let mut out = vec![0u8; maxalign(LIST_HEADER + center.len())];
    out[0..4].copy_from_slice(&first_page.to_ne_bytes());
    out[4..8].copy_from_slice(&insert_page.to_ne_bytes());
    out[LIST_HEADER..LIST_HEADER + center.len()].copy_from_slice(center.bytes());
    out
}

/// The bytes of an entry.
pub fn entry_bytes(heap_tid: Tid, value: &Value) -> Vec<u8> {
    let mut out = vec![0u8; maxalign(ENTRY_HEADER + value.len())];
    // SAFETY: six bytes at 0.
    unsafe { heap_tid.write(out.as_mut_ptr()) };
    out[ENTRY_HEADER..ENTRY_HEADER + value.len()].copy_from_slice(value.bytes());
    out
}

/// The most bytes an item takes on a page.
pub fn max_item_size() -> usize {
    empty_page_free(SPECIAL_SIZE) - core::mem::size_of::<pg_sys::ItemIdData>()
}

/// Reads every list, in order.
///
/// # Safety
/// `index` is an open ivfflat index.
pub unsafe fn read_lists(index: pg_sys::Relation) -> Vec<List> {
    unsafe {
        let mut out = Vec::new();
        let mut blk = FIRST_LIST_BLKNO;
        let n = pg_sys::RelationGetNumberOfBlocksInFork(index, pg_sys::ForkNumber::MAIN_FORKNUM);
        while blk != pg_sys::InvalidBlockNumber && blk < n {
            let buf = read_buffer(index, blk);
            lock_buffer(buf, false);
            let page = pg_sys::BufferGetPage(buf);
            let next = if is_ivfflat_page(page) {
                for off in 1..=pg_sys::PageGetMaxOffsetNumber(page) {
                    if let Some((p, len)) = item(page, off)
                        && len >= LIST_HEADER + 4
                    {
                        out.push(List {
                            tid: Tid { blk, off },
                            first_page: p.cast::<u32>().read(),
                            insert_page: p.add(4).cast::<u32>().read(),
                            center: Value::copy_of(p.add(LIST_HEADER)),
                        });
                    }
                }
                next_page(page)
            } else {
                pg_sys::InvalidBlockNumber
            };
            pg_sys::UnlockReleaseBuffer(buf);
            blk = next;
        }
        out
    }
}

/// Appends `entries` to `list`'s chain (its first page and new pages as needed) and records
/// the list's new pages in its item.
///
/// # Safety
/// `index` is an open ivfflat index; the caller holds the update lock (or builds the index).
pub unsafe fn append(index: pg_sys::Relation, list: &mut List, entries: &[Vec<u8>]) {
    unsafe {
        if entries.is_empty() {
            return;
        }
        let (mut buf, mut x, mut page);
        if list.insert_page == pg_sys::InvalidBlockNumber {
            buf = new_buffer(index, pg_sys::ForkNumber::MAIN_FORKNUM);
            x = Xlog::start(index);
            page = x.register(buf, true);
            init_page(page, 0);
            list.first_page = pg_sys::BufferGetBlockNumber(buf);
        } else {
            buf = read_buffer(index, list.insert_page);
            lock_buffer(buf, true);
            x = Xlog::start(index);
            page = x.register(buf, false);
        }
        for e in entries {
            if !fits(page, e.len()) {
                let nbuf = new_buffer(index, pg_sys::ForkNumber::MAIN_FORKNUM);
                set_next_page(page, pg_sys::BufferGetBlockNumber(nbuf));
                x.finish();
                pg_sys::UnlockReleaseBuffer(buf);
                buf = nbuf;
                x = Xlog::start(index);
                page = x.register(buf, true);
                init_page(page, 0);
            }
            add_item(index, page, e);
        }
        x.finish();
        let last = pg_sys::BufferGetBlockNumber(buf);
        pg_sys::UnlockReleaseBuffer(buf);
        if last != list.insert_page {
            list.insert_page = last;
            let lbuf = read_buffer(index, list.tid.blk);
            lock_buffer(lbuf, true);
            let mut x = Xlog::start(index);
            let lpage = x.register(lbuf, false);
            if let Some((p, _)) = item(lpage, list.tid.off) {
                p.cast::<u32>().write(list.first_page);
                p.add(4).cast::<u32>().write(last);
            }
            x.finish();
            pg_sys::UnlockReleaseBuffer(lbuf);
        }
    }
}
