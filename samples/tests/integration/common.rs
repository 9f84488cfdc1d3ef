//! Helpers shared by the command-line tests.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::OnceLock;
use timing::TimingStats;
use warpsim::sample::Sample;

/// The samples that take longest under the timing model at the small size: 10.9 of the 15.6 s
/// that all 67 take on gtx480 (`warpsim run --all --size small --host-times --stats-json F`,
/// 2026-11-28). The golden baseline runs them on every preset; a family of sweeps over other
/// configurations (techniques, policies, model variants) runs the [`light_samples`] and deals
/// these out, one per sweep ([`heavy_sample`]), so that each still runs under several
/// configurations and CI stays fast.
pub const HEAVY: [&str; 7] = [
    "rodinia/lavaMD",
    "rodinia/hybridsort",
    "rodinia/heartwall",
    "rodinia/leukocyte",
    "rodinia/particlefilter_float",
    "rodinia/huffman",
    "rodinia/myocyte",
];

/// Every sample but the [`HEAVY`] ones, in registry order.
pub fn light_samples() -> Vec<&'static dyn Sample> {
    let mut samples = warpsim::registry::all();
    let all = samples.len();
    samples.retain(|s| !HEAVY.contains(&s.name()));
    assert_eq!(
        all - samples.len(),
        HEAVY.len(),
        "every heavy sample is registered"
    );
    samples
}

/// The heavy sample of sweep `k` of a family: `HEAVY[k % HEAVY.len()]`.
pub fn heavy_sample(k: usize) -> &'static dyn Sample {
    warpsim::registry::find(HEAVY[k % HEAVY.len()]).expect("a heavy sample is registered")
}

/// A fresh directory under the system temp dir, named after the test binary, the process and
/// `test`, removed when dropped.
pub struct TempDir(PathBuf);

impl TempDir {
    pub fn new(test: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!(
            "warpsim-{}-{}-{test}",
            env!("CARGO_CRATE_NAME"),
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    /// The path of file `name` in the directory.
    pub fn path(&self, name: &str) -> String {
        self.0.join(name).display().to_string()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs sample `name` at the small size on gtx480 with `overrides` on `host_threads` host
/// threads; it must validate. Its total timing statistics, as JSON.
pub fn small_run_on_gtx480(
    name: &str,
    overrides: &[String],
    host_threads: usize,
) -> serde_json::Value {
    let dev = runtime::Device::new(runtime::DeviceConfig {
        host_threads,
        timing: Some(timing::GpuConfig::load("gtx480", overrides).unwrap()),
        ..runtime::DeviceConfig::default()
    })
    .unwrap();
    let sample = warpsim::registry::find(name).unwrap();
    let outcome = sample.run(&dev, warpsim::sample::Size::Small).unwrap();
    assert!(
        outcome.validation.passed(),
        "{name}: {}",
        outcome.validation
    );
    serde_json::to_value(dev.take_timing().unwrap().total).unwrap()
}

/// The frozen baseline's statistics on gtx480, by `"<sample> <key>"`.
pub fn gtx480_golden() -> &'static BTreeMap<String, String> {
    static GOLDEN: OnceLock<BTreeMap<String, String>> = OnceLock::new();
    GOLDEN.get_or_init(|| golden("gtx480"))
}

/// The frozen baseline's statistics on `preset` (one of the golden file's), by
/// `"<sample> <key>"`.
pub fn golden(preset: &str) -> BTreeMap<String, String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/timing-small.txt");
    let prefix = format!("{preset} ");
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter_map(|l| l.strip_prefix(prefix.as_str()))
        .filter_map(|l| l.split_once(" = "))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// What a technique must share with the baseline: instruction counts and the width
/// histograms of every register read and written, as `(key, value)` in golden form.
pub fn functional_stats(t: &TimingStats) -> Vec<(String, String)> {
    let mut out = vec![
        ("warp_insts".to_string(), t.warp_insts.to_string()),
        ("gpu_sim_insn".to_string(), t.gpu_sim_insn.to_string()),
    ];
    let w = &t.widths;
    for (key, h) in [
        ("reads_all_lanes", &w.reads_all_lanes),
        ("reads_active_lanes", &w.reads_active_lanes),
        ("writes_all_lanes", &w.writes_all_lanes),
        ("writes_active_lanes", &w.writes_active_lanes),
    ] {
        for (k, n) in h.iter().enumerate() {
            out.push((format!("widths.{key}.{k}"), n.to_string()));
        }
    }
    out
}

/// Devices running under the JIT, under the interpreter, and under the JIT with the timing
/// model of `preset`: where a kernel's results must agree exactly.
pub fn engine_devices(preset: &str) -> Vec<runtime::Device> {
    use emulator::Engine;
    [
        (Engine::Jit, None),
        (Engine::Interpreter, None),
        (Engine::Jit, Some(preset)),
    ]
    .into_iter()
    .map(|(engine, timing)| {
        runtime::Device::new(runtime::DeviceConfig {
            engine,
            timing: timing.map(timing::GpuConfig::preset),
            ..runtime::DeviceConfig::default()
        })
        .unwrap()
    })
    .collect()
}
