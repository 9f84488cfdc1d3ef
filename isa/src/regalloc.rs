//! Register allocation: virtual registers to per-thread physical registers, as a compiler back
//! end would do it, so register counts (and with them occupancy, bank conflicts and every
//! register-file technique) are close to what `ptxas -v` reports.
//!
//! - Two virtual registers *interfere* when one is defined by an instruction after which the
//!   other is live, or both are defined by the same instruction (all destinations are written,
//!   even dead ones). A guarded definition interferes like any other: it writes some lanes.
//!   The one exception is Chaitin's for copies: an unguarded `mov d, s` between registers of one
//!   class does not make `d` interfere with `s`, since both hold the same value; any later
//!   write to either while the other is live still does.
//! - Virtual registers are coloured greedily in order of their first appearance in layout order
//!   (registers live into the entry block first, then by index). For straight-line code this is
//!   linear-scan order, which is optimal for interval graphs; along dominance order it is
//!   optimal for chordal (SSA-like) graphs, which is what NVRTC's output mostly is.
//! - First [`crate::storage`] decides what each register needs: launch constants read as
//!   operands get [`PhysReg::Constant`] and no edges; 64-bit values whose high half nothing
//!   reads need one 32-bit register.
//! - Each takes the lowest free slot its storage allows: 8/16/32-bit values one 32-bit
//!   register, 64-bit values an aligned even pair (or one register, above), 128-bit values an
//!   aligned quad. Predicates are coloured
//!   the same way in the separate predicate file. A register related by a copy to one already
//!   coloured takes that one's slot instead when it is free and within the registers used so
//!   far, so copies tend to become no-ops without growing the register count.
//! - Registers never mentioned by an instruction get nothing. There is no spilling and no
//!   limit: a function needing more than the hardware's 255 registers reports its true need
//!   (`.maxnreg` is not enforced here).
//!
//! **Cost.** The graph has an edge per pair of registers live together at a definition, so a
//! function with `L` simultaneously live values has `L²/2` of them: 25,000 live values took
//! 41 s and 5.9 GB. [`Allocation::compute`] therefore first bounds the number of edges in
//! linear time ([`Interference::edge_bound`]) and builds the graph only when the bound is
//! within [`edge_budget`], [`EDGES_PER_ITEM`] edges per instruction and register (at least
//! [`MIN_EDGE_BUDGET`]), in `O(V + I + B·V/64 + E)` (registers, instructions, blocks, edges;
//! each definition visits only the live registers of its own file). Every committed kernel
//! stays well inside it, so their allocations are the greedy colouring above.
//!
//! A function whose graph would not fit is allocated by [`Allocation::linear_scan`] instead:
//! each register's *hull*, the span of layout positions from its first to its last definition
//! or liveness, is an interval, and two registers that interfere have overlapping hulls, so
//! colouring the hulls in order of their start (lowest free slot among the hulls still open)
//! is valid. It costs `O(B·V/64 + I + V log V)` (the live-in and live-out sets of the `B`
//! blocks are read once). On straight-line code in SSA form without copies, hulls overlap
//! exactly when registers interfere and both orders agree, so both allocators give the same
//! registers; elsewhere the linear scan may use more (up to 1.8 times as many on the committed
//! kernels, whose loops keep hulls open across their bodies).
//!
//! [`validate`] checks any allocation against liveness directly (not against the interference
//! graph), so it can judge this allocator and any other. It walks each block once, looking up
//! the live registers that share a physical register with each definition, in
//! `O(B·V/64 + I + conflicts)`.

use crate::bitset::{BitSet, SparseSet};
use crate::cfg::Cfg;
use crate::function::{BlockId, Function, VReg};
use crate::inst::{Inst, Op, Operand};
use crate::liveness::{Liveness, killed};
use crate::storage::{Storage, storage};
use crate::types::RegClass;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::fmt;
use std::ops::Range;

/// Interference edges [`Allocation::compute`] may build per instruction and per virtual
/// register before it turns to [`Allocation::linear_scan`]. The committed kernels need at most
/// 22 (myocyte's kernel: 230,885 edges for 10,697 instructions and registers; NVRTC's output
/// keeps few values live at once); 64 leaves a wide margin while keeping the graph within a
/// few hundred bytes per item.
pub const EDGES_PER_ITEM: usize = 64;

/// Edges every function may build whatever its size (2^20, four times the most any committed
/// kernel has), so that small functions with dense graphs keep the graph allocator.
pub const MIN_EDGE_BUDGET: usize = 1 << 20;

/// Where a virtual register lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PhysReg {
    /// Consecutive 32-bit registers.
    Gpr {
        /// The lowest register, a multiple of `count`.
        first: u32,
        /// 1, 2 (a 64-bit value) or 4 (a 128-bit value).
        count: u32,
    },
    /// A register of the predicate file.
    Pred(u32),
    /// No register: a launch constant that every instruction reading it takes as an
    /// immediate or constant-bank operand ([`Storage::Constant`]); the instruction defining
    /// it writes no register.
    Constant,
}

impl PhysReg {
    /// The 32-bit registers occupied (empty for a predicate).
    pub fn gprs(self) -> Range<u32> {
        match self {
            PhysReg::Gpr { first, count } => first..first + count,
            PhysReg::Pred(_) | PhysReg::Constant => 0..0,
        }
    }

    /// Whether the two share any physical storage.
    pub fn overlaps(self, other: PhysReg) -> bool {
        match (self, other) {
            (PhysReg::Pred(a), PhysReg::Pred(b)) => a == b,
            (PhysReg::Gpr { .. }, PhysReg::Gpr { .. }) => {
                let (a, b) = (self.gprs(), other.gprs());
                a.start < b.end && b.start < a.end
            }
            _ => false,
        }
    }
}

impl fmt::Display for PhysReg {
    /// `R4`, `R[2:3]` (a pair), `R[4:7]` (a quad), `P0`, `C` (a constant operand).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            PhysReg::Gpr { first, count: 1 } => write!(f, "R{first}"),
            PhysReg::Gpr { first, count } => write!(f, "R[{first}:{}]", first + count.max(1) - 1),
            PhysReg::Pred(p) => write!(f, "P{p}"),
            PhysReg::Constant => f.write_str("C"),
        }
    }
}

/// The most interference edges [`Allocation::compute`] builds for `f` before it turns to
/// [`Allocation::linear_scan`]: [`EDGES_PER_ITEM`] per instruction and register, at least
/// [`MIN_EDGE_BUDGET`].
pub fn edge_budget(f: &Function) -> usize {
    (f.regs.len() + f.inst_count())
        .saturating_mul(EDGES_PER_ITEM)
        .max(MIN_EDGE_BUDGET)
}

/// The physical register of every virtual register of a function.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Allocation {
    /// Indexed by [`VReg`]; `None` for registers no instruction mentions.
    pub phys: Vec<Option<PhysReg>>,
    /// 32-bit registers per thread: the highest one used plus one.
    pub regs_per_thread: u32,
    /// Predicate registers per thread: the highest one used plus one.
    pub preds_per_thread: u32,
}

impl Allocation {
    /// Allocates the registers of `f`, given its graph and liveness: the greedy colouring of
    /// the module docs when the interference graph has at most [`edge_budget`] edges, else
    /// [`Allocation::linear_scan`]. Near-linear either way: the graph is built only when it is
    /// that small.
    pub fn compute(f: &Function, cfg: &Cfg, liveness: &Liveness) -> Allocation {
        let storage = storage(f);
        if edge_bound(f, liveness, &storage) <= edge_budget(f) {
            let graph = Interference::build_with(f, liveness, &storage);
            Allocation::colour(f, cfg, liveness, &graph, &storage)
        } else {
            Allocation::linear_scan_with(f, liveness, &storage)
        }
    }

    /// Greedy colouring of `graph` in order of first appearance, `O(V log V + I + E)`.
    fn colour(
        f: &Function,
        cfg: &Cfg,
        liveness: &Liveness,
        graph: &Interference,
        storage: &[Storage],
    ) -> Allocation {
        let n = f.regs.len();
        let entry_live = (!f.blocks.is_empty()).then(|| liveness.live_in(BlockId(0)));
        let first_pc = first_appearance(f, cfg);
        let start = |v: usize| match entry_live {
            Some(live) if live.contains(v) => 0,
            _ => first_pc[v].saturating_add(1),
        };
        let mut order: Vec<usize> = mentioned_regs(f).iter().collect();
        order.sort_by_key(|&v| (start(v), v));

        let mut phys: Vec<Option<PhysReg>> = vec![None; n];
        let mut busy: Vec<u64> = Vec::new();
        // Registers used so far: [32-bit file, predicate file].
        let mut used = [0u32; 2];
        for v in order {
            if storage[v] == Storage::Constant {
                phys[v] = Some(PhysReg::Constant);
                continue;
            }
            let class = f.regs[v].class();
            let file = usize::from(class == RegClass::Pred);
            let count = storage[v].gprs(class).max(1);
            let neighbors = graph.neighbors(VReg(v as u32));
            let slots = || neighbors.iter().filter_map(|&w| phys[w as usize].map(slot));
            for slot in slots() {
                slot.for_each(|r| set_bit(&mut busy, r as usize));
            }
            let free = |first: u32| !(first..first + count).any(|r| get_bit(&busy, r as usize));
            let preferred = graph
                .copies(VReg(v as u32))
                .iter()
                .filter_map(|&w| phys[w as usize])
                .filter(|&p| p != PhysReg::Constant)
                .map(|p| slot(p).start)
                .find(|&first| first % count == 0 && free(first) && first + count <= used[file]);
            // The lowest free slot is at most one slot past the busy ones: this search costs
            // O(degree).
            let first = preferred.unwrap_or_else(|| {
                (0..)
                    .step_by(count as usize)
                    .find(|&r| free(r))
                    .unwrap_or(0)
            });
            // Clear only what was set: clearing all of `busy` would cost the highest register
            // so far for every register.
            for slot in slots() {
                slot.for_each(|r| clear_bit(&mut busy, r as usize));
            }
            phys[v] = Some(match class {
                RegClass::Pred => PhysReg::Pred(first),
                _ => PhysReg::Gpr { first, count },
            });
            used[file] = used[file].max(first + count);
        }
        let (regs_per_thread, preds_per_thread) = counts(&phys);
        Allocation {
            phys,
            regs_per_thread,
            preds_per_thread,
        }
    }

    /// Allocates the registers of `f` by linear scan over their hulls (see the module docs):
    /// in order of hull start, each register takes the lowest free slot its class allows
    /// among those not held by a register whose hull is still open, or a copy-related
    /// register's slot when that is free and within the registers used so far. Valid for any
    /// function; what [`Allocation::compute`] falls back to for functions whose interference
    /// graph is too large. `O(B·V/64 + I + V log V)`.
    pub fn linear_scan(f: &Function, liveness: &Liveness) -> Allocation {
        Allocation::linear_scan_with(f, liveness, &storage(f))
    }

    /// [`Allocation::linear_scan`] given the registers' storage.
    fn linear_scan_with(f: &Function, liveness: &Liveness, storage: &[Storage]) -> Allocation {
        let n = f.regs.len();
        let (lo, hi) = hulls(f, liveness);
        let copies = copy_lists(f);
        let mut order: Vec<usize> = mentioned_regs(f).iter().collect();
        order.sort_by_key(|&v| (lo[v], v));

        let mut phys: Vec<Option<PhysReg>> = vec![None; n];
        let mut files = [SlotFile::default(), SlotFile::default()];
        let mut used = [0u32; 2];
        // Registers whose hull is open, by the end of their hull.
        let mut open: BinaryHeap<Reverse<(u32, u32)>> = BinaryHeap::new();
        for v in order {
            while let Some(&Reverse((end, w))) = open.peek() {
                if end >= lo[v] {
                    break;
                }
                open.pop();
                if let Some(p) = phys[w as usize] {
                    let slot = slot(p);
                    files[file_of(p)].set(slot.start, slot.len() as u32, false);
                }
            }
            if storage[v] == Storage::Constant {
                phys[v] = Some(PhysReg::Constant);
                continue;
            }
            let class = f.regs[v].class();
            let file = usize::from(class == RegClass::Pred);
            let count = storage[v].gprs(class).max(1);
            let slots = &mut files[file];
            let preferred = copies[v]
                .iter()
                .filter_map(|&w| phys[w as usize])
                .filter(|&p| p != PhysReg::Constant)
                .map(|p| slot(p).start)
                .find(|&first| {
                    first % count == 0 && slots.is_free(first, count) && first + count <= used[file]
                });
            let first = preferred.unwrap_or_else(|| slots.lowest_free(count));
            slots.set(first, count, true);
            phys[v] = Some(match class {
                RegClass::Pred => PhysReg::Pred(first),
                _ => PhysReg::Gpr { first, count },
            });
            used[file] = used[file].max(first + count);
            open.push(Reverse((hi[v], v as u32)));
        }
        let (regs_per_thread, preds_per_thread) = counts(&phys);
        Allocation {
            phys,
            regs_per_thread,
            preds_per_thread,
        }
    }

    /// The physical register of `v`, if it has one.
    pub fn get(&self, v: VReg) -> Option<PhysReg> {
        self.phys.get(v.index()).copied().flatten()
    }
}

/// The registers a physical register occupies within its own file.
fn slot(p: PhysReg) -> Range<u32> {
    match p {
        PhysReg::Pred(i) => i..i + 1,
        other => other.gprs(),
    }
}

fn set_bit(words: &mut Vec<u64>, i: usize) {
    if words.len() <= i / 64 {
        words.resize(i / 64 + 1, 0);
    }
    words[i / 64] |= 1 << (i % 64);
}

fn clear_bit(words: &mut [u64], i: usize) {
    if let Some(w) = words.get_mut(i / 64) {
        *w &= !(1 << (i % 64));
    }
}

fn get_bit(words: &[u64], i: usize) -> bool {
    words.get(i / 64).is_some_and(|w| w & (1 << (i % 64)) != 0)
}

/// The file of a physical register: 0 for 32-bit registers, 1 for predicates.
fn file_of(p: PhysReg) -> usize {
    usize::from(matches!(p, PhysReg::Pred(_)))
}

/// The busy registers of one file for [`Allocation::linear_scan`], with a summary that finds
/// the lowest free aligned group of 1, 2 or 4 registers in a word per 4,096 registers.
#[derive(Default)]
struct SlotFile {
    /// Bit `r % 64` of word `r / 64` is set while register `r` is held.
    words: Vec<u64>,
    /// For groups of 1, 2 and 4: bit `w % 64` of word `w / 64` is set when word `w` of
    /// `words` has a free aligned group of that size.
    summary: [Vec<u64>; 3],
}

impl SlotFile {
    /// The aligned groups of `count` registers (1, 2 or 4) free in `word`, as a mask of their
    /// first registers.
    fn free_groups(word: u64, count: u32) -> u64 {
        let free1 = !word;
        let free2 = free1 & (free1 >> 1) & 0x5555_5555_5555_5555;
        match count {
            1 => free1,
            2 => free2,
            _ => free2 & (free2 >> 2) & 0x1111_1111_1111_1111,
        }
    }

    fn group_index(count: u32) -> usize {
        match count {
            1 => 0,
            2 => 1,
            _ => 2,
        }
    }

    /// Whether registers `first..first + count` are all free.
    fn is_free(&self, first: u32, count: u32) -> bool {
        (first..first + count).all(|r| !get_bit(&self.words, r as usize))
    }

    /// The lowest `first`, a multiple of `count`, with `first..first + count` free.
    fn lowest_free(&self, count: u32) -> u32 {
        let summary = &self.summary[Self::group_index(count)];
        for (i, &s) in summary.iter().enumerate() {
            if s != 0 {
                let w = i * 64 + s.trailing_zeros() as usize;
                let bit = Self::free_groups(self.words[w], count).trailing_zeros();
                return w as u32 * 64 + bit;
            }
        }
        // Every word is full: the first register past them (a multiple of 64).
        self.words.len() as u32 * 64
    }

    /// Marks `first..first + count` (within one word: groups are aligned) held or free.
    fn set(&mut self, first: u32, count: u32, held: bool) {
        let w = first as usize / 64;
        if w >= self.words.len() {
            // New words are free: every group size has a free group in them.
            let old = self.words.len();
            self.words.resize(w + 1, 0);
            for summary in &mut self.summary {
                summary.resize(self.words.len().div_ceil(64), 0);
                for i in old..self.words.len() {
                    summary[i / 64] |= 1 << (i % 64);
                }
            }
        }
        let mask = (u64::MAX >> (64 - count)) << (first % 64);
        if held {
            self.words[w] |= mask;
        } else {
            self.words[w] &= !mask;
        }
        for (g, summary) in self.summary.iter_mut().enumerate() {
            let bit = 1u64 << (w % 64);
            if Self::free_groups(self.words[w], 1 << g) != 0 {
                summary[w / 64] |= bit;
            } else {
                summary[w / 64] &= !bit;
            }
        }
    }
}

/// The hull of every register: the first and last layout positions where it is defined or
/// live, where position `p` is the point before the instruction at PC `p` and a definition by
/// the instruction at PC `p` is at `p + 1`, with its live-after set. Unmentioned registers get
/// `(u32::MAX, 0)`.
///
/// Within a block, a register is live after an instruction only if it is defined earlier in
/// the block or live on entry, and used later in the block or live on exit, so the hull
/// covers every position where it is live after a definition or defined: registers that
/// interfere have overlapping hulls. Reads each block's live-in and live-out sets once and
/// every instruction's registers once.
fn hulls(f: &Function, liveness: &Liveness) -> (Vec<u32>, Vec<u32>) {
    let n = f.regs.len();
    let mut lo = vec![u32::MAX; n];
    let mut hi = vec![0u32; n];
    let mut mark = |v: usize, at: u32| {
        if v < n {
            lo[v] = lo[v].min(at);
            hi[v] = hi[v].max(at);
        }
    };
    let mut pc = 0u32;
    for b in f.block_ids() {
        let insts = &f.blocks[b.index()].insts;
        let end = pc + insts.len() as u32;
        for v in liveness.live_in(b) {
            mark(v, pc);
        }
        for v in liveness.live_out(b) {
            mark(v, end);
        }
        for inst in insts {
            for u in inst.uses() {
                mark(u.index(), pc);
            }
            for d in inst.defs() {
                mark(d.index(), pc + 1);
            }
            pc += 1;
        }
    }
    (lo, hi)
}

/// The registers each register is copied to or from ([`copy_source`]), sorted.
fn copy_lists(f: &Function) -> Vec<Vec<u32>> {
    let mut copies: Vec<Vec<u32>> = vec![Vec::new(); f.regs.len()];
    for inst in f.blocks.iter().flat_map(|b| &b.insts) {
        if let (Some(s), Some(d)) = (copy_source(f, inst), inst.defs().next()) {
            copies[d.index()].push(s.0);
            copies[s.index()].push(d.0);
        }
    }
    for list in &mut copies {
        list.sort_unstable();
        list.dedup();
    }
    copies
}

/// `(regs_per_thread, preds_per_thread)` implied by an assignment.
fn counts(phys: &[Option<PhysReg>]) -> (u32, u32) {
    let (mut regs, mut preds) = (0, 0);
    for p in phys.iter().flatten() {
        match *p {
            PhysReg::Gpr { first, count } => regs = regs.max(first + count),
            PhysReg::Pred(i) => preds = preds.max(i + 1),
            PhysReg::Constant => {}
        }
    }
    (regs, preds)
}

/// In-range registers an instruction reads or writes.
fn inst_regs(inst: &Inst, n: usize) -> impl Iterator<Item = usize> + '_ {
    inst.uses()
        .chain(inst.defs())
        .map(VReg::index)
        .filter(move |&v| v < n)
}

/// Registers mentioned by any instruction of `f`.
pub fn mentioned_regs(f: &Function) -> BitSet {
    let n = f.regs.len();
    let mut set = BitSet::new(n);
    for inst in f.blocks.iter().flat_map(|b| &b.insts) {
        for v in inst_regs(inst, n) {
            set.insert(v);
        }
    }
    set
}

/// The first program counter (sequential instruction index in layout order) mentioning each
/// register; `u32::MAX` for registers never mentioned. Reachable code counts before
/// unreachable code.
fn first_appearance(f: &Function, cfg: &Cfg) -> Vec<u32> {
    let n = f.regs.len();
    let mut first = vec![u32::MAX; n];
    let mut pc = 0u32;
    let mut late = Vec::new();
    for (b, block) in f.blocks.iter().enumerate() {
        let reachable = cfg.is_reachable(BlockId(b as u32));
        for inst in &block.insts {
            for v in inst_regs(inst, n) {
                if reachable {
                    first[v] = first[v].min(pc);
                } else {
                    late.push(v);
                }
            }
            pc += 1;
        }
    }
    for v in late {
        if first[v] == u32::MAX {
            first[v] = pc;
        }
    }
    first
}

/// The register an instruction copies unchanged into its only destination, if it is a copy:
/// an unguarded `mov` from a register of the destination's class. The destination may share
/// the source's physical register even while both are live.
pub fn copy_source(f: &Function, inst: &Inst) -> Option<VReg> {
    match (&inst.op, inst.dsts.as_slice(), inst.srcs.as_slice()) {
        (Op::Mov { .. }, [Operand::Reg(d)], [Operand::Reg(s)]) if inst.guard.is_none() => {
            let (dc, sc) = (
                f.regs.get(d.index())?.class(),
                f.regs.get(s.index())?.class(),
            );
            (dc == sc && d != s).then_some(*s)
        }
        _ => None,
    }
}

/// [`copy_source`] when both registers are stored alike: a 64-bit value kept in one register
/// ([`Storage::Low32`]) copied from or to a pair may not share it, as it would share only
/// half of it, perhaps the high half, which the copy does not hold.
fn coalescible_copy(f: &Function, inst: &Inst, storage: &[Storage]) -> Option<VReg> {
    let s = copy_source(f, inst)?;
    let d = inst.defs().next()?;
    (storage.get(s.index()) == storage.get(d.index())).then_some(s)
}

/// The interference graph of a function's virtual registers, as sorted adjacency lists, with
/// the copies relating them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Interference {
    adj: Vec<Vec<u32>>,
    copies: Vec<Vec<u32>>,
}

impl Interference {
    /// Builds the graph from liveness (see the module docs for the rule). Registers of
    /// different files (predicates, 32-bit registers) never interfere.
    ///
    /// `O(V + I + B·V/64 + E)`, and `E` may be quadratic in the number of simultaneously live
    /// values: [`Interference::edge_bound`] says beforehand, in linear time, how large it may be.
    pub fn build(f: &Function, liveness: &Liveness) -> Interference {
        Interference::build_with(f, liveness, &storage(f))
    }

    /// [`Interference::build`] given the registers' storage: constants
    /// ([`Storage::Constant`]) have no register, so no edges.
    fn build_with(f: &Function, liveness: &Liveness, storage: &[Storage]) -> Interference {
        let n = f.regs.len();
        let mut adj: Vec<Vec<u32>> = vec![Vec::new(); n];
        let mut copies: Vec<Vec<u32>> = vec![Vec::new(); n];
        for_each_definition(f, liveness, storage, |inst, copied, defs, files, live| {
            if let (Some(s), Some(d)) = (copied, inst.defs().next()) {
                copies[d.index()].push(s as u32);
                copies[s].push(d.0);
            }
            for (k, &d) in defs.iter().enumerate() {
                let file = files[d];
                let later = defs[k + 1..].iter().copied().filter(|&x| files[x] == file);
                let live_here = live[usize::from(file)].as_slice().iter();
                for x in live_here.map(|&x| x as usize).chain(later) {
                    if x != d && Some(x) != copied && adj[d].last() != Some(&(x as u32)) {
                        adj[d].push(x as u32);
                        adj[x].push(d as u32);
                    }
                }
            }
        });
        for list in adj.iter_mut().chain(&mut copies) {
            list.sort_unstable();
            list.dedup();
        }
        Interference { adj, copies }
    }

    /// An upper bound of the number of edges [`Interference::build`] would find (it counts,
    /// for each definition, the registers of its file live after it and the instruction's
    /// later destinations), without building them: `O(V + I + B·V/64)`.
    pub fn edge_bound(f: &Function, liveness: &Liveness) -> usize {
        edge_bound(f, liveness, &storage(f))
    }

    /// The registers `v` is copied to or from (by [`copy_source`] copies), in increasing order.
    pub fn copies(&self, v: VReg) -> &[u32] {
        self.copies.get(v.index()).map_or(&[], Vec::as_slice)
    }

    /// The registers `v` interferes with, in increasing order.
    pub fn neighbors(&self, v: VReg) -> &[u32] {
        self.adj.get(v.index()).map_or(&[], Vec::as_slice)
    }

    /// Whether `a` and `b` interfere.
    pub fn interferes(&self, a: VReg, b: VReg) -> bool {
        self.neighbors(a).binary_search(&b.0).is_ok()
    }
}

/// [`Interference::edge_bound`] given the registers' storage.
fn edge_bound(f: &Function, liveness: &Liveness, storage: &[Storage]) -> usize {
    let mut edges = 0usize;
    for_each_definition(f, liveness, storage, |_, _, defs, files, live| {
        for (k, &d) in defs.iter().enumerate() {
            let file = files[d];
            let later = defs[k + 1..].iter().filter(|&&x| files[x] == file).count();
            edges = edges.saturating_add(live[usize::from(file)].len() + later);
        }
    });
    edges
}

/// Walks every block of `f` backwards, calling `visit(inst, copied, defs, files, live)` for
/// each instruction that defines a register: the register it copies ([`copy_source`]), its
/// in-range destinations (sorted, each once), each register's file (0: 32-bit registers,
/// 1: predicates) and the registers live after it, one set per file. Constants
/// ([`Storage::Constant`]) are in no file: they are left out of the destinations and the live
/// sets, and an instruction defining only constants is not visited. `O(V + I + B·V/64)` plus
/// what `visit` does: the live sets are sparse, so a definition looks only at live registers.
fn for_each_definition(
    f: &Function,
    liveness: &Liveness,
    storage: &[Storage],
    mut visit: impl FnMut(&Inst, Option<usize>, &[usize], &[u8], &[SparseSet; 2]),
) {
    let n = f.regs.len();
    // File 2 holds the constants, which interfere with nothing.
    let files: Vec<u8> = f
        .regs
        .iter()
        .zip(storage)
        .map(|(r, &s)| match s {
            Storage::Constant => 2,
            _ => u8::from(r.class() == RegClass::Pred),
        })
        .collect();
    let mut live = [SparseSet::new(n), SparseSet::new(n)];
    let mut defs: Vec<usize> = Vec::new();
    for b in f.block_ids() {
        for set in &mut live {
            set.clear();
        }
        for v in liveness.live_out(b) {
            if let Some(set) = live.get_mut(usize::from(files[v])) {
                set.insert(v);
            }
        }
        for inst in f.blocks[b.index()].insts.iter().rev() {
            defs.clear();
            defs.extend(
                inst.defs()
                    .map(VReg::index)
                    .filter(|&d| d < n && files[d] < 2),
            );
            if !defs.is_empty() {
                defs.sort_unstable();
                defs.dedup();
                let copied = coalescible_copy(f, inst, storage).map(VReg::index);
                visit(inst, copied, &defs, &files, &live);
            }
            for d in killed(inst) {
                if let Some(set) = files
                    .get(d.index())
                    .and_then(|&x| live.get_mut(usize::from(x)))
                {
                    set.remove(d.index());
                }
            }
            for u in inst.uses() {
                if let Some(set) = files
                    .get(u.index())
                    .and_then(|&x| live.get_mut(usize::from(x)))
                {
                    set.insert(u.index());
                }
            }
        }
    }
}

/// One way an allocation is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AllocError {
    /// `phys` does not have one entry per virtual register.
    WrongLength {
        /// The number of virtual registers.
        expected: usize,
        /// The number of entries.
        found: usize,
    },
    /// A register some instruction mentions has no physical register.
    Missing(VReg),
    /// A register no instruction mentions has a physical register.
    Unused(VReg),
    /// The physical register is of the wrong file or size, or misaligned, for the class.
    BadShape {
        /// The virtual register.
        vreg: VReg,
        /// Its ill-fitting physical register.
        phys: PhysReg,
    },
    /// `b` is live after (or written by) an instruction that writes `a`, and they overlap.
    Conflict {
        /// The block of the writing instruction.
        block: BlockId,
        /// The writing instruction's index in its block.
        inst: usize,
        /// The register written.
        a: VReg,
        /// The register clobbered.
        b: VReg,
    },
    /// `regs_per_thread` or `preds_per_thread` is not the highest register used plus one.
    WrongCount {
        /// `regs_per_thread` as recorded.
        regs: u32,
        /// `preds_per_thread` as recorded.
        preds: u32,
        /// `regs_per_thread` as the assignment implies.
        expected_regs: u32,
        /// `preds_per_thread` as the assignment implies.
        expected_preds: u32,
    },
}

impl fmt::Display for AllocError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AllocError::WrongLength { expected, found } => {
                write!(f, "allocation has {found} entries for {expected} registers")
            }
            AllocError::Missing(v) => write!(f, "{v} is used but has no physical register"),
            AllocError::Unused(v) => write!(f, "{v} is never used but has a physical register"),
            AllocError::BadShape { vreg, phys } => {
                write!(f, "{phys} does not fit the class of {vreg}")
            }
            AllocError::Conflict { block, inst, a, b } => {
                write!(
                    f,
                    "{block} inst {inst}: {a} is written while {b} is live in an overlapping register"
                )
            }
            AllocError::WrongCount {
                regs,
                preds,
                expected_regs,
                expected_preds,
            } => write!(
                f,
                "counts {regs} registers / {preds} predicates, expected {expected_regs} / {expected_preds}"
            ),
        }
    }
}

fn shape_ok(class: RegClass, storage: Storage, phys: PhysReg) -> bool {
    match (class, storage, phys) {
        (_, Storage::Constant, p) => p == PhysReg::Constant,
        (_, _, PhysReg::Constant) => false,
        (RegClass::Pred, _, PhysReg::Pred(_)) => true,
        (RegClass::Pred, _, PhysReg::Gpr { .. }) | (_, _, PhysReg::Pred(_)) => false,
        (c, s, PhysReg::Gpr { first, count }) => count == s.gprs(c) && first % count == 0,
    }
}

/// Checks `alloc` against `f` and its liveness: every mentioned register has a physical
/// register of the right file, size and alignment, unmentioned ones have none, no instruction
/// writes a register overlapping one live after it (or another of its destinations) unless it
/// is a copy of that very register held in the same physical register, and the per-thread counts are exact. Returns every
/// problem found: for each block in order and its instructions from last to first, each
/// destination's conflicts with live registers in increasing order, then with the
/// instruction's later destinations.
///
/// Each block is walked backwards once, keeping for every physical register the live virtual
/// registers it holds, so a definition looks up only the registers it may clobber:
/// `O(B·V/64 + I + conflicts)`. (A physical register is checked over at most its first four
/// 32-bit registers; a larger one is reported as [`AllocError::BadShape`].)
pub fn validate(f: &Function, liveness: &Liveness, alloc: &Allocation) -> Vec<AllocError> {
    let n = f.regs.len();
    if alloc.phys.len() != n {
        return vec![AllocError::WrongLength {
            expected: n,
            found: alloc.phys.len(),
        }];
    }
    let mut errors = Vec::new();
    let mentioned = mentioned_regs(f);
    let storage = storage(f);
    for (v, phys) in alloc.phys.iter().enumerate() {
        let vreg = VReg(v as u32);
        match (mentioned.contains(v), phys) {
            (true, None) => errors.push(AllocError::Missing(vreg)),
            (false, Some(_)) => errors.push(AllocError::Unused(vreg)),
            (true, Some(p)) if !shape_ok(f.regs[v].class(), storage[v], *p) => {
                errors.push(AllocError::BadShape { vreg, phys: *p });
            }
            _ => {}
        }
    }
    let (expected_regs, expected_preds) = counts(&alloc.phys);
    if (alloc.regs_per_thread, alloc.preds_per_thread) != (expected_regs, expected_preds) {
        errors.push(AllocError::WrongCount {
            regs: alloc.regs_per_thread,
            preds: alloc.preds_per_thread,
            expected_regs,
            expected_preds,
        });
    }
    // The physical registers of `v` as keys: the file in the high half, the register below.
    let keys = |v: usize| {
        alloc.phys[v].into_iter().flat_map(|p| {
            let s = slot(p);
            let file = (file_of(p) as u64) << 32;
            (s.start..s.end.min(s.start.saturating_add(4))).map(move |r| file | u64::from(r))
        })
    };
    // Live virtual registers held by each physical register.
    let mut holders: HashMap<u64, Vec<u32>> = HashMap::new();
    let mut live = BitSet::new(n);
    let mut clobbered: Vec<u32> = Vec::new();
    for b in f.block_ids() {
        holders.clear();
        live.copy_from(liveness.live_out(b));
        for v in live.iter() {
            for key in keys(v) {
                holders.entry(key).or_default().push(v as u32);
            }
        }
        for (i, inst) in f.blocks[b.index()].insts.iter().enumerate().rev() {
            let copied = copy_source(f, inst);
            let defs: Vec<VReg> = inst.defs().filter(|d| d.index() < n).collect();
            for (k, &d) in defs.iter().enumerate() {
                let Some(pd) = alloc.phys[d.index()] else {
                    continue;
                };
                // A copy may share its source's register only whole: a 64-bit value in one
                // register sharing half of its source's pair would clobber the other half.
                let spared =
                    |x: VReg| x == d || (Some(x) == copied && alloc.phys[x.index()] == Some(pd));
                clobbered.clear();
                for key in keys(d.index()) {
                    let held = holders.get(&key).map_or(&[][..], Vec::as_slice);
                    clobbered.extend(held.iter().filter(|&&x| !spared(VReg(x))));
                }
                clobbered.sort_unstable();
                clobbered.dedup();
                let later = defs[k + 1..].iter().copied().filter(|&x| {
                    !spared(x) && alloc.phys[x.index()].is_some_and(|px| px.overlaps(pd))
                });
                for x in clobbered.iter().map(|&x| VReg(x)).chain(later) {
                    errors.push(AllocError::Conflict {
                        block: b,
                        inst: i,
                        a: d,
                        b: x,
                    });
                }
            }
            for d in killed(inst) {
                if live.remove(d.index()) {
                    for key in keys(d.index()) {
                        if let Some(held) = holders.get_mut(&key) {
                            held.retain(|&x| x != d.0);
                        }
                    }
                }
            }
            for u in inst.uses() {
                if live.insert(u.index()) {
                    for key in keys(u.index()) {
                        holders.entry(key).or_default().push(u.0);
                    }
                }
            }
        }
    }
    errors
}
