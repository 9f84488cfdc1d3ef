//! Static-power management of the register file (`sm.rf.power`): the policy that decides each
//! warp register's power state, held by the SM beside the register-file technique and the
//! residency policy and told of every register access.
//!
//! It acts through the seam's own channels only: a read of a sleeping register carries the
//! cycle it may be granted ([`BankReq::ready_at`]), a write-back is scheduled no earlier than
//! its registers are on, and [`Power::next_wake`] reports when waiting reads become ready, so
//! skipping idle cycles stays exact. Its register-cycles by state go to the energy model
//! ([`crate::energy::PowerStateCycles`]); its counters to `power` in the statistics.

use super::slumber::Slumber;
use super::{BankReq, IssueView, TechniqueReport};
use crate::config::{GpuConfig, RfPower};
use crate::decode::DecodedProgram;
use crate::energy::PowerStateCycles;
use emulator::stepper::FrameBase;
use isa::FuncId;

/// The configured power policy of one SM (one match per event; `None` does nothing).
pub enum Power {
    /// Every allocated register on (today's model).
    None,
    Slumber(Box<Slumber>),
}

impl Power {
    /// The policy `cfg.sm.rf.power` for one SM.
    pub fn new(cfg: &GpuConfig) -> Power {
        match cfg.sm.rf.power {
            RfPower::None => Power::None,
            RfPower::Slumber => Power::Slumber(Box::new(Slumber::new(cfg))),
        }
    }

    /// An instruction issued; `reads` are the bank reads the technique planned for it.
    #[inline]
    pub fn on_issue(&mut self, i: &IssueView, reads: &mut [BankReq]) {
        if let Power::Slumber(s) = self {
            s.on_issue(i, reads);
        }
    }

    /// Instructions `pcs` of `func` were decoded into the instruction buffer of warp slot
    /// `warp`, in call frame `frame`, at cycle `at`: their source registers are known.
    pub fn on_decode(
        &mut self,
        warp: u32,
        code: &DecodedProgram,
        func: FuncId,
        pcs: std::ops::Range<u32>,
        frame: FrameBase,
        at: u64,
    ) {
        if let Power::Slumber(s) = self {
            for pc in pcs {
                for &reg in &code.get(func, pc).in_frame(frame).reads {
                    s.decoded(warp, reg, at);
                }
            }
        }
    }

    /// Instruction `uid` of warp slot `warp` left its collector unit at `now`.
    #[inline]
    pub fn on_dispatch(&mut self, warp: u32, uid: u64, now: u64) {
        if let Power::Slumber(s) = self {
            s.on_dispatch(warp, uid, now);
        }
    }

    /// The write-back of `writes` (scoreboard identities) of warp slot `warp`, scheduled at
    /// `now`, is due at `due`: the cycle it may happen.
    #[inline]
    pub fn schedule_write(&mut self, warp: u32, writes: &[u32], now: u64, due: u64) -> u64 {
        match self {
            Power::None => due,
            Power::Slumber(s) => s.schedule_write(warp, writes, now, due),
        }
    }

    /// `writes` of warp slot `warp` were written back at `now`.
    #[inline]
    pub fn on_write(&mut self, warp: u32, writes: &[u32], now: u64) {
        if let Power::Slumber(s) = self {
            s.on_write(warp, writes, now);
        }
    }

    /// The warp in slot `warp` exited at `now`.
    pub fn on_exit(&mut self, warp: u32, now: u64) {
        if let Power::Slumber(s) = self {
            s.on_exit(warp, now);
        }
    }

    /// The warp in slot `warp` retired with its CTA at `now`.
    pub fn on_warp_retire(&mut self, warp: u32, now: u64) {
        if let Power::Slumber(s) = self {
            s.on_warp_retire(warp, now);
        }
    }

    /// The first cycle after `now` at which the policy lets something happen, if any.
    pub fn next_wake(&self, now: u64) -> Option<u64> {
        match self {
            Power::None => None,
            Power::Slumber(s) => s.next_wake(now),
        }
    }

    /// The `allocated` register-cycles by power state (`None` without a policy: all on).
    pub fn power_states(&self, allocated: u64) -> Option<PowerStateCycles> {
        match self {
            Power::None => None,
            Power::Slumber(s) => Some(s.power_states(allocated)),
        }
    }

    /// The policy's counters under its name (an empty report without a policy).
    pub fn report(&self, allocated: u64) -> TechniqueReport {
        let mut out = TechniqueReport::default();
        if let Power::Slumber(s) = self {
            out.name = "slumber".into();
            s.report(&mut out);
            let states = s.power_states(allocated);
            out.add("cycles_on", states.on);
            out.add("cycles_shallow", states.shallow);
            out.add("cycles_deep", states.deep);
            out.add("cycles_off", states.off);
        }
        out
    }
}
