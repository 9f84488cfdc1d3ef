//! One CTA executed one warp instruction at a time, under the control of a timing model.
//!
//! The timing model decides *when* a warp's next instruction issues; [`CtaStepper::step`] then
//! executes it (the functional result is the same as in functional-only mode) and reports what
//! the timing model needs: the active and executing lanes, where each lane accesses memory, the
//! width class of every 32-bit physical register written, and which warps a barrier released.
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
use crate::warp::{WARP_SIZE, Warp, WarpState};
use isa::{FuncId, Op, Operand, PhysReg};

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

/// A 32-bit physical register written by an instruction, with the width class of the new
/// value over all 32 lanes (what register-file hardware stores) and over the lanes that
/// executed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegWrite {
    pub reg: u32,
    pub class_all: u8,
    pub class_active: u8,
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
    /// 32-bit physical registers written.
    pub writes: Vec<RegWrite>,
    /// Warps (bit per warp of the CTA) that a barrier released as a result.
    pub released: u64,
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
            writes: Vec::new(),
            released: 0,
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
        out.writes.clear();
        out.released = 0;
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
        // (calls push and returns pop frames, but neither writes registers).
        if !matches!(
            inst.op,
            Op::Call { .. } | Op::Ret { .. } | Op::Exit | Op::Bar { .. }
        ) && w.frame().func == func
        {
            record_writes(code, &w.frame().regs, inst, out);
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
                try_release(&self.env, &mut self.barriers, id, &mut self.warps);
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

/// Appends the width classes of the 32-bit physical registers `inst` wrote.
fn record_writes(code: &crate::program::Code, regs: &[u64], inst: &isa::Inst, out: &mut Executed) {
    let mut each = |op: &Operand| {
        let Operand::Reg(v) = op else { return };
        let Some(PhysReg::Gpr { first, count }) = code.phys.get(v.index()).copied().flatten()
        else {
            return;
        };
        let lanes = &regs[v.index() * WARP_SIZE..(v.index() + 1) * WARP_SIZE];
        for half in 0..count.min(2) {
            let (mut all, mut active) = (0u32, 0u32);
            for (l, &value) in lanes.iter().enumerate() {
                let m = magnitude((value >> (32 * half)) as u32);
                all |= m;
                // Branch-free: the lane's magnitude counts when its bit of `exec` is set.
                active |= m & 0u32.wrapping_sub((out.exec >> l) & 1);
            }
            out.writes.push(RegWrite {
                reg: first + half,
                class_all: class_of_magnitude(all),
                class_active: class_of_magnitude(active),
            });
        }
    };
    for d in &inst.dsts {
        match d {
            Operand::Vector(elems) => elems.iter().for_each(&mut each),
            d => each(d),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::width_class;

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
}
