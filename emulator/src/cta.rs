//! Running one CTA: its warps in a fixed round-robin order, its shared memory, and its barriers.
//!
//! Warps take turns in slices of a few instructions, so a warp spinning on a flag another warp
//! sets still makes progress, and the interleaving (hence every result) is deterministic.
//! A barrier completes when the threads it expects have arrived; by default that is every
//! thread of the CTA that has not exited, so kernels whose threads return early still pass
//! `__syncthreads()`, as on hardware. When no warp can run and some barrier waits, the CTA is
//! deadlocked and the fault lists each warp's state.
//!
//! The cluster barrier (`barrier.cluster.arrive` / `.wait`) is a 17th barrier, apart from the
//! 16 named ones: every launch is a grid of implicit 1x1x1 clusters, so its threads are the
//! CTA's ([`ClusterBarrier`]).

use crate::error::{Fault, FaultKind};
use crate::exec::{Arrival, ClusterStep, CtaEnv, Step, step, write_reduction};
use crate::jit::ctx::JitCtx;
use crate::jit::{JitKernel, Run};
use crate::launch::LaunchStats;
use crate::warp::{WARP_SIZE, Warp, WarpState};
use crate::watch::LaunchWatch;
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

    /// `bar.red` arrivals waiting for the release: (warp, operation, destination, lanes).
    pub(crate) fn reds(&self) -> &[(usize, BarRedOp, isa::VReg, u32)] {
        &self.reds
    }

    /// Back to no arrivals, keeping the lists' storage.
    fn reset(&mut self) {
        self.arrived = 0;
        self.expected = None;
        self.waiting.clear();
        self.reds.clear();
        self.popc = 0;
        self.all = true;
        self.any = false;
    }
}

/// The barrier index [`WarpState::AtBarrier`] gives a warp waiting at the cluster barrier:
/// past the 16 named barriers, so the two never meet.
pub(crate) const CLUSTER_BARRIER: u32 = BARRIERS as u32;

/// The cluster barrier of `barrier.cluster.arrive` and `barrier.cluster.wait`, for a cluster of
/// one CTA (every launch's clusters are implicit and 1x1x1).
///
/// The PTX manual's rules, thread by thread: `arrive` marks the executing threads' arrival in
/// the current phase; the phase completes (and the barrier reinitialises) as soon as every
/// thread of the cluster that has not exited has arrived in it, whether anyone waits or not;
/// `wait` returns at once for threads whose latest arrival's phase has completed and blocks
/// the others until it completes. Each thread arrives once a phase: a second arrival before
/// completion is an error, and so is a wait by a thread that never arrived (it would wait for
/// itself). A warp whose waiting lanes include one still pending waits as a whole.
#[derive(Default)]
pub(crate) struct ClusterBarrier {
    /// Per warp: the lanes that arrived in the current phase.
    pending: Vec<u32>,
    /// Per warp: the lanes whose latest arrival's phase has completed.
    completed: Vec<u32>,
    /// Warps blocked in `barrier.cluster.wait` until the current phase completes.
    waiting: Vec<usize>,
    /// Whether some thread arrived in the current phase.
    open: bool,
    /// Phases completed.
    phases: u64,
}

impl ClusterBarrier {
    /// No arrivals, for a CTA of `warps` warps (keeping the lists' storage).
    pub(crate) fn reset(&mut self, warps: usize) {
        self.pending.clear();
        self.pending.resize(warps, 0);
        self.completed.clear();
        self.completed.resize(warps, 0);
        self.waiting.clear();
        self.open = false;
        self.phases = 0;
    }

    /// Whether some thread arrived in a phase that has not completed (an exit may complete it).
    pub(crate) fn open(&self) -> bool {
        self.open
    }

    /// Completes the current phase if every thread that has not exited arrived in it, and lets
    /// the warps waiting for it go.
    pub(crate) fn complete_if_done(&mut self, warps: &mut [Warp]) {
        if !self.open
            || warps
                .iter()
                .zip(&self.pending)
                .any(|(w, &arrived)| w.live() & !arrived != 0)
        {
            return;
        }
        for (done, arrived) in self.completed.iter_mut().zip(self.pending.iter_mut()) {
            *done |= *arrived;
            *arrived = 0;
        }
        self.open = false;
        self.phases += 1;
        for &i in &self.waiting {
            warps[i].state = WarpState::Ready;
        }
        self.waiting.clear();
    }

    /// Warp `index`'s `barrier.cluster.arrive` or `barrier.cluster.wait`. On an error the
    /// warp's PC is back at the instruction, so the fault names it.
    pub(crate) fn step(
        &mut self,
        warps: &mut [Warp],
        index: usize,
        c: ClusterStep,
    ) -> Result<(), (FaultKind, u32)> {
        // An exit since the last arrival may have completed the phase.
        self.complete_if_done(warps);
        let pending = self.pending[index];
        let error = if c.wait {
            let never = c.lanes & !pending & !self.completed[index];
            if never != 0 {
                Some((
                    never,
                    FaultKind::BarrierDeadlock {
                        detail: format!(
                            "lanes {never:#010x} of warp {index} wait at the cluster barrier \
                             without having arrived at it, so it waits for their own arrival"
                        ),
                    },
                ))
            } else {
                if c.lanes & pending != 0 {
                    warps[index].state = WarpState::AtBarrier {
                        id: CLUSTER_BARRIER,
                        pc: c.pc,
                        lanes: c.lanes,
                    };
                    self.waiting.push(index);
                }
                None
            }
        } else {
            let again = c.lanes & pending;
            if again != 0 {
                Some((
                    again,
                    FaultKind::InvalidOperand {
                        detail: format!(
                            "lanes {again:#010x} of warp {index} arrive at the cluster barrier \
                             again before its phase {} completed (each thread arrives once a \
                             phase)",
                            self.phases
                        ),
                    },
                ))
            } else {
                self.pending[index] |= c.lanes;
                self.completed[index] &= !c.lanes;
                self.open = true;
                self.complete_if_done(warps);
                None
            }
        };
        match error {
            Some((lanes, kind)) => {
                warps[index].frame_mut().simt.set_pc(c.pc);
                Err((kind, lanes.trailing_zeros()))
            }
            None => Ok(()),
        }
    }

    /// What the deadlock report says of the cluster barrier, if a warp waits at it.
    fn report(&self, warps: &[Warp]) -> Option<String> {
        if self.waiting.is_empty() {
            return None;
        }
        let live: u32 = warps.iter().map(|w| w.live().count_ones()).sum();
        let arrived: u32 = warps
            .iter()
            .zip(&self.pending)
            .map(|(w, &p)| (w.live() & p).count_ones())
            .sum();
        Some(format!(
            "the cluster barrier's phase {} has {arrived} of {live} threads",
            self.phases
        ))
    }
}

/// A host thread's warps and barriers, reused from one CTA to the next so that running a CTA
/// allocates nothing in the common case.
#[derive(Default)]
pub struct CtaPool {
    warps: Vec<Warp>,
    barriers: Vec<Barrier>,
    cluster: ClusterBarrier,
}

/// Runs the CTA to completion. `budget` bounds the instructions each of its warps may execute;
/// `watch`, if any, is polled between slices (heartbeat, wall-clock limit).
pub fn run_cta(
    env: &mut CtaEnv,
    budget: u64,
    watch: Option<&LaunchWatch>,
    jit: Option<&JitKernel>,
    pool: &mut CtaPool,
) -> Result<CtaStats, Box<Fault>> {
    let CtaPool {
        warps,
        barriers,
        cluster,
    } = pool;
    match jit {
        Some(j) => prepare_warps_zeroing(env, warps, j.zeroed_registers()),
        None => prepare_warps(env, warps),
    }
    // A CTA that faulted may have left arrivals behind.
    barriers.resize_with(BARRIERS, Barrier::fresh);
    for b in barriers.iter_mut() {
        b.reset();
    }
    cluster.reset(warps.len());
    let mut cta = CtaStats::default();
    let stats = &mut cta.counters;
    // One context for every compiled run of the CTA; each call sets only the warp's fields.
    let mut ctx = jit.map(|_| new_ctx(env));
    let mut local_view = LocalView::default();
    // Threads that have not exited, kept up to date after each slice (barriers expect them).
    let mut live: u32 = warps.iter().map(|w| w.live().count_ones()).sum();
    loop {
        if let Some(limit) = watch.and_then(|w| w.poll(String::new)) {
            let running = warps
                .iter()
                .find(|w| w.state == WarpState::Ready)
                .unwrap_or(&warps[0]);
            let kind = FaultKind::TimeLimit { limit };
            return Err(Box::new(fault(env, running, kind, None)));
        }
        let mut progressed = false;
        for i in 0..warps.len() {
            if warps[i].state != WarpState::Ready {
                continue;
            }
            progressed = true;
            let mut barrier_event = false;
            let live_before = warps[i].live().count_ones();
            for _ in 0..SLICE {
                let w = &mut warps[i];
                if w.executed >= budget {
                    return Err(Box::new(fault(
                        env,
                        w,
                        FaultKind::BudgetExceeded { budget },
                        None,
                    )));
                }
                let outcome = match (jit, ctx.as_mut()) {
                    (Some(jit), Some(ctx)) => {
                        advance(env, w, i, jit, ctx, &mut local_view, stats, budget)
                    }
                    _ => {
                        stats.warp_insts += 1;
                        step(env, w, &mut stats.thread_insts)
                    }
                };
                match outcome {
                    Err((kind, lane)) => return Err(Box::new(fault(env, w, kind, Some(lane)))),
                    Ok(Step::Continue) => {}
                    Ok(Step::Barrier(a)) => {
                        barrier_event = true;
                        arrive(&mut barriers[a.id as usize], i, w, a);
                    }
                    Ok(Step::Cluster(c)) => {
                        if let Err((kind, lane)) = cluster.step(warps, i, c) {
                            return Err(Box::new(fault(env, &warps[i], kind, Some(lane))));
                        }
                    }
                }
                if warps[i].state != WarpState::Ready {
                    break;
                }
            }
            let live_after = warps[i].live().count_ones();
            // An exit leaves fewer threads for the cluster barrier's phase to wait for.
            if live_after != live_before && cluster.open() {
                cluster.complete_if_done(warps);
            }
            live = live - live_before + live_after;
            // An arrival, or an exit (fewer threads left to wait for), may complete a barrier.
            if barrier_event || warps[i].state != WarpState::Ready {
                for id in 0..BARRIERS {
                    if !barriers[id].waiting.is_empty() {
                        release_if_complete(env, barriers, id, warps, live);
                    }
                }
            }
        }
        if warps.iter().all(|w| w.state == WarpState::Done) {
            break;
        }
        if !progressed {
            return Err(Box::new(deadlock(env, warps, barriers, cluster)));
        }
    }
    for w in warps.iter() {
        let s = w.simt_totals();
        stats.divergent_branches += s.divergent_branches;
        stats.reconvergences += s.reconvergences;
        stats.max_simt_depth = stats.max_simt_depth.max(s.max_depth);
        stats.max_warp_insts = stats.max_warp_insts.max(w.executed);
    }
    Ok(cta)
}

/// Fills `warps` with the CTA's warps, reusing the caller's pool: warps of earlier CTAs are
/// reset rather than reallocated.
pub(crate) fn prepare_warps(env: &CtaEnv, warps: &mut Vec<Warp>) {
    let kernel_code = &env.program.code[env.kernel.index()];
    let valid_lanes = warp_lanes(env.block);
    warps.truncate(valid_lanes.len());
    for (i, valid) in valid_lanes.enumerate() {
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

/// [`prepare_warps`] for compiled code: only the registers in `zero` are zeroed (see
/// [`Warp::reset_zeroing`]).
fn prepare_warps_zeroing(env: &CtaEnv, warps: &mut Vec<Warp>, zero: &[u32]) {
    let kernel_code = &env.program.code[env.kernel.index()];
    let valid_lanes = warp_lanes(env.block);
    warps.truncate(valid_lanes.len());
    for (i, valid) in valid_lanes.enumerate() {
        if warps.len() == i {
            let mut w = Warp::new(i as u32, valid, env.kernel, kernel_code, env.block);
            w.frames[0].regs.clear();
            warps.push(w);
        }
        warps[i].reset_zeroing(i as u32, valid, env.kernel, kernel_code, env.block, zero);
    }
}

/// The lanes holding a thread in each warp of a CTA of `block` threads (the last warp may be
/// partial).
fn warp_lanes(block: [u32; 3]) -> impl ExactSizeIterator<Item = u32> {
    let threads = block.iter().product::<u32>();
    (0..threads.div_ceil(WARP_SIZE as u32)).map(move |i| {
        let in_warp = (threads - i * WARP_SIZE as u32).min(WARP_SIZE as u32);
        if in_warp == 32 {
            u32::MAX
        } else {
            (1u32 << in_warp) - 1
        }
    })
}

/// The CTA's hardware barriers, none waiting.
pub(crate) fn fresh_barriers() -> Vec<Barrier> {
    (0..BARRIERS).map(|_| Barrier::fresh()).collect()
}

/// The context of the CTA's compiled runs, with the fields that stay fixed for the CTA.
pub(crate) fn new_ctx(env: &mut CtaEnv) -> JitCtx {
    JitCtx {
        regs: std::ptr::null_mut(),
        mask: 0,
        branch_mask: 0,
        carry: 0,
        global_base: env.mem.host_base(),
        span: env.mem.span(),
        valid: env.mem.validity_table(),
        shared: env.shared.as_mut_ptr(),
        shared_len: env.shared.len() as u64,
        local: [std::ptr::null_mut(); WARP_SIZE],
        local_len: [0; WARP_SIZE],
        local_base: 0,
        params: env.params.as_ptr(),
        params_len: env.params.len() as u64,
        run_start: 0,
        executed_before: 0,
        tid: std::ptr::null(),
        ntid: env.block,
        ctaid: env.cta,
        nctaid: env.grid,
        warp_index: 0,
        fault_lane: 0,
        fault_pc: 0,
        fault: None,
        env: std::ptr::null_mut(),
        warp: std::ptr::null_mut(),
    }
}

/// What the compiled runs' context says about local memory.
#[derive(Default)]
pub(crate) struct LocalView {
    /// The warp whose local-memory buffers the context's `local` fields describe, if they are
    /// still current: only the interpreter (a call) resizes them while the CTA runs.
    pub(crate) warp: Option<usize>,
    /// Whether some `local_len` field is non-zero (false: the context describes no memory).
    nonempty: bool,
}

/// Executes the warp's next compiled run, or its next instruction in the engine: branches, the
/// kernel's unguarded `ret`/`exit` and plain `bar.sync` directly (with `exec::step`'s effects),
/// anything else through the interpreter.
#[allow(clippy::too_many_arguments)]
fn advance(
    env: &mut CtaEnv,
    w: &mut Warp,
    index: usize,
    jit: &JitKernel,
    ctx: &mut JitCtx,
    local_view: &mut LocalView,
    stats: &mut LaunchStats,
    budget: u64,
) -> Result<Step, (FaultKind, u32)> {
    let frame = w.frame();
    let top = *frame.simt.top().expect("a ready warp has a SIMT entry");
    let func = frame.func;
    let code = &env.program.code[func.index()];
    let count = u64::from(top.mask.count_ones());
    // A run that would end past the warp's budget is stepped instead, so the budget fault
    // names the same instruction as the interpreter's and the timing model's.
    let within_budget =
        |r: &&Run| w.executed + u64::from(r.end - r.start) + u64::from(r.branch) <= budget;
    if let Some(run) = jit.run_at(func, top.pc).filter(within_budget) {
        let len = u64::from(run.end - run.start);
        stats.warp_insts += len;
        stats.thread_insts += len * count;
        stats.jit_insts += len;
        stats.jit_inline += u64::from(run.inline);
        stats.jit_alu_helper += u64::from(run.alu_helper);
        stats.jit_warp_helper += u64::from(run.warp_helper);
        let taken = run_compiled(env, w, index, ctx, local_view, run, top.mask)?;
        w.executed += len;
        if run.branch {
            // The closing `bra`, resolved here exactly as `exec::step` would.
            stats.warp_insts += 1;
            stats.thread_insts += count;
            stats.engine_insts += 1;
            w.executed += 1;
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
    stats.warp_insts += 1;
    let inst = &code.insts[top.pc as usize];
    match inst.op {
        // As `exec::step` resolves them.
        isa::Op::Bra { .. } => {
            let exec = crate::exec::guard_mask(frame, inst, top.mask);
            w.executed += 1;
            stats.thread_insts += count;
            let pc = top.pc as usize;
            let (target, rpc) = (code.target[pc], code.reconverge[pc]);
            w.frame_mut().simt.branch(exec, target, top.pc + 1, rpc);
            return Ok(Step::Continue);
        }
        isa::Op::Exit | isa::Op::Ret { .. } if inst.guard.is_none() && w.frames.len() == 1 => {
            // Every active lane exits; the warp is done once no lane is left.
            w.executed += 1;
            stats.thread_insts += count;
            w.frame_mut().simt.goto(top.pc + 1);
            w.exited |= top.mask;
            w.frame_mut().simt.remove_lanes(top.mask);
            if w.frame().simt.is_empty() {
                w.state = WarpState::Done;
            }
            return Ok(Step::Continue);
        }
        // `bar.sync` with an immediate barrier and no thread count, as `exec::step` arrives.
        isa::Op::Bar {
            kind: isa::BarrierKind::Sync,
            ..
        } if inst.guard.is_none() && w.frames.len() == 1 => {
            if let [isa::Operand::Imm(id)] = inst.srcs[..] {
                w.executed += 1;
                stats.thread_insts += count;
                w.frame_mut().simt.goto(top.pc + 1);
                return Ok(Step::Barrier(Arrival {
                    id: (id & 0xf) as u32,
                    count: None,
                    threads: top.mask.count_ones(),
                    wait: true,
                    red: None,
                    lanes: top.mask,
                    pc: top.pc,
                }));
            }
        }
        _ => {}
    }
    if crate::jit::placement(&inst.op) != crate::jit::Placement::Engine {
        stats.fallback_insts += 1;
    }
    // The interpreter may resize the warp's local memory (a call does).
    local_view.warp = None;
    step(env, w, &mut stats.thread_insts)
}

/// Calls a compiled run for the lanes of `mask`; returns the lanes that take the `bra` the
/// run ends at, if it does.
pub(crate) fn run_compiled(
    env: &mut CtaEnv,
    w: &mut Warp,
    index: usize,
    ctx: &mut JitCtx,
    local_view: &mut LocalView,
    run: &Run,
    mask: u32,
) -> Result<u32, (FaultKind, u32)> {
    // Most kernels have no local memory: every length is then 0, and the inline bounds check
    // rejects any access before a pointer is used. The fields are rewritten only when they
    // may not describe this warp's current buffers.
    if local_view.warp != Some(index) {
        if w.has_local() {
            for (l, buf) in w.local.iter_mut().enumerate() {
                ctx.local[l] = buf.as_mut_ptr();
                ctx.local_len[l] = buf.len() as u64;
            }
            local_view.nonempty = true;
        } else if local_view.nonempty {
            ctx.local = [std::ptr::null_mut(); WARP_SIZE];
            ctx.local_len = [0; WARP_SIZE];
            local_view.nonempty = false;
        }
        local_view.warp = Some(index);
    }
    ctx.local_base = w.frame().local_base;
    ctx.regs = w.frame_mut().regs.as_mut_ptr();
    ctx.mask = mask;
    ctx.branch_mask = 0;
    ctx.carry = w.carry;
    ctx.shared = env.shared.as_mut_ptr();
    ctx.run_start = run.start;
    ctx.executed_before = w.executed;
    ctx.tid = w.tid.as_ptr();
    ctx.warp_index = w.index;
    ctx.env = (env as *mut CtaEnv).cast::<CtaEnv<'static>>();
    ctx.warp = w as *mut Warp;
    // SAFETY: the run was compiled for this program and reads the context's pointers, which
    // stay valid for the call (no frame or buffer is resized while compiled code runs).
    let status = unsafe { (run.code)(ctx) };
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
    let live: u32 = warps.iter().map(|w| w.live().count_ones()).sum();
    release_if_complete(env, barriers, id, warps, live);
}

/// [`try_release`] given the number of `live` (not exited) threads of the CTA.
fn release_if_complete(
    env: &CtaEnv,
    barriers: &mut [Barrier],
    id: usize,
    warps: &mut [Warp],
    live: u32,
) {
    let b = &barriers[id];
    if b.waiting.is_empty() {
        return;
    }
    let expected = b.expected.unwrap_or(live).min(live);
    if b.arrived < expected {
        return;
    }
    // Reset in place, keeping the lists' storage for the next round.
    let b = &mut barriers[id];
    let (popc, all, any) = (b.popc, b.all, b.any);
    for (warp, op, dst, lanes) in b.reds.drain(..) {
        let value = match op {
            BarRedOp::Popc => popc,
            BarRedOp::And => u64::from(all),
            BarRedOp::Or => u64::from(any),
        };
        write_reduction(env, &mut warps[warp], op, dst, lanes, value);
    }
    for &warp in &b.waiting {
        warps[warp].state = WarpState::Ready;
    }
    b.reset();
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
        // The PTX source line when the program kept its text (what the user wrote), else the
        // listing `warpsim dis` prints.
        inst: inst.map_or(String::new(), |i| {
            match env.program.source_line(i.loc.line) {
                Some(text) => text.to_string(),
                None => isa::print::Printer::new(
                    Some(&env.program.module),
                    env.program.module.function(frame.func),
                )
                .inst(i)
                .to_string(),
            }
        }),
    }
}

pub(crate) fn deadlock(
    env: &CtaEnv,
    warps: &[Warp],
    barriers: &[Barrier],
    cluster: &ClusterBarrier,
) -> Fault {
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
    detail.extend(cluster.report(warps));
    for w in warps {
        detail.push(match w.state {
            WarpState::AtBarrier { id, pc, lanes } if id == CLUSTER_BARRIER => format!(
                "warp {} waits at the cluster barrier (pc {pc}) with lanes {lanes:#010x}",
                w.index
            ),
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
