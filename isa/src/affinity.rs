//! What CORF's and CORF++'s compiler derive from the register affinity graph
//! ([`FunctionHints::affinity`], seed 000 §2.4.2 and §2.5.1).
//!
//! **CORF: exclusive common pairs**, the registers its hardware packs into one physical
//! register so that one read returns both. CORF's rule: "Considering only registers with more
//! than one edge, we repeatedly remove the edge with the least weight until we end up with only
//! exclusive pairs of registers. If there are any pair of registers that have all of their
//! edges removed, we check if an edge can be restored between them." Here:
//!
//! - an edge is *removable* while one of its registers has another edge; the lightest removable
//!   edge goes first (ties: the lower register pair first), until no register has two edges;
//! - then the removed edges, heaviest first (ties: the lower pair), are restored where both
//!   registers have no edge left.
//!
//! One ascending pass over the edges does the first step exactly: an edge found unremovable
//! stays so, since removals only lower degrees; and an edge found removable is then the lightest
//! removable one, every lighter edge being gone or unremovable. `O(E log E)`.
//!
//! **CORF++: alignments.** Two registers read together coalesce when they sit in disjoint
//! sub-banks, so registers read together should take opposite alignments (left or right): a
//! 2-colouring of the affinity graph after removing the least weight that breaks every odd
//! cycle (the bipartite edge frustration problem, NP-hard). CORF++'s heuristic: give each edge
//! its weight divided by the number of odd cycles removing it would break, remove the edge of
//! least such score among those on odd cycles, update, and repeat until no odd cycle is left.
//! Enumerating every simple cycle is exponential, so warpsim's version:
//!
//! 1. enumerates the odd cycles of at most [`MAX_CYCLE`] edges (triangles and pentagons, the
//!    lengths of the paper's example; triangles only when there are more than
//!    [`MAX_CYCLES`] of those) and runs the paper's heuristic on them exactly (ties: the lower
//!    register pair);
//! 2. keeps, of what is left, the heaviest edges that stay 2-colourable (edges heaviest
//!    first into a union-find with parity; one closing an odd cycle is dropped), which breaks
//!    any longer odd cycle by its lightest edges;
//! 3. colours each connected component from its lowest register, which is right-aligned;
//!    registers without an edge left are don't-care.
//!
//! [`FunctionHints::affinity`]: crate::hints::FunctionHints::affinity

use crate::hints::AffinityEdge;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet};

/// CORF's exclusive common pairs of an affinity graph (see the module docs): no register is in
/// two of them. Sorted by register pair.
pub fn exclusive_pairs(edges: &[AffinityEdge]) -> Vec<AffinityEdge> {
    let mut degree: BTreeMap<u32, u32> = BTreeMap::new();
    for e in edges {
        *degree.entry(e.a).or_default() += 1;
        *degree.entry(e.b).or_default() += 1;
    }
    let mut by_weight: Vec<AffinityEdge> = edges.to_vec();
    by_weight.sort_by_key(|e| (e.weight, e.a, e.b));
    let (mut kept, mut removed) = (Vec::new(), Vec::new());
    for e in by_weight {
        if degree[&e.a] > 1 || degree[&e.b] > 1 {
            *degree.get_mut(&e.a).expect("counted") -= 1;
            *degree.get_mut(&e.b).expect("counted") -= 1;
            removed.push(e);
        } else {
            kept.push(e);
        }
    }
    removed.sort_by_key(|e| (Reverse(e.weight), e.a, e.b));
    for e in removed {
        if degree[&e.a] == 0 && degree[&e.b] == 0 {
            *degree.get_mut(&e.a).expect("counted") += 1;
            *degree.get_mut(&e.b).expect("counted") += 1;
            kept.push(e);
        }
    }
    kept.sort_by_key(|e| (e.a, e.b));
    kept
}

/// Odd cycles of at most this many edges are counted by CORF++'s heuristic.
pub const MAX_CYCLE: usize = 5;

/// When a graph has more odd cycles of at most [`MAX_CYCLE`] edges than this, only its
/// triangles are counted (the enumeration and its bookkeeping stay bounded).
pub const MAX_CYCLES: usize = 100_000;

/// A register's alignment in CORF++'s sub-banks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Alignment {
    /// Its bytes fill the register's low sub-banks.
    Right,
    /// Its bytes fill the register's high sub-banks.
    Left,
    /// No affinity edge constrains it.
    DontCare,
}

/// CORF++'s alignment of every register with an affinity edge (see the module docs); the
/// others are [`Alignment::DontCare`].
pub fn alignments(edges: &[AffinityEdge]) -> BTreeMap<u32, Alignment> {
    let mut alive: Vec<bool> = vec![true; edges.len()];
    break_short_odd_cycles(edges, &mut alive);

    // Heaviest first into a union-find with parity: an edge joining two registers of one
    // component with the same parity would close an odd cycle.
    let mut order: Vec<usize> = (0..edges.len()).filter(|&i| alive[i]).collect();
    order.sort_by_key(|&i| (Reverse(edges[i].weight), edges[i].a, edges[i].b));
    let mut sets = ParityUnionFind::default();
    let mut kept: Vec<AffinityEdge> = Vec::new();
    for i in order {
        let e = edges[i];
        if sets.join_opposite(e.a, e.b) {
            kept.push(e);
        }
    }

    let mut out: BTreeMap<u32, Alignment> = BTreeMap::new();
    for e in edges {
        out.insert(e.a, Alignment::DontCare);
        out.insert(e.b, Alignment::DontCare);
    }
    let constrained: BTreeSet<u32> = kept.iter().flat_map(|e| [e.a, e.b]).collect();
    for r in constrained {
        let (root, parity) = sets.find(r);
        // The component's colour is fixed by its lowest register (which is right-aligned):
        // the root's parity relative to it.
        let lowest = sets.lowest[&root];
        let (_, lowest_parity) = sets.find(lowest);
        out.insert(
            r,
            if parity == lowest_parity {
                Alignment::Right
            } else {
                Alignment::Left
            },
        );
    }
    out
}

/// What CORF's and CORF++'s compilers pass to the hardware for each register of one function
/// (seed 000: metadata instructions in the kernel's preamble): its exclusive common-pair
/// partner, and its alignment. Dense by register for the register file's lookups.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CoalescingHints {
    partner: Vec<Option<u32>>,
    alignment: Vec<Alignment>,
}

impl CoalescingHints {
    /// The hints of a function with affinity graph `edges` ([`exclusive_pairs`],
    /// [`alignments`]).
    pub fn compute(edges: &[AffinityEdge]) -> CoalescingHints {
        let n = edges.iter().map(|e| e.b as usize + 1).max().unwrap_or(0);
        let mut partner = vec![None; n];
        for e in exclusive_pairs(edges) {
            partner[e.a as usize] = Some(e.b);
            partner[e.b as usize] = Some(e.a);
        }
        let mut alignment = vec![Alignment::DontCare; n];
        for (r, a) in alignments(edges) {
            alignment[r as usize] = a;
        }
        CoalescingHints { partner, alignment }
    }

    /// The register `reg` shares an exclusive common pair with, if any (CORF).
    pub fn partner(&self, reg: u32) -> Option<u32> {
        self.partner.get(reg as usize).copied().flatten()
    }

    /// The alignment of `reg` (CORF++); [`Alignment::DontCare`] for a register without edges.
    pub fn alignment(&self, reg: u32) -> Alignment {
        self.alignment
            .get(reg as usize)
            .copied()
            .unwrap_or(Alignment::DontCare)
    }
}

/// CORF++'s heuristic on the odd cycles of at most [`MAX_CYCLE`] edges (step 1 of the module
/// docs): clears `alive` for the edges it removes.
fn break_short_odd_cycles(edges: &[AffinityEdge], alive: &mut [bool]) {
    let cycles = odd_cycles(edges, MAX_CYCLE)
        .filter(|c| c.len() <= MAX_CYCLES)
        .unwrap_or_else(|| odd_cycles(edges, 3).unwrap_or_default());
    // For each edge, the cycles through it; for each cycle, whether it is broken.
    let mut through: Vec<Vec<usize>> = vec![Vec::new(); edges.len()];
    for (c, cycle) in cycles.iter().enumerate() {
        for &e in cycle {
            through[e].push(c);
        }
    }
    let mut unbroken: Vec<u32> = through.iter().map(|c| c.len() as u32).collect();
    let mut broken = vec![false; cycles.len()];
    loop {
        // The edge on an unbroken cycle of least weight per cycle it breaks; compare
        // w1 / n1 < w2 / n2 as w1 · n2 < w2 · n1.
        let best = (0..edges.len())
            .filter(|&e| alive[e] && unbroken[e] > 0)
            .min_by(|&x, &y| {
                let (wx, nx) = (u128::from(edges[x].weight), u128::from(unbroken[x]));
                let (wy, ny) = (u128::from(edges[y].weight), u128::from(unbroken[y]));
                (wx * ny)
                    .cmp(&(wy * nx))
                    .then((edges[x].a, edges[x].b).cmp(&(edges[y].a, edges[y].b)))
            });
        let Some(e) = best else {
            return;
        };
        alive[e] = false;
        for &c in &through[e] {
            if !std::mem::replace(&mut broken[c], true) {
                for &other in &cycles[c] {
                    unbroken[other] -= 1;
                }
            }
        }
    }
}

/// Every simple cycle of odd length up to `max_len` edges, each once, as the indices of its
/// edges; `None` when there are more than [`MAX_CYCLES`].
fn odd_cycles(edges: &[AffinityEdge], max_len: usize) -> Option<Vec<Vec<usize>>> {
    let mut adj: BTreeMap<u32, Vec<(u32, usize)>> = BTreeMap::new();
    for (i, e) in edges.iter().enumerate() {
        adj.entry(e.a).or_default().push((e.b, i));
        adj.entry(e.b).or_default().push((e.a, i));
    }
    let mut cycles = Vec::new();
    // A cycle is found from its lowest register, through registers above it only, once per
    // direction: kept when its second register is below its last.
    let mut path: Vec<u32> = Vec::new();
    let mut path_edges: Vec<usize> = Vec::new();
    for &start in adj.keys() {
        path.clear();
        path.push(start);
        if !extend(
            &adj,
            start,
            max_len,
            &mut path,
            &mut path_edges,
            &mut cycles,
        ) {
            return None;
        }
    }
    Some(cycles)
}

/// Depth-first extension of `path` (from `start`) for [`odd_cycles`]; false once there are too
/// many cycles.
fn extend(
    adj: &BTreeMap<u32, Vec<(u32, usize)>>,
    start: u32,
    max_len: usize,
    path: &mut Vec<u32>,
    path_edges: &mut Vec<usize>,
    cycles: &mut Vec<Vec<usize>>,
) -> bool {
    let at = *path.last().expect("the path has its start");
    for &(next, e) in &adj[&at] {
        if next == start && path.len() >= 3 {
            let len = path_edges.len() + 1;
            if len % 2 == 1 && path[1] < at {
                let mut cycle = path_edges.clone();
                cycle.push(e);
                cycles.push(cycle);
                if cycles.len() > MAX_CYCLES {
                    return false;
                }
            }
        } else if next > start && path_edges.len() + 1 < max_len && !path.contains(&next) {
            path.push(next);
            path_edges.push(e);
            let more = extend(adj, start, max_len, path, path_edges, cycles);
            path.pop();
            path_edges.pop();
            if !more {
                return false;
            }
        }
    }
    true
}

/// A union-find over registers that remembers, for each, its parity relative to its root.
#[derive(Default)]
struct ParityUnionFind {
    parent: BTreeMap<u32, (u32, bool)>,
    /// The lowest register of each component, by root.
    lowest: BTreeMap<u32, u32>,
}

impl ParityUnionFind {
    /// The root of `r`'s component and `r`'s parity relative to it.
    fn find(&mut self, r: u32) -> (u32, bool) {
        let (p, parity) = *self.parent.entry(r).or_insert((r, false));
        self.lowest.entry(r).or_insert(r);
        if p == r {
            return (r, false);
        }
        let (root, p_parity) = self.find(p);
        let parity = parity ^ p_parity;
        self.parent.insert(r, (root, parity));
        (root, parity)
    }

    /// Puts `a` and `b` on opposite sides; false (and nothing changes) when they are already
    /// on the same side of one component.
    fn join_opposite(&mut self, a: u32, b: u32) -> bool {
        let ((ra, pa), (rb, pb)) = (self.find(a), self.find(b));
        if ra == rb {
            return pa != pb;
        }
        let lowest = self.lowest[&ra].min(self.lowest[&rb]);
        // b's root goes under a's, with the parity that puts a and b apart.
        self.parent.insert(rb, (ra, !(pa ^ pb)));
        self.lowest.insert(ra, lowest);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edge(a: u32, b: u32, weight: u64) -> AffinityEdge {
        AffinityEdge { a, b, weight }
    }

    #[test]
    fn corfs_example_pairs_r1_with_r3_and_r2_with_r4() {
        // Seed 000, Figure 2.5: r1 is read 8 times with r2, 10 with r3 and 2 with r4, and r2
        // with r4. Removal takes 1-4, 2-4 and 1-2 (each touching a register with another
        // edge), leaving 1-3; r2 and r4 are then both alone, so 2-4 is restored.
        let pairs = exclusive_pairs(&[edge(1, 2, 8), edge(1, 3, 10), edge(1, 4, 2), edge(2, 4, 3)]);
        assert_eq!(pairs, [edge(1, 3, 10), edge(2, 4, 3)]);
    }

    #[test]
    fn the_lightest_removable_edge_goes_first() {
        // A path 1-2-3-4, the middle edge heaviest: 1-2 and 3-4 go, 2-3 stays; 1 and 4 share no
        // edge to restore.
        assert_eq!(
            exclusive_pairs(&[edge(1, 2, 1), edge(2, 3, 5), edge(3, 4, 2)]),
            [edge(2, 3, 5)]
        );
        // A triangle 1-2-3 with a tail 1-4: 1-4, 1-2 and then 2-3 go (3 still had two edges),
        // leaving 1-3; 2 and 4 are alone but share no edge.
        assert_eq!(
            exclusive_pairs(&[edge(1, 2, 3), edge(1, 3, 9), edge(1, 4, 1), edge(2, 3, 4)]),
            [edge(1, 3, 9)]
        );
    }

    #[test]
    fn pairs_are_exclusive_and_no_edge_joins_two_unpaired_registers() {
        // Dense graphs on 9 registers with pseudo-random weights.
        let mut x = 0x9E37_79B9_u64;
        for _ in 0..50 {
            let mut edges = Vec::new();
            for a in 0..9 {
                for b in a + 1..9 {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    if !x.is_multiple_of(3) {
                        edges.push(edge(a, b, x % 20));
                    }
                }
            }
            let pairs = exclusive_pairs(&edges);
            let mut paired = [false; 9];
            for p in &pairs {
                assert!(edges.contains(p), "{p:?} is an edge of the graph");
                for r in [p.a, p.b] {
                    assert!(!paired[r as usize], "register {r} in two pairs");
                    paired[r as usize] = true;
                }
            }
            for e in &edges {
                assert!(
                    paired[e.a as usize] || paired[e.b as usize],
                    "{e:?} could be a pair"
                );
            }
        }
    }

    /// The graph of seed 000's Figure 2.8, whose four odd cycles the text lists:
    /// (r1, r2, r3), (r3, r4, r6), (r2, r3, r4, r6, r5) and (r1, r3, r6, r5, r2).
    fn figure_2_8(weights: [u64; 8]) -> Vec<AffinityEdge> {
        let pairs = [
            (1, 2),
            (1, 3),
            (2, 3),
            (2, 5),
            (3, 4),
            (3, 6),
            (4, 6),
            (5, 6),
        ];
        pairs
            .iter()
            .zip(weights)
            .map(|(&(a, b), w)| edge(a, b, w))
            .collect()
    }

    #[test]
    fn the_odd_cycles_of_corfs_example_are_the_four_the_paper_lists() {
        let edges = figure_2_8([1; 8]);
        let mut cycles: Vec<Vec<(u32, u32)>> = odd_cycles(&edges, MAX_CYCLE)
            .unwrap()
            .iter()
            .map(|c| {
                let mut c: Vec<(u32, u32)> = c.iter().map(|&e| (edges[e].a, edges[e].b)).collect();
                c.sort_unstable();
                c
            })
            .collect();
        cycles.sort();
        assert_eq!(
            cycles,
            [
                vec![(1, 2), (1, 3), (2, 3)],
                vec![(1, 2), (1, 3), (2, 5), (3, 6), (5, 6)],
                vec![(2, 3), (2, 5), (3, 4), (4, 6), (5, 6)],
                vec![(3, 4), (3, 6), (4, 6)],
            ]
        );
    }

    #[test]
    fn corfs_example_loses_two_edges_to_become_two_colourable() {
        use Alignment::{Left, Right};
        // Equal weights: every edge lies on two odd cycles. 1-2 goes first (the lowest pair),
        // breaking (1,2,3) and (1,3,6,5,2); then 3-4 (on both cycles left) breaks the rest.
        // The component is coloured from r1, right-aligned.
        let got = alignments(&figure_2_8([1; 8]));
        let want = [
            (1, Right),
            (2, Right),
            (3, Left),
            (4, Left),
            (5, Left),
            (6, Right),
        ];
        assert_eq!(got, want.into_iter().collect());
        // A heavy 1-2 is kept: 1-3 (on the same two cycles, lighter) goes instead, and r1 and
        // r2 are then apart.
        let got = alignments(&figure_2_8([9, 1, 2, 2, 2, 2, 2, 2]));
        assert_ne!(got[&1], got[&2]);
    }

    #[test]
    fn a_two_colourable_graph_keeps_every_edge() {
        // Random bipartite graphs (even registers against odd ones), and an odd cycle of seven,
        // longer than the heuristic's cycles: the union-find step breaks it at its lightest edge.
        let mut x = 0x2545_F491_u64;
        for _ in 0..50 {
            let mut edges = Vec::new();
            for a in 0..10u32 {
                for b in a + 1..10 {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    if (a + b) % 2 == 1 && x.is_multiple_of(2) {
                        edges.push(edge(a, b, 1 + x % 9));
                    }
                }
            }
            let got = alignments(&edges);
            for e in &edges {
                assert_ne!(got[&e.a], got[&e.b], "{e:?} lost in a bipartite graph");
                assert_ne!(got[&e.a], Alignment::DontCare);
            }
        }
        let seven: Vec<AffinityEdge> = (0..7)
            .map(|i| {
                let (a, b) = (i, (i + 1) % 7);
                edge(a.min(b), a.max(b), if i == 4 { 1 } else { 5 })
            })
            .collect();
        let got = alignments(&seven);
        for e in &seven {
            assert_eq!(got[&e.a] != got[&e.b], e.weight == 5, "{e:?}");
        }
    }
}
