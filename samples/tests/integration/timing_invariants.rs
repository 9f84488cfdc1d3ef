//! Accounting identities of the timing statistics (`identities/mod.rs`) on the variants the
//! frozen baseline does not run: registers named twice read each time, and one SM. (The
//! baseline's own runs, every sample on four presets, are checked by `golden_stats.rs`.)

use crate::identities;

use runtime::{Device, DeviceConfig};
use timing::{GpuConfig, TimingStats};
use warpsim::sample::Size;

/// Runs every other light sample on `cfg`, from the `first` (0 or 1: the two tests below take
/// one half each, which keeps CI fast), and heavy sample `4 + first`; returns (name, total
/// statistics) per sample.
fn every_other_sample(cfg: GpuConfig, first: usize) -> Vec<(String, TimingStats)> {
    let dev = Device::new(DeviceConfig {
        timing: Some(cfg),
        host_threads: 1,
        ..DeviceConfig::default()
    })
    .unwrap();
    let mut samples: Vec<_> = crate::common::light_samples()
        .into_iter()
        .skip(first)
        .step_by(2)
        .collect();
    samples.push(crate::common::heavy_sample(4 + first));
    samples
        .into_iter()
        .map(|s| {
            let outcome = s
                .run(&dev, Size::Small)
                .unwrap_or_else(|e| panic!("{}: {e}", s.name()));
            assert!(outcome.validation.passed(), "{}", s.name());
            (s.name().to_string(), dev.take_timing().unwrap().total)
        })
        .collect()
}

/// Register-file reads and writes, width records and opcode classes agree with registers
/// named twice read each time.
#[test]
fn register_accesses_width_records_and_classes_agree_when_duplicates_are_read_each_time() {
    let overrides = ["sm.rf.read_duplicates=each".to_string()];
    let cfg = GpuConfig::load("gtx480", &overrides).unwrap();
    for (name, t) in every_other_sample(cfg.clone(), 0) {
        identities::all(&format!("{name} {overrides:?}"), &t, &cfg);
    }
}

/// One outcome per scheduler and cycle on a single SM (every SM has work most of the time).
#[test]
fn every_scheduler_has_one_outcome_per_cycle_on_one_sm() {
    let cfg = GpuConfig::load("gtx480", &["gpu.sms=1".to_string()]).unwrap();
    for (name, t) in every_other_sample(cfg.clone(), 1) {
        identities::one_outcome_per_scheduler_and_cycle(&name, &t, &cfg);
    }
}
