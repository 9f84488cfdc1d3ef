//! Launching a kernel in functional mode: every CTA of the grid, spread over host threads.
//!
//! CTAs are handed out in linear order from a shared counter. Race-free kernels give
//! bit-identical results whatever the number of host threads, because CTAs only communicate
//! through memory and each CTA's own execution is deterministic. If several CTAs fault, the
//! fault of the lowest CTA is reported: every CTA before it has run, so the report does not
//! depend on thread timing. Scoped threads come from `std::thread::scope` (the crossbeam
//! design, now in the standard library).

use crate::cta::{CtaPool, CtaStats, run_cta};
use crate::error::Fault;
use crate::exec::CtaEnv;
use crate::jit::{Granularity, JitKernel};
use crate::memory::GlobalMemory;
use crate::program::{KernelLayout, Program};
use crate::watch::LaunchWatch;
use isa::FuncId;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// Default bound on the instructions one warp may execute: a runaway loop stops in seconds.
///
/// 2^23 (8.4 M): a one-warp infinite loop stops within about 10 s under the timing model (its
/// slowest case, a dependent loop of three instructions: 1 M instructions/s on one warp) and
/// well under a second in functional mode, while the busiest warp of any sample at its large
/// size executes far fewer (`docs/limits.md` has the figures; `warpsim run --stats` prints a
/// run's busiest warp). Per warp rather than per CTA, so the instruction it stops at does not
/// depend on how warps were interleaved: functional and timing mode name the same one.
pub const DEFAULT_WARP_BUDGET: u64 = 1 << 23;

/// Which engine executes instructions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Engine {
    /// The interpreter, the executable specification.
    Interpreter,
    /// Cranelift-compiled code for straight-line runs; the engine keeps control flow.
    #[default]
    Jit,
}

/// How to launch.
#[derive(Clone, Debug)]
pub struct LaunchConfig {
    pub engine: Engine,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// Bytes of dynamic shared memory per CTA.
    pub dynamic_shared: u64,
    /// Host threads running CTAs (at least 1).
    pub host_threads: usize,
    /// Most instructions one warp may execute (see `emulator::DEFAULT_WARP_BUDGET`).
    pub warp_budget: u64,
    /// The wall-clock limit and progress heartbeat.
    pub wall_clock: crate::watch::WallClock,
}

/// Counters of one launch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LaunchStats {
    pub ctas: u64,
    pub warp_insts: u64,
    pub thread_insts: u64,
    pub divergent_branches: u64,
    pub reconvergences: u64,
    pub max_simt_depth: usize,
    /// The most instructions any one warp executed (functional mode), to compare with the
    /// warp budget.
    pub max_warp_insts: u64,
    /// JIT engine: warp instructions executed in compiled runs, and of those the ones lowered
    /// inline, through the ALU helper, and through the warp-wide helper.
    pub jit_insts: u64,
    pub jit_inline: u64,
    pub jit_alu_helper: u64,
    pub jit_warp_helper: u64,
    /// JIT engine: warp instructions the engine executed itself (control flow, calls,
    /// barriers; and anything not compiled, which would be a fallback).
    pub engine_insts: u64,
    /// JIT engine: of `engine_insts`, data-path instructions that fell back to the interpreter.
    pub fallback_insts: u64,
}

impl LaunchStats {
    fn add(&mut self, s: &CtaStats) {
        self.merge(&LaunchStats {
            ctas: 1,
            ..s.counters
        });
    }

    /// Adds another launch's counters (sums; the deepest stack and the busiest warp are maxima).
    pub fn merge(&mut self, o: &LaunchStats) {
        self.ctas += o.ctas;
        self.warp_insts += o.warp_insts;
        self.thread_insts += o.thread_insts;
        self.divergent_branches += o.divergent_branches;
        self.reconvergences += o.reconvergences;
        self.max_simt_depth = self.max_simt_depth.max(o.max_simt_depth);
        self.max_warp_insts = self.max_warp_insts.max(o.max_warp_insts);
        self.jit_insts += o.jit_insts;
        self.jit_inline += o.jit_inline;
        self.jit_alu_helper += o.jit_alu_helper;
        self.jit_warp_helper += o.jit_warp_helper;
        self.engine_insts += o.engine_insts;
        self.fallback_insts += o.fallback_insts;
    }
}

/// What every launch checks first, and `kernel`'s compiled code at `granularity` if `engine`
/// is the JIT (`None` for the interpreter). The program must have been prepared for `mem`'s
/// memory map (compiled code bakes the map in, and the module variables' addresses come from
/// that memory): a mismatch is a [`crate::FaultKind::MemoryMap`] fault. A compile error is
/// reported as an unsupported-construct fault of the kernel.
pub fn compiled(
    program: &Program,
    kernel: FuncId,
    mem: &GlobalMemory,
    engine: Engine,
    granularity: Granularity,
) -> Result<Option<Arc<JitKernel>>, Box<Fault>> {
    let fault = |kind| {
        let name = program.code[kernel.index()].name.clone();
        Box::new(Fault {
            kind,
            kernel: name.clone(),
            function: name,
            cta: [0; 3],
            thread: [0; 3],
            pc: 0,
            line: 0,
            inst: String::new(),
        })
    };
    if program.map() != mem.map() {
        return Err(fault(crate::error::FaultKind::MemoryMap {
            detail: format!(
                "the program was prepared for {}, but the device memory uses {}",
                program.map().describe(),
                mem.map().describe()
            ),
        }));
    }
    if engine == Engine::Interpreter {
        return Ok(None);
    }
    program.jit_at(kernel, granularity).map(Some).map_err(|e| {
        fault(crate::error::FaultKind::Unsupported {
            what: format!("JIT compilation: {e}"),
        })
    })
}

/// Runs `kernel` over the grid. `params` is the kernel-parameter buffer laid out as
/// [`crate::program::KernelLayout::param_offsets`] says.
pub fn launch(
    program: &Program,
    kernel: FuncId,
    mem: &GlobalMemory,
    params: &[u8],
    cfg: &LaunchConfig,
) -> Result<LaunchStats, Box<Fault>> {
    launch_ctas(program, kernel, mem, params, cfg, 0..grid_ctas(cfg.grid))
}

/// Runs the CTAs of the grid whose linear indices are in `ctas` (what [`launch`] does for all
/// of them): the timing model's sampling runs the CTAs it does not time this way.
pub fn launch_ctas(
    program: &Program,
    kernel: FuncId,
    mem: &GlobalMemory,
    params: &[u8],
    cfg: &LaunchConfig,
    ctas: std::ops::Range<u64>,
) -> Result<LaunchStats, Box<Fault>> {
    let jit = compiled(program, kernel, mem, cfg.engine, Granularity::Runs)?;
    let launch = LaunchEnv::new(
        program,
        kernel,
        mem,
        params,
        cfg.grid,
        cfg.block,
        cfg.dynamic_shared,
    );
    let total = ctas.end.saturating_sub(ctas.start);
    let watch = LaunchWatch::new(cfg.wall_clock, &program.code[kernel.index()].name, total);
    let stats = Mutex::new(LaunchStats::default());
    // Each worker keeps its counters, warps and barriers, and shared-memory buffer from CTA
    // to CTA.
    let init = || (LaunchStats::default(), CtaPool::default(), Vec::new());
    let run = |(local, pool, shared): &mut (LaunchStats, CtaPool, Vec<u8>), i: u64| {
        let mut env = launch.cta(ctas.start + i, std::mem::take(shared));
        let result = run_cta(
            &mut env,
            cfg.warp_budget,
            Some(&watch),
            jit.as_deref(),
            pool,
        );
        *shared = env.shared;
        local.add(&result?);
        watch.cta_done();
        Ok(())
    };
    // Sums and a maximum: the merge order does not change the totals.
    let finish = |(local, ..): (LaunchStats, CtaPool, Vec<u8>)| {
        stats.lock().expect("stats").merge(&local);
    };
    let threads = threads_within_register_memory(
        program.code[kernel.index()].reg_types.len(),
        cfg.block,
        cfg.host_threads,
    );
    for_each_cta(total, threads, init, run, finish)?;
    Ok(stats.into_inner().expect("stats"))
}

/// Host memory the CTAs running at once may hold in registers: 4 GiB.
pub const REGISTER_MEMORY_BUDGET: u64 = 4 << 30;

/// How many host threads run CTAs at once: `host_threads`, fewer when the register files of
/// their CTAs (kernels of `regs` virtual registers, blocks of `block`) would exceed
/// [`REGISTER_MEMORY_BUDGET`] together; one at least. The engines keep a warp's registers
/// indexed by virtual register, 8 bytes per lane each, so a kernel with 10^5 virtual registers
/// holds 25 MB per warp. The results do not depend on the thread count.
fn threads_within_register_memory(regs: usize, block: [u32; 3], host_threads: usize) -> usize {
    let threads: u64 = block.iter().map(|&d| u64::from(d)).product();
    let warps = threads.div_ceil(crate::warp::WARP_SIZE as u64);
    let per_cta = warps
        .saturating_mul(regs as u64)
        .saturating_mul(crate::warp::WARP_SIZE as u64 * 8)
        .max(1);
    let fit = usize::try_from(REGISTER_MEMORY_BUDGET / per_cta).unwrap_or(usize::MAX);
    host_threads.min(fit).max(1)
}

/// CTAs in a grid.
pub fn grid_ctas(grid: [u32; 3]) -> u64 {
    grid.iter().map(|&d| u64::from(d)).product()
}

/// What every CTA of one launch shares: [`LaunchEnv::cta`] makes each CTA's environment (for
/// functional launches, the timing model and characterization alike).
#[derive(Clone, Copy)]
pub struct LaunchEnv<'a> {
    pub program: &'a Program,
    pub kernel: FuncId,
    pub layout: &'a KernelLayout,
    pub mem: &'a GlobalMemory,
    pub params: &'a [u8],
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub dynamic_shared: u64,
}

impl<'a> LaunchEnv<'a> {
    /// A launch of kernel entry `kernel` over `grid` × `block` with `dynamic_shared` bytes of
    /// dynamic shared memory; `params` is its parameter buffer.
    pub fn new(
        program: &'a Program,
        kernel: FuncId,
        mem: &'a GlobalMemory,
        params: &'a [u8],
        grid: [u32; 3],
        block: [u32; 3],
        dynamic_shared: u64,
    ) -> LaunchEnv<'a> {
        let layout = program.layouts[kernel.index()]
            .as_ref()
            .expect("launch of a kernel entry");
        LaunchEnv {
            program,
            kernel,
            layout,
            mem,
            params,
            grid,
            block,
            dynamic_shared,
        }
    }

    /// Bytes of shared memory per CTA (static and dynamic).
    pub fn shared_bytes(&self) -> u64 {
        self.layout.dynamic_offset + self.dynamic_shared
    }

    /// The environment of the CTA with linear index `i` (x fastest); its shared memory is
    /// `shared` (storage reused from an earlier CTA), zeroed to the launch's size.
    pub fn cta(&self, i: u64, mut shared: Vec<u8>) -> CtaEnv<'a> {
        shared.clear();
        shared.resize(self.shared_bytes() as usize, 0);
        CtaEnv {
            program: self.program,
            kernel: self.kernel,
            layout: self.layout,
            mem: self.mem,
            params: self.params,
            shared,
            dynamic_shared: self.dynamic_shared,
            cta: cta_coordinates(i, self.grid),
            grid: self.grid,
            block: self.block,
            warps_per_cta: self.block.iter().product::<u32>().div_ceil(32),
            held_stores: None,
            clock: None,
        }
    }
}

/// The coordinates of the CTA with linear index `i` (x fastest) in `grid`.
pub fn cta_coordinates(i: u64, grid: [u32; 3]) -> [u32; 3] {
    let [gx, gy, _] = grid.map(u64::from);
    [
        (i % gx) as u32,
        ((i / gx) % gy) as u32,
        (i / (gx * gy)) as u32,
    ]
}

/// Runs CTAs `0..total` (linear indices) on up to `threads` host threads. Each worker makes
/// its state with `init`, runs the CTAs it claims with `run`, and hands its state to `finish`
/// when none is left. After a fault no later CTA starts, and the fault of the lowest-numbered
/// faulting CTA is returned: the outcome does not depend on the thread count.
pub fn for_each_cta<S>(
    total: u64,
    threads: usize,
    init: impl Fn() -> S + Sync,
    run: impl Fn(&mut S, u64) -> Result<(), Box<Fault>> + Sync,
    finish: impl Fn(S) + Sync,
) -> Result<(), Box<Fault>> {
    let threads = threads.max(1).min(total.max(1) as usize);
    // Workers claim CTAs a chunk at a time: one shared counter per CTA costs more than a
    // small CTA when host threads contend for it. About 16 chunks per thread keep the load
    // balanced.
    let chunk = (total / (threads as u64 * 16)).clamp(1, 64);
    let next = AtomicU64::new(0);
    // Lowest faulting CTA so far (u64::MAX: none); CTAs after it are not started.
    let stop_at = AtomicU64::new(u64::MAX);
    let faults: Mutex<Vec<(u64, Box<Fault>)>> = Mutex::new(Vec::new());
    let worker = || {
        let mut state = init();
        let (mut i, mut claimed_end) = (0, 0);
        loop {
            if i == claimed_end {
                i = next.fetch_add(chunk, Ordering::Relaxed);
                claimed_end = (i + chunk).min(total);
            }
            if i >= total || i > stop_at.load(Ordering::Relaxed) {
                break;
            }
            if let Err(f) = run(&mut state, i) {
                stop_at.fetch_min(i, Ordering::Relaxed);
                faults.lock().expect("fault list").push((i, f));
            }
            i += 1;
        }
        finish(state);
    };
    if threads == 1 {
        worker();
    } else {
        std::thread::scope(|s| {
            for _ in 0..threads {
                s.spawn(worker);
            }
        });
    }
    let mut faults = faults.into_inner().expect("fault list");
    match faults.iter().map(|(i, _)| *i).min() {
        Some(min) => {
            let at = faults
                .iter()
                .position(|(i, _)| *i == min)
                .expect("the minimum exists");
            Err(faults.swap_remove(at).1)
        }
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_threads_shrink_to_fit_the_register_memory_budget() {
        // An ordinary kernel: 1,000 registers, 1,024 threads, 8 MB per CTA.
        assert_eq!(threads_within_register_memory(1000, [1024, 1, 1], 64), 64);
        // 10^5 registers: 819 MB per CTA of 32 warps, five fit in 4 GiB.
        assert_eq!(threads_within_register_memory(100_000, [32, 32, 1], 64), 5);
        assert_eq!(threads_within_register_memory(100_000, [32, 32, 1], 2), 2);
        // One CTA runs whatever its size.
        assert_eq!(threads_within_register_memory(1 << 21, [1024, 1, 1], 16), 1);
    }
}
