//! FineReg (seed 001): CTAs beyond the register limit, by parking stalled CTAs' live registers.
//!
//! **Register file.** The SM's registers are split into an active-CTA register file (ACRF),
//! which works like the baseline's (a running CTA holds every register it was allocated), and
//! a pending-CTA register file (PCRF) that holds only the *live* registers of suspended CTAs
//! (by default half and half: the paper's 128 KB + 128 KB of a 256 KB file). Both are counted
//! in warp registers (128 bytes: one register of 32 lanes).
//!
//! **Admission.** A CTA launches while the ACRF has room for all its registers, up to the
//! limit of everything but registers (CTA slots, threads, shared memory).
//!
//! **Switching.** When every running warp of an active CTA waits on a long-latency result
//! (the SM reports each wait and its end) and another CTA could use its place (a CTA waits to
//! be launched and the SM has a free CTA slot, or a pending CTA is ready), FineReg reads the live registers of each warp: the
//! union of the compiler's live-in sets at the PCs of the warp's SIMT-stack entries (every lane
//! goes on at one of them, so this is exact under divergence); a warp inside a device function
//! counts all its registers. Then, as the paper's Figure 6:
//! - if the PCRF has room, the live registers move there, the CTA becomes pending and its ACRF
//!   space is free for another CTA (a ready pending one first, else a new launch);
//! - otherwise, if a pending CTA is ready (one of its warps could issue) and the PCRF has room
//!   for the stalled CTA once that one leaves, the two swap;
//! - otherwise the CTA stays (`suspensions_refused`) until its data arrives.
//!
//! A stall with no CTA to take the place (`stalls_without_successor`: the grid's last CTAs)
//! moves nothing: the transfer would only delay the CTA's return.
//!
//! A pending CTA whose data arrived resumes as soon as the ACRF has room for it (at a
//! retirement or a move-out), oldest suspension first: the paper's priority for a CTA whose
//! registers are in the PCRF (the paper's other case, a CTA whose context left the pipeline
//! but whose registers stayed in the ACRF, needs Virtual Thread, which warpsim does not model:
//! contexts stay in their warp slots, so resident CTAs never exceed the scheduling limit).
//!
//! **Costs.** A PCRF access takes `access_cycles` (the paper's "at least four"), pipelined: a
//! transfer of `n` warp registers takes `access_cycles + n − 1` cycles; a swap's two transfers
//! overlap. The live-register bit vectors come through a direct-mapped live-info cache indexed
//! by PC (the paper's 32 entries); a miss fetches from off-chip memory
//! (`live_info_miss_cycles`, the misses of one switch in parallel). A CTA resumed, or launched
//! into space a transfer is still emptying, issues when the transfer is done; its warps wait
//! in [`Stall::Registers`] (the paper's register-file depletion), as do a pending CTA's.
//! Not modelled: the bank cycles transfers take from operand reads, and write-backs of loads
//! that return to a pending CTA (they go to the PCRF in the paper) are timed as usual.
//!
//! **Fallback.** A launch runs as under static residency over the whole register file when
//! registers do not limit its CTAs (`fallback_no_gain`: without Virtual Thread FineReg cannot
//! add CTAs, and its ACRF alone would hold fewer) or when one CTA does not fit the ACRF
//! (`fallback_acrf_too_small`); counted once per launch.
//!
//! Counters: `cta_full_stalls` (as `unlimited` counts them), `stalls_without_successor`,
//! `suspensions` (moves to the
//! PCRF, swaps included), `swaps`, `resumes`, `suspensions_refused`, `live_registers_moved`
//! and `allocated_registers_suspended` (their ratio is how much of a stalled CTA's allocation
//! is live), `live_registers_restored`, `live_info_hits`, `live_info_misses`,
//! `transfer_cycles`, `warps_in_calls` (warps counted whole), `launches_beyond_register_limit`
//! (launches while the SM held as many CTAs as static residency admits); from one SM per
//! launch, `launches`, `acrf_ctas` (CTAs the ACRF holds) and the fallback.

use super::TechniqueReport;
use super::residency::ResidencyPolicy;
use crate::config::FineRegConfig;
use crate::occupancy::{CtaDemand, Occupancy};
use crate::scheduler::Stall;
use emulator::program::EXIT_PC;
use emulator::warp::Warp;
use isa::FuncId;
use std::sync::Arc;

/// The compiler's live-register bit vectors of a kernel: the live-in set of every PC.
#[derive(Debug)]
pub struct LiveInfo {
    kernel: FuncId,
    /// 64-bit words per set.
    words: usize,
    /// `live_in[pc * words..][..words]`.
    live_in: Vec<u64>,
}

impl LiveInfo {
    /// The live-in sets of `kernel` (in warpsim's register allocation).
    pub fn new(program: &emulator::Program, kernel: FuncId) -> LiveInfo {
        let hints = program.hints(kernel);
        let n = hints.len();
        let words = if n == 0 {
            0
        } else {
            hints.live_in(0).words().len()
        };
        let mut live_in = Vec::with_capacity(n * words);
        for pc in 0..n as u32 {
            live_in.extend_from_slice(hints.live_in(pc).words());
        }
        LiveInfo {
            kernel,
            words,
            live_in,
        }
    }

    /// Registers live for some lane of `warp` (at most `full`): the union of the live-in sets
    /// at its SIMT-stack entries' PCs, written to `pcs`; `None` inside a device function.
    fn live(&self, warp: &Warp, scratch: &mut Vec<u64>, pcs: &mut Vec<u32>) -> Option<u32> {
        pcs.clear();
        let frame = warp.frame();
        if warp.frames.len() != 1 || frame.func != self.kernel {
            return None;
        }
        scratch.clear();
        scratch.resize(self.words, 0);
        for e in frame.simt.entries() {
            if e.pc == EXIT_PC {
                continue;
            }
            let Some(set) = self.live_in.get(e.pc as usize * self.words..) else {
                continue;
            };
            pcs.push(e.pc);
            for (s, w) in scratch.iter_mut().zip(set) {
                *s |= w;
            }
        }
        Some(scratch.iter().map(|w| w.count_ones()).sum())
    }
}

/// Where a resident CTA's registers are.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Place {
    /// All of them in the ACRF: its warps run (from `ready_at`).
    #[default]
    Active,
    /// Its live registers in the PCRF: its warps wait.
    Pending,
}

/// One CTA slot's state.
#[derive(Clone, Copy, Debug, Default)]
struct CtaState {
    place: Place,
    /// Its running warps, and those waiting on a long-latency result (bits of warp slots).
    running: u64,
    waiting: u64,
    /// The cycle from which its warps may issue (a transfer into the ACRF ends).
    ready_at: u64,
    /// Warp registers it holds in the PCRF while pending.
    live: u32,
}

impl CtaState {
    /// Whether every running warp waits on a long-latency result.
    fn all_wait(&self) -> bool {
        self.running != 0 && self.waiting & self.running == self.running
    }
}

/// The FineReg residency policy of one SM.
#[derive(Clone, Debug)]
pub struct FineReg {
    /// Whether CTAs of the launch wait to be placed on an SM.
    ctas_waiting: bool,
    info: Arc<LiveInfo>,
    cfg: FineRegConfig,
    /// Whether this SM reports the per-launch counters.
    reports_launch: bool,
    /// Why the launch runs as under static residency over the whole register file (the
    /// counter's name), if it does.
    fallback: Option<&'static str>,
    /// CTAs per SM by everything but registers, and by registers under static residency.
    limit: u32,
    register_limit: u32,
    regs_per_thread: u32,
    /// Warp registers of one CTA; capacity and use of the ACRF and the PCRF.
    cta_regs: u32,
    acrf_capacity: u32,
    pcrf_capacity: u32,
    acrf_used: u32,
    pcrf_used: u32,
    /// The cycle the ACRF space that transfers out are emptying is free.
    acrf_free_at: u64,
    ctas: Vec<CtaState>,
    /// CTA slot of each warp slot; registers live in each waiting warp, and the PCs it looked
    /// up (its SIMT-stack entries).
    cta_of: Vec<u32>,
    warp_live: Vec<u32>,
    warp_pcs: Vec<Vec<u32>>,
    /// Pending CTA slots in the order they were suspended.
    pending: Vec<u32>,
    /// Tag (PC) of each live-info cache entry.
    live_cache: Vec<Option<u32>>,
    scratch: Vec<u64>,
    resident: u32,
    /// Warp registers held (ACRF allocations and PCRF contents) summed over cycles, to
    /// `last_change`.
    held_cycles: u64,
    last_change: u64,
    counters: Counters,
}

#[derive(Clone, Debug, Default)]
struct Counters {
    full_stalls: u64,
    without_successor: u64,
    suspensions: u64,
    swaps: u64,
    resumes: u64,
    refused: u64,
    moved: u64,
    allocated_suspended: u64,
    restored: u64,
    info_hits: u64,
    info_misses: u64,
    transfer_cycles: u64,
    warps_in_calls: u64,
    launches_beyond: u64,
}

impl FineReg {
    /// The policy of the first SM of a launch with occupancy `occ` (under static residency)
    /// on an SM of `registers` 32-bit registers.
    pub fn new(info: Arc<LiveInfo>, cfg: &FineRegConfig, occ: &Occupancy, registers: u32) -> Self {
        let pcrf = cfg.pcrf_registers(registers);
        let cta_regs = occ.regs_per_thread * occ.warps_per_cta;
        let acrf_capacity = (registers - pcrf) / 32;
        let fallback = if occ.ctas_without_registers <= occ.ctas_per_sm {
            Some("fallback_no_gain")
        } else if cta_regs > acrf_capacity {
            Some("fallback_acrf_too_small")
        } else {
            None
        };
        FineReg {
            ctas_waiting: true,
            info,
            cfg: cfg.clone(),
            reports_launch: true,
            fallback,
            limit: occ.ctas_without_registers,
            register_limit: occ.ctas_per_sm,
            regs_per_thread: occ.regs_per_thread,
            cta_regs,
            acrf_capacity,
            pcrf_capacity: pcrf / 32,
            acrf_used: 0,
            pcrf_used: 0,
            acrf_free_at: 0,
            ctas: Vec::new(),
            cta_of: Vec::new(),
            warp_live: Vec::new(),
            warp_pcs: Vec::new(),
            pending: Vec::new(),
            live_cache: vec![None; cfg.live_info_entries as usize],
            scratch: Vec::new(),
            resident: 0,
            held_cycles: 0,
            last_change: 0,
            counters: Counters::default(),
        }
    }

    /// The policy of another SM of the same launch.
    pub fn for_another_sm(&self) -> Self {
        FineReg {
            reports_launch: false,
            ..self.clone()
        }
    }

    /// Adds the registers held since the last change, up to `now`.
    fn account(&mut self, now: u64) {
        let held = if self.fallback.is_some() {
            u64::from(self.resident) * u64::from(self.cta_regs)
        } else {
            u64::from(self.acrf_used + self.pcrf_used)
        };
        self.held_cycles += held * now.saturating_sub(self.last_change);
        self.last_change = self.last_change.max(now);
    }

    /// Cycles to move `n` warp registers between the ACRF and the PCRF.
    fn transfer(&self, n: u32) -> u64 {
        if n == 0 {
            0
        } else {
            u64::from(self.cfg.access_cycles + n - 1)
        }
    }

    fn cta_mut(&mut self, cta: u32) -> &mut CtaState {
        let c = cta as usize;
        if self.ctas.len() <= c {
            self.ctas.resize(c + 1, CtaState::default());
        }
        &mut self.ctas[c]
    }

    /// Whether pending CTA `cta` could run (one of its running warps does not wait).
    fn is_ready(&self, cta: u32) -> bool {
        let c = &self.ctas[cta as usize];
        c.running & !c.waiting != 0
    }

    /// Brings ready pending CTAs back into the ACRF while it has room, oldest first.
    fn resume_ready(&mut self, now: u64) {
        let mut i = 0;
        while i < self.pending.len() {
            let cta = self.pending[i];
            if !self.is_ready(cta) || self.acrf_used + self.cta_regs > self.acrf_capacity {
                i += 1;
                continue;
            }
            self.pending.remove(i);
            let start = now.max(self.acrf_free_at);
            let live = self.ctas[cta as usize].live;
            let done = start + self.transfer(live);
            self.acrf_used += self.cta_regs;
            self.pcrf_used -= live;
            self.bring_back(cta, start, done);
        }
    }

    /// Parked CTA `cta` returns to the ACRF, its live registers moving from `start` to `done`.
    fn bring_back(&mut self, cta: u32, start: u64, done: u64) {
        let c = &mut self.ctas[cta as usize];
        self.counters.resumes += 1;
        self.counters.restored += u64::from(c.live);
        self.counters.transfer_cycles += done - start;
        c.place = Place::Active;
        c.live = 0;
        c.ready_at = done;
    }

    /// The live-info cache lookups of the warps of `running`: the cycles they take.
    fn look_up_live_info(&mut self, running: u64) -> u64 {
        let mut missed = false;
        let mut bits = running;
        while bits != 0 {
            let w = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            for &pc in self.warp_pcs.get(w).map_or(&[][..], |p| &p[..]) {
                let entry = &mut self.live_cache[pc as usize % self.cfg.live_info_entries as usize];
                if *entry == Some(pc) {
                    self.counters.info_hits += 1;
                } else {
                    *entry = Some(pc);
                    self.counters.info_misses += 1;
                    missed = true;
                }
            }
        }
        if missed {
            u64::from(self.cfg.live_info_miss_cycles)
        } else {
            0
        }
    }

    /// Every running warp of active CTA `cta` waits: move it out, swap it, or leave it.
    fn on_cta_stall(&mut self, cta: u32, now: u64) {
        self.counters.full_stalls += 1;
        let running = self.ctas[cta as usize].running;
        let mut live = 0;
        let mut bits = running;
        while bits != 0 {
            let w = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            live += self.warp_live[w];
        }
        let pcrf_free = self.pcrf_capacity - self.pcrf_used;
        let any_ready = self.pending.iter().any(|&p| self.is_ready(p));
        let room_for_a_launch = self.ctas_waiting && self.resident < self.limit;
        if !any_ready && !room_for_a_launch {
            self.counters.without_successor += 1;
            return;
        }
        let swap_with = self
            .pending
            .iter()
            .position(|&p| self.is_ready(p) && live <= pcrf_free + self.ctas[p as usize].live);
        let start = now + self.look_up_live_info(running);
        if live <= pcrf_free {
            self.account(now);
            self.pcrf_used += live;
            self.acrf_used -= self.cta_regs;
            let done = start + self.transfer(live);
            self.acrf_free_at = self.acrf_free_at.max(done);
            self.counters.transfer_cycles += done - start;
        } else if let Some(i) = swap_with {
            self.account(now);
            let other = self.pending.remove(i);
            let back = self.ctas[other as usize].live;
            self.pcrf_used = self.pcrf_used - back + live;
            let done = start + self.transfer(live.max(back));
            self.counters.swaps += 1;
            self.bring_back(other, start, done);
        } else {
            self.counters.refused += 1;
            return;
        }
        self.counters.suspensions += 1;
        self.counters.moved += u64::from(live);
        self.counters.allocated_suspended += u64::from(self.cta_regs);
        let c = &mut self.ctas[cta as usize];
        c.place = Place::Pending;
        c.live = live;
        self.pending.push(cta);
        self.resume_ready(now);
    }

    /// Applies `change` to the running and waiting warps of `warp`'s CTA (with `warp`'s bit),
    /// and acts on what it leaves: a full stall of an active CTA, a ready pending one.
    fn change(&mut self, warp: u32, now: u64, change: impl FnOnce(&mut CtaState, u64)) {
        if self.fallback.is_some() {
            return;
        }
        let cta = self.cta_of[warp as usize];
        let c = &mut self.ctas[cta as usize];
        let before = c.all_wait();
        change(c, 1 << warp);
        match c.place {
            Place::Active if c.all_wait() && !before && c.ready_at <= now => {
                self.on_cta_stall(cta, now);
            }
            Place::Pending if !c.all_wait() => self.resume_ready(now),
            _ => {}
        }
    }
}

impl ResidencyPolicy for FineReg {
    fn cta_limit(&self) -> u32 {
        if self.fallback.is_some() {
            self.register_limit
        } else {
            self.limit
        }
    }

    fn admit(&self, _resident: u32, _demand: &CtaDemand) -> bool {
        self.fallback.is_some() || self.acrf_used + self.cta_regs <= self.acrf_capacity
    }

    fn on_launch(&mut self, cta: u32, warps: &[u32], now: u64) {
        self.account(now);
        if self.resident >= self.register_limit {
            self.counters.launches_beyond += 1;
        }
        self.resident += 1;
        if self.fallback.is_some() {
            return;
        }
        self.acrf_used += self.cta_regs;
        let ready_at = self.acrf_free_at.max(now);
        let mut running = 0;
        for &w in warps {
            let w = w as usize;
            if self.cta_of.len() <= w {
                self.cta_of.resize(w + 1, 0);
                self.warp_live.resize(w + 1, 0);
                self.warp_pcs.resize(w + 1, Vec::new());
            }
            self.cta_of[w] = cta;
            self.warp_live[w] = 0;
            self.warp_pcs[w].clear();
            running |= 1 << w;
        }
        *self.cta_mut(cta) = CtaState {
            place: Place::Active,
            running,
            waiting: 0,
            ready_at,
            live: 0,
        };
    }

    fn on_retire(&mut self, cta: u32, now: u64) {
        self.account(now);
        self.resident -= 1;
        if self.fallback.is_some() {
            return;
        }
        debug_assert_eq!(self.ctas[cta as usize].place, Place::Active);
        self.ctas[cta as usize] = CtaState::default();
        self.acrf_used -= self.cta_regs;
        self.resume_ready(now);
    }

    fn on_last_cta_launched(&mut self) {
        self.ctas_waiting = false;
    }

    fn on_exit(&mut self, warp: u32, now: u64) {
        self.change(warp, now, |c, bit| {
            c.running &= !bit;
            c.waiting &= !bit;
        });
    }

    fn on_long_wait(&mut self, warp: u32, state: &Warp, now: u64) {
        if self.fallback.is_some() {
            return;
        }
        let w = warp as usize;
        let mut pcs = std::mem::take(&mut self.warp_pcs[w]);
        let live = match self.info.live(state, &mut self.scratch, &mut pcs) {
            Some(live) => live.min(self.regs_per_thread),
            None => {
                self.counters.warps_in_calls += 1;
                self.regs_per_thread
            }
        };
        self.warp_pcs[w] = pcs;
        self.warp_live[w] = live;
        self.change(warp, now, |c, bit| c.waiting |= bit);
    }

    fn on_wait_over(&mut self, warp: u32, now: u64) {
        self.change(warp, now, |c, bit| c.waiting &= !bit);
    }

    #[inline]
    fn may_issue(&mut self, warp: u32, _func: FuncId, _pc: u32, now: u64) -> Result<(), Stall> {
        if self.fallback.is_some() {
            return Ok(());
        }
        let c = &self.ctas[self.cta_of[warp as usize] as usize];
        if c.place == Place::Active && c.ready_at <= now {
            Ok(())
        } else {
            Err(Stall::Registers)
        }
    }

    fn allocated_register_cycles(&self, _resident_warp_cycles: u64, _regs_per_thread: u32) -> u64 {
        self.held_cycles
    }

    fn next_wake(&self, now: u64) -> Option<u64> {
        self.ctas
            .iter()
            .filter(|c| c.place == Place::Active && c.running != 0 && c.ready_at > now)
            .map(|c| c.ready_at)
            .min()
    }

    fn report(&self, out: &mut TechniqueReport) {
        let c = &self.counters;
        for (key, value) in [
            ("cta_full_stalls", c.full_stalls),
            ("stalls_without_successor", c.without_successor),
            ("suspensions", c.suspensions),
            ("swaps", c.swaps),
            ("resumes", c.resumes),
            ("suspensions_refused", c.refused),
            ("live_registers_moved", c.moved),
            ("allocated_registers_suspended", c.allocated_suspended),
            ("live_registers_restored", c.restored),
            ("live_info_hits", c.info_hits),
            ("live_info_misses", c.info_misses),
            ("transfer_cycles", c.transfer_cycles),
            ("warps_in_calls", c.warps_in_calls),
            ("launches_beyond_register_limit", c.launches_beyond),
        ] {
            out.add(key, value);
        }
        if self.reports_launch {
            out.add("launches", 1);
            match self.fallback {
                Some(reason) => out.add(reason, 1),
                None => out.add("acrf_ctas", u64::from(self.acrf_capacity / self.cta_regs)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::occupancy::Limiter;

    const LOAD_MISS: u32 = 400;

    fn saxpy() -> emulator::Program {
        let text = include_str!("../../../samples/saxpy/saxpy.ptx");
        let module = frontend::compile("saxpy.ptx", text).expect("saxpy lowers");
        emulator::Program::new(module, Vec::new())
    }

    /// Registers live at `pc` of the program's only kernel.
    fn live_at(program: &emulator::Program, pc: u32) -> u32 {
        program.hints(FuncId(0)).live_in(pc).len() as u32
    }

    /// A warp of the kernel stopped at `pc`.
    fn warp_at(program: &emulator::Program, pc: u32) -> Warp {
        let mut w = Warp::new(0, u32::MAX, FuncId(0), &program.code[0], [64, 1, 1]);
        w.frames[0].simt.set_pc(pc);
        w
    }

    /// CTAs of 2 warps × 16 registers (32 warp registers) on an SM of 2048 registers: the
    /// ACRF (1024) holds one CTA, static residency two, the CTA slots four.
    fn one_cta_acrf(program: &emulator::Program) -> FineReg {
        let occ = Occupancy {
            ctas_per_sm: 2,
            limiter: Limiter::Registers,
            warps_per_cta: 2,
            regs_needed: 16,
            regs_per_thread: 16,
            ctas_by_registers: 2,
            ctas_without_registers: 4,
        };
        let cfg = FineRegConfig {
            live_info_miss_cycles: LOAD_MISS,
            ..FineRegConfig::default()
        };
        FineReg::new(
            Arc::new(LiveInfo::new(program, FuncId(0))),
            &cfg,
            &occ,
            2048,
        )
    }

    fn demand() -> CtaDemand {
        CtaDemand {
            threads: 64,
            regs_per_thread: 16,
            shared_bytes: 0,
        }
    }

    #[test]
    fn a_cta_whose_warps_all_wait_moves_out_and_a_new_cta_runs() {
        let program = saxpy();
        let pc = 6;
        let live = live_at(&program, pc);
        assert!(
            live > 0 && live < 16,
            "saxpy has {live} registers live at PC {pc}"
        );
        let mut f = one_cta_acrf(&program);
        // A PCRF with room for one CTA's live registers and half another's.
        f.pcrf_capacity = 3 * live;
        let k = FuncId(0);
        assert_eq!(f.cta_limit(), 4);
        assert!(f.admit(0, &demand()));
        f.on_launch(0, &[0, 1], 0);
        // The ACRF is full: no second CTA, although static residency would admit one.
        assert!(!f.admit(1, &demand()));
        assert_eq!(f.may_issue(0, k, pc, 5), Ok(()));
        // One warp waiting is not a stall of the CTA.
        f.on_long_wait(0, &warp_at(&program, pc), 10);
        assert!(!f.admit(1, &demand()));
        // Both waiting: the live registers move to the PCRF, after a live-info miss (both
        // warps look up PC 6: one miss, one hit) and the transfer.
        f.on_long_wait(1, &warp_at(&program, pc), 12);
        assert!(f.admit(1, &demand()));
        assert_eq!(f.may_issue(0, k, pc, 13), Err(Stall::Registers));
        let moved = 12 + u64::from(LOAD_MISS) + u64::from(4 + 2 * live - 1);
        // A new CTA launches into the space being emptied and issues when it is empty.
        f.on_launch(1, &[2, 3], 13);
        assert_eq!(f.may_issue(2, k, 0, 13), Err(Stall::Registers));
        assert_eq!(f.next_wake(13), Some(moved));
        assert_eq!(f.may_issue(2, k, 0, moved - 1), Err(Stall::Registers));
        assert_eq!(f.may_issue(2, k, 0, moved), Ok(()));
        assert!(!f.admit(2, &demand()));
        // CTA 0's data arrives: it is ready but the ACRF is full; it waits.
        f.on_wait_over(0, 1000);
        assert_eq!(f.may_issue(0, k, pc, 1001), Err(Stall::Registers));
        // CTA 1 stalls in turn: the PCRF has no room for it, but it has once CTA 0, ready,
        // leaves: they swap, both transfers at once (the live-info cache hits now).
        f.on_long_wait(2, &warp_at(&program, pc), 1100);
        f.on_long_wait(3, &warp_at(&program, pc), 1101);
        assert_eq!(f.may_issue(2, k, pc, 1102), Err(Stall::Registers));
        let back = 1101 + u64::from(4 + 2 * live - 1);
        assert_eq!(f.may_issue(0, k, pc, back - 1), Err(Stall::Registers));
        assert_eq!(f.may_issue(0, k, pc, back), Ok(()));
        // CTA 0 retires; CTA 1, ready, resumes into its space.
        f.on_wait_over(2, 1200);
        f.on_wait_over(1, 1250);
        f.on_exit(0, 1300);
        f.on_exit(1, 1300);
        f.on_retire(0, 1310);
        assert_eq!(
            f.may_issue(2, k, pc, 1310 + u64::from(4 + 2 * live - 1)),
            Ok(())
        );
        let mut out = TechniqueReport::default();
        f.report(&mut out);
        let c = |key: &str| out.counters.get(key).copied().unwrap_or(0);
        assert_eq!(c("cta_full_stalls"), 2);
        assert_eq!(c("suspensions"), 2);
        assert_eq!(c("swaps"), 1);
        assert_eq!(c("resumes"), 2);
        assert_eq!(c("live_registers_moved"), u64::from(4 * live));
        assert_eq!(c("allocated_registers_suspended"), 64);
        assert_eq!(c("live_registers_restored"), u64::from(4 * live));
        assert_eq!((c("live_info_misses"), c("live_info_hits")), (1, 3));
        assert_eq!(c("launches_beyond_register_limit"), 0);
        assert_eq!((c("launches"), c("acrf_ctas")), (1, 1));
    }

    #[test]
    fn a_stalled_cta_stays_when_the_pcrf_is_full_and_nothing_is_ready() {
        let program = saxpy();
        let pc = 6;
        let live = live_at(&program, pc);
        let mut f = one_cta_acrf(&program);
        // A PCRF with room for less than one CTA's live registers.
        f.pcrf_capacity = 2 * live - 1;
        f.on_launch(0, &[0, 1], 0);
        f.on_long_wait(0, &warp_at(&program, pc), 10);
        f.on_long_wait(1, &warp_at(&program, pc), 10);
        assert!(!f.admit(1, &demand()));
        assert_eq!(f.may_issue(0, FuncId(0), pc, 11), Ok(()));
        let mut out = TechniqueReport::default();
        f.report(&mut out);
        assert_eq!(out.counters["suspensions_refused"], 1);
        assert_eq!(out.counters["suspensions"], 0);
    }

    #[test]
    fn a_stall_moves_nothing_when_no_cta_would_take_the_place() {
        let program = saxpy();
        let pc = 6;
        let mut f = one_cta_acrf(&program);
        f.on_launch(0, &[0, 1], 0);
        f.on_last_cta_launched();
        f.on_long_wait(0, &warp_at(&program, pc), 10);
        f.on_long_wait(1, &warp_at(&program, pc), 10);
        assert_eq!(f.may_issue(0, FuncId(0), pc, 11), Ok(()));
        let mut out = TechniqueReport::default();
        f.report(&mut out);
        let c = |key: &str| out.counters[key];
        assert_eq!(c("cta_full_stalls"), 1);
        assert_eq!(c("stalls_without_successor"), 1);
        assert_eq!(c("suspensions") + c("live_info_misses"), 0);
    }

    #[test]
    fn a_diverged_warp_keeps_what_every_stack_entry_needs() {
        let program = saxpy();
        let info = LiveInfo::new(&program, FuncId(0));
        let hints = program.hints(FuncId(0));
        let mut w = warp_at(&program, 2);
        // Half the lanes to PC 9, half to PC 4, rejoining at PC 12.
        w.frames[0].simt.branch(0xffff, 9, 4, 12);
        assert_eq!(w.frame().simt.depth(), 3);
        let union: std::collections::BTreeSet<u32> = [9, 4, 12]
            .iter()
            .flat_map(|&pc| hints.live_in(pc).iter())
            .collect();
        let (mut scratch, mut pcs) = (Vec::new(), Vec::new());
        assert_eq!(
            info.live(&w, &mut scratch, &mut pcs),
            Some(union.len() as u32)
        );
        pcs.sort_unstable();
        assert_eq!(pcs, [4, 9, 12]);
        assert!(union.len() as u32 >= live_at(&program, 9).max(live_at(&program, 4)));
    }

    #[test]
    fn a_launch_without_gain_or_too_large_for_the_acrf_runs_as_static_residency() {
        let program = saxpy();
        let occ = Occupancy {
            ctas_per_sm: 1,
            limiter: Limiter::Registers,
            warps_per_cta: 4,
            regs_needed: 16,
            regs_per_thread: 16,
            ctas_by_registers: 1,
            ctas_without_registers: 4,
        };
        let info = Arc::new(LiveInfo::new(&program, FuncId(0)));
        let mut f = FineReg::new(info, &FineRegConfig::default(), &occ, 2048);
        assert_eq!(f.cta_limit(), 1);
        f.on_launch(0, &[0, 1, 2, 3], 0);
        f.on_long_wait(0, &warp_at(&program, 6), 1);
        assert_eq!(f.may_issue(0, FuncId(0), 6, 2), Ok(()));
        f.on_retire(0, 100);
        assert_eq!(f.allocated_register_cycles(0, 16), 100 * 64);
        let mut out = TechniqueReport::default();
        f.report(&mut out);
        assert_eq!(out.counters["fallback_acrf_too_small"], 1);
        // Registers do not limit: FineReg cannot add CTAs.
        let threads = Occupancy {
            ctas_per_sm: 4,
            limiter: Limiter::Threads,
            warps_per_cta: 2,
            ..occ
        };
        let info = Arc::new(LiveInfo::new(&program, FuncId(0)));
        let f = FineReg::new(info, &FineRegConfig::default(), &threads, 65536);
        assert_eq!(f.cta_limit(), 4);
        let mut out = TechniqueReport::default();
        f.report(&mut out);
        assert_eq!(out.counters["fallback_no_gain"], 1);
    }
}
