//! The control-flow graph of a function: successors, predecessors, reverse postorder from the
//! entry block, reachability, and the blocks that may leave the function.
//!
//! Edges come from [`Block::successors`](crate::Block::successors) (branch target first, then
//! the fall-through). Edges to blocks out of range are dropped rather than trusted, so every
//! analysis built on a [`Cfg`] is total on unverified functions; the verifier reports them.

use crate::function::{BlockId, Function};
use crate::inst::Op;

/// Successor and predecessor lists plus a depth-first ordering of one function's blocks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cfg {
    succs: Vec<Vec<BlockId>>,
    preds: Vec<Vec<BlockId>>,
    rpo: Vec<BlockId>,
    /// Position of each block in `rpo`; `u32::MAX` for blocks unreachable from the entry.
    rpo_index: Vec<u32>,
    exits: Vec<BlockId>,
}

const UNREACHABLE: u32 = u32::MAX;

impl Cfg {
    /// Builds the graph of `f`. A declaration (no blocks) gives an empty graph.
    pub fn compute(f: &Function) -> Cfg {
        let n = f.blocks.len();
        let mut succs: Vec<Vec<BlockId>> = Vec::with_capacity(n);
        let mut preds: Vec<Vec<BlockId>> = vec![Vec::new(); n];
        let mut exits = Vec::new();
        for (i, block) in f.blocks.iter().enumerate() {
            let s: Vec<BlockId> = block.successors().filter(|t| t.index() < n).collect();
            for t in &s {
                preds[t.index()].push(BlockId(i as u32));
            }
            let leaves = matches!(
                block.insts.last().map(|i| &i.op),
                Some(Op::Ret { .. } | Op::Exit | Op::Trap)
            );
            // A block with no successor at all can only leave the function (it falls off the
            // end or branches out of range); treating it as an exit keeps post-dominators total.
            if leaves || s.is_empty() {
                exits.push(BlockId(i as u32));
            }
            succs.push(s);
        }
        let rpo = reverse_postorder(n, 0, |b| succs[b].iter().map(|s| s.index()));
        let rpo: Vec<BlockId> = rpo.into_iter().map(|b| BlockId(b as u32)).collect();
        let mut rpo_index = vec![UNREACHABLE; n];
        for (i, b) in rpo.iter().enumerate() {
            rpo_index[b.index()] = i as u32;
        }
        Cfg {
            succs,
            preds,
            rpo,
            rpo_index,
            exits,
        }
    }

    /// Number of blocks (reachable or not).
    pub fn num_blocks(&self) -> usize {
        self.succs.len()
    }

    /// Successors of `b`: the branch target first, then the fall-through (deduplicated).
    pub fn succs(&self, b: BlockId) -> &[BlockId] {
        self.succs.get(b.index()).map_or(&[], Vec::as_slice)
    }

    /// Predecessors of `b` in increasing block order, including unreachable ones.
    pub fn preds(&self, b: BlockId) -> &[BlockId] {
        self.preds.get(b.index()).map_or(&[], Vec::as_slice)
    }

    /// The blocks reachable from the entry, in reverse postorder (the entry first).
    pub fn rpo(&self) -> &[BlockId] {
        &self.rpo
    }

    /// Position of `b` in [`Cfg::rpo`], or `None` when it is unreachable.
    pub fn rpo_index(&self, b: BlockId) -> Option<usize> {
        match self.rpo_index.get(b.index()) {
            Some(&i) if i != UNREACHABLE => Some(i as usize),
            _ => None,
        }
    }

    /// Whether `b` is reachable from the entry block.
    pub fn is_reachable(&self, b: BlockId) -> bool {
        self.rpo_index(b).is_some()
    }

    /// Blocks that may leave the function: those ending in `ret`, `exit` or `trap` (guarded or
    /// not: a guarded one still may leave), and those with no successor at all.
    pub fn exits(&self) -> &[BlockId] {
        &self.exits
    }

    /// Every block, unreachable ones included, in an order suited to backward dataflow:
    /// postorder of the reachable blocks, then the unreachable ones in reverse layout order.
    pub fn backward_order(&self) -> Vec<BlockId> {
        let mut order: Vec<BlockId> = self.rpo.iter().rev().copied().collect();
        order.extend(
            (0..self.num_blocks() as u32)
                .rev()
                .map(BlockId)
                .filter(|&b| !self.is_reachable(b)),
        );
        order
    }
}

/// Reverse postorder of the nodes reachable from `root` in a graph of `n` nodes, by an iterative
/// depth-first search that visits successors in the order `succs` yields them.
pub(crate) fn reverse_postorder<I>(n: usize, root: usize, succs: impl Fn(usize) -> I) -> Vec<usize>
where
    I: Iterator<Item = usize>,
{
    let mut post = Vec::with_capacity(n);
    if root >= n {
        return post;
    }
    let mut visited = vec![false; n];
    let mut stack: Vec<(usize, I)> = vec![(root, succs(root))];
    visited[root] = true;
    while let Some((node, iter)) = stack.last_mut() {
        match iter.find(|&s| s < n && !visited[s]) {
            Some(s) => {
                visited[s] = true;
                stack.push((s, succs(s)));
            }
            None => {
                post.push(*node);
                stack.pop();
            }
        }
    }
    post.reverse();
    post
}
