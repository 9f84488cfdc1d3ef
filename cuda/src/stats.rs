//! Statistics of the launches a program makes: with `WARPSIM_STATS=DIR`, one JSON per launch
//! (`DIR/launch-00001.json`: kernel, configuration, instructions and, in timing mode, the
//! timing model's statistics) and `DIR/summary.json` when the program exits (totals, per
//! kernel, simulated time), with a line on stderr saying where they went.

use crate::state::Driver;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::Path;

/// One kernel's launches.
#[derive(Clone, Debug, Default)]
pub struct KernelTotals {
    pub launches: u64,
    pub warp_insts: u64,
    pub thread_insts: u64,
    pub cycles: u64,
}

/// Every launch so far.
#[derive(Clone, Debug, Default)]
pub struct Totals {
    pub launches: u64,
    pub kernels: BTreeMap<String, KernelTotals>,
}

/// Records a completed launch: adds its simulated cycles to the device clock, counts it and
/// writes its JSON when statistics are asked for.
pub fn record(
    d: &mut Driver,
    kernel: &runtime::Kernel,
    grid: [u32; 3],
    block: [u32; 3],
    shared: u32,
    stats: &runtime::LaunchStats,
    timing: Option<runtime::TimingReport>,
) {
    let cycles: u64 = timing
        .as_ref()
        .map_or(0, |t| t.kernels.iter().map(|k| k.gpu_sim_cycle).sum());
    d.cycles += cycles;
    d.stats.launches += 1;
    let k = d
        .stats
        .kernels
        .entry(kernel.name().to_string())
        .or_default();
    k.launches += 1;
    k.warp_insts += stats.warp_insts;
    k.thread_insts += stats.thread_insts;
    k.cycles += cycles;
    let Some(dir) = d.settings.stats_dir.clone() else {
        return;
    };
    let mut doc = json!({
        "launch": d.stats.launches,
        "kernel": kernel.name(),
        "mode": d.settings.mode_name(),
        "grid": grid,
        "block": block,
        "dynamic_shared": shared,
        "ctas": stats.ctas,
        "warp_insts": stats.warp_insts,
        "thread_insts": stats.thread_insts,
        "divergent_branches": stats.divergent_branches,
    });
    if let Some(t) = timing {
        doc["cycles"] = json!(cycles);
        doc["simulated_ms"] = json!(millis(d, cycles));
        doc["timing"] = serde_json::to_value(&t.kernels).unwrap_or(Value::Null);
    }
    write(&dir, &format!("launch-{:05}.json", d.stats.launches), &doc);
}

/// Simulated milliseconds of `cycles` at the preset's core clock.
fn millis(d: &Driver, cycles: u64) -> f64 {
    cycles as f64 / (f64::from(d.settings.gpu.gpu.clock_mhz) * 1e3)
}

fn write(dir: &Path, name: &str, doc: &Value) {
    let outcome = std::fs::create_dir_all(dir).and_then(|()| {
        let text = serde_json::to_string_pretty(doc).map_err(std::io::Error::other)?;
        std::fs::write(dir.join(name), text + "\n")
    });
    if let Err(e) = outcome {
        eprintln!(
            "warpsim-cuda: cannot write {}: {e}",
            dir.join(name).display()
        );
    }
}

/// The summary of every launch.
pub fn summary(d: &Driver) -> Value {
    let total_cycles: u64 = d.stats.kernels.values().map(|k| k.cycles).sum();
    let kernels: serde_json::Map<String, Value> = d
        .stats
        .kernels
        .iter()
        .map(|(name, k)| {
            (
                name.clone(),
                json!({
                    "launches": k.launches,
                    "warp_insts": k.warp_insts,
                    "thread_insts": k.thread_insts,
                    "cycles": k.cycles,
                }),
            )
        })
        .collect();
    let mut doc = json!({
        "mode": d.settings.mode_name(),
        "device": d.settings.device_name(),
        "launches": d.stats.launches,
        "warp_insts": d.stats.kernels.values().map(|k| k.warp_insts).sum::<u64>(),
        "thread_insts": d.stats.kernels.values().map(|k| k.thread_insts).sum::<u64>(),
        "kernels": kernels,
    });
    if d.settings.mode != crate::config::Mode::Functional {
        doc["cycles"] = json!(total_cycles);
        doc["simulated_ms"] = json!(millis(d, total_cycles));
    }
    doc
}

extern "C" fn write_summary() {
    // At exit: never block on a lock a dying thread may hold, and never unwind into libc.
    let _ = std::panic::catch_unwind(|| {
        crate::state::peek(|d| {
            if let Some(dir) = &d.settings.stats_dir {
                write(dir, "summary.json", &summary(d));
                eprintln!(
                    "warpsim-cuda: {} launch(es); statistics in {}",
                    d.stats.launches,
                    dir.display()
                );
            }
        });
    });
}

/// Arranges for the summary to be written when the process exits (once, from `cuInit`).
pub fn at_exit() {
    // SAFETY: `write_summary` is an `extern "C" fn()` that never unwinds, as atexit requires.
    unsafe { libc::atexit(write_summary) };
}
