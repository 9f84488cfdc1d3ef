//! Sampled timing (`DeviceConfig::timing_sampling`, `warpsim run/rf --kernel-minsts
//! --launch-waves`): what is not timed runs functionally, so a sampled run validates and
//! executes every instruction; the timed part is chosen from the program alone, so it is the
//! same under every register-file technique; and it is deterministic.

use runtime::{Device, DeviceConfig, LaunchStats, TimingReport, TimingSampling};
use timing::GpuConfig;
use warpsim::registry;
use warpsim::sample::Size;

/// Runs gaussian at the small size (207 launches of two kernels, Fan2's grids several waves
/// wide on gtx480) on a fresh device; checks it validates.
fn gaussian(cfg: GpuConfig, sampling: TimingSampling) -> (LaunchStats, TimingReport) {
    let dev = Device::new(DeviceConfig {
        timing: Some(cfg),
        timing_sampling: sampling,
        host_threads: 1,
        ..DeviceConfig::default()
    })
    .unwrap();
    let s = registry::find("gaussian").expect("gaussian is a sample");
    let outcome = s.run(&dev, Size::Small).expect("gaussian runs");
    assert!(outcome.validation.passed(), "{}", outcome.validation);
    (outcome.stats, dev.take_timing().expect("a timing report"))
}

const SAMPLED: TimingSampling = TimingSampling {
    kernel_warp_insts: 2_000,
    launch_waves: 1,
};

#[test]
fn a_sampled_run_validates_and_accounts_for_every_instruction() {
    let (full_stats, full) = gaussian(GpuConfig::preset("gtx480"), TimingSampling::default());
    let (stats, sampled) = gaussian(GpuConfig::preset("gtx480"), SAMPLED);
    assert!(full.total.untimed.is_empty());
    // The launches report everything they executed, timed or not.
    assert_eq!(
        (stats.warp_insts, stats.thread_insts, stats.ctas),
        (
            full_stats.warp_insts,
            full_stats.thread_insts,
            full_stats.ctas
        )
    );
    let (t, u) = (&sampled.total, &sampled.total.untimed);
    assert_eq!(t.warp_insts + u.warp_insts, full.total.warp_insts);
    assert_eq!(t.gpu_sim_insn + u.thread_insts, full.total.gpu_sim_insn);
    assert_eq!(t.ctas + u.ctas, full.total.ctas);
    assert!(u.launches > 0 && u.ctas > 0, "both samplings acted: {u:?}");
    assert!(t.gpu_sim_cycle < full.total.gpu_sim_cycle);
    assert_eq!(sampled.kernels.len(), full.kernels.len());

    // A launch left wholly untimed costs no cycle; once a kernel's launch is left untimed
    // (its budget spent), so are all its later ones; a timed launch times at most one wave.
    let per_wave = |k: &timing::TimingStats| {
        let o = k.occupancy.expect("occupancy");
        u64::from(o.ctas_per_sm) * 15
    };
    let mut spent: Vec<&str> = Vec::new();
    for k in &sampled.kernels {
        if k.untimed.launches == 1 {
            assert_eq!((k.gpu_sim_cycle, k.warp_insts, k.ctas), (0, 0, 0));
            if !spent.contains(&k.kernel.as_str()) {
                spent.push(&k.kernel);
            }
        } else {
            assert!(
                !spent.contains(&k.kernel.as_str()),
                "{} timed again",
                k.kernel
            );
            assert!(k.ctas <= per_wave(k), "{}: {} CTAs timed", k.kernel, k.ctas);
            assert!(k.gpu_sim_cycle > 0);
        }
    }
    assert_eq!(spent.len(), 2, "both kernels spent their budget: {spent:?}");
    assert!(
        sampled
            .kernels
            .iter()
            .any(|k| k.untimed.launches == 0 && k.untimed.ctas > 0),
        "a timed launch was cut after its waves"
    );
}

#[test]
fn sampling_times_the_same_work_under_every_technique_and_is_deterministic() {
    let cfg = |technique: &str| {
        GpuConfig::load("gtx480-4bank", &[format!("sm.rf.technique={technique}")]).unwrap()
    };
    let (_, baseline) = gaussian(cfg("baseline"), SAMPLED);
    for technique in ["corf++", "cmrc"] {
        let (_, r) = gaussian(cfg(technique), SAMPLED);
        assert_eq!(r.total.untimed, baseline.total.untimed, "{technique}");
        assert_eq!(
            (r.total.warp_insts, r.total.ctas),
            (baseline.total.warp_insts, baseline.total.ctas),
            "{technique}"
        );
    }
    let (_, again) = gaussian(cfg("baseline"), SAMPLED);
    assert_eq!(
        serde_json::to_value((&again.total, &again.kernels)).unwrap(),
        serde_json::to_value((&baseline.total, &baseline.kernels)).unwrap()
    );
}

#[test]
fn a_residency_policy_reports_its_plan_for_the_timed_launches_only() {
    // Gaussian's registers do not limit its CTAs on gtx480: RegMutex falls back on every
    // launch, and says so once per launch it timed.
    let cfg = GpuConfig::load("gtx480", &["sm.rf.residency=regmutex".to_string()]).unwrap();
    let (_, sampled) = gaussian(cfg, SAMPLED);
    let timed = sampled
        .kernels
        .iter()
        .filter(|k| k.untimed.launches == 0)
        .count() as u64;
    assert!(timed > 0 && timed < sampled.kernels.len() as u64);
    let per_launch: u64 = sampled
        .total
        .residency
        .counters
        .iter()
        .filter(|(key, _)| key.starts_with("fallback_") || *key == "split_launches")
        .map(|(_, n)| n)
        .sum();
    assert_eq!(per_launch, timed);
    for k in sampled.kernels.iter().filter(|k| k.untimed.launches == 1) {
        assert!(k.residency.counters.is_empty(), "{:?}", k.residency);
    }
}
