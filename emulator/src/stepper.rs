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
//!   instruction reading its own destination sees the old value. Reads are classified from the
//!   shadow physical register file (`Warp::phys`), as hardware reads them: in the lanes that
//!   wrote the register, that is the value the instruction computes with, and one pass over
//!   the lanes per write classifies every later read of it. A register named again by a
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
    Barrier, ClusterBarrier, LocalView, arrive, deadlock, fault, fresh_barriers, new_ctx,
    prepare_warps, run_compiled, try_release,
};
use crate::error::{Fault, FaultKind};
use crate::exec::{CtaEnv, HeldStore, Step, Target, guard_mask, memory_targets, sleep_ns, step};
use crate::gpr_operands::GprOperand;
use crate::jit::JitKernel;
use crate::jit::ctx::JitCtx;
use crate::launch::LaunchStats;
use crate::program::{Code, Program};
use crate::warp::{WARP_SIZE, Warp, WarpState};
pub use crate::widths::{LaneWidths, width_class};
use crate::widths::{held_classes, lane_widths, phys_lanes, phys_lanes_ro, store};
use isa::{BarRedOp, BarrierKind, FuncId, Op, VReg};

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
    /// Lanes of the warp alive (not exited) before the instruction: lanes outside `exec` but
    /// inside `live` keep register values a later instruction may read.
    pub live: u32,
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
    /// Register-window base of the frame the warp's next instruction runs in: `frame` but
    /// after a call or a return.
    pub next_frame: FrameBase,
    /// Whether this instruction ended the warp.
    pub exited: bool,
    /// Nanoseconds a `nanosleep` asked the warp to sleep (the largest of its lanes'); 0 for
    /// every other instruction.
    pub sleep_ns: u32,
}

impl Default for Executed {
    fn default() -> Executed {
        Executed {
            func: FuncId(0),
            pc: 0,
            active: 0,
            exec: 0,
            live: 0,
            memory: false,
            targets: [Target::None; WARP_SIZE],
            frame: FrameBase::default(),
            reads: Vec::new(),
            writes: Vec::new(),
            released: 0,
            released_writes: Vec::new(),
            next: None,
            next_frame: FrameBase::default(),
            exited: false,
            sleep_ns: 0,
        }
    }
}

/// A CTA whose warps are stepped individually.
pub struct CtaStepper<'a> {
    pub env: CtaEnv<'a>,
    pub warps: Vec<Warp>,
    barriers: Vec<Barrier>,
    /// `barrier.cluster.arrive`/`.wait`'s barrier (every cluster is the CTA alone).
    cluster: ClusterBarrier,
    budget: u64,
    /// Compiled instructions, their context, and what the context says of local memory.
    jit: Option<(std::sync::Arc<JitKernel>, Box<JitCtx>, LocalView)>,
    /// Instruction counters (as in functional mode).
    pub stats: LaunchStats,
    /// `bar.red` arrivals of a barrier about to be released (reused storage).
    reds: Vec<(usize, BarRedOp, VReg, u32)>,
}

impl<'a> CtaStepper<'a> {
    /// Starts the CTA of `env`, reusing the warps of `pool`. `budget` bounds the instructions
    /// of each warp. `jit`: the kernel compiled at [`crate::jit::Granularity::Instructions`],
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
        let mut cluster = ClusterBarrier::default();
        cluster.reset(pool.len());
        CtaStepper {
            env,
            warps: pool,
            barriers: fresh_barriers(),
            cluster,
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

    /// Where warp `i` goes after its next `n` instructions (at least 1) when they are
    /// straight-line code (no branch, call, return, barrier or exit): the function and PC
    /// [`CtaStepper::step`] will report as [`Executed::next`] after the last of them, known
    /// before they execute. The timing model executes instructions that write global memory
    /// (and the ones their warp issues after them in the same cycle) at the end of their
    /// cycle, and fetches on from here meanwhile.
    pub fn next_in_line(&self, i: usize, n: usize) -> Option<(FuncId, u32)> {
        let w = &self.warps[i];
        if w.state != WarpState::Ready {
            return None;
        }
        let frame = w.frame();
        let pc = frame.simt.top()?.pc;
        frame
            .simt
            .peek_straight(pc + 1, n)
            .map(|pc| (frame.func, pc))
    }

    /// The memory targets of warp `i`'s next instruction as it would access them now, in `out`
    /// (lanes whose guard holds; the others [`Target::None`]), and those lanes; `None` when it
    /// is not a memory instruction or the warp cannot run. Nothing executes: a scheduler that
    /// looks ahead at a load's addresses (LAS) reads them here.
    pub fn peek_targets(&self, i: usize, out: &mut [Target; WARP_SIZE]) -> Option<u32> {
        let w = &self.warps[i];
        if w.state != WarpState::Ready {
            return None;
        }
        let frame = w.frame();
        let top = frame.simt.top()?;
        let inst = &self.env.program.code[frame.func.index()].insts[top.pc as usize];
        let exec = guard_mask(frame, inst, top.mask);
        memory_targets(&self.env, w, inst, exec, out).then_some(exec)
    }

    /// The register-window base of warp `i`'s current frame (that of its next instruction).
    pub fn frame_base(&self, i: usize) -> FrameBase {
        FrameBase::of(self.env.program, &self.warps[i])
    }

    /// Sets what the timer registers (`%clock`, `%clock64`, `%globaltimer`) read in the
    /// instructions stepped from now on: the timing model's cycle of their issue
    /// ([`CtaEnv::clock`]). The interpreter and compiled code read it alike.
    pub fn set_clock(&mut self, cycle: u64) {
        self.env.clock = Some(cycle);
    }

    /// Executes warp `i`'s next instruction, describing it in `out`.
    pub fn step(&mut self, i: usize, out: &mut Executed) -> Result<(), Box<Fault>> {
        self.execute(i, out)
    }

    /// [`CtaStepper::step`], holding the instruction's global-memory stores back instead of
    /// making them: they are appended to `held` in program order, each checked (a store that
    /// would fault faults now), for the caller to make later ([`HeldStore`]). Atomics are made
    /// as usual. The timing model makes a cycle's stores when the cycle commits.
    pub fn step_holding_stores(
        &mut self,
        i: usize,
        out: &mut Executed,
        held: &mut Vec<HeldStore>,
    ) -> Result<(), Box<Fault>> {
        self.env.held_stores = Some(std::mem::take(held));
        let result = self.step(i, out);
        *held = self.env.held_stores.take().unwrap_or_default();
        result
    }

    /// [`CtaStepper::step`]. (Compiled code makes its global stores through the environment,
    /// so they are held back as the interpreter's are.)
    fn execute(&mut self, i: usize, out: &mut Executed) -> Result<(), Box<Fault>> {
        let env = &mut self.env;
        let w = &mut self.warps[i];
        if w.executed >= self.budget {
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
        out.live = w.live();
        out.memory = memory_targets(env, w, inst, out.exec, &mut out.targets);
        out.frame = FrameBase::of(env.program, w);
        out.sleep_ns = sleep_ns(env, w, inst, out.exec);
        record_reads(code.gprs.srcs(top.pc), &w.phys, out);
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
            record_writes(code.gprs.dsts(top.pc), &frame.regs, &mut w.phys, out);
        }
        out.exited = w.state == WarpState::Done;
        let mut event = w.state != WarpState::Ready;
        // An exit leaves fewer threads for the cluster barrier's phase to wait for.
        let exits = w.live() != out.live && self.cluster.open();
        // Warps waiting before a cluster barrier step, which may release them itself.
        let mut waiting_before = None;
        match outcome {
            Step::Continue => {}
            Step::Barrier(a) => {
                event = true;
                arrive(&mut self.barriers[a.id as usize], i, w, a);
            }
            Step::Cluster(c) => {
                event = true;
                waiting_before = Some(self.waiting_mask());
                if let Err((kind, lane)) = self.cluster.step(&mut self.warps, i, c) {
                    return Err(Box::new(fault(&self.env, &self.warps[i], kind, Some(lane))));
                }
            }
        }
        if event || exits {
            let waiting: u64 = waiting_before.unwrap_or_else(|| self.waiting_mask());
            self.cluster.complete_if_done(&mut self.warps);
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
                return Err(Box::new(deadlock(
                    &self.env,
                    &self.warps,
                    &self.barriers,
                    &self.cluster,
                )));
            }
        }
        out.next = self.next(i).map(|(f, pc, _)| (f, pc));
        out.next_frame = match inst.op {
            Op::Call { .. } | Op::Ret { .. } => FrameBase::of(self.env.program, &self.warps[i]),
            _ => out.frame,
        };
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

/// Records the 32-bit physical registers read by the source operands `srcs` of an
/// instruction, with their classes before it executes, into `out.reads` (which it replaces).
fn record_reads(srcs: &[GprOperand], phys: &[LaneWidths], out: &mut Executed) {
    out.reads.clear();
    for op in srcs {
        for word in 0..op.count {
            let reg = out.frame.gpr + op.first + word;
            let repeat = out.reads.iter().any(|r| r.reg == reg);
            let (class_all, class_active) = held_classes(out.exec, phys_lanes_ro(phys, reg));
            out.reads.push(RegRead {
                reg,
                class_all,
                class_active,
                repeat,
            });
        }
    }
}

/// Appends the width classes of the 32-bit physical registers written by the destination
/// operands `dsts` of an instruction (in the lanes that executed it), storing the new values'
/// widths in the shadow register file `phys`. `regs`: the registers of the frame it ran in.
fn record_writes(
    dsts: &[GprOperand],
    regs: &[u64],
    phys: &mut Vec<LaneWidths>,
    out: &mut Executed,
) {
    for op in dsts {
        write_widths(op, regs, phys, out.frame.gpr, out.exec, |write| {
            out.writes.push(write)
        });
    }
}

/// Stores the lanes in `exec` of register operand `op`, just written in a frame with
/// registers `regs` whose window starts at `base`, into the shadow register file `phys`,
/// passing each of its 32-bit physical registers to `f` with its new classes.
fn write_widths(
    op: &GprOperand,
    regs: &[u64],
    phys: &mut Vec<LaneWidths>,
    base: u32,
    exec: u32,
    mut f: impl FnMut(RegWrite),
) {
    let lanes = op.lanes(regs);
    for word in 0..op.count {
        let reg = base + op.first + word;
        let held = phys_lanes(phys, reg);
        store(lane_widths(lanes, word, op.bits), exec, held);
        // The executing lanes now hold the new value.
        let (class_all, class_active) = held_classes(exec, *held);
        f(RegWrite {
            reg,
            class_all,
            class_active,
        });
    }
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
    let Some(op) = GprOperand::of(&code.phys, &code.reg_types, dst) else {
        return;
    };
    write_widths(&op, &frame.regs, &mut w.phys, base.gpr, lanes, |write| {
        out.released_writes.push((index as u32, write))
    });
}
