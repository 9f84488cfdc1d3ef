//! Accounting identities of the timing statistics, over every sample at the small size on the
//! gtx480 preset: every register-file access is one bank access and one width record, every
//! warp instruction belongs to one opcode class, and every scheduler of every SM has one
//! outcome per cycle in which the SM has work.

use runtime::{Device, DeviceConfig};
use timing::{GpuConfig, TimingStats};
use warpsim::registry;
use warpsim::sample::Size;

/// Runs every sample on `cfg`; returns (name, total statistics) per sample.
fn every_sample(cfg: GpuConfig) -> Vec<(String, TimingStats)> {
    let dev = Device::new(DeviceConfig {
        timing: Some(cfg),
        host_threads: 1,
        ..DeviceConfig::default()
    })
    .unwrap();
    registry::all()
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

fn sum(h: &[u64]) -> u64 {
    h.iter().sum()
}

/// Stall outcomes of one run: issued, structural, data, fetch, barrier, idle.
fn outcomes(t: &TimingStats) -> u64 {
    let s = &t.stalls;
    s.issued + s.structural + s.data + s.fetch + s.barrier + s.idle
}

/// Register-file reads and writes, width records and opcode classes agree, on a preset and
/// with registers named twice read each time.
#[test]
fn register_accesses_width_records_and_classes_agree_for_every_sample() {
    for overrides in [&[][..], &["sm.rf.read_duplicates=each".to_string()][..]] {
        let cfg = GpuConfig::load("gtx480", overrides).unwrap();
        for (name, t) in every_sample(cfg) {
            let at = format!("{name} {overrides:?}");
            let w = &t.widths;
            assert_eq!(sum(&t.rf.reads_per_bank), t.rf.reads, "{at}: bank reads");
            assert_eq!(sum(&w.reads_all_lanes), t.rf.reads, "{at}: read widths");
            assert_eq!(sum(&w.reads_active_lanes), t.rf.reads, "{at}: read widths");
            assert_eq!(sum(&t.rf.writes_per_bank), t.rf.writes, "{at}: bank writes");
            assert_eq!(sum(&w.writes_all_lanes), t.rf.writes, "{at}: write widths");
            assert_eq!(
                sum(&w.writes_active_lanes),
                t.rf.writes,
                "{at}: write widths"
            );
            let by_class: u64 = t.by_class.iter().map(|c| c.warp_insts).sum();
            assert_eq!(by_class, t.warp_insts, "{at}: classes");
            let mut widths = timing::stats::WidthStats::default();
            t.by_class.iter().for_each(|c| widths.merge(&c.widths));
            assert_eq!(&widths, w, "{at}: widths by class");
            // Executing lanes never need more bytes than all lanes: the histogram of all
            // lanes is the other shifted towards wider classes.
            for (all, active) in [
                (w.reads_all_lanes, w.reads_active_lanes),
                (w.writes_all_lanes, w.writes_active_lanes),
            ] {
                for k in 0..4 {
                    assert!(
                        sum(&all[k..]) >= sum(&active[k..]),
                        "{at}: {all:?} against {active:?}"
                    );
                }
            }
        }
    }
}

/// Each scheduler of each SM has one outcome (issued or a stall reason) per cycle, an SM
/// without work idling: the outcomes are exactly SMs × schedulers × cycles, on one SM and on
/// fifteen.
#[test]
fn every_scheduler_has_one_outcome_per_cycle() {
    for cfg in [
        GpuConfig::load("gtx480", &["gpu.sms=1".to_string()]).unwrap(),
        GpuConfig::preset("gtx480"),
    ] {
        let per_cycle = u64::from(cfg.sm.schedulers) * u64::from(cfg.gpu.sms);
        for (name, t) in every_sample(cfg) {
            assert_eq!(outcomes(&t), per_cycle * t.gpu_sim_cycle, "{name}");
        }
    }
}
