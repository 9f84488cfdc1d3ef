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
//! are recomputed from a block's live-out by walking it backwards, so memory stays at two dense
//! sets per block (`B·V/8` bytes for `B` blocks and `V` registers) plus each block's upward-
//! exposed uses and kills as lists (as long as its instructions' operands). Registers out of
//! range of [`Function::regs`] are ignored.
//!
//! Cost: each pass over a block is `O(V/64)` words plus its operands, so straight-line code is
//! linear. Walks that look at every instruction's live set pay for what they look at:
//! [`Liveness::walk_forward`] updates a sorted set by each instruction's changes, where
//! [`Liveness::live_after`] copies a dense set per instruction (`O(I·V/64)`).

use crate::bitset::BitSet;
use crate::cfg::Cfg;
use crate::function::{Block, BlockId, Function, VReg};
use crate::inst::Inst;
use std::collections::{BTreeSet, VecDeque};

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

/// Upward-exposed uses (`gen`) and kills of a whole block, as sorted lists. `gen_set` and
/// `kill` are empty scratch sets of the function's capacity, left empty again: the cost is the
/// block's operands, not the capacity.
fn gen_kill(block: &Block, gen_set: &mut BitSet, kill: &mut BitSet) -> (Vec<u32>, Vec<u32>) {
    let mut touched: Vec<u32> = Vec::new();
    for inst in block.insts.iter().rev() {
        for d in killed(inst) {
            gen_set.remove(d.index());
            if kill.insert(d.index()) {
                touched.push(d.0);
            }
        }
        for u in inst.uses() {
            if gen_set.insert(u.index()) {
                touched.push(u.0);
            }
        }
    }
    touched.sort_unstable();
    touched.dedup();
    let mut gens = Vec::new();
    let mut kills = Vec::new();
    for &v in &touched {
        if gen_set.remove(v as usize) {
            gens.push(v);
        }
        if kill.remove(v as usize) {
            kills.push(v);
        }
    }
    (gens, kills)
}

impl Liveness {
    /// Solves liveness for every block of `f` (reachable or not).
    pub fn compute(f: &Function, cfg: &Cfg) -> Liveness {
        let n = f.blocks.len();
        let num_regs = f.regs.len();
        let mut scratch = BitSet::new(num_regs);
        let mut kill_scratch = BitSet::new(num_regs);
        let (gens, kills): (Vec<Vec<u32>>, Vec<Vec<u32>>) = f
            .blocks
            .iter()
            .map(|b| gen_kill(b, &mut scratch, &mut kill_scratch))
            .unzip();
        let mut live_in: Vec<BitSet> = gens
            .iter()
            .map(|g| {
                let mut set = BitSet::new(num_regs);
                for &v in g {
                    set.insert(v as usize);
                }
                set
            })
            .collect();
        let mut live_out = vec![BitSet::new(num_regs); n];
        let mut queued = vec![true; n];
        let mut work: VecDeque<BlockId> = cfg.backward_order().into();
        while let Some(b) = work.pop_front() {
            let bi = b.index();
            queued[bi] = false;
            for s in cfg.succs(b) {
                live_out[bi].union_with(&live_in[s.index()]);
            }
            scratch.copy_from(&live_out[bi]);
            for &v in &kills[bi] {
                scratch.remove(v as usize);
            }
            for &v in &gens[bi] {
                scratch.insert(v as usize);
            }
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

    /// Walks block `b` of `f` forwards, calling `visit(index, inst, live_after)` for each
    /// instruction from the first to the last, with the set live right after it (the same sets
    /// as [`Liveness::walk_backward`]'s). The set is updated by each instruction's changes
    /// (recorded by one backward walk), so the walk costs `O(V/64 + I log V)` plus what the
    /// visitor reads, however many registers are live.
    pub fn walk_forward(
        &self,
        f: &Function,
        b: BlockId,
        mut visit: impl FnMut(usize, &Inst, &BTreeSet<u32>),
    ) {
        let insts = &f.blocks[b.index()].insts;
        // Per instruction, the registers live after it but not before (defined there), then
        // those live before it but not after (last used there); `starts[i]..starts[i + 1]` of
        // `born` and `dead` are instruction `i`'s.
        let (mut born, mut dead) = (Vec::new(), Vec::new());
        let mut starts = vec![(0, 0); insts.len() + 1];
        let mut live = self.live_out[b.index()].clone();
        let mut touched: Vec<VReg> = Vec::new();
        for (i, inst) in insts.iter().enumerate().rev() {
            touched.clear();
            touched.extend(killed(inst).chain(inst.uses()));
            let after: Vec<bool> = touched.iter().map(|v| live.contains(v.index())).collect();
            transfer(inst, &mut live);
            starts[i + 1] = (born.len(), dead.len());
            for (k, v) in touched.iter().enumerate() {
                // A register named twice is recorded once.
                if touched[..k].contains(v) {
                    continue;
                }
                match (after[k], live.contains(v.index())) {
                    (true, false) => born.push(v.0),
                    (false, true) => dead.push(v.0),
                    _ => {}
                }
            }
        }
        starts[0] = (born.len(), dead.len());
        // Recorded from the last instruction to the first: instruction `i`'s changes lie
        // between the marks taken before (`starts[i + 1]`) and after (`starts[i]`) it.
        let mut set: BTreeSet<u32> = live.iter().map(|v| v as u32).collect();
        for (i, inst) in insts.iter().enumerate() {
            let ((b0, d0), (b1, d1)) = (starts[i + 1], starts[i]);
            for v in &dead[d0..d1] {
                set.remove(v);
            }
            set.extend(&born[b0..b1]);
            visit(i, inst, &set);
        }
    }

    /// The live-after set of each instruction of block `b`, in instruction order: a dense set
    /// per instruction, `O(I·V/64)` (see [`Liveness::walk_forward`] for large blocks).
    pub fn live_after(&self, f: &Function, b: BlockId) -> Vec<BitSet> {
        let mut sets = vec![BitSet::new(0); f.blocks[b.index()].insts.len()];
        self.walk_backward(f, b, |i, _, live| sets[i] = live.clone());
        sets
    }
}

/// Answers "is register `r` live after instruction `pc`" for any instruction of a function
/// (`pc` counts instructions across the blocks in order), in `O(log)` per query, with memory
/// linear in the function's operands plus the block-level sets: the per-instruction dense sets
/// of [`Liveness::live_after`] would be `O(I·V)`, gigabytes for a straight-line kernel of 10^5
/// instructions and as many registers.
///
/// Per register, the instructions that use or kill it are recorded in order with whether it is
/// live before each. After `pc` a register is live exactly when it is live before the next
/// such instruction of `pc`'s block, or, when none follows, when it is live out of the block.
#[derive(Clone, Debug)]
pub struct LiveAfterIndex {
    liveness: Liveness,
    /// First PC of each block, ascending, then the function's instruction count.
    block_starts: Vec<u32>,
    /// `events[event_starts[r]..event_starts[r + 1]]`: register `r`'s (PC, live before it),
    /// by PC.
    event_starts: Vec<u32>,
    events: Vec<(u32, bool)>,
}

impl LiveAfterIndex {
    /// Indexes `f`, whose liveness is `liveness`.
    pub fn new(f: &Function, liveness: Liveness) -> LiveAfterIndex {
        let num_regs = liveness.num_regs;
        let mut block_starts = Vec::with_capacity(f.blocks.len() + 1);
        let mut pc = 0u32;
        for block in &f.blocks {
            block_starts.push(pc);
            pc += block.insts.len() as u32;
        }
        block_starts.push(pc);
        // Each instruction's registers, each once and in range.
        let touched = |inst: &Inst, out: &mut Vec<u32>| {
            out.clear();
            out.extend(
                killed(inst)
                    .chain(inst.uses())
                    .map(|v| v.0)
                    .filter(|&v| (v as usize) < num_regs),
            );
            out.sort_unstable();
            out.dedup();
        };
        // Counting pass, then the events of each register filled in from the last PC down.
        let mut scratch = Vec::new();
        let mut counts = vec![0u32; num_regs + 1];
        for inst in f.blocks.iter().flat_map(|b| &b.insts) {
            touched(inst, &mut scratch);
            for &v in &scratch {
                counts[v as usize + 1] += 1;
            }
        }
        for v in 0..num_regs {
            counts[v + 1] += counts[v];
        }
        let event_starts = counts.clone();
        let mut fill = counts; // one past the next free slot of each register, filled downwards
        fill.remove(0);
        let mut events = vec![(0, false); event_starts[num_regs] as usize];
        for (bi, block) in f.blocks.iter().enumerate().rev() {
            let mut live = liveness.live_out[bi].clone();
            for (i, inst) in block.insts.iter().enumerate().rev() {
                transfer(inst, &mut live);
                touched(inst, &mut scratch);
                for &v in &scratch {
                    fill[v as usize] -= 1;
                    events[fill[v as usize] as usize] =
                        (block_starts[bi] + i as u32, live.contains(v as usize));
                }
            }
        }
        LiveAfterIndex {
            liveness,
            block_starts,
            event_starts,
            events,
        }
    }

    /// The capacity of the register sets: `Function::regs.len()`.
    pub fn num_regs(&self) -> usize {
        self.liveness.num_regs
    }

    /// Instructions in the function.
    pub fn num_insts(&self) -> u32 {
        *self.block_starts.last().expect("a sentinel")
    }

    /// Whether register `r` is live right after instruction `pc` (false for a register out of
    /// range). `pc` must be below [`LiveAfterIndex::num_insts`].
    pub fn live_after(&self, pc: u32, r: VReg) -> bool {
        assert!(pc < self.num_insts(), "PC {pc} out of range");
        let Some(range) = self.event_starts.get(r.index()..r.index() + 2) else {
            return false;
        };
        let block = self.block_starts.partition_point(|&s| s <= pc) - 1;
        let events = &self.events[range[0] as usize..range[1] as usize];
        let next = events.partition_point(|&(at, _)| at <= pc);
        match events.get(next) {
            Some(&(at, live_before)) if at < self.block_starts[block + 1] => live_before,
            _ => self.liveness.live_out[block].contains(r.index()),
        }
    }
}
