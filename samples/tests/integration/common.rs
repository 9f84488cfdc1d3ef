//! Helpers shared by the command-line tests.

use std::path::PathBuf;

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
