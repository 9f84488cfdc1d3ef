//! Every per-function analysis in one bundle, computed in dependency order:
//!
//! ```text
//! Function ─► Cfg ─┬─► Dominators ──► LoopForest
//!                  ├─► PostDominators (reconvergence points)
//!                  └─► Liveness ──► Allocation (physical registers)
//! ```
//!
//! Every analysis is deterministic and total: it accepts unverified functions (and
//! declarations) without panicking, although its answers are only meaningful for verified ones.

use crate::cfg::Cfg;
use crate::dom::{Dominators, PostDominators};
use crate::function::{BlockId, FuncId, Function, Module};
use crate::liveness::Liveness;
use crate::loops::LoopForest;
use crate::regalloc::Allocation;

/// The analyses of one function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunctionAnalysis {
    /// Successors, predecessors, reverse postorder, exits.
    pub cfg: Cfg,
    /// The dominator tree.
    pub dom: Dominators,
    /// The post-dominator tree and reconvergence points.
    pub postdom: PostDominators,
    /// Natural loops and loop depth per block.
    pub loops: LoopForest,
    /// Live-in/live-out sets per block.
    pub liveness: Liveness,
    /// Physical registers and per-thread register counts.
    pub alloc: Allocation,
    /// The program counter of each block's first instruction (see [`FunctionAnalysis::pc`]).
    pub block_pc: Vec<u32>,
}

impl FunctionAnalysis {
    /// Runs every analysis on `f`.
    pub fn compute(f: &Function) -> FunctionAnalysis {
        let cfg = Cfg::compute(f);
        let dom = Dominators::compute(&cfg);
        let postdom = PostDominators::compute(f, &cfg);
        let loops = LoopForest::compute(&cfg, &dom);
        let liveness = Liveness::compute(f, &cfg);
        let alloc = Allocation::compute(f, &cfg, &liveness);
        let mut block_pc = Vec::with_capacity(f.blocks.len());
        let mut pc = 0u32;
        for b in &f.blocks {
            block_pc.push(pc);
            pc += b.insts.len() as u32;
        }
        FunctionAnalysis {
            cfg,
            dom,
            postdom,
            loops,
            liveness,
            alloc,
            block_pc,
        }
    }

    /// The program counter of instruction `inst` of block `b`: its index in the function's
    /// instructions in layout order, counting from 0.
    pub fn pc(&self, b: BlockId, inst: usize) -> u32 {
        self.block_pc[b.index()] + inst as u32
    }

    /// The block and instruction index at program counter `pc`, if there is one.
    pub fn locate(&self, f: &Function, pc: u32) -> Option<(BlockId, usize)> {
        let b = self
            .block_pc
            .partition_point(|&start| start <= pc)
            .checked_sub(1)?;
        // The last block starting at or before `pc` is the one holding it: an empty block
        // shares its start with the next one.
        let i = (pc - self.block_pc[b]) as usize;
        (i < f.blocks.get(b)?.insts.len()).then_some((BlockId(b as u32), i))
    }
}

/// The analyses of every function of a module, indexed by [`FuncId`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModuleAnalysis {
    /// One per function of the module, in order.
    pub functions: Vec<FunctionAnalysis>,
}

impl ModuleAnalysis {
    /// Runs every analysis on every function of `m` (declarations give empty analyses).
    pub fn compute(m: &Module) -> ModuleAnalysis {
        ModuleAnalysis {
            functions: m.functions.iter().map(FunctionAnalysis::compute).collect(),
        }
    }

    /// The analyses of function `id`.
    pub fn function(&self, id: FuncId) -> &FunctionAnalysis {
        &self.functions[id.index()]
    }
}
