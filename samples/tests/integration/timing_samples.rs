//! Samples under the timing model: timing results are deterministic (run to run, whatever the
//! host thread setting) and do not depend on skipping idle cycles; every preset and scheduling
//! policy runs; kernels are reported one by one; a reset GPU is a cold one. (That every sample
//! validates under the timing model with its functional instruction counts, and times
//! identically under the interpreter, is checked on the golden baseline's runs:
//! `golden_stats.rs`.)

use runtime::{Device, DeviceConfig, LaunchStats, TimingReport};
use timing::GpuConfig;
use warpsim::registry;
use warpsim::sample::{Sample, Size};

fn timed_device(cfg: GpuConfig, host_threads: usize) -> Device {
    Device::new(DeviceConfig {
        timing: Some(cfg),
        host_threads,
        ..DeviceConfig::default()
    })
    .unwrap()
}

/// Runs `s` at the small size; returns its instruction counters and timing report.
fn run(dev: &Device, s: &dyn Sample) -> (LaunchStats, Option<TimingReport>) {
    let outcome = s
        .run(dev, Size::Small)
        .unwrap_or_else(|e| panic!("{}: {e}", s.name()));
    assert!(
        outcome.validation.passed(),
        "{}: {}",
        s.name(),
        outcome.validation
    );
    (outcome.stats, dev.take_timing())
}

/// The statistics as JSON (host time is not part of it).
fn comparable(r: &TimingReport) -> serde_json::Value {
    serde_json::to_value((&r.total, &r.kernels)).unwrap()
}

#[test]
fn timing_is_deterministic_and_independent_of_host_threads_and_fast_forward() {
    for name in ["rodinia/hotspot", "rodinia/bfs", "rodinia/backprop"] {
        let s = registry::find(name).unwrap();
        let reference = {
            let (_, r) = run(&timed_device(GpuConfig::preset("gtx480"), 1), s);
            comparable(&r.unwrap())
        };
        let (_, again) = run(&timed_device(GpuConfig::preset("gtx480"), 2), s);
        assert_eq!(comparable(&again.unwrap()), reference, "{name}: rerun");
        let slow = GpuConfig::load("gtx480", &["gpu.fast_forward=false".into()]).unwrap();
        let (_, stepped) = run(&timed_device(slow, 1), s);
        assert_eq!(
            comparable(&stepped.unwrap()),
            reference,
            "{name}: cycle by cycle"
        );
    }
}

/// Every preset (sub-cores, the modern presets' caches and memory systems) times a sample with
/// barriers and shared memory identically on two host threads and cycle by cycle.
#[test]
fn every_preset_is_deterministic_and_independent_of_host_threads_and_fast_forward() {
    let name = "rodinia/hotspot";
    let s = registry::find(name).unwrap();
    for preset in timing::config::PRESETS {
        let timed = |overrides: &[String], threads| {
            let cfg = GpuConfig::load(preset, overrides).unwrap();
            comparable(&run(&timed_device(cfg, threads), s).1.unwrap())
        };
        let reference = timed(&[], 1);
        assert_eq!(timed(&[], 2), reference, "{preset}: two host threads");
        assert_eq!(
            timed(&["gpu.fast_forward=false".into()], 1),
            reference,
            "{preset}: cycle by cycle"
        );
    }
}

#[test]
fn every_preset_runs_and_validates() {
    for preset in timing::config::PRESETS {
        let dev = timed_device(GpuConfig::preset(preset), 1);
        for name in ["saxpy", "rodinia/srad_v2"] {
            let (_, r) = run(&dev, registry::find(name).unwrap());
            let r = r.unwrap();
            assert_eq!(r.total.config, preset);
            assert!(r.total.gpu_sim_cycle > 0);
        }
    }
}

/// Every scheduling policy runs the samples whose CTAs have more warps than a two-level
/// scheduler's active pool and meet at barriers (hotspot, srad_v2, backprop) or exit at
/// different times (bfs): a pool full of warps at a barrier or exited must make room for the
/// pending warps.
#[test]
fn every_scheduler_policy_runs_samples_with_barriers() {
    for policy in ["lrr", "gto", "two-level"] {
        for preset in ["gtx480", "gtx480-4bank"] {
            let cfg = GpuConfig::load(preset, &[format!("sm.scheduler={policy}")]).unwrap();
            let dev = timed_device(cfg, 1);
            for name in [
                "rodinia/hotspot",
                "rodinia/srad_v2",
                "rodinia/backprop",
                "rodinia/bfs",
            ] {
                let (_, r) = run(&dev, registry::find(name).unwrap());
                assert!(
                    r.unwrap().total.gpu_sim_cycle > 0,
                    "{name} {preset} {policy}"
                );
            }
        }
    }
}

#[test]
fn kernels_are_reported_one_by_one_and_in_total() {
    let dev = timed_device(GpuConfig::preset("gtx480"), 1);
    let (_, r) = run(&dev, registry::find("rodinia/srad_v2").unwrap());
    let r = r.unwrap();
    assert_eq!(r.kernels.len(), 4);
    let cycles: u64 = r.kernels.iter().map(|k| k.gpu_sim_cycle).sum();
    assert_eq!(r.total.gpu_sim_cycle, cycles);
    let insts: u64 = r.kernels.iter().map(|k| k.warp_insts).sum();
    assert_eq!(r.total.warp_insts, insts);
    // Drained: the next report starts empty.
    assert!(dev.take_timing().unwrap().kernels.is_empty());
}

#[test]
fn the_watchdog_stops_a_run_that_issues_nothing_and_reports_every_warp() {
    // No warp can issue for the ~400 cycles of a DRAM access, so a 10-cycle watchdog fires:
    // the report names the configuration key and each warp's state.
    let cfg = GpuConfig::load("gtx480", &["gpu.watchdog_cycles=10".into()]).unwrap();
    let dev = timed_device(cfg, 1);
    let err = warpsim::saxpy::run(&dev, 4096)
        .err()
        .expect("the watchdog fires");
    let text = err.to_string();
    assert_eq!(err.cuda_name(), "cudaErrorLaunchFailure");
    assert!(
        text.starts_with("timing deadlock: no instruction issued for 11 cycles"),
        "{text}"
    );
    assert!(text.contains("gpu.watchdog_cycles"), "{text}");
    assert!(
        text.contains("SM 0 warp slot 0 (CTA [0, 0, 0], warp 0)"),
        "{text}"
    );
    assert!(text.contains("scoreboard ["), "{text}");
}

#[test]
fn a_reset_gpu_gives_a_sample_the_figures_it_has_alone() {
    let s = registry::find("rodinia/backprop").unwrap();
    let (_, alone) = run(&timed_device(GpuConfig::preset("gtx480"), 1), s);
    let dev = timed_device(GpuConfig::preset("gtx480"), 1);
    let (_, _) = run(&dev, registry::find("rodinia/hotspot").unwrap());
    // Warm L2 and a later memory clock change the figures...
    let (_, warm) = run(&dev, s);
    assert_ne!(
        comparable(&warm.unwrap()),
        comparable(alone.as_ref().unwrap())
    );
    // ...and a reset brings back the cold GPU.
    dev.reset_timing();
    let (_, cold) = run(&dev, s);
    assert_eq!(comparable(&cold.unwrap()), comparable(&alone.unwrap()));
}
