//! Every register-file technique on every sample (small size, gtx480): a technique changes
//! how registers are read, written and placed, never what the program computes. Per
//! technique: every sample validates with the baseline's verdict, instruction counts and
//! value widths (the widths are the values, class by class); the accounting identities of
//! the statistics hold, the general ones and the technique's own; and a few samples time
//! identically run to run, on two host threads, and cycle by cycle without fast-forward.
//!
//! One test per technique, so that they run in parallel. A new technique adds its name here.

use runtime::{Device, DeviceConfig};
use std::collections::BTreeMap;
use std::sync::OnceLock;
use timing::{GpuConfig, TimingStats};
use warpsim::registry;
use warpsim::sample::Size;

/// What a run must share with the baseline's: the validation verdict, the instruction counts
/// and the width histograms of every register read and written.
#[derive(Debug, PartialEq)]
struct Functional {
    verdict: String,
    warp_insts: u64,
    thread_insts: u64,
    widths: timing::stats::WidthStats,
}

fn device(technique: &str, extra: &[&str], host_threads: usize) -> Device {
    let mut overrides = vec![format!("sm.rf.technique={technique}")];
    overrides.extend(extra.iter().map(|s| s.to_string()));
    Device::new(DeviceConfig {
        timing: Some(GpuConfig::load("gtx480", &overrides).unwrap()),
        host_threads,
        ..DeviceConfig::default()
    })
    .unwrap()
}

/// Runs sample `name` at the small size on `dev`.
fn run(dev: &Device, name: &str) -> (Functional, TimingStats) {
    let s = registry::find(name).unwrap();
    let outcome = s
        .run(dev, Size::Small)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(
        outcome.validation.passed(),
        "{name}: {}",
        outcome.validation
    );
    let t = dev.take_timing().unwrap().total;
    let f = Functional {
        verdict: outcome.validation.to_string(),
        warp_insts: outcome.stats.warp_insts,
        thread_insts: outcome.stats.thread_insts,
        widths: t.widths.clone(),
    };
    (f, t)
}

fn counter(t: &TimingStats, key: &str) -> u64 {
    t.technique.counters.get(key).copied().unwrap_or(0)
}

/// The identities every technique's statistics keep.
fn general_identities(name: &str, t: &TimingStats, cfg: &GpuConfig) {
    let sum = |h: &[u64]| h.iter().sum::<u64>();
    assert_eq!(sum(&t.rf.reads_per_bank), t.rf.reads, "{name}: bank reads");
    assert_eq!(
        sum(&t.rf.writes_per_bank),
        t.rf.writes,
        "{name}: bank writes"
    );
    // Every register written is one bank write, in every technique here.
    assert_eq!(
        sum(&t.widths.writes_all_lanes),
        t.rf.writes,
        "{name}: writes"
    );
    assert!(t.rf.shared_bank_accesses <= t.rf.reads, "{name}");
    let s = &t.stalls;
    let outcomes = s.issued + s.structural + s.data + s.fetch + s.barrier + s.idle;
    let per_cycle = u64::from(cfg.sm.schedulers) * u64::from(cfg.gpu.sms);
    assert_eq!(outcomes, per_cycle * t.gpu_sim_cycle, "{name}: outcomes");
    assert_eq!(t.rf_counts.bank_writes, t.rf.writes, "{name}");
    assert!(t.rf_counts.bank_reads <= t.rf.reads, "{name}");
}

/// The identities of a technique's own counters.
fn technique_identities(technique: &str, name: &str, t: &TimingStats) {
    let operands: u64 = t.widths.reads_all_lanes.iter().sum();
    let c = |k| counter(t, k);
    match technique {
        "cmrc" | "cmrc-ideal" => {
            // One access per operand, of 1 to 4 slices; a shared access is a read.
            assert_eq!(t.rf.reads, operands, "{name}");
            assert!(c("read_slices") >= t.rf.reads && c("read_slices") <= 4 * t.rf.reads);
            assert!(c("write_slices") >= t.rf.writes && c("write_slices") <= 4 * t.rf.writes);
            if technique == "cmrc" {
                assert_eq!(
                    t.rf_counts.bank_reads,
                    t.rf.reads - t.rf.shared_bank_accesses
                );
            }
        }
        "packing" | "corf" | "corf++" => {
            // Every operand is looked up; a coalesced one costs no access of its own.
            assert_eq!(c("operand_reads"), operands, "{name}");
            assert_eq!(t.rf.reads, operands - c("coalesced_reads"), "{name}");
            assert_eq!(t.rf_counts.collector_writes, operands, "{name}");
            assert_eq!(c("register_writes"), t.rf.writes, "{name}");
            assert!(c("coalesced_insts") <= c("coalesced_reads"), "{name}");
            assert!(c("coalesced_insts") <= c("multi_source_insts"), "{name}");
            assert!(c("reallocations") <= c("register_writes"), "{name}");
            assert!(c("allocations") <= c("register_writes"), "{name}");
            // Packing never needs more physical registers than the registers it maps; leakage
            // is paid on those in use.
            let mapped = c("mapped_register_cycles");
            assert!(c("physical_register_cycles") <= mapped, "{name}");
            assert_eq!(
                t.rf_counts.allocated_register_cycles,
                c("physical_register_cycles")
            );
            assert!(
                t.rf_counts.rename_accesses >= operands + t.rf.writes,
                "{name}"
            );
            assert_eq!(t.rf.shared_bank_accesses, 0, "{name}: single-ported banks");
        }
        other => panic!("{other}: no identities for this technique"),
    }
}

/// The baseline's functional figures of every sample, computed once for every test.
fn baseline() -> &'static BTreeMap<&'static str, Functional> {
    static BASELINE: OnceLock<BTreeMap<&'static str, Functional>> = OnceLock::new();
    BASELINE.get_or_init(|| {
        let dev = device("baseline", &[], 1);
        registry::all()
            .into_iter()
            .map(|s| (s.name(), run(&dev, s.name()).0))
            .collect()
    })
}

fn every_sample_under(technique: &str) {
    let dev = device(technique, &[], 1);
    let cfg = GpuConfig::preset("gtx480");
    for s in registry::all() {
        let name = s.name();
        let (f, t) = run(&dev, name);
        assert_eq!(&f, &baseline()[name], "{name} under {technique}");
        assert_eq!(t.technique.name, technique, "{name}");
        general_identities(name, &t, &cfg);
        technique_identities(technique, name, &t);
    }
    // Deterministic (each run on a device of its own: a device's caches and allocations carry
    // over from one run to the next), whatever the host threads, and cycle by cycle.
    for name in ["rodinia/hotspot", "rodinia/bfs"] {
        let json = |dev: Device| serde_json::to_value(run(&dev, name).1).unwrap();
        let reference = json(device(technique, &[], 1));
        assert!(
            json(device(technique, &[], 1)) == reference,
            "{name}: rerun"
        );
        assert!(
            json(device(technique, &[], 2)) == reference,
            "{name}: 2 threads"
        );
        let stepped = json(device(technique, &["gpu.fast_forward=false"], 1));
        assert!(stepped == reference, "{name}: cycle by cycle");
    }
}

#[test]
fn cmrc() {
    every_sample_under("cmrc");
}

#[test]
fn cmrc_ideal() {
    every_sample_under("cmrc-ideal");
}

#[test]
fn packing() {
    every_sample_under("packing");
}

#[test]
fn corf() {
    every_sample_under("corf");
}

#[test]
fn corf_plus_plus() {
    every_sample_under("corf++");
}
