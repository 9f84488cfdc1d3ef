//! The CTA locality graph (seed 002, §3.2.2): a vertex per CTA, an edge between two CTAs
//! that read common data, weighted by how many lines they share.
//!
//! The seed weighs an edge by the data elements two thread blocks share; here the unit is
//! the L1 line, since the scheduler's aim is the line two CTAs on one SM fetch once (two CTAs
//! reading neighbouring words of a line share it in the cache as surely as one word).
//! A line read by more than [`MAX_SHARERS`] CTAs (a table every CTA reads) adds no edge: its
//! pairs would weigh every partition alike and cost quadratic time; the summary counts such
//! lines apart.

use super::guru::Footprints;
use serde::Serialize;
use std::collections::HashMap;

/// Most CTAs reading one line for the line to add edges.
pub const MAX_SHARERS: usize = 256;

/// The graph, in compressed adjacency form: the neighbours of CTA `v` are
/// `edges[offsets[v]..offsets[v + 1]]`, as (neighbour, weight), by neighbour.
#[derive(Clone, Debug, Default)]
pub struct LocalityGraph {
    offsets: Vec<usize>,
    edges: Vec<(u32, u64)>,
    pub summary: GraphSummary,
}

/// What `warpsim dis --locality` and the statistics show of a graph.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct GraphSummary {
    /// Vertices: the CTAs analysed.
    pub ctas: u64,
    /// Distinct lines read, over every CTA.
    pub lines: u64,
    /// Lines read by more than one CTA (widely shared ones included).
    pub shared_lines: u64,
    /// Lines read by more than [`MAX_SHARERS`] CTAs (no edges).
    pub widely_shared_lines: u64,
    /// CTAs sharing at least one line with another (the seed's "shared TB").
    pub sharing_ctas: u64,
    /// Edges (pairs of CTAs sharing lines).
    pub edges: u64,
    /// Sum of the edge weights.
    pub weight: u64,
    /// Mean distance in CTA order between an edge's ends, weighted by the edge's weight
    /// (1: neighbours share; about the grid's width: CTAs of a column do).
    pub mean_distance: f64,
}

impl LocalityGraph {
    /// The graph of the CTAs whose footprints are given.
    pub fn build(footprints: &Footprints) -> LocalityGraph {
        let n = footprints.lines.len();
        let mut pairs: Vec<(u64, u32)> = footprints
            .lines
            .iter()
            .enumerate()
            .flat_map(|(cta, lines)| lines.iter().map(move |&l| (l, cta as u32)))
            .collect();
        pairs.sort_unstable();
        let mut weights: HashMap<(u32, u32), u64> = HashMap::new();
        let mut summary = GraphSummary {
            ctas: n as u64,
            ..GraphSummary::default()
        };
        let mut sharing = vec![false; n];
        for run in pairs.chunk_by(|a, b| a.0 == b.0) {
            summary.lines += 1;
            if run.len() < 2 {
                continue;
            }
            summary.shared_lines += 1;
            for &(_, c) in run {
                sharing[c as usize] = true;
            }
            if run.len() > MAX_SHARERS {
                summary.widely_shared_lines += 1;
                continue;
            }
            for (i, &(_, a)) in run.iter().enumerate() {
                for &(_, b) in &run[i + 1..] {
                    *weights.entry((a, b)).or_default() += 1;
                }
            }
        }
        summary.sharing_ctas = sharing.iter().filter(|&&s| s).count() as u64;
        // Both directions, sorted: the adjacency's order must not depend on the hash map's.
        let mut directed: Vec<(u32, u32, u64)> = weights
            .into_iter()
            .flat_map(|((a, b), w)| [(a, b, w), (b, a, w)])
            .collect();
        directed.sort_unstable();
        summary.edges = directed.len() as u64 / 2;
        summary.weight = directed.iter().map(|e| e.2).sum::<u64>() / 2;
        let distance: f64 = directed
            .iter()
            .map(|&(a, b, w)| f64::from(a.abs_diff(b)) * w as f64)
            .sum::<f64>()
            / 2.0;
        summary.mean_distance = if summary.weight > 0 {
            distance / summary.weight as f64
        } else {
            0.0
        };
        let mut offsets = vec![0usize; n + 1];
        for &(a, ..) in &directed {
            offsets[a as usize + 1] += 1;
        }
        for v in 0..n {
            offsets[v + 1] += offsets[v];
        }
        LocalityGraph {
            offsets,
            edges: directed.into_iter().map(|(_, b, w)| (b, w)).collect(),
            summary,
        }
    }

    /// How many vertices (CTAs) the graph has.
    pub fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// Whether the graph has no vertex.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The neighbours of `v` with the lines each shares with it, by neighbour.
    pub fn neighbours(&self, v: u32) -> &[(u32, u64)] {
        &self.edges[self.offsets[v as usize]..self.offsets[v as usize + 1]]
    }

    /// The weight of the edge between `a` and `b` (0 when none).
    pub fn weight(&self, a: u32, b: u32) -> u64 {
        let n = self.neighbours(a);
        n.binary_search_by_key(&b, |e| e.0).map_or(0, |i| n[i].1)
    }

    /// The weight of the edges inside the groups of `groups` (both ends in one group).
    pub fn weight_within(&self, groups: &[Vec<u32>]) -> u64 {
        let mut group_of = vec![usize::MAX; self.len()];
        for (g, members) in groups.iter().enumerate() {
            for &v in members {
                group_of[v as usize] = g;
            }
        }
        (0..self.len() as u32)
            .map(|a| {
                self.neighbours(a)
                    .iter()
                    .filter(|e| e.0 > a && group_of[e.0 as usize] == group_of[a as usize])
                    .map(|e| e.1)
                    .sum::<u64>()
            })
            .sum()
    }
}
