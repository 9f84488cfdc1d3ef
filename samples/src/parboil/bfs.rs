//! Parboil bfs (Luo, Wong and Hwu's frontier-queue BFS, distinct from Rodinia's level-mask
//! BFS): single-source BFS on a directed graph, the host choosing per launch from the
//! frontier size between `BFS_in_GPU_kernel` (one 512-thread CTA advancing level after level
//! inside the kernel while the frontier fits in it) and `BFS_kernel` (one level per launch,
//! ⌈frontier / 512⌉ CTAs), with the two global queues swapped between launches as Parboil's
//! host does. Parboil's third kernel (several levels per launch behind a spinning inter-CTA
//! barrier) is left out, see `bfs.cu`; its frontiers go to `BFS_kernel`.
//!
//! Parboil reads a graph file (nodes with their first edge and edge count, edges with a
//! neighbour and a cost); here the graph is generated (see [`Problem`]): a seeded random
//! spanning tree in layers with random back edges, plus unreachable nodes, every edge cost 1 so
//! that the costs are BFS levels (Parboil's kernels relax `cost + edge cost` with atomicMin,
//! which with unit costs is BFS). The layers make every node of a level do the same work, so
//! the instruction counts do not depend on the order of the atomics; unlike Parboil's graphs,
//! the frontier never shrinks, so at these sizes the BFS always ends in `BFS_kernel` and the
//! single-CTA kernel's return on an empty frontier is not taken.
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

/// A generated graph's shape. The reachable part is layered: the source is level 0, and every
/// node of level ℓ has `children[ℓ]` edges to its own children (the nodes of level ℓ + 1, each
/// with that single parent), listed first, then back edges to random nodes of levels ≤ ℓ, to
/// `degree` edges in all; the last level has only back edges. `unreachable` more nodes have
/// `degree` random edges and no edge into them.
///
/// Why layered: every node of a level then does exactly the same work (the same loop trip
/// count, pushes at the same edges, the others failing their atomicMin), so the instructions
/// executed do not depend on the order of the atomics, which differs between warpsim's
/// functional engines and its timing model (its tests require the same counts). A random graph
/// would make who pushes a node, and where threads find their nodes in the queues, depend on
/// that order. With at most 4 children per node no warp-level queue can overflow: 64 threads
/// share one, and 64 × 4 = 256 pushes fit in its 400 entries.
#[derive(Clone, Debug)]
pub struct Problem {
    pub children: &'static [usize],
    pub degree: usize,
    pub unreachable: usize,
}

impl Problem {
    pub fn of(size: Size) -> Problem {
        match size {
            // Levels of 1, 3, .., 243 nodes in the single-CTA kernel, which hands the level of
            // 729 over to BFS_kernel (2 CTAs).
            Size::Small => Problem {
                children: &[3, 3, 3, 3, 3, 3],
                degree: 4,
                unreachable: 100,
            },
            // About the node count of Parboil's `1M` dataset: 15 levels, up to 221,184 wide.
            Size::Default => Problem {
                children: &[4, 4, 4, 4, 4, 3, 3, 3, 2, 2, 2, 1, 1],
                degree: 6,
                unreachable: 130_000,
            },
            Size::Large => Problem {
                children: &[4, 4, 4, 4, 4, 4, 3, 3, 3, 2, 2, 1, 1],
                degree: 6,
                unreachable: 500_000,
            },
        }
    }

    /// Nodes per level of the reachable part.
    fn levels(&self) -> Vec<usize> {
        let mut levels = vec![1];
        for c in self.children {
            levels.push(levels.last().unwrap() * c);
        }
        levels
    }

    /// Nodes in all.
    pub fn nodes(&self) -> usize {
        self.levels().iter().sum::<usize>() + self.unreachable
    }
}

/// A graph in Parboil's layout: per node (first edge, edge count); per edge (neighbour, cost).
pub struct Graph {
    pub nodes: Vec<[i32; 2]>,
    pub edges: Vec<[i32; 2]>,
}

/// The seeded graph of `p`, its node numbers shuffled (the source is node 0).
pub fn generate(p: &Problem) -> Graph {
    let mut rng = Rng::new(0x4246_5350_0001);
    let n = p.nodes();
    // Node number of the i-th node in level order (reachable ones first): a shuffle that
    // keeps the source at 0.
    let mut id: Vec<usize> = (0..n).collect();
    for i in (2..n).rev() {
        let j = 1 + below(&mut rng, i);
        id.swap(i, j);
    }
    let levels = p.levels();
    let reachable: usize = levels.iter().sum();
    let mut adjacency = vec![Vec::new(); n];
    let (mut first, mut next_child) = (0usize, 1usize);
    for (l, &width) in levels.iter().enumerate() {
        let children = p.children.get(l).copied().unwrap_or(0);
        let seen = first + width; // nodes of levels ≤ l
        for u in first..seen {
            let edges = &mut adjacency[id[u]];
            for _ in 0..children {
                edges.push(id[next_child]);
                next_child += 1;
            }
            while edges.len() < p.degree {
                edges.push(id[below(&mut rng, seen)]);
            }
        }
        first = seen;
    }
    for u in reachable..n {
        adjacency[id[u]] = (0..p.degree).map(|_| below(&mut rng, n)).collect();
    }
    let mut nodes = Vec::with_capacity(n);
    let mut edges = Vec::with_capacity(n * p.degree);
    for list in adjacency {
        nodes.push([edges.len() as i32, list.len() as i32]);
        edges.extend(list.into_iter().map(|v| [v as i32, 1]));
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

    fn values_depend_on_warp_order(&self) -> Option<&'static str> {
        Some(
            "queue slots come from atomicAdd on the queue tails and relaxations from atomicMin \
             on the costs, whose old values depend on which warp got there first (the costs \
             and the instruction counts do not)",
        )
    }

    fn kernels(&self) -> &'static [&'static str] {
        &["BFS_in_GPU_kernel", "BFS_kernel"]
    }

    fn size_description(&self, size: Size) -> String {
        let p = Problem::of(size);
        format!(
            "{} nodes ({} unreachable), out-degree {}, {} BFS levels up to {} wide, unit edge \
             costs{}",
            p.nodes(),
            p.unreachable,
            p.degree,
            p.children.len() + 1,
            p.levels().iter().max().unwrap(),
            if size == Size::Default {
                " (about the node count of Parboil's 1M dataset)"
            } else {
                ""
            }
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
        let nodes = p.nodes();
        let d_color = dev.alloc_from(&vec![WHITE; nodes])?;
        let mut cost = vec![INF; nodes];
        cost[source] = 0;
        let d_cost = dev.alloc_from(&cost)?;
        let mut first_q = vec![0i32; nodes];
        first_q[0] = source as i32;
        let d_q = [dev.alloc_from(&first_q)?, dev.alloc::<i32>(nodes)?];
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
            let shade = if k.is_multiple_of(2) { GRAY0 } else { GRAY1 };
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
