//! The functional characterization driver: the observed CTAs of a launch stepped one warp
//! instruction at a time (as the timing model executes them: compiled one instruction at a
//! time, or interpreted), their warps round-robin, each executed instruction handed to a
//! [`Characterizer`]; the other CTAs run as in functional mode (compiled runs), so the
//! launch's results are complete whatever is observed.
//!
//! Stepping costs about thirty times a compiled run, and the largest default-size Rodinia
//! runs execute ten billion warp instructions, so a launch may observe a sample of its CTAs
//! ([`CtaSample`]): every `stride`-th CTA from `offset`. Each observed CTA is observed whole,
//! so every per-warp measure is exact for the warps observed.
//!
//! CTAs are spread over host threads and claimed in chunks, as in functional mode. Every
//! count is a sum over warps and each warp's counts depend only on its own instruction
//! stream, so the merged counts are identical for any number of host threads (for race-free
//! kernels, whose values do not depend on the order CTAs run in). A fault reports the lowest
//! faulting CTA, as functional mode does.

use super::{Characterization, Characterizer, InstRecord, RegAccess};
use crate::config::GpuConfig;
use crate::decode::DecodedProgram;
use emulator::jit::Granularity;
use emulator::launch::{LaunchEnv, for_each_cta, grid_ctas};
use emulator::stepper::{CtaStepper, Executed, RegRead};
use emulator::warp::Warp;
use emulator::{Engine, Fault, GlobalMemory, LaunchStats, Program};
use isa::FuncId;
use std::sync::Mutex;

/// A kernel launch to characterize.
pub struct CharacterizeLaunch<'a> {
    pub program: &'a Program,
    /// `program` decoded ([`decode`]); decoded once per program, not per launch.
    pub code: &'a Decoding,
    pub kernel: FuncId,
    pub mem: &'a GlobalMemory,
    pub params: &'a [u8],
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub dynamic_shared: u64,
    /// Most instructions one warp may execute (see `emulator::DEFAULT_WARP_BUDGET`).
    pub warp_budget: u64,
    /// The JIT (compiled one instruction at a time) or the interpreter; the counts are the
    /// same either way.
    pub engine: Engine,
    /// Host threads running CTAs (at least 1).
    pub host_threads: usize,
    /// The CTAs observed.
    pub sample: CtaSample,
}

/// The CTAs of a launch that are observed: linear index `i` with `i % stride == offset`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CtaSample {
    pub stride: u64,
    pub offset: u64,
}

impl CtaSample {
    /// Every CTA.
    pub const ALL: CtaSample = CtaSample {
        stride: 1,
        offset: 0,
    };

    /// At most `n` evenly spaced CTAs of `total` (every CTA when `n` is 0 or `total ≤ n`);
    /// the `launch`-th launch of a kernel starts at a different offset, so repeated launches
    /// observe different CTAs.
    pub fn spread(total: u64, n: u64, launch: u64) -> CtaSample {
        if n == 0 || total <= n {
            return CtaSample::ALL;
        }
        let stride = total.div_ceil(n);
        CtaSample {
            stride,
            offset: launch % stride,
        }
    }

    pub fn observes(&self, cta: u64) -> bool {
        cta % self.stride == self.offset
    }
}

/// What characterization needs to know of each static instruction.
pub struct Decoding {
    /// Which registers each instruction reads, and its opcode class (neither depends on the
    /// GPU configuration; the GTX 480 preset fills the rest).
    pub code: DecodedProgram,
    /// Register source operands of each instruction, by function and PC
    /// ([`InstRecord::source_operands`]).
    pub source_operands: Vec<Vec<u8>>,
}

/// Decodes `program` for characterization.
pub fn decode(program: &Program) -> Decoding {
    Decoding {
        code: DecodedProgram::new(program, &GpuConfig::preset("gtx480")),
        source_operands: program
            .code
            .iter()
            .map(|code| {
                code.insts
                    .iter()
                    .map(|i| source_operands(i, &code.phys))
                    .collect()
            })
            .collect(),
    }
}

/// Register operands among `inst`'s sources: each operand naming at least one 32-bit
/// register (a register, a 64-bit register, a vector, an address's base) counts once.
fn source_operands(inst: &isa::Inst, phys: &[Option<isa::PhysReg>]) -> u8 {
    fn names_gpr(op: &isa::Operand, phys: &[Option<isa::PhysReg>]) -> bool {
        let gpr = |v: &isa::VReg| {
            matches!(
                phys.get(v.index()).copied().flatten(),
                Some(isa::PhysReg::Gpr { .. })
            )
        };
        match op {
            isa::Operand::Reg(v) => gpr(v),
            isa::Operand::Vector(elems) => elems.iter().any(|e| names_gpr(e, phys)),
            isa::Operand::Address(a) => matches!(a.base, isa::AddrBase::Reg(v) if gpr(&v)),
            _ => false,
        }
    }
    let n = inst.srcs.iter().filter(|s| names_gpr(s, phys)).count();
    n.min(usize::from(u8::MAX)) as u8
}

/// Runs the launch to completion, characterizing every warp instruction; returns the
/// functional counters (as functional mode reports them) and the characterization.
pub fn characterize(l: &CharacterizeLaunch) -> Result<(LaunchStats, Characterization), Box<Fault>> {
    let program = l.program;
    let jit = emulator::launch::compiled(
        program,
        l.kernel,
        l.mem,
        l.engine,
        Granularity::Instructions,
    )?;
    let runs = match l.sample {
        CtaSample::ALL => None,
        _ => emulator::launch::compiled(program, l.kernel, l.mem, l.engine, Granularity::Runs)?,
    };
    let launch = LaunchEnv::new(
        program,
        l.kernel,
        l.mem,
        l.params,
        l.grid,
        l.block,
        l.dynamic_shared,
    );
    let totals = Mutex::new((LaunchStats::default(), Characterization::default()));
    // Each worker keeps its counters, its observer and its CTA buffers from CTA to CTA.
    let init = || {
        (
            LaunchStats::default(),
            Characterizer::new(),
            CtaState::default(),
        )
    };
    let run = |(stats, observer, cta): &mut (LaunchStats, Characterizer, CtaState), i: u64| {
        let env = launch.cta(i, std::mem::take(&mut cta.shared));
        let counters = if l.sample.observes(i) {
            let warps = std::mem::take(&mut cta.warps);
            let mut stepper = CtaStepper::new(env, warps, l.warp_budget, jit.clone());
            let result = run_cta(&mut stepper, l.code, observer, cta);
            let (counters, shared, warps) = stepper.finish();
            cta.shared = shared;
            cta.warps = warps;
            result.map(|()| counters)
        } else {
            let mut env = env;
            let result = emulator::cta::run_cta(
                &mut env,
                l.warp_budget,
                None,
                runs.as_deref(),
                &mut cta.pool,
            );
            cta.shared = env.shared;
            result.map(|s| LaunchStats {
                ctas: 1,
                ..s.counters
            })
        }?;
        stats.merge(&counters);
        Ok(())
    };
    // Sums: the order workers merge in does not change the totals.
    let finish = |(stats, observer, _): (LaunchStats, Characterizer, CtaState)| {
        let mut t = totals.lock().expect("totals");
        t.0.merge(&stats);
        t.1.merge(&observer.report());
    };
    for_each_cta(grid_ctas(l.grid), l.host_threads, init, run, finish)?;
    Ok(totals.into_inner().expect("totals"))
}

/// What a worker reuses from CTA to CTA.
#[derive(Default)]
struct CtaState {
    warps: Vec<Warp>,
    /// Warps and barriers of the CTAs not observed.
    pool: emulator::cta::CtaPool,
    shared: Vec<u8>,
    executed: Executed,
    reads: Vec<RegAccess>,
    writes: Vec<RegAccess>,
}

/// Steps one CTA's warps round-robin, one instruction each, until all have exited.
fn run_cta(
    stepper: &mut CtaStepper,
    code: &Decoding,
    observer: &mut Characterizer,
    s: &mut CtaState,
) -> Result<(), Box<Fault>> {
    let n = stepper.warp_count();
    let mut result = Ok(());
    'cta: loop {
        let mut stepped = false;
        for w in 0..n {
            if stepper.next(w).is_none() {
                continue;
            }
            if let Err(f) = stepper.step(w, &mut s.executed) {
                result = Err(f);
                break 'cta;
            }
            stepped = true;
            let ex = &s.executed;
            let d = code.code.get(ex.func, ex.pc);
            read_accesses(&ex.reads, &mut s.reads);
            s.writes.clear();
            s.writes.extend(ex.writes.iter().map(|x| RegAccess {
                reg: x.reg,
                class_all: x.class_all,
                class_active: x.class_active,
            }));
            observer.observe(&InstRecord {
                warp: w as u32,
                class: d.class,
                active: ex.active,
                exec: ex.exec,
                reads: &s.reads,
                source_operands: code.source_operands[ex.func.index()][ex.pc as usize],
                writes: &s.writes,
            });
            // `bar.red` results this instruction's arrival released, in their warps.
            for (warp, x) in &ex.released_writes {
                let a = RegAccess {
                    reg: x.reg,
                    class_all: x.class_all,
                    class_active: x.class_active,
                };
                observer.late_write(*warp, d.class, &a);
            }
            if ex.exited {
                observer.warp_done(w as u32);
            }
        }
        if !stepped {
            break;
        }
    }
    // Warps that never ran an instruction, and every warp of a faulting CTA.
    for w in 0..n {
        observer.warp_done(w as u32);
    }
    result
}

/// The registers an instruction reads, each once (the decoding's `reads`, as the baseline
/// register file reads them), with the width classes the stepper took before execution over
/// the physical register's 32 lanes and over the reader's executing lanes.
fn read_accesses(reads: &[RegRead], out: &mut Vec<RegAccess>) {
    out.clear();
    out.extend(reads.iter().filter(|r| !r.repeat).map(|r| RegAccess {
        reg: r.reg,
        class_all: r.class_all,
        class_active: r.class_active,
    }));
}
