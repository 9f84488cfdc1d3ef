//! Parboil bfs (Luo, Wong and Hwu's frontier-queue BFS, distinct from Rodinia's level-mask
//! BFS): single-source BFS on a directed graph, the host choosing per launch from the
//! frontier size between `BFS_in_GPU_kernel` (one 512-thread CTA advancing level after level
//! inside the kernel while the frontier fits in it) and `BFS_kernel` (one level per launch,
//! ⌈frontier / 512⌉ CTAs), with the two global queues swapped between launches as Parboil's
//! host does. Parboil's third kernel (several levels per launch behind a spinning inter-CTA
//! barrier) is left out, see `bfs.cu`; its frontiers go to `BFS_kernel`.
//!
//! Parboil reads a graph file (nodes with their first edge and edge count, edges with a
//! neighbour and a cost); here the graph is generated: seeded out-degrees and uniformly random
//! neighbours, every edge cost 1, so that the costs are BFS levels (Parboil's kernels relax
//! `cost + edge cost` with atomicMin, which with unit costs is BFS).
//!
//! Validation is exact: every node's cost (level, or INF where unreachable) and colour (BLACK
//! where reached, else WHITE) against a CPU BFS. The queues' order depends on the order of the
//! atomics, but the set of nodes in each level, hence the launch sequence, does not.

use super::common::below;
use crate::Validation;
use crate::inputs::Rng;
use crate::sample::{Outcome, Sample, Session, Size};
use runtime::{Arg, Device};
use std::collections::VecDeque;

/// Parboil's configuration.
const MAX_THREADS_PER_BLOCK: usize = 512;
const INF: i32 = i32::MAX;
const WHITE: i32 = 16_677_217;
const GRAY0: i32 = 16_677_219;
const GRAY1: i32 = 16_677_220;
const BLACK: i32 = 16_677_221;

/// A generated graph's shape: `nodes` nodes with out-degrees uniform in 1..=`max_degree`.
/// Out-degrees stay at most 6 so that no warp-level queue can overflow: 64 threads of a CTA
/// share one, and 64 × 6 = 384 pushes fit in its 400 entries.
#[derive(Clone, Copy, Debug)]
pub struct Problem {
    pub nodes: usize,
    pub max_degree: usize,
}

impl Problem {
    pub fn of(size: Size) -> Problem {
        let (nodes, max_degree) = match size {
            // The frontier outgrows one CTA after a few levels and shrinks back at the end:
            // both kernels run, the single-CTA one both handing over and finishing.
            Size::Small => (2000, 5),
            // The node count of Parboil's `1M` dataset.
            Size::Default => (1_000_000, 6),
            Size::Large => (4_000_000, 6),
        };
        Problem { nodes, max_degree }
    }
}

/// A graph in Parboil's layout: per node (first edge, edge count); per edge (neighbour, cost).
pub struct Graph {
    pub nodes: Vec<[i32; 2]>,
    pub edges: Vec<[i32; 2]>,
}

/// The seeded graph of `p`.
pub fn generate(p: &Problem) -> Graph {
    let mut rng = Rng::new(0x4246_5350_0001);
    let mut nodes = Vec::with_capacity(p.nodes);
    let mut edges = Vec::new();
    for _ in 0..p.nodes {
        let degree = 1 + below(&mut rng, p.max_degree);
        nodes.push([edges.len() as i32, degree as i32]);
        for _ in 0..degree {
            edges.push([below(&mut rng, p.nodes) as i32, 1]);
        }
    }
    Graph { nodes, edges }
}

/// The CPU reference: (cost, colour) of every node after a BFS from `source`.
pub fn reference(g: &Graph, source: usize) -> (Vec<i32>, Vec<i32>) {
    let mut cost = vec![INF; g.nodes.len()];
    let mut color = vec![WHITE; g.nodes.len()];
    cost[source] = 0;
    let mut queue = VecDeque::from([source]);
    while let Some(n) = queue.pop_front() {
        color[n] = BLACK;
        let [first, count] = g.nodes[n];
        for &[id, w] in &g.edges[first as usize..(first + count) as usize] {
            let id = id as usize;
            if cost[n] + w < cost[id] {
                cost[id] = cost[n] + w;
                queue.push_back(id);
            }
        }
    }
    (cost, color)
}

/// Parboil bfs as a registered sample.
pub struct Bfs;

impl Sample for Bfs {
    fn name(&self) -> &'static str {
        "parboil/bfs"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &["BFS_in_GPU_kernel", "BFS_kernel"]
    }

    fn size_description(&self, size: Size) -> String {
        let p = Problem::of(size);
        format!(
            "{} nodes, out-degree 1–{} (mean {:.1}), unit edge costs",
            p.nodes,
            p.max_degree,
            (p.max_degree + 1) as f64 / 2.0
        )
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        let p = Problem::of(size);
        let g = generate(&p);
        let source = 0usize;

        let mut session = Session::new(dev);
        let module = session.load("parboil/bfs/bfs.ptx")?;
        let one_cta = module.kernel("BFS_in_GPU_kernel")?;
        let per_level = module.kernel("BFS_kernel")?;
        let flat = |v: &[[i32; 2]]| v.iter().flatten().copied().collect::<Vec<i32>>();
        let d_nodes = dev.alloc_from(&flat(&g.nodes))?;
        let d_edges = dev.alloc_from(&flat(&g.edges))?;
        let d_color = dev.alloc_from(&vec![WHITE; p.nodes])?;
        let mut cost = vec![INF; p.nodes];
        cost[source] = 0;
        let d_cost = dev.alloc_from(&cost)?;
        let mut first_q = vec![0i32; p.nodes];
        first_q[0] = source as i32;
        let d_q = [dev.alloc_from(&first_q)?, dev.alloc::<i32>(p.nodes)?];
        let d_tail = dev.alloc_from(&[1i32])?;
        let d_overflow = dev.alloc_from(&[0i32])?;

        // Parboil's host loop: level k reads queue k % 2 and writes the other one.
        let mut k = 0usize;
        loop {
            let frontier = d_tail.to_host()?[0] as usize;
            d_tail.copy_from_host(&[0])?;
            if frontier == 0 {
                break;
            }
            let (src, dst) = (&d_q[k % 2], &d_q[(k + 1) % 2]);
            let shade = if k % 2 == 0 { GRAY0 } else { GRAY1 };
            let ctas = frontier.div_ceil(MAX_THREADS_PER_BLOCK);
            let kernel = if ctas == 1 { &one_cta } else { &per_level };
            session.launch(
                kernel,
                ctas as u32,
                MAX_THREADS_PER_BLOCK as u32,
                0,
                &[
                    src.into(),
                    dst.into(),
                    (&d_nodes).into(),
                    (&d_edges).into(),
                    (&d_color).into(),
                    (&d_cost).into(),
                    Arg::I32(frontier as i32),
                    (&d_tail).into(),
                    Arg::I32(shade),
                    (&d_overflow).into(),
                ],
            )?;
            k += 1;
            if d_overflow.to_host()?[0] != 0 {
                // A warp-level queue overflowed: the result is incomplete (Parboil stops too).
                break;
            }
        }

        let (exp_cost, exp_color) = reference(&g, source);
        let mut got = d_cost.to_host()?;
        got.extend(d_color.to_host()?);
        let mut expected = exp_cost;
        expected.extend(exp_color);
        Ok(session.finish(Validation::exact(&got, &expected)))
    }
}
