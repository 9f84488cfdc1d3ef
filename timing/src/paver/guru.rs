//! LocalityGuru (seed 002, chapter 4): which global-memory lines each CTA of a launch reads,
//! derived from the kernel's code and the launch's constants, without running it.
//!
//! The seed derives, at JIT time, each load's address as an equation in `%ctaid`, `%tid`,
//! loop counters and kernel parameters, then enumerates the equation over each CTA's threads
//! and iterations. This module does the same enumeration by evaluating, per thread, only the
//! *address slice* of the kernel: the instructions whose results flow into a global load's
//! address, a branch condition or a guard. Values come from the launch constants alone
//! (parameters, grid and block shape, thread and CTA indices, immediates, variable
//! addresses, and `.const` memory, which the host writes before the launch and no thread can
//! write); a value loaded from any other memory is *unknown*, so an address computed from one
//! (the seed's non-static `A[A[0]]`) is not analysed, exactly the seed's scope.
//!
//! Control flow follows the thread's known conditions. A branch on an unknown condition:
//! - forward: both sides are followed, one after the other, up to the branch's reconvergence
//!   point (the loads of either side *may* run); registers written on one side are restored
//!   for the other and are unknown after the reconvergence point;
//! - backward (a loop whose trip count depends on data): the thread stops there.
//!
//! Calls are skipped (their results are unknown), a thread stops after
//! [`THREAD_STEP_LIMIT`] evaluated instructions and a launch after [`LAUNCH_STEP_LIMIT`];
//! every stop is counted in the [`AnalysisReport`], so a partial analysis says so.

use emulator::launch::cta_coordinates;
use emulator::memory::GenericTarget;
use emulator::program::{Code, EXIT_PC, Location};
use emulator::{GlobalMemory, Program, alu};
use isa::inst::{AddrBase, Address, Inst, Op, Operand};
use isa::special::{ImplicitCluster, SpecialReg};
use isa::types::{StateSpace, Type};
use isa::{FuncId, VReg};
use serde::Serialize;
use std::collections::BTreeMap;

/// Most instructions evaluated for one thread before the analysis stops following it.
pub const THREAD_STEP_LIMIT: u64 = 1 << 22;

/// Most instructions evaluated for one launch (a few minutes of host time): the CTAs after
/// the one that reaches it are not analysed (they read nothing as far as the graph knows).
pub const LAUNCH_STEP_LIMIT: u64 = 1 << 33;

/// What the analysis needs of a launch: the code and its constants.
#[derive(Clone, Copy)]
pub struct LaunchShape<'a> {
    pub program: &'a Program,
    pub kernel: FuncId,
    pub params: &'a [u8],
    /// The device memory, for `.const` values (None: they are unknown).
    pub constants: Option<&'a GlobalMemory>,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub dynamic_shared: u64,
}

/// Why the analysis stopped following a thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Cut {
    /// A backward branch on a value loaded from memory: a data-dependent loop.
    DataDependentLoop,
    /// [`THREAD_STEP_LIMIT`] instructions evaluated.
    StepLimit,
}

/// What the analysis of one launch saw: how much of the kernel it could analyse.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct AnalysisReport {
    /// Global loads evaluated with a known address (per thread, per execution).
    pub static_loads: u64,
    /// Global loads whose address depends on loaded data, by PC: (PC, executions).
    pub data_dependent_loads: Vec<(u32, u64)>,
    /// Threads the analysis stopped following, by reason and PC: (reason, PC, threads).
    pub cut_threads: Vec<(Cut, u32, u64)>,
    /// Calls skipped (their callees' loads are not analysed).
    pub calls_skipped: u64,
    /// Instructions evaluated, over every thread.
    pub steps: u64,
    /// CTAs left out once [`LAUNCH_STEP_LIMIT`] was reached.
    pub unanalysed_ctas: u64,
}

/// The global-memory lines each CTA reads, as far as the analysis can tell.
#[derive(Clone, Debug, Default)]
pub struct Footprints {
    /// Per CTA (in CTA order): the distinct line numbers (address / line size) it reads,
    /// sorted.
    pub lines: Vec<Vec<u64>>,
    pub report: AnalysisReport,
}

/// Analyses the CTAs `0..ctas` of `launch`, lines being `line_bytes` long.
pub fn footprints(launch: &LaunchShape, ctas: u64, line_bytes: u64) -> Footprints {
    let code = &launch.program.code[launch.kernel.index()];
    let relevant = address_slice(code);
    let mut thread = Thread::new(launch, code, &relevant);
    let mut tally = Tally::default();
    let threads_per_cta: u32 = launch.block.iter().product();
    let mut lines = Vec::with_capacity(ctas as usize);
    for cta in 0..ctas {
        let mut cta_lines = Vec::new();
        if tally.steps > LAUNCH_STEP_LIMIT {
            tally.unanalysed += 1;
            lines.push(cta_lines);
            continue;
        }
        let ctaid = cta_coordinates(cta, launch.grid);
        for t in 0..threads_per_cta {
            // A thread reads along lines: dropping repeats as they come keeps the list short.
            let mut read = |addr: u64| {
                let line = addr / line_bytes;
                if cta_lines.last() != Some(&line) {
                    cta_lines.push(line);
                }
            };
            thread.run(ctaid, t, &mut read, &mut tally);
        }
        cta_lines.sort_unstable();
        cta_lines.dedup();
        lines.push(cta_lines);
    }
    Footprints {
        lines,
        report: tally.report(),
    }
}

/// The instructions of the address slice: for each PC, whether evaluating it can matter to a
/// global load's address, a branch or a guard (registers are followed by name, across the
/// whole function: a conservative slice).
pub fn address_slice(code: &Code) -> Vec<bool> {
    let mut relevant_regs = vec![false; code.reg_types.len()];
    let mark = |r: VReg, regs: &mut Vec<bool>| -> bool {
        let new = !regs[r.index()];
        regs[r.index()] = true;
        new
    };
    for inst in &code.insts {
        if is_global_load(inst)
            && let Some(Operand::Address(Address {
                base: AddrBase::Reg(r),
                ..
            })) = inst.srcs.first()
        {
            mark(*r, &mut relevant_regs);
        }
        if matches!(inst.op, Op::Bra { .. })
            && let Some(g) = inst.guard
        {
            mark(g.pred, &mut relevant_regs);
        }
    }
    // To a fixed point: an instruction writing a relevant register makes its sources and its
    // guard relevant.
    let mut changed = true;
    while changed {
        changed = false;
        for inst in &code.insts {
            if !writes_any(inst, &relevant_regs) {
                continue;
            }
            for r in inst.uses() {
                changed |= mark(r, &mut relevant_regs);
            }
        }
    }
    code.insts
        .iter()
        .map(|inst| {
            inst.is_terminator()
                || matches!(inst.op, Op::Call { .. })
                || is_global_load(inst)
                || writes_any(inst, &relevant_regs)
        })
        .collect()
}

fn writes_any(inst: &Inst, regs: &[bool]) -> bool {
    inst.dsts
        .iter()
        .flat_map(Operand::regs)
        .any(|r| regs[r.index()])
}

/// A load that may read global memory (generic addresses included: they are resolved per
/// thread).
pub fn is_global_load(inst: &Inst) -> bool {
    matches!(
        inst.op,
        Op::Ld {
            space: StateSpace::Global | StateSpace::Generic,
            ..
        } | Op::Ldu {
            space: StateSpace::Global | StateSpace::Generic,
            ..
        }
    )
}

/// What a global load's address is computed from: the leaves of its register dependences,
/// followed back through every instruction writing each register (by name, as the slice).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AddressSources {
    /// Special registers (`%ctaid.x`, `%tid.x`, ...).
    pub specials: Vec<SpecialReg>,
    /// Kernel parameters, by index.
    pub params: Vec<u32>,
    /// Whether `.const` memory is read on the way.
    pub constants: bool,
    /// Whether a register is updated from itself (a loop counter).
    pub loop_carried: bool,
    /// Instructions whose results depend on data (loads of other memory, atomics, warp-wide
    /// operations, calls), by PC: an address from one of them is not analysed.
    pub data: Vec<u32>,
}

impl AddressSources {
    /// Whether LocalityGuru can evaluate the address from launch constants.
    pub fn is_static(&self) -> bool {
        self.data.is_empty()
    }
}

/// The sources of the address of the load at `pc` of `code`; None when the instruction is not
/// a global load. A variable's address (no register) has no source: it is a constant.
pub fn address_sources(code: &Code, pc: u32) -> Option<AddressSources> {
    let inst = &code.insts[pc as usize];
    if !is_global_load(inst) {
        return None;
    }
    let mut out = AddressSources::default();
    let Some(Operand::Address(Address {
        base: AddrBase::Reg(base),
        ..
    })) = inst.srcs.first()
    else {
        return Some(out);
    };
    let mut defs: Vec<Vec<u32>> = vec![Vec::new(); code.reg_types.len()];
    for (i, inst) in code.insts.iter().enumerate() {
        for r in inst.dsts.iter().flat_map(Operand::regs) {
            defs[r.index()].push(i as u32);
        }
    }
    let mut seen = vec![false; code.reg_types.len()];
    let mut work = vec![*base];
    seen[base.index()] = true;
    while let Some(r) = work.pop() {
        for &d in &defs[r.index()] {
            let def = &code.insts[d as usize];
            let follows = match &def.op {
                Op::Ld {
                    space: StateSpace::Param,
                    ..
                } => {
                    if let Some(Operand::Address(Address {
                        base: AddrBase::Symbol(isa::SymbolRef::Param(i)),
                        ..
                    })) = def.srcs.first()
                    {
                        out.params.push(*i);
                    }
                    false
                }
                Op::Ld {
                    space: StateSpace::Const,
                    ..
                } => {
                    out.constants = true;
                    true
                }
                Op::Cvta { .. } => true,
                op if op.is_register_computation() => true,
                _ => {
                    out.data.push(d);
                    false
                }
            };
            if !follows {
                continue;
            }
            for src in &def.srcs {
                if let Operand::Special(s) = src {
                    out.specials.push(*s);
                }
                for u in src.regs() {
                    out.loop_carried |= u == r;
                    if !seen[u.index()] {
                        seen[u.index()] = true;
                        work.push(u);
                    }
                }
            }
        }
    }
    out.specials.sort_by_key(|s| s.to_string());
    out.specials.dedup();
    out.params.sort_unstable();
    out.params.dedup();
    out.data.sort_unstable();
    out.data.dedup();
    Some(out)
}

/// Counters accumulated over every thread.
#[derive(Default)]
struct Tally {
    static_loads: u64,
    data_dependent: BTreeMap<u32, u64>,
    cuts: BTreeMap<(Cut, u32), u64>,
    calls: u64,
    steps: u64,
    unanalysed: u64,
}

impl Tally {
    fn report(self) -> AnalysisReport {
        AnalysisReport {
            static_loads: self.static_loads,
            data_dependent_loads: self.data_dependent.into_iter().collect(),
            cut_threads: self
                .cuts
                .into_iter()
                .map(|((cut, pc), n)| (cut, pc, n))
                .collect(),
            calls_skipped: self.calls,
            steps: self.steps,
            unanalysed_ctas: self.unanalysed,
        }
    }
}

/// A divergent region being followed: a branch on an unknown condition.
struct Region {
    /// Where both sides meet again ([`EXIT_PC`]: only at the exit).
    reconverge: u32,
    /// The branch that began it.
    branch: u32,
    /// The side still to follow, once the first reaches `reconverge`.
    pending: Option<u32>,
    /// Every register written since the region began, with its value before the region:
    /// (register, value, known). Restored before the second side, made unknown after both.
    log: Vec<(u32, u64, bool)>,
}

/// One thread's evaluation state, reused from thread to thread.
struct Thread<'a> {
    launch: &'a LaunchShape<'a>,
    code: &'a Code,
    relevant: &'a [bool],
    values: Vec<u64>,
    known: Vec<bool>,
    regions: Vec<Region>,
    ctaid: [u32; 3],
    tid: [u32; 3],
    linear_tid: u32,
}

impl<'a> Thread<'a> {
    fn new(launch: &'a LaunchShape<'a>, code: &'a Code, relevant: &'a [bool]) -> Self {
        let regs = code.reg_types.len();
        Thread {
            launch,
            code,
            relevant,
            values: vec![0; regs],
            known: vec![false; regs],
            regions: Vec::new(),
            ctaid: [0; 3],
            tid: [0; 3],
            linear_tid: 0,
        }
    }

    /// Evaluates the address slice of thread `t` (linear index in its CTA) of CTA `ctaid`,
    /// reporting each global line address it may read to `read`.
    fn run(&mut self, ctaid: [u32; 3], t: u32, read: &mut impl FnMut(u64), tally: &mut Tally) {
        let [bx, by, _] = self.launch.block;
        self.ctaid = ctaid;
        self.tid = [t % bx, (t / bx) % by, t / (bx * by)];
        self.linear_tid = t;
        self.known.fill(false);
        self.regions.clear();
        let mut pc = 0u32;
        let mut steps = 0u64;
        loop {
            // Reaching a region's reconvergence point: on to its other side, or out of it.
            while let Some(top) = self.regions.last()
                && top.reconverge == pc
            {
                match top.pending {
                    Some(other) => pc = self.second_side(other),
                    None => self.leave_region(),
                }
            }
            if pc == EXIT_PC || pc as usize >= self.code.insts.len() {
                match self.end_of_path() {
                    Some(next) => {
                        pc = next;
                        continue;
                    }
                    None => break,
                }
            }
            steps += 1;
            if steps > THREAD_STEP_LIMIT {
                *tally.cuts.entry((Cut::StepLimit, pc)).or_default() += 1;
                break;
            }
            let inst = &self.code.insts[pc as usize];
            // None: the guard's value is unknown.
            let guard = match inst.guard {
                None => Some(true),
                Some(g) => self.reg(g.pred).map(|v| (v & 1 != 0) != g.negated),
            };
            match &inst.op {
                Op::Bra { .. } => {
                    let target = self.code.target[pc as usize];
                    pc = match guard {
                        Some(true) => target,
                        Some(false) => pc + 1,
                        // Backward, or back at a branch already being followed: a loop whose
                        // trip count depends on data.
                        None if target <= pc || self.regions.iter().any(|r| r.branch == pc) => {
                            *tally.cuts.entry((Cut::DataDependentLoop, pc)).or_default() += 1;
                            break;
                        }
                        None => {
                            self.regions.push(Region {
                                branch: pc,
                                reconverge: self.code.reconverge[pc as usize],
                                pending: Some(target),
                                log: Vec::new(),
                            });
                            pc + 1
                        }
                    };
                    continue;
                }
                Op::Exit | Op::Ret { .. } if guard != Some(false) => {
                    if guard == Some(true) {
                        match self.end_of_path() {
                            Some(next) => pc = next,
                            None => break,
                        }
                        continue;
                    }
                    // Exits or not, depending on data: the path after it may run.
                }
                Op::Call { .. } => tally.calls += 1,
                _ if !self.relevant[pc as usize] || guard == Some(false) => {}
                op if is_global_load(inst) => {
                    if let Some(addr) = self.global_address(inst) {
                        tally.static_loads += 1;
                        let bytes = access_bytes(op);
                        read(addr);
                        if bytes > 1 {
                            read(addr + bytes - 1);
                        }
                    } else {
                        *tally.data_dependent.entry(pc).or_default() += 1;
                    }
                    self.forget_dsts(inst);
                }
                Op::Ld {
                    space: StateSpace::Param,
                    ty,
                    vec: 1,
                    ..
                } => {
                    let v = self.param_value(inst, *ty);
                    self.write_dsts(inst, guard, v.map(|v| [v, 0]));
                }
                Op::Ld {
                    space: StateSpace::Const,
                    ty,
                    vec: 1,
                    ..
                } => {
                    let v = self.constant_value(inst, *ty);
                    self.write_dsts(inst, guard, v.map(|v| [v, 0]));
                }
                Op::Cvta {
                    space, to_generic, ..
                } => {
                    let window = self.launch.program.map().window(*space);
                    let v = self.operand(&inst.srcs[0]).zip(window).map(|(v, w)| {
                        if *to_generic {
                            [v.wrapping_add(w), 0]
                        } else {
                            [v.wrapping_sub(w), 0]
                        }
                    });
                    self.write_dsts(inst, guard, v);
                }
                op if op.is_register_computation()
                    && !matches!(op, Op::Pack { .. } | Op::Unpack { .. }) =>
                {
                    let v = self.evaluate(inst);
                    self.write_dsts(inst, guard, v);
                }
                // Memory, warp-wide and carry-chain results depend on data or on other threads.
                _ => self.forget_dsts(inst),
            }
            pc += 1;
        }
        tally.steps += steps;
    }

    /// A register's value, if known.
    fn reg(&self, r: VReg) -> Option<u64> {
        self.known[r.index()].then(|| self.values[r.index()])
    }

    fn operand(&self, op: &Operand) -> Option<u64> {
        match op {
            Operand::Reg(r) => self.reg(*r),
            Operand::NotPred(r) => self.reg(*r).map(|v| (v & 1) ^ 1),
            Operand::Imm(v) => Some(*v),
            Operand::Special(s) => self.special(*s),
            Operand::SymbolAddr { sym, offset } => match self.location(*sym) {
                Location::Global(a) => Some(a),
                Location::Shared(o) | Location::KernelParam(o) => Some(o),
                Location::Frame(_) => None,
            }
            .map(|v| v.wrapping_add(*offset as u64)),
            Operand::FuncAddr(f) => Some(u64::from(f.0)),
            Operand::Address(_) | Operand::Vector(_) | Operand::Sink => None,
        }
    }

    fn location(&self, sym: isa::SymbolRef) -> Location {
        let program = self.launch.program;
        let layout = program.layouts[self.launch.kernel.index()]
            .as_ref()
            .expect("a kernel entry has a layout");
        program.location(layout, self.launch.kernel, sym)
    }

    fn special(&self, s: SpecialReg) -> Option<u64> {
        let l = self.launch;
        let warps = l.block.iter().product::<u32>().div_ceil(32);
        Some(u64::from(match s {
            SpecialReg::Tid(d) => self.tid[d.index()],
            SpecialReg::Ntid(d) => l.block[d.index()],
            SpecialReg::Ctaid(d) => self.ctaid[d.index()],
            SpecialReg::Nctaid(d) => l.grid[d.index()],
            c @ (SpecialReg::ClusterId(_)
            | SpecialReg::NClusterId(_)
            | SpecialReg::ClusterCtaid(_)
            | SpecialReg::ClusterNctaid(_)
            | SpecialReg::ClusterCtarank
            | SpecialReg::ClusterNctarank
            | SpecialReg::IsExplicitCluster) => match c.implicit_cluster() {
                Some(ImplicitCluster::Register(r)) => return self.special(r),
                Some(ImplicitCluster::Constant(k)) => k,
                None => unreachable!("`{c}` is a cluster register"),
            },
            SpecialReg::LaneId => self.linear_tid % 32,
            SpecialReg::WarpId => self.linear_tid / 32,
            SpecialReg::NWarpId => warps,
            SpecialReg::DynamicSmemSize => l.dynamic_shared as u32,
            SpecialReg::TotalSmemSize => {
                let layout = l.program.layouts[l.kernel.index()].as_ref()?;
                (layout.static_shared + l.dynamic_shared) as u32
            }
            // The SM, the clocks and lane masks of other threads are not launch constants.
            _ => return None,
        }))
    }

    /// The address a memory operand names, if known (a variable's only if it is in device
    /// memory).
    fn address(&self, a: &Address) -> Option<u64> {
        let base = match a.base {
            AddrBase::Reg(r) => self.reg(r)?,
            AddrBase::Symbol(sym) => match self.location(sym) {
                Location::Global(g) => g,
                _ => return None,
            },
            AddrBase::Absolute => 0,
        };
        Some(a.sum(base) & self.launch.program.address_mask())
    }

    /// The global address a load reads, if known and global.
    fn global_address(&self, inst: &Inst) -> Option<u64> {
        let Some(Operand::Address(a)) = inst.srcs.first() else {
            return None;
        };
        let addr = self.address(a)?;
        match inst.op {
            Op::Ld {
                space: StateSpace::Generic,
                ..
            }
            | Op::Ldu {
                space: StateSpace::Generic,
                ..
            } => match self.launch.program.map().classify(addr) {
                GenericTarget::Global(g) => Some(g),
                _ => None,
            },
            _ => Some(addr),
        }
    }

    /// A scalar kernel parameter read by `ld.param`, if the address is one.
    fn param_value(&self, inst: &Inst, ty: Type) -> Option<u64> {
        let Some(Operand::Address(a)) = inst.srcs.first() else {
            return None;
        };
        let offset = a.sum(match a.base {
            AddrBase::Symbol(sym) => match self.location(sym) {
                Location::KernelParam(o) => o,
                _ => return None,
            },
            AddrBase::Reg(r) => self.reg(r)?,
            AddrBase::Absolute => 0,
        });
        let size = u64::from(ty.bits().div_ceil(8).max(1));
        let bytes = self
            .launch
            .params
            .get(offset as usize..offset.checked_add(size)? as usize)?;
        let mut v = [0u8; 8];
        v[..bytes.len()].copy_from_slice(bytes);
        Some(u64::from_le_bytes(v))
    }

    /// A scalar read from `.const` memory, if its address is known.
    fn constant_value(&self, inst: &Inst, ty: Type) -> Option<u64> {
        let Some(Operand::Address(a)) = inst.srcs.first() else {
            return None;
        };
        let size = ty.bits().div_ceil(8).max(1);
        self.launch.constants?.load(self.address(a)?, size).ok()
    }

    /// The results of a register computation, if every source is known.
    fn evaluate(&self, inst: &Inst) -> Option<[u64; 2]> {
        let mut vals = [0u64; 5];
        for (slot, s) in vals.iter_mut().zip(&inst.srcs) {
            *slot = self.operand(s)?;
        }
        let n = inst.srcs.len().min(vals.len());
        let mut carry = false;
        alu::eval(&inst.op, &vals[..n], &mut carry).ok()
    }

    /// Writes the results `v` (None: unknown) of `inst` under a guard known or not.
    fn write_dsts(&mut self, inst: &Inst, guard: Option<bool>, v: Option<[u64; 2]>) {
        // An unknown guard leaves each destination either old or new: unknown.
        let v = if guard.is_none() { None } else { v };
        let ty = emulator::exec::result_type(&inst.op);
        for (i, d) in inst.dsts.iter().enumerate() {
            if let Operand::Reg(r) = d {
                let reg_ty = self.code.reg_types[r.index()];
                let value =
                    v.map(|v| emulator::warp::fit_to_register(v[i], ty.unwrap_or(reg_ty), reg_ty));
                self.set(*r, value);
            } else {
                for r in d.regs() {
                    self.set(r, None);
                }
            }
        }
    }

    fn forget_dsts(&mut self, inst: &Inst) {
        for r in inst.dsts.iter().flat_map(Operand::regs) {
            self.set(r, None);
        }
    }

    fn set(&mut self, r: VReg, value: Option<u64>) {
        let i = r.index();
        if let Some(top) = self.regions.last_mut() {
            top.log.push((i as u32, self.values[i], self.known[i]));
        }
        self.known[i] = value.is_some();
        self.values[i] = value.unwrap_or(0);
    }

    /// Restores the registers the first side wrote and returns the second side's PC.
    fn second_side(&mut self, pc: u32) -> u32 {
        let top = self.regions.last_mut().expect("in a region");
        top.pending = None;
        for &(r, v, k) in top.log.iter().rev() {
            self.values[r as usize] = v;
            self.known[r as usize] = k;
        }
        pc
    }

    /// Both sides done: what either side wrote is unknown; the enclosing region inherits the
    /// log (the values before the inner region are those before its own side's writes).
    fn leave_region(&mut self) {
        let region = self.regions.pop().expect("in a region");
        for &(r, ..) in &region.log {
            self.known[r as usize] = false;
        }
        if let Some(outer) = self.regions.last_mut() {
            outer.log.extend(region.log);
        }
    }

    /// A path ended (exit): on to the next side left to follow, if any.
    fn end_of_path(&mut self) -> Option<u32> {
        loop {
            let top = self.regions.last()?;
            match top.pending {
                Some(other) => return Some(self.second_side(other)),
                None => self.leave_region(),
            }
        }
    }
}

/// Bytes one thread reads with a load.
fn access_bytes(op: &Op) -> u64 {
    let (ty, vec) = match *op {
        Op::Ld { ty, vec, .. } | Op::Ldu { ty, vec, .. } => (ty, vec),
        _ => return 1,
    };
    u64::from(ty.bits().div_ceil(8).max(1)) * u64::from(vec.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::paver::graph::LocalityGraph;

    const A: u64 = 0x10_0000;
    const B: u64 = 0x20_0000;

    fn neighbours() -> Program {
        let text = include_str!("testdata/neighbours.ptx");
        let module = frontend::compile("neighbours.ptx", text).expect("the test kernel lowers");
        Program::new(module, Vec::new())
    }

    /// The parameter buffer of `neighbours(a, b, m)`.
    fn params(program: &Program, m: u32) -> Vec<u8> {
        let layout = program.layouts[0].as_ref().expect("a kernel");
        let mut p = vec![0u8; layout.param_size as usize];
        let at = |i: usize| layout.param_offsets[i] as usize;
        p[at(0)..at(0) + 8].copy_from_slice(&A.to_le_bytes());
        p[at(1)..at(1) + 8].copy_from_slice(&B.to_le_bytes());
        p[at(2)..at(2) + 4].copy_from_slice(&m.to_le_bytes());
        p
    }

    fn analyse(m: u32, ctas: u32) -> Footprints {
        let program = neighbours();
        let params = params(&program, m);
        let shape = LaunchShape {
            program: &program,
            kernel: FuncId(0),
            params: &params,
            constants: None,
            grid: [ctas, 1, 1],
            block: [16, 1, 1],
            dynamic_shared: 0,
        };
        // 4-byte lines: one line per element.
        footprints(&shape, u64::from(ctas), 4)
    }

    #[test]
    fn neighbouring_ctas_share_what_the_address_equations_say() {
        let f = analyse(2, 8);
        // CTA 3 reads a[48..80) in the loop, b[48..64), and maybe a[1003].
        let a = |i: u64| (A + 4 * i) / 4;
        let b = |i: u64| (B + 4 * i) / 4;
        let expected: Vec<u64> = (48..80)
            .map(a)
            .chain([a(1003)])
            .chain((48..64).map(b))
            .collect();
        assert_eq!(f.lines[3], expected);
        let r = &f.report;
        // Per thread: two loop loads, b[...], and the load under the data-dependent branch.
        assert_eq!(r.static_loads, 8 * 16 * 4);
        let data_dependent: Vec<u64> = r.data_dependent_loads.iter().map(|l| l.1).collect();
        assert_eq!(data_dependent, [8 * 16]);
        assert!(r.cut_threads.is_empty());
        let g = LocalityGraph::build(&f);
        // Each CTA shares 16 elements with the next: a chain of 7 edges.
        assert_eq!(g.summary.edges, 7);
        assert_eq!(g.summary.weight, 7 * 16);
        assert_eq!(g.summary.shared_lines, 7 * 16);
        assert_eq!(g.summary.lines, 9 * 16 + 8 + 8 * 16);
        assert_eq!(g.summary.sharing_ctas, 8);
        assert_eq!(g.weight(2, 3), 16);
        assert_eq!(g.weight(2, 4), 0);
        assert_eq!(g.summary.mean_distance, 1.0);
    }

    #[test]
    fn address_sources_name_the_launch_constants_or_the_data() {
        let program = neighbours();
        let code = &program.code[0];
        let loads: Vec<u32> = (0..code.insts.len() as u32)
            .filter(|&pc| is_global_load(&code.insts[pc as usize]))
            .collect();
        assert_eq!(loads.len(), 4);
        let s: Vec<AddressSources> = loads
            .iter()
            .map(|&pc| address_sources(code, pc).unwrap())
            .collect();
        let names = |a: &AddressSources| -> Vec<String> {
            a.specials.iter().map(|s| s.to_string()).collect()
        };
        // a[(b + k) * 16 + tid]: the CTA, the thread, the parameter a and the loop counter.
        assert_eq!(names(&s[0]), ["%ctaid.x", "%tid.x"]);
        assert_eq!(s[0].params, [0]);
        assert!(s[0].loop_carried && s[0].is_static());
        // b[b * 16 + tid], then a[...] at the loaded index: from data.
        assert!(s[1].is_static() && !s[1].loop_carried);
        assert_eq!(s[2].data, [loads[1]]);
        assert!(s[3].is_static());
    }

    #[test]
    fn the_loop_bound_comes_from_the_parameter() {
        // m = 3: CTA b reads a[16b, 16b + 48), so b and b + 2 share too.
        let g = LocalityGraph::build(&analyse(3, 8));
        assert_eq!(g.weight(2, 3), 32);
        assert_eq!(g.weight(2, 4), 16);
        assert_eq!(g.summary.edges, 7 + 6);
    }

    #[test]
    fn a_loop_on_loaded_data_stops_the_thread() {
        // A kernel looping while the loaded value is non-zero.
        let text = r#"
.version 7.0
.target sm_70
.address_size 64
.visible .entry chase(.param .u64 pa)
{
	.reg .pred %p<2>;
	.reg .b32 %r<4>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [pa];
L:
	ld.global.u32 %r1, [%rd1];
	setp.ne.s32 %p1, %r1, 0;
	@%p1 bra L;
	ret;
}
"#;
        let program = Program::new(frontend::compile("chase.ptx", text).unwrap(), Vec::new());
        let params = A.to_le_bytes();
        let shape = LaunchShape {
            program: &program,
            kernel: FuncId(0),
            params: &params,
            constants: None,
            grid: [2, 1, 1],
            block: [32, 1, 1],
            dynamic_shared: 0,
        };
        let f = footprints(&shape, 2, 128);
        assert_eq!(f.lines, [vec![A / 128], vec![A / 128]]);
        let cuts: Vec<(Cut, u64)> = f.report.cut_threads.iter().map(|c| (c.0, c.2)).collect();
        assert_eq!(cuts, [(Cut::DataDependentLoop, 64)]);
    }
    #[test]
    fn a_32_bit_base_register_wraps_as_the_emulator_computes() {
        // `[%r2+0x40000004]` with %r2 = the low half of pa minus 2^30 (wrapped) is pa + 4:
        // the sum is taken at the register's 32 bits (`Address::sum`), then zero-extended.
        let text = r#"
.version 7.0
.target sm_70
.address_size 64
.visible .entry wrap(.param .u64 pa)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [pa];
	cvt.u32.u64 %r1, %rd1;
	sub.s32 %r2, %r1, 0x40000000;
	ld.global.u32 %r3, [%r2+0x40000004];
	ret;
}
"#;
        let program = Program::new(frontend::compile("wrap.ptx", text).unwrap(), Vec::new());
        let params = A.to_le_bytes();
        let shape = LaunchShape {
            program: &program,
            kernel: FuncId(0),
            params: &params,
            constants: None,
            grid: [1, 1, 1],
            block: [1, 1, 1],
            dynamic_shared: 0,
        };
        let f = footprints(&shape, 1, 4);
        assert_eq!(f.lines, [vec![(A + 4) / 4]]);
        assert_eq!(f.report.static_loads, 1);
    }
}
