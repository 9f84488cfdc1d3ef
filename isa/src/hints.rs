//! Compiler information for register-file techniques, over **32-bit physical registers** (what
//! the register file's banks hold): per-PC live-in and live-out sets, a last-use bit per source
//! register, and a register affinity graph. Techniques read it; none of it changes execution.
//!
//! Which technique uses what (see `shared/reference/techniques.md`):
//! - FineReg and register virtualization: the live-in set at a PC is what must be kept when a
//!   warp is parked there.
//! - RFC's last-read bit and BOW-WR's liveness hints: a source whose last-use bit is set holds
//!   a value nothing reads again, so a cached copy can be dropped without writing it back.
//! - CORF/CORF++: the affinity graph says which registers are read together, so packing them
//!   into one physical entry turns two bank reads into one.
//! - BOW-WR: the registers each instruction writes, and where its straight-line run of
//!   instructions ends, give the write-back targets of [`crate::writeback`].
//! - The operand cache of recent NVIDIA cores (docs/modern-rf.md): each read's operand slot
//!   and reuse bit ([`crate::reuse`]).
//!
//! Definitions (all per thread, as a compiler computes them):
//! - Registers are the 32-bit registers of [`PhysReg::Gpr`]; a 64-bit value is two of them, a
//!   128-bit value four. **Predicates are left out**: they live in their own small file that
//!   no modelled technique caches, packs or spills.
//! - `live_in(pc)` / `live_out(pc)`: the 32-bit registers of every virtual register live before
//!   / after the instruction (virtual-register liveness from [`Liveness`], mapped through the
//!   allocation). A guarded definition does not kill (its register keeps the old value in
//!   lanes whose guard is false), so a register it writes stays in `live_in`.
//! - `reads(pc)`: the 32-bit registers the instruction reads, in the order of [`Inst::uses`]
//!   (guard, then sources in operand order, address bases and vector elements in place), each
//!   once: the same list, in the same order, as the timing model's decoded `reads`.
//! - `read_slots(pc)`: aligned with `reads(pc)`, the operand slot of each read (the index of
//!   the first source operand naming the register); `reuse(pc)`: aligned with `reads(pc)`,
//!   the operand-cache reuse bit NVIDIA's compiler would set (the next instruction of the
//!   straight-line run reads the same register in the same slot). Both are defined in
//!   [`crate::reuse`].
//! - `writes(pc)`: the 32-bit registers the instruction writes, each once, in
//!   [`Inst::defs`] order; `is_guarded(pc)` whether a guard may skip lanes.
//! - `ends_run(pc)`: the instruction is the last of its block or a call: the warp's next
//!   instruction is not necessarily `pc + 1`.
//! - The last-use bit of a read register `R` is set when the value read is never read again on
//!   any path: the instruction overwrites `R` unconditionally (an unguarded definition replaces
//!   the whole register, so what is read later is the new value, even for a coalesced copy
//!   `mov d, s` with `d` and `s` sharing `R`), or `R` is not live after it. A guarded write
//!   keeps the old value in the lanes it skips, so it never ends a value's life. Physical
//!   registers are never partially written: every virtual register owns all of its 32-bit
//!   registers, and every definition writes a whole virtual register. In path terms (which
//!   the property tests check by brute force): `R` is in `live_out` exactly when some path
//!   from the instruction reads `R` before an unguarded instruction writes it, and the bit is
//!   set exactly when the instruction writes `R` unguarded or `R` is not in `live_out`.
//! - Divergence: these are scalar (per-thread) facts. A warp that diverged runs both paths one
//!   after the other, so a register dead on the path running now may still hold live values of
//!   the lanes waiting on the SIMT stack; a technique that needs a warp-level answer takes the
//!   union of `live_in` over the PCs on the warp's SIMT stack (FineReg's rule).
//!
//! The affinity graph follows CORF (seed 000, §2.4.2): an edge joins two distinct 32-bit
//! registers read by one instruction, and its weight is the sum, over such instructions, of
//! that instruction's estimated execution count [`FunctionHints::weight`]. CORF counts an
//! instruction outside loops once, an instruction inside a loop by the loop's trip count when
//! it is a compile-time constant and by a fixed weight otherwise, and multiplies through nested
//! loops. warpsim does not resolve trip counts (NVRTC unrolls most constant-count loops and
//! the rest run to kernel arguments), so every loop counts [`LOOP_WEIGHT`] = 10, the classic
//! static frequency estimate: an instruction at loop depth `d` weighs `10^d` (saturating).
//! Instructions in unreachable blocks weigh 0 and add no edges. The two halves of a 64-bit
//! operand are two registers read by one instruction, so they are joined like any other pair.
//! A register read twice by one instruction (`add r, a, a`) is one read: no self-edge, and
//! its edges count once.
//!
//! Everything is deterministic: sets are bit vectors, the graph is sorted by register pair.

use crate::affinity::CoalescingHints;
use crate::analysis::FunctionAnalysis;
use crate::bitset::BitSet;
use crate::cfg::Cfg;
use crate::dom::Dominators;
use crate::function::{BlockId, Function};
use crate::inst::Inst;
use crate::inst::Op;
use crate::liveness::{Liveness, killed, transfer};
use crate::loops::LoopForest;
use crate::regalloc::PhysReg;
use crate::reuse::{operand_slots, reads_through_operand_cache, reuse_bits};
use crate::writeback::WritebackHints;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, Mutex, OnceLock};

/// The estimated iteration count of every loop (CORF's fixed weight for a loop whose trip count
/// is not a compile-time constant): an instruction at loop depth `d` weighs `LOOP_WEIGHT^d`.
pub const LOOP_WEIGHT: u64 = 10;

/// A set of 32-bit physical registers, borrowed from [`FunctionHints`]: bit `r % 64` of word
/// `r / 64` is register `r`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct RegSet<'a> {
    words: &'a [u64],
}

impl<'a> RegSet<'a> {
    /// Whether register `r` is in the set.
    pub fn contains(self, r: u32) -> bool {
        let r = r as usize;
        self.words
            .get(r / 64)
            .is_some_and(|w| w & (1 << (r % 64)) != 0)
    }

    /// The number of registers in the set.
    pub fn len(self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Whether the set is empty.
    pub fn is_empty(self) -> bool {
        self.words.iter().all(|&w| w == 0)
    }

    /// The raw words (as many as [`FunctionHints::num_regs`] needs), for whole-set operations
    /// such as a union over the PCs of a SIMT stack.
    pub fn words(self) -> &'a [u64] {
        self.words
    }

    /// The registers in increasing order.
    pub fn iter(self) -> impl Iterator<Item = u32> + 'a {
        self.words.iter().enumerate().flat_map(|(i, &w)| {
            let mut rest = w;
            std::iter::from_fn(move || {
                (rest != 0).then(|| {
                    let bit = rest.trailing_zeros();
                    rest &= rest - 1;
                    i as u32 * 64 + bit
                })
            })
        })
    }
}

impl fmt::Display for RegSet<'_> {
    /// Runs of consecutive registers as ranges: `R0-R3 R6`; `-` when empty.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut regs = self.iter().peekable();
        if regs.peek().is_none() {
            return f.write_str("-");
        }
        let mut first = true;
        while let Some(start) = regs.next() {
            let mut end = start;
            while regs.next_if_eq(&(end + 1)).is_some() {
                end += 1;
            }
            f.write_str(if first { "" } else { " " })?;
            first = false;
            if end == start {
                write!(f, "R{start}")?;
            } else {
                write!(f, "R{start}-R{end}")?;
            }
        }
        Ok(())
    }
}

impl fmt::Debug for RegSet<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

/// One edge of the register affinity graph: registers `a < b`, read together by instructions
/// whose weights sum to `weight`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AffinityEdge {
    /// The lower-numbered 32-bit register.
    pub a: u32,
    /// The higher-numbered 32-bit register.
    pub b: u32,
    /// The sum of [`FunctionHints::weight`] over the instructions reading both.
    pub weight: u64,
}

/// The compiler information of one function, indexed by PC (an instruction's index in the
/// function's instructions in layout order, as [`FunctionAnalysis::pc`] and the emulator's
/// `Program` number them). See the module docs for every definition.
#[derive(Clone, PartialEq, Eq)]
pub struct FunctionHints {
    num_regs: u32,
    /// u64 words per register set.
    words: usize,
    /// `words` words per PC.
    live_in: Vec<u64>,
    live_out: Vec<u64>,
    /// `reads[read_start[pc]..read_start[pc + 1]]` are the registers read at `pc`; `last_use`,
    /// `read_slot` and `reuse` are aligned with `reads`.
    read_start: Vec<u32>,
    reads: Vec<u32>,
    last_use: Vec<bool>,
    read_slot: Vec<u8>,
    reuse: Vec<bool>,
    /// `writes[write_start[pc]..write_start[pc + 1]]` are the registers written at `pc`.
    write_start: Vec<u32>,
    writes: Vec<u32>,
    guarded: Vec<bool>,
    ends_run: Vec<bool>,
    weight: Vec<u64>,
    /// Sorted by `(a, b)`.
    affinity: Vec<AffinityEdge>,
    /// Derived from `affinity` on first use: most runs use no coalescing technique.
    coalescing: Derived<CoalescingHints>,
    /// BOW-WR's write-back targets, derived on first use for each window size asked for.
    writeback: PerWindow,
}

/// A value computed on first use from the rest of a structure: equal whenever the rest is, so
/// it takes no part in comparisons.
#[derive(Clone, Default)]
struct Derived<T>(OnceLock<T>);

impl<T> PartialEq for Derived<T> {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl<T> Eq for Derived<T> {}

/// [`WritebackHints`] by window size, computed on first use (a run asks for one size; the
/// list stays tiny). Like [`Derived`], it takes no part in comparisons.
#[derive(Default)]
struct PerWindow(Mutex<Vec<Arc<WritebackHints>>>);

impl Clone for PerWindow {
    fn clone(&self) -> PerWindow {
        PerWindow::default()
    }
}

impl PartialEq for PerWindow {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for PerWindow {}

impl fmt::Debug for FunctionHints {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The flat vectors are unreadable; a summary says what a `Program` dump needs.
        f.debug_struct("FunctionHints")
            .field("num_regs", &self.num_regs)
            .field("insts", &self.len())
            .field("affinity_edges", &self.affinity.len())
            .finish_non_exhaustive()
    }
}

impl FunctionHints {
    /// The hints of `f` from its analyses.
    pub fn compute(f: &Function, analysis: &FunctionAnalysis) -> FunctionHints {
        FunctionHints::from_parts(
            f,
            &analysis.cfg,
            &analysis.loops,
            &analysis.liveness,
            &analysis.alloc.phys,
        )
    }

    /// The hints of `f` given its allocation `phys` (indexed by virtual register, as in
    /// [`crate::Allocation::phys`]), computing the control-flow analyses they need (graph,
    /// dominators, loops, liveness) but not the allocation itself: a caller that kept only the
    /// allocation (the emulator's `Program`) gets hints consistent with it without allocating
    /// again.
    pub fn with_allocation(f: &Function, phys: &[Option<PhysReg>]) -> FunctionHints {
        let cfg = Cfg::compute(f);
        let dom = Dominators::compute(&cfg);
        let loops = LoopForest::compute(&cfg, &dom);
        let liveness = Liveness::compute(f, &cfg);
        FunctionHints::from_parts(f, &cfg, &loops, &liveness, phys)
    }

    /// The hints of `f` from the individual analyses (which must be `f`'s own).
    pub fn from_parts(
        f: &Function,
        cfg: &Cfg,
        loops: &LoopForest,
        liveness: &Liveness,
        phys: &[Option<PhysReg>],
    ) -> FunctionHints {
        let num_regs = phys
            .iter()
            .flatten()
            .map(|p| p.gprs().end)
            .max()
            .unwrap_or(0);
        let words = (num_regs as usize).div_ceil(64);
        let n = f.inst_count();
        let mut h = FunctionHints {
            num_regs,
            words,
            live_in: vec![0; n * words],
            live_out: vec![0; n * words],
            read_start: Vec::with_capacity(n + 1),
            reads: Vec::new(),
            last_use: Vec::new(),
            read_slot: Vec::new(),
            reuse: Vec::new(),
            write_start: Vec::with_capacity(n + 1),
            writes: Vec::new(),
            guarded: Vec::with_capacity(n),
            ends_run: Vec::with_capacity(n),
            weight: Vec::with_capacity(n),
            affinity: Vec::new(),
            coalescing: Derived::default(),
            writeback: PerWindow::default(),
        };
        let gprs = |v: usize| phys.get(v).copied().flatten().map_or(0..0, PhysReg::gprs);
        // Each virtual-register set is mapped onto the physical words of one PC.
        let map_into = |set: &BitSet, out: &mut [u64]| {
            for v in set {
                for r in gprs(v) {
                    out[r as usize / 64] |= 1 << (r % 64);
                }
            }
        };

        let mut edges: BTreeMap<(u32, u32), u64> = BTreeMap::new();
        let mut pc = 0usize;
        let mut survivors = vec![0u64; words];
        let mut inst_reads: Vec<u32> = Vec::new();
        let mut inst_slots: Vec<u8> = Vec::new();
        let mut cached: Vec<bool> = Vec::with_capacity(n);
        for (bi, block) in f.blocks.iter().enumerate() {
            let b = BlockId(bi as u32);
            let weight = if cfg.is_reachable(b) {
                block_weight(loops, b)
            } else {
                0
            };
            // PCs of the block are `first..first + len`. Live-after sets walking backwards,
            // mapped straight to physical registers (no per-instruction copies of the
            // virtual-register sets, which are as wide as the function's register count).
            let first = pc;
            let mut live = liveness.live_out(b).clone();
            for (i, inst) in block.insts.iter().enumerate().rev() {
                let at = (first + i) * words;
                map_into(&live, &mut h.live_out[at..at + words]);
                transfer(inst, &mut live);
            }
            // `live` is now the set live before the block's first instruction; inside the
            // block, what is live before one instruction is what is live after the previous.
            if !block.insts.is_empty() {
                map_into(&live, &mut h.live_in[first * words..(first + 1) * words]);
                let len = block.insts.len();
                h.live_in[(first + 1) * words..(first + len) * words]
                    .copy_from_slice(&h.live_out[first * words..(first + len - 1) * words]);
            }
            for (i, inst) in block.insts.iter().enumerate() {
                h.write_start.push(h.writes.len() as u32);
                for d in inst.defs() {
                    for r in gprs(d.index()) {
                        if !h.writes[*h.write_start.last().unwrap() as usize..].contains(&r) {
                            h.writes.push(r);
                        }
                    }
                }
                h.guarded.push(inst.guard.is_some());
                h.ends_run
                    .push(i + 1 == block.insts.len() || matches!(inst.op, Op::Call { .. }));
                // Registers whose value survives the instruction: live after it and not
                // replaced by it. The registers an unguarded definition writes are replaced
                // even when another virtual register sharing them (a coalesced copy,
                // `mov d, s` with `d` and `s` in one register) is live afterwards: what is
                // read later is the value written here, not the one read.
                survivors.copy_from_slice(&h.live_out[pc * words..(pc + 1) * words]);
                for d in killed(inst) {
                    for r in gprs(d.index()) {
                        survivors[r as usize / 64] &= !(1 << (r % 64));
                    }
                }

                read_regs(inst, &gprs, &mut inst_reads);
                operand_slots(inst, &inst_reads, &gprs, &mut inst_slots);
                h.read_start.push(h.reads.len() as u32);
                for &r in &inst_reads {
                    h.reads.push(r);
                    h.last_use
                        .push(survivors[r as usize / 64] & (1 << (r % 64)) == 0);
                }
                h.read_slot.extend_from_slice(&inst_slots);
                cached.push(reads_through_operand_cache(&inst.op));
                h.weight.push(weight);
                if weight > 0 {
                    for (i, &x) in inst_reads.iter().enumerate() {
                        for &y in &inst_reads[i + 1..] {
                            let e = edges.entry((x.min(y), x.max(y))).or_insert(0);
                            *e = e.saturating_add(weight);
                        }
                    }
                }
                pc += 1;
            }
        }
        h.read_start.push(h.reads.len() as u32);
        h.write_start.push(h.writes.len() as u32);
        h.affinity = edges
            .into_iter()
            .map(|((a, b), weight)| AffinityEdge { a, b, weight })
            .collect();
        h.reuse = reuse_bits(&h, &cached);
        h
    }

    /// The number of instructions (PCs).
    pub fn len(&self) -> usize {
        self.weight.len()
    }

    /// Whether the function has no instructions (a declaration).
    pub fn is_empty(&self) -> bool {
        self.weight.is_empty()
    }

    /// The number of 32-bit registers the sets range over: the highest register allocated
    /// plus one (the function's registers per thread).
    pub fn num_regs(&self) -> u32 {
        self.num_regs
    }

    /// 32-bit registers live before the instruction at `pc`. Panics if `pc` is out of range.
    pub fn live_in(&self, pc: u32) -> RegSet<'_> {
        let at = pc as usize * self.words;
        RegSet {
            words: &self.live_in[at..at + self.words],
        }
    }

    /// 32-bit registers live after the instruction at `pc` (its results included when they
    /// are read later). Panics if `pc` is out of range.
    pub fn live_out(&self, pc: u32) -> RegSet<'_> {
        let at = pc as usize * self.words;
        RegSet {
            words: &self.live_out[at..at + self.words],
        }
    }

    /// The 32-bit registers read at `pc`, each once, in [`Inst::uses`] order (the timing
    /// model's `reads` order). Panics if `pc` is out of range.
    pub fn reads(&self, pc: u32) -> &[u32] {
        &self.reads[self.read_range(pc)]
    }

    /// The last-use bit of each register of [`FunctionHints::reads`]`(pc)`, in the same order.
    pub fn last_uses(&self, pc: u32) -> &[bool] {
        &self.last_use[self.read_range(pc)]
    }

    /// Whether the instruction at `pc` reads `reg` for the last time (false when it does not
    /// read `reg` at all).
    pub fn last_use(&self, pc: u32, reg: u32) -> bool {
        let range = self.read_range(pc);
        self.reads[range.clone()]
            .iter()
            .position(|&r| r == reg)
            .is_some_and(|i| self.last_use[range.start + i])
    }

    /// The operand slot of each register of [`FunctionHints::reads`]`(pc)`, in the same order:
    /// the index of the first source operand naming it ([`crate::reuse`]).
    pub fn read_slots(&self, pc: u32) -> &[u8] {
        &self.read_slot[self.read_range(pc)]
    }

    /// The operand-cache reuse bit of each register of [`FunctionHints::reads`]`(pc)`, in the
    /// same order: the warp's next instruction reads the register in the same operand slot,
    /// so the value read here may stay in the cache for it ([`crate::reuse`]).
    pub fn reuse(&self, pc: u32) -> &[bool] {
        &self.reuse[self.read_range(pc)]
    }

    /// The number of registers read at `pc` with the reuse bit set.
    pub fn reuse_reads(&self, pc: u32) -> usize {
        self.reuse(pc).iter().filter(|&&bit| bit).count()
    }

    /// The 32-bit registers written at `pc`, each once, in [`Inst::defs`] order. Panics if
    /// `pc` is out of range.
    pub fn writes(&self, pc: u32) -> &[u32] {
        let pc = pc as usize;
        &self.writes[self.write_start[pc] as usize..self.write_start[pc + 1] as usize]
    }

    /// Whether the instruction at `pc` is guarded (its writes may skip lanes).
    pub fn is_guarded(&self, pc: u32) -> bool {
        self.guarded[pc as usize]
    }

    /// Whether the instruction at `pc` ends a straight-line run: it is the last of its block
    /// or a call, so the warp's next instruction need not be `pc + 1`.
    pub fn ends_run(&self, pc: u32) -> bool {
        self.ends_run[pc as usize]
    }

    /// BOW-WR's write-back target of every register written, for an instruction window of
    /// `window` instructions (computed on the first call for each window, then kept).
    pub fn writeback(&self, window: u32) -> Arc<WritebackHints> {
        let mut cache = self.writeback.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(h) = cache.iter().find(|h| h.window() == window) {
            return Arc::clone(h);
        }
        let h = Arc::new(WritebackHints::compute(self, window));
        cache.push(Arc::clone(&h));
        h
    }

    /// The estimated execution count of the instruction at `pc` relative to the function's
    /// entry: [`LOOP_WEIGHT`]`^depth` for loop depth `depth` (saturating), 0 when unreachable.
    pub fn weight(&self, pc: u32) -> u64 {
        self.weight[pc as usize]
    }

    /// The register affinity graph: every edge, sorted by `(a, b)` (use
    /// [`FunctionHints::affinity_weight`] to look one up).
    pub fn affinity(&self) -> &[AffinityEdge] {
        &self.affinity
    }

    /// The weight of the affinity edge between `a` and `b` (in either order), 0 if none.
    pub fn affinity_weight(&self, a: u32, b: u32) -> u64 {
        let key = (a.min(b), a.max(b));
        self.affinity
            .binary_search_by(|e| (e.a, e.b).cmp(&key))
            .map_or(0, |i| self.affinity[i].weight)
    }

    /// CORF's exclusive common pairs and CORF++'s alignments of the function's registers
    /// (computed from the affinity graph on first call, then kept).
    pub fn coalescing(&self) -> &CoalescingHints {
        self.coalescing
            .0
            .get_or_init(|| CoalescingHints::compute(&self.affinity))
    }

    /// The affinity edges, heaviest first (ties by register pair).
    pub fn affinity_by_weight(&self) -> Vec<AffinityEdge> {
        let mut edges = self.affinity.clone();
        edges.sort_by_key(|e| (std::cmp::Reverse(e.weight), e.a, e.b));
        edges
    }

    fn read_range(&self, pc: u32) -> std::ops::Range<usize> {
        let pc = pc as usize;
        self.read_start[pc] as usize..self.read_start[pc + 1] as usize
    }
}

/// `LOOP_WEIGHT^depth` of block `b`, saturating.
fn block_weight(loops: &LoopForest, b: BlockId) -> u64 {
    LOOP_WEIGHT.saturating_pow(loops.depth(b))
}

/// The 32-bit registers `inst` reads, each once, in [`Inst::uses`] order.
fn read_regs(inst: &Inst, gprs: &impl Fn(usize) -> std::ops::Range<u32>, out: &mut Vec<u32>) {
    out.clear();
    for v in inst.uses() {
        for r in gprs(v.index()) {
            if !out.contains(&r) {
                out.push(r);
            }
        }
    }
}
