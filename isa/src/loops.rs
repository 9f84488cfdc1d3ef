//! Natural loops: found from back edges (an edge whose target dominates its source), merged per
//! header, nested by containment.
//!
//! Only reachable blocks take part. A cycle entered at more than one block (irreducible control
//! flow) has no header dominating it, so it is not a natural loop and is not reported; PTX from
//! NVRTC is reducible.

use crate::bitset::BitSet;
use crate::cfg::Cfg;
use crate::dom::Dominators;
use crate::function::BlockId;

/// One natural loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loop {
    /// The block every iteration starts at; it dominates the whole loop.
    pub header: BlockId,
    /// Sources of the back edges to the header.
    pub latches: Vec<BlockId>,
    /// Every block of the loop, header included, in increasing block order.
    pub blocks: Vec<BlockId>,
    /// The innermost enclosing loop (index into [`LoopForest::loops`]).
    pub parent: Option<usize>,
    /// Nesting depth: 1 for an outermost loop.
    pub depth: u32,
}

/// All natural loops of a function and the loop nesting of each block.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct LoopForest {
    loops: Vec<Loop>,
    innermost: Vec<Option<usize>>,
}

impl LoopForest {
    /// Finds the natural loops of `cfg`, whose dominators are `dom`.
    pub fn compute(cfg: &Cfg, dom: &Dominators) -> LoopForest {
        let n = cfg.num_blocks();
        // Headers in reverse postorder, so loop indices are deterministic and outer loops
        // (whose headers come first) precede inner ones.
        let mut loops: Vec<Loop> = Vec::new();
        for &header in cfg.rpo() {
            let latches: Vec<BlockId> = cfg
                .preds(header)
                .iter()
                .copied()
                .filter(|&p| dom.dominates(header, p))
                .collect();
            if latches.is_empty() {
                continue;
            }
            let mut body = BitSet::new(n);
            body.insert(header.index());
            let mut stack: Vec<BlockId> = Vec::new();
            for &l in &latches {
                if body.insert(l.index()) {
                    stack.push(l);
                }
            }
            while let Some(b) = stack.pop() {
                for &p in cfg.preds(b) {
                    if cfg.is_reachable(p) && body.insert(p.index()) {
                        stack.push(p);
                    }
                }
            }
            let blocks = body.iter().map(|b| BlockId(b as u32)).collect();
            loops.push(Loop {
                header,
                latches,
                blocks,
                parent: None,
                depth: 0,
            });
        }

        // Natural loops with distinct headers are nested or disjoint, so visiting the larger
        // loops first leaves each block's smallest enclosing loop in `innermost`, and a loop's
        // parent is whatever enclosed its header just before it was visited.
        let mut by_size: Vec<usize> = (0..loops.len()).collect();
        by_size.sort_by_key(|&i| (std::cmp::Reverse(loops[i].blocks.len()), i));
        let mut innermost: Vec<Option<usize>> = vec![None; n];
        for &i in &by_size {
            let parent = innermost[loops[i].header.index()];
            loops[i].parent = parent;
            loops[i].depth = parent.map_or(1, |p| loops[p].depth + 1);
            for b in &loops[i].blocks {
                innermost[b.index()] = Some(i);
            }
        }
        LoopForest { loops, innermost }
    }

    /// The loops, outer loops before the loops they contain.
    pub fn loops(&self) -> &[Loop] {
        &self.loops
    }

    /// The innermost loop containing `b` (index into [`LoopForest::loops`]).
    pub fn innermost(&self, b: BlockId) -> Option<usize> {
        self.innermost.get(b.index()).copied().flatten()
    }

    /// How many loops contain `b` (0 outside any loop).
    pub fn depth(&self, b: BlockId) -> u32 {
        self.innermost(b).map_or(0, |l| self.loops[l].depth)
    }

    /// Whether `b` is the header of a loop.
    pub fn is_header(&self, b: BlockId) -> bool {
        self.innermost(b).is_some_and(|l| self.loops[l].header == b)
    }
}
