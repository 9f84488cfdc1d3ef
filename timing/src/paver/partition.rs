//! PAVER's recursive bipartitioning (RB-TS, seed 002 §3.3.3 and Algorithm 1): the locality
//! graph is cut in two halves of nearly equal size that share as little as possible, each
//! half again, until a part fits on one SM at once (at most `capacity` CTAs). The leaves,
//! left to right, are the CTA groups: CTAs in one leaf share the most (L1 locality), and
//! neighbouring leaves, scheduled at the same time on different SMs, come from one parent
//! (L2 locality).
//!
//! The seed bisects with METIS; here each bisection is a greedy graph growing from the
//! lowest CTA (the half most connected to what it has, ties to the lowest CTA) refined by
//! Fiduccia–Mattheyses passes that keep the halves' sizes. Deterministic: every choice breaks
//! ties by CTA number. Without any sharing the halves are consecutive CTAs, so a graph with
//! no edge gives groups of consecutive CTAs.

use super::graph::LocalityGraph;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Most refinement passes per bisection.
const MAX_PASSES: usize = 8;

/// Moves a refinement pass makes past its best prefix before giving up.
const PASS_PATIENCE: usize = 64;

/// The CTA groups of `graph` (each sorted by CTA), at most `capacity` CTAs each, in
/// scheduling order.
pub fn recursive_bisection(graph: &LocalityGraph, capacity: usize) -> Vec<Vec<u32>> {
    let mut groups = Vec::new();
    let mut index = vec![u32::MAX; graph.len()];
    let mut stack = vec![(0..graph.len() as u32).collect::<Vec<_>>()];
    // Depth first, left half first: the leaves come out left to right.
    while let Some(set) = stack.pop() {
        if set.len() <= capacity.max(1) {
            groups.push(set);
            continue;
        }
        let (left, right) = bisect(graph, &set, &mut index);
        stack.push(right);
        stack.push(left);
    }
    groups
}

/// Splits `set` (sorted) in two sorted halves, the first of `ceil(len / 2)` CTAs.
/// `index` maps CTAs to positions in `set` (all `u32::MAX` on entry and on return).
fn bisect(graph: &LocalityGraph, set: &[u32], index: &mut [u32]) -> (Vec<u32>, Vec<u32>) {
    for (i, &v) in set.iter().enumerate() {
        index[v as usize] = i as u32;
    }
    let sub = Subgraph {
        graph,
        set,
        index,
    };
    let target = set.len() - set.len() / 2;
    let mut left = grow(&sub, target);
    for _ in 0..MAX_PASSES {
        if !refine(&sub, &mut left, target) {
            break;
        }
    }
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for (i, &v) in set.iter().enumerate() {
        if left[i] { a.push(v) } else { b.push(v) }
    }
    for &v in set {
        index[v as usize] = u32::MAX;
    }
    (a, b)
}

/// The graph induced by a set of CTAs, in local positions.
struct Subgraph<'a> {
    graph: &'a LocalityGraph,
    set: &'a [u32],
    index: &'a [u32],
}

impl Subgraph<'_> {
    /// Neighbours of local vertex `i` inside the set: (local position, weight).
    fn neighbours(&self, i: usize) -> impl Iterator<Item = (usize, u64)> + '_ {
        self.graph
            .neighbours(self.set[i])
            .iter()
            .filter_map(|&(u, w)| {
                let j = self.index[u as usize];
                (j != u32::MAX).then_some((j as usize, w))
            })
    }
}

/// Greedy graph growing: `size` vertices from the lowest, each step the one most connected
/// to those taken.
fn grow(sub: &Subgraph, size: usize) -> Vec<bool> {
    let n = sub.set.len();
    let mut taken = vec![false; n];
    let mut conn = vec![0u64; n];
    let mut heap: BinaryHeap<(u64, Reverse<usize>)> = BinaryHeap::new();
    let mut lowest = 0;
    for _ in 0..size {
        let next = loop {
            match heap.pop() {
                Some((c, Reverse(i))) if !taken[i] && conn[i] == c => break i,
                Some(_) => continue,
                None => {
                    while taken[lowest] {
                        lowest += 1;
                    }
                    break lowest;
                }
            }
        };
        taken[next] = true;
        for (j, w) in sub.neighbours(next) {
            if !taken[j] {
                conn[j] += w;
                heap.push((conn[j], Reverse(j)));
            }
        }
    }
    taken
}

/// One Fiduccia–Mattheyses pass: single moves by best gain, alternating sides so that the
/// first half keeps `target` vertices, then rolled back to the best balanced prefix. Whether
/// the cut improved.
fn refine(sub: &Subgraph, left: &mut [bool], target: usize) -> bool {
    let n = sub.set.len();
    // Gain of moving each vertex: weight to the other side minus weight to its own.
    let mut gain = vec![0i64; n];
    for (i, g) in gain.iter_mut().enumerate() {
        for (j, w) in sub.neighbours(i) {
            *g += if left[j] == left[i] { -(w as i64) } else { w as i64 };
        }
    }
    let mut heaps: [BinaryHeap<(i64, Reverse<usize>)>; 2] = [BinaryHeap::new(), BinaryHeap::new()];
    for i in 0..n {
        heaps[usize::from(left[i])].push((gain[i], Reverse(i)));
    }
    let mut locked = vec![false; n];
    let mut left_size = left.iter().filter(|&&l| l).count();
    let (mut total, mut best, mut best_len) = (0i64, 0i64, 0usize);
    let mut moves = Vec::new();
    loop {
        // Move out of the first half when it is too big, into it when too small; when
        // balanced, from the side with the better move.
        let from_left = match left_size.cmp(&target) {
            std::cmp::Ordering::Greater => true,
            std::cmp::Ordering::Less => false,
            std::cmp::Ordering::Equal => {
                let top = |h: &mut BinaryHeap<(i64, Reverse<usize>)>| {
                    while let Some(&(g, Reverse(i))) = h.peek() {
                        if !locked[i] && gain[i] == g {
                            return Some(g);
                        }
                        h.pop();
                    }
                    None
                };
                match (top(&mut heaps[1]), top(&mut heaps[0])) {
                    (Some(a), Some(b)) => a >= b,
                    (Some(_), None) => true,
                    (None, _) => false,
                }
            }
        };
        let heap = &mut heaps[usize::from(from_left)];
        let v = loop {
            match heap.pop() {
                Some((g, Reverse(i))) if !locked[i] && gain[i] == g => break Some(i),
                Some(_) => continue,
                None => break None,
            }
        };
        let Some(v) = v else { break };
        total += gain[v];
        locked[v] = true;
        left[v] = !left[v];
        if left[v] {
            left_size += 1;
        } else {
            left_size -= 1;
        }
        for (j, w) in sub.neighbours(v) {
            if locked[j] {
                continue;
            }
            // Now on v's side: an edge less cut by moving j; on the other: one more.
            gain[j] += if left[j] == left[v] { -2 * w as i64 } else { 2 * w as i64 };
            heaps[usize::from(left[j])].push((gain[j], Reverse(j)));
        }
        moves.push(v);
        if left_size == target && total > best {
            best = total;
            best_len = moves.len();
        }
        if moves.len() - best_len > PASS_PATIENCE {
            break;
        }
    }
    for &v in &moves[best_len..] {
        left[v] = !left[v];
    }
    best > 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::paver::guru::Footprints;

    /// A graph from per-CTA line lists.
    fn graph(lines: Vec<Vec<u64>>) -> LocalityGraph {
        LocalityGraph::build(&Footprints {
            lines,
            ..Footprints::default()
        })
    }

    #[test]
    fn columns_of_a_grid_stay_together() {
        // A 4×4 grid of CTAs (x fastest) where each column reads its own lines: CTAs 0, 4,
        // 8, 12 share line 100, and so on. Groups of 4 must be the columns.
        let lines = (0..16u64).map(|c| vec![100 + c % 4, 1000 + c]).collect();
        let g = graph(lines);
        assert_eq!(g.summary.edges, 4 * 6);
        let groups = recursive_bisection(&g, 4);
        assert_eq!(
            groups,
            [[0, 4, 8, 12], [1, 5, 9, 13], [2, 6, 10, 14], [3, 7, 11, 15]]
        );
        assert_eq!(g.weight_within(&groups), g.summary.weight);
    }

    #[test]
    fn without_sharing_groups_are_consecutive_ctas() {
        let g = graph((0..10u64).map(|c| vec![c]).collect());
        assert_eq!(g.summary.edges, 0);
        let groups = recursive_bisection(&g, 3);
        assert_eq!(
            groups,
            vec![vec![0, 1, 2], vec![3, 4], vec![5, 6, 7], vec![8, 9]]
        );
    }

    #[test]
    fn two_cliques_are_the_two_halves() {
        // Cliques {0, 2, 4, 6} and {1, 3, 5, 7}: growing from 0 takes its clique.
        let g = graph((0..8u64).map(|c| vec![c % 2]).collect());
        assert_eq!(recursive_bisection(&g, 4), [[0, 2, 4, 6], [1, 3, 5, 7]]);
    }

    #[test]
    fn refinement_swaps_misplaced_vertices() {
        // Cliques {0, 1, 2, 3} and {4, 5, 6, 7}, started as {0, 1, 2, 4} | {3, 5, 6, 7}:
        // one pass moves 4 and 3 back, and a second finds nothing better.
        let g = graph((0..8u64).map(|c| vec![c / 4]).collect());
        let set: Vec<u32> = (0..8).collect();
        let index: Vec<u32> = (0..8).collect();
        let sub = Subgraph {
            graph: &g,
            set: &set,
            index: &index,
        };
        let mut left = [true, true, true, false, true, false, false, false];
        assert!(refine(&sub, &mut left, 4));
        assert_eq!(left, [true, true, true, true, false, false, false, false]);
        assert!(!refine(&sub, &mut left, 4));
    }
}
