//! The residency seam beyond the baseline: `sm.rf.residency = "unlimited"` lifts the register
//! limit on occupancy and counts, through the SM's long-wait and exit events, the times every
//! warp of a CTA waited on memory; `"regmutex"` admits CTAs by a base set of registers and
//! time-shares the rest; `"finereg"` parks the live registers of CTAs stalled on memory so
//! that others run. Functional results never change; where registers do not limit
//! occupancy, no timing statistic changes either.

use runtime::{Device, DeviceConfig};
use timing::{GpuConfig, TimingStats};
use warpsim::registry;
use warpsim::sample::Size;

/// Runs sample `name` at the small size on gtx480 with `residency` (and `regs` registers per
/// thread, if given, instead of warpsim's allocation); its total statistics and the limiter of
/// its first launch's occupancy.
fn run(name: &str, residency: &str, regs: Option<u32>) -> (TimingStats, String) {
    run_with(name, residency, regs, &[], 1)
}

/// [`run`] with configuration overrides `extra` on `host_threads` host threads.
fn run_with(
    name: &str,
    residency: &str,
    regs: Option<u32>,
    extra: &[&str],
    host_threads: usize,
) -> (TimingStats, String) {
    let mut overrides = vec![format!("sm.rf.residency={residency}")];
    overrides.extend(extra.iter().map(|s| s.to_string()));
    let cfg = GpuConfig::load("gtx480", &overrides).unwrap();
    let dev = Device::new(DeviceConfig {
        timing: Some(cfg),
        host_threads,
        registers_per_thread: regs,
        ..DeviceConfig::default()
    })
    .unwrap();
    let sample = registry::find(name).unwrap_or_else(|| panic!("no sample {name}"));
    let outcome = sample.run(&dev, Size::Small).unwrap();
    assert!(outcome.validation.passed(), "{name} under {residency}");
    let timing = dev.take_timing().unwrap();
    let limiter = format!("{:?}", timing.kernels[0].occupancy.unwrap().limiter);
    (timing.total, limiter)
}

/// A gtx480 of two SMs: hotspot's small grid then needs more CTAs on an SM than its registers
/// hold (on fifteen, the round robin gives each SM one).
const TWO_SMS: &[&str] = &["gpu.sms=2"];

fn counter(t: &TimingStats, key: &str) -> u64 {
    t.residency.counters.get(key).copied().unwrap_or(0)
}

/// The top-level statistics (JSON keys) of `a` and `b` that differ, but for the residency
/// policy's own report and the host's simulation speed.
fn differences(a: &TimingStats, b: &TimingStats) -> Vec<String> {
    const NOT_COMPARED: [&str; 4] = [
        "residency",
        "wall_seconds",
        "cycles_per_second",
        "warp_insts_per_second",
    ];
    let (a, b) = (
        serde_json::to_value(a).unwrap(),
        serde_json::to_value(b).unwrap(),
    );
    let (a, b) = (a.as_object().unwrap(), b.as_object().unwrap());
    a.keys()
        .filter(|&k| !NOT_COMPARED.contains(&k.as_str()) && a.get(k) != b.get(k))
        .cloned()
        .collect()
}

#[test]
fn a_register_limited_kernel_holds_more_ctas_with_the_same_results() {
    // 64 registers per thread hold 2 CTAs of hotspot's 256 threads on an SM (its own 30 hold
    // 4); on two SMs, the small grid's 9 CTAs a launch want 4 or 5 on each.
    let (fixed, limiter) = run_with("rodinia/hotspot", "static", Some(64), TWO_SMS, 1);
    assert_eq!(
        limiter, "Registers",
        "hotspot at 64 registers is register-limited on gtx480"
    );
    let (unlimited, _) = run_with("rodinia/hotspot", "unlimited", Some(64), TWO_SMS, 1);
    assert_eq!(unlimited.residency.name, "unlimited");
    assert!(counter(&unlimited, "launches_beyond_register_limit") > 0);
    assert_eq!(unlimited.warp_insts, fixed.warp_insts);
    assert_eq!(unlimited.ctas, fixed.ctas);
    assert_ne!(unlimited.gpu_sim_cycle, fixed.gpu_sim_cycle);
}

#[test]
fn where_registers_do_not_limit_nothing_but_the_report_changes() {
    let (fixed, limiter) = run("saxpy", "static", None);
    assert_ne!(limiter, "Registers");
    let (unlimited, _) = run("saxpy", "unlimited", None);
    assert_eq!(differences(&unlimited, &fixed), Vec::<String>::new());
    assert_eq!(counter(&unlimited, "launches_beyond_register_limit"), 0);
    // SAXPY's warps all wait on their loads: whole CTAs stall on memory.
    assert!(counter(&unlimited, "cta_full_stalls") > 0);
}

#[test]
fn regmutex_admits_ctas_by_the_base_set() {
    // Hotspot assumed to need 40 registers per thread: 3 CTAs of 256 threads on a gtx480 SM.
    // RegMutex's candidates for the extended set are 4 to 14; 10, 12 and 14 admit a fourth
    // CTA, none lets half of its 32 warps hold an extended set at once, so the one with the
    // most sections wins: 14 (base 26; 32,768 − 4 × 8 × 32 × 26 = 6,144 registers, 13
    // sections of 14 × 32). On two SMs the small grid's 9 CTAs a launch want 4 or 5 on each.
    let (fixed, limiter) = run_with("rodinia/hotspot", "static", Some(40), TWO_SMS, 1);
    assert_eq!(limiter, "Registers");
    let (shared, _) = run_with("rodinia/hotspot", "regmutex", Some(40), TWO_SMS, 1);
    let launches = 2;
    assert_eq!(shared.residency.name, "regmutex");
    assert_eq!(counter(&shared, "split_launches"), launches);
    assert_eq!(counter(&shared, "base_set"), 26 * launches);
    assert_eq!(counter(&shared, "extended_set"), 14 * launches);
    assert_eq!(counter(&shared, "srp_sections"), 13 * launches);
    assert_eq!(counter(&shared, "ctas_per_sm"), 4 * launches);
    // warpsim's allocation needs more than 26 registers somewhere: warps acquire, and every
    // acquire is released.
    assert!(counter(&shared, "acquires") > 0);
    assert_eq!(counter(&shared, "acquires"), counter(&shared, "releases"));
    assert_eq!(shared.warp_insts, fixed.warp_insts);
    assert_eq!(shared.ctas, fixed.ctas);
    assert_ne!(shared.gpu_sim_cycle, fixed.gpu_sim_cycle);
    // Leakage counts the base sets and the sections held, less than every register of every
    // resident warp.
    assert!(shared.rf_counts.allocated_register_cycles < fixed.rf_counts.allocated_register_cycles);
}

#[test]
fn finereg_parks_stalled_ctas_and_runs_more_than_the_register_limit() {
    // SAXPY assumed to need 64 registers per thread: 2 CTAs of 256 threads on a gtx480 SM, 1
    // in FineReg's active half; its warps all wait on their loads, so CTAs move out and
    // others launch.
    let (fixed, limiter) = run("saxpy", "static", Some(64));
    assert_eq!(limiter, "Registers");
    let (parked, _) = run("saxpy", "finereg", Some(64));
    assert_eq!(parked.residency.name, "finereg");
    assert_eq!(counter(&parked, "acrf_ctas"), 1);
    assert!(counter(&parked, "suspensions") > 0);
    assert!(counter(&parked, "launches_beyond_register_limit") > 0);
    // Every CTA parked came back (all retire), with the registers it took out, fewer than it
    // was allocated. (Whether the grid's last stalls find no CTA to make room for depends on
    // the timing; `stalls_without_successor` is checked on its own: finereg.rs,
    // `a_stall_moves_nothing_when_no_cta_would_take_the_place`.)
    assert_eq!(counter(&parked, "suspensions"), counter(&parked, "resumes"));
    assert_eq!(
        counter(&parked, "live_registers_moved"),
        counter(&parked, "live_registers_restored")
    );
    assert!(
        counter(&parked, "live_registers_moved")
            < counter(&parked, "allocated_registers_suspended")
    );
    assert!(parked.stalls.registers > 0);
    assert_eq!(parked.warp_insts, fixed.warp_insts);
    assert_eq!(parked.ctas, fixed.ctas);
    assert_ne!(parked.gpu_sim_cycle, fixed.gpu_sim_cycle);
    // Deterministic whatever the host threads, and the same cycle by cycle (transfers end at
    // cycles fast-forward must stop at).
    let json = |t: TimingStats| serde_json::to_value(t).unwrap();
    let reference = json(parked);
    let (two, _) = run_with("saxpy", "finereg", Some(64), &[], 2);
    assert!(json(two) == reference, "2 host threads");
    let (stepped, _) = run_with("saxpy", "finereg", Some(64), &["gpu.fast_forward=false"], 1);
    assert!(json(stepped) == reference, "cycle by cycle");
}
