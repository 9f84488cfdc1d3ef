//! Every register-file technique on every sample (small size, gtx480): a technique changes
//! how registers are read, written and placed, never what the program computes. Per
//! technique: every sample validates, with the frozen baseline's instruction counts and value
//! widths (the widths are the values, class by class; `tests/golden/timing-small.txt` holds
//! the baseline's, measured the same way: each sample on a fresh device; a sample whose
//! values depend on the order warps run in, `Sample::values_depend_on_warp_order`, keeps its
//! instruction counts only); the accounting
//! identities of the statistics hold, the general ones and the technique's own; and a sample
//! times identically on two host threads and cycle by cycle without fast-forward (once per
//! policy implementation: CMRC, CORF, BOW, the register-file cache, RegMutex, FineReg, LARF).
//! An implementation runs every light sample and one of the heavy ones (`common::HEAVY`, 70% of
//! a sweep's time), each implementation another, so that together they run all of them. A
//! variant of an implementation (another placement, window policy or table size) runs every
//! other light sample.
//!
//! A residency policy (RegMutex, FineReg) runs as `sm.rf.residency`, with the baseline's register
//! file. One test per technique, so that they run in parallel. A new technique adds its name
//! here.

use runtime::{Device, DeviceConfig};
use timing::{GpuConfig, TimingStats};
use warpsim::registry;
use warpsim::sample::Size;

/// The residency policies among the techniques.
const RESIDENCY: [&str; 2] = ["regmutex", "finereg"];

fn device(technique: &str, extra: &[&str], host_threads: usize) -> Device {
    let key = if RESIDENCY.contains(&technique) {
        "sm.rf.residency"
    } else {
        "sm.rf.technique"
    };
    let mut overrides = vec![format!("{key}={technique}")];
    overrides.extend(extra.iter().map(|s| s.to_string()));
    Device::new(DeviceConfig {
        timing: Some(GpuConfig::load("gtx480", &overrides).unwrap()),
        host_threads,
        ..DeviceConfig::default()
    })
    .unwrap()
}

/// Runs sample `name` at the small size on `dev`; it must validate.
fn run(dev: &Device, name: &str) -> TimingStats {
    let s = registry::find(name).unwrap();
    let outcome = s
        .run(dev, Size::Small)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(
        outcome.validation.passed(),
        "{name}: {}",
        outcome.validation
    );
    dev.take_timing().unwrap().total
}

fn counter(t: &TimingStats, key: &str) -> u64 {
    t.technique.counters.get(key).copied().unwrap_or(0)
}

fn residency_counter(t: &TimingStats, key: &str) -> u64 {
    t.residency.counters.get(key).copied().unwrap_or(0)
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
    assert!(t.rf.shared_bank_accesses <= t.rf.reads, "{name}");
    let s = &t.stalls;
    let per_cycle = u64::from(cfg.sm.schedulers) * u64::from(cfg.gpu.sms);
    assert_eq!(
        s.outcomes(),
        per_cycle * t.gpu_sim_cycle,
        "{name}: outcomes"
    );
    assert_eq!(t.rf_counts.bank_writes, t.rf.writes, "{name}");
    assert!(t.rf_counts.bank_reads <= t.rf.reads, "{name}");
}

/// The identities of a technique's own counters.
fn technique_identities(technique: &str, name: &str, t: &TimingStats) {
    let operands: u64 = t.widths.reads_all_lanes.iter().sum();
    let written: u64 = t.widths.writes_all_lanes.iter().sum();
    let c = |k| counter(t, k);
    if !matches!(
        technique,
        "bow-wr" | "bow-half" | "rfc" | "larf" | "larf-infinite"
    ) {
        // Every register written is one bank write.
        assert_eq!(written, t.rf.writes, "{name}: writes");
    }
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
        "bow" | "bow-wr" | "bow-half" => {
            // Every operand is forwarded or read from its bank; every result is written to
            // the register file once, or never: overwritten in the window, left it unneeded,
            // or still there when its warp retired.
            assert_eq!(c("operand_reads"), operands, "{name}");
            assert_eq!(t.rf.reads, operands - c("forwarded_reads"), "{name}");
            assert_eq!(c("register_writes"), written, "{name}");
            assert_eq!(c("rf_writes"), t.rf.writes, "{name}");
            let saved = c("writes_consolidated") + c("writes_dropped") + c("writes_retired");
            assert_eq!(written, t.rf.writes + saved, "{name}");
            if technique == "bow" {
                assert_eq!(saved, 0, "{name}: written through");
            }
            // Into the collector: results of every live lane or merged into a copy.
            assert!(c("window_writes") <= written, "{name}");
            assert_eq!(t.rf.shared_bank_accesses, 0, "{name}: single-ported banks");
        }
        "rfc" => {
            // Hits read no bank; every result is written once, or never: replaced, dead, or
            // cached when its warp retired.
            assert_eq!(c("operand_reads"), operands, "{name}");
            assert_eq!(t.rf.reads, operands - c("cache_hits"), "{name}");
            assert_eq!(c("register_writes"), written, "{name}");
            assert_eq!(c("rf_writes"), t.rf.writes, "{name}");
            let saved = c("writes_consolidated") + c("writes_dead") + c("writes_retired");
            assert_eq!(written, t.rf.writes + saved, "{name}");
        }
        "larf" | "larf-infinite" => {
            // Every global load is irregular, served, or recorded; a served load writes no
            // register (its destinations are renamed to the data's); an unbounded table
            // never evicts for room.
            let loads = c("loads_irregular") + c("loads_shared") + c("entries_inserted");
            assert_eq!(loads, c("global_loads"), "{name}");
            assert_eq!(t.rf.writes + c("registers_shared"), written, "{name}");
            assert_eq!(t.rf.reads, operands, "{name}");
            if technique == "larf-infinite" {
                assert_eq!(c("evictions_capacity"), 0, "{name}");
            }
            assert_eq!(t.rf.shared_bank_accesses, 0, "{name}: single-ported banks");
        }
        "regmutex" => {
            // Every warp releases what it acquired (at the latest when it exits); only a
            // refused acquire stalls a scheduler on registers; the register file is the
            // baseline's.
            let r = |k| residency_counter(t, k);
            assert_eq!(r("acquires"), r("releases"), "{name}");
            assert!(r("acquires_waited") <= r("acquires"), "{name}");
            if r("acquires_waited") == 0 {
                assert_eq!(t.stalls.registers, 0, "{name}");
            }
            assert_eq!(t.rf.shared_bank_accesses, 0, "{name}: single-ported banks");
        }
        "finereg" => {
            // Every CTA moved out comes back before it retires, with what it took out, never
            // more than it was allocated; a warp waits on registers only after a move (its
            // CTA's, or one it launched or resumed into); the register file is the baseline's.
            let r = |k| residency_counter(t, k);
            assert_eq!(r("suspensions"), r("resumes"), "{name}");
            assert_eq!(
                r("live_registers_moved"),
                r("live_registers_restored"),
                "{name}"
            );
            assert!(
                r("live_registers_moved") <= r("allocated_registers_suspended"),
                "{name}"
            );
            assert!(r("swaps") <= r("suspensions"), "{name}");
            // Each full stall of an active CTA moves it, is refused, or has no successor.
            let decided = r("suspensions") + r("suspensions_refused");
            assert_eq!(
                decided + r("stalls_without_successor"),
                r("cta_full_stalls"),
                "{name}"
            );
            if r("suspensions") == 0 {
                assert_eq!(t.stalls.registers, 0, "{name}");
            }
            assert_eq!(t.rf.shared_bank_accesses, 0, "{name}: single-ported banks");
        }
        other => panic!("{other}: no identities for this technique"),
    }
}

/// How much of the sweep a technique gets.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Sweep {
    /// Every light sample and heavy sample `k` (`common::heavy_sample`), and a sample also times
    /// identically on two host threads and without fast-forward: once per policy
    /// implementation, each with its own `k`.
    Implementation(usize),
    /// Every other light sample: a variant of an implementation swept in full (a parameter of
    /// the same code), kept cheap for CI.
    Variant,
}

/// Every sample under `technique`, as much as `sweep` says.
fn every_sample_under(technique: &str, sweep: Sweep) {
    let determinism = sweep != Sweep::Variant;
    let cfg = GpuConfig::preset("gtx480");
    let samples = match sweep {
        Sweep::Implementation(k) => {
            let mut samples = crate::common::light_samples();
            samples.push(crate::common::heavy_sample(k));
            samples
        }
        Sweep::Variant => crate::common::light_samples()
            .into_iter()
            .step_by(2)
            .collect(),
    };
    let mut reference = None;
    for s in samples {
        let name = s.name();
        // A fresh device per sample, as the golden baseline was measured.
        let t = run(&device(technique, &[], 1), name);
        // The operand widths are the baseline's too, unless the values themselves depend on
        // the order warps run in (the technique changes that order).
        let same_values = s.values_depend_on_warp_order().is_none();
        for (key, value) in crate::common::functional_stats(&t) {
            if key.starts_with("widths.") && !same_values {
                continue;
            }
            let golden = crate::common::gtx480_golden().get(&format!("{name} {key}"));
            assert_eq!(golden, Some(&value), "{name} {key} under {technique}");
        }
        if RESIDENCY.contains(&technique) {
            assert_eq!(t.residency.name, technique, "{name}");
        } else {
            assert_eq!(t.technique.name, technique, "{name}");
        }
        general_identities(name, &t, &cfg);
        technique_identities(technique, name, &t);
        if name == "rodinia/hotspot" {
            reference = Some(serde_json::to_value(t).unwrap());
        }
    }
    if !determinism {
        return;
    }
    // Deterministic whatever the host threads, and the same cycle by cycle.
    let name = "rodinia/hotspot";
    let reference = reference.expect("hotspot ran");
    let json = |dev: Device| serde_json::to_value(run(&dev, name)).unwrap();
    assert!(
        json(device(technique, &[], 2)) == reference,
        "{name}: 2 threads"
    );
    let stepped = json(device(technique, &["gpu.fast_forward=false"], 1));
    assert!(stepped == reference, "{name}: cycle by cycle");
}

#[test]
fn cmrc() {
    every_sample_under("cmrc", Sweep::Implementation(0));
}

#[test]
fn cmrc_ideal() {
    every_sample_under("cmrc-ideal", Sweep::Variant);
}

#[test]
fn packing() {
    every_sample_under("packing", Sweep::Variant);
}

#[test]
fn corf() {
    every_sample_under("corf", Sweep::Variant);
}

#[test]
fn corf_plus_plus() {
    every_sample_under("corf++", Sweep::Implementation(1));
}

#[test]
fn bow() {
    every_sample_under("bow", Sweep::Variant);
}

#[test]
fn bow_wr() {
    every_sample_under("bow-wr", Sweep::Variant);
}

#[test]
fn bow_half() {
    every_sample_under("bow-half", Sweep::Implementation(2));
}

#[test]
fn rfc() {
    every_sample_under("rfc", Sweep::Implementation(3));
}

#[test]
fn regmutex() {
    every_sample_under("regmutex", Sweep::Implementation(4));
}

#[test]
fn finereg() {
    every_sample_under("finereg", Sweep::Implementation(5));
}

#[test]
fn larf() {
    every_sample_under("larf", Sweep::Implementation(6));
}

#[test]
fn larf_infinite() {
    every_sample_under("larf-infinite", Sweep::Variant);
}

/// The register-file cache under two-level scheduling: a warp moved out of the active pool
/// flushes its cache (its unwritten live results reach the register file) unless
/// `sm.rf.rfc.on_demote=retain`; either way every result is accounted for.
#[test]
fn rfc_flushes_a_demoted_warps_cache() {
    let cfg = GpuConfig::preset("gtx480");
    let name = "rodinia/hotspot";
    let stats = |on_demote: &str| {
        let on_demote = format!("sm.rf.rfc.on_demote={on_demote}");
        let dev = device("rfc", &["sm.scheduler=two-level", &on_demote], 1);
        let t = run(&dev, name);
        general_identities(name, &t, &cfg);
        technique_identities("rfc", name, &t);
        t
    };
    let flush = stats("flush");
    assert!(counter(&flush, "flushes") > 0);
    assert!(counter(&flush, "flush_writes") > 0);
    let retain = stats("retain");
    assert_eq!(counter(&retain, "flushes"), 0);
    assert_eq!(counter(&retain, "flush_writes"), 0);
    assert!(retain.rf.writes < flush.rf.writes);
}
