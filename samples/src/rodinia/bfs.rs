//! Rodinia bfs: level-synchronous breadth-first search from node 0, one thread per node. The
//! host repeats {clear the `over` flag, `Kernel`, `Kernel2`, read the flag back} until a level
//! adds no node, exactly as Rodinia's `do { ... } while (stop)` loop.
//!
//! The graph follows Rodinia's `graphgen`: every node starts 2–4 edges to uniformly random
//! nodes and each edge is stored in both directions (average degree 6, as `graph1MW_6`).
//! Costs (BFS levels, −1 when unreachable) are integers, compared exactly with a CPU
//! queue-based BFS.

use crate::Validation;
use crate::inputs::Rng;
use crate::sample::{Outcome, Sample, Session, Size};
use runtime::{Arg, Device};
use std::collections::VecDeque;

/// Rodinia's MAX_THREADS_PER_BLOCK.
pub const MAX_THREADS_PER_BLOCK: u32 = 512;
/// graphgen's MIN_EDGES and MAX_INIT_EDGES: edges each node starts.
const MIN_EDGES: u64 = 2;
const MAX_INIT_EDGES: u64 = 4;

/// Nodes per size: small 4096 (Rodinia's `graph4096`), default 1 000 000 (`graph1MW_6`, the
/// default input of Rodinia 3.1's run script), large 4 000 000.
pub fn nodes(size: Size) -> usize {
    match size {
        Size::Small => 4096,
        Size::Default => 1_000_000,
        Size::Large => 4_000_000,
    }
}

/// A graph in Rodinia's CSR form: `nodes` holds (starting, no_of_edges) pairs, interleaved
/// like its `struct Node`.
pub struct Graph {
    pub nodes: Vec<i32>,
    pub edges: Vec<i32>,
}

/// Rodinia's `graphgen` with a seeded generator.
pub fn graph(n: usize) -> Graph {
    let mut rng = Rng::new(0xBF5_0001);
    let mut adjacency: Vec<Vec<i32>> = vec![Vec::new(); n];
    for i in 0..n {
        let count = MIN_EDGES + rng.next_u64() % (MAX_INIT_EDGES - MIN_EDGES + 1);
        for _ in 0..count {
            let j = (rng.next_u64() % n as u64) as usize;
            adjacency[i].push(j as i32);
            adjacency[j].push(i as i32);
        }
    }
    let mut nodes = Vec::with_capacity(2 * n);
    let mut edges = Vec::new();
    for list in &adjacency {
        nodes.push(edges.len() as i32);
        nodes.push(list.len() as i32);
        edges.extend_from_slice(list);
    }
    Graph { nodes, edges }
}

/// The CPU reference: BFS levels from `source`, −1 where unreachable.
pub fn reference(g: &Graph, source: usize) -> Vec<i32> {
    let n = g.nodes.len() / 2;
    let mut cost = vec![-1; n];
    let mut queue = VecDeque::from([source]);
    cost[source] = 0;
    while let Some(u) = queue.pop_front() {
        let (start, count) = (g.nodes[2 * u] as usize, g.nodes[2 * u + 1] as usize);
        for &v in &g.edges[start..start + count] {
            if cost[v as usize] < 0 {
                cost[v as usize] = cost[u] + 1;
                queue.push_back(v as usize);
            }
        }
    }
    cost
}

/// Rodinia bfs as a registered sample.
pub struct Bfs;

impl Sample for Bfs {
    fn name(&self) -> &'static str {
        "rodinia/bfs"
    }

    fn kernels(&self) -> &'static [&'static str] {
        &["Kernel", "Kernel2"]
    }

    fn size_description(&self, size: Size) -> String {
        format!(
            "{} nodes, average degree 6, BFS from node 0 (2 launches per level)",
            nodes(size)
        )
    }

    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome> {
        let n = nodes(size);
        let source = 0;
        let mut session = Session::new(dev);
        let module = session.load("rodinia/bfs/bfs.ptx")?;
        let (kernel, kernel2) = (module.kernel("Kernel")?, module.kernel("Kernel2")?);
        let g = graph(n);

        let mut mask = vec![0u8; n];
        let mut visited = vec![0u8; n];
        let mut cost = vec![-1i32; n];
        mask[source] = 1;
        visited[source] = 1;
        cost[source] = 0;
        let d_nodes = dev.alloc_from(&g.nodes)?;
        let d_edges = dev.alloc_from(&g.edges)?;
        let d_mask = dev.alloc_from(&mask)?;
        let d_updating = dev.alloc_from(&vec![0u8; n])?;
        let d_visited = dev.alloc_from(&visited)?;
        let d_cost = dev.alloc_from(&cost)?;
        let d_over = dev.alloc::<u8>(1)?;

        // One block of `n` threads when it fits, else blocks of MAX_THREADS_PER_BLOCK.
        let (blocks, threads) = if n > MAX_THREADS_PER_BLOCK as usize {
            (
                (n as u32).div_ceil(MAX_THREADS_PER_BLOCK),
                MAX_THREADS_PER_BLOCK,
            )
        } else {
            (1, n as u32)
        };
        loop {
            d_over.copy_from_host(&[0])?;
            session.launch(
                &kernel,
                blocks,
                threads,
                0,
                &[
                    (&d_nodes).into(),
                    (&d_edges).into(),
                    (&d_mask).into(),
                    (&d_updating).into(),
                    (&d_visited).into(),
                    (&d_cost).into(),
                    Arg::I32(n as i32),
                ],
            )?;
            session.launch(
                &kernel2,
                blocks,
                threads,
                0,
                &[
                    (&d_mask).into(),
                    (&d_updating).into(),
                    (&d_visited).into(),
                    (&d_over).into(),
                    Arg::I32(n as i32),
                ],
            )?;
            if d_over.to_host()?[0] == 0 {
                break;
            }
        }
        cost = d_cost.to_host()?;
        let validation = Validation::exact(&cost, &reference(&g, source));
        Ok(session.finish(validation))
    }
}
