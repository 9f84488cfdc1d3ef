//! One CTA executed one warp instruction at a time, under the control of a timing model.
//!
//! The timing model decides *when* a warp's next instruction issues; [`CtaStepper::step`] then
//! executes it (the functional result is the same as in functional-only mode) and reports what
//! the timing model needs: the active and executing lanes, where each lane accesses memory, the
//! register-window base of the frame it ran in, the width class of every 32-bit physical
//! register read (taken before execution) and written, and which warps a barrier released
//! (with the `bar.red` results that release wrote).
//!
//! Width rules (the timing model counts exactly these records):
//! - A 32-bit value's class is the fewest bytes n ∈ {1, 2, 3, 4} whose sign extension gives it
//!   back ([`width_class`]); a warp register's class is the maximum over lanes, recorded over all
//!   32 lanes (`class_all`, what CORF/CMRC register files store) and over the lanes that execute
//!   the instruction (`class_active`: active lanes whose guard holds).
//! - Values are judged within their register's declared width: an 8- or 16-bit register's
//!   value is sign-extended from that width first (a `.s16` −1 needs 1 byte, not 3); a 64-bit
//!   register is two 32-bit registers, classified separately.
//! - Reads: one record per 32-bit register of each register source operand, in operand order
//!   (address bases and vector elements included; predicates, guards included, live in their
//!   own file and are not recorded), classified *before* the instruction executes, so an
//!   instruction reading its own destination sees the old value. A register named again by a
//!   later operand of the same instruction is recorded again with `repeat` set, so the timing
//!   model can read it once or each time (`sm.rf.read_duplicates`).
//! - Writes: one record per 32-bit register of each register destination, after execution,
//!   whether or not any lane wrote it (a guarded-off or divergent write still occupies a write
//!   port; the all-lanes class includes the lanes that kept their old value). `bar.red`
//!   destinations are written when the barrier releases: they are recorded in the `Executed`
//!   of the instruction that released it (`released_writes`), or with the `bar.red` itself when
//!   no lane of it executed (nothing arrives, the register keeps its value).
//!
//! With compiled code ([`crate::jit::Granularity::Instructions`]), a lane-wise instruction
//! executes natively, alone, at issue, and writes every register it writes back to the
//! register file; control flow, calls, barriers and warp-wide instructions go through the
//! interpreter. Either way the records are taken the same way, so the engine changes no
//! statistic.

use crate::cta::{
    Barrier, LocalView, arrive, deadlock, fault, fresh_barriers, new_ctx, prepare_warps,
    run_compiled, try_release,
};
use crate::error::{Fault, FaultKind};
use crate::exec::{CtaEnv, Step, Target, guard_mask, memory_targets, step};
use crate::jit::JitKernel;
use crate::jit::ctx::JitCtx;
use crate::launch::LaunchStats;
use crate::program::{Code, Program};
use crate::warp::{WARP_SIZE, Warp, WarpState};
use isa::{BarRedOp, BarrierKind, FuncId, Inst, Op, Operand, PhysReg, VReg};

/// Width class of a 32-bit value: the fewest bytes n ∈ {1, 2, 3, 4} such that the value is the
/// sign extension of its low 8·n bits.
pub fn width_class(v: u32) -> u8 {
    class_of_magnitude(magnitude(v))
}

/// The value with its sign folded away: a value is the sign extension of its low k bits
/// exactly when this is below 2^(k-1). Magnitudes of several values can be OR-ed: the class of
/// the OR is the largest class among them.
fn magnitude(v: u32) -> u32 {
    v ^ ((v as i32 >> 31) as u32)
}

fn class_of_magnitude(m: u32) -> u8 {
    match m {
        0..0x80 => 1,
        0x80..0x8000 => 2,
        0x8000..0x80_0000 => 3,
        _ => 4,
    }
}

/// What the width rules need of a physical register's 32 lanes: for each class boundary, the
/// lanes whose value needs more bytes (bit `l` of `wider[k]`: lane `l` needs more than
/// `k + 1` bytes). The class of a set of lanes is the largest class among them (the class of
/// their OR-ed magnitudes), so these 12 bytes stand for the register's 128: the shadow register
/// file stays small enough to stay in cache.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LaneWidths {
    wider: [u32; 3],
}

impl LaneWidths {
    /// The lanes' widths of the 32-bit values `words`.
    #[inline]
    fn of(words: &[u32; WARP_SIZE]) -> LaneWidths {
        let mut wider = [0u32; 3];
        for (l, &w) in words.iter().enumerate() {
            let m = magnitude(w);
            wider[0] |= u32::from(m >= 0x80) << l;
            wider[1] |= u32::from(m >= 0x8000) << l;
            wider[2] |= u32::from(m >= 0x80_0000) << l;
        }
        LaneWidths { wider }
    }

    /// The width class over the lanes in `lanes`.
    #[inline]
    fn class(self, lanes: u32) -> u8 {
        1 + self
            .wider
            .iter()
            .map(|w| u8::from(w & lanes != 0))
            .sum::<u8>()
    }

    /// `self` with the lanes in `exec` replaced by those of `new`.
    #[inline]
    fn merge(self, new: LaneWidths, exec: u32) -> LaneWidths {
        LaneWidths {
            wider: std::array::from_fn(|k| (self.wider[k] & !exec) | (new.wider[k] & exec)),
        }
    }
}

/// Width classes of one 32-bit physical register: over all 32 lanes and over the lanes in
/// `exec`. Lanes in `exec` hold word `word` of the virtual register whose lanes are `lanes`
/// (declared `bits` wide); the others what the shadow register file holds for the register,
/// `held` (zero for a register never written).
fn classes(lanes: &[u64], word: u32, bits: u32, exec: u32, held: LaneWidths) -> (u8, u8) {
    let new = lane_widths(lanes, word, bits);
    (held.merge(new, exec).class(u32::MAX), new.class(exec))
}

/// The lanes' widths of word `word` of a virtual register (as [`classes`] takes it).
fn lane_widths(lanes: &[u64], word: u32, bits: u32) -> LaneWidths {
    let mut words = [0u32; WARP_SIZE];
    words_of(lanes, word, bits, &mut words);
    LaneWidths::of(&words)
}

/// Each lane's 32-bit word `word` (0: low, 1: high) of a register declared `bits` wide holding
/// `value` (zero-extended to 64 bits, as frames hold it), as its width is judged: 8- and
/// 16-bit registers sign-extended from their declared width. Registers hold 64 bits in the
/// emulator (the frontend refuses `.b128` registers), so words 2 and 3 of a quad are zero.
/// The declared width's case is chosen once per register, so each loop vectorizes.
#[inline]
fn words_of(lanes: &[u64], word: u32, bits: u32, out: &mut [u32; WARP_SIZE]) {
    if bits <= 16 {
        let shift = 32 - bits;
        for (o, &v) in out.iter_mut().zip(lanes) {
            *o = (((v as u32) << shift) as i32 >> shift) as u32;
        }
    } else if word < 2 {
        let shift = 32 * word;
        for (o, &v) in out.iter_mut().zip(lanes) {
            *o = (v >> shift) as u32;
        }
    }
}

/// Width classes of a physical register, `held`, over all lanes and over `exec`.
fn held_classes(exec: u32, held: LaneWidths) -> (u8, u8) {
    (held.class(u32::MAX), held.class(exec))
}

/// Stores word `word` of the lanes in `exec` of a virtual register (as [`classes`] takes it)
/// into its physical register `held`.
fn store(lanes: &[u64], word: u32, bits: u32, exec: u32, held: &mut LaneWidths) {
    *held = held.merge(lane_widths(lanes, word, bits), exec);
}

/// Register `reg` in the shadow register file `phys` (grown to hold it: a callee's window is
/// allocated when first written).
fn phys_lanes(phys: &mut Vec<LaneWidths>, reg: u32) -> &mut LaneWidths {
    let at = reg as usize;
    if phys.len() <= at {
        phys.resize(at + 1, LaneWidths::default());
    }
    &mut phys[at]
}

/// Register `reg` in `phys` (a register never written holds zero).
fn phys_lanes_ro(phys: &[LaneWidths], reg: u32) -> LaneWidths {
    phys.get(reg as usize).copied().unwrap_or_default()
}

/// A 32-bit physical register written by an instruction, with the width class of the new
/// value over all 32 lanes (what register-file hardware stores) and over the lanes that
/// executed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegWrite {
    /// The register in the warp's register window: the frame's [`FrameBase::gpr`] plus the
    /// register allocator's number.
    pub reg: u32,
    pub class_all: u8,
    pub class_active: u8,
}

/// A 32-bit physical register read by an instruction's source operands, with the width class
/// of its value before the instruction executed, over all 32 lanes and over the lanes that
/// execute the instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegRead {
    /// The register in the warp's register window (as [`RegWrite::reg`]).
    pub reg: u32,
    pub class_all: u8,
    pub class_active: u8,
    /// An earlier operand of the same instruction already named this register.
    pub repeat: bool,
}

/// Where a call frame's registers start in the warp's register window.
///
/// Each call frame has registers of its own, as under a hardware ABI with register windows:
/// the kernel's frame starts at 0 and a callee's right after its caller's, which takes the
/// caller function's allocated registers rounded up to a multiple of 4 (so the callee's 64-bit
/// pairs stay aligned); predicates likewise in the predicate file. The timing model adds the
/// base to the register allocator's numbers, so a callee's registers alias none of its
/// callers' in the scoreboard, the bank map or the width records. (PTX passes arguments and
/// results through `.param` memory, so no register is shared between frames.)
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FrameBase {
    /// First 32-bit register of the frame.
    pub gpr: u32,
    /// First predicate register of the frame.
    pub pred: u32,
}

impl FrameBase {
    /// The base of a frame called from a frame of `code` at this base.
    pub fn above(self, code: &Code) -> FrameBase {
        FrameBase {
            gpr: self.gpr + code.regs_per_thread.next_multiple_of(4),
            pred: self.pred + code.preds_per_thread,
        }
    }

    /// The base of warp `w`'s current frame.
    pub fn of(program: &Program, w: &Warp) -> FrameBase {
        w.frames[..w.frames.len() - 1]
            .iter()
            .fold(FrameBase::default(), |b, f| {
                b.above(&program.code[f.func.index()])
            })
    }
}

/// What executing one warp instruction did, as the timing model sees it.
#[derive(Clone, Debug)]
pub struct Executed {
    pub func: FuncId,
    pub pc: u32,
    /// Lanes active on the SIMT stack.
    pub active: u32,
    /// Active lanes whose guard held.
    pub exec: u32,
    /// Whether the instruction accessed memory; then `targets` holds each lane's target
    /// ([`Target::None`] for lanes that did not execute).
    pub memory: bool,
    pub targets: [Target; WARP_SIZE],
    /// Register-window base of the frame the instruction executed in (its registers are the
    /// allocator's numbers plus this).
    pub frame: FrameBase,
    /// 32-bit physical registers read by the source operands, in operand order, with their
    /// classes before execution (see the module docs).
    pub reads: Vec<RegRead>,
    /// 32-bit physical registers written.
    pub writes: Vec<RegWrite>,
    /// Warps (bit per warp of the CTA) that a barrier released as a result.
    pub released: u64,
    /// `bar.red` destinations that the release wrote: (warp of the CTA, register in that
    /// warp's window). Only a barrier or an exit can release a barrier, so these belong to
    /// control instructions.
    pub released_writes: Vec<(u32, RegWrite)>,
    /// The warp's next instruction (function, PC) after this one, or `None` while it waits at
    /// a barrier or once it has exited.
    pub next: Option<(FuncId, u32)>,
    /// Whether this instruction ended the warp.
    pub exited: bool,
}

impl Default for Executed {
    fn default() -> Executed {
        Executed {
            func: FuncId(0),
            pc: 0,
            active: 0,
            exec: 0,
            memory: false,
            targets: [Target::None; WARP_SIZE],
            frame: FrameBase::default(),
            reads: Vec::new(),
            writes: Vec::new(),
            released: 0,
            released_writes: Vec::new(),
            next: None,
            exited: false,
        }
    }
}

/// A CTA whose warps are stepped individually.
pub struct CtaStepper<'a> {
    pub env: CtaEnv<'a>,
    pub warps: Vec<Warp>,
    barriers: Vec<Barrier>,
    budget: u64,
    /// Compiled instructions, their context, and what the context says of local memory.
    jit: Option<(std::sync::Arc<JitKernel>, Box<JitCtx>, LocalView)>,
    /// Instruction counters (as in functional mode).
    pub stats: LaunchStats,
    /// `bar.red` arrivals of a barrier about to be released (reused storage).
    reds: Vec<(usize, BarRedOp, VReg, u32)>,
}

impl<'a> CtaStepper<'a> {
    /// Starts the CTA of `env`, reusing the warps of `pool`. `budget` bounds its warp
    /// instructions. `jit`: the kernel compiled at [`crate::jit::Granularity::Instructions`],
    /// or `None` to interpret every instruction.
    pub fn new(
        mut env: CtaEnv<'a>,
        mut pool: Vec<Warp>,
        budget: u64,
        jit: Option<std::sync::Arc<JitKernel>>,
    ) -> CtaStepper<'a> {
        prepare_warps(&env, &mut pool);
        // Physical registers start zeroed, like the kernel's frame.
        let regs = env.program.code[env.kernel.index()].regs_per_thread as usize;
        for w in &mut pool {
            w.phys.clear();
            w.phys.resize(regs, LaneWidths::default());
        }
        let jit = jit.map(|k| (k, Box::new(new_ctx(&mut env)), LocalView::default()));
        CtaStepper {
            env,
            warps: pool,
            barriers: fresh_barriers(),
            budget,
            jit,
            stats: LaunchStats {
                ctas: 1,
                ..LaunchStats::default()
            },
            reds: Vec::new(),
        }
    }

    /// Warps of the CTA.
    pub fn warp_count(&self) -> usize {
        self.warps.len()
    }

    /// Whether warp `i` has exited (a warp with no lanes exits before its first instruction).
    pub fn has_exited(&self, i: usize) -> bool {
        self.warps[i].state == WarpState::Done
    }

    /// Whether every warp has exited.
    pub fn finished(&self) -> bool {
        self.warps.iter().all(|w| w.state == WarpState::Done)
    }

    /// The function, PC and active lanes of warp `i`'s next instruction, if it can run.
    pub fn next(&self, i: usize) -> Option<(FuncId, u32, u32)> {
        let w = &self.warps[i];
        if w.state != WarpState::Ready {
            return None;
        }
        let f = w.frame();
        f.simt.top().map(|t| (f.func, t.pc, t.mask))
    }

    /// The register-window base of warp `i`'s current frame (that of its next instruction).
    pub fn frame_base(&self, i: usize) -> FrameBase {
        FrameBase::of(self.env.program, &self.warps[i])
    }

    /// Executes warp `i`'s next instruction, describing it in `out`.
    pub fn step(&mut self, i: usize, out: &mut Executed) -> Result<(), Box<Fault>> {
        let env = &mut self.env;
        let w = &mut self.warps[i];
        if self.stats.warp_insts >= self.budget {
            let budget = self.budget;
            return Err(Box::new(fault(
                env,
                w,
                FaultKind::BudgetExceeded { budget },
                None,
            )));
        }
        let frame = w.frame();
        let top = *frame.simt.top().expect("a ready warp has a SIMT entry");
        let func = frame.func;
        let code = &env.program.code[func.index()];
        let inst = &code.insts[top.pc as usize];
        out.func = func;
        out.pc = top.pc;
        out.active = top.mask;
        out.exec = guard_mask(frame, inst, top.mask);
        out.memory = memory_targets(env, w, inst, out.exec, &mut out.targets);
        out.frame = FrameBase::of(env.program, w);
        record_reads(code, &frame.regs, &w.phys, inst, out);
        out.writes.clear();
        out.released = 0;
        out.released_writes.clear();
        self.stats.warp_insts += 1;
        let outcome = match &mut self.jit {
            Some((kernel, ctx, local_view)) => match kernel.run_at(func, top.pc) {
                Some(run) => {
                    // As the functional engine runs a run without a closing branch.
                    self.stats.thread_insts += u64::from(top.mask.count_ones());
                    self.stats.jit_insts += 1;
                    self.stats.jit_inline += u64::from(run.inline);
                    self.stats.jit_alu_helper += u64::from(run.alu_helper);
                    run_compiled(env, w, i, ctx, local_view, run, top.mask)
                        .map_err(|(kind, lane)| Box::new(fault(env, w, kind, Some(lane))))?;
                    w.executed += 1;
                    w.frame_mut().simt.goto(run.end);
                    Ok(Step::Continue)
                }
                None => {
                    // The interpreter may resize the warp's local memory (a call does).
                    local_view.warp = None;
                    step(env, w, &mut self.stats.thread_insts)
                }
            },
            None => step(env, w, &mut self.stats.thread_insts),
        }
        .map_err(|(kind, lane)| Box::new(fault(env, w, kind, Some(lane))))?;
        // Width classes of the registers written, read from the frame the instruction ran in
        // (calls push and returns pop frames, but neither writes registers). A `bar.red` that
        // executed writes its destination when the barrier releases (recorded below).
        let later = matches!(
            inst.op,
            Op::Bar {
                kind: BarrierKind::Red(_),
                ..
            }
        ) && out.exec != 0;
        if !matches!(inst.op, Op::Call { .. } | Op::Ret { .. } | Op::Exit)
            && !later
            && w.frame().func == func
        {
            let frame = w.frames.last().expect("a running warp has a frame");
            record_writes(code, &frame.regs, &mut w.phys, inst, out);
        }
        out.exited = w.state == WarpState::Done;
        let mut event = w.state != WarpState::Ready;
        if let Step::Barrier(a) = outcome {
            event = true;
            arrive(&mut self.barriers[a.id as usize], i, w, a);
        }
        if event {
            let waiting: u64 = self.waiting_mask();
            for id in 0..self.barriers.len() {
                self.reds.clear();
                self.reds.extend_from_slice(self.barriers[id].reds());
                try_release(&self.env, &mut self.barriers, id, &mut self.warps);
                if !self.reds.is_empty() && self.barriers[id].reds().is_empty() {
                    // Released: each `bar.red` destination now holds the reduction.
                    for &(warp, _, dst, lanes) in &self.reds {
                        let w = &mut self.warps[warp];
                        record_release(self.env.program, w, warp, dst, lanes, out);
                    }
                }
            }
            out.released = waiting & !self.waiting_mask();
            if !self.finished() && self.warps.iter().all(|w| w.state != WarpState::Ready) {
                return Err(Box::new(deadlock(&self.env, &self.warps, &self.barriers)));
            }
        }
        out.next = self.next(i).map(|(f, pc, _)| (f, pc));
        Ok(())
    }

    fn waiting_mask(&self) -> u64 {
        self.warps
            .iter()
            .enumerate()
            .filter(|(_, w)| matches!(w.state, WarpState::AtBarrier { .. }))
            .fold(0, |m, (i, _)| m | (1 << i))
    }

    /// Ends the CTA: its counters (divergence included), its shared-memory buffer and its
    /// warps, for reuse.
    pub fn finish(mut self) -> (LaunchStats, Vec<u8>, Vec<Warp>) {
        for w in &self.warps {
            let s = w.simt_totals();
            self.stats.divergent_branches += s.divergent_branches;
            self.stats.reconvergences += s.reconvergences;
            self.stats.max_simt_depth = self.stats.max_simt_depth.max(s.max_depth);
        }
        (self.stats, self.env.shared, self.warps)
    }
}

/// The 32-bit registers of virtual register `v` of `code` (none for a predicate or a register
/// without a physical one), with its declared width in bits and its lanes' values.
fn gpr_of<'r>(code: &Code, regs: &'r [u64], v: VReg) -> Option<(u32, u32, u32, &'r [u64])> {
    let Some(PhysReg::Gpr { first, count }) = code.phys.get(v.index()).copied().flatten() else {
        return None;
    };
    let lanes = &regs[v.index() * WARP_SIZE..(v.index() + 1) * WARP_SIZE];
    Some((first, count, code.reg_types[v.index()].bits(), lanes))
}

/// Records the 32-bit physical registers `inst`'s source operands read, with their classes
/// before it executes, into `out.reads` (which it replaces).
fn record_reads(code: &Code, regs: &[u64], phys: &[LaneWidths], inst: &Inst, out: &mut Executed) {
    out.reads.clear();
    each_reg(&inst.srcs, |v| {
        let Some((first, count, bits, lanes)) = gpr_of(code, regs, v) else {
            return;
        };
        for word in 0..count {
            let reg = out.frame.gpr + first + word;
            let repeat = out.reads.iter().any(|r| r.reg == reg);
            let held = phys_lanes_ro(phys, reg);
            let (class_all, class_active) = classes(lanes, word, bits, out.exec, held);
            out.reads.push(RegRead {
                reg,
                class_all,
                class_active,
                repeat,
            });
        }
    });
}

/// Calls `f` with every register `ops` mention (vector elements and address bases included),
/// in order: `Operand::regs` without its iterator adaptors, for the per-instruction records.
#[inline]
fn each_reg(ops: &[Operand], mut f: impl FnMut(VReg)) {
    for op in ops {
        match op {
            Operand::Vector(elems) => elems.iter().filter_map(Operand::reg).for_each(&mut f),
            other => {
                if let Some(v) = other.reg() {
                    f(v)
                }
            }
        }
    }
}

/// Appends the width classes of the 32-bit physical registers `inst` wrote (in the lanes that
/// executed it), storing the new values in the shadow register file `phys`.
fn record_writes(
    code: &Code,
    regs: &[u64],
    phys: &mut Vec<LaneWidths>,
    inst: &Inst,
    out: &mut Executed,
) {
    each_reg(&inst.dsts, |v| {
        let Some((first, count, bits, lanes)) = gpr_of(code, regs, v) else {
            return;
        };
        for word in 0..count {
            let reg = out.frame.gpr + first + word;
            let held = phys_lanes(phys, reg);
            store(lanes, word, bits, out.exec, held);
            // The executing lanes now hold the new value.
            let (class_all, class_active) = held_classes(out.exec, *held);
            out.writes.push(RegWrite {
                reg,
                class_all,
                class_active,
            });
        }
    });
}

/// Appends to `out.released_writes` the registers of `bar.red` destination `dst` of warp `w`
/// (warp `index` of the CTA), which a barrier release just wrote in `lanes`.
fn record_release(
    program: &Program,
    w: &mut Warp,
    index: usize,
    dst: VReg,
    lanes: u32,
    out: &mut Executed,
) {
    let base = FrameBase::of(program, w);
    let frame = w.frames.last().expect("a waiting warp has a frame");
    let code = &program.code[frame.func.index()];
    let Some((first, count, bits, values)) = gpr_of(code, &frame.regs, dst) else {
        return;
    };
    for word in 0..count {
        let reg = base.gpr + first + word;
        let held = phys_lanes(&mut w.phys, reg);
        store(values, word, bits, lanes, held);
        let (class_all, class_active) = held_classes(lanes, *held);
        out.released_writes.push((
            index as u32,
            RegWrite {
                reg,
                class_all,
                class_active,
            },
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::{LaneWidths, WARP_SIZE, classes, held_classes, store, width_class, words_of};

    /// One lane's word as `words_of` judges it.
    fn word_of(value: u64, word: u32, bits: u32) -> u32 {
        let mut out = [0; WARP_SIZE];
        words_of(&[value; WARP_SIZE], word, bits, &mut out);
        out[0]
    }

    #[test]
    fn the_class_of_or_ed_magnitudes_is_the_largest_class() {
        let values = [
            0u32,
            5,
            0xffff_ff80,
            0x1234,
            0xfff0_0000,
            0x7f_ffff,
            0x80_0000,
            1 << 31,
        ];
        for &a in &values {
            for &b in &values {
                let joint = super::class_of_magnitude(super::magnitude(a) | super::magnitude(b));
                assert_eq!(joint, width_class(a).max(width_class(b)), "{a:#x} {b:#x}");
            }
        }
    }

    #[test]
    fn width_classes_follow_sign_extension() {
        assert_eq!(width_class(0), 1);
        assert_eq!(width_class(127), 1);
        assert_eq!(width_class(128), 2);
        assert_eq!(width_class(-128i32 as u32), 1);
        assert_eq!(width_class(-129i32 as u32), 2);
        assert_eq!(width_class(0xffff_ffff), 1);
        assert_eq!(width_class(0x7fff), 2);
        assert_eq!(width_class(0x8000), 3);
        assert_eq!(width_class(0x7f_ffff), 3);
        assert_eq!(width_class(0x80_0000), 4);
        assert_eq!(width_class(0x3f80_0000), 4); // 1.0f32
    }

    #[test]
    fn narrow_registers_are_judged_within_their_declared_width() {
        // A 16-bit register holds its value zero-extended; its class is that of the value
        // sign-extended from 16 bits.
        assert_eq!(width_class(word_of(0xffff, 0, 16)), 1); // .s16 -1
        assert_eq!(width_class(word_of(0xff80, 0, 16)), 1); // -128
        assert_eq!(width_class(word_of(0xff7f, 0, 16)), 2); // -129
        assert_eq!(width_class(word_of(0x8000, 0, 16)), 2);
        assert_eq!(width_class(word_of(0x7fff, 0, 16)), 2);
        assert_eq!(width_class(word_of(0x007f, 0, 16)), 1);
        assert_eq!(width_class(word_of(0x0080, 0, 16)), 2); // 128 needs its second byte
        // Only the declared bits count: a wider frame value cannot widen the class.
        assert_eq!(width_class(word_of(0x1234_ffff, 0, 16)), 1);
        assert_eq!(width_class(word_of(0x80, 0, 8)), 1); // an 8-bit register: 1 byte
        // 32-bit registers as they are; 64-bit ones as two 32-bit halves.
        assert_eq!(word_of(0xffff, 0, 32), 0xffff);
        assert_eq!(word_of(0x1_0000_0080, 0, 64), 0x80);
        assert_eq!(word_of(0x1_0000_0080, 1, 64), 1);
        // Words beyond the 64 bits a frame holds read as zero.
        assert_eq!(word_of(u64::MAX, 2, 128), 0);
    }

    #[test]
    fn all_lanes_include_what_lanes_that_did_not_execute_still_hold() {
        let mut lanes = [0u64; 32];
        lanes[0] = 0x1234_5678; // 4 bytes in lane 0
        lanes[1] = 5;
        let mut words = [0u32; 32];
        words[2] = 0x8000; // another value in lane 2's physical register: 3 bytes
        let mut held = LaneWidths::of(&words);
        // Lane 1 executes: 1 byte there; all lanes: lane 2's 3 bytes (lane 0's value is not
        // in the physical register, which holds 0 there).
        assert_eq!(classes(&lanes, 0, 32, 0b10, held), (3, 1));
        // No lane executes: all lanes are what the register holds.
        assert_eq!(classes(&lanes, 0, 32, 0, held), (3, 1));
        // A register never written reads as zero outside the executing lanes.
        assert_eq!(classes(&lanes, 0, 32, 0b1, LaneWidths::default()), (4, 4));
        // A write by lanes 0 and 2 stores their values; lane 1 keeps what it held.
        store(&lanes, 0, 32, 0b101, &mut held);
        let mut expected = [0u32; 32];
        expected[0] = 0x1234_5678;
        assert_eq!(held, LaneWidths::of(&expected));
        assert_eq!(classes(&lanes, 0, 32, 0b100, held), (4, 1));
        assert_eq!(held_classes(0b10, held), (4, 1));
    }
}
