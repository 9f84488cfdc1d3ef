//! Per-thread liveness of virtual registers: live-in and live-out sets per block, and the
//! live-after set of every instruction on demand.
//!
//! Transfer function of one instruction, from the set live after it to the set live before:
//! `before = (after − killed) ∪ uses`, where
//! - `uses` are [`Inst::uses`]: sources, the guard, address bases and vector elements;
//! - `killed` are the destinations of an *unguarded* instruction. A guarded (predicated)
//!   definition writes only the lanes whose guard is true and the old value survives in the
//!   others, so it kills nothing: a register live after it stays live before it. (A guarded
//!   definition whose value is dead afterwards keeps nothing alive, which is more precise than
//!   counting it as a use; the definition still interferes with everything live after it in
//!   register allocation.)
//! - Each element of a vector destination (`ld.v4 {a, b, c, d}`) is an ordinary definition of
//!   its own register.
//!
//! The block-level problem is solved with a worklist seeded in postorder; per-instruction sets
//! are recomputed from a block's live-out by walking it backwards, so memory stays at two sets
//! per block. Registers out of range of [`Function::regs`] are ignored.

use crate::bitset::BitSet;
use crate::cfg::Cfg;
use crate::function::{Block, BlockId, Function, VReg};
use crate::inst::Inst;
use std::collections::VecDeque;

/// Live-in and live-out sets of virtual registers for every block of a function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Liveness {
    live_in: Vec<BitSet>,
    live_out: Vec<BitSet>,
    num_regs: usize,
}

/// Registers an instruction kills: its destinations, unless it is guarded.
pub fn killed(inst: &Inst) -> impl Iterator<Item = VReg> + '_ {
    inst.defs().filter(move |_| inst.guard.is_none())
}

/// Applies one instruction's transfer function: turns the set live after `inst` into the set
/// live before it.
pub fn transfer(inst: &Inst, live: &mut BitSet) {
    for d in killed(inst) {
        live.remove(d.index());
    }
    for u in inst.uses() {
        live.insert(u.index());
    }
}

/// Upward-exposed uses (`gen`) and kills of a whole block.
fn gen_kill(block: &Block, num_regs: usize) -> (BitSet, BitSet) {
    let mut gen_set = BitSet::new(num_regs);
    let mut kill = BitSet::new(num_regs);
    for inst in block.insts.iter().rev() {
        for d in killed(inst) {
            gen_set.remove(d.index());
            kill.insert(d.index());
        }
        for u in inst.uses() {
            gen_set.insert(u.index());
        }
    }
    (gen_set, kill)
}

impl Liveness {
    /// Solves liveness for every block of `f` (reachable or not).
    pub fn compute(f: &Function, cfg: &Cfg) -> Liveness {
        let n = f.blocks.len();
        let num_regs = f.regs.len();
        let (gens, kills): (Vec<BitSet>, Vec<BitSet>) =
            f.blocks.iter().map(|b| gen_kill(b, num_regs)).unzip();
        let mut live_in = gens.clone();
        let mut live_out = vec![BitSet::new(num_regs); n];
        let mut queued = vec![true; n];
        let mut work: VecDeque<BlockId> = cfg.backward_order().into();
        let mut scratch = BitSet::new(num_regs);
        while let Some(b) = work.pop_front() {
            let bi = b.index();
            queued[bi] = false;
            for s in cfg.succs(b) {
                live_out[bi].union_with(&live_in[s.index()]);
            }
            scratch.copy_from(&live_out[bi]);
            scratch.subtract(&kills[bi]);
            scratch.union_with(&gens[bi]);
            if scratch != live_in[bi] {
                live_in[bi].copy_from(&scratch);
                for p in cfg.preds(b) {
                    if !queued[p.index()] {
                        queued[p.index()] = true;
                        work.push_back(*p);
                    }
                }
            }
        }
        Liveness {
            live_in,
            live_out,
            num_regs,
        }
    }

    /// The capacity of every set: `Function::regs.len()`.
    pub fn num_regs(&self) -> usize {
        self.num_regs
    }

    /// Registers live on entry to `b`.
    pub fn live_in(&self, b: BlockId) -> &BitSet {
        &self.live_in[b.index()]
    }

    /// Registers live on exit from `b`.
    pub fn live_out(&self, b: BlockId) -> &BitSet {
        &self.live_out[b.index()]
    }

    /// Walks block `b` of `f` backwards, calling `visit(index, inst, live_after)` for each
    /// instruction from the last to the first. `live_after` is the set live right after it.
    pub fn walk_backward(
        &self,
        f: &Function,
        b: BlockId,
        mut visit: impl FnMut(usize, &Inst, &BitSet),
    ) {
        let mut live = self.live_out[b.index()].clone();
        for (i, inst) in f.blocks[b.index()].insts.iter().enumerate().rev() {
            visit(i, inst, &live);
            transfer(inst, &mut live);
        }
    }

    /// The live-after set of each instruction of block `b`, in instruction order.
    pub fn live_after(&self, f: &Function, b: BlockId) -> Vec<BitSet> {
        let mut sets = vec![BitSet::new(0); f.blocks[b.index()].insts.len()];
        self.walk_backward(f, b, |i, _, live| sets[i] = live.clone());
        sets
    }
}
