//! Register residency: which CTAs hold registers on an SM, and when a warp may use them.
//!
//! The baseline ([`StaticResidency`]) allocates every register of a CTA when it launches and
//! frees them when it retires; occupancy alone limits admission and no instruction ever waits
//! for registers. Techniques that share or virtualise registers (RegMutex, FineReg) refuse
//! admission, hold instructions at issue ([`crate::scheduler::Stall::Registers`]) and count
//! what they do.

use super::TechniqueReport;
use crate::config::{GpuConfig, Residency as ResidencyKind};
use crate::occupancy::CtaDemand;
use crate::scheduler::Stall;
use isa::FuncId;

/// What a residency technique decides.
pub trait ResidencyPolicy {
    /// Whether a CTA with `demand` may launch on an SM that already holds `resident` CTAs
    /// (occupancy has admitted it already).
    fn admit(&mut self, resident: u32, demand: &CtaDemand) -> bool;

    /// A CTA launched into CTA slot `cta`, its warps in `warps` (warp slots).
    fn on_launch(&mut self, _cta: u32, _warps: &[u32]) {}

    /// The CTA in slot `cta` retired.
    fn on_retire(&mut self, _cta: u32) {}

    /// Whether warp slot `warp` may issue its instruction at (`func`, `pc`) now; an error is
    /// the stall it waits in.
    fn may_issue(&mut self, warp: u32, func: FuncId, pc: u32) -> Result<(), Stall>;

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
pub struct StaticResidency;

impl ResidencyPolicy for StaticResidency {
    fn admit(&mut self, _resident: u32, _demand: &CtaDemand) -> bool {
        true
    }

    #[inline]
    fn may_issue(&mut self, _warp: u32, _func: FuncId, _pc: u32) -> Result<(), Stall> {
        Ok(())
    }

    fn report(&self, _out: &mut TechniqueReport) {}
}

/// The configured residency policy (enum dispatch).
pub enum Residency {
    Static(StaticResidency),
}

macro_rules! dispatch {
    ($self:expr, $p:ident => $call:expr) => {
        match $self {
            Residency::Static($p) => $call,
        }
    };
}

impl Residency {
    /// The policy `cfg.sm.rf.residency` for one SM.
    pub fn new(cfg: &GpuConfig) -> Residency {
        match cfg.sm.rf.residency {
            ResidencyKind::Static => Residency::Static(StaticResidency),
        }
    }

    /// The configuration name of the policy.
    pub fn name(&self) -> &'static str {
        match self {
            Residency::Static(_) => "static",
        }
    }
}

impl ResidencyPolicy for Residency {
    fn admit(&mut self, resident: u32, demand: &CtaDemand) -> bool {
        dispatch!(self, p => p.admit(resident, demand))
    }
    fn on_launch(&mut self, cta: u32, warps: &[u32]) {
        dispatch!(self, p => p.on_launch(cta, warps))
    }
    fn on_retire(&mut self, cta: u32) {
        dispatch!(self, p => p.on_retire(cta))
    }
    #[inline]
    fn may_issue(&mut self, warp: u32, func: FuncId, pc: u32) -> Result<(), Stall> {
        dispatch!(self, p => p.may_issue(warp, func, pc))
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
