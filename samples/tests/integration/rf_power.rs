//! Register power management (`sm.rf.power = "slumber"`) on whole samples (small size,
//! gtx480): power states change when registers can be read and written, never what the
//! program computes. Every other light sample and a heavy one (`common::HEAVY`) validate with the frozen baseline's instruction
//! counts and value widths (`tests/golden/timing-small.txt`; a sample whose values depend on the
//! order warps run in keeps its instruction counts only); the power states account for exactly
//! the allocated register-cycles and leak less than the baseline; and a sample times
//! identically on two host threads and cycle by cycle without fast-forward.

use runtime::{Device, DeviceConfig};
use timing::{ConfigError, GpuConfig, TimingStats};
use warpsim::registry;
use warpsim::sample::Size;

const SLUMBER: &str = "sm.rf.power=slumber";

/// Runs sample `name` at the small size on gtx480 with `overrides` on `host_threads` host
/// threads; it must validate. Its total statistics.
fn run(name: &str, overrides: &[&str], host_threads: usize) -> TimingStats {
    let overrides: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    let dev = Device::new(DeviceConfig {
        timing: Some(GpuConfig::load("gtx480", &overrides).unwrap()),
        host_threads,
        ..DeviceConfig::default()
    })
    .unwrap();
    let outcome = registry::find(name)
        .unwrap()
        .run(&dev, Size::Small)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(
        outcome.validation.passed(),
        "{name}: {}",
        outcome.validation
    );
    dev.take_timing().unwrap().total
}

fn counter(t: &TimingStats, key: &str) -> u64 {
    t.power.counters.get(key).copied().unwrap_or(0)
}

#[test]
fn slumber_on_every_other_sample_computes_what_the_baseline_does_and_leaks_less() {
    // Every other light sample and one heavy one keep CI fast; `tools/slumber_table.py` runs
    // them all.
    let mut samples: Vec<_> = crate::common::light_samples()
        .into_iter()
        .step_by(2)
        .collect();
    samples.push(crate::common::heavy_sample(1));
    for s in samples {
        let name = s.name();
        let t = run(name, &[SLUMBER], 1);
        let golden = crate::common::gtx480_golden();
        let at = |k: &str| {
            golden
                .get(&format!("{name} {k}"))
                .unwrap_or_else(|| panic!("{name}: golden {k}"))
                .clone()
        };
        // The operand widths are the baseline's too, unless the values themselves depend on
        // the order warps run in.
        let same_values = s.values_depend_on_warp_order().is_none();
        for (key, value) in crate::common::functional_stats(&t) {
            if key.starts_with("widths.") && !same_values {
                continue;
            }
            assert_eq!(value, at(&key), "{name} {key}");
        }
        // The register file is the baseline's: the same accesses.
        assert_eq!(t.rf.reads.to_string(), at("rf.reads"), "{name}");
        assert_eq!(t.rf.writes.to_string(), at("rf.writes"), "{name}");
        // The states share out exactly the allocated register-cycles.
        let states = t
            .rf_counts
            .power_states
            .expect("slumber reports its states");
        assert_eq!(
            states.total(),
            t.rf_counts.allocated_register_cycles,
            "{name}: register-cycles by state"
        );
        assert_eq!(t.power.name, "slumber");
        for (state, cycles) in [
            ("on", states.on),
            ("shallow", states.shallow),
            ("deep", states.deep),
            ("off", states.off),
        ] {
            assert_eq!(counter(&t, &format!("cycles_{state}")), cycles, "{name}");
        }
        // Every wake-up ends a sleep; waits come from wake-ups, at most the deepest one each.
        for state in ["shallow", "deep", "off"] {
            let woken = counter(&t, &format!("wakeups_{state}"));
            assert!(
                counter(&t, &format!("wakeups_{state}_early")) <= woken,
                "{name}"
            );
            if state != "off" {
                assert!(
                    woken <= counter(&t, &format!("sleeps_{state}")),
                    "{name}: {state}"
                );
            }
        }
        assert!(counter(&t, "reads_waited") <= t.rf.reads, "{name}");
        assert!(
            counter(&t, "read_wake_cycles") <= 16 * counter(&t, "reads_waited"),
            "{name}"
        );
        assert!(
            counter(&t, "write_wake_cycles") <= 16 * counter(&t, "writes_waited"),
            "{name}"
        );
        // Sleeping registers leak less than the baseline's, all on.
        let baseline_leakage: f64 = at("energy.rf_leakage_pj").parse().unwrap();
        assert!(
            t.energy.rf_leakage_pj < baseline_leakage,
            "{name}: {} against {baseline_leakage}",
            t.energy.rf_leakage_pj
        );
    }
}

#[test]
fn slumber_is_deterministic_and_exact_without_fast_forward() {
    // The statistics as JSON: host time is not part of it.
    let stats =
        |name: &str, o: &[&str], threads| serde_json::to_value(run(name, o, threads)).unwrap();
    for name in ["rodinia/hotspot", "rodinia/bfs", "saxpy"] {
        let one = stats(name, &[SLUMBER], 1);
        assert!(stats(name, &[SLUMBER], 2) == one, "{name}: 2 host threads");
        let stepped = stats(name, &[SLUMBER, "gpu.fast_forward=false"], 1);
        assert!(stepped == one, "{name}: cycle by cycle");
        // Off by default, and then nothing of it shows.
        let off = run(name, &[], 1);
        assert!(off.power.name.is_empty() && off.rf_counts.power_states.is_none());
        let off = serde_json::to_value(off).unwrap();
        assert!(stats(name, &["sm.rf.power=none"], 1) == off, "{name}");
        assert!(off != one, "{name}: slumber changes the timing");
    }
}

#[test]
fn slumber_needs_the_baseline_register_file_and_ordered_states() {
    let err = |o: &[&str]| {
        let o: Vec<String> = o.iter().map(|s| s.to_string()).collect();
        GpuConfig::load("gtx480", &o).unwrap_err()
    };
    let key = |e: ConfigError| match e {
        ConfigError::Invalid { key, .. } => key,
        other => panic!("{other:?}"),
    };
    assert_eq!(key(err(&[SLUMBER, "sm.rf.technique=corf"])), "sm.rf.power");
    assert_eq!(
        key(err(&[SLUMBER, "sm.rf.residency=finereg"])),
        "sm.rf.power"
    );
    assert_eq!(
        key(err(&["sm.rf.slumber.deep_wake=20"])),
        "sm.rf.slumber.shallow_wake"
    );
    assert_eq!(
        key(err(&["sm.rf.slumber.off_leakage=1.5"])),
        "sm.rf.slumber.off_leakage"
    );
    let unknown = err(&["sm.rf.power=sleepy"]).to_string();
    assert!(unknown.contains("sleepy"), "{unknown}");
    for preset in timing::config::PRESETS {
        let cfg = GpuConfig::load(preset, &[SLUMBER.into()]).unwrap();
        assert_eq!(cfg.sm.rf.slumber.deep_wake, 13, "{preset}");
    }
}
