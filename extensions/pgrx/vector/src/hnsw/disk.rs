//! The graph on an index's pages as a [`Space`]: each element is read under a share lock on its
//! buffer, its distance to the query computed in place and its links remembered. A link that no
//! longer names an element (its item was freed by vacuum and reused, or it is past the end of the
//! index) is skipped, so a search never fails on a graph that changed under it.

use super::graph::Space;
use super::page::{ElementHeader, read_element, read_layer};
use crate::am::{Distance, Tid, TidMap, TidSet, Value, item, lock_buffer, read_buffer};
use pgrx::pg_sys;

/// An element read from the pages.
pub struct Element {
    /// Its header.
    pub header: ElementHeader,
    /// Its value, once copied out.
    pub value: Option<Value>,
}

/// The graph of `index` searched for `query`.
pub struct DiskSpace {
    index: pg_sys::Relation,
    /// The index's distance.
    pub dist: Distance,
    /// The graph's `m`.
    pub m: u16,
    /// The query (a detoasted value of the index's type), or null for a NULL query.
    query: *const u8,
    /// The elements read so far.
    pub elements: TidMap<Element>,
    visited: TidSet,
    nblocks: u32,
    tuples: u64,
}

impl DiskSpace {
    /// A search of `index` (with graph parameter `m`) for `query`.
    ///
    /// # Safety
    /// `index` is open; `query` is null or stays valid while the space is used.
    pub unsafe fn new(
        index: pg_sys::Relation,
        dist: Distance,
        m: u16,
        query: *const u8,
    ) -> DiskSpace {
        DiskSpace {
            index,
            dist,
            m,
            query,
            elements: TidMap::default(),
            visited: TidSet::default(),
            // SAFETY: the index is open.
            nblocks: unsafe { nblocks(index) },
            tuples: 0,
        }
    }

    /// Runs `f` on the item at `tid` under a share lock, if the block exists.
    fn with_item<R>(
        &mut self,
        tid: Tid,
        f: impl FnOnce(*const u8, usize) -> Option<R>,
    ) -> Option<R> {
        if !tid.is_valid() || tid.blk == super::page::META_BLKNO {
            return None;
        }
        if tid.blk >= self.nblocks {
            // SAFETY: the index is open.
            self.nblocks = unsafe { nblocks(self.index) };
            if tid.blk >= self.nblocks {
                return None;
            }
        }
        // SAFETY: the block exists; the item is read under the share lock and not kept.
        unsafe {
            let buf = read_buffer(self.index, tid.blk);
            lock_buffer(buf, false);
            let page = pg_sys::BufferGetPage(buf);
            let r = if super::page::is_data_page(page) {
                item(page, tid.off).and_then(|(p, len)| f(p, len))
            } else {
                None
            };
            pg_sys::UnlockReleaseBuffer(buf);
            r
        }
    }

    /// The element at `tid` with its distance to the query, read and remembered.
    pub fn load(&mut self, tid: Tid) -> Option<f32> {
        let dist = self.dist;
        let query = self.query;
        let r = self.with_item(tid, |p, len| {
            // SAFETY: `p` is a locked item of `len` bytes.
            let (header, value) = unsafe { read_element(p, len)? };
            let d = if query.is_null() {
                0.0
            } else {
                // SAFETY: both are values of the index's type.
                unsafe { dist.eval(query, value) }
            };
            Some((header, d))
        })?;
        self.tuples += 1;
        self.elements.insert(
            tid,
            Element {
                header: r.0,
                value: None,
            },
        );
        Some(r.1)
    }

    /// The value of element `tid` (read before), copied out.
    pub fn value(&mut self, tid: Tid) -> Option<&Value> {
        let has = self.elements.get(&tid).is_some_and(|e| e.value.is_some());
        if !has {
            let v = self.with_item(tid, |p, len| {
                // SAFETY: as above.
                let (header, value) = unsafe { read_element(p, len)? };
                // SAFETY: the value is a varlena inside the item.
                Some((header, unsafe { Value::copy_of(value) }))
            })?;
            match self.elements.get_mut(&tid) {
                Some(e) => e.value = Some(v.1),
                None => {
                    self.elements.insert(
                        tid,
                        Element {
                            header: v.0,
                            value: Some(v.1),
                        },
                    );
                }
            }
        }
        self.elements.get(&tid).and_then(|e| e.value.as_ref())
    }

    /// The distance between two elements (read before).
    pub fn pair(&mut self, a: Tid, b: Tid) -> f32 {
        let va = self.value(a).map(|v| v.ptr());
        let vb = self.value(b).map(|v| v.ptr());
        match (va, vb) {
            // SAFETY: both values are owned by the space and of the index's type.
            (Some(x), Some(y)) => unsafe { self.dist.eval(x, y) },
            _ => f32::INFINITY,
        }
    }

    /// Element `tid`'s links on `layer`, read from its neighbor item.
    pub fn links(&mut self, tid: Tid, layer: u8) -> Vec<Tid> {
        let mut out = Vec::new();
        let Some(e) = self.elements.get(&tid) else {
            return out;
        };
        if e.header.level < layer {
            return out;
        }
        let at = e.header.neighbors;
        let m = self.m;
        self.with_item(at, |p, len| {
            // SAFETY: `p` is a locked item of `len` bytes.
            unsafe { read_layer(p, len, layer, m, &mut out) }.then_some(())
        });
        out
    }

    /// Whether element `tid` (read before) is marked deleted by vacuum.
    pub fn is_deleted(&self, tid: Tid) -> bool {
        self.elements.get(&tid).is_some_and(|e| e.header.deleted)
    }

    /// How many elements have been visited.
    pub fn visited_count(&self) -> usize {
        self.visited.len()
    }
}

impl Space for DiskSpace {
    type Id = Tid;

    fn distance(&mut self, id: Tid) -> Option<f32> {
        self.load(id)
    }

    fn neighbors(&mut self, id: Tid, layer: u8, out: &mut Vec<Tid>) {
        out.extend(self.links(id, layer));
    }

    fn visit(&mut self, id: Tid) -> bool {
        self.visited.insert(id)
    }

    fn reset_visited(&mut self) {
        self.visited.clear();
    }

    fn tuples(&self) -> u64 {
        self.tuples
    }
}

/// The number of blocks of the index's main fork.
///
/// # Safety
/// `index` is open.
pub unsafe fn nblocks(index: pg_sys::Relation) -> u32 {
    unsafe { pg_sys::RelationGetNumberOfBlocksInFork(index, pg_sys::ForkNumber::MAIN_FORKNUM) }
}
