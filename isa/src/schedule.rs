//! Register-pressure scheduling: reordering a function's instructions, never adding, removing
//! or changing one, so that it needs fewer registers, as a back end such as ptxas schedules
//! before it allocates.
//!
//! NVRTC writes PTX in source order, and on two kernels of `samples/` that order alone keeps
//! more values live than any allocation can fit in ptxas's count (`warpsim regs --why`):
//! the corpus's `setp_int` computes twelve comparison flags before one final sum, and
//! leukocyte's `IMGVF_kernel` keeps six `f64` results (two registers each) live across the
//! branches of six `atan` evaluations, to convert each to `f32` and sum them only at the end.
//! Two transformations fix such orders:
//!
//! 1. **Hoists to the operands.** A pure instruction moves up to just after the latest
//!    definition of its operands, across blocks, when that block is *control-equivalent* to
//!    its own (it dominates it, is post-dominated by it, and both are in the same innermost
//!    loop) and the operands whose live ranges then end there occupy more registers than its
//!    result: `cvt.rn.f32.f64 %f, %fd` after the `fma` computing `%fd` (one register live
//!    across the blocks between instead of two), then each step of the sum after the
//!    conversion it adds. Round by round, so a chain follows its operands up. Not in
//!    functions that read a clock, whose readings would count the moved instructions.
//! 2. **List scheduling of the blocks at the peak.** A block whose pressure is the function's
//!    highest is rescheduled bottom-up, greedily taking among the instructions whose
//!    dependents are all placed the one that adds the fewest live 32-bit registers (then
//!    predicates; ties keep the PTX order), the classic heuristic for expression trees: each
//!    operand is computed just before it is consumed. Blocks are rescheduled round by round
//!    while every block at the peak comes out lower.
//!
//! **What stays the same.** Within a block, the order of every pair of instructions that
//! touch a register with at least one writing it is kept, and so is the order of all
//! instructions other than pure register computations (memory, barriers, warp-level and
//! carry-chain instructions, calls); nothing moves across a read of a clock or timer, and the
//! terminator stays last. A hoisted instruction reads registers with one definition each,
//! unguarded, and writes one with one definition, every reader of which it dominated before
//! and still does. So every thread
//! computes the same values; and since both ends of a hoist are control-equivalent, every
//! instruction executes as often, with the same active threads: warp instruction counts are
//! unchanged.
//!
//! **When.** A function keeps the new order only when its allocation
//! ([`crate::regalloc::Allocation`]) then needs fewer [`REGISTER_UNIT`]s of registers per
//! thread, the unit occupancy is computed in; otherwise it is left exactly as written. The
//! scheduler knows nothing of latency, and an order chosen for pressure alone costs cycles
//! (dependent instructions end up back to back): on Rodinia, orders that saved a register or
//! two without changing occupancy moved cycles by up to +4.6% (streamcluster). So kernels
//! whose occupancy the order does not decide run in PTX order, as GPGPU-Sim runs them.

use crate::bitset::BitSet;
use crate::cfg::Cfg;
use crate::dom::{Dominators, PostDominators};
use crate::function::{BlockId, Function, Module, VReg};
use crate::inst::{Inst, Operand};
use crate::liveness::{Liveness, killed, transfer};
use crate::loops::LoopForest;
use crate::regalloc::Allocation;
use crate::special::SpecialReg;
use crate::storage::storage;
use crate::types::RegClass;
use std::cmp::Reverse;
use std::collections::{HashMap, HashSet};

/// Blocks longer than this keep their order: the list scheduler looks at every ready
/// instruction at every step, quadratic in the block's length.
pub const MAX_SCHEDULED_BLOCK: usize = 4096;

/// Registers are allocated to a thread in units of this many: a function keeps a new order
/// only when it needs fewer units, that is, when the order can change occupancy. Four is the
/// rounding of GPGPU-Sim's occupancy calculation (`shader_core_config::max_cta`) and the
/// `sm.register_granularity` of every preset.
pub const REGISTER_UNIT: u32 = 4;

/// At most this many rounds of hoists (a chain of instructions follows its operands up one
/// instruction per round), and of rescheduling the blocks at the peak (each lowers it by at
/// least one register).
const MAX_ROUNDS: usize = 64;

/// Schedules every function of `m` (see [`reduce_pressure`]).
pub fn schedule_module(m: &mut Module) {
    for f in &mut m.functions {
        reduce_pressure(f);
    }
}

/// Reorders `f`'s instructions as the module docs say when that saves a [`REGISTER_UNIT`];
/// returns whether it did.
pub fn reduce_pressure(f: &mut Function) -> bool {
    let Some(candidate) = reorder_for_pressure(f) else {
        return false;
    };
    let units = |f: &Function| regs_per_thread(f).div_ceil(REGISTER_UNIT);
    if units(&candidate) < units(f) {
        *f = candidate;
        true
    } else {
        false
    }
}

/// `f` with both transformations of the module docs applied, whatever they save; `None` when
/// neither moves an instruction. [`reduce_pressure`] keeps it only when it saves a unit; tests
/// run it unconditionally to check that any order it makes computes the same.
pub fn reorder_for_pressure(f: &Function) -> Option<Function> {
    if f.is_declaration() {
        return None;
    }
    let mut candidate = f.clone();
    let hoisted = hoist_to_operands(&mut candidate);
    let rescheduled = schedule_peak_blocks(&mut candidate);
    (hoisted || rescheduled).then_some(candidate)
}

fn regs_per_thread(f: &Function) -> u32 {
    let cfg = Cfg::compute(f);
    let liveness = Liveness::compute(f, &cfg);
    Allocation::compute(f, &cfg, &liveness).regs_per_thread
}

/// The 32-bit registers each virtual register occupies (0 for predicates and launch
/// constants; see [`crate::storage`]).
fn widths(f: &Function) -> Vec<u32> {
    storage(f)
        .iter()
        .zip(&f.regs)
        .map(|(s, r)| s.gprs(r.class()))
        .collect()
}

/// Whether an instruction may move wherever its register dependences allow: a register
/// computation not reading a clock.
fn is_pure(inst: &Inst) -> bool {
    inst.op.is_register_computation() && !reads_timer(inst)
}

/// Whether an instruction reads a register whose value changes with time (`%clock`,
/// `%globaltimer`, ...). Nothing moves across such a read: code is timed with them, and what
/// they return depends on what ran before.
fn reads_timer(inst: &Inst) -> bool {
    inst.srcs.iter().any(is_timer)
}

/// Whether an operand is a register whose value changes with time.
fn is_timer(op: &Operand) -> bool {
    match op {
        Operand::Special(s) => matches!(
            s,
            SpecialReg::Clock
                | SpecialReg::ClockHi
                | SpecialReg::Clock64
                | SpecialReg::GlobalTimer
                | SpecialReg::GlobalTimerLo
                | SpecialReg::GlobalTimerHi
        ),
        Operand::Vector(items) => items.iter().any(is_timer),
        _ => false,
    }
}

/// The distinct registers an instruction reads.
fn distinct_uses(inst: &Inst) -> Vec<VReg> {
    let mut uses: Vec<VReg> = inst.uses().collect();
    uses.sort_unstable();
    uses.dedup();
    uses
}

/// Moves instructions up to the definitions of their operands, round by round (transformation
/// 1 of the module docs); returns whether any moved.
fn hoist_to_operands(f: &mut Function) -> bool {
    if f.blocks.iter().flat_map(|b| &b.insts).any(reads_timer) {
        return false;
    }
    // Hoists move instructions within the blocks, never change them: these stay valid.
    let cfg = Cfg::compute(f);
    let dom = Dominators::compute(&cfg);
    let graph = Graph {
        postdom: PostDominators::compute(f, &cfg),
        loops: LoopForest::compute(&cfg, &dom),
        dom,
        cfg,
    };
    let width = widths(f);
    let mut moved = false;
    for _ in 0..MAX_ROUNDS {
        if !hoist_round(f, &graph, &width) {
            break;
        }
        moved = true;
    }
    moved
}

/// The control-flow analyses hoisting needs.
struct Graph {
    cfg: Cfg,
    dom: Dominators,
    postdom: PostDominators,
    loops: LoopForest,
}

impl Graph {
    /// Whether `x` comes before `y` on every path reaching `y`: earlier in the same block, or in
    /// a block strictly dominating `y`'s.
    fn before(&self, x: Site, y: Site) -> bool {
        if x.0 == y.0 {
            x.1 < y.1
        } else {
            self.dom.dominates(x.0, y.0)
        }
    }

    /// The site every other of `sites` comes before (or is), if there is one.
    fn latest(&self, mut sites: impl Iterator<Item = Site>) -> Option<Site> {
        let mut latest = sites.next()?;
        for site in sites {
            if self.before(latest, site) {
                latest = site;
            } else if site != latest && !self.before(site, latest) {
                return None;
            }
        }
        Some(latest)
    }

    /// Whether blocks `a` and `b` execute equally often with the same threads: `a` dominates
    /// `b`, `b` post-dominates `a`, and both are in the same innermost loop.
    fn control_equivalent(&self, a: BlockId, b: BlockId) -> bool {
        self.dom.dominates(a, b)
            && self.postdom.post_dominates(b, a)
            && self.loops.innermost(a) == self.loops.innermost(b)
    }
}

/// One round of hoists: every pure, unguarded instruction whose destination and operands each
/// have one (unguarded) definition moves to just after the latest of its operands'
/// definitions, when that is in another, control-equivalent block, its destination's readers
/// stay dominated by it, and the operands whose live ranges then end there occupy more 32-bit
/// registers than its destination. An instruction reading what another moves this round waits
/// for the next. Returns whether any moved.
fn hoist_round(f: &mut Function, graph: &Graph, width: &[u32]) -> bool {
    let n = f.regs.len();
    // Each register's definitions (the site of the last one) and the instructions reading it.
    let mut def_count = vec![0u32; n];
    let mut def_site: Vec<Site> = vec![(BlockId(0), 0); n];
    let mut readers: Vec<Vec<Site>> = vec![Vec::new(); n];
    for b in f.block_ids() {
        for (i, inst) in f.block(b).insts.iter().enumerate() {
            for d in inst.defs().filter(|d| d.index() < n) {
                def_count[d.index()] += 1;
                def_site[d.index()] = (b, i);
            }
            for u in distinct_uses(inst).into_iter().filter(|u| u.index() < n) {
                readers[u.index()].push((b, i));
            }
        }
    }
    let single_unguarded_def = |v: VReg| {
        let (b, i) = def_site[v.index()];
        def_count[v.index()] == 1 && f.block(b).insts[i].guard.is_none()
    };

    let mut hoists: Vec<Hoist> = Vec::new();
    for b in f.block_ids().filter(|&b| graph.cfg.is_reachable(b)) {
        for (k, inst) in f.block(b).insts.iter().enumerate() {
            if inst.guard.is_some() || !is_pure(inst) || inst.dsts.len() != 1 {
                continue;
            }
            let Some(dst) = inst.dsts[0].reg() else {
                continue;
            };
            let operands = distinct_uses(inst);
            if dst.index() >= n
                || operands.is_empty()
                || operands.iter().any(|&o| o == dst || o.index() >= n)
                || !single_unguarded_def(dst)
                || !operands.iter().all(|&o| single_unguarded_def(o))
            {
                continue;
            }
            let Some(latest) = graph.latest(operands.iter().map(|o| def_site[o.index()])) else {
                continue;
            };
            if latest.0 == b || !graph.control_equivalent(latest.0, b) {
                continue;
            }
            let ends_at_latest = |o: VReg| {
                readers[o.index()]
                    .iter()
                    .all(|&r| r == (b, k) || r == latest || graph.before(r, latest))
            };
            let freed: u32 = operands
                .iter()
                .filter(|&&o| ends_at_latest(o))
                .map(|o| width[o.index()])
                .sum();
            let stays_dominated = readers[dst.index()]
                .iter()
                .all(|&r| graph.before((b, k), r));
            if freed > width[dst.index()] && stays_dominated {
                hoists.push(Hoist {
                    def: latest,
                    inst: (b, k),
                    operand_defs: operands.iter().map(|o| def_site[o.index()]).collect(),
                });
            }
        }
    }
    let candidates: HashSet<Site> = hoists.iter().map(|h| h.inst).collect();
    hoists.retain(|h| !h.operand_defs.iter().any(|d| candidates.contains(d)));
    if hoists.is_empty() {
        return false;
    }

    // Rebuild the blocks involved: each moved instruction leaves its place and follows the
    // definition (several after one definition are independent of each other).
    let moving: HashSet<Site> = hoists.iter().map(|h| h.inst).collect();
    let mut after: HashMap<Site, Vec<Inst>> = HashMap::new();
    for h in &hoists {
        let (b, k) = h.inst;
        let inst = f.blocks[b.index()].insts[k].clone();
        after.entry(h.def).or_default().push(inst);
    }
    let mut touched: Vec<BlockId> = hoists.iter().flat_map(|h| [h.def.0, h.inst.0]).collect();
    touched.sort_unstable();
    touched.dedup();
    for b in touched {
        let old = std::mem::take(&mut f.blocks[b.index()].insts);
        let mut insts = Vec::with_capacity(old.len());
        for (i, inst) in old.into_iter().enumerate() {
            if !moving.contains(&(b, i)) {
                insts.push(inst);
            }
            insts.extend(after.remove(&(b, i)).into_iter().flatten());
        }
        f.blocks[b.index()].insts = insts;
    }
    true
}

/// A block and an instruction's index in it.
type Site = (BlockId, usize);

/// One hoist: the instruction at `inst` moves to just after `def`, the latest of the
/// definitions of its operands (`operand_defs`).
struct Hoist {
    def: Site,
    inst: Site,
    operand_defs: Vec<Site>,
}

/// Reschedules the blocks at the function's peak pressure, round by round, while each of them
/// comes out lower (transformation 2 of the module docs); returns whether any block changed.
fn schedule_peak_blocks(f: &mut Function) -> bool {
    let cfg = Cfg::compute(f);
    // Reordering within a block keeps its upward-exposed uses and its definitions, so the
    // liveness at block boundaries stays valid throughout.
    let liveness = Liveness::compute(f, &cfg);
    let width = widths(f);
    let is_pred: Vec<bool> = f.regs.iter().map(|r| r.class() == RegClass::Pred).collect();
    let mut peaks: Vec<u32> = f
        .block_ids()
        .map(|b| block_peak(&f.block(b).insts, liveness.live_out(b), &width))
        .collect();
    let mut changed = false;
    for _ in 0..MAX_ROUNDS {
        let Some(&peak) = peaks.iter().max() else {
            break;
        };
        let mut round: Vec<(usize, Vec<Inst>, u32)> = Vec::new();
        for (b, _) in peaks.iter().enumerate().filter(|&(_, &p)| p == peak) {
            let block = &f.blocks[b];
            let live_out = liveness.live_out(BlockId(b as u32));
            let Some(order) = schedule_block(&block.insts, live_out, &width, &is_pred) else {
                break;
            };
            let insts: Vec<Inst> = order.iter().map(|&i| block.insts[i].clone()).collect();
            let lowered = block_peak(&insts, live_out, &width);
            if lowered >= peak {
                break;
            }
            round.push((b, insts, lowered));
        }
        if round.len() != peaks.iter().filter(|&&p| p == peak).count() {
            break;
        }
        for (b, insts, lowered) in round {
            f.blocks[b].insts = insts;
            peaks[b] = lowered;
        }
        changed = true;
    }
    changed
}

/// The highest pressure in a block with `live_out` live after it: at each instruction, the
/// 32-bit registers live after it plus its dead destinations (as [`crate::pressure::peak`]
/// counts).
fn block_peak(insts: &[Inst], live_out: &BitSet, width: &[u32]) -> u32 {
    let w = |v: VReg| width.get(v.index()).copied().unwrap_or(0);
    let mut live = live_out.clone();
    let mut regs: u32 = live.iter().map(|v| w(VReg(v as u32))).sum();
    let mut peak = 0;
    for inst in insts.iter().rev() {
        let mut dead: Vec<VReg> = inst.defs().filter(|d| !live.contains(d.index())).collect();
        dead.sort_unstable();
        dead.dedup();
        peak = peak.max(regs + dead.iter().map(|&d| w(d)).sum::<u32>());
        for d in killed(inst) {
            if live.remove(d.index()) {
                regs -= w(d);
            }
        }
        for u in inst.uses() {
            if live.insert(u.index()) {
                regs += w(u);
            }
        }
    }
    peak
}

/// A bottom-up list schedule of a block (see the module docs), as the new order of its
/// instruction indices; `None` when the block is too short or too long to schedule.
fn schedule_block(
    insts: &[Inst],
    live_out: &BitSet,
    width: &[u32],
    is_pred: &[bool],
) -> Option<Vec<usize>> {
    let pinned = usize::from(insts.last().is_some_and(Inst::is_terminator));
    let m = insts.len() - pinned;
    if !(2..=MAX_SCHEDULED_BLOCK).contains(&m) {
        return None;
    }

    // Dependences: `preds[j]` must come before `j`; `unplaced_succs[i]` counts the
    // instructions that must come after `i` and are not placed yet.
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); m];
    let mut unplaced_succs = vec![0u32; m];
    let mut last_writer: HashMap<VReg, usize> = HashMap::new();
    let mut readers: HashMap<VReg, Vec<usize>> = HashMap::new();
    let mut last_ordered: Option<usize> = None;
    let mut last_timer: Option<usize> = None;
    for (j, inst) in insts[..m].iter().enumerate() {
        let mut before: Vec<usize> = Vec::new();
        if reads_timer(inst) {
            before.extend(last_timer.unwrap_or(0)..j);
            last_timer = Some(j);
        } else {
            before.extend(last_timer);
        }
        for u in inst.uses() {
            before.extend(last_writer.get(&u));
        }
        for d in inst.defs() {
            before.extend(last_writer.get(&d));
            before.extend(readers.get(&d).into_iter().flatten());
        }
        if !is_pure(inst) {
            before.extend(last_ordered);
            last_ordered = Some(j);
        }
        before.sort_unstable();
        before.dedup();
        before.retain(|&i| i != j);
        for &i in &before {
            unplaced_succs[i] += 1;
        }
        preds[j] = before;
        for d in inst.defs() {
            last_writer.insert(d, j);
            readers.remove(&d);
        }
        for u in inst.uses() {
            readers.entry(u).or_default().push(j);
        }
    }

    let w = |v: VReg| width.get(v.index()).copied().unwrap_or(0);
    let pred = |v: VReg| u32::from(is_pred.get(v.index()).copied().unwrap_or(false));
    let mut live = live_out.clone();
    if pinned == 1 {
        transfer(&insts[m], &mut live);
    }
    // What placing `i` (above everything placed so far) adds to the live 32-bit registers
    // and predicates.
    let cost = |i: usize, live: &BitSet| {
        let inst = &insts[i];
        let killed: Vec<VReg> = killed(inst).collect();
        let (mut gprs, mut preds) = (0i64, 0i64);
        for &d in &killed {
            if live.contains(d.index()) && !inst.uses().any(|u| u == d) {
                gprs -= i64::from(w(d));
                preds -= i64::from(pred(d));
            }
        }
        for u in distinct_uses(inst) {
            if !live.contains(u.index()) {
                gprs += i64::from(w(u));
                preds += i64::from(pred(u));
            }
        }
        (gprs, preds)
    };
    let mut ready: Vec<usize> = (0..m).filter(|&i| unplaced_succs[i] == 0).collect();
    let mut placed: Vec<usize> = Vec::with_capacity(m + pinned);
    while !ready.is_empty() {
        let pos = (0..ready.len())
            .min_by_key(|&p| (cost(ready[p], &live), Reverse(ready[p])))
            .expect("ready is not empty");
        let i = ready.swap_remove(pos);
        transfer(&insts[i], &mut live);
        placed.push(i);
        for &p in &preds[i] {
            unplaced_succs[p] -= 1;
            if unplaced_succs[p] == 0 {
                ready.push(p);
            }
        }
    }
    debug_assert_eq!(placed.len(), m, "the dependence graph is acyclic");
    placed.reverse();
    if pinned == 1 {
        placed.push(m);
    }
    Some(placed)
}
