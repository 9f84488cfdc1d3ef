//! The charts of a timing run (`--plots DIR`): where the schedulers' cycles went, how wide the
//! register operands were per opcode class, how the register banks were used, the cache hit
//! rates, and IPC and collector occupancy over time.

use super::{Bars, Lines, bars, lines};
use std::path::{Path, PathBuf};
use timing::TimingStats;
use timing::stats::StallStats;
use timing::trace::Timeline;

/// The chart files `write` draws, in order.
pub(crate) const FILES: [&str; 6] = [
    "stalls.svg",
    "widths.svg",
    "banks.svg",
    "caches.svg",
    "ipc.svg",
    "collectors.svg",
];

/// Draws the charts of a run (its launches `kernels`, their `total`, and its timeline) into
/// `dir`, made if missing; the paths written.
pub(crate) fn write(
    dir: &Path,
    title: &str,
    kernels: &[TimingStats],
    total: &TimingStats,
    timeline: &Timeline,
) -> Result<Vec<PathBuf>, String> {
    std::fs::create_dir_all(dir)
        .map_err(|e| format!("error: cannot create {}: {e}", dir.display()))?;
    let path = |i: usize| dir.join(FILES[i]);
    let groups = by_kernel(kernels, total);
    bars(&path(0), &stalls(title, &groups))?;
    bars(&path(1), &widths(title, total))?;
    bars(&path(2), &banks(title, total))?;
    bars(&path(3), &caches(title, &groups))?;
    let (ipc, collectors) = over_time(title, timeline);
    lines(&path(4), &ipc)?;
    lines(&path(5), &collectors)?;
    Ok((0..FILES.len()).map(path).collect())
}

/// The launches grouped by kernel name (in order of first launch), then everything: each
/// with the counters the bar charts draw, summed.
fn by_kernel<'a>(
    kernels: &'a [TimingStats],
    total: &'a TimingStats,
) -> Vec<(String, Vec<&'a TimingStats>)> {
    let mut groups: Vec<(String, Vec<&TimingStats>)> = Vec::new();
    for k in kernels {
        match groups.iter_mut().find(|(n, _)| *n == k.kernel) {
            Some((_, g)) => g.push(k),
            None => groups.push((k.kernel.clone(), vec![k])),
        }
    }
    if groups.len() > 1 {
        groups.push(("all kernels".into(), vec![total]));
    }
    groups
}

fn percent(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}

/// A scheduler outcome's count.
type Outcome = fn(&StallStats) -> u64;

fn stalls<'a>(title: &'a str, groups: &[(String, Vec<&TimingStats>)]) -> Bars<'a> {
    let outcomes: [(&str, Outcome); 7] = [
        ("issued", |s| s.issued),
        ("structural", |s| s.structural),
        ("data (scoreboard)", |s| s.data),
        ("fetch", |s| s.fetch),
        ("barrier", |s| s.barrier),
        ("idle (no warp)", |s| s.idle),
        ("registers", |s| s.registers),
    ];
    let sum = |g: &[&TimingStats], f: Outcome| -> u64 { g.iter().map(|k| f(&k.stalls)).sum() };
    let series = outcomes
        .iter()
        .map(|&(name, f)| {
            let values = groups
                .iter()
                .map(|(_, g)| {
                    let all: u64 = outcomes.iter().map(|&(_, o)| sum(g, o)).sum();
                    percent(sum(g, f), all)
                })
                .collect();
            (name.to_string(), values)
        })
        .collect();
    Bars {
        title,
        y_label: "scheduler outcomes (% of scheduler cycles)",
        categories: groups.iter().map(|(n, _)| n.clone()).collect(),
        series,
        stacked: true,
    }
}

fn widths<'a>(title: &'a str, total: &TimingStats) -> Bars<'a> {
    // Reads and writes of every class that accessed registers, then of all classes.
    let mut rows: Vec<(String, [u64; 4])> = Vec::new();
    for c in &total.by_class {
        for (what, h) in [
            ("reads", c.widths.reads_all_lanes),
            ("writes", c.widths.writes_all_lanes),
        ] {
            if h.iter().sum::<u64>() > 0 {
                rows.push((format!("{} {what}", c.class), h));
            }
        }
    }
    rows.push(("all reads".into(), total.widths.reads_all_lanes));
    rows.push(("all writes".into(), total.widths.writes_all_lanes));
    let series = (0..4)
        .map(|w| {
            let name = if w == 0 {
                "1 byte".to_string()
            } else {
                format!("{} bytes", w + 1)
            };
            (
                name,
                rows.iter()
                    .map(|(_, h)| percent(h[w], h.iter().sum()))
                    .collect(),
            )
        })
        .collect();
    Bars {
        title,
        y_label: "register values by width, all lanes (%)",
        categories: rows.into_iter().map(|(n, _)| n).collect(),
        series,
        stacked: false,
    }
}

fn banks<'a>(title: &'a str, total: &TimingStats) -> Bars<'a> {
    let as_f64 = |v: &[u64]| v.iter().map(|&x| x as f64).collect();
    Bars {
        title,
        y_label: "register-bank accesses (32-bit warp registers)",
        categories: (0..total.rf.reads_per_bank.len())
            .map(|b| format!("bank {b}"))
            .collect(),
        series: vec![
            ("reads".into(), as_f64(&total.rf.reads_per_bank)),
            ("writes".into(), as_f64(&total.rf.writes_per_bank)),
        ],
        stacked: false,
    }
}

fn caches<'a>(title: &'a str, groups: &[(String, Vec<&TimingStats>)]) -> Bars<'a> {
    type Counts = fn(&timing::memory::MemStats) -> (u64, u64);
    let caches: [(&str, Counts); 4] = [
        ("L1 data", |m| (m.l1d_hits, m.l1d_accesses)),
        ("L1 instruction", |m| (m.icache_hits, m.icache_accesses)),
        ("L1 constant", |m| (m.const_hits, m.const_accesses)),
        ("L2", |m| (m.l2_hits, m.l2_accesses)),
    ];
    let series = caches
        .iter()
        .map(|&(name, f)| {
            let values = groups
                .iter()
                .map(|(_, g)| {
                    let (hits, all) = g
                        .iter()
                        .map(|k| f(&k.mem))
                        .fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
                    percent(hits, all)
                })
                .collect();
            (name.to_string(), values)
        })
        .collect();
    Bars {
        title,
        y_label: "hit rate (%; 0 where unused)",
        categories: groups.iter().map(|(n, _)| n.clone()).collect(),
        series,
        stacked: false,
    }
}

/// IPC and collector occupancy over time, a point per timeline sample (at its middle).
fn over_time<'a>(title: &'a str, timeline: &Timeline) -> (Lines<'a>, Lines<'a>) {
    let mid = |s: &timing::trace::TimelineSample| s.cycle as f64 + s.cycles as f64 / 2.0;
    let ipc = timeline.samples.iter().map(|s| (mid(s), s.ipc())).collect();
    let occupancy = timeline
        .samples
        .iter()
        .map(|s| {
            let units = (timeline.collector_units * s.cycles).max(1);
            (
                mid(s),
                100.0 * s.busy_collector_cycles as f64 / units as f64,
            )
        })
        .collect();
    (
        Lines {
            title,
            x_label: "cycle",
            y_label: "IPC (thread instructions per cycle)",
            series: vec![("IPC".into(), ipc)],
        },
        Lines {
            title,
            x_label: "cycle",
            y_label: "collector units holding an instruction (%)",
            series: vec![("collector occupancy".into(), occupancy)],
        },
    )
}
