//! Dominators and post-dominators (Cooper, Harvey & Kennedy, "A Simple, Fast Dominance
//! Algorithm"), and the SIMT reconvergence point of each divergent branch.
//!
//! Post-dominators are computed on the reversed graph rooted at a *virtual exit* node. Its
//! predecessors are:
//! - every block that may leave the function ([`Cfg::exits`]): one ending in `ret`, `exit` or
//!   `trap`, guarded or not (a guarded one still may leave), or one with no successor;
//! - one representative of each region that can never reach such a block (an infinite loop).
//!   Representatives are chosen deterministically: the first block, in postorder of the
//!   forward graph (reachable blocks, then unreachable blocks in reverse layout order), that
//!   cannot yet reach the virtual exit; this is typically the loop's latch, so branches inside
//!   the infinite loop still reconverge inside it. Then everything that reaches the
//!   representative is settled, and the search continues.
//!
//! With those edges every block reaches the virtual exit, so every block has an immediate
//! post-dominator: a block, or the function exit (`None`).

use crate::cfg::{Cfg, reverse_postorder};
use crate::function::{BlockId, Function};
use crate::inst::Op;
use std::fmt;

const UNDEF: u32 = u32::MAX;

/// A dominator tree over nodes `0..n`, with preorder/postorder numbers for O(1) queries.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Tree {
    /// Immediate dominator; the root is its own; `UNDEF` for nodes not reached from the root.
    idom: Vec<u32>,
    pre: Vec<u32>,
    post: Vec<u32>,
}

impl Tree {
    /// Cooper–Harvey–Kennedy over a graph given by predecessor lists and the reverse postorder
    /// of the nodes reached from the root (`rpo[0]` is the root).
    fn compute(n: usize, rpo: &[usize], preds: &[Vec<u32>]) -> Tree {
        let mut idom = vec![UNDEF; n];
        let mut order = vec![UNDEF; n];
        for (i, &b) in rpo.iter().enumerate() {
            order[b] = i as u32;
        }
        if let Some(&root) = rpo.first() {
            idom[root] = root as u32;
        }
        let intersect = |idom: &[u32], mut a: u32, mut b: u32| {
            while a != b {
                while order[a as usize] > order[b as usize] {
                    a = idom[a as usize];
                }
                while order[b as usize] > order[a as usize] {
                    b = idom[b as usize];
                }
            }
            a
        };
        let mut changed = true;
        while changed {
            changed = false;
            for &b in rpo.iter().skip(1) {
                let mut new = UNDEF;
                for &p in &preds[b] {
                    if idom[p as usize] == UNDEF {
                        continue;
                    }
                    new = if new == UNDEF {
                        p
                    } else {
                        intersect(&idom, p, new)
                    };
                }
                if new != idom[b] {
                    idom[b] = new;
                    changed = true;
                }
            }
        }
        let mut tree = Tree {
            idom,
            pre: vec![UNDEF; n],
            post: vec![UNDEF; n],
        };
        tree.number(rpo);
        tree
    }

    /// Assigns preorder and postorder numbers by a depth-first walk of the tree.
    fn number(&mut self, rpo: &[usize]) {
        let Some(&root) = rpo.first() else { return };
        let mut children: Vec<Vec<u32>> = vec![Vec::new(); self.idom.len()];
        // Children in reverse postorder, so numbering is deterministic.
        for &b in rpo.iter().skip(1) {
            children[self.idom[b] as usize].push(b as u32);
        }
        let (mut pre, mut post) = (0u32, 0u32);
        let mut stack: Vec<(u32, usize)> = vec![(root as u32, 0)];
        self.pre[root] = pre;
        pre += 1;
        while let Some((node, next)) = stack.last_mut() {
            let node_children = &children[*node as usize];
            if let Some(&c) = node_children.get(*next) {
                *next += 1;
                self.pre[c as usize] = pre;
                pre += 1;
                stack.push((c, 0));
            } else {
                self.post[*node as usize] = post;
                post += 1;
                stack.pop();
            }
        }
    }

    fn reached(&self, a: usize) -> bool {
        self.idom.get(a).is_some_and(|&i| i != UNDEF)
    }

    fn dominates(&self, a: usize, b: usize) -> bool {
        self.reached(a)
            && self.reached(b)
            && self.pre[a] <= self.pre[b]
            && self.post[b] <= self.post[a]
    }

    /// The immediate dominator, or `None` for the root and unreached nodes.
    fn parent(&self, a: usize) -> Option<usize> {
        match self.idom.get(a) {
            Some(&i) if i != UNDEF && i as usize != a => Some(i as usize),
            _ => None,
        }
    }
}

fn pred_lists(cfg: &Cfg) -> Vec<Vec<u32>> {
    (0..cfg.num_blocks() as u32)
        .map(|b| cfg.preds(BlockId(b)).iter().map(|p| p.0).collect())
        .collect()
}

/// The dominator tree of the blocks reachable from the entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dominators {
    tree: Tree,
}

impl Dominators {
    /// Computes dominators of `cfg`'s reachable blocks.
    pub fn compute(cfg: &Cfg) -> Dominators {
        let rpo: Vec<usize> = cfg.rpo().iter().map(|b| b.index()).collect();
        Dominators {
            tree: Tree::compute(cfg.num_blocks(), &rpo, &pred_lists(cfg)),
        }
    }

    /// The immediate dominator of `b`; `None` for the entry and for unreachable blocks.
    pub fn idom(&self, b: BlockId) -> Option<BlockId> {
        self.tree.parent(b.index()).map(|i| BlockId(i as u32))
    }

    /// Whether `a` dominates `b` (reflexive). False when either is unreachable.
    pub fn dominates(&self, a: BlockId, b: BlockId) -> bool {
        self.tree.dominates(a.index(), b.index())
    }
}

/// Where the lanes of a divergent branch meet again.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reconvergence {
    /// At the start of this block.
    Block(BlockId),
    /// Only at the function exit: the paths never meet inside the function.
    Exit,
}

impl fmt::Display for Reconvergence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reconvergence::Block(b) => write!(f, "{b}"),
            Reconvergence::Exit => f.write_str("exit"),
        }
    }
}

/// The post-dominator tree, rooted at a virtual exit node (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PostDominators {
    /// Over nodes `0..=n`; node `n` is the virtual exit.
    tree: Tree,
    /// Blocks connected to the virtual exit although they cannot reach a real exit.
    non_exiting_roots: Vec<BlockId>,
    /// Whether each block ends in a guarded, non-`.uni` branch.
    divergent: Vec<bool>,
}

impl PostDominators {
    /// Computes post-dominators of every block of `f` (whose graph is `cfg`).
    pub fn compute(f: &Function, cfg: &Cfg) -> PostDominators {
        let n = cfg.num_blocks();
        let exit = n;
        let mut is_root = vec![false; n];
        for b in cfg.exits() {
            is_root[b.index()] = true;
        }
        // Settle what reaches a real exit, then connect one block of each remaining region.
        let mut reaches = vec![false; n];
        let mut stack: Vec<usize> = Vec::new();
        let settle = |from: usize, reaches: &mut Vec<bool>, stack: &mut Vec<usize>| {
            if reaches[from] {
                return;
            }
            reaches[from] = true;
            stack.push(from);
            while let Some(b) = stack.pop() {
                for p in cfg.preds(BlockId(b as u32)) {
                    if !reaches[p.index()] {
                        reaches[p.index()] = true;
                        stack.push(p.index());
                    }
                }
            }
        };
        for b in cfg.exits() {
            settle(b.index(), &mut reaches, &mut stack);
        }
        let mut non_exiting_roots = Vec::new();
        for b in cfg.backward_order() {
            if !reaches[b.index()] {
                non_exiting_roots.push(b);
                is_root[b.index()] = true;
                settle(b.index(), &mut reaches, &mut stack);
            }
        }

        // The reversed graph: successors are forward predecessors, and the virtual exit leads
        // to every root; predecessors are forward successors, plus the exit for roots.
        let roots: Vec<usize> = cfg
            .exits()
            .iter()
            .chain(&non_exiting_roots)
            .map(|b| b.index())
            .collect();
        let rsuccs = |node: usize| -> Vec<usize> {
            if node == exit {
                roots.clone()
            } else {
                cfg.preds(BlockId(node as u32))
                    .iter()
                    .map(|p| p.index())
                    .collect()
            }
        };
        let rpo = reverse_postorder(n + 1, exit, |node| rsuccs(node).into_iter());
        let mut rpreds: Vec<Vec<u32>> = (0..n as u32)
            .map(|b| cfg.succs(BlockId(b)).iter().map(|s| s.0).collect())
            .collect();
        for (b, preds) in rpreds.iter_mut().enumerate() {
            if is_root[b] {
                preds.push(exit as u32);
            }
        }
        rpreds.push(Vec::new());
        let tree = Tree::compute(n + 1, &rpo, &rpreds);

        let divergent = f
            .blocks
            .iter()
            .map(|b| {
                b.insts.last().is_some_and(|i| {
                    i.guard.is_some() && matches!(i.op, Op::Bra { uni: false, .. })
                })
            })
            .collect();
        PostDominators {
            tree,
            non_exiting_roots,
            divergent,
        }
    }

    fn exit_node(&self) -> usize {
        self.tree.idom.len() - 1
    }

    /// The immediate post-dominator of `b`; `None` when it is the function exit (or `b` is out
    /// of range).
    pub fn ipdom(&self, b: BlockId) -> Option<BlockId> {
        if b.index() >= self.exit_node() {
            return None;
        }
        match self.tree.parent(b.index()) {
            Some(p) if p != self.exit_node() => Some(BlockId(p as u32)),
            _ => None,
        }
    }

    /// Whether every path from `b` to the function exit passes through `a` (reflexive).
    pub fn post_dominates(&self, a: BlockId, b: BlockId) -> bool {
        let n = self.exit_node();
        a.index() < n && b.index() < n && self.tree.dominates(a.index(), b.index())
    }

    /// For a block ending in a conditional branch (guarded and not `.uni`), where its lanes
    /// reconverge: its immediate post-dominator. `None` for any other block.
    pub fn reconvergence_point(&self, b: BlockId) -> Option<Reconvergence> {
        if !self.divergent.get(b.index()).copied().unwrap_or(false) {
            return None;
        }
        Some(match self.ipdom(b) {
            Some(p) => Reconvergence::Block(p),
            None => Reconvergence::Exit,
        })
    }

    /// Blocks connected to the virtual exit because they cannot reach a real exit (one per
    /// infinite-loop region; see the module docs).
    pub fn non_exiting_roots(&self) -> &[BlockId] {
        &self.non_exiting_roots
    }
}
