//! RegMutex (seed 000, chapter 4): registers time-shared between the warps of an SM.
//!
//! **Compiler.** A kernel asking for `R` registers per thread (as allocated: rounded to the
//! granularity, as the seed's GPGPU-Sim allocates) is split into a base set of `|Bs|` and an
//! extended set of `|Es| = R − |Bs|`. Every resident warp holds its base set; the extended
//! sets come from a shared register pool (SRP) of `sections` slots. A warp needs its extended
//! set at the PCs where its live registers exceed `|Bs|`: the *region*. The demand at a PC is
//! the warp-level one of [`isa::warp_live`] (a register live at a divergent branch stays live
//! on both sides up to the reconvergence point, the seed's conservative liveness), counted in
//! warpsim's own allocation. The seed's compiler also compacts register indices so that the
//! extended registers hold nothing live outside the region; warpsim assumes that compaction
//! (and does not count its moves).
//!
//! The size `|Es|` follows the seed's heuristic (§4.3.1): candidates are the even numbers among
//! `⌊R × {0.10, 0.15, 0.20, 0.25, 0.30, 0.35}⌋`; those giving the most CTAs per SM counted with
//! the base set alone are kept; among them, the one that lets more than half of those warps
//! hold an extended set at once. The text says "the largest" such candidate, but its worked
//! example (24 registers on Fermi: candidates 4, 6 and 8 all give full occupancy with 16, 26
//! and 32 sections for 48 warps) picks 6, the *smallest* that passes, as the trade-off it
//! describes (a larger set marks more of the program as the region) argues: warpsim follows
//! the example. If none passes, the candidate with the most sections. Two rules avoid
//! deadlock: the pool holds at least one extended set (the seed's first rule), and `|Bs|`
//! covers every register live at a CTA barrier (`bar.sync`, `bar.red`, `barrier.cluster.wait`),
//! so that no warp waits at a barrier holding a section another warp of its CTA needs to
//! reach it (the seed's second rule is cut off in our copy; this is warpsim's). A kernel that gains no occupancy, calls device functions
//! (whose frames the split does not cover), or has no candidate meeting the rules falls back
//! to a zero-sized extended set: it runs exactly as under static residency.
//!
//! **Hardware** (§4.3.2). CTAs are admitted by the base set. At issue, a warp entering the
//! region acquires a section: find-first-zero on the SRP mask, or it waits (a
//! [`Stall::Registers`] of its own) and retries each cycle; a warp leaving the region, or
//! exiting, releases it. An acquire while holding, or a release while not, does nothing (the
//! seed forbids nesting). The acquire and release primitives are free here: the seed executes
//! them as instructions at the issue stage (`acquires + releases` bounds what they would cost).
//!
//! Counters: `acquires`, `acquires_waited` (acquires refused at least once first: the seed's
//! Figure 4.13 success rate is `1 − acquires_waited / acquires`), `releases`; and from one SM
//! per launch, so that they add up over launches like `ctas`: for a launch with a split,
//! `split_launches` (1), `base_set`, `extended_set`, `srp_sections`, `ctas_per_sm`,
//! `region_pcs` and `kernel_pcs` (divide by `split_launches` for the mean split); for one
//! without, one of `fallback_no_gain`, `fallback_calls`, `fallback_no_split`.

use super::TechniqueReport;
use super::residency::ResidencyPolicy;
use crate::occupancy::{CtaDemand, Occupancy};
use crate::scheduler::Stall;
use isa::FuncId;
use std::sync::Arc;

/// A kernel's register split (the compiler's output, with the admission it implies).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegSplit {
    /// Registers per thread every resident warp holds.
    pub base: u32,
    /// Registers per thread a warp takes from the pool inside the region.
    pub extended: u32,
    /// Extended sets the pool holds at once.
    pub sections: u32,
    /// CTAs per SM admitted with the base set.
    pub ctas_per_sm: u32,
}

/// Why a kernel runs with a zero-sized extended set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fallback {
    /// No candidate split admits more CTAs than static residency.
    NoGain,
    /// The kernel calls device functions.
    Calls,
    /// No candidate meets the deadlock rules (or a forced size exceeds the registers).
    NoSplit,
}

impl Fallback {
    fn counter(self) -> &'static str {
        match self {
            Fallback::NoGain => "fallback_no_gain",
            Fallback::Calls => "fallback_calls",
            Fallback::NoSplit => "fallback_no_split",
        }
    }
}

/// What the split is chosen from.
#[derive(Clone, Copy, Debug)]
pub struct SplitInput {
    /// Registers per thread as allocated (`R`).
    pub regs: u32,
    pub warps_per_cta: u32,
    /// CTAs per SM if registers did not limit, and under static residency.
    pub ctas_without_registers: u32,
    pub static_ctas: u32,
    /// 32-bit registers per SM.
    pub registers: u32,
    /// The fewest base registers that keep every register live at a barrier.
    pub min_base: u32,
    /// A forced `|Es|` (0: the heuristic).
    pub forced: u32,
}

/// The seed's choice of `|Es|` (see the module docs).
pub fn choose_split(i: &SplitInput) -> Result<RegSplit, Fallback> {
    let candidates: Vec<u32> = if i.forced > 0 {
        vec![i.forced]
    } else {
        let mut c: Vec<u32> = [10, 15, 20, 25, 30, 35]
            .iter()
            .map(|p| i.regs * p / 100)
            .filter(|e| *e > 0 && e % 2 == 0)
            .collect();
        c.dedup();
        c
    };
    let warp_regs =
        |ctas: u32, per_thread: u32| u64::from(ctas * i.warps_per_cta * 32 * per_thread);
    let splits: Vec<RegSplit> = candidates
        .into_iter()
        .filter(|&e| e < i.regs && i.regs - e >= i.min_base)
        .filter_map(|extended| {
            let base = i.regs - extended;
            let file = u64::from(i.registers);
            let mut ctas = i
                .ctas_without_registers
                .min((file / warp_regs(1, base).max(1)) as u32);
            // The pool must hold at least one extended set.
            while ctas > 0 && warp_regs(ctas, base) + u64::from(extended * 32) > file {
                ctas -= 1;
            }
            let pool = file - warp_regs(ctas, base);
            let sections = (pool / u64::from(extended * 32)).min(u64::from(ctas * i.warps_per_cta));
            (ctas > 0).then_some(RegSplit {
                base,
                extended,
                sections: sections as u32,
                ctas_per_sm: ctas,
            })
        })
        .collect();
    let best = splits
        .iter()
        .map(|s| s.ctas_per_sm)
        .max()
        .ok_or(Fallback::NoSplit)?;
    if i.forced == 0 && best <= i.static_ctas {
        return Err(Fallback::NoGain);
    }
    let top = splits.iter().filter(|s| s.ctas_per_sm == best);
    let half = best * i.warps_per_cta;
    top.clone()
        .filter(|s| 2 * s.sections > half)
        .min_by_key(|s| s.extended)
        .or_else(|| top.max_by_key(|s| (s.sections, std::cmp::Reverse(s.extended))))
        .copied()
        .ok_or(Fallback::NoSplit)
}

/// A launch's split and region, shared by its SMs.
#[derive(Debug)]
pub struct RegMutexPlan {
    kernel: FuncId,
    split: Result<RegSplit, Fallback>,
    /// Per PC of the kernel: whether a warp there needs its extended set.
    in_region: Vec<bool>,
}

impl RegMutexPlan {
    /// The compiler pass for a launch of `kernel` (occupancy `occ` under static residency) on
    /// SMs of `registers` 32-bit registers, forcing `|Es| = forced` unless 0.
    pub fn new(
        program: &emulator::Program,
        kernel: FuncId,
        occ: &Occupancy,
        registers: u32,
        forced: u32,
    ) -> RegMutexPlan {
        let code = &program.code[kernel.index()];
        let f = &program.module.functions[kernel.index()];
        let live = isa::warp_live::warp_live_counts(f, program.hints(kernel));
        let calls = code
            .insts
            .iter()
            .any(|inst| matches!(inst.op, isa::Op::Call { .. }));
        let min_base = code
            .insts
            .iter()
            .zip(&live)
            .filter(|(inst, _)| {
                matches!(
                    inst.op,
                    isa::Op::Bar {
                        kind: isa::BarrierKind::Sync
                            | isa::BarrierKind::Red(_)
                            | isa::BarrierKind::ClusterWait,
                        ..
                    }
                )
            })
            .map(|(_, &n)| n)
            .max()
            .unwrap_or(0);
        let split = if calls {
            Err(Fallback::Calls)
        } else {
            choose_split(&SplitInput {
                regs: occ.regs_per_thread,
                warps_per_cta: occ.warps_per_cta,
                ctas_without_registers: occ.ctas_without_registers,
                static_ctas: occ.ctas_per_sm,
                registers,
                min_base,
                forced,
            })
        };
        let in_region = match split {
            Ok(s) => live.iter().map(|&n| n > s.base).collect(),
            Err(_) => vec![false; live.len()],
        };
        RegMutexPlan {
            kernel,
            split,
            in_region,
        }
    }
}

/// RegMutex on one SM (see the module docs).
#[derive(Clone, Debug)]
pub struct RegMutex {
    plan: Arc<RegMutexPlan>,
    /// CTAs per SM under static residency (the fallback's admission).
    static_ctas: u32,
    /// Free pool sections (bit `s`: section `s`).
    free: u64,
    /// The section each warp slot holds.
    section: Vec<Option<u8>>,
    /// Warp slots refused an acquire since their last one.
    waiting: u64,
    /// Sections held now, since cycle `since`; section-cycles held before it.
    held: u64,
    since: u64,
    held_cycles: u64,
    acquires: u64,
    acquires_waited: u64,
    releases: u64,
    /// Whether this SM reports the launch's split.
    reports_split: bool,
}

impl RegMutex {
    /// The policy of one SM for the launch `plan`; `reports_split` on one SM per launch.
    pub fn new(plan: Arc<RegMutexPlan>, static_ctas: u32, reports_split: bool) -> RegMutex {
        let sections = plan.split.map_or(0, |s| s.sections);
        RegMutex {
            plan,
            static_ctas,
            free: if sections >= 64 {
                u64::MAX
            } else {
                (1 << sections) - 1
            },
            section: Vec::new(),
            waiting: 0,
            held: 0,
            since: 0,
            held_cycles: 0,
            acquires: 0,
            acquires_waited: 0,
            releases: 0,
            reports_split,
        }
    }

    /// The same policy for another SM of the launch.
    pub fn for_another_sm(&self) -> RegMutex {
        RegMutex::new(self.plan.clone(), self.static_ctas, false)
    }

    /// Adds the section-cycles held up to `now`.
    fn account(&mut self, now: u64) {
        self.held_cycles += self.held * now.saturating_sub(self.since);
        self.since = now;
    }

    fn slot(&mut self, warp: u32) -> &mut Option<u8> {
        let w = warp as usize;
        if self.section.len() <= w {
            self.section.resize(w + 1, None);
        }
        &mut self.section[w]
    }

    fn release(&mut self, warp: u32, now: u64) {
        if let Some(s) = self.slot(warp).take() {
            self.account(now);
            self.held -= 1;
            self.free |= 1 << s;
            self.releases += 1;
        }
    }
}

impl ResidencyPolicy for RegMutex {
    fn cta_limit(&self) -> u32 {
        self.plan.split.map_or(self.static_ctas, |s| s.ctas_per_sm)
    }

    fn admit(&self, _resident: u32, _demand: &CtaDemand) -> bool {
        true
    }

    fn on_launch(&mut self, _cta: u32, warps: &[u32], _now: u64) {
        for &w in warps {
            debug_assert!(self.slot(w).is_none(), "a new warp holds no section");
        }
    }

    fn on_exit(&mut self, warp: u32, now: u64) {
        self.release(warp, now);
    }

    #[inline]
    fn may_issue(&mut self, warp: u32, func: FuncId, pc: u32, now: u64) -> Result<(), Stall> {
        let needs = func == self.plan.kernel
            && self
                .plan
                .in_region
                .get(pc as usize)
                .copied()
                .unwrap_or(false);
        let bit = 1u64 << warp;
        match (needs, self.slot(warp).is_some()) {
            (true, false) => {
                if self.free == 0 {
                    self.waiting |= bit;
                    return Err(Stall::Registers);
                }
                let s = self.free.trailing_zeros() as u8;
                self.account(now);
                self.free &= !(1 << s);
                self.held += 1;
                *self.slot(warp) = Some(s);
                self.acquires += 1;
                if self.waiting & bit != 0 {
                    self.waiting &= !bit;
                    self.acquires_waited += 1;
                }
            }
            (false, true) => self.release(warp, now),
            _ => {}
        }
        Ok(())
    }

    fn allocated_register_cycles(&self, resident_warp_cycles: u64, regs_per_thread: u32) -> u64 {
        match self.plan.split {
            Ok(s) => {
                resident_warp_cycles * u64::from(s.base) + self.held_cycles * u64::from(s.extended)
            }
            Err(_) => resident_warp_cycles * u64::from(regs_per_thread),
        }
    }

    fn report(&self, out: &mut TechniqueReport) {
        out.add("acquires", self.acquires);
        out.add("acquires_waited", self.acquires_waited);
        out.add("releases", self.releases);
        if !self.reports_split {
            return;
        }
        match self.plan.split {
            Ok(s) => {
                out.add("split_launches", 1);
                out.add("base_set", u64::from(s.base));
                out.add("extended_set", u64::from(s.extended));
                out.add("srp_sections", u64::from(s.sections));
                out.add("ctas_per_sm", u64::from(s.ctas_per_sm));
                let region = self.plan.in_region.iter().filter(|&&r| r).count();
                out.add("region_pcs", region as u64);
                out.add("kernel_pcs", self.plan.in_region.len() as u64);
            }
            Err(f) => out.add(f.counter(), 1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The seed's worked example (§4.3.1): 24 registers on Fermi (32K registers, 48 warps),
    /// registers the only limit.
    #[test]
    fn the_seeds_example_picks_six_extended_registers() {
        // CTAs of 8 warps: 6 fit without the register limit; 24 registers admit 5.
        let input = SplitInput {
            regs: 24,
            warps_per_cta: 8,
            ctas_without_registers: 6,
            static_ctas: 5,
            registers: 32768,
            min_base: 0,
            forced: 0,
        };
        let s = choose_split(&input).unwrap();
        assert_eq!(
            s,
            RegSplit {
                base: 18,
                extended: 6,
                sections: 26,
                ctas_per_sm: 6
            }
        );
        // Forcing 8 gives the example's 32 sections; 4 gives 16.
        let forced = |e| choose_split(&SplitInput { forced: e, ..input }).unwrap();
        assert_eq!(forced(8).sections, 32);
        assert_eq!(forced(4).sections, 16);
        // A barrier with 20 registers live rules out every base set under 20: only 4 is left.
        let barrier = choose_split(&SplitInput {
            min_base: 20,
            ..input
        })
        .unwrap();
        assert_eq!((barrier.base, barrier.extended), (20, 4));
        // Nothing to gain where registers do not limit.
        assert_eq!(
            choose_split(&SplitInput {
                static_ctas: 6,
                ..input
            }),
            Err(Fallback::NoGain)
        );
    }

    /// A one-section pool: the region is PCs 1 and 2 of kernel 0.
    fn one_section() -> RegMutex {
        let plan = RegMutexPlan {
            kernel: FuncId(0),
            split: Ok(RegSplit {
                base: 18,
                extended: 6,
                sections: 1,
                ctas_per_sm: 6,
            }),
            in_region: vec![false, true, true, false],
        };
        RegMutex::new(Arc::new(plan), 5, true)
    }

    #[test]
    fn an_acquire_with_an_empty_pool_stalls_and_resumes_on_release() {
        let mut r = one_section();
        let k = FuncId(0);
        r.on_launch(0, &[0, 1], 0);
        // Outside the region nothing is taken.
        assert_eq!(r.may_issue(0, k, 0, 10), Ok(()));
        assert_eq!(r.may_issue(1, k, 0, 10), Ok(()));
        // Warp 0 enters the region and takes the only section; warp 1 must wait for it.
        assert_eq!(r.may_issue(0, k, 1, 11), Ok(()));
        assert_eq!(r.may_issue(1, k, 1, 11), Err(Stall::Registers));
        assert_eq!(r.may_issue(1, k, 1, 12), Err(Stall::Registers));
        // Inside the region warp 0 keeps it (no nested acquire); leaving it releases it.
        assert_eq!(r.may_issue(0, k, 2, 13), Ok(()));
        assert_eq!(r.may_issue(1, k, 1, 14), Err(Stall::Registers));
        assert_eq!(r.may_issue(0, k, 3, 20), Ok(()));
        assert_eq!(r.may_issue(1, k, 1, 21), Ok(()));
        // Warp 1 exits holding it: the exit releases it, and warp 0 may take it again.
        r.on_exit(1, 30);
        assert_eq!(r.may_issue(0, k, 1, 31), Ok(()));
        r.on_exit(0, 40);
        let mut out = TechniqueReport::default();
        r.report(&mut out);
        let c = |k: &str| out.counters[k];
        assert_eq!(
            (c("acquires"), c("acquires_waited"), c("releases")),
            (3, 1, 3)
        );
        assert_eq!(
            (c("base_set"), c("extended_set"), c("srp_sections")),
            (18, 6, 1)
        );
        assert_eq!((c("region_pcs"), c("kernel_pcs")), (2, 4));
        // Held 11..20, 21..30, 31..40: 27 section-cycles of 6 registers, beside the base set.
        assert_eq!(r.allocated_register_cycles(100, 24), 100 * 18 + 27 * 6);
    }

    #[test]
    fn a_fallback_admits_and_allocates_as_static_residency() {
        let plan = RegMutexPlan {
            kernel: FuncId(0),
            split: Err(Fallback::NoGain),
            in_region: vec![false; 4],
        };
        let mut r = RegMutex::new(Arc::new(plan), 5, true);
        assert_eq!(r.cta_limit(), 5);
        assert_eq!(r.may_issue(0, FuncId(0), 1, 0), Ok(()));
        assert_eq!(r.allocated_register_cycles(100, 24), 2400);
        let mut out = TechniqueReport::default();
        r.report(&mut out);
        assert_eq!(out.counters["fallback_no_gain"], 1);
        assert_eq!(out.counters["acquires"], 0);
    }
}
