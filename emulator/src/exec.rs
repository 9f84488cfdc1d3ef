//! Executing one warp instruction: the interpreter, the executable specification of every
//! instruction's effect on registers, memory and control flow.
//!
//! Scalar arithmetic is delegated lane by lane to [`crate::alu`]; this module handles what needs
//! the warp or the memory: operand fetch (registers, immediates, special registers, variable
//! addresses), loads, stores, atomics, control flow through the SIMT stack, calls, barriers and
//! warp-wide operations.

mod cross_lane;
mod mbarrier;
mod texture;
mod wmma;

use crate::alu;
use crate::error::FaultKind;
use crate::memory::{GenericTarget, MemFault};
use crate::program::{Code, KernelLayout, Location, Program};
use crate::warp::{Frame, WARP_SIZE, Warp, WarpState, fit_to_register, truncate};
use isa::{
    AddrBase, Address, BarRedOp, BarrierKind, FuncKind, ImplicitCluster, Inst, Op, Operand,
    SpecialReg, StateSpace, Type, VReg,
};

/// The most nested calls a thread may make (runaway recursion is reported past it).
pub const MAX_CALL_DEPTH: usize = 1024;

/// Everything a warp of one CTA can see besides its own state.
pub struct CtaEnv<'a> {
    pub program: &'a Program,
    pub kernel: isa::FuncId,
    pub layout: &'a KernelLayout,
    pub mem: &'a crate::memory::GlobalMemory,
    pub params: &'a [u8],
    pub shared: Vec<u8>,
    pub dynamic_shared: u64,
    pub cta: [u32; 3],
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub warps_per_cta: u32,
    /// Global-memory stores held back instead of made, in program order (`None`: made at
    /// once): the timing model holds a cycle's stores until the cycle commits
    /// ([`crate::stepper::CtaStepper::step_holding_stores`]). Atomics are always made.
    pub held_stores: Option<Vec<HeldStore>>,
    /// What `%clock`, `%clock64` and `%globaltimer` read: `None` in functional mode (each warp's
    /// own executed-instruction count, deterministic and monotonic per warp); under a timing
    /// model, the SM cycle at which the instruction issues, set before each step
    /// ([`crate::stepper::CtaStepper::set_clock`]): GPGPU-Sim executes an instruction at issue
    /// and its `%clock` reads the current cycle (`shader_core_ctx::issue_warp` calls
    /// `func_exec_inst`; `ptx_thread_info::get_builtin` returns `gpu_sim_cycle +
    /// gpu_tot_sim_cycle`).
    pub clock: Option<u64>,
}

/// A global-memory store held back ([`CtaEnv::held_stores`]): the low `size` bytes of `value`
/// at `addr`, already checked to be a valid store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeldStore {
    pub addr: u64,
    pub size: u32,
    pub value: u64,
}

/// A warp's arrival at a CTA barrier.
#[derive(Clone, Copy, Debug)]
pub struct Arrival {
    pub id: u32,
    /// Expected thread count, if the instruction names one.
    pub count: Option<u32>,
    /// Threads arriving (the lanes executing the barrier).
    pub threads: u32,
    /// `bar.arrive` does not wait.
    pub wait: bool,
    /// For `bar.red`: the operation, the lanes whose predicate is true, and where the result goes.
    pub red: Option<(BarRedOp, u32, VReg)>,
    /// The lanes executing the barrier (receive the reduction result).
    pub lanes: u32,
    /// PC of the barrier instruction.
    pub pc: u32,
}

/// A warp's `barrier.cluster.arrive` or `barrier.cluster.wait` (the CTA's cluster barrier,
/// [`crate::cta::ClusterBarrier`]).
#[derive(Clone, Copy, Debug)]
pub struct ClusterStep {
    /// `barrier.cluster.wait` (else `barrier.cluster.arrive`).
    pub wait: bool,
    /// The lanes executing it.
    pub lanes: u32,
    /// PC of the instruction.
    pub pc: u32,
}

/// What happened to the warp.
pub enum Step {
    Continue,
    Barrier(Arrival),
    Cluster(ClusterStep),
}

/// Resolved memory target of one lane: a device address or an offset in the CTA's shared
/// memory, the lane's local memory, or the kernel-parameter buffer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Target {
    #[default]
    None,
    Global(u64),
    Shared(u64),
    Local(u64),
    Param(u64),
}

fn lanes(mask: u32) -> impl Iterator<Item = usize> {
    (0..WARP_SIZE).filter(move |l| mask & (1 << l) != 0)
}

/// How long the warp sleeps at `inst` when it is a `nanosleep` run by the lanes of `exec`: the
/// largest requested duration, in nanoseconds, capped at the manual's 1 ms; 0 otherwise.
pub(crate) fn sleep_ns(env: &CtaEnv, w: &Warp, inst: &Inst, exec: u32) -> u32 {
    if inst.op != Op::Nanosleep {
        return 0;
    }
    lanes(exec)
        .map(|l| env.read(w, &inst.srcs[0], l).min(1_000_000) as u32)
        .max()
        .unwrap_or(0)
}

fn first_lane(mask: u32) -> usize {
    mask.trailing_zeros().min(31) as usize
}

impl CtaEnv<'_> {
    fn code(&self, w: &Warp) -> &Code {
        &self.program.code[w.frame().func.index()]
    }

    /// What the timer registers read for warp `w` now (see [`CtaEnv::clock`]).
    fn clock_value(&self, w: &Warp) -> u64 {
        self.clock.unwrap_or(w.executed)
    }

    /// The value of special register `s` in one lane.
    pub fn special_value(&self, w: &Warp, lane: usize, s: SpecialReg) -> u64 {
        let tid = [
            w.tid[lane],
            w.tid[WARP_SIZE + lane],
            w.tid[2 * WARP_SIZE + lane],
        ];
        let dim = |d: isa::Dim| d.index();
        let lane_bit = 1u64 << lane;
        u64::from(match s {
            SpecialReg::Tid(d) => tid[dim(d)],
            SpecialReg::Ntid(d) => self.block[dim(d)],
            SpecialReg::Ctaid(d) => self.cta[dim(d)],
            SpecialReg::Nctaid(d) => self.grid[dim(d)],
            SpecialReg::LaneId => lane as u32,
            SpecialReg::WarpId => w.index,
            SpecialReg::NWarpId => self.warps_per_cta,
            SpecialReg::SmId | SpecialReg::GridId => 0,
            SpecialReg::NSmId => 1,
            // The timing model's cycle, or the warp's own instruction count (`CtaEnv::clock`).
            // `%globaltimer` counts the same ticks, not nanoseconds.
            SpecialReg::Clock | SpecialReg::GlobalTimerLo => self.clock_value(w) as u32,
            SpecialReg::ClockHi | SpecialReg::GlobalTimerHi => (self.clock_value(w) >> 32) as u32,
            SpecialReg::Clock64 | SpecialReg::GlobalTimer => return self.clock_value(w),
            SpecialReg::LanemaskEq => lane_bit as u32,
            SpecialReg::LanemaskLt => (lane_bit - 1) as u32,
            SpecialReg::LanemaskLe => ((lane_bit << 1) - 1) as u32,
            SpecialReg::LanemaskGt => !((lane_bit << 1) - 1) as u32,
            SpecialReg::LanemaskGe => !(lane_bit - 1) as u32,
            SpecialReg::DynamicSmemSize => self.dynamic_shared as u32,
            SpecialReg::TotalSmemSize => (self.layout.static_shared + self.dynamic_shared) as u32,
            c @ (SpecialReg::ClusterId(_)
            | SpecialReg::NClusterId(_)
            | SpecialReg::ClusterCtaid(_)
            | SpecialReg::ClusterNctaid(_)
            | SpecialReg::ClusterCtarank
            | SpecialReg::ClusterNctarank
            | SpecialReg::IsExplicitCluster) => match c.implicit_cluster() {
                Some(ImplicitCluster::Register(r)) => return self.special_value(w, lane, r),
                Some(ImplicitCluster::Constant(k)) => k,
                None => unreachable!("`{c}` is a cluster register"),
            },
        })
    }

    /// The value a variable's name stands for in an instruction (`mov.u64 %rd, sym;`).
    fn symbol_value(&self, w: &Warp, loc: Location) -> u64 {
        match loc {
            Location::Global(a) => a,
            Location::Shared(o) | Location::KernelParam(o) => o,
            Location::Frame(o) => w.frame().local_base + o,
        }
    }

    fn location(&self, w: &Warp, sym: isa::SymbolRef) -> Location {
        self.program.location(self.layout, w.frame().func, sym)
    }

    /// The value of a source operand in one lane.
    fn read(&self, w: &Warp, op: &Operand, lane: usize) -> u64 {
        match op {
            Operand::Reg(r) => w.frame().regs[r.index() * WARP_SIZE + lane],
            Operand::NotPred(r) => (w.frame().regs[r.index() * WARP_SIZE + lane] & 1) ^ 1,
            Operand::Imm(v) => *v,
            Operand::Special(s) => self.special_value(w, lane, *s),
            Operand::SymbolAddr { sym, offset } => self
                .symbol_value(w, self.location(w, *sym))
                .wrapping_add(*offset as u64),
            Operand::FuncAddr(f) => u64::from(f.0),
            Operand::Address(_) | Operand::Vector(_) | Operand::Sink => 0,
        }
    }

    /// Where a memory operand points in one lane. The address (or offset) is `base + offset`
    /// at the base's width ([`Address::sum`]: a 32-bit register's sum wraps modulo 2^32), then
    /// modulo the module's address size ([`Program::address_mask`]), before it is classified.
    fn target(
        &self,
        w: &Warp,
        space: StateSpace,
        addr: &Address,
        lane: usize,
    ) -> Result<Target, FaultKind> {
        let mask = self.program.address_mask();
        if let AddrBase::Symbol(sym) = addr.base {
            return Ok(match self.location(w, sym) {
                Location::Global(a) => Target::Global(addr.sum(a) & mask),
                Location::Shared(o) => Target::Shared(addr.sum(o) & mask),
                Location::Frame(o) => Target::Local(addr.sum(w.frame().local_base + o) & mask),
                Location::KernelParam(o) => Target::Param(addr.sum(o) & mask),
            });
        }
        let base = match addr.base {
            AddrBase::Reg(r) => w.frame().regs[r.index() * WARP_SIZE + lane],
            _ => 0,
        };
        let a = addr.sum(base) & mask;
        Ok(match space {
            StateSpace::Global | StateSpace::Const => Target::Global(a),
            StateSpace::Shared | StateSpace::SharedCluster => Target::Shared(a),
            StateSpace::Local => Target::Local(a),
            StateSpace::Param if self.code(w).kind == FuncKind::Entry => Target::Param(a),
            StateSpace::Param => Target::Local(a),
            StateSpace::Generic => match self.mem.map().classify(a) {
                GenericTarget::Shared(o) => Target::Shared(o),
                GenericTarget::Local(o) => Target::Local(o),
                GenericTarget::Global(g) => Target::Global(g),
            },
            StateSpace::Reg => {
                return Err(FaultKind::Unsupported {
                    what: "memory access to `.reg`".into(),
                });
            }
        })
    }

    fn load(&self, w: &Warp, t: Target, lane: usize, size: u32) -> Result<u64, FaultKind> {
        match t {
            Target::Global(a) => self.mem.load(a, size).map_err(global_fault),
            Target::Shared(o) => read_bytes(&self.shared, o, size, "shared"),
            Target::Local(o) => read_bytes(&w.local[lane], o, size, "local"),
            Target::Param(o) => read_bytes(self.params, o, size, "param"),
            Target::None => unreachable!("a resolved target"),
        }
    }

    /// Stores the low `size` bytes of `value` at global address `addr`, or holds the store
    /// back ([`CtaEnv::held_stores`]) once checked.
    pub(crate) fn store_global(
        &mut self,
        addr: u64,
        size: u32,
        value: u64,
    ) -> Result<(), MemFault> {
        match &mut self.held_stores {
            None => self.mem.store(addr, size, value),
            Some(held) => {
                self.mem.check_store(addr, size)?;
                held.push(HeldStore { addr, size, value });
                Ok(())
            }
        }
    }

    fn store(
        &mut self,
        w: &mut Warp,
        t: Target,
        lane: usize,
        size: u32,
        value: u64,
    ) -> Result<(), FaultKind> {
        match t {
            Target::Global(a) => self.store_global(a, size, value).map_err(global_fault),
            Target::Shared(o) => write_bytes(&mut self.shared, o, size, value, "shared"),
            Target::Local(o) => write_bytes(&mut w.local[lane], o, size, value, "local"),
            Target::Param(_) => Err(FaultKind::Unsupported {
                what: "stores to kernel parameters".into(),
            }),
            Target::None => unreachable!("a resolved target"),
        }
    }
}

pub(crate) fn global_fault(e: MemFault) -> FaultKind {
    match e {
        MemFault::Illegal { address, detail } => FaultKind::IllegalAddress {
            space: "global",
            address,
            detail,
        },
        MemFault::Misaligned(address) => FaultKind::MisalignedAddress {
            space: "global",
            address,
        },
    }
}

/// An access of `size` bytes at offset `off` outside a `len`-byte shared or local window.
pub(crate) fn window_fault(space: &'static str, off: u64, size: u32, len: usize) -> FaultKind {
    let window = match space {
        "shared" => "the CTA's",
        "local" => "the thread's",
        _ => "the kernel's",
    };
    FaultKind::IllegalAddress {
        space,
        address: off,
        detail: format!("{size}-byte access at offset {off} of {window} {len}-byte {space} space"),
    }
}

fn read_bytes(buf: &[u8], off: u64, size: u32, space: &'static str) -> Result<u64, FaultKind> {
    if !off.is_multiple_of(u64::from(size)) {
        return Err(FaultKind::MisalignedAddress {
            space,
            address: off,
        });
    }
    let end = off
        .checked_add(u64::from(size))
        .filter(|e| *e <= buf.len() as u64);
    let Some(end) = end else {
        return Err(window_fault(space, off, size, buf.len()));
    };
    let mut b = [0u8; 8];
    b[..size as usize].copy_from_slice(&buf[off as usize..end as usize]);
    Ok(u64::from_le_bytes(b))
}

fn write_bytes(
    buf: &mut [u8],
    off: u64,
    size: u32,
    value: u64,
    space: &'static str,
) -> Result<(), FaultKind> {
    if !off.is_multiple_of(u64::from(size)) {
        return Err(FaultKind::MisalignedAddress {
            space,
            address: off,
        });
    }
    let end = off
        .checked_add(u64::from(size))
        .filter(|e| *e <= buf.len() as u64);
    let Some(end) = end else {
        return Err(window_fault(space, off, size, buf.len()));
    };
    buf[off as usize..end as usize].copy_from_slice(&value.to_le_bytes()[..size as usize]);
    Ok(())
}

fn reg_index(r: VReg, lane: usize) -> usize {
    r.index() * WARP_SIZE + lane
}

/// Writes `value` (of type `ty`) into destination `dst` of one lane.
fn write(frame: &mut Frame, code: &Code, dst: &Operand, lane: usize, value: u64, ty: Type) {
    if let Operand::Reg(r) = dst {
        frame.regs[reg_index(*r, lane)] = fit_to_register(value, ty, code.reg_types[r.index()]);
    }
}

/// The lanes of `mask` whose predicate register `p` is true.
fn pred_mask(frame: &Frame, p: VReg, mask: u32) -> u32 {
    lanes(mask)
        .filter(|&l| frame.regs[reg_index(p, l)] & 1 != 0)
        .fold(0, |m, l| m | (1 << l))
}

/// Executes the instruction at the warp's PC. Returns the number of lanes that executed it
/// through `thread_insts`.
pub fn step(
    env: &mut CtaEnv,
    w: &mut Warp,
    thread_insts: &mut u64,
) -> Result<Step, (FaultKind, u32)> {
    let program = env.program;
    let frame = w.frame();
    let code = &program.code[frame.func.index()];
    let top = *frame.simt.top().expect("a ready warp has a SIMT entry");
    let pc = top.pc;
    let inst = &code.insts[pc as usize];
    let exec = guard_mask(frame, inst, top.mask);
    w.executed += 1;
    // Thread instructions count every active lane, predicated off or not (GPGPU-Sim's
    // `gpu_sim_insn` convention).
    *thread_insts += u64::from(top.mask.count_ones());
    let next = pc + 1;
    let outcome = match &inst.op {
        Op::Bra { .. } => {
            let (target, rpc) = (code.target[pc as usize], code.reconverge[pc as usize]);
            w.frame_mut().simt.branch(exec, target, next, rpc);
            Step::Continue
        }
        Op::Exit => {
            exit_lanes(w, exec, next);
            Step::Continue
        }
        Op::Ret { .. } if w.frames.len() == 1 => {
            exit_lanes(w, exec, next);
            Step::Continue
        }
        Op::Ret { .. } => {
            w.frame_mut().simt.goto(next);
            w.frame_mut().simt.remove_lanes(exec);
            Step::Continue
        }
        Op::Trap if exec != 0 => return Err((FaultKind::Trap, first_lane(exec) as u32)),
        Op::Unsupported { text } if exec != 0 => {
            return Err((
                FaultKind::Unsupported { what: text.clone() },
                first_lane(exec) as u32,
            ));
        }
        Op::Call { callee, args, .. } => {
            if exec == 0 {
                w.frame_mut().simt.goto(next);
            } else {
                let (target, lanes) = match callee {
                    isa::Callee::Direct(f) => (*f, exec),
                    isa::Callee::Indirect => indirect_targets(env, w, inst, exec, next)?,
                };
                call(env, w, target, args, lanes, pc, next).map_err(at(first_lane(lanes)))?;
            }
            Step::Continue
        }
        Op::Bar { kind, .. } if kind.is_cluster() => {
            w.frame_mut().simt.goto(next);
            if exec == 0 {
                Step::Continue
            } else {
                Step::Cluster(ClusterStep {
                    wait: *kind == BarrierKind::ClusterWait,
                    lanes: exec,
                    pc,
                })
            }
        }
        Op::Bar { kind, .. } => {
            w.frame_mut().simt.goto(next);
            barrier(env, w, inst, *kind, exec, pc)
        }
        _ => {
            execute(env, w, inst, exec)?;
            w.frame_mut().simt.goto(next);
            Step::Continue
        }
    };
    finish_frames(env, w);
    Ok(outcome)
}

/// Removes exited lanes everywhere; a guarded `exit` lets the other lanes continue.
fn exit_lanes(w: &mut Warp, lanes: u32, next: u32) {
    w.frame_mut().simt.goto(next);
    w.exited |= lanes;
    for f in &mut w.frames {
        f.simt.remove_lanes(lanes);
    }
}

/// Returns from every finished callee frame, and marks the warp done when the kernel's is.
fn finish_frames(env: &CtaEnv, w: &mut Warp) {
    while w.frame().simt.is_empty() {
        if w.frames.len() == 1 {
            w.state = WarpState::Done;
            return;
        }
        let callee = w.frames.pop().expect("more than one frame");
        w.absorb_stats(&callee.simt.stats);
        let caller_code = &env.program.code[w.frame().func.index()];
        let Op::Call { rets, .. } = &caller_code.insts[callee.call_pc as usize].op else {
            unreachable!("a callee frame was entered through a call")
        };
        let callee_code = &env.program.code[callee.func.index()];
        let returned = callee.entry_mask & !w.exited;
        for (i, sym) in rets.iter().enumerate() {
            let Location::Frame(dst) = env.program.location(env.layout, w.frame().func, *sym)
            else {
                continue;
            };
            let Location::Frame(src) = callee_code.ret_locs[i] else {
                continue;
            };
            let size = env.program.module.function(callee.func).rets[i].size_bytes() as usize;
            let (dst, src) = (
                (w.frame().local_base + dst) as usize,
                (callee.local_base + src) as usize,
            );
            for l in lanes(returned) {
                w.local[l].copy_within(src..src + size, dst);
            }
        }
    }
}

/// The function an indirect call calls first, and its lanes: the lanes of `exec` whose target
/// is the first lane's. Lanes with other targets wait on the SIMT stack, each target's lanes
/// in an entry at the call (lowest lane first), all of them reconverging after it at `next`:
/// the call runs once per distinct target, as NVIDIA GPUs serialise a divergent indirect
/// branch. A target that is not a device function whose parameters and results have the
/// sizes of the call's (its `.callprototype`) is an error naming it.
fn indirect_targets(
    env: &CtaEnv,
    w: &mut Warp,
    inst: &Inst,
    exec: u32,
    next: u32,
) -> Result<(isa::FuncId, u32), (FaultKind, u32)> {
    let Op::Call { args, rets, .. } = &inst.op else {
        unreachable!("an indirect call")
    };
    let program = env.program;
    let module = &program.module;
    let caller = module.function(w.frame().func);
    let size = |s: &isa::SymbolRef| match *s {
        isa::SymbolRef::Local(l) => caller.locals[l.index()].size_bytes(),
        isa::SymbolRef::Global(g) => module.globals[g.index()].size_bytes(),
        isa::SymbolRef::Param(i) => caller.params[i as usize].size_bytes(),
        isa::SymbolRef::Ret(i) => caller.rets[i as usize].size_bytes(),
    };
    let mut groups: Vec<(isa::FuncId, u32)> = Vec::new();
    for l in lanes(exec) {
        let value = env.read(w, &inst.srcs[0], l);
        let bad = |detail: String| (FaultKind::InvalidOperand { detail }, l as u32);
        let f = usize::try_from(value)
            .ok()
            .filter(|&i| i < module.functions.len())
            .map(|i| isa::FuncId(i as u32))
            .filter(|&f| module.function(f).kind == FuncKind::Func)
            .ok_or_else(|| {
                bad(format!(
                    "indirect call through {value:#x}, which is no device function's address"
                ))
            })?;
        let callee = module.function(f);
        let fits = |decls: &[isa::Variable], slots: &[isa::SymbolRef]| {
            decls.len() == slots.len()
                && decls
                    .iter()
                    .zip(slots)
                    .all(|(d, s)| d.size_bytes() == size(s))
        };
        if !fits(&callee.params, args) || !fits(&callee.rets, rets) {
            return Err(bad(format!(
                "indirect call to `{}`, whose parameters or results differ from the call's \
                 prototype",
                callee.name
            )));
        }
        match groups.iter_mut().find(|(g, _)| *g == f) {
            Some((_, mask)) => *mask |= 1 << l,
            None => groups.push((f, 1 << l)),
        }
    }
    let masks: Vec<u32> = groups.iter().map(|(_, m)| *m).collect();
    w.frame_mut().simt.serialize(&masks, next);
    Ok(groups[0])
}

/// Calls `callee` for the lanes of `exec` (the call at `pc`): pushes its frame with the
/// arguments copied in; the caller resumes at `next` when it returns.
fn call(
    env: &CtaEnv,
    w: &mut Warp,
    callee: isa::FuncId,
    args: &[isa::SymbolRef],
    exec: u32,
    pc: u32,
    next: u32,
) -> Result<(), FaultKind> {
    // Every check comes before the caller moves past the call, so a fault names the call.
    if w.frames.len() >= MAX_CALL_DEPTH {
        return Err(FaultKind::CallDepthExceeded {
            limit: MAX_CALL_DEPTH,
        });
    }
    let program = env.program;
    let callee_code = &program.code[callee.index()];
    if program.module.function(callee).is_declaration() {
        return Err(FaultKind::Unsupported {
            what: format!("call to `{}`, which has no body", callee_code.name),
        });
    }
    w.frame_mut().simt.goto(next);
    let caller = w.frame();
    let base = caller.local_base + program.code[caller.func.index()].frame_size;
    let end = (base + callee_code.frame_size) as usize;
    for l in lanes(exec) {
        w.grow_local(l, end);
    }
    for (i, sym) in args.iter().enumerate() {
        let Location::Frame(src) = program.location(env.layout, w.frame().func, *sym) else {
            continue;
        };
        let Location::Frame(dst) = callee_code.param_locs[i] else {
            continue;
        };
        let size = program.module.function(callee).params[i].size_bytes() as usize;
        let (src, dst) = ((w.frame().local_base + src) as usize, (base + dst) as usize);
        for l in lanes(exec) {
            w.local[l].copy_within(src..src + size, dst);
        }
    }
    w.frames.push(Frame {
        func: callee,
        regs: vec![0; callee_code.reg_types.len() * WARP_SIZE],
        simt: crate::simt::SimtStack::new(0, exec),
        local_base: base,
        call_pc: pc,
        entry_mask: exec,
    });
    Ok(())
}

fn barrier(env: &CtaEnv, w: &mut Warp, inst: &Inst, kind: BarrierKind, exec: u32, pc: u32) -> Step {
    if exec == 0 {
        return Step::Continue;
    }
    let lane = first_lane(exec);
    let id = (env.read(w, &inst.srcs[0], lane) & 0xf) as u32;
    let (count, pred) = match (kind, inst.srcs.len()) {
        (BarrierKind::Red(_), 3) => (
            Some(env.read(w, &inst.srcs[1], lane) as u32),
            Some(&inst.srcs[2]),
        ),
        (BarrierKind::Red(_), _) => (None, Some(&inst.srcs[1])),
        (_, 2) => (Some(env.read(w, &inst.srcs[1], lane) as u32), None),
        _ => (None, None),
    };
    let red = match (kind, pred, inst.dsts.first()) {
        (BarrierKind::Red(op), Some(p), Some(Operand::Reg(d))) => {
            let trues = lanes(exec)
                .filter(|&l| env.read(w, p, l) & 1 != 0)
                .fold(0, |m, l| m | (1 << l));
            Some((op, trues, *d))
        }
        _ => None,
    };
    Step::Barrier(Arrival {
        id,
        count,
        // Threads count one by one, so lanes that diverged around the barrier are missing
        // from the count (and a barrier that can never complete is reported as a deadlock).
        threads: exec.count_ones(),
        wait: kind != BarrierKind::Arrive,
        red,
        lanes: exec,
        pc,
    })
}

/// Writes a `bar.red` result into the lanes that took part.
pub fn write_reduction(
    env: &CtaEnv,
    w: &mut Warp,
    op: BarRedOp,
    dst: VReg,
    lanes_mask: u32,
    value: u64,
) {
    let code = &env.program.code[w.frame().func.index()];
    let ty = if op == BarRedOp::Popc {
        Type::U32
    } else {
        Type::Pred
    };
    let frame = w.frame_mut();
    for l in lanes(lanes_mask) {
        write(frame, code, &Operand::Reg(dst), l, value, ty);
    }
}

/// Type of the value an instruction writes to its destination register(s), for extension into
/// wider registers.
pub fn result_type(op: &Op) -> Option<Type> {
    match op {
        Op::Cvt { dty, .. } => Some(*dty),
        Op::Ld { ty, .. } | Op::Ldu { ty, .. } => Some(*ty),
        _ => None,
    }
}

/// Where each lane of `exec` will access memory when the load, store or atomic `inst` runs
/// (evaluated before it runs, since it may overwrite its own address register). Lanes outside
/// `exec`, and lanes whose address cannot be resolved (the instruction will fault), get
/// [`Target::None`]. Returns false for instructions that do not access memory.
pub fn memory_targets(
    env: &CtaEnv,
    w: &Warp,
    inst: &Inst,
    exec: u32,
    out: &mut [Target; WARP_SIZE],
) -> bool {
    // `cp.async`'s memory access, as the timing model sees it, is its global read.
    let (space, addr) = match &inst.op {
        Op::Ld { space, .. }
        | Op::Ldu { space, .. }
        | Op::St { space, .. }
        | Op::Atom { space, .. }
        | Op::Red { space, .. } => (*space, inst.srcs.first()),
        Op::CpAsync { .. } => (StateSpace::Global, inst.srcs.get(1)),
        Op::Mbarrier { op, space } if *op != isa::MbarrierOp::PendingCount => {
            (*space, inst.srcs.first())
        }
        // Lane 8j + r gives row r of matrix j; the other lanes' addresses are not used.
        Op::Ldmatrix { count, space, .. } | Op::Stmatrix { count, space, .. } => {
            let Some(Operand::Address(addr)) = inst.srcs.first() else {
                return false;
            };
            let used = exec & (u32::MAX >> (32 - 8 * u32::from(*count)));
            for (l, t) in out.iter_mut().enumerate() {
                *t = if used & (1 << l) != 0 {
                    env.target(w, *space, addr, l).unwrap_or(Target::None)
                } else {
                    Target::None
                };
            }
            return true;
        }
        // The first texel each lane's lookup reads; the element a surface access moves.
        Op::Tex(_) | Op::Tld4(_) | Op::Suld(_) | Op::Sust(_) | Op::Sured { .. } => {
            texture::lane_targets(env, w, inst, exec, out);
            return true;
        }
        // Each lane one segment of the matrix (`Fragment::lane_segment`).
        Op::WmmaLoad {
            frag,
            layout,
            space,
        }
        | Op::WmmaStore {
            frag,
            layout,
            space,
        } => {
            wmma::lane_targets(env, w, inst, (*frag, *layout, *space), exec, out);
            return true;
        }
        _ => return false,
    };
    let Some(Operand::Address(addr)) = addr else {
        return false;
    };
    for (l, t) in out.iter_mut().enumerate() {
        *t = if exec & (1 << l) != 0 {
            env.target(w, space, addr, l).unwrap_or(Target::None)
        } else {
            Target::None
        };
    }
    true
}

/// Data-path instructions: memory, warp-wide operations and ALU operations.
fn execute(env: &mut CtaEnv, w: &mut Warp, inst: &Inst, exec: u32) -> Result<(), (FaultKind, u32)> {
    let program = env.program;
    let code = &program.code[w.frame().func.index()];
    match &inst.op {
        Op::Ld { space, ty, vec, .. } | Op::Ldu { space, ty, vec } => {
            let (size, n) = (ty.bytes(), u32::from(*vec));
            let Operand::Address(addr) = &inst.srcs[0] else {
                unreachable!("verified load shape")
            };
            for l in lanes(exec) {
                let t = env.target(w, *space, addr, l).map_err(at(l))?;
                check_vector_alignment(t, size * n).map_err(at(l))?;
                let mut values = [0u64; 8];
                for (i, v) in values.iter_mut().enumerate().take(n as usize) {
                    *v = env
                        .load(w, offset(t, i as u32 * size), l, size)
                        .map_err(at(l))?;
                }
                let frame = w.frame_mut();
                match &inst.dsts[0] {
                    Operand::Vector(elems) => {
                        for (e, v) in elems.iter().zip(values) {
                            write(frame, code, e, l, v, *ty);
                        }
                    }
                    d => write(frame, code, d, l, values[0], *ty),
                }
            }
        }
        Op::St { space, ty, vec, .. } => {
            let (size, n) = (ty.bytes(), u32::from(*vec));
            let Operand::Address(addr) = &inst.srcs[0] else {
                unreachable!("verified store shape")
            };
            for l in lanes(exec) {
                let t = env.target(w, *space, addr, l).map_err(at(l))?;
                check_vector_alignment(t, size * n).map_err(at(l))?;
                let elems = match &inst.srcs[1] {
                    Operand::Vector(elems) => elems.as_slice(),
                    v => std::slice::from_ref(v),
                };
                let mut values = [0u64; 8];
                for (slot, e) in values.iter_mut().zip(elems) {
                    *slot = env.read(w, e, l);
                }
                for (i, &v) in values[..elems.len()].iter().enumerate() {
                    env.store(w, offset(t, i as u32 * size), l, size, v)
                        .map_err(at(l))?;
                }
            }
        }
        Op::Atom {
            space, op, ty, vec, ..
        }
        | Op::Red {
            space, op, ty, vec, ..
        } => {
            let Operand::Address(addr) = &inst.srcs[0] else {
                unreachable!("verified atomic shape")
            };
            let size = ty.bytes();
            // A vector atomic (sm_90) is one atomic operation per element.
            fn elements(o: &Operand) -> &[Operand] {
                match o {
                    Operand::Vector(v) => v,
                    other => std::slice::from_ref(other),
                }
            }
            let (bs, ds) = (elements(&inst.srcs[1]), inst.dsts.first().map(elements));
            for l in lanes(exec) {
                let c = inst.srcs.get(2).map_or(0, |c| env.read(w, c, l));
                let target = env.target(w, *space, addr, l).map_err(at(l))?;
                check_vector_alignment(target, size * u32::from(*vec)).map_err(at(l))?;
                // `atom.add.f32` flushes subnormals in global memory but not in shared memory.
                let resolved = match target {
                    Target::Global(_) => isa::StateSpace::Global,
                    _ => isa::StateSpace::Shared,
                };
                for (i, b) in bs.iter().enumerate() {
                    let b = env.read(w, b, l);
                    let update =
                        |old: u64| alu::atomic::atomic_update_in(resolved, *op, *ty, old, b, c);
                    let old = match offset(target, i as u32 * size) {
                        Target::Global(a) => env
                            .mem
                            .atomic(a, size, update)
                            .map_err(global_fault)
                            .map_err(at(l))?,
                        Target::Shared(o) => {
                            let old = read_bytes(&env.shared, o, size, "shared").map_err(at(l))?;
                            write_bytes(&mut env.shared, o, size, update(old), "shared")
                                .map_err(at(l))?;
                            old
                        }
                        _ => {
                            let what = format!(
                                "atomics outside global and shared memory (`{}`)",
                                inst_name(inst)
                            );
                            return Err((FaultKind::Unsupported { what }, l as u32));
                        }
                    };
                    if let Some(d) = ds.and_then(|d| d.get(i)) {
                        write(w.frame_mut(), code, d, l, old, *ty);
                    }
                }
            }
        }
        Op::CpAsync {
            size, ignore_src, ..
        } => cp_async(env, w, inst, exec, u32::from(*size), *ignore_src)?,
        Op::WmmaLoad {
            frag,
            layout,
            space,
        } => wmma::load(env, w, inst, exec, (*frag, *layout, *space))?,
        Op::WmmaStore {
            frag,
            layout,
            space,
        } => wmma::store(env, w, inst, exec, (*frag, *layout, *space))?,
        Op::WmmaMma { .. } | Op::Mma { .. } => wmma::mma(env, w, inst, exec)?,
        Op::Ldmatrix { .. } => wmma::ldst_matrix(env, w, inst, exec, true)?,
        Op::Movmatrix => wmma::movmatrix(env, w, inst, exec)?,
        Op::Stmatrix { .. } => wmma::ldst_matrix(env, w, inst, exec, false)?,
        Op::Tex(_)
        | Op::Tld4(_)
        | Op::Txq { .. }
        | Op::Suld(_)
        | Op::Sust(_)
        | Op::Sured { .. }
        | Op::Suq { .. } => texture::execute(env, w, inst, exec)?,
        Op::Mbarrier { op, space } => mbarrier::execute(env, w, inst, exec, (*op, *space))?,
        // A hint about caches, which only the timing model has; it cannot fault.
        Op::Prefetch { .. } => {}
        // The copies complete at issue (see `cp_async`): only the timing model has groups.
        Op::CpAsyncCommit | Op::CpAsyncWait { .. } => {}
        Op::Mov { ty } => {
            for l in lanes(exec) {
                let v = env.read(w, &inst.srcs[0], l);
                write(
                    w.frame_mut(),
                    code,
                    &inst.dsts[0],
                    l,
                    truncate(v, ty.bits()),
                    *ty,
                );
            }
        }
        Op::Pack { ty } => {
            let Operand::Vector(elems) = &inst.srcs[0] else {
                unreachable!("verified pack shape")
            };
            let bits = ty.bits() / elems.len() as u32;
            for l in lanes(exec) {
                let v = elems.iter().enumerate().fold(0u64, |acc, (i, e)| {
                    acc | truncate(env.read(w, e, l), bits) << (i as u32 * bits)
                });
                write(w.frame_mut(), code, &inst.dsts[0], l, v, *ty);
            }
        }
        Op::Unpack { ty } => {
            let Operand::Vector(elems) = &inst.dsts[0] else {
                unreachable!("verified unpack shape")
            };
            let bits = ty.bits() / elems.len() as u32;
            for l in lanes(exec) {
                let v = env.read(w, &inst.srcs[0], l);
                let frame = w.frame_mut();
                for (i, e) in elems.iter().enumerate() {
                    // An unsigned type: the part is zero-extended into its register.
                    let part = truncate(v >> (i as u32 * bits), bits);
                    write(frame, code, e, l, part, Type::B64);
                }
            }
        }
        Op::Cvta {
            space,
            to_generic,
            ty,
        } => {
            let Some(window) = env.mem.map().window(*space) else {
                let what = format!(
                    "`{}` (generic addresses of kernel parameters)",
                    inst_name(inst)
                );
                return Err((FaultKind::Unsupported { what }, first_lane(exec) as u32));
            };
            for l in lanes(exec) {
                let v = env.read(w, &inst.srcs[0], l);
                let r = if *to_generic {
                    v.wrapping_add(window)
                } else {
                    v.wrapping_sub(window)
                };
                write(
                    w.frame_mut(),
                    code,
                    &inst.dsts[0],
                    l,
                    truncate(r, ty.bits()),
                    *ty,
                );
            }
        }
        Op::Membar { .. } | Op::Fence { .. } => {
            // A warp runs its lanes in lock step and CTAs see memory in program order here, so
            // fences have nothing left to order.
        }
        // A sleep takes time, which only the timing model has (`stepper::Executed::sleep_ns`).
        Op::Nanosleep => {}
        Op::Isspacep { space } => {
            // `.const` variables live in global memory here: an address inside one is in the
            // constant window, not the global one. Kernel parameters have no generic window.
            let in_const = |a: u64| {
                program
                    .module
                    .globals
                    .iter()
                    .zip(&program.global_addrs)
                    .any(|(g, at)| {
                        g.space == StateSpace::Const
                            && at.is_some_and(|at| (at..at + g.size_bytes()).contains(&a))
                    })
            };
            for l in lanes(exec) {
                let a = env.read(w, &inst.srcs[0], l) & program.address_mask();
                let inside = match (space, env.mem.map().classify(a)) {
                    (StateSpace::Shared, GenericTarget::Shared(_)) => true,
                    (StateSpace::Local, GenericTarget::Local(_)) => true,
                    (StateSpace::Const, GenericTarget::Global(a)) => in_const(a),
                    (StateSpace::Global, GenericTarget::Global(a)) => !in_const(a),
                    _ => false,
                };
                write(
                    w.frame_mut(),
                    code,
                    &inst.dsts[0],
                    l,
                    u64::from(inside),
                    Type::Pred,
                );
            }
        }
        Op::Vote { .. }
        | Op::Shfl { .. }
        | Op::Match { .. }
        | Op::Redux { .. }
        | Op::Activemask
        | Op::BarWarpSync
        | Op::Elect => cross_lane::execute(env, w, inst, exec)?,
        op => {
            let mut vals = [0u64; 5];
            let n = inst.srcs.len().min(vals.len());
            let rtype = result_type(op);
            for l in lanes(exec) {
                for (slot, s) in vals.iter_mut().zip(&inst.srcs) {
                    *slot = env.read(w, s, l);
                }
                let mut carry = w.carry & (1 << l) != 0;
                let out = alu::eval(op, &vals[..n], &mut carry).map_err(|_| {
                    (
                        FaultKind::Unsupported {
                            what: inst_name(inst),
                        },
                        l as u32,
                    )
                })?;
                w.carry = (w.carry & !(1 << l)) | (u32::from(carry) << l);
                let frame = w.frame_mut();
                for (d, v) in inst.dsts.iter().zip(out) {
                    let ty = match d {
                        Operand::Reg(r) => rtype.unwrap_or(code.reg_types[r.index()]),
                        _ => Type::B64,
                    };
                    write(frame, code, d, l, v, ty);
                }
            }
        }
    }
    Ok(())
}

/// Attaches the lane to a fault.
fn at(lane: usize) -> impl Fn(FaultKind) -> (FaultKind, u32) {
    move |k| (k, lane as u32)
}

/// Executes a data-path instruction for the lanes of `mask` whose guard holds (used by the
/// JIT for instructions it hands back to the interpreter's code).
pub fn execute_guarded(
    env: &mut CtaEnv,
    w: &mut Warp,
    inst: &Inst,
    mask: u32,
) -> Result<(), (FaultKind, u32)> {
    let exec = guard_mask(w.frame(), inst, mask);
    execute(env, w, inst, exec)
}

/// The lanes of `mask` that execute `inst`: those whose guard predicate holds.
pub fn guard_mask(frame: &Frame, inst: &Inst, mask: u32) -> u32 {
    match inst.guard {
        None => mask,
        Some(g) => {
            let t = pred_mask(frame, g.pred, mask);
            if g.negated { mask & !t } else { t }
        }
    }
}

fn inst_name(inst: &Inst) -> String {
    inst.op.to_string()
}

fn offset(t: Target, by: u32) -> Target {
    let by = u64::from(by);
    match t {
        Target::Global(a) => Target::Global(a + by),
        Target::Shared(o) => Target::Shared(o + by),
        Target::Local(o) => Target::Local(o + by),
        Target::Param(o) => Target::Param(o + by),
        Target::None => Target::None,
    }
}

/// Vector accesses must be aligned to the whole vector's size.
/// `cp.async`, performed at issue: each lane copies `size` bytes from global to shared memory,
/// the first src-size of them read (none when ignore-src holds) and the rest zeros. Completing
/// the copy at once is one of the orders the manual allows: until a `cp.async.wait_group`
/// covers it, a thread may not rely on the destination, and the source was read after the
/// instruction issued.
fn cp_async(
    env: &mut CtaEnv,
    w: &mut Warp,
    inst: &Inst,
    exec: u32,
    size: u32,
    ignore_src: bool,
) -> Result<(), (FaultKind, u32)> {
    let (Operand::Address(dst), Operand::Address(src)) = (&inst.srcs[0], &inst.srcs[1]) else {
        unreachable!("verified cp.async shape")
    };
    for l in lanes(exec) {
        let read = match inst.srcs.get(3) {
            None => size,
            Some(p) if ignore_src => {
                if env.read(w, p, l) & 1 != 0 {
                    0
                } else {
                    size
                }
            }
            Some(n) => {
                let n = env.read(w, n, l);
                if n > u64::from(size) {
                    let detail = format!("`cp.async` src-size {n} exceeds its copy size {size}");
                    return Err((FaultKind::InvalidOperand { detail }, l as u32));
                }
                n as u32
            }
        };
        let to = env.target(w, StateSpace::Shared, dst, l).map_err(at(l))?;
        check_vector_alignment(to, size).map_err(at(l))?;
        let mut bytes = [0u64; 16];
        if read > 0 {
            let from = env.target(w, StateSpace::Global, src, l).map_err(at(l))?;
            check_vector_alignment(from, size).map_err(at(l))?;
            for (i, b) in bytes.iter_mut().enumerate().take(read as usize) {
                *b = env.load(w, offset(from, i as u32), l, 1).map_err(at(l))?;
            }
        }
        for (i, &b) in bytes.iter().enumerate().take(size as usize) {
            env.store(w, offset(to, i as u32), l, 1, b).map_err(at(l))?;
        }
    }
    Ok(())
}

fn check_vector_alignment(t: Target, bytes: u32) -> Result<(), FaultKind> {
    let (space, a) = match t {
        Target::Global(a) => ("global", a),
        Target::Shared(a) => ("shared", a),
        Target::Local(a) => ("local", a),
        Target::Param(a) => ("param", a),
        Target::None => return Ok(()),
    };
    if a.is_multiple_of(u64::from(bytes)) {
        Ok(())
    } else {
        Err(FaultKind::MisalignedAddress { space, address: a })
    }
}
