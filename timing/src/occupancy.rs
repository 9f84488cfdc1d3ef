//! How many CTAs of a kernel fit on one SM, and which resource limits it (GPGPU-Sim's rule:
//! the minimum over threads, warps, registers, shared memory and CTA slots).

use crate::config::GpuConfig;
use serde::Serialize;
use std::fmt;

/// The resource that bounds CTAs per SM.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Limiter {
    /// Threads (in whole warps: a partial warp takes a warp's slots).
    Threads,
    Registers,
    SharedMemory,
    CtaSlots,
}

impl fmt::Display for Limiter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Limiter::Threads => "threads",
            Limiter::Registers => "registers",
            Limiter::SharedMemory => "shared memory",
            Limiter::CtaSlots => "CTA slots",
        })
    }
}

/// What a kernel launch asks of an SM per CTA.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CtaDemand {
    pub threads: u32,
    /// Registers per thread (before rounding to the allocation granularity).
    pub regs_per_thread: u32,
    /// Bytes of shared memory (static and dynamic).
    pub shared_bytes: u64,
}

/// CTAs per SM and the limiting resource.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Occupancy {
    pub ctas_per_sm: u32,
    pub limiter: Limiter,
    pub warps_per_cta: u32,
    /// Registers per thread the kernel needs (warpsim's allocation, or the count assumed for
    /// it), before rounding: what `warpsim regs` reports.
    pub regs_needed: u32,
    /// Registers per thread as allocated (rounded up to the granularity).
    pub regs_per_thread: u32,
    /// CTAs per SM the register file alone admits.
    #[serde(skip)]
    pub ctas_by_registers: u32,
    /// CTAs per SM if registers did not limit (CTA slots, threads, shared memory): what a
    /// residency policy that virtualises registers may admit.
    #[serde(skip)]
    pub ctas_without_registers: u32,
}

impl Occupancy {
    /// Resident warps per SM as a fraction of the SM's maximum.
    pub fn fraction(&self, cfg: &GpuConfig) -> f64 {
        f64::from(self.ctas_per_sm * self.warps_per_cta) / f64::from(cfg.sm.max_warps)
    }
}

/// Why a kernel cannot run at all.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("a CTA of {threads} threads does not fit on an SM: it needs {need}, the SM has {have}")]
pub struct DoesNotFit {
    pub threads: u32,
    pub need: String,
    pub have: String,
}

/// CTAs of `demand` that fit on one SM of `cfg`.
pub fn occupancy(cfg: &GpuConfig, demand: CtaDemand) -> Result<Occupancy, DoesNotFit> {
    let sm = &cfg.sm;
    let warps = demand.threads.div_ceil(32).max(1);
    let regs = demand
        .regs_per_thread
        .max(1)
        .next_multiple_of(sm.register_granularity);
    let regs_per_cta = u64::from(regs) * u64::from(warps) * 32;
    let shared = demand
        .shared_bytes
        .next_multiple_of(u64::from(sm.shared_granularity));
    let limits = [
        (Limiter::CtaSlots, u64::from(sm.max_ctas)),
        // Threads count in whole warps, so this is also the warp limit (a configuration has
        // `max_threads <= 32 * max_warps`).
        (Limiter::Threads, u64::from(sm.max_threads / (warps * 32))),
        (Limiter::Registers, u64::from(sm.registers) / regs_per_cta),
        (
            Limiter::SharedMemory,
            u64::from(sm.shared_memory)
                .checked_div(shared)
                .unwrap_or(u64::MAX),
        ),
    ];
    // The first of equal minima is named, in the order above (CTA slots first, as GPGPU-Sim
    // reports a CTA-limited kernel).
    let (limiter, ctas) = limits
        .iter()
        .copied()
        .min_by_key(|&(_, n)| n)
        .expect("four limits");
    if ctas == 0 {
        let (need, have) = match limiter {
            Limiter::Threads => (
                format!("{warps} warps"),
                format!("{} threads, {} warps", sm.max_threads, sm.max_warps),
            ),
            Limiter::Registers => (
                format!("{regs_per_cta} registers ({regs} per thread)"),
                format!("{} registers", sm.registers),
            ),
            Limiter::SharedMemory => (
                format!("{shared} bytes of shared memory"),
                format!("{} bytes", sm.shared_memory),
            ),
            Limiter::CtaSlots => ("a CTA slot".into(), "none".into()),
        };
        return Err(DoesNotFit {
            threads: demand.threads,
            need,
            have,
        });
    }
    let limit_of = |which: Limiter| limits.iter().find(|l| l.0 == which).map_or(0, |l| l.1);
    let without_registers = limits
        .iter()
        .filter(|l| l.0 != Limiter::Registers)
        .map(|l| l.1)
        .min()
        .expect("three limits");
    Ok(Occupancy {
        ctas_per_sm: ctas as u32,
        limiter,
        warps_per_cta: warps,
        regs_needed: demand.regs_per_thread,
        regs_per_thread: regs,
        ctas_by_registers: limit_of(Limiter::Registers).min(u64::from(u32::MAX)) as u32,
        ctas_without_registers: without_registers.min(u64::from(u32::MAX)) as u32,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn occ(threads: u32, regs: u32, shared: u64) -> Occupancy {
        occupancy(
            &GpuConfig::preset("gtx480"),
            CtaDemand {
                threads,
                regs_per_thread: regs,
                shared_bytes: shared,
            },
        )
        .unwrap()
    }

    #[test]
    fn each_resource_limits_in_turn() {
        // GTX 480: 1536 threads, 48 warps, 8 CTAs, 32768 registers, 48 KB shared memory.
        let o = occ(64, 8, 0);
        assert_eq!((o.ctas_per_sm, o.limiter), (8, Limiter::CtaSlots));
        let o = occ(512, 8, 0);
        assert_eq!((o.ctas_per_sm, o.limiter), (3, Limiter::Threads));
        // 21 registers round to 24: 256 threads × 24 = 6144 per CTA, 5 fit.
        let o = occ(256, 21, 0);
        assert_eq!(
            (o.ctas_per_sm, o.limiter, o.regs_per_thread),
            (5, Limiter::Registers, 24)
        );
        assert_eq!(o.regs_needed, 21, "the count before rounding is kept");
        let o = occ(128, 8, 12 * 1024 + 1);
        assert_eq!((o.ctas_per_sm, o.limiter), (3, Limiter::SharedMemory));
    }

    #[test]
    fn partial_warps_count_as_whole_warps() {
        // 80 threads take 3 warps: 1536 / 96 = 16 CTAs by threads, capped by 8 CTA slots;
        // with 32 slots, 16.
        let mut cfg = GpuConfig::preset("gtx480");
        cfg.sm.max_ctas = 32;
        let o = occupancy(
            &cfg,
            CtaDemand {
                threads: 80,
                regs_per_thread: 8,
                shared_bytes: 0,
            },
        )
        .unwrap();
        assert_eq!(
            (o.ctas_per_sm, o.limiter, o.warps_per_cta),
            (16, Limiter::Threads, 3)
        );
    }

    #[test]
    fn a_cta_that_cannot_fit_is_an_error() {
        let e = occupancy(
            &GpuConfig::preset("gtx480"),
            CtaDemand {
                threads: 1024,
                regs_per_thread: 64,
                shared_bytes: 0,
            },
        )
        .unwrap_err();
        assert!(e.to_string().contains("65536 registers"), "{e}");
    }
}
