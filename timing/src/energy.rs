//! Register-file energy: access counts per component times per-access energies.
//!
//! Energy is not a technique's business. The register file (the baseline, or a technique
//! through the register-file seam) counts what it did per component in
//! [`RfComponentCounts`]; at the end of a launch [`EnergyReport::compute`] multiplies the counts
//! by the per-access energies of the configuration's `[energy]` section ([`EnergyConfig`]).
//! Nothing here runs per cycle, so enabling it costs the simulation nothing measurable.
//!
//! Bank accesses and byte slices combine as follows. `bank_access_pj` is the energy of one
//! full-width access, one that activates every one of the `sm.rf.sub_banks` slices of a warp
//! register (the seeds' CACTI figure). A share `s = bank_slice_share` of it scales with the
//! slices an access activates (bitlines, sense amplifiers, drivers of each slice); the rest is
//! paid once per access (row decode, control). So
//!
//! ```text
//! banks  = (bank_reads + bank_writes) × bank_access_pj × (1 − s)
//! slices = slice_activations × bank_access_pj × s / sub_banks
//! ```
//!
//! A baseline access activates all `sub_banks` slices and costs exactly `bank_access_pj`; an
//! access activating 2 of 4 slices costs `bank_access_pj × (1 − s/2)`. Leakage is paid per
//! allocated warp register per cycle: `allocated_register_cycles × register_leakage_uw /
//! gpu.clock_mhz` (µW / MHz is pJ per cycle); unallocated registers are taken as power-gated,
//! as CORF's leakage figures assume. Under a power-management policy (Slumber,
//! `sm.rf.power`) the allocated register-cycles are split by power state
//! ([`PowerStateCycles`]) and each state leaks its share of the on figure
//! (`sm.rf.slumber.*_leakage`):
//!
//! ```text
//! leakage = (on + shallow × share_shallow + deep × share_deep + off × share_off)
//!           × register_leakage_uw / gpu.clock_mhz
//! ```
//!
//! Without one every allocated register is on, which is the formula above.
//! docs/rf.md gives every default and its origin.

use crate::collector::RfStats;
use crate::config::{ConfigError, GpuConfig, SlumberConfig};
use crate::decode::OpClass;
use crate::stats::TimingStats;
use serde::{Deserialize, Serialize};

/// Per-access energies (`[energy]` in a configuration). Every preset cites the origin of each
/// value; `validate` rejects negative and non-finite values, naming the key.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnergyConfig {
    /// One full-width register-bank access (read or write of every slice of a warp
    /// register), in pJ.
    pub bank_access_pj: f64,
    /// Share of `bank_access_pj` that scales with the byte slices an access activates
    /// (0 ≤ share ≤ 1); the rest is paid once per access.
    pub bank_slice_share: f64,
    /// One operand written to or read from a collector unit's buffer (or a bypass buffer),
    /// in pJ.
    pub collector_access_pj: f64,
    /// One renaming-table lookup or update, in pJ.
    pub rename_access_pj: f64,
    /// One warp register moved through the bank-to-collector crossbar, in pJ.
    pub crossbar_transfer_pj: f64,
    /// Leakage power of one allocated warp register (32 lanes × 4 bytes), in µW.
    pub register_leakage_uw: f64,
    /// Coarse estimate outside the register file: one lane of an integer instruction, in pJ.
    pub alu_int_pj: f64,
    /// Coarse estimate: one lane of a single-precision floating-point instruction, in pJ.
    pub alu_fp32_pj: f64,
    /// Coarse estimate: 32 bits of DRAM traffic (read or written), in pJ.
    pub dram_access_pj: f64,
}

impl EnergyConfig {
    /// Rejects negative and non-finite energies, and a slice share outside [0, 1].
    pub fn validate(&self) -> Result<(), ConfigError> {
        let fields = [
            ("bank_access_pj", self.bank_access_pj),
            ("bank_slice_share", self.bank_slice_share),
            ("collector_access_pj", self.collector_access_pj),
            ("rename_access_pj", self.rename_access_pj),
            ("crossbar_transfer_pj", self.crossbar_transfer_pj),
            ("register_leakage_uw", self.register_leakage_uw),
            ("alu_int_pj", self.alu_int_pj),
            ("alu_fp32_pj", self.alu_fp32_pj),
            ("dram_access_pj", self.dram_access_pj),
        ];
        for (field, v) in fields {
            if !v.is_finite() || v < 0.0 {
                return Err(ConfigError::Invalid {
                    key: format!("energy.{field}"),
                    message: format!("must be a finite number at least 0, not {v}"),
                });
            }
        }
        if self.bank_slice_share > 1.0 {
            return Err(ConfigError::Invalid {
                key: "energy.bank_slice_share".into(),
                message: format!(
                    "is a share of a bank access: at most 1, not {}",
                    self.bank_slice_share
                ),
            });
        }
        Ok(())
    }
}

/// What the register file did, per component: the counts the energy model multiplies. The
/// baseline fills them from its counters ([`RfComponentCounts::baseline`]); a register-file
/// technique fills them itself (a coalesced read is one bank read activating the slices it
/// needs; a bypassed operand is a bypass access and no bank read).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct RfComponentCounts {
    /// Register-bank reads (one per physical bank access, however many operands it served).
    pub bank_reads: u64,
    /// Register-bank writes.
    pub bank_writes: u64,
    /// Byte slices (sub-banks) activated by those reads and writes together.
    pub slice_activations: u64,
    /// Operands written into collector units' buffers.
    pub collector_writes: u64,
    /// Operands read out of collector units' buffers at dispatch.
    pub collector_reads: u64,
    /// Reads and writes of bypass buffers (operands forwarded instead of read from a bank).
    pub bypass_accesses: u64,
    /// Renaming-table lookups and updates.
    pub rename_accesses: u64,
    /// Warp registers moved through the bank-to-collector crossbar.
    pub crossbar_transfers: u64,
    /// Warp registers allocated, summed over cycles (what leakage is paid on).
    pub allocated_register_cycles: u64,
    /// The allocated register-cycles by power state, under a power-management policy
    /// (`sm.rf.power`); absent without one (every allocated register on).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub power_states: Option<PowerStateCycles>,
}

/// Allocated warp register-cycles by power state (Slumber's four; they sum to the allocated
/// register-cycles).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PowerStateCycles {
    /// On, waking up included (a waking register is charged the on leakage).
    pub on: u64,
    /// Shallow sleep (0.9 V).
    pub shallow: u64,
    /// Deep sleep (0.3 V).
    pub deep: u64,
    /// Off (power-gated): registers never accessed since their allocation included.
    pub off: u64,
}

impl PowerStateCycles {
    /// Adds another SM's or launch's cycles.
    pub fn merge(&mut self, o: &PowerStateCycles) {
        self.on += o.on;
        self.shallow += o.shallow;
        self.deep += o.deep;
        self.off += o.off;
    }

    /// Register-cycles in every state together.
    pub fn total(&self) -> u64 {
        self.on + self.shallow + self.deep + self.off
    }

    /// The register-cycles leaking as if on: each state weighted by its leakage share.
    pub fn on_equivalent(&self, s: &SlumberConfig) -> f64 {
        self.on as f64
            + self.shallow as f64 * s.shallow_leakage
            + self.deep as f64 * s.deep_leakage
            + self.off as f64 * s.off_leakage
    }
}

impl RfComponentCounts {
    /// The baseline register file's counts: every read and write is one full-width bank
    /// access activating all `sub_banks` slices; every operand read crosses the crossbar, is
    /// written into a collector unit and read out of it at dispatch; no bypass, no renaming.
    /// `allocated_register_cycles` comes from the residency policy (static: resident warps ×
    /// registers per thread as allocated × cycles).
    pub fn baseline(
        rf: &RfStats,
        sub_banks: u32,
        allocated_register_cycles: u64,
    ) -> RfComponentCounts {
        RfComponentCounts {
            bank_reads: rf.reads,
            bank_writes: rf.writes,
            slice_activations: (rf.reads + rf.writes) * u64::from(sub_banks),
            collector_writes: rf.reads,
            collector_reads: rf.reads,
            bypass_accesses: 0,
            rename_accesses: 0,
            crossbar_transfers: rf.reads,
            allocated_register_cycles,
            power_states: None,
        }
    }

    /// Adds another SM's or launch's counts.
    pub fn merge(&mut self, o: &RfComponentCounts) {
        self.bank_reads += o.bank_reads;
        self.bank_writes += o.bank_writes;
        self.slice_activations += o.slice_activations;
        self.collector_writes += o.collector_writes;
        self.collector_reads += o.collector_reads;
        self.bypass_accesses += o.bypass_accesses;
        self.rename_accesses += o.rename_accesses;
        self.crossbar_transfers += o.crossbar_transfers;
        self.allocated_register_cycles += o.allocated_register_cycles;
        match (&mut self.power_states, &o.power_states) {
            (Some(a), Some(b)) => a.merge(b),
            (None, Some(b)) => self.power_states = Some(*b),
            (_, None) => {}
        }
    }
}

/// Energy of a launch (or, merged, of several), in pJ.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct EnergyReport {
    /// Register-file dynamic energy by component: bank accesses (the part paid once per
    /// access), byte-slice activations, collector and bypass buffers, renaming table, crossbar.
    pub bank_pj: f64,
    pub slice_pj: f64,
    pub collector_pj: f64,
    pub rename_pj: f64,
    pub crossbar_pj: f64,
    /// The sum of the components above.
    pub rf_dynamic_pj: f64,
    /// Leakage of the allocated registers (each at its power state's share under a
    /// power-management policy).
    pub rf_leakage_pj: f64,
    /// Dynamic and leakage.
    pub rf_total_pj: f64,
    /// Coarse estimate, not part of the register-file figures: integer and single-precision
    /// instructions' lanes at the 45 nm add energies (multiplies are not told apart, so this
    /// is a lower bound; other classes are not counted).
    pub alu_estimate_pj: f64,
    /// Coarse estimate: DRAM bytes read and written at the 45 nm per-32-bit energy.
    pub dram_estimate_pj: f64,
}

impl EnergyReport {
    /// The energy of `stats` (one launch: its `rf_counts`, `by_class`, `mem`) under `cfg`.
    pub fn compute(cfg: &GpuConfig, stats: &TimingStats) -> EnergyReport {
        let e = &cfg.energy;
        let c = &stats.rf_counts;
        let accesses = (c.bank_reads + c.bank_writes) as f64;
        let bank_pj = accesses * e.bank_access_pj * (1.0 - e.bank_slice_share);
        let slice_pj = c.slice_activations as f64 * e.bank_access_pj * e.bank_slice_share
            / f64::from(cfg.sm.rf.sub_banks);
        let collector_pj = (c.collector_writes + c.collector_reads + c.bypass_accesses) as f64
            * e.collector_access_pj;
        let rename_pj = c.rename_accesses as f64 * e.rename_access_pj;
        let crossbar_pj = c.crossbar_transfers as f64 * e.crossbar_transfer_pj;
        let rf_dynamic_pj = bank_pj + slice_pj + collector_pj + rename_pj + crossbar_pj;
        let leaking_register_cycles = match &c.power_states {
            Some(states) => states.on_equivalent(&cfg.sm.rf.slumber),
            None => c.allocated_register_cycles as f64,
        };
        let rf_leakage_pj =
            leaking_register_cycles * e.register_leakage_uw / f64::from(cfg.gpu.clock_mhz);
        // Lanes per class are not counted; the launch's mean active lanes stands in.
        let lanes = stats.gpu_sim_insn as f64 / stats.warp_insts.max(1) as f64;
        let class_insts = |class: OpClass| {
            stats
                .by_class
                .get(class.index())
                .map_or(0, |s| s.warp_insts) as f64
        };
        let alu_estimate_pj = lanes
            * (class_insts(OpClass::Int) * e.alu_int_pj
                + class_insts(OpClass::Fp32) * e.alu_fp32_pj);
        let dram_words = (stats.mem.dram_reads_bytes + stats.mem.dram_writes_bytes) as f64 / 4.0;
        EnergyReport {
            bank_pj,
            slice_pj,
            collector_pj,
            rename_pj,
            crossbar_pj,
            rf_dynamic_pj,
            rf_leakage_pj,
            rf_total_pj: rf_dynamic_pj + rf_leakage_pj,
            alu_estimate_pj,
            dram_estimate_pj: dram_words * e.dram_access_pj,
        }
    }

    /// Adds a later launch's energy (the energy of several launches is their sum).
    pub fn merge(&mut self, o: &EnergyReport) {
        self.bank_pj += o.bank_pj;
        self.slice_pj += o.slice_pj;
        self.collector_pj += o.collector_pj;
        self.rename_pj += o.rename_pj;
        self.crossbar_pj += o.crossbar_pj;
        self.rf_dynamic_pj += o.rf_dynamic_pj;
        self.rf_leakage_pj += o.rf_leakage_pj;
        self.rf_total_pj += o.rf_total_pj;
        self.alu_estimate_pj += o.alu_estimate_pj;
        self.dram_estimate_pj += o.dram_estimate_pj;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats_with(counts: RfComponentCounts) -> TimingStats {
        TimingStats {
            rf_counts: counts,
            by_class: TimingStats::empty_classes(),
            ..TimingStats::default()
        }
    }

    #[test]
    fn a_baseline_access_costs_the_seed_figure() {
        for preset in crate::config::PRESETS {
            let cfg = GpuConfig::preset(preset);
            let rf = RfStats {
                reads: 3,
                writes: 2,
                ..RfStats::default()
            };
            let counts = RfComponentCounts::baseline(&rf, cfg.sm.rf.sub_banks, 0);
            let r = EnergyReport::compute(&cfg, &stats_with(counts));
            let banks = r.bank_pj + r.slice_pj;
            assert!(
                (banks - 5.0 * cfg.energy.bank_access_pj).abs() < 1e-9,
                "{preset}: {banks}"
            );
            // Three operands through a collector buffer, in and out.
            assert!((r.collector_pj - 6.0 * cfg.energy.collector_access_pj).abs() < 1e-9);
            assert_eq!(r.rename_pj, 0.0);
            assert!((r.rf_dynamic_pj - banks - r.collector_pj - r.crossbar_pj).abs() < 1e-9);
        }
    }

    #[test]
    fn fewer_slices_cost_less_than_a_full_access() {
        let cfg = GpuConfig::preset("gtx480");
        assert_eq!(cfg.sm.rf.sub_banks, 4);
        let full = EnergyReport::compute(
            &cfg,
            &stats_with(RfComponentCounts {
                bank_reads: 1,
                slice_activations: 4,
                ..RfComponentCounts::default()
            }),
        );
        let half = EnergyReport::compute(
            &cfg,
            &stats_with(RfComponentCounts {
                bank_reads: 1,
                slice_activations: 2,
                ..RfComponentCounts::default()
            }),
        );
        let s = cfg.energy.bank_slice_share;
        assert!(half.rf_dynamic_pj < full.rf_dynamic_pj);
        let expected = cfg.energy.bank_access_pj * (1.0 - s / 2.0);
        assert!((half.rf_dynamic_pj - expected).abs() < 1e-9);
    }

    #[test]
    fn leakage_is_register_cycles_times_power_over_clock() {
        let cfg = GpuConfig::preset("gtx480");
        let r = EnergyReport::compute(
            &cfg,
            &stats_with(RfComponentCounts {
                allocated_register_cycles: 7000,
                ..RfComponentCounts::default()
            }),
        );
        // 87.5 µW at 700 MHz: 0.125 pJ per register per cycle.
        assert!((r.rf_leakage_pj - 7000.0 * 0.125).abs() < 1e-9);
        assert_eq!(r.rf_total_pj, r.rf_leakage_pj);
    }

    #[test]
    fn leakage_of_a_known_state_history_weighs_each_state_by_its_share() {
        let cfg = GpuConfig::load("gtx480", &["sm.rf.power=slumber".into()]).unwrap();
        // One register for 100 cycles: on 10, shallow 20, deep 30, off 40.
        let states = PowerStateCycles {
            on: 10,
            shallow: 20,
            deep: 30,
            off: 40,
        };
        let r = EnergyReport::compute(
            &cfg,
            &stats_with(RfComponentCounts {
                allocated_register_cycles: 100,
                power_states: Some(states),
                ..RfComponentCounts::default()
            }),
        );
        // 0.125 pJ per on register-cycle (87.5 µW at 700 MHz):
        // (10 + 20 × 0.94 + 30 × 0.42 + 40 × 0) × 0.125 = 41.4 × 0.125 = 5.175 pJ.
        assert!(
            (r.rf_leakage_pj - 5.175).abs() < 1e-9,
            "{}",
            r.rf_leakage_pj
        );
        // Every register on is exactly the allocated-cycles figure.
        let all_on = EnergyReport::compute(
            &cfg,
            &stats_with(RfComponentCounts {
                allocated_register_cycles: 100,
                power_states: Some(PowerStateCycles {
                    on: 100,
                    ..PowerStateCycles::default()
                }),
                ..RfComponentCounts::default()
            }),
        );
        let none = EnergyReport::compute(
            &cfg,
            &stats_with(RfComponentCounts {
                allocated_register_cycles: 100,
                ..RfComponentCounts::default()
            }),
        );
        assert_eq!(all_on.rf_leakage_pj, none.rf_leakage_pj);
        assert!((none.rf_leakage_pj - 12.5).abs() < 1e-9);
        // Merging keeps the states; a launch without them adds nothing to them.
        let mut a = RfComponentCounts {
            power_states: Some(states),
            ..RfComponentCounts::default()
        };
        a.merge(&RfComponentCounts {
            power_states: Some(states),
            ..RfComponentCounts::default()
        });
        a.merge(&RfComponentCounts::default());
        assert_eq!(a.power_states.map(|s| (s.total(), s.off)), Some((200, 80)));
    }

    #[test]
    fn energy_of_merged_launches_is_the_sum() {
        let cfg = GpuConfig::preset("titanx");
        let a = RfComponentCounts {
            bank_reads: 10,
            bank_writes: 4,
            slice_activations: 50,
            collector_writes: 10,
            collector_reads: 10,
            bypass_accesses: 3,
            rename_accesses: 5,
            crossbar_transfers: 10,
            allocated_register_cycles: 1000,
            power_states: None,
        };
        let b = RfComponentCounts {
            bank_reads: 1,
            allocated_register_cycles: 77,
            ..RfComponentCounts::default()
        };
        let mut sum = EnergyReport::compute(&cfg, &stats_with(a.clone()));
        sum.merge(&EnergyReport::compute(&cfg, &stats_with(b.clone())));
        let mut counts = a;
        counts.merge(&b);
        let whole = EnergyReport::compute(&cfg, &stats_with(counts));
        assert!((sum.rf_total_pj - whole.rf_total_pj).abs() < 1e-6);
        assert!((sum.rename_pj - 5.0 * 1.83).abs() < 1e-9);
    }

    #[test]
    fn bad_energies_name_the_key() {
        let err = |o: &str| GpuConfig::load("gtx480", &[o.to_string()]).unwrap_err();
        for (o, key) in [
            ("energy.bank_access_pj=-1.0", "energy.bank_access_pj"),
            (
                "energy.register_leakage_uw=nan",
                "energy.register_leakage_uw",
            ),
            (
                "energy.crossbar_transfer_pj=inf",
                "energy.crossbar_transfer_pj",
            ),
            ("energy.bank_slice_share=1.5", "energy.bank_slice_share"),
        ] {
            assert!(
                matches!(err(o), ConfigError::Invalid { key: k, .. } if k == key),
                "{o}: {:?}",
                err(o)
            );
        }
        assert!(GpuConfig::load("gtx480", &["energy.crossbar_transfer_pj=0.5".into()]).is_ok());
    }

    #[test]
    fn generations_have_their_own_bank_energy() {
        let fermi = GpuConfig::preset("gtx480").energy;
        let pascal = GpuConfig::preset("titanx").energy;
        assert_eq!(fermi.bank_access_pj, 149.76);
        assert_eq!(pascal.bank_access_pj, 185.26);
        assert_eq!(GpuConfig::preset("gtx480-4bank").energy, fermi);
    }
}
