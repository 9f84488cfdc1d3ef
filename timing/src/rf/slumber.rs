//! Slumber (seed 002, chapter 6): static-power management of the register file, one warp
//! register (128 bytes) at a time.
//!
//! Each warp register is on, in shallow sleep (0.9 V), in deep sleep (0.3 V) or off
//! (power-gated), with the wake-up latencies and leakage shares of `sm.rf.slumber` (the seed's
//! Table 6.1: 4, 13 and 16 cycles; 94%, 42% and 0% of the on leakage). Off loses the value,
//! so only a register whose next access is a write (its value dead) may go off.
//!
//! **The model.** A register is busy from an access request to the access's completion: from
//! the issue of an instruction reading it until that instruction leaves its collector unit
//! (every operand read), and for the write of a result until its write-back. Between two busy
//! periods it rests in one state, chosen when the rest begins from
//!
//! - the next access type, from the compiler (`isa::hints`, the seed's 1-bit flag of §6.3.1
//!   computed exactly from liveness): after a read with its last-use bit set, or a write of a
//!   value no path reads, the value is dead and the register may go off. While the warp is
//!   diverged (lanes alive but not active) a value one side no longer reads may still be
//!   needed by the lanes waiting on the other, so the register only sleeps state-retentive;
//!   once the warp has exited every register goes off (§6.3.2, case 3);
//! - the predicted idle period `p`: the register's previous idle period ending in an access
//!   of the same type (from the end of one busy period to the next read, or to the next
//!   write: the seed's Figure 6.2 shows the two differ), capped at `max_idle` (the seed's
//!   10-bit counter per register, §6.3.4), 0 for a register with no history. A rest that
//!   outlives its prediction goes on as a new phase predicting twice as long (the counter
//!   reloaded), so a short prediction costs a few on cycles, not a long on rest.
//!
//! Its sources are known once an instruction is decoded into the warp's instruction buffer:
//! a resting register starts waking then (the seed's instruction-buffer and warp-scheduler
//! signals), so an instruction waiting in the buffer longer than the wake-up finds its
//! registers on; if its read does not come before the rest's predicted end, the register
//! sleeps again in the next phase.
//!
//! The rest state is the one leaking least over `p` cycles when its wake-up, charged at the
//! on leakage, ends exactly at the predicted access: `(p − wake) × share + wake`, on (`p`)
//! when no state sleeps at all (the break-even rule of §6.2: shallow for 6-cycle waits, deep
//! above 14 cycles, off above 20 for a dead value at the default shares). The counter starts
//! the wake-up `wake` cycles before the predicted access (§6.1.2, conservative wake-up).
//!
//! **Wake-ups.** A read requested while its register is still asleep starts the wake-up then
//! (the request reaches the register file the cycle after issue); the bank read is not granted
//! until the register is on ([`BankReq::ready_at`]), so a read of a register in deep sleep
//! costs exactly the 13 cycles. A register a result will be written to is woken by the write:
//! the instruction names it at issue, so the wake-up starts no earlier than the issue and no
//! later than `wake` cycles before the write-back is due (when the SM schedules it, its cycle
//! is known: the latency of an ALU pipeline, or the memory system's answer), and a counter
//! wake-up already under way goes on; a write-back that would find its register still waking
//! waits (§6.3.2, cases 1 and 2: a register waiting on a long-latency result sleeps off
//! until just before it arrives). Waking registers leak as on.
//!
//! **Accounting** is by timestamps, never per cycle: each register's state is a function of
//! the cycles of its events, so skipping idle cycles changes nothing, and the only waits the
//! policy creates are reads' `ready_at` (reported by [`Slumber::next_wake`]) and delayed
//! write-backs (on the SM's event queue). Registers a warp never accessed are off: the
//! allocated register-cycles not on, in shallow or in deep sleep are off cycles.
//!
//! Differences from the seed: the seed predicts a memory result's latency from its L1/L2
//! hit state and wakes the register at that level's minimum latency; the SM here knows the
//! write-back cycle when it schedules it, so the wake-up ends exactly at the write (no wasted
//! on cycles before it). The seed's warp scheduler also wakes the registers of the next three
//! warps it will issue; here a read's wake-up starts at its request, unless the register's
//! counter started it earlier.

use super::{BankReq, IssueView, TechniqueReport};
use crate::config::{GpuConfig, SlumberConfig};
use crate::decode::PRED_BASE;
use crate::energy::PowerStateCycles;
use std::collections::BTreeMap;

/// A warp register's power state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PowerState {
    On,
    Shallow,
    Deep,
    Off,
}

impl PowerState {
    const SLEEPS: [PowerState; 3] = [PowerState::Shallow, PowerState::Deep, PowerState::Off];

    fn name(self) -> &'static str {
        match self {
            PowerState::On => "on",
            PowerState::Shallow => "shallow",
            PowerState::Deep => "deep",
            PowerState::Off => "off",
        }
    }
}

/// One warp register.
#[derive(Clone, Copy, Debug)]
struct Reg {
    /// The rest state: asleep in `sleep` from `since` until `wake_at`, then waking up and on
    /// (`sleep` is `On` while busy or resting on; `since` is then when it came on).
    sleep: PowerState,
    since: u64,
    wake_at: u64,
    /// When the register is on again after the wake-up under way (while busy).
    awake_at: u64,
    /// Where the last rest began, for the idle period of the next access (`None`: no access
    /// yet since allocation).
    rest_since: Option<u64>,
    /// Predicted idle period before a read and before a write (the last measured of each),
    /// cycles.
    predicted: [u64; 2],
    /// The current phase of the rest: its predicted length and end (`u64::MAX`: the rest
    /// lasts until the next access).
    phase: u64,
    phase_end: u64,
    /// Instructions issued that read it and have not left their collector unit.
    readers: u32,
    /// A result is being written to it (issued at `write_issue`, not written back).
    writing: bool,
    write_issue: u64,
    /// The value is dead after the accesses under way (the next access is a write).
    dead_next: bool,
    /// The value being written is dead (no path reads it).
    dead_after_write: bool,
}

impl Reg {
    /// A register just allocated: off, no counter running, no history.
    fn fresh(now: u64) -> Reg {
        Reg {
            sleep: PowerState::Off,
            since: now,
            wake_at: u64::MAX,
            awake_at: now,
            rest_since: None,
            predicted: [0; 2],
            phase: 0,
            phase_end: u64::MAX,
            readers: 0,
            writing: false,
            write_issue: 0,
            dead_next: true,
            dead_after_write: false,
        }
    }

    fn busy(&self) -> bool {
        self.readers > 0 || self.writing
    }
}

/// A warp slot's registers.
#[derive(Clone, Debug, Default)]
struct WarpRegs {
    regs: Vec<Option<Reg>>,
    exited: bool,
}

/// Counters (`power` in the statistics, under the name `slumber`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Counters {
    /// Register-cycles in each state (off only for registers accessed since allocation;
    /// [`Slumber::power_states`] adds the others).
    on: u64,
    shallow: u64,
    deep: u64,
    off: u64,
    /// Rests begun in each sleeping state.
    sleeps: [u64; 3],
    /// Wake-ups from each sleeping state, and those the counter started before the access.
    wakeups: [u64; 3],
    wakeups_early: [u64; 3],
    /// Reads that waited for their register to wake up, and the cycles they waited beyond
    /// the cycle they could have been granted.
    reads_waited: u64,
    read_wake_cycles: u64,
    /// Write-backs delayed until their registers were on, and the cycles they waited.
    writes_waited: u64,
    write_wake_cycles: u64,
    /// Rests begun on (the predicted idle period too short for any sleep).
    rests_on: u64,
}

/// Slumber for one SM (see the module docs).
pub struct Slumber {
    cfg: SlumberConfig,
    warps: Vec<WarpRegs>,
    /// The registers each instruction still in a collector unit reads, by issue id.
    reading: BTreeMap<u64, (u32, Vec<u32>)>,
    /// The `ready_at` cycles of reads still waiting in collector units, with their counts.
    waking: BTreeMap<u64, u32>,
    /// The `ready_at` cycles each instruction's reads got (removed at dispatch).
    ready_of: BTreeMap<u64, Vec<u64>>,
    c: Counters,
}

impl Slumber {
    pub fn new(cfg: &GpuConfig) -> Slumber {
        Slumber {
            cfg: cfg.sm.rf.slumber.clone(),
            warps: (0..cfg.sm.max_warps).map(|_| WarpRegs::default()).collect(),
            reading: BTreeMap::new(),
            waking: BTreeMap::new(),
            ready_of: BTreeMap::new(),
            c: Counters::default(),
        }
    }

    fn wake(&self, s: PowerState) -> u64 {
        u64::from(match s {
            PowerState::On => 0,
            PowerState::Shallow => self.cfg.shallow_wake,
            PowerState::Deep => self.cfg.deep_wake,
            PowerState::Off => self.cfg.off_wake,
        })
    }

    fn share(&self, s: PowerState) -> f64 {
        match s {
            PowerState::On => 1.0,
            PowerState::Shallow => self.cfg.shallow_leakage,
            PowerState::Deep => self.cfg.deep_leakage,
            PowerState::Off => self.cfg.off_leakage,
        }
    }

    /// The state leaking least over a rest of `p` cycles whose wake-up ends at its end (off
    /// only for a dead value); on when no state sleeps a cycle. Ties keep the shallower state.
    pub fn choose(&self, p: u64, dead: bool) -> PowerState {
        let mut best = (PowerState::On, p as f64);
        for s in PowerState::SLEEPS {
            let w = self.wake(s);
            if p <= w || (s == PowerState::Off && !dead) {
                continue;
            }
            let energy = (p - w) as f64 * self.share(s) + w as f64;
            if energy < best.1 {
                best = (s, energy);
            }
        }
        best.0
    }

    fn reg(&mut self, warp: u32, reg: u32, now: u64) -> &mut Reg {
        let regs = &mut self.warps[warp as usize].regs;
        if regs.len() <= reg as usize {
            regs.resize(reg as usize + 1, None);
        }
        regs[reg as usize].get_or_insert_with(|| Reg::fresh(now))
    }

    fn add_cycles(c: &mut Counters, s: PowerState, cycles: u64) {
        match s {
            PowerState::On => c.on += cycles,
            PowerState::Shallow => c.shallow += cycles,
            PowerState::Deep => c.deep += cycles,
            PowerState::Off => c.off += cycles,
        }
    }

    fn index(s: PowerState) -> usize {
        match s {
            PowerState::Shallow => 0,
            PowerState::Deep => 1,
            _ => 2,
        }
    }

    /// Ends the rest of `r` with a wake-up starting at `start` (not before the rest began,
    /// not after the counter's): the register is on from then, until its access completes.
    /// Returns when it is on.
    fn wake_at(c: &mut Counters, wake: u64, r: &mut Reg, start: u64) -> u64 {
        if r.sleep == PowerState::On {
            return r.awake_at.max(r.since);
        }
        debug_assert!(start >= r.since && start <= r.wake_at);
        let i = Self::index(r.sleep);
        c.wakeups[i] += 1;
        if start == r.wake_at {
            c.wakeups_early[i] += 1;
        }
        Self::add_cycles(c, r.sleep, start - r.since);
        r.sleep = PowerState::On;
        r.since = start;
        r.wake_at = start;
        r.awake_at = start + wake;
        r.awake_at
    }

    /// The idle period ending with an access at `t` (a write or a read) becomes the
    /// prediction for the next idle period ending in the same kind of access.
    fn measure(&self, r: &mut Reg, t: u64, write: bool) {
        if let Some(rest) = r.rest_since {
            r.predicted[usize::from(write)] =
                t.saturating_sub(rest).min(u64::from(self.cfg.max_idle));
        }
    }

    /// Starts a rest phase of predicted length `p` at `start`: the state `choose` picks for
    /// it, the counter set to wake the register `wake` cycles before the phase ends.
    fn begin_phase(&mut self, r: &mut Reg, start: u64, p: u64) {
        let s = self.choose(p, r.dead_next);
        r.sleep = s;
        r.since = start;
        r.phase = p;
        r.phase_end = start + p;
        // `choose` sleeps only when the prediction is longer than the wake-up.
        r.wake_at = start + p - self.wake(s);
        r.awake_at = start;
        if s == PowerState::On {
            self.c.rests_on += 1;
        } else {
            self.c.sleeps[Self::index(s)] += 1;
        }
    }

    /// A resting register whose phases ended before `t` without an access: each phase is
    /// accounted (asleep, then woken by its counter) and the next predicts twice as long, up
    /// to `max_idle` (the counter reloaded after a prediction that came short).
    fn advance(&mut self, r: &mut Reg, t: u64) {
        while r.phase_end < t {
            if r.sleep == PowerState::On {
                self.c.on += r.phase_end - r.since;
            } else {
                let i = Self::index(r.sleep);
                self.c.wakeups[i] += 1;
                self.c.wakeups_early[i] += 1;
                Self::add_cycles(&mut self.c, r.sleep, r.wake_at - r.since);
                self.c.on += r.phase_end - r.wake_at;
            }
            let p = (2 * r.phase).clamp(1, u64::from(self.cfg.max_idle));
            let end = r.phase_end;
            self.begin_phase(r, end, p);
        }
    }

    /// A read of register `reg` of warp slot `warp` requested at cycle `t` (the cycle after
    /// its instruction issued) by an instruction after which the value is dead or not.
    /// Returns the first cycle the bank may grant it.
    pub fn read(&mut self, warp: u32, reg: u32, t: u64, dead_after: bool) -> u64 {
        let mut r = *self.reg(warp, reg, t);
        if !r.busy() {
            self.advance(&mut r, t);
            self.measure(&mut r, t, false);
            r.phase_end = u64::MAX;
        }
        let ready = if r.sleep == PowerState::On {
            r.awake_at.max(t)
        } else {
            // The counter's wake-up if it started in time, else one starting now.
            let start = r.wake_at.min(t);
            let wake = self.wake(r.sleep);
            Self::wake_at(&mut self.c, wake, &mut r, start).max(t)
        };
        r.readers += 1;
        r.dead_next = dead_after;
        if ready > t {
            self.c.reads_waited += 1;
            self.c.read_wake_cycles += ready - t;
        }
        *self.reg(warp, reg, t) = r;
        ready
    }

    /// An instruction that will read `reg` was decoded into the warp's instruction buffer, its
    /// source registers known from cycle `t` on: a resting register starts waking then, unless
    /// its counter started earlier (the seed's instruction buffer and scheduler signals,
    /// §6.3.3–6.3.4). A register being accessed is on, or will be, anyway. Nothing else happens
    /// to a resting register of the warp before `t` (its buffer was empty: nothing of it
    /// issues), so its rest is accounted up to `t` now.
    pub fn decoded(&mut self, warp: u32, reg: u32, t: u64) {
        let mut r = *self.reg(warp, reg, t);
        if r.busy() || r.rest_since.is_none() {
            return;
        }
        self.advance(&mut r, t);
        if r.sleep != PowerState::On && r.wake_at > t {
            r.wake_at = t.max(r.since);
        }
        *self.reg(warp, reg, t) = r;
    }

    /// A read of `reg` (requested by [`Slumber::read`]) completed at `now`: its instruction
    /// left the collector unit.
    pub fn read_done(&mut self, warp: u32, reg: u32, now: u64) {
        let r = self.reg(warp, reg, now);
        debug_assert!(r.readers > 0);
        r.readers -= 1;
        if !r.busy() {
            self.rest(warp, reg, now);
        }
    }

    /// An instruction issued at `now` will write `reg` with a value dead or not.
    pub fn write_issued(&mut self, warp: u32, reg: u32, now: u64, dead_after: bool) {
        let mut r = *self.reg(warp, reg, now);
        debug_assert!(!r.writing, "the scoreboard orders writes to one register");
        if !r.busy() {
            self.advance(&mut r, now);
            r.phase_end = u64::MAX;
        }
        r.writing = true;
        r.write_issue = now;
        r.dead_after_write = dead_after;
        // The write will wake the register in time: a counter not yet started is cancelled.
        if r.sleep != PowerState::On && r.wake_at > now {
            r.wake_at = u64::MAX;
        }
        *self.reg(warp, reg, now) = r;
    }

    /// The write-back to `reg` is due at `due` (scheduled at `now`): when the register will be
    /// on to take it.
    pub fn write_due(&mut self, warp: u32, reg: u32, now: u64, due: u64) -> u64 {
        let mut r = *self.reg(warp, reg, now);
        debug_assert!(r.writing);
        let ready = if r.sleep == PowerState::On {
            self.measure(&mut r, due, true);
            r.awake_at.max(r.since).max(due)
        } else {
            self.measure(&mut r, due, true);
            let wake = self.wake(r.sleep);
            let latest = r.write_issue.max(r.since).max(due.saturating_sub(wake));
            let start = r.wake_at.min(latest);
            Self::wake_at(&mut self.c, wake, &mut r, start).max(due)
        };
        *self.reg(warp, reg, now) = r;
        ready
    }

    /// `reg` was written back at `now`.
    pub fn written(&mut self, warp: u32, reg: u32, now: u64) {
        let r = self.reg(warp, reg, now);
        debug_assert!(r.writing && r.sleep == PowerState::On);
        r.writing = false;
        r.dead_next = r.dead_after_write;
        if !r.busy() {
            self.rest(warp, reg, now);
        }
    }

    /// The access under way ended at `now`: the register rests in the state its prediction and
    /// next access type choose.
    fn rest(&mut self, warp: u32, reg: u32, now: u64) {
        let exited = self.warps[warp as usize].exited;
        let mut r = *self.reg(warp, reg, now);
        debug_assert_eq!(r.sleep, PowerState::On);
        self.c.on += now - r.since;
        r.rest_since = Some(now);
        if exited {
            // An exited warp's registers are not woken again.
            r.sleep = PowerState::Off;
            r.since = now;
            r.wake_at = u64::MAX;
            r.phase_end = u64::MAX;
            self.c.sleeps[2] += 1;
        } else {
            // A dead value's next access is a write.
            let p = r.predicted[usize::from(r.dead_next)];
            self.begin_phase(&mut r, now, p);
        }
        *self.reg(warp, reg, now) = r;
    }

    /// Accounts a resting register's cycles up to `now` (its counters' wake-ups included if
    /// they started) and leaves it resting in `then` from `now`, with no counter running.
    fn settle(&mut self, r: &mut Reg, now: u64, then: PowerState) {
        self.advance(r, now);
        if r.sleep == PowerState::On {
            self.c.on += now - r.since;
        } else {
            let asleep_until = r.wake_at.min(now);
            Self::add_cycles(&mut self.c, r.sleep, asleep_until - r.since);
            if r.wake_at < now {
                let i = Self::index(r.sleep);
                self.c.wakeups[i] += 1;
                self.c.wakeups_early[i] += 1;
                self.c.on += now - r.wake_at;
            }
        }
        r.sleep = then;
        r.since = now;
        r.wake_at = u64::MAX;
        r.phase_end = u64::MAX;
    }

    /// The warp in slot `warp` exited at `now`: every register not being accessed goes off
    /// (the others when their access completes).
    pub fn on_exit(&mut self, warp: u32, now: u64) {
        self.warps[warp as usize].exited = true;
        let mut regs = std::mem::take(&mut self.warps[warp as usize].regs);
        for r in regs.iter_mut().flatten() {
            if !r.busy() {
                self.settle(r, now, PowerState::Off);
                self.c.sleeps[2] += 1;
            }
        }
        self.warps[warp as usize].regs = regs;
    }

    /// The warp in slot `warp` retired at `now`: its registers are freed (the next warp's
    /// start off).
    pub fn on_warp_retire(&mut self, warp: u32, now: u64) {
        let w = std::mem::take(&mut self.warps[warp as usize]);
        for mut r in w.regs.into_iter().flatten() {
            debug_assert!(!r.busy(), "a retired warp has nothing in flight");
            self.settle(&mut r, now, PowerState::Off);
        }
    }

    /// An instruction issued: marks the reads of sleeping registers with the cycle they may
    /// be granted (`reads` are the baseline's planned reads, one per register of
    /// `i.decoded.reads`, in order) and notes the registers it will write.
    pub fn on_issue(&mut self, i: &IssueView, reads: &mut [BankReq]) {
        debug_assert_eq!(reads.len(), i.decoded.reads.len());
        // Lanes alive but not active wait on the SIMT stack: values this path no longer reads
        // may be theirs.
        let diverged = i.active != i.live;
        let gpr = i.frame.gpr;
        let mut regs = Vec::with_capacity(reads.len());
        let mut ready = Vec::new();
        for (req, &reg) in reads.iter_mut().zip(&i.decoded.reads) {
            let dead = !diverged
                && reg
                    .checked_sub(gpr)
                    .is_some_and(|local| i.hints.last_use(i.pc, local));
            let t = i.now + 1;
            let at = self.read(i.warp, reg, t, dead);
            if at > t {
                req.ready_at = at;
                *self.waking.entry(at).or_default() += 1;
                ready.push(at);
            }
            regs.push(reg);
        }
        if !regs.is_empty() {
            self.reading.insert(i.uid, (i.warp, regs));
        }
        if !ready.is_empty() {
            self.ready_of.insert(i.uid, ready);
        }
        let live_out = i.hints.live_out(i.pc);
        for &reg in i.decoded.sb_writes.iter().filter(|&&r| r < PRED_BASE) {
            let dead = !diverged
                && reg
                    .checked_sub(gpr)
                    .is_some_and(|local| local < i.hints.num_regs() && !live_out.contains(local));
            self.write_issued(i.warp, reg, i.now, dead);
        }
    }

    /// Instruction `uid` of warp slot `warp` left its collector unit at `now`: its reads are
    /// done.
    pub fn on_dispatch(&mut self, warp: u32, uid: u64, now: u64) {
        if let Some(ready) = self.ready_of.remove(&uid) {
            for at in ready {
                let n = self.waking.get_mut(&at).expect("recorded at issue");
                *n -= 1;
                if *n == 0 {
                    self.waking.remove(&at);
                }
            }
        }
        if let Some((w, regs)) = self.reading.remove(&uid) {
            debug_assert_eq!(w, warp);
            for reg in regs {
                self.read_done(warp, reg, now);
            }
        }
    }

    /// The write-back of `writes` (scoreboard identities; predicates have no bank) of warp
    /// slot `warp`, scheduled at `now`, is due at `due`: the cycle it happens, when every
    /// register written is on.
    pub fn schedule_write(&mut self, warp: u32, writes: &[u32], now: u64, due: u64) -> u64 {
        let mut at = due;
        for &reg in writes.iter().filter(|&&r| r < PRED_BASE) {
            at = at.max(self.write_due(warp, reg, now, due));
        }
        if at > due {
            self.c.writes_waited += 1;
            self.c.write_wake_cycles += at - due;
        }
        at
    }

    /// The registers `writes` of warp slot `warp` were written back at `now`.
    pub fn on_write(&mut self, warp: u32, writes: &[u32], now: u64) {
        for &reg in writes.iter().filter(|&&r| r < PRED_BASE) {
            self.written(warp, reg, now);
        }
    }

    /// The first cycle after `now` at which a read waiting for its register becomes ready.
    pub fn next_wake(&self, now: u64) -> Option<u64> {
        self.waking.range(now + 1..).next().map(|(&at, _)| at)
    }

    /// The register-cycles by state out of `allocated` (the residency policy's): registers
    /// never accessed, and those accessed but off, are off. Meaningful once every warp retired.
    pub fn power_states(&self, allocated: u64) -> PowerStateCycles {
        let c = &self.c;
        PowerStateCycles {
            on: c.on,
            shallow: c.shallow,
            deep: c.deep,
            off: allocated.saturating_sub(c.on + c.shallow + c.deep),
        }
    }

    /// Adds the counters to `out`.
    pub fn report(&self, out: &mut TechniqueReport) {
        let c = &self.c;
        for s in PowerState::SLEEPS {
            let i = Self::index(s);
            let name = s.name();
            out.add(&format!("sleeps_{name}"), c.sleeps[i]);
            out.add(&format!("wakeups_{name}"), c.wakeups[i]);
            out.add(&format!("wakeups_{name}_early"), c.wakeups_early[i]);
        }
        out.add("rests_on", c.rests_on);
        out.add("reads_waited", c.reads_waited);
        out.add("read_wake_cycles", c.read_wake_cycles);
        out.add("writes_waited", c.writes_waited);
        out.add("write_wake_cycles", c.write_wake_cycles);
        out.add("off_cycles_accessed", c.off);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> GpuConfig {
        GpuConfig::load("gtx480", &["sm.rf.power=slumber".into()]).unwrap()
    }

    /// A register (allocated off) predicted to idle 20 cycles before a read and 40 before a
    /// write, written back at 16 by an instruction issued at 0 (its wake-up from off ends
    /// exactly then) with a value dead or not.
    fn written_at_16(s: &mut Slumber, reg: u32, dead: bool) {
        s.reg(0, reg, 0).predicted = [20, 40];
        s.write_issued(0, reg, 0, dead);
        assert_eq!(
            s.schedule_write(0, &[reg], 0, 16),
            16,
            "woken from off in time"
        );
        s.on_write(0, &[reg], 16);
        assert_eq!(s.c.wakeups, [0, 0, 1]);
    }

    #[test]
    fn the_rest_state_breaks_even_with_the_seeds_table() {
        let s = Slumber::new(&config());
        assert_eq!(s.choose(3, true), PowerState::On);
        assert_eq!(
            s.choose(4, true),
            PowerState::On,
            "a 4-cycle rest is all wake-up"
        );
        assert_eq!(
            s.choose(6, false),
            PowerState::Shallow,
            "the seed's integer multiply"
        );
        assert_eq!(s.choose(14, false), PowerState::Shallow);
        assert_eq!(s.choose(15, false), PowerState::Deep);
        assert_eq!(s.choose(20, true), PowerState::Deep);
        assert_eq!(s.choose(21, true), PowerState::Off);
        assert_eq!(
            s.choose(1000, false),
            PowerState::Deep,
            "a live value never goes off"
        );
    }

    #[test]
    fn a_register_in_deep_sleep_costs_exactly_13_cycles_on_its_next_read() {
        let mut s = Slumber::new(&config());
        // A live value predicted to idle 20 cycles rests in deep sleep from 16, its counter
        // to wake it at 16 + 20 − 13 = 23.
        written_at_16(&mut s, 5, false);
        assert_eq!(s.c.sleeps, [0, 1, 0]);
        // Read at 20, before the counter: the wake-up starts now.
        assert_eq!(s.read(0, 5, 20, false), 20 + 13);
        assert_eq!((s.c.reads_waited, s.c.read_wake_cycles), (1, 13));
        assert_eq!((s.c.wakeups, s.c.wakeups_early), ([0, 1, 1], [0, 0, 0]));
        s.read_done(0, 5, 34);
        // On (waking from off) 0..16, deep 16..20, on (waking, then read) 20..34.
        assert_eq!((s.c.on, s.c.deep), (16 + 14, 4));
        // The collector grants nothing before then, and counts no bank conflict.
        let mut cfg = config();
        cfg.sm.rf.issue_latch = false;
        let mut oc = crate::collector::OperandCollector::new(&cfg);
        let policy = crate::rf::RfPolicy::new(&cfg);
        let cu = oc.free_unit(0, crate::decode::Unit::Sp).unwrap();
        let mut req = crate::rf::BankMap::new(&cfg).access(0, 5, false);
        req.ready_at = 33;
        oc.allocate(cu, 19, 0, crate::decode::Unit::Sp, |r| r.push(req));
        for now in 20..33 {
            assert!(!oc.arbitrate(&policy, now), "cycle {now}");
        }
        assert!(oc.arbitrate(&policy, 33));
        assert_eq!((oc.stats.reads, oc.stats.bank_conflicts), (1, 0));
    }

    #[test]
    fn the_counter_wakes_a_register_in_time_for_its_predicted_read() {
        let mut s = Slumber::new(&config());
        written_at_16(&mut s, 5, false);
        // Read at 36 = 16 + 20, as predicted: woken from 23, on at 36, no wait.
        assert_eq!(s.read(0, 5, 36, false), 36);
        assert_eq!((s.c.wakeups_early, s.c.reads_waited), ([0, 1, 0], 0));
        s.read_done(0, 5, 37);
        // The next rest predicts 36 − 16 = 20 again: deep from 37, woken from 44 until 57.
        // Requested at 46, the read waits 11 cycles.
        assert_eq!(s.read(0, 5, 46, false), 57);
        assert_eq!((s.c.wakeups_early, s.c.read_wake_cycles), ([0, 2, 0], 11));
    }

    #[test]
    fn a_rest_longer_than_predicted_sleeps_again_predicting_twice_as_long() {
        let mut s = Slumber::new(&config());
        written_at_16(&mut s, 5, false);
        // Phases 16..36 (deep, woken at 23), 36..76 (deep, woken at 63), 76..156 (deep, to
        // be woken at 143): read at 100, it wakes on demand.
        assert_eq!(s.read(0, 5, 100, false), 113);
        assert_eq!(s.c.sleeps, [0, 3, 0]);
        assert_eq!((s.c.wakeups, s.c.wakeups_early), ([0, 3, 1], [0, 2, 0]));
        assert_eq!(s.c.deep, 7 + 27 + 24);
        assert_eq!(s.c.on, 16 + 13 + 13);
    }

    #[test]
    fn a_dead_register_goes_off_and_its_next_write_costs_no_wake() {
        let mut s = Slumber::new(&config());
        // A value no one reads, predicted to idle 40 cycles before its next write: off from
        // 16, the counter to wake it at 16 + 40 − 16 = 40.
        written_at_16(&mut s, 7, true);
        assert_eq!(s.c.sleeps, [0, 0, 1]);
        // A load issued at 30 will write it; its data is due at 200 (known at 35): the write
        // cancels the counter and wakes the register for 184..200.
        s.write_issued(0, 7, 30, false);
        assert_eq!(s.schedule_write(0, &[7], 35, 200), 200, "no wait");
        s.on_write(0, &[7], 200);
        assert_eq!((s.c.writes_waited, s.c.write_wake_cycles), (0, 0));
        assert_eq!(s.c.off, 184 - 16, "off until the write's wake-up");
        assert_eq!(s.c.on, 16 + 16);
        assert_eq!(s.c.wakeups, [0, 0, 2]);
        // The value written is live: it rests predicting 20, 40, 80, then 160 cycles in deep
        // sleep (woken for the last 13 of each but the last) until the warp retires at 400.
        s.on_warp_retire(0, 400);
        assert_eq!(s.c.deep, 7 + 27 + 67 + 60);
        let states = s.power_states(400);
        assert_eq!(
            (states.on, states.shallow, states.deep, states.off),
            (32 + 3 * 13, 0, 161, 168)
        );
        // Its leakage over the 400 cycles it was allocated, 0.125 pJ per on register-cycle
        // (87.5 µW at 700 MHz): (71 + 161 × 0.42 + 168 × 0) × 0.125 = 17.3275 pJ, against
        // 50 pJ on.
        let cfg = config();
        let stats = crate::stats::TimingStats {
            rf_counts: crate::energy::RfComponentCounts {
                allocated_register_cycles: 400,
                power_states: Some(states),
                ..Default::default()
            },
            by_class: crate::stats::TimingStats::empty_classes(),
            ..Default::default()
        };
        let e = crate::energy::EnergyReport::compute(&cfg, &stats);
        assert!(
            (e.rf_leakage_pj - 17.3275).abs() < 1e-9,
            "{}",
            e.rf_leakage_pj
        );
    }

    #[test]
    fn a_short_latency_write_to_a_register_off_waits_for_its_wake_up() {
        let mut s = Slumber::new(&config());
        written_at_16(&mut s, 3, true);
        // Off from 16 (counter at 40). An ALU instruction issued at 30 writes it at 36: the
        // wake-up starts at the issue and ends at 46; the write-back waits 10 cycles.
        // Predicates have no bank.
        s.write_issued(0, 3, 30, false);
        assert_eq!(s.schedule_write(0, &[3, PRED_BASE + 1], 32, 36), 46);
        assert_eq!((s.c.writes_waited, s.c.write_wake_cycles), (1, 10));
        s.on_write(0, &[3, PRED_BASE + 1], 46);
        assert_eq!((s.c.off, s.c.on), (30 - 16, 16 + 16));
    }

    #[test]
    fn an_exited_warps_registers_go_off_and_unaccessed_ones_are_off() {
        let mut s = Slumber::new(&config());
        s.reg(0, 1, 0).predicted = [2, 2];
        s.write_issued(0, 1, 0, false);
        s.schedule_write(0, &[1], 0, 16);
        s.on_write(0, &[1], 16);
        // Rests on 16..18 and 18..22 (predictions 2 and 4), shallow from 22 (8: woken at 26).
        // The warp exits at 25 and retires at 40.
        s.on_exit(0, 25);
        s.on_warp_retire(0, 40);
        assert_eq!((s.c.on, s.c.shallow, s.c.off), (22, 3, 15));
        assert_eq!((s.c.rests_on, s.c.sleeps), (2, [1, 0, 1]));
        // Four registers allocated for 40 cycles: the three never accessed are off.
        let states = s.power_states(160);
        assert_eq!((states.on, states.shallow, states.off), (22, 3, 135));
    }

    #[test]
    fn a_register_read_twice_stays_on_until_the_last_read_completes() {
        let mut s = Slumber::new(&config());
        written_at_16(&mut s, 2, false);
        // Deep from 16 (counter at 23). Two readers: the first wakes it (13 cycles), the
        // second waits for the same wake-up.
        assert_eq!(s.read(0, 2, 18, false), 31);
        assert_eq!(s.read(0, 2, 19, false), 31);
        s.read_done(0, 2, 32);
        assert_eq!(s.c.sleeps, [0, 1, 0], "still read by the second");
        s.read_done(0, 2, 33);
        // The idle period 16..18 predicts 2 cycles before a read: it rests on.
        assert_eq!(s.c.rests_on, 1);
        assert_eq!((s.c.reads_waited, s.c.read_wake_cycles), (2, 13 + 12));
    }
}
