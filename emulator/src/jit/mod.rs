//! The Cranelift JIT: compiles a kernel's straight-line code into native functions.
//!
//! ```text
//! Program ──runs──► each maximal sequence of a block's instructions that needs no engine
//!                   decision (no branch, call, barrier, exit) ──translate──► native function
//! ```
//!
//! A compiled run executes its instructions for every active lane of a warp: lane by lane
//! inside *segments*. A segment holds any number of loads but a store only as its one memory
//! access (its last instruction), so a store is seen by the next instruction of every lane
//! exactly as in the interpreter's instruction-by-instruction order; a segment with several
//! loads still reports the interpreter's fault (the first faulting instruction, lowest lane
//! first). Warp-wide instructions (shuffles, votes, atomics, fences) sit between segments and
//! run the interpreter's own code through a helper. The engine keeps the SIMT stack, control
//! flow, calls and barriers, so compiled code never decides what runs next. A lane's pass
//! loads only the registers the segment reads before writing, and stores only those written
//! and still live after it; fresh warps zero only the registers a thread may read unwritten.
//!
//! Everything the JIT does not lower inline calls the interpreter's numerics
//! ([`crate::alu`]) through [`ctx::helper_alu`], so results are bit-identical by construction;
//! the inline paths (integer arithmetic, logic, comparisons, round-to-nearest float add, mul
//! and fma with NaN canonicalisation, memory accesses) are checked against the interpreter by
//! the differential tests.

pub mod ctx;
mod lower;
mod translate;
mod uniform;

use crate::program::Program;
use cranelift_jit::{JITBuilder, JITModule};
use isa::{FuncId, Op, SpecialReg};

/// A compiled run: `fn(ctx) -> status`.
pub type RunFn = unsafe extern "C" fn(*mut ctx::JitCtx) -> u32;

/// One compiled run of instructions `[start, end)` of a function.
#[derive(Clone, Copy, Debug)]
pub struct Run {
    pub start: u32,
    pub end: u32,
    pub code: RunFn,
    /// Instructions lowered inline, through ALU helpers, and through warp-wide helpers.
    pub inline: u32,
    pub alu_helper: u32,
    pub warp_helper: u32,
    /// The run ends at a `bra` (at PC `end`) whose taken lanes it computes into
    /// `JitCtx::branch_mask`, so the engine resolves the branch without interpreting it.
    pub branch: bool,
}

/// The compiled code of one kernel and the functions it calls.
pub struct JitKernel {
    /// For each function (by `FuncId`), the run starting at each PC (empty for functions the
    /// kernel cannot reach).
    runs: Vec<Vec<Option<Run>>>,
    /// Seconds spent compiling.
    pub compile_seconds: f64,
    /// Instructions outside every run (control flow, calls, barriers, and anything the JIT
    /// cannot compile), which the engine interprets.
    pub interpreted_static: u32,
    pub runs_compiled: u32,
    /// Kernel-frame registers a fresh warp must hold as zero (see [`zeroed_registers`]).
    zeroed: Vec<u32>,
    /// Keeps the machine code alive.
    _module: ModuleHolder,
}

/// The JIT module owns the executable memory; it is only read after finalisation.
struct ModuleHolder(#[allow(dead_code)] JITModule);
// SAFETY: after `finalize_definitions` the module is never mutated again; compiled functions
// are plain code pointers shared read-only between threads.
unsafe impl Send for ModuleHolder {}
unsafe impl Sync for ModuleHolder {}

impl JitKernel {
    /// The run starting at `pc` of `func`, if one was compiled.
    pub fn run_at(&self, func: FuncId, pc: u32) -> Option<&Run> {
        self.runs.get(func.index())?.get(pc as usize)?.as_ref()
    }

    /// The kernel-frame registers whose initial zero can be observed: every other register is
    /// written by each thread before that thread reads it.
    pub fn zeroed_registers(&self) -> &[u32] {
        &self.zeroed
    }
}

impl std::fmt::Debug for JitKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JitKernel")
            .field("runs", &self.runs_compiled)
            .field("compile_seconds", &self.compile_seconds)
            .finish()
    }
}

/// Whether an instruction can be part of a run, and how it is executed there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Placement {
    /// Lane by lane, inside a segment.
    Lane,
    /// Once for the warp, through the interpreter's code, between segments.
    Warp,
    /// Not in a run: the engine executes it.
    Engine,
}

pub(crate) fn placement(op: &Op) -> Placement {
    match op {
        Op::Bra { .. }
        | Op::Call { .. }
        | Op::Ret { .. }
        | Op::Exit
        | Op::Trap
        | Op::Bar { .. }
        | Op::Unsupported { .. } => Placement::Engine,
        Op::Cvta { space, .. }
            if !matches!(
                space,
                isa::StateSpace::Shared
                    | isa::StateSpace::SharedCluster
                    | isa::StateSpace::Local
                    | isa::StateSpace::Global
                    | isa::StateSpace::Const
            ) =>
        {
            Placement::Engine
        }
        Op::Atom { .. }
        | Op::Red { .. }
        | Op::Vote { .. }
        | Op::Shfl { .. }
        | Op::Match { .. }
        | Op::Activemask
        | Op::Isspacep { .. }
        | Op::Redux { .. }
        | Op::Elect
        | Op::BarWarpSync
        | Op::Membar { .. }
        | Op::Fence { .. }
        | Op::Nanosleep
        | Op::CpAsync { .. }
        | Op::CpAsyncCommit
        | Op::CpAsyncWait { .. }
        | Op::Prefetch { .. }
        | Op::WmmaLoad { .. }
        | Op::WmmaStore { .. }
        | Op::WmmaMma { .. }
        | Op::Mma { .. }
        | Op::Ldmatrix { .. }
        | Op::Stmatrix { .. }
        | Op::Mbarrier { .. }
        | Op::Movmatrix
        | Op::Tex(_)
        | Op::Tld4(_)
        | Op::Txq { .. }
        | Op::Suld(_)
        | Op::Sust(_)
        | Op::Sured { .. }
        | Op::Suq { .. } => Placement::Warp,
        _ => Placement::Lane,
    }
}

/// How much one compiled function executes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Granularity {
    /// Runs of straight-line code: the functional engine.
    Runs,
    /// One lane-wise instruction per function, writing every register it writes back to the
    /// register file: the timing model, which executes each instruction at issue and reads
    /// the values it wrote. Warp-wide instructions are left to the interpreter.
    Instructions,
}

/// Compiles `kernel` of `program` and every function it may call.
pub fn compile(
    program: &Program,
    kernel: FuncId,
    granularity: Granularity,
) -> Result<JitKernel, String> {
    let start = std::time::Instant::now();
    let mut builder = JITBuilder::with_isa(
        translate::host_isa(granularity)?,
        cranelift_module::default_libcall_names(),
    );
    translate::register_helpers(&mut builder);
    let mut module = JITModule::new(builder);
    let per_instruction = granularity == Granularity::Instructions;
    let mut t = translate::Translator::new(&mut module, program, kernel, per_instruction)?;
    let mut pending = Vec::new();
    let mut interpreted_static = 0;
    for func in crate::program::reachable_functions(&program.module, kernel) {
        let code = &program.code[func.index()];
        let mut pc = 0u32;
        let n = code.insts.len() as u32;
        let block_starts: std::collections::HashSet<u32> = code
            .target
            .iter()
            .copied()
            .chain(block_starts(program, func))
            .collect();
        while pc < n {
            let place = placement(&code.insts[pc as usize].op);
            if place == Placement::Engine || (per_instruction && place == Placement::Warp) {
                interpreted_static += 1;
                pc += 1;
                continue;
            }
            if per_instruction {
                pending.push((func, t.translate(func, pc, pc + 1, false)?));
                pc += 1;
                continue;
            }
            let mut end = pc + 1;
            while end < n
                && placement(&code.insts[end as usize].op) != Placement::Engine
                && !block_starts.contains(&end)
            {
                end += 1;
            }
            // A block's closing `bra` comes after the run; the run evaluates its guard.
            let branch = end < n
                && !block_starts.contains(&end)
                && matches!(code.insts[end as usize].op, Op::Bra { .. });
            pending.push((func, t.translate(func, pc, end, branch)?));
            pc = end;
        }
    }
    drop(t);
    module
        .finalize_definitions()
        .map_err(|e| format!("JIT finalization failed: {e}"))?;
    let mut runs: Vec<Vec<Option<Run>>> = vec![Vec::new(); program.code.len()];
    let mut runs_compiled = 0;
    for (func, r) in pending {
        let table = &mut runs[func.index()];
        if table.is_empty() {
            table.resize(program.code[func.index()].insts.len(), None);
        }
        let ptr = module.get_finalized_function(r.id);
        // SAFETY: the function was compiled with the `RunFn` signature.
        let code: RunFn = unsafe { std::mem::transmute::<*const u8, RunFn>(ptr) };
        table[r.start as usize] = Some(Run {
            start: r.start,
            end: r.end,
            code,
            inline: r.inline,
            alu_helper: r.alu_helper,
            warp_helper: r.warp_helper,
            branch: r.branch,
        });
        runs_compiled += 1;
    }
    Ok(JitKernel {
        zeroed: zeroed_registers(program, kernel),
        runs,
        compile_seconds: start.elapsed().as_secs_f64(),
        interpreted_static,
        runs_compiled,
        _module: ModuleHolder(module),
    })
}

/// The registers of `kernel` a thread may read before writing them: those live into the entry
/// block (liveness counts guarded definitions as writing nothing), plus every register an
/// instruction outside the lane-wise path reads, since warp-wide instructions (`shfl`) read
/// other lanes' registers, which those lanes may never have written.
fn zeroed_registers(program: &Program, kernel: FuncId) -> Vec<u32> {
    let f = program.module.function(kernel);
    let n = program.code[kernel.index()].reg_types.len();
    if f.blocks.is_empty() {
        return Vec::new();
    }
    let cfg = isa::Cfg::compute(f);
    let live = isa::Liveness::compute(f, &cfg);
    let mut zero = vec![false; n];
    for r in live.live_in(isa::BlockId(0)).iter() {
        if r < n {
            zero[r] = true;
        }
    }
    for inst in f.blocks.iter().flat_map(|b| &b.insts) {
        if placement(&inst.op) != Placement::Lane {
            for r in inst.uses() {
                if r.index() < n {
                    zero[r.index()] = true;
                }
            }
        }
    }
    (0..n as u32).filter(|&r| zero[r as usize]).collect()
}

/// PCs where a basic block starts (runs never cross one: reconvergence happens there).
fn block_starts(program: &Program, func: FuncId) -> Vec<u32> {
    let f = program.module.function(func);
    let mut pcs = Vec::with_capacity(f.blocks.len());
    let mut pc = 0u32;
    for b in &f.blocks {
        pcs.push(pc);
        pc += b.insts.len() as u32;
    }
    pcs
}

/// Every special register, indexed by the code compiled code passes to the helper.
const SPECIALS: [SpecialReg; 46] = {
    use isa::Dim::{X, Y, Z};
    [
        SpecialReg::Tid(X),
        SpecialReg::Tid(Y),
        SpecialReg::Tid(Z),
        SpecialReg::Ntid(X),
        SpecialReg::Ntid(Y),
        SpecialReg::Ntid(Z),
        SpecialReg::Ctaid(X),
        SpecialReg::Ctaid(Y),
        SpecialReg::Ctaid(Z),
        SpecialReg::Nctaid(X),
        SpecialReg::Nctaid(Y),
        SpecialReg::Nctaid(Z),
        SpecialReg::LaneId,
        SpecialReg::WarpId,
        SpecialReg::NWarpId,
        SpecialReg::SmId,
        SpecialReg::NSmId,
        SpecialReg::GridId,
        SpecialReg::Clock,
        SpecialReg::ClockHi,
        SpecialReg::Clock64,
        SpecialReg::GlobalTimer,
        SpecialReg::GlobalTimerLo,
        SpecialReg::GlobalTimerHi,
        SpecialReg::LanemaskEq,
        SpecialReg::LanemaskLt,
        SpecialReg::LanemaskLe,
        SpecialReg::LanemaskGt,
        SpecialReg::LanemaskGe,
        SpecialReg::DynamicSmemSize,
        SpecialReg::TotalSmemSize,
        SpecialReg::ClusterId(X),
        SpecialReg::ClusterId(Y),
        SpecialReg::ClusterId(Z),
        SpecialReg::NClusterId(X),
        SpecialReg::NClusterId(Y),
        SpecialReg::NClusterId(Z),
        SpecialReg::ClusterCtaid(X),
        SpecialReg::ClusterCtaid(Y),
        SpecialReg::ClusterCtaid(Z),
        SpecialReg::ClusterNctaid(X),
        SpecialReg::ClusterNctaid(Y),
        SpecialReg::ClusterNctaid(Z),
        SpecialReg::ClusterCtarank,
        SpecialReg::ClusterNctarank,
        SpecialReg::IsExplicitCluster,
    ]
};

/// Decodes the special-register code compiled code passes to `helper_special`.
pub fn special_from_code(code: u32) -> SpecialReg {
    SPECIALS[code as usize]
}

/// The code of a special register.
pub fn special_code(s: SpecialReg) -> u32 {
    SPECIALS
        .iter()
        .position(|x| *x == s)
        .expect("every special register is listed") as u32
}
