//! The HNSW algorithms (Malkov and Yashunin, 2016), written once over a [`Space`]: the graph in
//! memory while an index is built, or on the index's pages for inserts and scans. A layer is
//! searched best-first from entry points keeping the `ef` nearest found (their Algorithm 2);
//! neighbors are chosen by their heuristic (Algorithm 4), keeping pruned candidates when fewer
//! than the limit remain.

use core::cmp::Ordering;
use std::collections::BinaryHeap;

/// An element found at a distance.
#[derive(Clone, Copy, Debug)]
pub struct Candidate<I> {
    /// The distance to the query.
    pub distance: f32,
    /// The element.
    pub id: I,
}

/// Ordered nearest first in a [`BinaryHeap`] (a min-heap by distance).
pub struct Near<I>(pub Candidate<I>);

/// Ordered farthest first in a [`BinaryHeap`] (a max-heap by distance).
pub struct Far<I>(pub Candidate<I>);

impl<I> PartialEq for Near<I> {
    fn eq(&self, other: &Self) -> bool {
        self.0.distance.total_cmp(&other.0.distance) == Ordering::Equal
    }
}
impl<I> Eq for Near<I> {}
impl<I> PartialOrd for Near<I> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<I> Ord for Near<I> {
    fn cmp(&self, other: &Self) -> Ordering {
        other.0.distance.total_cmp(&self.0.distance)
    }
}
impl<I> PartialEq for Far<I> {
    fn eq(&self, other: &Self) -> bool {
        self.0.distance.total_cmp(&other.0.distance) == Ordering::Equal
    }
}
impl<I> Eq for Far<I> {}
impl<I> PartialOrd for Far<I> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<I> Ord for Far<I> {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.distance.total_cmp(&other.0.distance)
    }
}

/// A graph searched for one query.
pub trait Space {
    /// An element's identity.
    type Id: Copy + Eq;

    /// The distance from the query to `id`, or `None` if `id` no longer names an element.
    fn distance(&mut self, id: Self::Id) -> Option<f32>;

    /// Appends `id`'s links on `layer` to `out`.
    fn neighbors(&mut self, id: Self::Id, layer: u8, out: &mut Vec<Self::Id>);

    /// Marks `id` visited; false if it already was.
    fn visit(&mut self, id: Self::Id) -> bool;

    /// Forgets what was visited (each layer's search starts afresh).
    fn reset_visited(&mut self);

    /// Counts the elements whose distance was computed (scans bound this).
    fn tuples(&self) -> u64 {
        0
    }
}

/// Searches `layer` from `entry` (distances known) and returns the `ef` nearest elements found,
/// nearest first. Candidates left behind go to `discarded` when given (an iterative scan resumes
/// from them, keeping what it visited: `fresh` false); a fresh search forgets what earlier
/// searches visited.
pub fn search_layer<S: Space>(
    space: &mut S,
    entry: &[Candidate<S::Id>],
    ef: usize,
    layer: u8,
    mut discarded: Option<&mut BinaryHeap<Near<S::Id>>>,
    fresh: bool,
) -> Vec<Candidate<S::Id>> {
    let ef = ef.max(1);
    if fresh {
        space.reset_visited();
    }
    for c in entry {
        space.visit(c.id);
    }
    let mut candidates: BinaryHeap<Near<S::Id>> = entry.iter().map(|c| Near(*c)).collect();
    let mut found: BinaryHeap<Far<S::Id>> = BinaryHeap::with_capacity(ef + 1);
    for c in entry {
        found.push(Far(*c));
        if found.len() > ef
            && let (Some(Far(f)), Some(d)) = (found.pop(), discarded.as_deref_mut())
        {
            d.push(Near(f));
        }
    }
    let mut links = Vec::new();
    while let Some(Near(c)) = candidates.pop() {
        let farthest = found.peek().map_or(f32::INFINITY, |f| f.0.distance);
        if c.distance > farthest && found.len() >= ef {
            break;
        }
        links.clear();
        space.neighbors(c.id, layer, &mut links);
        for &e in &links {
            if !space.visit(e) {
                continue;
            }
            let Some(d) = space.distance(e) else { continue };
            let e = Candidate { distance: d, id: e };
            let farthest = found.peek().map_or(f32::INFINITY, |f| f.0.distance);
            if found.len() < ef || d < farthest {
                candidates.push(Near(e));
                found.push(Far(e));
                if found.len() > ef
                    && let (Some(Far(f)), Some(dq)) = (found.pop(), discarded.as_deref_mut())
                {
                    dq.push(Near(f));
                }
            } else if let Some(dq) = discarded.as_deref_mut() {
                dq.push(Near(e));
            }
        }
    }
    let mut out: Vec<Candidate<S::Id>> = found.into_iter().map(|f| f.0).collect();
    out.sort_by(|a, b| a.distance.total_cmp(&b.distance));
    out
}

/// Descends from `entry` through the layers above `target` keeping the `ef` nearest found on
/// each as the next layer's entry points; returns those for layer `target`, nearest first. A
/// greedy descent (pgvector's) keeps only one: on clustered data it often ends in a wrong
/// cluster, from which a search of the layer below with a small `ef` does not get out (an
/// element inserted from there is linked only to other clusters' elements, and a query finds
/// none of its own cluster's).
pub fn descend_wide<S: Space>(
    space: &mut S,
    entry: Candidate<S::Id>,
    from: u8,
    target: u8,
    ef: usize,
) -> Vec<Candidate<S::Id>> {
    let mut eps = vec![entry];
    let mut layer = from;
    while layer > target {
        let w = search_layer(space, &eps, ef, layer, None, true);
        if !w.is_empty() {
            eps = w;
        }
        layer -= 1;
    }
    eps
}

/// Chooses at most `limit` neighbors from `candidates` (nearest first) by the heuristic: a
/// candidate is kept when it is nearer the base element than every one kept so far; pruned ones
/// fill the remaining room. `pair(a, b)` is the distance between two candidates.
pub fn select_neighbors<I: Copy>(
    candidates: &[Candidate<I>],
    limit: usize,
    pair: impl FnMut(I, I) -> f32,
) -> Vec<Candidate<I>> {
    select_flagged(candidates, limit, pair)
        .into_iter()
        .map(|(c, _)| c)
        .collect()
}

/// [`select_neighbors`], each chosen one with whether the heuristic kept it (true) or it fills
/// room left (false); kept ones first. Pruned candidates that are exact duplicates (of the base
/// element or of a kept one) fill last: many identical vectors would otherwise link only to
/// one another and drop out of the graph.
pub fn select_flagged<I: Copy>(
    candidates: &[Candidate<I>],
    limit: usize,
    mut pair: impl FnMut(I, I) -> f32,
) -> Vec<(Candidate<I>, bool)> {
    let mut kept: Vec<(Candidate<I>, bool)> = Vec::with_capacity(limit);
    let mut pruned: Vec<Candidate<I>> = Vec::new();
    let mut duplicates: Vec<Candidate<I>> = Vec::new();
    for c in candidates {
        if kept.len() >= limit {
            break;
        }
        let fail = kept
            .iter()
            .map(|(k, _)| pair(c.id, k.id))
            .find(|p| c.distance >= *p);
        match fail {
            None => kept.push((*c, true)),
            Some(p) if p == 0.0 || c.distance == 0.0 => duplicates.push(*c),
            Some(_) => pruned.push(*c),
        }
    }
    for p in pruned.into_iter().chain(duplicates) {
        if kept.len() >= limit {
            break;
        }
        kept.push((p, false));
    }
    kept
}

/// A random level for a new element: `floor(-ln(U) / ln(m))`, capped at `max`.
pub fn random_level(uniform: f64, m: u16, max: u8) -> u8 {
    let ml = 1.0 / f64::from(m).ln();
    let u = if uniform <= 0.0 {
        f64::MIN_POSITIVE
    } else {
        uniform
    };
    let level = (-u.ln() * ml).floor();
    if level >= f64::from(max) {
        max
    } else {
        level as u8
    }
}

/// The link limit of `layer`: 2·m on layer 0, m above.
pub fn layer_limit(layer: u8, m: u16) -> usize {
    if layer == 0 {
        2 * usize::from(m)
    } else {
        usize::from(m)
    }
}
