//! One streaming multiprocessor, cycle by cycle.
//!
//! Each cycle runs the pipeline back to front, so nothing passes through two stages in one
//! cycle: write-back (limited ports; banks written are not read this cycle), the LD/ST units,
//! dispatch of collected instructions to execution units, bank arbitration, issue (one
//! instruction per scheduler, executed functionally at issue), and fetch (one warp per cycle,
//! through the instruction cache, into its instruction buffer).
//!
//! The cycle ([`Sm::cycle`]) touches nothing outside the SM, so the SMs of a GPU may run it on
//! several host threads at once: what needs the GPU-wide L2 or writes global memory waits for
//! [`Sm::commit`], which the GPU runs SM by SM in index order once every SM's cycle is done
//! (docs/timing.md, "Parallel timing and memory semantics").
//!
//! Each stage is a module of its own over the SM's state ([`warp_slot`] holds a warp slot's):
//! [`writeback`], [`ldst`], [`dispatch`], bank arbitration in [`crate::collector`],
//! [`issue`] and [`fetch`]. What is particular to a register-file technique lives behind the
//! policies of [`crate::rf`], never in a stage.

mod async_copies;
mod dispatch;
mod fetch;
mod issue;
mod ldst;
mod locality;
mod warp_slot;
mod writeback;

use crate::collector::OperandCollector;
use crate::config::GpuConfig;
use crate::decode::{DecodedProgram, Unit};
use crate::events::EventQueue;
use crate::memory::{MemorySystem, SmMemory, Ticket};
use crate::rf::{
    BankReq, Power, RegisterFilePolicy, Residency, ResidencyPolicy, RfPolicy, TechniqueReport,
};
use crate::scheduler::Scheduler;
use crate::scoreboard::Scoreboard;
use crate::stats::TimingStats;
use crate::trace::{SmTrace, TimelineSample};
use async_copies::AsyncCopies;
use emulator::Fault;
use emulator::stepper::FrameBase;
use emulator::stepper::{CtaStepper, Executed};
use issue::AtCommit;
use ldst::{LdStBusy, MemWork};
use std::collections::VecDeque;
use warp_slot::{Heads, NO_UNIT, WarpSlot};

/// What launching a CTA builds it from: the launch, the warp instruction budget, and the
/// kernel compiled for the stepper (or `None` to interpret).
pub struct CtaSource<'a> {
    pub launch: emulator::launch::LaunchEnv<'a>,
    pub warp_budget: u64,
    pub jit: Option<std::sync::Arc<emulator::jit::JitKernel>>,
    /// Warps of each CTA.
    pub warps_per_cta: u32,
}

/// A CTA placed on the SM by the CTA scheduler ([`Sm::place`]), built at the start of the SM's
/// next cycle.
struct Placed {
    cta: u64,
    cta_slot: usize,
    /// Its warp slots (bit per slot), in warp order from the lowest.
    warp_slots: u64,
    /// Warps and shared memory of a retired CTA, for reuse.
    pool: (Vec<emulator::warp::Warp>, Vec<u8>),
    at: u64,
}

struct CtaSlot<'a> {
    stepper: CtaStepper<'a>,
    slots: Vec<usize>,
    /// The cycle it launched (for the trace).
    launched_at: u64,
}

/// An issued instruction until its results are written back.
#[derive(Default)]
struct InFlight {
    /// Issue order on the SM.
    uid: u64,
    slot: usize,
    unit: Unit,
    latency: u32,
    initiation: u32,
    writes: Vec<u32>,
    mem: MemWork,
    /// A `cp.async`'s group, released when its data is back.
    async_group: Option<u64>,
    /// Where it is in the program, and when it issued and left its collector unit (for the
    /// trace).
    func: u32,
    pc: u32,
    issued_at: u64,
    dispatched_at: u64,
    /// A memory instruction: the cycle its data is back, as far as known, and how many of its
    /// requests to the L2 still wait for the commit of their cycle to say when theirs is.
    ready: u64,
    unresolved: u32,
}

/// What waits for the answer of a request to the L2 made this cycle ([`Sm::commit`]).
enum Waiter {
    /// The data of this in-flight memory instruction.
    Inst(usize),
    /// The instructions `pcs` of `func` that this warp slot fetched.
    Fetch {
        slot: usize,
        func: isa::FuncId,
        pcs: std::ops::Range<u32>,
    },
}

/// The SM.
pub struct Sm<'a> {
    pub id: u32,
    cfg: &'a GpuConfig,
    code: &'a DecodedProgram,
    /// The program, for the compiler hints the register-file policies see.
    program: &'a emulator::Program,
    warps: Vec<WarpSlot>,
    ctas: Vec<Option<CtaSlot<'a>>>,
    schedulers: Vec<Scheduler>,
    collector: OperandCollector,
    /// The register-file technique and the residency policy.
    rf: RfPolicy,
    residency: Residency,
    /// The registers' power states (`sm.rf.power`).
    power: Power,
    /// Bank requests being planned, and registers written back (buffers reused across
    /// instructions).
    reqs: Vec<BankReq>,
    regs: Vec<u32>,
    /// The next instruction's issue id.
    next_uid: u64,
    /// Cycle each pipeline of each unit class accepts its next instruction.
    pipes: [Vec<u64>; Unit::ALL.len()],
    /// The sub-cores ([`crate::rf::sub_cores`]): sub-core `s` owns the `s`-th equal run of
    /// each class's pipelines, and warp slot `w` is sub-core `w mod sub_cores`'s.
    sub_cores: usize,
    ldst: Vec<Option<LdStBusy>>,
    /// Memory instructions out of their collector units waiting for an LD/ST unit
    /// (`sm.ldst_latch`; in-flight indices).
    ldst_latch: Vec<usize>,
    inflight: Vec<InFlight>,
    free_inflight: Vec<usize>,
    /// Write-backs (in-flight indices) by cycle, in order of scheduling within a cycle.
    events: EventQueue,
    fetch_rr: usize,
    exec: Executed,
    /// Whether anything issued this cycle (for the watchdog).
    pub issued: bool,
    /// The end of the latest `nanosleep` issued here: a sleeping warp is not a deadlock (for
    /// the watchdog).
    pub sleeps_until: u64,
    /// Whether any stage did anything this cycle; a cycle without activity repeats until
    /// [`Sm::next_wake`], so the GPU may skip to it.
    active: bool,
    /// Warp slots holding a warp (bit `s`: `warps[s].live`), and CTAs resident.
    live_mask: u64,
    resident: usize,
    /// Warp slots that need a fetch (live, not exited, instruction buffer empty).
    fetch_mask: u64,
    /// Warp slots whose head instruction the scoreboard refused (a copy of `sb_wait` as bits:
    /// the schedulers skip these warps without touching them).
    data_wait_mask: u64,
    /// Warp slots holding a warp that has not exited.
    running_mask: u64,
    /// What the schedulers need of each warp slot, in compact form.
    heads: Heads,
    /// Warp slots of each scheduler.
    scheduler_masks: Vec<u64>,
    /// LAS: check at each write-back whether the warp's next instruction is a load the
    /// register-file technique would serve ([`locality`]).
    looks_ahead: bool,
    /// A warp exited or an exited warp's instruction completed: look for finished CTAs.
    retire_check: bool,
    /// This cycle's scheduler outcomes (issued, structural, data, fetch, barrier, idle,
    /// registers), to
    /// repeat for skipped cycles.
    cycle_stalls: [u64; 7],
    /// Whether the last cycle found the SM holding nothing (no CTA, no event pending): its
    /// per-cycle counters are then the idle ones alone ([`Sm::account_empty`]).
    empty: bool,
    /// Issue attempts this cycle that found no free collector unit.
    cycle_collector_full: u64,
    /// Collector pools (bit per [`OperandCollector::pool`]) that had no room this cycle:
    /// within the issue stage units are only taken, so the answer holds for the rest of the
    /// cycle.
    cycle_no_cu: u64,
    /// The collector's ready instructions (a buffer reused by dispatch).
    ready: Vec<usize>,
    /// This cycle's requests to the L2 whose answers something waits for, by ticket, and
    /// the answers the commit gives (a buffer).
    waiting: Vec<(Ticket, Waiter)>,
    answers: Vec<u64>,
    /// Memory instructions whose last request went out this cycle, to be written back when
    /// the commit knows when their data is back.
    writeback_at_commit: Vec<usize>,
    /// What waits for the commit of the cycle, in issue order: stores held back (in `held`)
    /// and instructions to execute.
    at_commit: Vec<AtCommit>,
    held: Vec<emulator::exec::HeldStore>,
    /// CTAs that finished (their steppers hold their counters and buffers), until the GPU
    /// takes them ([`Sm::take_done`]).
    done: Vec<CtaStepper<'a>>,
    /// The fault of the last [`Sm::run_cycle`], if it had one.
    fault: Option<Box<Fault>>,
    /// What the CTAs of the launch are built from, and the CTAs placed since the last cycle.
    source: Option<&'a CtaSource<'a>>,
    placed: Vec<Placed>,
    pub stats: TimingStats,
    /// The spans of a trace, when one is recorded.
    pub(crate) trace: Option<Box<SmTrace>>,
}

impl<'a> Sm<'a> {
    pub fn new(
        id: u32,
        cfg: &'a GpuConfig,
        code: &'a DecodedProgram,
        program: &'a emulator::Program,
        residency: Residency,
    ) -> Sm<'a> {
        let n = cfg.sm.schedulers as usize;
        let max_warps = cfg.sm.max_warps as usize;
        let units = &cfg.sm.units;
        let count = |u: Unit| match u {
            Unit::Sp => units.sp,
            Unit::Sfu => units.sfu,
            Unit::Int => units.int,
            Unit::Dp => units.dp,
            Unit::LdSt => units.ldst,
            Unit::Tensor => units.tensor,
        } as usize;
        let rf = RfPolicy::new(cfg);
        Sm {
            id,
            cfg,
            code,
            program,
            warps: (0..max_warps)
                .map(|_| WarpSlot {
                    live: false,
                    cta: 0,
                    index: 0,
                    next: None,
                    frame: FrameBase::default(),
                    ibuf: VecDeque::with_capacity(cfg.sm.ibuffer_entries as usize),
                    sb: Scoreboard::new(cfg.sm.scoreboard_entries),
                    outstanding: 0,
                    sb_wait: None,
                    sb_ok: None,
                    exited: false,
                    sleep_until: 0,
                    copies: AsyncCopies::default(),
                })
                .collect(),
            ctas: (0..cfg.sm.max_ctas).map(|_| None).collect(),
            schedulers: (0..n)
                .map(|s| {
                    Scheduler::new(
                        cfg.sm.scheduler,
                        cfg.sm.two_level_active,
                        (s..max_warps).step_by(n).collect(),
                    )
                })
                .collect(),
            collector: OperandCollector::with_layout(cfg, rf.collector_layout()),
            rf,
            residency,
            power: Power::new(cfg),
            reqs: Vec::new(),
            regs: Vec::new(),
            next_uid: 0,
            pipes: Unit::ALL.map(|u| vec![0; count(u)]),
            sub_cores: crate::rf::sub_cores(cfg) as usize,
            ldst: (0..units.ldst).map(|_| None).collect(),
            ldst_latch: Vec::new(),
            inflight: Vec::new(),
            free_inflight: Vec::new(),
            events: EventQueue::default(),
            fetch_rr: 0,
            exec: Executed::default(),
            issued: false,
            sleeps_until: 0,
            active: false,
            live_mask: 0,
            resident: 0,
            fetch_mask: 0,
            data_wait_mask: 0,
            running_mask: 0,
            heads: Heads {
                barrier: 0,
                empty: 0,
                at: vec![0; max_warps],
                ok: vec![NO_UNIT; max_warps],
            },
            scheduler_masks: (0..n)
                .map(|s| (s..max_warps).step_by(n).fold(0u64, |m, w| m | (1 << w)))
                .collect(),
            looks_ahead: cfg.sm.scheduler == crate::config::SchedulerPolicy::Las,
            retire_check: false,
            cycle_stalls: [0; 7],
            empty: true,
            cycle_collector_full: 0,
            cycle_no_cu: 0,
            ready: Vec::new(),
            waiting: Vec::new(),
            answers: Vec::new(),
            writeback_at_commit: Vec::new(),
            at_commit: Vec::new(),
            held: Vec::new(),
            done: Vec::new(),
            fault: None,
            source: None,
            placed: Vec::new(),
            stats: TimingStats {
                by_class: TimingStats::empty_classes(),
                ..TimingStats::default()
            },
            trace: None,
        }
    }

    /// Collector units of the SM.
    pub(crate) fn collector_units(&self) -> u64 {
        self.collector.unit_count()
    }

    /// The counts the timeline samples, since the launch started (`mem` is this SM's memory;
    /// the cycle and the L2's misses are the GPU's to fill in).
    pub(crate) fn timeline_counts(&self, mem: &SmMemory) -> TimelineSample {
        TimelineSample {
            thread_insts: self.stats.gpu_sim_insn,
            warp_insts: self.stats.warp_insts,
            resident_warp_cycles: self.stats.resident_warp_cycles,
            busy_collector_cycles: self.collector.stats.collector_busy_cycles,
            l1d_misses: mem.stats().l1d_misses,
            ..TimelineSample::default()
        }
    }

    /// CTAs resident.
    pub fn resident_ctas(&self) -> usize {
        self.resident
    }

    /// The most CTAs the SM may hold at once (the residency policy's limit).
    pub fn cta_limit(&self) -> usize {
        self.residency.cta_limit() as usize
    }

    /// Whether the residency policy lets a CTA with `demand` launch here now (the SM holds
    /// fewer than [`Sm::cta_limit`]).
    pub fn admits(&self, demand: &crate::occupancy::CtaDemand) -> bool {
        self.residency.admit(self.resident as u32, demand)
    }

    /// The GPU launched the last CTA of the launch.
    pub fn last_cta_launched(&mut self) {
        self.residency.on_last_cta_launched();
    }

    /// Whether the SM has nothing left to do.
    pub fn is_idle(&self) -> bool {
        self.resident == 0
    }

    /// Places CTA `cta` of the launch on the SM at cycle `now` (the caller checked
    /// occupancy), with the warps and shared memory of a retired CTA to reuse (`pool`). Takes
    /// its CTA slot and warp slots and tells the residency policy at once, so that the CTA
    /// scheduler sees the SM as it is; the CTA's functional state, the costly part, is built
    /// by the SM itself at the start of its cycle ([`Sm::cycle`], on whichever host thread
    /// runs it), before any stage looks at it.
    pub fn place(&mut self, cta: u64, pool: (Vec<emulator::warp::Warp>, Vec<u8>), now: u64) {
        let source = self.source.expect("a launch's CTAs come from its source");
        let taken = |i: usize, placed: &[Placed]| placed.iter().any(|p| p.cta_slot == i);
        let slot = (0..self.ctas.len())
            .find(|&i| self.ctas[i].is_none() && !taken(i, &self.placed))
            .expect("occupancy leaves a CTA slot");
        let reserved = self.placed.iter().fold(0u64, |m, p| m | p.warp_slots);
        let mut warp_slots = Vec::with_capacity(source.warps_per_cta as usize);
        let mut mask = 0u64;
        for _ in 0..source.warps_per_cta {
            let s = (0..self.warps.len())
                .find(|&s| !self.warps[s].live && (reserved | mask) & (1 << s) == 0)
                .expect("occupancy leaves warp slots");
            mask |= 1 << s;
            warp_slots.push(s as u32);
        }
        self.residency.on_launch(slot as u32, &warp_slots, now);
        self.placed.push(Placed {
            cta,
            cta_slot: slot,
            warp_slots: mask,
            pool,
            at: now,
        });
        self.resident += 1;
        self.active = true;
    }

    /// Builds the CTAs placed since the last cycle ([`Sm::place`]) and fills their slots.
    fn start_placed(&mut self) {
        let source = self.source.expect("a launch's CTAs come from its source");
        let placed = std::mem::take(&mut self.placed);
        for p in placed {
            let env = source.launch.cta(p.cta, p.pool.1);
            let stepper = CtaStepper::new(env, p.pool.0, source.warp_budget, source.jit.clone());
            debug_assert_eq!(stepper.warp_count(), p.warp_slots.count_ones() as usize);
            let cta = p.cta_slot;
            let slots: Vec<usize> = bits(p.warp_slots).collect();
            for (index, &s) in slots.iter().enumerate() {
                let w = &mut self.warps[s];
                w.live = true;
                w.cta = cta;
                w.index = index;
                w.ibuf.clear();
                w.sb.clear();
                w.outstanding = 0;
                w.sb_wait = None;
                w.sb_ok = None;
                w.sleep_until = 0;
                w.copies.clear();
                self.data_wait_mask &= !(1 << s);
                w.exited = stepper.has_exited(index);
                w.next = stepper.next(index).map(|(f, pc, _)| (f, pc));
                // Warps start in the kernel's frame.
                w.frame = FrameBase::default();
                if !w.exited {
                    self.fetch_mask |= 1 << s;
                    self.running_mask |= 1 << s;
                }
                self.live_mask |= 1 << s;
                self.sync_head(s);
                let n = self.schedulers.len();
                self.schedulers[s % n].launched(s);
            }
            self.ctas[cta] = Some(CtaSlot {
                stepper,
                slots,
                launched_at: p.at,
            });
            self.retire_check = true;
            self.active = true;
        }
    }

    /// What launching CTAs on this SM builds them from (for the launch being simulated).
    pub fn set_source(&mut self, source: &'a CtaSource<'a>) {
        self.source = Some(source);
    }

    /// One cycle, up to its commit: everything but the requests to the L2 and the execution
    /// of instructions that write global memory, which wait for [`Sm::commit`]. Touches
    /// nothing outside the SM and its memory `mem` (global memory is only read), so the SMs
    /// of a GPU may run their cycles on several host threads at once.
    #[inline]
    pub fn cycle(&mut self, now: u64, mem: &mut SmMemory) -> Result<(), Box<Fault>> {
        self.issued = false;
        self.active = false;
        if !self.placed.is_empty() {
            self.start_placed();
            self.active = true;
        }
        self.empty = self.resident == 0 && self.events.is_empty();
        if self.empty {
            // Most SM-cycles of a large GPU running a small grid: touch as little as possible.
            self.account_empty(1);
            return Ok(());
        }
        self.busy_cycle(now, mem)
    }

    /// [`Sm::cycle`] of an SM holding something.
    fn busy_cycle(&mut self, now: u64, mem: &mut SmMemory) -> Result<(), Box<Fault>> {
        self.cycle_stalls = [0; 7];
        self.cycle_collector_full = 0;
        self.cycle_no_cu = 0;
        self.writeback(now);
        self.ldst_cycle(now, mem);
        self.leave_ldst_latch(now, mem);
        // The collector's steps, each dispatching what the previous ones collected
        // (GPGPU-Sim's `opndcoll_rfu_t::step`); the dispatch budget is the cycle's.
        let mut dispatch_budget = self.cfg.sm.rf.dispatch_width;
        for step in 0..self.collector.steps() {
            self.dispatch(now, step, &mut dispatch_budget, mem);
            self.active |= self.collector.arbitrate_step(&self.rf, now, step);
        }
        for s in 0..self.schedulers.len() {
            self.schedule(s, now)?;
        }
        self.fetch(now, mem);
        if self.retire_check {
            self.retire(now);
        }
        self.account(1);
        Ok(())
    }

    /// [`Sm::cycle`], keeping a fault for [`Sm::take_fault`] (the SMs' cycles run on several
    /// threads; the GPU reports the fault of the lowest-numbered SM).
    #[inline]
    pub fn run_cycle(&mut self, now: u64, mem: &mut SmMemory) {
        if let Err(fault) = self.cycle(now, mem) {
            self.fault = Some(fault);
        }
    }

    /// The fault of the last [`Sm::run_cycle`], if any.
    pub fn take_fault(&mut self) -> Option<Box<Fault>> {
        self.fault.take()
    }

    /// Whether the last cycle left anything for the GPU after [`Sm::commit_memory`]: a fault,
    /// instructions for [`Sm::commit`] to execute, finished CTAs.
    #[inline]
    pub fn has_leftovers(&self) -> bool {
        self.fault.is_some() || !self.at_commit.is_empty() || !self.done.is_empty()
    }

    /// The first half of cycle `now`'s commit, after [`Sm::cycle`]: sends the cycle's
    /// requests to the L2 in the order they were made and hands their answers to what waits
    /// for them (a memory instruction's write-back, fetched instructions). The GPU does this
    /// for its SMs one after another in index order (each as soon as its cycle is done), so
    /// the L2 sees the same sequence whatever host thread ran each SM's cycle.
    pub fn commit_memory(&mut self, now: u64, mem: &mut SmMemory, l2: &mut MemorySystem) {
        if !mem.has_pending() {
            return;
        }
        mem.commit(now, l2, &mut self.answers);
        let mut waiting = std::mem::take(&mut self.waiting);
        for (ticket, waiter) in waiting.drain(..) {
            let answer = self.answers[ticket as usize];
            match waiter {
                Waiter::Inst(i) => {
                    let f = &mut self.inflight[i];
                    f.ready = f.ready.max(answer);
                    f.unresolved -= 1;
                }
                Waiter::Fetch { slot, func, pcs } => self.fetched(slot, func, pcs, answer),
            }
        }
        self.waiting = waiting;
        let mut writebacks = std::mem::take(&mut self.writeback_at_commit);
        for inst in writebacks.drain(..) {
            let done = self.inflight[inst].ready.max(now + 1);
            self.schedule_writeback(now, done, inst);
        }
        self.writeback_at_commit = writebacks;
    }

    /// The second half of cycle `now`'s commit, once every SM's cycle is done: executes the
    /// instructions whose execution waited, in issue order (their global-memory writes land
    /// now). The GPU commits its SMs one after another in index order.
    pub fn commit(&mut self, now: u64) -> Result<(), Box<Fault>> {
        debug_assert!(self.waiting.is_empty() && self.writeback_at_commit.is_empty());
        if self.at_commit.is_empty() {
            return Ok(());
        }
        self.commit_global(now)?;
        // One may have been an exit (issued after a store in the same cycle).
        if self.retire_check {
            self.retire(now);
        }
        Ok(())
    }

    /// The CTAs that finished since the last call.
    pub fn take_done(&mut self) -> std::vec::Drain<'_, CtaStepper<'a>> {
        self.done.drain(..)
    }

    /// Adds `cycles` cycles of this cycle's per-cycle counters (for the cycle itself, and for
    /// cycles skipped after it because nothing changes in them).
    fn account(&mut self, cycles: u64) {
        let st = &mut self.stats.stalls;
        let [issued, structural, data, fetch, barrier, idle, registers] = self.cycle_stalls;
        st.issued += issued * cycles;
        st.structural += structural * cycles;
        st.data += data * cycles;
        st.fetch += fetch * cycles;
        st.barrier += barrier * cycles;
        st.idle += idle * cycles;
        st.registers += registers * cycles;
        self.stats.resident_warp_cycles += u64::from(self.live_mask.count_ones()) * cycles;
        self.collector.stats.collector_busy_cycles += self.collector.busy_units() * cycles;
        self.collector.stats.collector_full += self.cycle_collector_full * cycles;
    }

    /// Adds `cycles` cycles in which the SM held nothing: every scheduler idles (one outcome
    /// per scheduler per cycle), and no other per-cycle counter moves (no warp is live, no
    /// collector unit held).
    fn account_empty(&mut self, cycles: u64) {
        debug_assert!(self.live_mask == 0 && !self.collector.is_busy());
        self.stats.stalls.idle += self.schedulers.len() as u64 * cycles;
    }

    /// Accounts for `cycles` skipped cycles after a cycle without activity.
    pub fn skip(&mut self, cycles: u64) {
        if self.empty {
            self.account_empty(cycles);
        } else if cycles > 0 {
            self.account(cycles);
        }
    }

    /// After a cycle without activity: the first cycle at which something can change (a
    /// write-back, an instruction arriving in a buffer, a unit freeing up), or `None` when
    /// nothing is pending. Only meaningful when [`Sm::was_active`] is false.
    pub fn next_wake(&self, now: u64) -> Option<u64> {
        let later = |c: u64| (c > now).then_some(c);
        let events = self.events.first_cycle();
        // The live slots' bits, not a scan of every slot: most SMs of a large GPU running a
        // small grid hold none, and this runs for each of them after every quiet cycle.
        let fetched = bits(self.live_mask)
            .filter_map(|s| self.warps[s].ibuf.front().and_then(|&(_, _, at)| later(at)))
            .min();
        let ldst = self
            .ldst
            .iter()
            .flatten()
            .filter_map(|b| later(b.busy_until))
            .min();
        let pipes = if self.collector.is_busy() {
            self.pipes.iter().flatten().filter_map(|&c| later(c)).min()
        } else {
            None
        };
        let policies = [
            self.rf.next_wake(now),
            self.residency.next_wake(now),
            self.power.next_wake(now),
        ];
        [events, fetched, ldst, pipes]
            .into_iter()
            .chain(policies)
            .flatten()
            .min()
    }

    /// Whether any stage did anything in the last cycle.
    pub fn was_active(&self) -> bool {
        self.active
    }

    /// Retires finished CTAs: every warp exited and every instruction written back.
    fn retire(&mut self, now: u64) {
        self.retire_check = false;
        for c in 0..self.ctas.len() {
            let Some(cta) = &self.ctas[c] else { continue };
            let finished =
                cta.stepper.finished() && cta.slots.iter().all(|&s| self.warps[s].outstanding == 0);
            if !finished {
                continue;
            }
            let cta = self.ctas[c].take().expect("checked above");
            if let Some(t) = &mut self.trace {
                t.cta(c, cta.launched_at, now, cta.stepper.env.cta);
            }
            self.residency.on_retire(c as u32, now);
            self.resident -= 1;
            self.active = true;
            for &s in &cta.slots {
                self.rf.on_warp_retire(s as u32, now);
                self.power.on_warp_retire(s as u32, now);
                self.warps[s].live = false;
                self.running_mask &= !(1 << s);
                self.sync_head(s);
                self.live_mask &= !(1 << s);
                self.fetch_mask &= !(1 << s);
                let n = self.schedulers.len();
                self.schedulers[s % n].retired(s);
            }
            self.done.push(cta.stepper);
        }
    }

    /// Whether every pipeline is drained (for the end of a kernel).
    pub fn drained(&self) -> bool {
        self.events.is_empty()
            && self.ldst.iter().all(|l| l.is_none())
            && self.ldst_latch.is_empty()
            && !self.collector.is_busy()
    }

    /// Counters of this SM, with the register-file ones.
    pub fn take_stats(&mut self, regs_per_thread: u32) -> TimingStats {
        let mut s = std::mem::take(&mut self.stats);
        s.rf = std::mem::replace(
            &mut self.collector.stats,
            crate::collector::RfStats::new(self.cfg.sm.rf.banks),
        );
        let allocated = self
            .residency
            .allocated_register_cycles(s.resident_warp_cycles, regs_per_thread);
        s.rf_counts = self
            .rf
            .component_counts(&s.rf, self.cfg.sm.rf.sub_banks, allocated);
        s.rf_counts.power_states = self.power.power_states(allocated);
        s.power = self.power.report(allocated);
        s.technique = TechniqueReport::default();
        self.rf.report(&mut s.technique);
        s.residency = TechniqueReport::default();
        self.residency.report(&mut s.residency);
        s
    }

    /// A line per warp, collector unit and LD/ST unit for deadlock reports.
    pub fn describe_warps(&self, out: &mut Vec<String>) {
        let mut busy: Vec<_> = self.collector.busy().collect();
        busy.sort_unstable_by_key(|&(i, ..)| i);
        for (i, inst, unit, pending) in busy {
            out.push(format!(
                "SM {} collector {i}: warp slot {} ({unit:?}), {pending} operands to read",
                self.id, self.inflight[inst].slot,
            ));
        }
        for (i, b) in self.ldst.iter().enumerate() {
            if let Some(b) = b {
                let f = &self.inflight[b.inst];
                out.push(format!(
                    "SM {} LD/ST unit {i}: warp slot {}, transaction {} of {}, busy until {}",
                    self.id,
                    f.slot,
                    b.next,
                    f.mem.global.len(),
                    b.busy_until
                ));
            }
        }
        for &inst in &self.ldst_latch {
            out.push(format!(
                "SM {} LD/ST latch: warp slot {}",
                self.id, self.inflight[inst].slot
            ));
        }
        for (s, w) in self.warps.iter().enumerate().filter(|(_, w)| w.live) {
            let cta = self.ctas[w.cta].as_ref().expect("a live warp's CTA");
            let state = match cta.stepper.next(w.index) {
                Some((f, pc, mask)) => {
                    format!("next pc {pc} of function {} (lanes {mask:#010x})", f.0)
                }
                None if w.exited => "exited".to_string(),
                None => "waiting at a barrier".to_string(),
            };
            let pending: Vec<String> = w.sb.pending().map(|r| r.to_string()).collect();
            out.push(format!(
                "SM {} warp slot {s} (CTA {:?}, warp {}): {state}; {} in flight; scoreboard [{}]",
                self.id,
                cta.stepper.env.cta,
                w.index,
                w.outstanding,
                pending.join(", ")
            ));
        }
    }
}

/// The indices of the bits set in `mask`, lowest first.
fn bits(mut mask: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let i = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            i
        })
    })
}
