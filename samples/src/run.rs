//! `warpsim run`: run a sample end to end, validate it, and report counts and time.

use runtime::{Device, DeviceConfig};
use std::process::ExitCode;

/// Options shared by every sample run.
pub(crate) struct RunOptions {
    pub n: Option<usize>,
    pub threads: Option<usize>,
    pub budget: Option<u64>,
}

pub(crate) fn run(sample: &str, opts: &RunOptions) -> Result<ExitCode, String> {
    let mut config = DeviceConfig::default();
    if let Some(t) = opts.threads {
        config.host_threads = t.max(1);
    }
    if let Some(b) = opts.budget {
        config.cta_budget = b;
    }
    let threads = config.host_threads;
    let dev = Device::new(config).map_err(|e| format!("error: {e}"))?;
    match sample {
        "saxpy" => {
            let n = opts.n.unwrap_or(1 << 20);
            let r = warpsim::saxpy::run(&dev, n).map_err(|e| format!("error: {e}"))?;
            let verdict = if r.validation.passed() {
                "PASS"
            } else {
                "FAIL"
            };
            println!("saxpy n={}: {verdict}: {}", r.n, r.validation);
            println!(
                "  {} thread instructions, {} warp instructions, {} CTAs",
                r.stats.thread_insts, r.stats.warp_insts, r.stats.ctas
            );
            println!(
                "  functional (interpreter, {threads} host thread{}): {:.3} s, {:.1} M thread-instructions/s",
                if threads == 1 { "" } else { "s" },
                r.seconds,
                r.stats.thread_insts as f64 / r.seconds / 1e6
            );
            Ok(if r.validation.passed() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        other => Err(format!("error: unknown sample `{other}`; samples: saxpy")),
    }
}
