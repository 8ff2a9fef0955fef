//! Building an hnsw index (`ambuild`, `ambuildempty`).
//!
//! The heap's rows are inserted into a graph in memory while it fits `maintenance_work_mem`;
//! the graph is then laid out on pages (each element beside its neighbor item where they fit),
//! each page written with a full-page generic WAL record. Should the graph outgrow the memory,
//! it is written out at that point (with pgvector's notice) and the remaining rows are inserted
//! on the pages one by one.
//!
//! A row's search descends the layers above its own keeping `ef_construction` candidates on each
//! (pgvector descends greedily, keeping one). On clustered data a greedy descent ends in a wrong
//! cluster for a few percent of the rows; linked only to that cluster's elements, such a row was
//! found by no query, not even for its own vector (2.5% of 10,000 rows in 100 clusters).

use super::graph::{
    Candidate, Space, descend_wide, layer_limit, random_level, search_layer, select_flagged,
};
use super::insert::{self, uniform};
use super::page::{
    self, ElementHeader, FLAG_META, META_BLKNO, Meta, SPECIAL_SIZE, element_bytes, element_size,
    init_page, max_item_size, max_level, neighbors_bytes, neighbors_size, write_meta,
};
use super::{Support, options};
use crate::am::{Distance, TempContext, Tid, Value, Xlog, empty_page_free, new_buffer};
use crate::fmgr::{maxalign, raise, report};
use core::ffi::c_void;
use pgrx::pg_sys;
use pgrx::pg_sys::errcodes::PgSqlErrorCode;
use pgrx::{PgLogLevel, pg_guard};

/// A link of the graph in memory: the element, its distance, whether the neighbor heuristic
/// kept it among the element's links (`None`: not yet known), and whether it was pruned as an
/// exact duplicate (such links fill room last).
#[derive(Clone, Copy)]
struct Link {
    distance: f32,
    id: u32,
    closer: Option<bool>,
    duplicate: bool,
}

/// An element of the graph in memory.
struct Node {
    value: Value,
    heap_tid: Tid,
    level: u8,
    /// Links per layer, nearest first.
    links: Vec<Vec<Link>>,
}

/// Visited marks reused from search to search.
struct Visited {
    marks: Vec<u32>,
    epoch: u32,
}

/// The graph in memory.
struct MemGraph {
    nodes: Vec<Node>,
    entry: Option<u32>,
    m: u16,
    ef_construction: u16,
    dist: Distance,
    memory: usize,
}

/// A search of the graph in memory for one element's value.
struct MemSpace<'a> {
    nodes: &'a [Node],
    dist: Distance,
    query: *const u8,
    visited: &'a mut Visited,
}

impl Space for MemSpace<'_> {
    type Id = u32;

    fn distance(&mut self, id: u32) -> Option<f32> {
        // SAFETY: both values are owned by the graph and of the index's type.
        Some(unsafe {
            self.dist
                .eval(self.query, self.nodes[id as usize].value.ptr())
        })
    }

    fn neighbors(&mut self, id: u32, layer: u8, out: &mut Vec<u32>) {
        if let Some(l) = self.nodes[id as usize].links.get(usize::from(layer)) {
            out.extend(l.iter().map(|c| c.id));
        }
    }

    fn visit(&mut self, id: u32) -> bool {
        let mark = &mut self.visited.marks[id as usize];
        if *mark == self.visited.epoch {
            false
        } else {
            *mark = self.visited.epoch;
            true
        }
    }

    fn reset_visited(&mut self) {
        self.visited.epoch = self.visited.epoch.wrapping_add(1);
        if self.visited.epoch == 0 {
            self.visited.marks.iter_mut().for_each(|v| *v = 0);
            self.visited.epoch = 1;
        }
    }
}

impl MemGraph {
    /// The distance between two elements.
    fn pair(nodes: &[Node], dist: &Distance, a: u32, b: u32) -> f32 {
        // SAFETY: both values are owned by the graph and of the index's type.
        unsafe { dist.eval(nodes[a as usize].value.ptr(), nodes[b as usize].value.ptr()) }
    }

    /// Inserts an element.
    fn insert(&mut self, visited: &mut Visited, value: Value, heap_tid: Tid) {
        let m = self.m;
        let level = random_level(uniform(), m, max_level(m));
        let id = self.nodes.len() as u32;
        self.memory += value.len() + 96 + (usize::from(level) + 2) * usize::from(m) * 8;
        self.nodes.push(Node {
            value,
            heap_tid,
            level,
            links: vec![Vec::new(); usize::from(level) + 1],
        });
        visited.marks.push(0);
        let Some(entry) = self.entry else {
            self.entry = Some(id);
            return;
        };
        let entry_level = self.nodes[entry as usize].level;
        let dist = self.dist;
        let mut chosen_by_layer: Vec<Vec<(Candidate<u32>, bool)>> =
            vec![Vec::new(); usize::from(level) + 1];
        {
            let nodes = &self.nodes;
            let mut space = MemSpace {
                nodes,
                dist,
                query: nodes[id as usize].value.ptr(),
                visited,
            };
            let d = space.distance(entry).unwrap_or(f32::INFINITY);
            let mut eps = descend_wide(
                &mut space,
                Candidate {
                    distance: d,
                    id: entry,
                },
                entry_level,
                level,
                usize::from(self.ef_construction),
            );
            for layer in (0..=level.min(entry_level)).rev() {
                let w = search_layer(
                    &mut space,
                    &eps,
                    usize::from(self.ef_construction),
                    layer,
                    None,
                    true,
                );
                chosen_by_layer[usize::from(layer)] =
                    select_flagged(&w, layer_limit(layer, m), |a, b| {
                        Self::pair(nodes, &dist, a, b)
                    });
                eps = w;
            }
        }
        for (layer, chosen) in chosen_by_layer.into_iter().enumerate() {
            for (c, _) in &chosen {
                self.link(
                    c.id,
                    Link {
                        distance: c.distance,
                        id,
                        closer: None,
                        duplicate: false,
                    },
                    layer,
                );
            }
            let mut links: Vec<Link> = chosen
                .into_iter()
                .map(|(c, kept)| Link {
                    distance: c.distance,
                    id: c.id,
                    closer: Some(kept),
                    duplicate: !kept && c.distance == 0.0,
                })
                .collect();
            links.sort_by(|a, b| a.distance.total_cmp(&b.distance));
            self.nodes[id as usize].links[layer] = links;
        }
        if level > entry_level {
            self.entry = Some(id);
        }
    }

    /// Links `new` from `from` on `layer`. A full list is pruned by the heuristic, reusing what
    /// it found before: links before the new one keep their verdict, the new one is checked
    /// against the kept ones before it, and (if kept) the kept ones after it against it.
    fn link(&mut self, from: u32, new: Link, layer: usize) {
        let limit = layer_limit(layer as u8, self.m);
        let dist = self.dist;
        let nodes = &self.nodes;
        let mut list = nodes[from as usize].links[layer].clone();
        let pos = list.partition_point(|l| l.distance <= new.distance);
        if list.len() < limit {
            list.insert(pos, new);
            self.nodes[from as usize].links[layer] = list;
            return;
        }
        if list.iter().any(|l| l.closer.is_none()) {
            let mut kept: Vec<u32> = Vec::with_capacity(limit);
            for l in list.iter_mut() {
                let fail = kept
                    .iter()
                    .map(|k| Self::pair(nodes, &dist, l.id, *k))
                    .find(|p| l.distance >= *p);
                l.closer = Some(fail.is_none());
                l.duplicate = fail.is_some_and(|p| p == 0.0 || l.distance == 0.0);
                if fail.is_none() {
                    kept.push(l.id);
                }
            }
        }
        let mut new = new;
        let fail = list[..pos]
            .iter()
            .filter(|l| l.closer == Some(true))
            .map(|k| Self::pair(nodes, &dist, new.id, k.id))
            .find(|p| new.distance >= *p);
        new.closer = Some(fail.is_none());
        new.duplicate = fail.is_some_and(|p| p == 0.0 || new.distance == 0.0);
        if fail.is_none() {
            for l in list[pos..].iter_mut().filter(|l| l.closer == Some(true)) {
                let p = Self::pair(nodes, &dist, l.id, new.id);
                if l.distance >= p {
                    l.closer = Some(false);
                    l.duplicate = p == 0.0 || l.distance == 0.0;
                }
            }
        }
        list.insert(pos, new);
        let mut chosen: Vec<Link> = list
            .iter()
            .filter(|l| l.closer == Some(true))
            .take(limit)
            .copied()
            .collect();
        let fill = list
            .iter()
            .filter(|l| l.closer != Some(true) && !l.duplicate);
        let last = list
            .iter()
            .filter(|l| l.closer != Some(true) && l.duplicate);
        for l in fill.chain(last) {
            if chosen.len() >= limit {
                break;
            }
            chosen.push(*l);
        }
        chosen.sort_by(|a, b| a.distance.total_cmp(&b.distance));
        self.nodes[from as usize].links[layer] = chosen;
    }
}

/// What the build callback works with.
struct BuildState {
    index: pg_sys::Relation,
    support: Support,
    graph: MemGraph,
    visited: Visited,
    in_memory: bool,
    memory_limit: usize,
    tmp: TempContext,
    heap_tuples: f64,
    index_tuples: f64,
}

/// The value an hnsw index stores for a column value: copied, checked, normalized for cosine
/// operator classes; `None` when it is not indexed (a zero vector under cosine).
///
/// # Safety
/// `d` is a value of the index's type.
pub unsafe fn index_value(support: &Support, d: pg_sys::Datum) -> Option<Value> {
    unsafe {
        let v = Value::copy_of(crate::fmgr::detoast(d));
        if support.kind == crate::am::Kind::Sparsevec && v.nnz() > 1000 {
            raise(
                PgSqlErrorCode::ERRCODE_PROGRAM_LIMIT_EXCEEDED,
                "sparsevec cannot have more than 1000 non-zero elements for hnsw index",
            );
        }
        let v = if support.normalize {
            v.normalized(support.kind)?
        } else {
            v
        };
        if element_size(v.len()) > max_item_size() {
            raise(
                PgSqlErrorCode::ERRCODE_PROGRAM_LIMIT_EXCEEDED,
                format!(
                    "index row size {} exceeds hnsw maximum, {}, for index \"{}\"",
                    element_size(v.len()),
                    max_item_size(),
                    crate::am::relation_name(support.index)
                ),
            );
        }
        Some(v)
    }
}

#[pg_guard]
unsafe extern "C-unwind" fn build_callback(
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
        let Some(value) = st.tmp.run(|| index_value(&support, d)) else {
            return;
        };
        let heap_tid = Tid::from_item_pointer(&*tid);
        if st.in_memory {
            st.graph.insert(&mut st.visited, value, heap_tid);
            if st.graph.memory > st.memory_limit {
                report(
                    PgLogLevel::NOTICE,
                    PgSqlErrorCode::ERRCODE_SUCCESSFUL_COMPLETION,
                    format!(
                        "hnsw graph no longer fits into maintenance_work_mem after {} tuples",
                        st.graph.nodes.len()
                    ),
                    "Building will take significantly more time.",
                    "Increase maintenance_work_mem to speed up builds.",
                );
                write_graph(st.index, &st.graph);
                st.graph.nodes = Vec::new();
                st.visited.marks = Vec::new();
                st.in_memory = false;
            }
        } else {
            let idx = st.index;
            st.tmp
                .run(|| insert::insert(idx, support.dist, &value, heap_tid));
        }
        st.index_tuples += 1.0;
    }
}

/// Where each item of the graph goes: per page, the items in order.
enum Placed {
    Element(u32),
    Neighbors(u32),
}

/// Lays the graph out on pages after the metapage and writes it; then points the metapage at
/// its entry.
///
/// # Safety
/// `index` is being built: it has only its metapage.
unsafe fn write_graph(index: pg_sys::Relation, g: &MemGraph) {
    unsafe {
        let lp = core::mem::size_of::<pg_sys::ItemIdData>();
        let empty = empty_page_free(SPECIAL_SIZE);
        let n = g.nodes.len();
        let mut etid = vec![Tid::INVALID; n];
        let mut ntid = vec![Tid::INVALID; n];
        let mut pages: Vec<Vec<Placed>> = Vec::new();
        let mut free = 0usize;
        for (i, node) in g.nodes.iter().enumerate() {
            let esz = maxalign(element_size(node.value.len()));
            let nsz = maxalign(neighbors_size(node.level, g.m));
            if pages.is_empty() || free < esz + lp {
                pages.push(Vec::new());
                free = empty;
            }
            let blk = pages.len() as u32;
            etid[i] = Tid {
                blk,
                off: (pages.last().map_or(0, Vec::len) + 1) as u16,
            };
            pages
                .last_mut()
                .into_iter()
                .for_each(|p| p.push(Placed::Element(i as u32)));
            free -= esz + lp;
            if free < nsz + lp {
                pages.push(Vec::new());
                free = empty;
            }
            let blk = pages.len() as u32;
            ntid[i] = Tid {
                blk,
                off: (pages.last().map_or(0, Vec::len) + 1) as u16,
            };
            pages
                .last_mut()
                .into_iter()
                .for_each(|p| p.push(Placed::Neighbors(i as u32)));
            free -= nsz + lp;
        }
        for (k, items) in pages.iter().enumerate() {
            pg_sys::check_for_interrupts!();
            let buf = new_buffer(index, pg_sys::ForkNumber::MAIN_FORKNUM);
            let blk = pg_sys::BufferGetBlockNumber(buf);
            if blk != k as u32 + 1 {
                raise(
                    PgSqlErrorCode::ERRCODE_INTERNAL_ERROR,
                    "hnsw build found an unexpected page",
                );
            }
            let mut x = Xlog::start(index);
            let page = x.register(buf, true);
            init_page(page, 0);
            for it in items {
                let (bytes, want) = match it {
                    Placed::Element(i) => {
                        let node = &g.nodes[*i as usize];
                        let header = ElementHeader {
                            level: node.level,
                            deleted: false,
                            neighbors: ntid[*i as usize],
                            heap_tid: node.heap_tid,
                        };
                        (
                            element_bytes(&header, node.value.bytes()),
                            etid[*i as usize],
                        )
                    }
                    Placed::Neighbors(i) => {
                        let node = &g.nodes[*i as usize];
                        let layers: Vec<Vec<Tid>> = node
                            .links
                            .iter()
                            .map(|l| l.iter().map(|c| etid[c.id as usize]).collect())
                            .collect();
                        (neighbors_bytes(node.level, g.m, &layers), ntid[*i as usize])
                    }
                };
                let got = page::add(index, page, blk, &bytes);
                if got != want {
                    raise(
                        PgSqlErrorCode::ERRCODE_INTERNAL_ERROR,
                        "hnsw build placed an item unexpectedly",
                    );
                }
            }
            x.finish();
            pg_sys::UnlockReleaseBuffer(buf);
        }
        let last = pages.len() as u32;
        let entry = g
            .entry
            .map(|e| (etid[e as usize], g.nodes[e as usize].level));
        page::update_meta(index, |mt| {
            if let Some((tid, level)) = entry {
                mt.entry = tid;
                mt.entry_level = i16::from(level);
            }
            if last > 0 {
                mt.insert_page = last;
            }
        });
    }
}

/// Writes the metapage of an empty index into `fork`.
///
/// # Safety
/// `index` is open and `fork` is empty.
unsafe fn create_meta(index: pg_sys::Relation, fork: pg_sys::ForkNumber::Type, meta: &Meta) {
    unsafe {
        let buf = new_buffer(index, fork);
        if pg_sys::BufferGetBlockNumber(buf) != META_BLKNO {
            raise(
                PgSqlErrorCode::ERRCODE_INTERNAL_ERROR,
                "hnsw index is not empty",
            );
        }
        if fork == pg_sys::ForkNumber::INIT_FORKNUM {
            let page = pg_sys::BufferGetPage(buf);
            init_page(page, FLAG_META);
            write_meta(page, meta);
            pg_sys::MarkBufferDirty(buf);
            pg_sys::UnlockReleaseBuffer(buf);
            pg_sys::log_newpage_range(index, fork, 0, 1, true);
        } else {
            let mut x = Xlog::start(index);
            let page = x.register(buf, true);
            init_page(page, FLAG_META);
            write_meta(page, meta);
            x.finish();
            pg_sys::UnlockReleaseBuffer(buf);
        }
    }
}

/// The metapage of a new index, checked as pgvector checks a new index's parameters.
///
/// # Safety
/// `index` is open.
unsafe fn new_meta(index: pg_sys::Relation, support: &Support) -> Meta {
    unsafe {
        let (m, ef_construction) = options(index);
        crate::am::check_column_type(index, "hnsw");
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
                format!("column cannot have more than {max} dimensions for hnsw index"),
            );
        }
        if ef_construction < 2 * m {
            raise(
                PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
                "ef_construction must be greater than or equal to 2 * m",
            );
        }
        Meta {
            dimensions: dims as u32,
            m: m as u16,
            ef_construction: ef_construction as u16,
            entry: Tid::INVALID,
            entry_level: -1,
            insert_page: META_BLKNO,
        }
    }
}

/// `ambuild`.
#[pg_guard]
pub unsafe extern "C-unwind" fn ambuild(
    heap: pg_sys::Relation,
    index: pg_sys::Relation,
    index_info: *mut pg_sys::IndexInfo,
) -> *mut pg_sys::IndexBuildResult {
    unsafe {
        let support = Support::of(index);
        let meta = new_meta(index, &support);
        if pg_sys::RelationGetNumberOfBlocksInFork(index, pg_sys::ForkNumber::MAIN_FORKNUM) != 0 {
            raise(
                PgSqlErrorCode::ERRCODE_INTERNAL_ERROR,
                format!(
                    "index \"{}\" already contains data",
                    crate::am::relation_name(index)
                ),
            );
        }
        create_meta(index, pg_sys::ForkNumber::MAIN_FORKNUM, &meta);
        let mut st = BuildState {
            index,
            support,
            graph: MemGraph {
                nodes: Vec::new(),
                entry: None,
                m: meta.m,
                ef_construction: meta.ef_construction,
                dist: support.dist,
                memory: 0,
            },
            visited: Visited {
                marks: Vec::new(),
                epoch: 0,
            },
            in_memory: true,
            memory_limit: pg_sys::maintenance_work_mem as usize * 1024,
            tmp: TempContext::new(c"hnsw build temporary context"),
            heap_tuples: 0.0,
            index_tuples: 0.0,
        };
        crate::am::table_index_build_scan(
            heap,
            index,
            index_info,
            true,
            Some(build_callback),
            (&raw mut st).cast::<c_void>(),
        );
        if st.in_memory {
            write_graph(index, &st.graph);
        }
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

/// `ambuildempty`: the metapage of an unlogged index's initialization fork.
#[pg_guard]
pub unsafe extern "C-unwind" fn ambuildempty(index: pg_sys::Relation) {
    unsafe {
        let support = Support::of(index);
        let meta = new_meta(index, &support);
        create_meta(index, pg_sys::ForkNumber::INIT_FORKNUM, &meta);
    }
}

/// `aminsert`.
#[pg_guard]
pub unsafe extern "C-unwind" fn aminsert(
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
        let tmp = TempContext::new(c"hnsw insert temporary context");
        let support = Support::of(index);
        let d = *values;
        let tid = Tid::from_item_pointer(&*heap_tid);
        tmp.run(|| {
            if let Some(value) = index_value(&support, d) {
                insert::lock_updates(index);
                insert::insert(index, support.dist, &value, tid);
                insert::unlock_updates(index);
            }
        });
        tmp.delete();
        false
    }
}
