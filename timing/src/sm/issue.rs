//! Issue: each scheduler orders its warps and issues from the first that can go; the
//! instruction executes functionally at issue, its bank reads are planned by the
//! register-file policy and it takes a collector unit.

use super::ldst::memory_work;
use super::{InFlight, NO_UNIT, Sm};
use crate::config::ReadDuplicates;
use crate::decode::{AsyncCopyRole, Control, Decoded, GlobalWrite, MemOp, Unit};
use crate::rf::{IssueView, RegisterFilePolicy, ResidencyPolicy};
use crate::scheduler::Stall;
use crate::scoreboard::Hazard;
use crate::stats::TimingStats;
use crate::trace::SpanKind;
use emulator::Fault;
use emulator::stepper::Executed;

impl<'a> Sm<'a> {
    /// Chooses and issues up to `issue_width` instructions from one warp of scheduler `s`.
    pub(super) fn schedule(&mut self, s: usize, now: u64) -> Result<(), Box<Fault>> {
        let two_level = self.cfg.sm.scheduler == crate::config::SchedulerPolicy::TwoLevel;
        let mine = self.scheduler_masks[s] & self.running_mask;
        // Warps refused on the masks alone (scoreboard, barrier, empty buffer) contribute the
        // most advanced of those reasons, wherever they are in the order; the others are
        // considered in order. (The two-level policy demotes warps as it meets them, so it
        // considers every running warp in order.)
        let mut reason = Stall::Idle;
        let mut remaining = mine;
        if two_level {
            // Warps waiting at a barrier leave the active pool, so that the pending warps the
            // barrier waits for get in.
            let mut at_barrier = mine & self.heads.barrier;
            while at_barrier != 0 {
                let slot = at_barrier.trailing_zeros() as usize;
                at_barrier &= at_barrier - 1;
                self.demote(s, slot);
            }
        } else {
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
                    self.demote(s, slot);
                }
                continue;
            }
            // Refusals that change nothing, decided without decoding (as `try_issue` would).
            if let Some(r) = self.quick_refusal(slot, now) {
                reason = reason.max(r);
                continue;
            }
            let mut chain = Chain::default();
            match self.try_issue(slot, now, None, chain) {
                Ok((unit, how)) => {
                    issued = 1;
                    self.schedulers[s].issued(slot);
                    let mut last = unit;
                    chain.after(how);
                    while issued < self.cfg.sm.issue_width {
                        match self.try_issue(slot, now, Some(last), chain) {
                            Ok((u, how)) => {
                                last = u;
                                issued += 1;
                                chain.after(how);
                            }
                            Err(_) => break,
                        }
                    }
                    break;
                }
                Err(Issue::Stall(r)) => reason = reason.max(r),
                Err(Issue::LongWait) => {
                    reason = reason.max(Stall::Data);
                    self.demote(s, slot);
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
            (false, Stall::Registers) => 6,
        };
        self.cycle_stalls[outcome] += 1;
        Ok(())
    }

    /// Scheduler `s` met warp slot `slot` blocked on a long-latency result (the two-level
    /// policy moves it out of its active pool; the register-file technique hears of it).
    fn demote(&mut self, s: usize, slot: usize) {
        if self.schedulers[s].demote(slot) {
            self.active = true;
            self.rf.on_demote(slot as u32);
        }
    }

    /// Debug builds: the copies of the slot's state the schedulers read (its `heads` entry and
    /// its bits of the running and scoreboard-wait masks) agree with the slot.
    #[cfg(debug_assertions)]
    fn check_cached_state(&self, slot: usize) {
        let w = &self.warps[slot];
        let bit = 1u64 << slot;
        self.heads.check(w, slot);
        assert_eq!(
            self.running_mask & bit != 0,
            w.live && !w.exited,
            "running mask of warp slot {slot}"
        );
        assert_eq!(
            self.data_wait_mask & bit != 0,
            w.sb_wait.is_some(),
            "scoreboard-wait mask of warp slot {slot}"
        );
    }

    /// Refreshes the slot's entry of `heads` after its warp's state changed.
    #[inline]
    pub(super) fn sync_head(&mut self, slot: usize) {
        self.heads.sync(&self.warps[slot], slot);
    }

    /// Why the warp in `slot` cannot issue this cycle, when that follows from its cached state
    /// alone and `try_issue` would change nothing but the counters (which this updates the
    /// same way); `None` otherwise (`try_issue` decides).
    /// The caller checked that the slot's warp is running.
    #[inline]
    fn quick_refusal(&mut self, slot: usize, now: u64) -> Option<Stall> {
        #[cfg(debug_assertions)]
        self.check_cached_state(slot);
        let bit = 1u64 << slot;
        if self.heads.barrier & bit != 0 {
            return Some(Stall::Barrier);
        }
        if self.heads.empty & bit != 0 || self.heads.at[slot] > now {
            return Some(Stall::Fetch);
        }
        let unit = self.heads.ok[slot];
        if unit != NO_UNIT && self.cycle_no_cu & (1 << self.collector.pool(slot, unit)) != 0 {
            self.cycle_collector_full += 1;
            return Some(Stall::Structural);
        }
        None
    }

    /// Issues the next instruction of the warp in `slot` if it can go this cycle. A second
    /// instruction in the same cycle (`after`) must use a different unit. Returns its unit and
    /// how it executed ([`Executes`]): at once; at once with its global stores held back until
    /// the commit ([`GlobalWrite::Store`]); or at the commit ([`GlobalWrite::Atomic`], and
    /// every instruction its warp issues after a held store or an atomic in the same cycle,
    /// `chain`, so that the warp's instructions see memory in program order). One that
    /// executes at the commit holds its collector unit, issue id and scoreboard entries from
    /// now, and [`Sm::commit`] executes it and completes its issue. The warp's next PC after
    /// straight-line code is known without executing it, so the warp fetches on; after a
    /// branch, call, return, barrier or exit it is not known before the commit, and the warp
    /// fetches nothing more this cycle.
    fn try_issue(
        &mut self,
        slot: usize,
        now: u64,
        after: Option<Unit>,
        chain: Chain,
    ) -> Result<(Unit, Executes), Issue> {
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
        let d = self.code.get(func, pc).in_frame(w.frame);
        let d = &*d;
        if after.is_some_and(|u| u == d.unit) {
            return Err(Issue::Stall(Stall::Structural));
        }
        if let AsyncCopyRole::Wait { n, all } = d.async_copy
            && !w.copies.wait_may_pass(n, all)
        {
            return Err(Issue::Stall(Stall::Data));
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
        if wait == Some(true) && w.sb_wait.is_none() {
            let cta = self.ctas[w.cta].as_ref().expect("a live warp's CTA");
            self.residency
                .on_long_wait(slot as u32, &cta.stepper.warps[w.index], now);
        }
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
        let pool_bit = 1u64 << self.collector.pool(slot, d.unit.index() as u8);
        let cu = if self.cycle_no_cu & pool_bit != 0 {
            None
        } else {
            self.collector.free_unit(slot, d.unit)
        };
        let Some(cu) = cu else {
            self.cycle_no_cu |= pool_bit;
            self.cycle_collector_full += 1;
            return Err(Issue::Stall(Stall::Structural));
        };
        self.residency
            .may_issue(slot as u32, func, pc, now)
            .map_err(Issue::Stall)?;
        // Execute it (its stores held back), unless it is an atomic or follows a global write
        // of its warp in this cycle: then when the cycle commits.
        let how = match d.global_write {
            _ if chain.defer => Executes::AtCommit,
            GlobalWrite::Atomic => Executes::AtCommit,
            GlobalWrite::Store => Executes::HoldingStores,
            GlobalWrite::None => Executes::Now,
        };
        let deferred = how == Executes::AtCommit;
        if !deferred {
            let cta = self.ctas[w.cta].as_mut().expect("a live warp's CTA");
            // `%clock` reads the cycle of issue (GPGPU-Sim executes at issue too).
            cta.stepper.set_clock(now);
            if how == Executes::HoldingStores {
                cta.stepper
                    .step_holding_stores(w.index, &mut self.exec, &mut self.held)
                    .map_err(Issue::Fault)?;
                self.at_commit.push(AtCommit::Stores(self.held.len()));
            } else {
                cta.stepper
                    .step(w.index, &mut self.exec)
                    .map_err(Issue::Fault)?;
            }
        }
        // It issues. First what does not depend on what it did.
        w.ibuf.pop_front();
        w.sb_ok = None;
        w.sb.reserve(&d.sb_writes, d.long_latency);
        w.outstanding += 1;
        let async_group = w.copies.on_issue(d.async_copy);
        // In-flight entries are recycled with their buffers: no allocation per instruction.
        let idx = self.free_inflight.pop().unwrap_or_else(|| {
            self.inflight.push(InFlight::default());
            self.inflight.len() - 1
        });
        let uid = self.next_uid;
        self.next_uid += 1;
        let f = &mut self.inflight[idx];
        f.uid = uid;
        f.slot = slot;
        f.unit = d.unit;
        f.latency = d.timing.latency;
        f.initiation = d.timing.initiation;
        f.writes.clone_from(&d.sb_writes);
        f.async_group = async_group;
        f.func = func.0;
        f.pc = pc;
        f.issued_at = now;
        f.ready = 0;
        f.unresolved = 0;
        if let Some(t) = &mut self.trace {
            t.inst(SpanKind::Issue, slot, now, now + 1, func.0, pc);
        }
        let entry = self.collector.reserve(cu, now, idx, d.unit);
        let mut issue = Issued {
            slot,
            inst: idx,
            cu,
            entry,
            next: None,
        };
        if deferred {
            if d.control == Control::None {
                // Straight-line code: where the warp goes next is known, so it fetches on.
                let cta = self.ctas[w.cta].as_ref().expect("a live warp's CTA");
                w.next = cta.stepper.next_in_line(w.index, chain.unexecuted + 1);
                issue.next = Some(w.next);
                if w.ibuf.is_empty() {
                    self.fetch_mask |= 1 << slot;
                }
            } else {
                // Nowhere known before the commit (which refreshes it).
                w.next = None;
            }
            self.heads.sync(w, slot);
            self.at_commit.push(AtCommit::Issue(issue));
        } else {
            self.complete_issue(issue, d, now);
        }
        self.issued = true;
        self.active = true;
        Ok((d.unit, how))
    }

    /// Makes this cycle's global-memory writes in issue order: the stores held back, and the
    /// instructions whose execution waited, which it executes and whose issue it completes.
    /// (A warp's instructions of one cycle are in program order.)
    pub(super) fn commit_global(&mut self, now: u64) -> Result<(), Box<Fault>> {
        let at_commit = std::mem::take(&mut self.at_commit);
        let mut result = Ok(());
        let mut stores = 0;
        for &next in &at_commit {
            match next {
                AtCommit::Stores(end) => {
                    let mem = self.source.expect("a launch's source").launch.mem;
                    for s in &self.held[stores..end] {
                        mem.store(s.addr, s.size, s.value)
                            .expect("a held store was checked when it was held");
                    }
                    stores = end;
                }
                AtCommit::Issue(issue) => {
                    let w = &self.warps[issue.slot];
                    let f = &self.inflight[issue.inst];
                    let (func, pc) = (isa::FuncId(f.func), f.pc);
                    let d = self.code.get(func, pc).in_frame(w.frame);
                    let cta = self.ctas[w.cta].as_mut().expect("a live warp's CTA");
                    // Issued this cycle, executed at its commit: `%clock` reads this cycle.
                    cta.stepper.set_clock(now);
                    if let Err(fault) = cta.stepper.step(w.index, &mut self.exec) {
                        result = Err(fault);
                        break;
                    }
                    debug_assert!(
                        issue.next.is_none_or(|next| next == self.exec.next),
                        "the next PC foreseen at issue"
                    );
                    self.complete_issue(issue, &d, now);
                }
            }
        }
        self.at_commit = at_commit;
        self.at_commit.clear();
        self.held.clear();
        result
    }

    /// What issuing an instruction does once it has executed (`self.exec`): counters, the
    /// warp's next instruction, barrier releases, its memory work and its bank reads.
    #[inline]
    fn complete_issue(&mut self, issue: Issued, d: &Decoded, now: u64) {
        let Issued {
            slot,
            inst: idx,
            cu,
            entry,
            ..
        } = issue;
        let w = &mut self.warps[slot];
        let exec = &self.exec;
        count_issued(&mut self.stats, d, exec, self.cfg.sm.rf.read_duplicates);
        if exec.exited {
            self.residency.on_exit(slot as u32, now);
            self.power.on_exit(slot as u32, now);
            w.exited = true;
            self.running_mask &= !(1 << slot);
            let n = self.schedulers.len();
            self.schedulers[slot % n].exited(slot);
            w.ibuf.clear();
            self.retire_check = true;
        }
        w.next = exec.next;
        w.frame = exec.next_frame;
        if exec.sleep_ns > 0 {
            // `nanosleep`: nothing after it is available before the sleep ends.
            let cycles =
                (u64::from(exec.sleep_ns) * u64::from(self.cfg.gpu.clock_mhz)).div_ceil(1000);
            w.sleep_until = now + cycles;
            for entry in &mut w.ibuf {
                entry.2 = entry.2.max(w.sleep_until);
            }
            self.sleeps_until = self.sleeps_until.max(w.sleep_until);
        }
        if d.control != Control::None && w.ibuf.front().map(|&(f, p, _)| (f, p)) != w.next {
            // Control flow resolved at issue: drop buffered instructions from the old path.
            w.ibuf.clear();
        }
        if w.ibuf.is_empty() && !w.exited {
            self.fetch_mask |= 1 << slot;
        }
        self.heads.sync(w, slot);
        // A barrier this instruction completed lets other warps go.
        let cta_index = w.cta;
        let cta = self.ctas[cta_index].as_ref().expect("a live warp's CTA");
        let mut released = exec.released;
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
        let f = &mut self.inflight[idx];
        let func = isa::FuncId(f.func);
        let view = IssueView {
            uid: f.uid,
            now,
            warp: slot as u32,
            cta: cta_index as u32,
            func,
            pc: f.pc,
            active: exec.active,
            exec: exec.exec,
            live: exec.live,
            decoded: d,
            hints: self.program.hints(func),
            frame: exec.frame,
            writes: &exec.writes,
            targets: &exec.targets,
        };
        // A load whose data the technique holds in registers makes no memory access.
        let served = d.mem.is_load() && self.rf.serves_load(&view);
        memory_work(
            self.cfg,
            exec,
            if served { MemOp::None } else { d.mem },
            self.id,
            slot,
            &mut self.stats.ldst,
            &mut f.mem,
        );
        let (rf, power) = (&mut self.rf, &mut self.power);
        self.collector.plan(cu, entry, |reads| {
            rf.plan_reads(&view, reads);
            power.on_issue(&view, reads);
        });
    }
}

/// How an issued instruction executes ([`Sm::try_issue`]'s answer).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Executes {
    Now,
    /// At issue, its global stores held back until the commit.
    HoldingStores,
    /// At the commit.
    AtCommit,
}

/// What the instructions a warp issued earlier in the cycle mean for the next one.
#[derive(Clone, Copy, Debug, Default)]
struct Chain {
    /// One of them wrote global memory (held stores, or an atomic): the next executes at the
    /// commit.
    defer: bool,
    /// Of them, those that execute at the commit (not executed yet).
    unexecuted: usize,
}

impl Chain {
    fn after(&mut self, how: Executes) {
        match how {
            Executes::Now => {}
            Executes::HoldingStores => self.defer = true,
            Executes::AtCommit => {
                self.defer = true;
                self.unexecuted += 1;
            }
        }
    }
}

/// What waits for the commit of the cycle ([`Sm::commit_global`]), in issue order.
#[derive(Clone, Copy, Debug)]
pub(super) enum AtCommit {
    /// The stores held back by an instruction: `held[..end]` after the earlier ones'.
    Stores(usize),
    /// An instruction to execute.
    Issue(Issued),
}

/// An issued instruction as the end of its issue needs it: warp slot, in-flight entry,
/// collector unit and the unit's entry; and for straight-line code that waits for the commit,
/// the next PC foreseen at issue (checked in debug builds).
#[derive(Clone, Copy, Debug)]
pub(super) struct Issued {
    slot: usize,
    inst: usize,
    cu: usize,
    entry: usize,
    next: Option<Option<(isa::FuncId, u32)>>,
}

/// Counts an issued instruction: instructions, thread instructions, sources, and the width
/// class of every register read and written, in total and for its opcode class, as the
/// stepper classified them: the reads the collector makes (a register named again counts
/// again only when `duplicates` says it is read again), the writes, and the `bar.red` results
/// a barrier release wrote (only a barrier or an exit, control instructions, releases one).
fn count_issued(stats: &mut TimingStats, d: &Decoded, exec: &Executed, duplicates: ReadDuplicates) {
    stats.warp_insts += 1;
    stats.gpu_sim_insn += u64::from(exec.active.count_ones());
    stats.insts_by_sources[d.reads.len().min(4)] += 1;
    let class = &mut stats.by_class[d.class.index()];
    class.warp_insts += 1;
    let each = duplicates == ReadDuplicates::Each;
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
}

/// Why an instruction did not issue.
enum Issue {
    Stall(Stall),
    /// Blocked on a long-latency result (the two-level scheduler demotes the warp).
    LongWait,
    Fault(Box<Fault>),
}
