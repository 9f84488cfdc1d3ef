//! Register residency: which CTAs hold registers on an SM, and when a warp may use them.
//!
//! The baseline ([`StaticResidency`]) allocates every register of a CTA when it launches and
//! frees them when it retires; occupancy alone limits admission and no instruction ever waits
//! for registers. Techniques that share or virtualise registers (RegMutex, FineReg) admit CTAs
//! beyond the register limit ([`ResidencyPolicy::cta_limit`], [`ResidencyPolicy::admit`]),
//! hold instructions at issue ([`crate::scheduler::Stall::Registers`]) and count what they do.
//!
//! **Suspending and resuming a CTA** (FineReg) is done with these alone: the SM tells the
//! policy when a warp starts and stops waiting for a long-latency result
//! ([`ResidencyPolicy::on_long_wait`], with the warp's SIMT stack, whose PCs give its live
//! registers; [`ResidencyPolicy::on_wait_over`]), when it exits, and when the launch has no
//! CTA left to place ([`ResidencyPolicy::on_last_cta_launched`]), so the policy sees when
//! every running warp of a CTA is stalled and whether another CTA could use its place. To
//! suspend the CTA it refuses its warps at issue (`may_issue`) and counts its registers as
//! free, which lets `admit` take another CTA; to resume it lets them issue again. A transfer
//! that takes time (moving live registers to and from a pending-CTA store) is a refusal until
//! the cycle it completes, announced by `next_wake` so fast-forward stays exact.

use super::TechniqueReport;
use super::finereg::{FineReg, LiveInfo};
use super::regmutex::{RegMutex, RegMutexPlan};
use crate::config::{GpuConfig, Residency as ResidencyKind};
use crate::occupancy::{CtaDemand, Occupancy};
use crate::scheduler::Stall;
use emulator::warp::Warp;
use isa::FuncId;
use std::sync::Arc;

/// What a residency technique decides.
pub trait ResidencyPolicy {
    /// The most CTAs the SM may hold at once: occupancy's limit (registers included) unless
    /// the policy holds registers otherwise; never more than
    /// [`Occupancy::ctas_without_registers`] (CTA slots, threads and shared memory still limit).
    fn cta_limit(&self) -> u32;

    /// Whether a CTA with `demand` may launch on an SM that already holds `resident` CTAs
    /// (fewer than [`ResidencyPolicy::cta_limit`]).
    fn admit(&self, resident: u32, demand: &CtaDemand) -> bool;

    /// A CTA launched into CTA slot `cta` at cycle `now`, its warps in `warps` (warp slots).
    fn on_launch(&mut self, _cta: u32, _warps: &[u32], _now: u64) {}

    /// The CTA in slot `cta` retired at cycle `now`.
    fn on_retire(&mut self, _cta: u32, _now: u64) {}

    /// The GPU launched the last CTA of the launch: no CTA waits to be placed on any SM.
    fn on_last_cta_launched(&mut self) {}

    /// Warp slot `warp` executed its last instruction, at cycle `now`.
    fn on_exit(&mut self, _warp: u32, _now: u64) {}

    /// Warp slot `warp`'s next instruction waits for a long-latency result (a load from
    /// memory): the scoreboard refused it at cycle `now`. `state` is the warp's functional
    /// state (its call frames and SIMT stack: where each of its lanes goes on).
    fn on_long_wait(&mut self, _warp: u32, _state: &Warp, _now: u64) {}

    /// A result of warp slot `warp`, which waited for a long-latency one, was written back at
    /// cycle `now`: the warp may issue again, or wait again (another `on_long_wait`) if its
    /// instruction needs a result still in flight.
    fn on_wait_over(&mut self, _warp: u32, _now: u64) {}

    /// Whether warp slot `warp` may issue its instruction at (`func`, `pc`) at cycle `now`; an
    /// error is the stall it waits in.
    fn may_issue(&mut self, warp: u32, func: FuncId, pc: u32, now: u64) -> Result<(), Stall>;

    /// Warp registers held, summed over cycles, for leakage: static residency holds every
    /// register of every resident warp (`resident_warp_cycles` × `regs_per_thread`, as
    /// allocated).
    fn allocated_register_cycles(&self, resident_warp_cycles: u64, regs_per_thread: u32) -> u64 {
        resident_warp_cycles * u64::from(regs_per_thread)
    }

    /// The first cycle after `now` at which the policy acts on its own, if any.
    fn next_wake(&self, _now: u64) -> Option<u64> {
        None
    }

    /// Adds the policy's counters to `out`.
    fn report(&self, out: &mut TechniqueReport);
}

/// Registers held from CTA launch to retirement.
#[derive(Clone, Debug)]
pub struct StaticResidency {
    /// Occupancy's CTAs per SM.
    limit: u32,
}

impl ResidencyPolicy for StaticResidency {
    fn cta_limit(&self) -> u32 {
        self.limit
    }

    fn admit(&self, _resident: u32, _demand: &CtaDemand) -> bool {
        true
    }

    #[inline]
    fn may_issue(&mut self, _warp: u32, _func: FuncId, _pc: u32, _now: u64) -> Result<(), Stall> {
        Ok(())
    }

    fn report(&self, _out: &mut TechniqueReport) {}
}

/// An unbounded register file: registers never limit occupancy (CTA slots, threads and
/// shared memory still do). The upper bound register-virtualisation papers compare against;
/// it also counts the opportunity FineReg exploits.
///
/// Counters: `launches_beyond_register_limit`, CTAs launched while the SM already held as many
/// as the register file admits; `cta_full_stalls`, times every running warp of a resident CTA
/// came to wait on long-latency results (when FineReg would suspend it).
#[derive(Clone, Debug)]
pub struct UnlimitedResidency {
    /// CTAs per SM with registers limiting, and without.
    register_limit: u32,
    limit: u32,
    /// Per CTA slot: its running warps, and those waiting on a long-latency result (bits of
    /// warp slots).
    running: Vec<u64>,
    waiting: Vec<u64>,
    /// CTA slot of each warp slot.
    cta_of: Vec<u32>,
    resident: u32,
    launches_beyond: u64,
    full_stalls: u64,
}

impl UnlimitedResidency {
    /// Whether every running warp of CTA slot `cta` waits on a long-latency result.
    fn all_wait(&self, cta: usize) -> bool {
        let running = self.running[cta];
        running != 0 && self.waiting[cta] & running == running
    }

    /// Applies `change` to the running and waiting warps of `warp`'s CTA (with `warp`'s bit),
    /// counting a full stall when it leaves every running warp of the CTA waiting.
    fn change(&mut self, warp: u32, change: impl FnOnce(&mut u64, &mut u64, u64)) {
        let cta = self.cta_of[warp as usize] as usize;
        let before = self.all_wait(cta);
        change(&mut self.running[cta], &mut self.waiting[cta], 1 << warp);
        if self.all_wait(cta) && !before {
            self.full_stalls += 1;
        }
    }
}

impl ResidencyPolicy for UnlimitedResidency {
    fn cta_limit(&self) -> u32 {
        self.limit
    }

    fn admit(&self, _resident: u32, _demand: &CtaDemand) -> bool {
        true
    }

    fn on_launch(&mut self, cta: u32, warps: &[u32], _now: u64) {
        let cta = cta as usize;
        if self.running.len() <= cta {
            self.running.resize(cta + 1, 0);
            self.waiting.resize(cta + 1, 0);
        }
        self.running[cta] = 0;
        self.waiting[cta] = 0;
        for &w in warps {
            if self.cta_of.len() <= w as usize {
                self.cta_of.resize(w as usize + 1, 0);
            }
            self.cta_of[w as usize] = cta as u32;
            self.running[cta] |= 1 << w;
        }
        if self.resident >= self.register_limit {
            self.launches_beyond += 1;
        }
        self.resident += 1;
    }

    fn on_retire(&mut self, cta: u32, _now: u64) {
        self.running[cta as usize] = 0;
        self.waiting[cta as usize] = 0;
        self.resident -= 1;
    }

    fn on_exit(&mut self, warp: u32, _now: u64) {
        // A CTA whose other running warps all wait is now fully stalled.
        self.change(warp, |running, waiting, bit| {
            *running &= !bit;
            *waiting &= !bit;
        });
    }

    fn on_long_wait(&mut self, warp: u32, _state: &Warp, _now: u64) {
        self.change(warp, |_, waiting, bit| *waiting |= bit);
    }

    fn on_wait_over(&mut self, warp: u32, _now: u64) {
        self.change(warp, |_, waiting, bit| *waiting &= !bit);
    }

    #[inline]
    fn may_issue(&mut self, _warp: u32, _func: FuncId, _pc: u32, _now: u64) -> Result<(), Stall> {
        Ok(())
    }

    fn report(&self, out: &mut TechniqueReport) {
        out.add("launches_beyond_register_limit", self.launches_beyond);
        out.add("cta_full_stalls", self.full_stalls);
    }
}

/// The configured residency policy (enum dispatch).
#[derive(Clone, Debug)]
pub enum Residency {
    Static(StaticResidency),
    Unlimited(UnlimitedResidency),
    RegMutex(RegMutex),
    /// Boxed: its state is several times the others'.
    FineReg(Box<FineReg>),
}

macro_rules! dispatch {
    ($self:expr, $p:ident => $call:expr) => {
        match $self {
            Residency::Static($p) => $call,
            Residency::Unlimited($p) => $call,
            Residency::RegMutex($p) => $call,
            Residency::FineReg($p) => $call,
        }
    };
}

impl Residency {
    /// The policy `cfg.sm.rf.residency` for the first SM running a launch of `kernel` with
    /// occupancy `occ` (under static residency); [`Residency::for_another_sm`] gives the
    /// others theirs. A policy with a compiler pass (RegMutex) runs it here, once per launch.
    pub fn for_launch(
        cfg: &GpuConfig,
        occ: &Occupancy,
        program: &emulator::Program,
        kernel: FuncId,
    ) -> Residency {
        match cfg.sm.rf.residency {
            ResidencyKind::Static => Residency::Static(StaticResidency {
                limit: occ.ctas_per_sm,
            }),
            ResidencyKind::Unlimited => Residency::Unlimited(UnlimitedResidency {
                register_limit: occ.ctas_by_registers,
                limit: occ.ctas_without_registers,
                running: Vec::new(),
                waiting: Vec::new(),
                cta_of: Vec::new(),
                resident: 0,
                launches_beyond: 0,
                full_stalls: 0,
            }),
            ResidencyKind::RegMutex => {
                let plan = RegMutexPlan::new(
                    program,
                    kernel,
                    occ,
                    cfg.sm.registers,
                    cfg.sm.rf.regmutex.extended,
                );
                Residency::RegMutex(RegMutex::new(Arc::new(plan), occ.ctas_per_sm, true))
            }
            ResidencyKind::FineReg => Residency::FineReg(Box::new(FineReg::new(
                Arc::new(LiveInfo::new(program, kernel)),
                &cfg.sm.rf.finereg,
                occ,
                cfg.sm.registers,
            ))),
        }
    }

    /// The policy of another SM of the same launch (before any event reached this one).
    pub fn for_another_sm(&self) -> Residency {
        match self {
            Residency::RegMutex(r) => Residency::RegMutex(r.for_another_sm()),
            Residency::FineReg(f) => Residency::FineReg(Box::new(f.for_another_sm())),
            other => other.clone(),
        }
    }

    /// The configuration name of the policy.
    pub fn name(&self) -> &'static str {
        match self {
            Residency::Static(_) => "static",
            Residency::Unlimited(_) => "unlimited",
            Residency::RegMutex(_) => "regmutex",
            Residency::FineReg(_) => "finereg",
        }
    }
}

impl ResidencyPolicy for Residency {
    fn cta_limit(&self) -> u32 {
        dispatch!(self, p => p.cta_limit())
    }
    fn admit(&self, resident: u32, demand: &CtaDemand) -> bool {
        dispatch!(self, p => p.admit(resident, demand))
    }
    fn on_launch(&mut self, cta: u32, warps: &[u32], now: u64) {
        dispatch!(self, p => p.on_launch(cta, warps, now))
    }
    fn on_retire(&mut self, cta: u32, now: u64) {
        dispatch!(self, p => p.on_retire(cta, now))
    }
    fn on_last_cta_launched(&mut self) {
        dispatch!(self, p => p.on_last_cta_launched())
    }
    fn on_exit(&mut self, warp: u32, now: u64) {
        dispatch!(self, p => p.on_exit(warp, now))
    }
    #[inline]
    fn on_long_wait(&mut self, warp: u32, state: &Warp, now: u64) {
        dispatch!(self, p => p.on_long_wait(warp, state, now))
    }
    #[inline]
    fn on_wait_over(&mut self, warp: u32, now: u64) {
        dispatch!(self, p => p.on_wait_over(warp, now))
    }
    #[inline]
    fn may_issue(&mut self, warp: u32, func: FuncId, pc: u32, now: u64) -> Result<(), Stall> {
        dispatch!(self, p => p.may_issue(warp, func, pc, now))
    }
    #[inline]
    fn next_wake(&self, now: u64) -> Option<u64> {
        dispatch!(self, p => p.next_wake(now))
    }
    fn allocated_register_cycles(&self, resident_warp_cycles: u64, regs_per_thread: u32) -> u64 {
        dispatch!(self, p => p.allocated_register_cycles(resident_warp_cycles, regs_per_thread))
    }
    fn report(&self, out: &mut TechniqueReport) {
        out.name = self.name().to_string();
        dispatch!(self, p => p.report(out))
    }
}
