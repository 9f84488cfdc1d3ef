//! Accounting identities of the baseline's timing statistics, checked by `golden_stats.rs` on
//! every sample and preset it measures and by `timing_invariants.rs` on its variants: every
//! register-file access is one bank access and one width record, every warp instruction
//! belongs to one opcode class, and every scheduler of every SM has one outcome per cycle.

use timing::{GpuConfig, TimingStats};

fn sum(h: &[u64]) -> u64 {
    h.iter().sum()
}

/// Register-file reads and writes, width records and opcode classes agree (`at` names the
/// run in a failure).
pub fn accesses_widths_and_classes(at: &str, t: &TimingStats) {
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
    // Executing lanes never need more bytes than all lanes: the histogram of all lanes is
    // the other shifted towards wider classes.
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

/// Each scheduler of each SM has one outcome (issued or a stall reason) per cycle, an SM
/// without work idling: the outcomes are exactly SMs × schedulers × cycles.
pub fn one_outcome_per_scheduler_and_cycle(at: &str, t: &TimingStats, cfg: &GpuConfig) {
    let s = &t.stalls;
    let per_cycle = u64::from(cfg.sm.schedulers) * u64::from(cfg.gpu.sms);
    assert_eq!(
        s.outcomes(),
        per_cycle * t.gpu_sim_cycle,
        "{at}: scheduler outcomes"
    );
}

/// Both of the above.
pub fn all(at: &str, t: &TimingStats, cfg: &GpuConfig) {
    accesses_widths_and_classes(at, t);
    one_outcome_per_scheduler_and_cycle(at, t, cfg);
}
