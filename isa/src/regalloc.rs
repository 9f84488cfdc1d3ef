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
//! - Each takes the lowest free slot its class allows: 8/16/32-bit values one 32-bit register,
//!   64-bit values an aligned even pair, 128-bit values an aligned quad. Predicates are coloured
//!   the same way in the separate predicate file. A register related by a copy to one already
//!   coloured takes that one's slot instead when it is free and within the registers used so
//!   far, so copies tend to become no-ops without growing the register count.
//! - Registers never mentioned by an instruction get nothing. There is no spilling and no
//!   limit: a function needing more than the hardware's 255 registers reports its true need
//!   (`.maxnreg` is not enforced here).
//!
//! [`validate`] checks any allocation against liveness directly (not against the interference
//! graph), so it can judge this allocator and any other.

use crate::bitset::BitSet;
use crate::cfg::Cfg;
use crate::function::{BlockId, Function, VReg};
use crate::inst::{Inst, Op, Operand};
use crate::liveness::Liveness;
use crate::types::RegClass;
use std::fmt;
use std::ops::Range;

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
}

impl PhysReg {
    /// The 32-bit registers occupied (empty for a predicate).
    pub fn gprs(self) -> Range<u32> {
        match self {
            PhysReg::Gpr { first, count } => first..first + count,
            PhysReg::Pred(_) => 0..0,
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
    /// `R4`, `R[2:3]` (a pair), `R[4:7]` (a quad), `P0`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            PhysReg::Gpr { first, count: 1 } => write!(f, "R{first}"),
            PhysReg::Gpr { first, count } => write!(f, "R[{first}:{}]", first + count.max(1) - 1),
            PhysReg::Pred(p) => write!(f, "P{p}"),
        }
    }
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
    /// Allocates the registers of `f`, given its graph and liveness.
    pub fn compute(f: &Function, cfg: &Cfg, liveness: &Liveness) -> Allocation {
        let graph = Interference::build(f, liveness);
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
            let class = f.regs[v].class();
            let file = usize::from(class == RegClass::Pred);
            let count = class.phys_regs().max(1);
            for &w in graph.neighbors(VReg(v as u32)) {
                if let Some(slot) = phys[w as usize].map(slot) {
                    slot.for_each(|r| set_bit(&mut busy, r as usize));
                }
            }
            let free = |first: u32| !(first..first + count).any(|r| get_bit(&busy, r as usize));
            let preferred = graph
                .copies(VReg(v as u32))
                .iter()
                .filter_map(|&w| phys[w as usize])
                .map(|p| slot(p).start)
                .find(|&first| free(first) && first + count <= used[file]);
            let first = preferred.unwrap_or_else(|| {
                (0..)
                    .step_by(count as usize)
                    .find(|&r| free(r))
                    .unwrap_or(0)
            });
            phys[v] = Some(match class {
                RegClass::Pred => PhysReg::Pred(first),
                _ => PhysReg::Gpr { first, count },
            });
            used[file] = used[file].max(first + count);
            busy.fill(0);
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
        gpr => gpr.gprs(),
    }
}

fn set_bit(words: &mut Vec<u64>, i: usize) {
    if words.len() <= i / 64 {
        words.resize(i / 64 + 1, 0);
    }
    words[i / 64] |= 1 << (i % 64);
}

fn get_bit(words: &[u64], i: usize) -> bool {
    words.get(i / 64).is_some_and(|w| w & (1 << (i % 64)) != 0)
}

/// `(regs_per_thread, preds_per_thread)` implied by an assignment.
fn counts(phys: &[Option<PhysReg>]) -> (u32, u32) {
    let (mut regs, mut preds) = (0, 0);
    for p in phys.iter().flatten() {
        match *p {
            PhysReg::Gpr { first, count } => regs = regs.max(first + count),
            PhysReg::Pred(i) => preds = preds.max(i + 1),
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

/// Whether two register classes compete for the same file.
fn same_file(a: RegClass, b: RegClass) -> bool {
    (a == RegClass::Pred) == (b == RegClass::Pred)
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
    pub fn build(f: &Function, liveness: &Liveness) -> Interference {
        let n = f.regs.len();
        let mut adj: Vec<Vec<u32>> = vec![Vec::new(); n];
        let mut copies: Vec<Vec<u32>> = vec![Vec::new(); n];
        let mut defs: Vec<usize> = Vec::new();
        for b in f.block_ids() {
            liveness.walk_backward(f, b, |_, inst, live| {
                let copied = copy_source(f, inst).map(VReg::index);
                if let (Some(s), Some(d)) = (copied, inst.defs().next()) {
                    copies[d.index()].push(s as u32);
                    copies[s].push(d.0);
                }
                defs.clear();
                defs.extend(inst.defs().map(VReg::index).filter(|&d| d < n));
                defs.sort_unstable();
                defs.dedup();
                for (k, &d) in defs.iter().enumerate() {
                    let class = f.regs[d].class();
                    for x in live.iter().chain(defs[k + 1..].iter().copied()) {
                        if x != d
                            && Some(x) != copied
                            && same_file(class, f.regs[x].class())
                            && adj[d].last() != Some(&(x as u32))
                        {
                            adj[d].push(x as u32);
                            adj[x].push(d as u32);
                        }
                    }
                }
            });
        }
        for list in adj.iter_mut().chain(&mut copies) {
            list.sort_unstable();
            list.dedup();
        }
        Interference { adj, copies }
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

fn shape_ok(class: RegClass, phys: PhysReg) -> bool {
    match (class, phys) {
        (RegClass::Pred, PhysReg::Pred(_)) => true,
        (RegClass::Pred, PhysReg::Gpr { .. }) | (_, PhysReg::Pred(_)) => false,
        (c, PhysReg::Gpr { first, count }) => count == c.phys_regs() && first % count == 0,
    }
}

/// Checks `alloc` against `f` and its liveness: every mentioned register has a physical
/// register of the right file, size and alignment, unmentioned ones have none, no instruction
/// writes a register overlapping one live after it (or another of its destinations) unless it
/// is a copy of that very register, and the per-thread counts are exact. Returns every
/// problem found.
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
    for (v, phys) in alloc.phys.iter().enumerate() {
        let vreg = VReg(v as u32);
        match (mentioned.contains(v), phys) {
            (true, None) => errors.push(AllocError::Missing(vreg)),
            (false, Some(_)) => errors.push(AllocError::Unused(vreg)),
            (true, Some(p)) if !shape_ok(f.regs[v].class(), *p) => {
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
    for b in f.block_ids() {
        liveness.walk_backward(f, b, |i, inst, live| {
            let copied = copy_source(f, inst);
            let defs: Vec<VReg> = inst.defs().filter(|d| d.index() < n).collect();
            for (k, &d) in defs.iter().enumerate() {
                let Some(pd) = alloc.phys[d.index()] else {
                    continue;
                };
                let others = live
                    .iter()
                    .map(|x| VReg(x as u32))
                    .chain(defs[k + 1..].iter().copied());
                for x in others {
                    if x == d || Some(x) == copied {
                        continue;
                    }
                    if alloc.phys[x.index()].is_some_and(|px| px.overlaps(pd)) {
                        errors.push(AllocError::Conflict {
                            block: b,
                            inst: i,
                            a: d,
                            b: x,
                        });
                    }
                }
            }
        });
    }
    errors
}
