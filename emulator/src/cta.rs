//! Running one CTA: its warps in a fixed round-robin order, its shared memory, and its barriers.
//!
//! Warps take turns in slices of a few instructions, so a warp spinning on a flag another warp
//! sets still makes progress, and the interleaving (hence every result) is deterministic.
//! A barrier completes when the threads it expects have arrived; by default that is every
//! thread of the CTA that has not exited, so kernels whose threads return early still pass
//! `__syncthreads()`, as on hardware. When no warp can run and some barrier waits, the CTA is
//! deadlocked and the fault lists each warp's state.

use crate::error::{Fault, FaultKind};
use crate::exec::{Arrival, CtaEnv, Step, step, write_reduction};
use crate::jit::ctx::JitCtx;
use crate::jit::{JitKernel, Run};
use crate::launch::LaunchStats;
use crate::warp::{WARP_SIZE, Warp, WarpState};
use isa::BarRedOp;

/// Instructions a warp runs before the next warp gets its turn.
const SLICE: u32 = 64;
/// Hardware barriers per CTA.
const BARRIERS: usize = 16;

/// Counters of one CTA's execution (the launch counters, with `ctas` unused).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CtaStats {
    pub counters: crate::launch::LaunchStats,
}

#[derive(Default)]
pub(crate) struct Barrier {
    arrived: u32,
    expected: Option<u32>,
    waiting: Vec<usize>,
    /// `bar.red`: (operation, destination, lanes) per waiting warp, and the running reduction.
    reds: Vec<(usize, BarRedOp, isa::VReg, u32)>,
    popc: u64,
    all: bool,
    any: bool,
}

impl Barrier {
    fn fresh() -> Barrier {
        Barrier {
            all: true,
            ..Barrier::default()
        }
    }
}

/// Runs the CTA to completion. `budget` bounds the warp instructions it may execute.
pub fn run_cta(
    env: &mut CtaEnv,
    budget: u64,
    jit: Option<&JitKernel>,
    warps: &mut Vec<Warp>,
) -> Result<CtaStats, Box<Fault>> {
    prepare_warps(env, warps);
    let mut barriers = fresh_barriers();
    let mut cta = CtaStats::default();
    let stats = &mut cta.counters;
    loop {
        let mut progressed = false;
        for i in 0..warps.len() {
            if warps[i].state != WarpState::Ready {
                continue;
            }
            progressed = true;
            let mut barrier_event = false;
            for _ in 0..SLICE {
                let w = &mut warps[i];
                if stats.warp_insts >= budget {
                    return Err(Box::new(fault(
                        env,
                        w,
                        FaultKind::BudgetExceeded { budget },
                        None,
                    )));
                }
                match advance(env, w, jit, stats) {
                    Err((kind, lane)) => return Err(Box::new(fault(env, w, kind, Some(lane)))),
                    Ok(Step::Continue) => {}
                    Ok(Step::Barrier(a)) => {
                        barrier_event = true;
                        arrive(&mut barriers[a.id as usize], i, w, a);
                    }
                }
                if w.state != WarpState::Ready {
                    break;
                }
            }
            // An arrival, or an exit (fewer threads left to wait for), may complete a barrier.
            if barrier_event || warps[i].state != WarpState::Ready {
                for id in 0..BARRIERS {
                    try_release(env, &mut barriers, id, warps);
                }
            }
        }
        if warps.iter().all(|w| w.state == WarpState::Done) {
            break;
        }
        if !progressed {
            return Err(Box::new(deadlock(env, warps, &barriers)));
        }
    }
    for w in warps.iter() {
        let s = w.simt_totals();
        stats.divergent_branches += s.divergent_branches;
        stats.reconvergences += s.reconvergences;
        stats.max_simt_depth = stats.max_simt_depth.max(s.max_depth);
    }
    Ok(cta)
}

/// Fills `warps` with the CTA's warps, reusing the caller's pool: warps of earlier CTAs are
/// reset rather than reallocated.
pub(crate) fn prepare_warps(env: &CtaEnv, warps: &mut Vec<Warp>) {
    let kernel_code = &env.program.code[env.kernel.index()];
    let threads = env.block.iter().product::<u32>();
    let nwarps = threads.div_ceil(WARP_SIZE as u32) as usize;
    warps.truncate(nwarps);
    for i in 0..nwarps {
        let in_warp = (threads - i as u32 * WARP_SIZE as u32).min(WARP_SIZE as u32);
        let valid = if in_warp == 32 {
            u32::MAX
        } else {
            (1u32 << in_warp) - 1
        };
        match warps.get_mut(i) {
            Some(w) => w.reset(i as u32, valid, env.kernel, kernel_code, env.block),
            None => warps.push(Warp::new(
                i as u32,
                valid,
                env.kernel,
                kernel_code,
                env.block,
            )),
        }
    }
}

/// The CTA's hardware barriers, none waiting.
pub(crate) fn fresh_barriers() -> Vec<Barrier> {
    (0..BARRIERS).map(|_| Barrier::fresh()).collect()
}

/// Executes the warp's next compiled run, or its next instruction through the interpreter.
fn advance(
    env: &mut CtaEnv,
    w: &mut Warp,
    jit: Option<&JitKernel>,
    stats: &mut LaunchStats,
) -> Result<Step, (FaultKind, u32)> {
    if let Some(jit) = jit {
        let frame = w.frame();
        let top = *frame.simt.top().expect("a ready warp has a SIMT entry");
        if let Some(run) = jit.run_at(frame.func, top.pc) {
            let len = u64::from(run.end - run.start);
            stats.warp_insts += len;
            stats.thread_insts += len * u64::from(top.mask.count_ones());
            stats.jit_insts += len;
            stats.jit_inline += u64::from(run.inline);
            stats.jit_alu_helper += u64::from(run.alu_helper);
            stats.jit_warp_helper += u64::from(run.warp_helper);
            let taken = run_compiled(env, w, run, top.mask)?;
            w.executed += len;
            if run.branch {
                // The closing `bra`, resolved here exactly as `exec::step` would.
                stats.warp_insts += 1;
                stats.thread_insts += u64::from(top.mask.count_ones());
                stats.engine_insts += 1;
                w.executed += 1;
                let code = &env.program.code[w.frame().func.index()];
                let (target, rpc) = (
                    code.target[run.end as usize],
                    code.reconverge[run.end as usize],
                );
                w.frame_mut().simt.branch(taken, target, run.end + 1, rpc);
            } else {
                w.frame_mut().simt.goto(run.end);
            }
            return Ok(Step::Continue);
        }
        stats.engine_insts += 1;
        let code = &env.program.code[frame.func.index()];
        if crate::jit::placement(&code.insts[top.pc as usize].op) != crate::jit::Placement::Engine {
            stats.fallback_insts += 1;
        }
    }
    stats.warp_insts += 1;
    step(env, w, &mut stats.thread_insts)
}

/// Calls a compiled run for the lanes of `mask`; returns the lanes that take the `bra` the
/// run ends at, if it does.
fn run_compiled(
    env: &mut CtaEnv,
    w: &mut Warp,
    run: &Run,
    mask: u32,
) -> Result<u32, (FaultKind, u32)> {
    let mut local = [std::ptr::null_mut(); WARP_SIZE];
    let mut local_len = [0u64; WARP_SIZE];
    // Most kernels have no local memory: every length is then 0, and the inline bounds check
    // rejects any access before a pointer is used.
    if w.local.iter().any(|b| !b.is_empty()) {
        for (l, buf) in w.local.iter_mut().enumerate() {
            local[l] = buf.as_mut_ptr();
            local_len[l] = buf.len() as u64;
        }
    }
    let local_base = w.frame().local_base;
    let mut ctx = JitCtx {
        regs: w.frame_mut().regs.as_mut_ptr(),
        mask,
        branch_mask: 0,
        carry: w.carry,
        global_base: env.mem.host_base(),
        capacity: env.mem.capacity(),
        granules: env.mem.granule_bits(),
        shared: env.shared.as_mut_ptr(),
        shared_len: env.shared.len() as u64,
        local,
        local_len,
        local_base,
        params: env.params.as_ptr(),
        params_len: env.params.len() as u64,
        run_start: run.start,
        executed_before: w.executed,
        tid: w.tid.as_ptr(),
        ntid: env.block,
        ctaid: env.cta,
        nctaid: env.grid,
        warp_index: w.index,
        fault_lane: 0,
        fault_pc: 0,
        fault: None,
        env: (env as *mut CtaEnv).cast::<CtaEnv<'static>>(),
        warp: w as *mut Warp,
    };
    // SAFETY: the run was compiled for this program and reads the context's pointers, which
    // stay valid for the call (no frame or buffer is resized while compiled code runs).
    let status = unsafe { (run.code)(&mut ctx) };
    w.carry = ctx.carry;
    match ctx.fault.take() {
        Some(kind) if status != crate::jit::ctx::STATUS_OK => {
            w.frame_mut().simt.set_pc(ctx.fault_pc);
            Err((kind, ctx.fault_lane))
        }
        _ => Ok(ctx.branch_mask),
    }
}

pub(crate) fn arrive(b: &mut Barrier, warp: usize, w: &mut Warp, a: Arrival) {
    b.arrived += a.threads;
    if a.count.is_some() {
        b.expected = a.count;
    }
    if let Some((op, trues, dst)) = a.red {
        b.popc += u64::from(trues.count_ones());
        b.all &= trues == a.lanes;
        b.any |= trues != 0;
        b.reds.push((warp, op, dst, a.lanes));
    }
    if a.wait {
        w.state = WarpState::AtBarrier {
            id: a.id,
            pc: a.pc,
            lanes: a.lanes,
        };
        b.waiting.push(warp);
    }
}

/// Releases barrier `id` if every expected thread has arrived.
pub(crate) fn try_release(env: &CtaEnv, barriers: &mut [Barrier], id: usize, warps: &mut [Warp]) {
    let b = &barriers[id];
    if b.waiting.is_empty() {
        return;
    }
    let live: u32 = warps.iter().map(|w| w.live().count_ones()).sum();
    let expected = b.expected.unwrap_or(live).min(live);
    if b.arrived < expected {
        return;
    }
    let b = std::mem::replace(&mut barriers[id], Barrier::fresh());
    for (warp, op, dst, lanes) in b.reds {
        let value = match op {
            BarRedOp::Popc => b.popc,
            BarRedOp::And => u64::from(b.all),
            BarRedOp::Or => u64::from(b.any),
        };
        write_reduction(env, &mut warps[warp], op, dst, lanes, value);
    }
    for warp in b.waiting {
        warps[warp].state = WarpState::Ready;
    }
}

/// Builds a fault located at warp `w`'s current instruction, in `lane` (default: the lowest
/// active lane).
pub fn fault(env: &CtaEnv, w: &Warp, kind: FaultKind, lane: Option<u32>) -> Fault {
    let frame = w.frame();
    let code = &env.program.code[frame.func.index()];
    let (pc, mask) = frame.simt.top().map_or((0, w.live()), |e| (e.pc, e.mask));
    // The instruction that faulted is the one at the PC (the PC advances only on success).
    let inst = code.insts.get(pc as usize);
    let lane = lane.unwrap_or(mask.trailing_zeros().min(31));
    let t = w.index * WARP_SIZE as u32 + lane;
    let [bx, by, _] = env.block;
    Fault {
        kind,
        kernel: env.program.code[env.kernel.index()].name.clone(),
        function: code.name.clone(),
        cta: env.cta,
        thread: [t % bx, (t / bx) % by, t / (bx * by)],
        pc,
        line: inst.map_or(0, |i| i.loc.line),
        inst: inst.map_or(String::new(), |i| {
            isa::print::Printer::new(
                Some(&env.program.module),
                env.program.module.function(frame.func),
            )
            .inst(i)
            .to_string()
        }),
    }
}

pub(crate) fn deadlock(env: &CtaEnv, warps: &[Warp], barriers: &[Barrier]) -> Fault {
    let mut detail = Vec::new();
    for (id, b) in barriers
        .iter()
        .enumerate()
        .filter(|(_, b)| !b.waiting.is_empty())
    {
        let live: u32 = warps.iter().map(|w| w.live().count_ones()).sum();
        detail.push(format!(
            "barrier {id} has {} of {} threads",
            b.arrived,
            b.expected.unwrap_or(live)
        ));
    }
    for w in warps {
        detail.push(match w.state {
            WarpState::AtBarrier { id, pc, lanes } => {
                let mut d = format!(
                    "warp {} waits at barrier {id} (pc {pc}) with lanes {lanes:#010x}",
                    w.index
                );
                let missing = w.live() & !lanes;
                if missing != 0 {
                    d += &format!("; its lanes {missing:#010x} diverged around the barrier");
                }
                d
            }
            WarpState::Done => format!("warp {} exited", w.index),
            WarpState::Ready => format!("warp {} ready", w.index),
        });
    }
    let stuck = warps
        .iter()
        .find(|w| matches!(w.state, WarpState::AtBarrier { .. }))
        .unwrap_or(&warps[0]);
    let lane = match stuck.state {
        WarpState::AtBarrier { lanes, .. } => Some(lanes.trailing_zeros().min(31)),
        _ => None,
    };
    let mut f = fault(
        env,
        stuck,
        FaultKind::BarrierDeadlock {
            detail: detail.join("; "),
        },
        lane,
    );
    // Point at the barrier itself.
    if let WarpState::AtBarrier { pc, .. } = stuck.state {
        let func = stuck.frame().func;
        if let Some(i) = env.program.code[func.index()].insts.get(pc as usize) {
            f.pc = pc;
            f.line = i.loc.line;
            f.inst = isa::print::Printer::new(
                Some(&env.program.module),
                env.program.module.function(func),
            )
            .inst(i)
            .to_string();
        }
    }
    f
}
