//! One streaming multiprocessor, cycle by cycle.
//!
//! Each cycle runs the pipeline back to front, so nothing passes through two stages in one
//! cycle: write-back (limited ports; banks written are not read this cycle), the LD/ST units,
//! dispatch of collected instructions to execution units, bank arbitration, issue (one
//! instruction per scheduler, executed functionally at issue), and fetch (one warp per cycle,
//! through the instruction cache, into its instruction buffer).

use crate::collector::OperandCollector;
use crate::config::{GpuConfig, ReadDuplicates};
use crate::decode::{Control, DecodedProgram, INST_BYTES, MemOp, PRED_BASE, Unit};
use crate::events::EventQueue;
use crate::memory::{
    AccessKind, MemorySystem, Outcome, SmMemory, Transaction, coalesce, shared_passes,
};
use crate::scheduler::{Scheduler, Stall};
use crate::scoreboard::{Hazard, Scoreboard};
use crate::stats::TimingStats;
use emulator::Fault;
use emulator::exec::Target;
use emulator::stepper::{CtaStepper, Executed};
use isa::FuncId;
use std::collections::VecDeque;

/// Synthetic device addresses the timing model gives local memory (interleaved by lane, 4
/// bytes at a time, as hardware lays it out so a warp's accesses to one variable coalesce) and
/// kernel parameters (for the constant cache). They only need to be distinct from global
/// addresses and from each other.
const LOCAL_TIMING_BASE: u64 = 0x7f00_0000_0000;
const PARAM_TIMING_BASE: u64 = 0x7e00_0000_0000;

/// A warp slot of the SM.
struct WarpSlot {
    live: bool,
    cta: usize,
    /// Index of the warp in its CTA.
    index: usize,
    /// Function and PC of its next instruction; `None` while at a barrier or after exit (a
    /// copy of the functional state, refreshed whenever that changes).
    next: Option<(FuncId, u32)>,
    /// Instruction buffer: (function, PC, cycle the decoded instruction is available).
    ibuf: VecDeque<(FuncId, u32, u64)>,
    sb: Scoreboard,
    /// Issued instructions not yet complete.
    outstanding: u32,
    /// The scoreboard refused the instruction at the head of the buffer (`Some(long)`); it
    /// cannot change its mind before one of this warp's writes completes.
    sb_wait: Option<bool>,
    /// The instruction at the head of the buffer passed the scoreboard and needs this unit: it
    /// stays issuable (as far as the scoreboard goes) until the warp issues, since only this
    /// warp's issues add pending writes.
    sb_ok: Option<Unit>,
    /// The warp executed its last instruction.
    exited: bool,
}

struct CtaSlot<'a> {
    stepper: CtaStepper<'a>,
    slots: Vec<usize>,
}

/// Memory work of an issued instruction.
#[derive(Default)]
struct MemWork {
    kind: Option<AccessKind>,
    /// Bytes each lane accesses.
    bytes: u32,
    shared: Vec<u64>,
    constant: Vec<u64>,
    global: Vec<Transaction>,
}

/// An issued instruction until its results are written back.
#[derive(Default)]
struct InFlight {
    slot: usize,
    unit: Unit,
    latency: u32,
    initiation: u32,
    writes: Vec<u32>,
    mem: MemWork,
}

/// A memory instruction in an LD/ST unit.
struct LdStBusy {
    inst: usize,
    next: usize,
    ready: u64,
    busy_until: u64,
}

/// The SM.
pub struct Sm<'a> {
    pub id: u32,
    cfg: &'a GpuConfig,
    code: &'a DecodedProgram,
    warps: Vec<WarpSlot>,
    ctas: Vec<Option<CtaSlot<'a>>>,
    schedulers: Vec<Scheduler>,
    collector: OperandCollector,
    /// Cycle each pipeline of each unit class accepts its next instruction.
    pipes: [Vec<u64>; 5],
    ldst: Vec<Option<LdStBusy>>,
    inflight: Vec<InFlight>,
    free_inflight: Vec<usize>,
    /// Write-backs (in-flight indices) by cycle, in order of scheduling within a cycle.
    events: EventQueue,
    fetch_rr: usize,
    exec: Executed,
    /// Whether anything issued this cycle (for the watchdog).
    pub issued: bool,
    /// Whether any stage did anything this cycle; a cycle without activity repeats until
    /// [`Sm::next_wake`], so the GPU may skip to it.
    active: bool,
    /// Warps in slots, and CTAs resident.
    live_warps: u32,
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
    /// A warp exited or an exited warp's instruction completed: look for finished CTAs.
    retire_check: bool,
    /// This cycle's scheduler outcomes (issued, structural, data, fetch, barrier, idle), to
    /// repeat for skipped cycles.
    cycle_stalls: [u64; 6],
    /// Issue attempts this cycle that found no free collector unit.
    cycle_collector_full: u64,
    /// Unit classes (bit per [`Unit`]) that found no free collector unit this cycle: within
    /// the issue stage units are only taken, so the answer holds for the rest of the cycle.
    cycle_no_cu: u8,
    pub stats: TimingStats,
}

impl<'a> Sm<'a> {
    pub fn new(id: u32, cfg: &'a GpuConfig, code: &'a DecodedProgram) -> Sm<'a> {
        let n = cfg.sm.schedulers as usize;
        let max_warps = cfg.sm.max_warps as usize;
        let units = &cfg.sm.units;
        let count = |u: Unit| match u {
            Unit::Sp => units.sp,
            Unit::Sfu => units.sfu,
            Unit::Int => units.int,
            Unit::Dp => units.dp,
            Unit::LdSt => units.ldst,
        } as usize;
        Sm {
            id,
            cfg,
            code,
            warps: (0..max_warps)
                .map(|_| WarpSlot {
                    live: false,
                    cta: 0,
                    index: 0,
                    next: None,
                    ibuf: VecDeque::with_capacity(cfg.sm.ibuffer_entries as usize),
                    sb: Scoreboard::new(cfg.sm.scoreboard_entries),
                    outstanding: 0,
                    sb_wait: None,
                    sb_ok: None,
                    exited: false,
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
            collector: OperandCollector::new(cfg),
            pipes: Unit::ALL.map(|u| vec![0; count(u)]),
            ldst: (0..units.ldst).map(|_| None).collect(),
            inflight: Vec::new(),
            free_inflight: Vec::new(),
            events: EventQueue::default(),
            fetch_rr: 0,
            exec: Executed::default(),
            issued: false,
            active: false,
            live_warps: 0,
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
            retire_check: false,
            cycle_stalls: [0; 6],
            cycle_collector_full: 0,
            cycle_no_cu: 0,
            stats: TimingStats {
                by_class: TimingStats::empty_classes(),
                ..TimingStats::default()
            },
        }
    }

    /// CTAs resident.
    pub fn resident_ctas(&self) -> usize {
        self.resident
    }

    /// Whether the SM has nothing left to do.
    pub fn is_idle(&self) -> bool {
        self.resident == 0
    }

    /// Places a CTA on the SM (the caller checked occupancy).
    pub fn launch(&mut self, stepper: CtaStepper<'a>) {
        let cta = self
            .ctas
            .iter()
            .position(|c| c.is_none())
            .expect("occupancy leaves a CTA slot");
        let mut slots = Vec::with_capacity(stepper.warp_count());
        for index in 0..stepper.warp_count() {
            let s = self
                .warps
                .iter()
                .position(|w| !w.live)
                .expect("occupancy leaves warp slots");
            let w = &mut self.warps[s];
            w.live = true;
            w.cta = cta;
            w.index = index;
            w.ibuf.clear();
            w.sb.clear();
            w.outstanding = 0;
            w.sb_wait = None;
            w.sb_ok = None;
            self.data_wait_mask &= !(1 << s);
            w.exited = stepper.has_exited(index);
            w.next = stepper.next(index).map(|(f, pc, _)| (f, pc));
            if !w.exited {
                self.fetch_mask |= 1 << s;
                self.running_mask |= 1 << s;
            }
            self.live_warps += 1;
            self.sync_head(s);
            let n = self.schedulers.len();
            self.schedulers[s % n].launched(s);
            slots.push(s);
        }
        self.ctas[cta] = Some(CtaSlot { stepper, slots });
        self.resident += 1;
        self.retire_check = true;
        self.active = true;
    }

    /// One cycle. CTAs that complete are pushed onto `done` (their steppers hold their
    /// counters and buffers).
    pub fn cycle(
        &mut self,
        now: u64,
        mem: &mut SmMemory,
        l2: &mut MemorySystem,
        done: &mut Vec<CtaStepper<'a>>,
    ) -> Result<(), Box<Fault>> {
        self.issued = false;
        self.active = false;
        self.cycle_stalls = [0; 6];
        self.cycle_collector_full = 0;
        self.cycle_no_cu = 0;
        if self.resident == 0 && self.events.is_empty() {
            return Ok(());
        }
        self.writeback(now);
        self.ldst_cycle(now, mem, l2);
        self.dispatch(now, mem);
        self.active |= self.collector.arbitrate();
        for s in 0..self.schedulers.len() {
            self.schedule(s, now)?;
        }
        self.fetch(now, mem);
        if self.retire_check {
            self.retire(done);
        }
        self.account(1);
        Ok(())
    }

    /// Adds `cycles` cycles of this cycle's per-cycle counters (for the cycle itself, and for
    /// cycles skipped after it because nothing changes in them).
    fn account(&mut self, cycles: u64) {
        let st = &mut self.stats.stalls;
        let [issued, structural, data, fetch, barrier, idle] = self.cycle_stalls;
        st.issued += issued * cycles;
        st.structural += structural * cycles;
        st.data += data * cycles;
        st.fetch += fetch * cycles;
        st.barrier += barrier * cycles;
        st.idle += idle * cycles;
        self.stats.resident_warp_cycles += u64::from(self.live_warps) * cycles;
        self.collector.stats.collector_busy_cycles += self.collector.busy_units() * cycles;
        self.collector.stats.collector_full += self.cycle_collector_full * cycles;
    }

    /// Accounts for `cycles` skipped cycles after a cycle without activity.
    pub fn skip(&mut self, cycles: u64) {
        if cycles > 0 && self.resident > 0 {
            self.account(cycles);
        }
    }

    /// After a cycle without activity: the first cycle at which something can change (a
    /// write-back, an instruction arriving in a buffer, a unit freeing up), or `None` when
    /// nothing is pending. Only meaningful when [`Sm::was_active`] is false.
    pub fn next_wake(&self, now: u64) -> Option<u64> {
        let later = |c: u64| (c > now).then_some(c);
        let events = self.events.first_cycle();
        let fetched = self
            .warps
            .iter()
            .filter(|w| w.live)
            .filter_map(|w| w.ibuf.front().and_then(|&(_, _, at)| later(at)))
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
        [events, fetched, ldst, pipes].into_iter().flatten().min()
    }

    /// Whether any stage did anything in the last cycle.
    pub fn was_active(&self) -> bool {
        self.active
    }

    fn writeback(&mut self, now: u64) {
        let mut ports = self.cfg.sm.writeback_ports;
        while let Some((overflow, idx)) = self.events.due(now) {
            let has_regs = self.inflight[idx].writes.iter().any(|&r| r < PRED_BASE);
            if has_regs && ports == 0 {
                break;
            }
            self.events.pop(overflow);
            self.active = true;
            let f = &self.inflight[idx];
            let slot = f.slot;
            for &r in &f.writes {
                if r < PRED_BASE {
                    self.collector.write(slot as u32, r);
                }
            }
            let w = &mut self.warps[slot];
            w.sb.release(&f.writes);
            w.sb_wait = None;
            self.data_wait_mask &= !(1 << slot);
            w.outstanding -= 1;
            self.retire_check |= w.exited && w.outstanding == 0;
            if has_regs {
                ports -= 1;
            }
            self.free_inflight.push(idx);
        }
    }

    fn schedule_writeback(&mut self, cycle: u64, inst: usize) {
        self.events.push(cycle, inst);
    }

    fn ldst_cycle(&mut self, now: u64, mem: &mut SmMemory, l2: &mut MemorySystem) {
        let per_cycle = self.cfg.mem.l1_requests_per_cycle as usize;
        for u in 0..self.ldst.len() {
            let Some(busy) = &mut self.ldst[u] else {
                continue;
            };
            if now < busy.busy_until {
                continue;
            }
            // Working or retrying after a stall: either way the next cycle may differ.
            self.active = true;
            let work = &self.inflight[busy.inst].mem;
            let kind = work.kind.unwrap_or(AccessKind::Load);
            let mut accepted = 0;
            while busy.next < work.global.len() && accepted < per_cycle {
                match mem.global(now, work.global[busy.next], kind, l2) {
                    Outcome::Ready(c) => {
                        busy.ready = busy.ready.max(c);
                        busy.next += 1;
                        accepted += 1;
                    }
                    Outcome::Stall => break,
                }
            }
            if busy.next == work.global.len() {
                // Stores and reductions complete for the warp once accepted.
                let done =
                    if kind == AccessKind::Store || self.inflight[busy.inst].writes.is_empty() {
                        now + 1
                    } else {
                        busy.ready.max(now + 1)
                    };
                let inst = busy.inst;
                self.ldst[u] = None;
                self.schedule_writeback(done, inst);
            }
        }
    }

    fn dispatch(&mut self, now: u64, mem: &mut SmMemory) {
        if !self.collector.any_collected() {
            return;
        }
        // The ready units, oldest first (a dispatched unit leaves the allocation order, so the
        // next one takes its position).
        let mut budget = self.cfg.sm.rf.dispatch_width;
        let mut k = 0;
        while budget > 0 {
            let Some(ready) = self.collector.ready_at(k, now) else {
                break;
            };
            let Some(cu) = ready else {
                k += 1;
                continue;
            };
            let (inst, unit) = {
                let u = &self.collector.units[cu];
                (u.inst, u.unit)
            };
            if unit == Unit::LdSt {
                let Some(u) = self.ldst.iter().position(|b| b.is_none()) else {
                    k += 1;
                    continue;
                };
                let (ready_at, busy_until) = self.start_memory(now, inst, mem);
                self.ldst[u] = Some(LdStBusy {
                    inst,
                    next: 0,
                    ready: ready_at,
                    busy_until,
                });
            } else {
                // The unit's class is the collector unit's copy: the in-flight entry is read
                // only when the instruction goes.
                let pipes = &mut self.pipes[unit.index()];
                let Some(p) = pipes.iter().position(|&free| free <= now) else {
                    k += 1;
                    continue;
                };
                let f = &self.inflight[inst];
                pipes[p] = now + u64::from(f.initiation);
                let done = now + u64::from(f.latency.max(1));
                self.schedule_writeback(done, inst);
            }
            self.collector.release(cu, now);
            self.active = true;
            budget -= 1;
        }
    }

    /// Starts the parts of a memory instruction served without L1 transactions (shared memory,
    /// the constant cache); returns when their data is ready and until when the unit is busy.
    fn start_memory(&mut self, now: u64, inst: usize, mem: &mut SmMemory) -> (u64, u64) {
        let cfg = self.cfg;
        let work = &self.inflight[inst].mem;
        let mut ready = now + 1;
        let mut busy_until = now;
        if !work.shared.is_empty() {
            let passes = shared_passes(
                &work.shared,
                work.bytes,
                cfg.mem.shared.banks,
                cfg.mem.shared.bank_bytes,
            )
            .max(1);
            self.stats.ldst.shared_requests += 1;
            self.stats.ldst.shared_replays += u64::from(passes - 1);
            busy_until = now + u64::from(passes);
            ready = ready.max(now + u64::from(passes) - 1 + u64::from(cfg.mem.shared.latency));
        }
        if !work.constant.is_empty() {
            self.stats.ldst.constant_requests += 1;
            ready = ready.max(mem.constant(now, &work.constant));
        }
        (ready, busy_until)
    }

    /// Chooses and issues up to `issue_width` instructions from one warp of scheduler `s`.
    fn schedule(&mut self, s: usize, now: u64) -> Result<(), Box<Fault>> {
        let two_level = self.cfg.sm.scheduler == crate::config::SchedulerPolicy::TwoLevel;
        let mine = self.scheduler_masks[s] & self.running_mask;
        // Warps refused on the masks alone (scoreboard, barrier, empty buffer) contribute the
        // most advanced of those reasons, wherever they are in the order; the others are
        // considered in order. (The two-level policy demotes warps as it meets them, so it
        // considers every running warp in order.)
        let mut reason = Stall::Idle;
        let mut remaining = mine;
        if !two_level {
            let refused = mine & (self.data_wait_mask | self.heads.barrier | self.heads.empty);
            reason = if refused & self.data_wait_mask != 0 {
                Stall::Data
            } else if refused & self.heads.empty != 0 {
                Stall::Fetch
            } else if refused & self.heads.barrier != 0 {
                Stall::Barrier
            } else {
                Stall::Idle
            };
            remaining = mine & !refused;
            if remaining == 0 {
                let outcome = match reason {
                    Stall::Data => 2,
                    Stall::Fetch => 3,
                    Stall::Barrier => 4,
                    _ => 5,
                };
                self.cycle_stalls[outcome] += 1;
                return Ok(());
            }
        }
        // (A slot met again after `first` is no longer in `remaining`.)
        let (first, order) = self.schedulers[s].take_order();
        let mut issued = 0;
        for slot in first.into_iter().chain(order.iter().copied()) {
            if remaining == 0 {
                break;
            }
            let bit = 1u64 << slot;
            if remaining & bit == 0 {
                continue;
            }
            remaining &= !bit;
            if two_level && let Some(long) = self.warps[slot].sb_wait {
                reason = reason.max(Stall::Data);
                if long {
                    self.active |= self.schedulers[s].demote(slot);
                }
                continue;
            }
            // Refusals that change nothing, decided without decoding (as `try_issue` would).
            if let Some(r) = self.quick_refusal(slot, now) {
                reason = reason.max(r);
                continue;
            }
            match self.try_issue(slot, now, None) {
                Ok(unit) => {
                    issued = 1;
                    self.schedulers[s].issued(slot);
                    let mut last = unit;
                    while issued < self.cfg.sm.issue_width {
                        match self.try_issue(slot, now, Some(last)) {
                            Ok(u) => {
                                last = u;
                                issued += 1;
                            }
                            Err(_) => break,
                        }
                    }
                    break;
                }
                Err(Issue::Stall(r)) => reason = reason.max(r),
                Err(Issue::LongWait) => {
                    reason = reason.max(Stall::Data);
                    self.active |= self.schedulers[s].demote(slot);
                }
                Err(Issue::Fault(f)) => {
                    self.schedulers[s].put_order(order);
                    return Err(f);
                }
            }
        }
        self.schedulers[s].put_order(order);
        let outcome = match (issued > 0, reason) {
            (true, _) => 0,
            (false, Stall::Structural) => 1,
            (false, Stall::Data) => 2,
            (false, Stall::Fetch) => 3,
            (false, Stall::Barrier) => 4,
            (false, Stall::Idle) => 5,
        };
        self.cycle_stalls[outcome] += 1;
        Ok(())
    }

    /// Refreshes the slot's entry of `heads` after its warp's state changed.
    #[inline]
    fn sync_head(&mut self, slot: usize) {
        self.heads.sync(&self.warps[slot], slot);
    }

    /// Why the warp in `slot` cannot issue this cycle, when that follows from its cached state
    /// alone and `try_issue` would change nothing but the counters (which this updates the
    /// same way); `None` otherwise (`try_issue` decides).
    #[inline]
    /// The caller checked that the slot's warp is running.
    fn quick_refusal(&mut self, slot: usize, now: u64) -> Option<Stall> {
        let bit = 1u64 << slot;
        if self.heads.barrier & bit != 0 {
            return Some(Stall::Barrier);
        }
        if self.heads.empty & bit != 0 || self.heads.at[slot] > now {
            return Some(Stall::Fetch);
        }
        let unit = self.heads.ok[slot];
        if unit != NO_UNIT && self.cycle_no_cu & (1u8 << unit) != 0 {
            self.cycle_collector_full += 1;
            return Some(Stall::Structural);
        }
        None
    }

    /// Issues the next instruction of the warp in `slot` if it can go this cycle. A second
    /// instruction in the same cycle (`after`) must use a different unit.
    fn try_issue(&mut self, slot: usize, now: u64, after: Option<Unit>) -> Result<Unit, Issue> {
        let w = &mut self.warps[slot];
        if !w.live || w.exited {
            return Err(Issue::Stall(Stall::Idle));
        }
        let Some((func, pc)) = w.next else {
            return Err(Issue::Stall(Stall::Barrier));
        };
        match w.ibuf.front() {
            Some(&(f, p, at)) if f == func && p == pc => {
                if at > now {
                    return Err(Issue::Stall(Stall::Fetch));
                }
            }
            Some(_) => {
                // The warp went elsewhere (a branch, a call, a return): refetch.
                w.ibuf.clear();
                w.sb_ok = None;
                self.fetch_mask |= 1 << slot;
                self.active = true;
                self.sync_head(slot);
                return Err(Issue::Stall(Stall::Fetch));
            }
            None => return Err(Issue::Stall(Stall::Fetch)),
        }
        // Register numbers in the window of the warp's current call frame.
        let cta = self.ctas[w.cta].as_ref().expect("a live warp's CTA");
        let d = self
            .code
            .get(func, pc)
            .in_frame(cta.stepper.frame_base(w.index));
        if after.is_some_and(|u| u == d.unit) {
            return Err(Issue::Stall(Stall::Structural));
        }
        let wait = match (w.sb_wait, w.sb_ok) {
            (Some(long), _) => Some(long),
            (None, Some(_)) => None,
            (None, None) => match w.sb.check(&d.sb_reads, &d.sb_writes) {
                Ok(()) => None,
                Err(Hazard::Pending { long }) => Some(long),
                Err(Hazard::Full) => Some(false),
            },
        };
        w.sb_wait = wait;
        if wait.is_none() {
            w.sb_ok = Some(d.unit);
            self.heads.ok[slot] = d.unit.index() as u8;
        }
        if wait.is_some() {
            self.data_wait_mask |= 1 << slot;
        }
        match wait {
            Some(true) => return Err(Issue::LongWait),
            Some(false) => return Err(Issue::Stall(Stall::Data)),
            None => {}
        }
        let unit_bit = 1u8 << d.unit.index();
        let cu = if self.cycle_no_cu & unit_bit != 0 {
            None
        } else {
            self.collector.free_unit(d.unit)
        };
        let Some(cu) = cu else {
            self.cycle_no_cu |= unit_bit;
            self.cycle_collector_full += 1;
            return Err(Issue::Stall(Stall::Structural));
        };
        // Execute it.
        let cta_index = w.cta;
        let cta = self.ctas[cta_index].as_mut().expect("a live warp's CTA");
        cta.stepper
            .step(w.index, &mut self.exec)
            .map_err(Issue::Fault)?;
        w.ibuf.pop_front();
        w.sb_ok = None;
        let exec = &self.exec;
        let stats = &mut self.stats;
        stats.warp_insts += 1;
        stats.gpu_sim_insn += u64::from(exec.active.count_ones());
        stats.insts_by_sources[d.reads.len().min(4)] += 1;
        let class = &mut stats.by_class[d.class.index()];
        class.warp_insts += 1;
        // Widths as the stepper classified them: the reads the collector makes (a register
        // named again counts again only when it is read again), the writes, and the `bar.red`
        // results a barrier release wrote (only a barrier or an exit, control instructions,
        // releases one).
        let each = self.cfg.sm.rf.read_duplicates == ReadDuplicates::Each;
        let reads = exec.reads.iter().filter(|r| each || !r.repeat);
        debug_assert!(reads.clone().map(|r| r.reg).eq(d.reads.iter().copied()));
        for r in reads {
            let (all, active) = (r.class_all, r.class_active);
            stats.widths.reads_all_lanes[usize::from(all - 1)] += 1;
            stats.widths.reads_active_lanes[usize::from(active - 1)] += 1;
            class.widths.reads_all_lanes[usize::from(all - 1)] += 1;
            class.widths.reads_active_lanes[usize::from(active - 1)] += 1;
        }
        for wr in exec
            .writes
            .iter()
            .chain(exec.released_writes.iter().map(|(_, w)| w))
        {
            stats.widths.writes_all_lanes[usize::from(wr.class_all - 1)] += 1;
            stats.widths.writes_active_lanes[usize::from(wr.class_active - 1)] += 1;
            class.widths.writes_all_lanes[usize::from(wr.class_all - 1)] += 1;
            class.widths.writes_active_lanes[usize::from(wr.class_active - 1)] += 1;
        }
        w.sb.reserve(&d.sb_writes, d.long_latency);
        w.outstanding += 1;
        if exec.exited {
            w.exited = true;
            self.running_mask &= !(1 << slot);
            w.ibuf.clear();
            self.retire_check = true;
        }
        w.next = exec.next;
        if d.control != Control::None && w.ibuf.front().map(|&(f, p, _)| (f, p)) != w.next {
            // Control flow resolved at issue: drop buffered instructions from the old path.
            w.ibuf.clear();
        }
        if w.ibuf.is_empty() && !w.exited {
            self.fetch_mask |= 1 << slot;
        }
        self.heads.sync(w, slot);
        // A barrier this instruction completed lets other warps go.
        let mut released = self.exec.released;
        while released != 0 {
            let i = released.trailing_zeros() as usize;
            released &= released - 1;
            let other = cta.slots[i];
            let o = &mut self.warps[other];
            o.next = cta.stepper.next(i).map(|(f, p, _)| (f, p));
            o.sb_ok = None;
            self.heads.sync(o, other);
            self.active = true;
        }
        // In-flight entries are recycled with their buffers: no allocation per instruction.
        let idx = self.free_inflight.pop().unwrap_or_else(|| {
            self.inflight.push(InFlight::default());
            self.inflight.len() - 1
        });
        let f = &mut self.inflight[idx];
        f.slot = slot;
        f.unit = d.unit;
        f.latency = d.timing.latency;
        f.initiation = d.timing.initiation;
        f.writes.clone_from(&d.sb_writes);
        memory_work(
            self.cfg,
            &self.exec,
            d.mem,
            self.id,
            slot,
            &mut self.stats.ldst,
            &mut f.mem,
        );
        self.collector
            .allocate(cu, now, slot as u32, &d.reads, idx, d.unit);
        self.issued = true;
        self.active = true;
        Ok(d.unit)
    }

    /// Fetches for one warp whose instruction buffer is empty (round robin).
    fn fetch(&mut self, now: u64, mem: &mut SmMemory) {
        let n = self.warps.len();
        if self.fetch_mask == 0 {
            return;
        }
        // The first candidate at or after the round-robin position.
        let rotated = self.fetch_mask.rotate_right(self.fetch_rr as u32);
        let mut remaining = rotated;
        while remaining != 0 {
            let k = remaining.trailing_zeros() as usize;
            remaining &= remaining - 1;
            let s = (self.fetch_rr + k) % 64;
            if s >= n {
                continue;
            }
            let w = &self.warps[s];
            if !w.live || w.exited || !w.ibuf.is_empty() {
                self.fetch_mask &= !(1 << s);
                continue;
            }
            let Some((func, pc)) = w.next else {
                continue;
            };
            let len = self.code.funcs[func.index()].len() as u32;
            let addr = self.code.code_base[func.index()] + u64::from(pc) * INST_BYTES;
            let ready = mem.fetch(now, addr) + 1; // + decode
            let w = &mut self.warps[s];
            let count = self.cfg.sm.fetch_width.min(self.cfg.sm.ibuffer_entries);
            for p in pc..(pc + count).min(len) {
                w.ibuf.push_back((func, p, ready));
            }
            self.sync_head(s);
            self.fetch_mask &= !(1 << s);
            self.fetch_rr = (s + 1) % n;
            self.active = true;
            return;
        }
    }

    /// Retires finished CTAs: every warp exited and every instruction written back.
    fn retire(&mut self, done: &mut Vec<CtaStepper<'a>>) {
        self.retire_check = false;
        for c in 0..self.ctas.len() {
            let Some(cta) = &self.ctas[c] else { continue };
            let finished =
                cta.stepper.finished() && cta.slots.iter().all(|&s| self.warps[s].outstanding == 0);
            if !finished {
                continue;
            }
            let cta = self.ctas[c].take().expect("checked above");
            self.resident -= 1;
            self.active = true;
            for &s in &cta.slots {
                self.warps[s].live = false;
                self.running_mask &= !(1 << s);
                self.sync_head(s);
                self.live_warps -= 1;
                self.fetch_mask &= !(1 << s);
                let n = self.schedulers.len();
                self.schedulers[s % n].retired(s);
            }
            done.push(cta.stepper);
        }
    }

    /// Whether every pipeline is drained (for the end of a kernel).
    pub fn drained(&self) -> bool {
        self.events.is_empty() && self.ldst.iter().all(|l| l.is_none()) && !self.collector.is_busy()
    }

    /// Counters of this SM, with the register-file ones.
    pub fn take_stats(&mut self) -> TimingStats {
        let mut s = std::mem::take(&mut self.stats);
        s.rf = std::mem::replace(
            &mut self.collector.stats,
            crate::collector::RfStats::new(self.cfg.sm.rf.banks),
        );
        s
    }

    /// A line per warp, collector unit and LD/ST unit for deadlock reports.
    pub fn describe_warps(&self, out: &mut Vec<String>) {
        for (i, u) in self
            .collector
            .units
            .iter()
            .enumerate()
            .filter(|(_, u)| u.busy)
        {
            out.push(format!(
                "SM {} collector {i}: warp slot {} ({:?}), {} operands to read",
                self.id,
                self.inflight[u.inst].slot,
                u.unit,
                u.pending.len()
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

/// No unit (in [`Heads::ok`]).
const NO_UNIT: u8 = u8::MAX;

/// Exact copies of the issue-relevant state of each warp slot, refreshed by [`Heads::sync`]
/// whenever that state changes, so the schedulers refuse most warps without touching the slots
/// (and their instruction buffers).
struct Heads {
    /// Running warps waiting at a barrier (no next instruction).
    barrier: u64,
    /// Running warps with a next instruction but an empty instruction buffer.
    empty: u64,
    /// Cycle the instruction at the head of the buffer is available, when it is the warp's
    /// next instruction; 0 when it is another (`try_issue` refetches).
    at: Vec<u64>,
    /// `sb_ok` as a unit index, or [`NO_UNIT`].
    ok: Vec<u8>,
}

impl Heads {
    #[inline]
    fn sync(&mut self, w: &WarpSlot, slot: usize) {
        let bit = 1u64 << slot;
        let running = w.live && !w.exited;
        let at_barrier = running && w.next.is_none();
        let empty = running && w.next.is_some() && w.ibuf.is_empty();
        self.barrier = (self.barrier & !bit) | if at_barrier { bit } else { 0 };
        self.empty = (self.empty & !bit) | if empty { bit } else { 0 };
        self.at[slot] = match (w.next, w.ibuf.front()) {
            (Some((f, p)), Some(&(bf, bp, at))) if f == bf && p == bp => at,
            _ => 0,
        };
        self.ok[slot] = w.sb_ok.map_or(NO_UNIT, |u| u.index() as u8);
    }
}

/// Why an instruction did not issue.
enum Issue {
    Stall(Stall),
    /// Blocked on a long-latency result (the two-level scheduler demotes the warp).
    LongWait,
    Fault(Box<Fault>),
}

/// The memory work of an executed instruction: its lanes' addresses, split by where they go.
fn memory_work(
    cfg: &GpuConfig,
    exec: &Executed,
    op: MemOp,
    sm: u32,
    slot: usize,
    stats: &mut crate::stats::LdStStats,
    work: &mut MemWork,
) {
    work.kind = None;
    work.shared.clear();
    work.constant.clear();
    work.global.clear();
    let MemOp::Access {
        kind,
        bytes,
        constant,
    } = op
    else {
        return;
    };
    work.kind = Some(kind);
    work.bytes = bytes;
    if !exec.memory || exec.exec == 0 {
        return;
    }
    let mut global = [0u64; emulator::warp::WARP_SIZE];
    let mut lanes = 0;
    let local_base =
        LOCAL_TIMING_BASE + (u64::from(sm) * u64::from(cfg.sm.max_warps) + slot as u64) * (1 << 24);
    for (lane, t) in exec.targets.iter().enumerate() {
        match *t {
            Target::None => {}
            Target::Shared(o) => work.shared.push(o),
            Target::Param(o) => work.constant.push(PARAM_TIMING_BASE + o),
            Target::Global(a) if constant => work.constant.push(a),
            Target::Global(a) => {
                global[lanes] = a;
                lanes += 1;
            }
            // Local memory interleaves the lanes' elements, so a warp's accesses to one
            // variable coalesce.
            Target::Local(o) => {
                let b = u64::from(bytes);
                global[lanes] = local_base + (o / b) * 32 * b + lane as u64 * b + o % b;
                lanes += 1;
            }
        }
    }
    if lanes > 0 {
        coalesce(
            &global[..lanes],
            bytes,
            cfg.mem.l1d.line,
            cfg.mem.sector,
            &mut work.global,
        );
        stats.global_requests += 1;
        stats.global_transactions += work.global.len() as u64;
        stats.global_sectors += work
            .global
            .iter()
            .map(|t| u64::from(t.sectors.count_ones()))
            .sum::<u64>();
    }
}
