//! The frozen baseline: every timing statistic of every sample at `--size small` on the
//! gtx480, gtx480-4bank, titanx and v100 presets, compared with `tests/golden/timing-small.txt`.
//!
//! Any difference fails the test, which lists the counters that moved. Refactors must leave the
//! file unchanged; an intentional change of the model regenerates it with
//!
//! ```sh
//! WARPSIM_BLESS_GOLDEN=1 cargo test --release -p warpsim --test integration golden_stats
//! ```
//!
//! and the commit that changes it says why. Every run also keeps the accounting identities of
//! `identities.rs`. On the gtx480 each sample is checked against its timed run once more: it
//! executes the same instructions in functional mode; and every other light sample
//! (`common::light_samples`), timed with the interpreter instead of compiled code, gives every
//! statistic identically (the engine only executes; the timing model sees the same records).

use crate::identities;

use emulator::Engine;
use runtime::{Device, DeviceConfig, LaunchStats, TimingReport};
use std::collections::BTreeMap;
use std::path::PathBuf;
use timing::GpuConfig;
use warpsim::registry;
use warpsim::sample::{Sample, Size};

const CONFIGS: [&str; 4] = ["gtx480", "gtx480-4bank", "titanx", "v100"];

pub(crate) fn golden_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden/timing-small.txt")
}

/// Flattens a JSON value into `path = value` lines; arrays of per-class entries are keyed by
/// their class name, other arrays by index.
pub(crate) fn flatten(prefix: &str, v: &serde_json::Value, out: &mut Vec<(String, String)>) {
    let join = |k: &str| {
        if prefix.is_empty() {
            k.to_string()
        } else {
            format!("{prefix}.{k}")
        }
    };
    match v {
        serde_json::Value::Object(m) => {
            for (k, v) in m {
                flatten(&join(k), v, out);
            }
        }
        serde_json::Value::Array(a) => {
            for (i, v) in a.iter().enumerate() {
                let key = v
                    .get("class")
                    .and_then(|c| c.as_str())
                    .map_or_else(|| i.to_string(), str::to_string);
                flatten(&join(&key), v, out);
            }
        }
        other => out.push((prefix.to_string(), other.to_string())),
    }
}

/// The statistics of one (config, sample) as `key = value` pairs: the whole total, and each
/// launch's cycles and instructions.
fn figures(report: &TimingReport) -> Vec<(String, String)> {
    let mut out = Vec::new();
    flatten("", &serde_json::to_value(&report.total).unwrap(), &mut out);
    out.push(("launches".into(), report.kernels.len().to_string()));
    for (i, k) in report.kernels.iter().enumerate() {
        out.push((format!("launch.{i}.cycles"), k.gpu_sim_cycle.to_string()));
        out.push((format!("launch.{i}.warp_insts"), k.warp_insts.to_string()));
    }
    out
}

/// Runs `s` at the small size on a fresh device (with `preset`'s timing model, or functional
/// without one) executing with `engine`; it must validate.
fn run(
    s: &dyn Sample,
    preset: Option<&str>,
    engine: Engine,
) -> (LaunchStats, Option<TimingReport>) {
    let dev = Device::new(DeviceConfig {
        timing: preset.map(GpuConfig::preset),
        host_threads: 1,
        engine,
        ..DeviceConfig::default()
    })
    .unwrap();
    let at = format!(
        "{} {} ({engine:?})",
        preset.unwrap_or("functional"),
        s.name()
    );
    let outcome = s
        .run(&dev, Size::Small)
        .unwrap_or_else(|e| panic!("{at}: {e}"));
    assert!(outcome.validation.passed(), "{at}: {}", outcome.validation);
    (outcome.stats, dev.take_timing())
}

/// The statistics as JSON (host time is not part of it).
fn comparable(r: &TimingReport) -> serde_json::Value {
    serde_json::to_value((&r.total, &r.kernels)).unwrap()
}

/// Runs every sample on `preset`, each on a fresh (cold) device; on the gtx480, checks each
/// against its functional run and its run under the interpreter too.
fn measure(preset: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let light = crate::common::light_samples();
    for s in registry::all() {
        let (counts, report) = run(s, Some(preset), Engine::default());
        let report = report.expect("a timing report");
        let at = format!("{preset} {}", s.name());
        identities::all(&at, &report.total, &GpuConfig::preset(preset));
        if preset == "gtx480" {
            let (functional, none) = run(s, None, Engine::default());
            assert!(
                none.is_none(),
                "{at}: a functional run has no timing report"
            );
            assert_eq!(
                (counts.warp_insts, counts.thread_insts, counts.ctas),
                (
                    functional.warp_insts,
                    functional.thread_insts,
                    functional.ctas
                ),
                "{at}: instructions executed under the timing model"
            );
            assert_eq!(report.total.warp_insts, functional.warp_insts, "{at}");
            assert_eq!(report.total.gpu_sim_insn, functional.thread_insts, "{at}");
            // Under the interpreter every other light sample, which keeps CI fast (the
            // differential tests check the engines instruction by instruction).
            if light
                .iter()
                .position(|l| l.name() == s.name())
                .is_some_and(|i| i % 2 == 0)
            {
                let (_, interpreted) = run(s, Some(preset), Engine::Interpreter);
                assert_eq!(
                    comparable(&interpreted.expect("a timing report")),
                    comparable(&report),
                    "{at}: timing under the interpreter against compiled code"
                );
            }
        }
        for (k, v) in figures(&report) {
            lines.push(format!("{preset} {} {k} = {v}", s.name()));
        }
    }
    lines
}

pub(crate) fn parse(text: &str) -> BTreeMap<&str, &str> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .filter_map(|l| l.split_once(" = "))
        .collect()
}

#[test]
fn every_statistic_of_every_sample_matches_the_golden_baseline() {
    // The presets run concurrently (each simulation is single-threaded and deterministic).
    let per_config: Vec<Vec<String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = CONFIGS
            .iter()
            .map(|c| scope.spawn(move || measure(c)))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut text = String::from(
        "# Timing statistics of every sample at --size small (see tests/integration/golden_stats.rs).\n\
         # Regenerate only for an intentional model change, and say why in the commit:\n\
         # WARPSIM_BLESS_GOLDEN=1 cargo test --release -p warpsim --test integration golden_stats\n",
    );
    for line in per_config.iter().flatten() {
        text.push_str(line);
        text.push('\n');
    }
    let path = golden_path();
    if std::env::var_os("WARPSIM_BLESS_GOLDEN").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &text).unwrap();
        eprintln!("wrote {}", path.display());
        return;
    }
    let stored = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "cannot read {}: {e} (WARPSIM_BLESS_GOLDEN=1 writes it)",
            path.display()
        )
    });
    let (old, new) = (parse(&stored), parse(&text));
    // Counters that changed or disappeared come first; new counters (a model change that
    // only adds statistics) after them.
    let mut moved = Vec::new();
    let mut added = Vec::new();
    for (k, v) in &new {
        match old.get(k) {
            Some(o) if o == v => {}
            Some(o) => moved.push(format!("{k}: {o} -> {v}")),
            None => added.push(format!("{k}: (new) {v}")),
        }
    }
    for (k, o) in &old {
        if !new.contains_key(k) {
            moved.push(format!("{k}: {o} -> (absent)"));
        }
    }
    let count = format!("{} changed or removed, {} new", moved.len(), added.len());
    moved.extend(added);
    assert!(
        moved.is_empty(),
        "statistics differ from {} ({count}):\n{}{}",
        path.display(),
        moved
            .iter()
            .take(200)
            .map(|m| format!("  {m}\n"))
            .collect::<String>(),
        if moved.len() > 200 { "  ...\n" } else { "" }
    );
}
