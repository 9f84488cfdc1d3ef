//! `warpsim bench`: speed measurements (never asserted in tests).

use clap::Subcommand;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

#[derive(Subcommand)]
pub(crate) enum BenchKind {
    /// Parse and lower speed of the PTX front end, in MB/s of PTX text.
    Frontend {
        /// The PTX file to measure (default: the largest `.ptx` under `samples/`).
        #[arg(long)]
        file: Option<PathBuf>,
        /// Minimum measuring time per phase, in seconds.
        #[arg(long, default_value_t = 2.0)]
        seconds: f64,
    },
}

pub(crate) fn run(kind: BenchKind) -> Result<ExitCode, String> {
    match kind {
        BenchKind::Frontend { file, seconds } => frontend(file, seconds),
    }
}

/// Runs `f` repeatedly for at least `min` and returns the best time of one run: the best is the
/// least disturbed by the rest of the machine.
fn best_time(min: Duration, mut f: impl FnMut()) -> Duration {
    let start = Instant::now();
    let mut best = Duration::MAX;
    while start.elapsed() < min || best == Duration::MAX {
        let t = Instant::now();
        f();
        best = best.min(t.elapsed());
    }
    best
}

fn frontend(file: Option<PathBuf>, seconds: f64) -> Result<ExitCode, String> {
    let file = match file {
        Some(f) => f,
        None => crate::ptx_files(&[PathBuf::from("samples")])?
            .into_iter()
            .max_by_key(|p| std::fs::metadata(p).map_or(0, |m| m.len()))
            .ok_or(
                "error: no .ptx files under samples/ (run from the repository root or pass --file)",
            )?,
    };
    let text = std::fs::read_to_string(&file)
        .map_err(|e| format!("error: cannot read {}: {e}", file.display()))?;
    let name = file.display().to_string();
    frontend::compile(&name, &text).map_err(|e| e.to_string())?;
    let min = Duration::from_secs_f64(seconds);
    let mb = text.len() as f64 / 1e6;
    let parse = best_time(min, || {
        std::hint::black_box(frontend::parse(&name, &text).ok());
    });
    let compile = best_time(min, || {
        std::hint::black_box(frontend::compile(&name, &text).ok());
    });
    let module = frontend::compile(&name, &text).map_err(|e| e.to_string())?;
    let analyses = best_time(min, || {
        std::hint::black_box(isa::analysis::ModuleAnalysis::compute(&module));
    });
    println!("file: {} ({} bytes)", file.display(), text.len());
    println!(
        "parse:          {:>8.1} MB/s  ({:.3} ms)",
        mb / parse.as_secs_f64(),
        parse.as_secs_f64() * 1e3
    );
    println!(
        "parse + lower:  {:>8.1} MB/s  ({:.3} ms)",
        mb / compile.as_secs_f64(),
        compile.as_secs_f64() * 1e3
    );
    println!(
        "analyses (CFG, post-dominators, liveness, register allocation): {:.3} ms",
        analyses.as_secs_f64() * 1e3
    );
    Ok(ExitCode::SUCCESS)
}
