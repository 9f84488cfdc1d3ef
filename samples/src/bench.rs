//! `warpsim bench`: speed measurements (never asserted in tests).

use clap::Subcommand;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

#[derive(Subcommand)]
pub(crate) enum BenchKind {
    /// Functional-only speed: the interpreter and the JIT on SAXPY and Rodinia ports, beside
    /// the native CPU reference for SAXPY, all in one run.
    Functional {
        /// SAXPY elements.
        #[arg(long, default_value_t = 1 << 24)]
        n: usize,
        /// Rodinia ports to measure (at the given size).
        #[arg(
            long,
            value_delimiter = ',',
            default_value = "rodinia/hotspot,rodinia/srad_v2"
        )]
        samples: Vec<String>,
        /// Size of the Rodinia runs.
        #[arg(long, value_enum, default_value_t = warpsim::sample::Size::Default)]
        size: warpsim::sample::Size,
        /// Host threads (default: every core).
        #[arg(long, value_parser = crate::host_threads)]
        threads: Option<usize>,
        /// Runs per engine and workload; each speed is that of the fastest run, the one least
        /// disturbed by the rest of the machine (as for the native reference).
        #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
        runs: u32,
    },
    /// Timing-model speed: warp instructions and simulated cycles per second of wall time,
    /// per GPU configuration, technique, workload and host thread count.
    Timing {
        /// Workloads (`saxpy` runs `--n` elements; the others run at `--size`).
        #[arg(
            long,
            value_delimiter = ',',
            default_value = "saxpy,rodinia/hotspot,rodinia/srad_v2"
        )]
        samples: Vec<String>,
        /// SAXPY elements.
        #[arg(long, default_value_t = 1 << 20)]
        n: usize,
        /// Size of the other runs.
        #[arg(long, value_enum, default_value_t = warpsim::sample::Size::Default)]
        size: warpsim::sample::Size,
        /// GPU configurations (presets or TOML files).
        #[arg(long, value_delimiter = ',', default_value = "gtx480,titanx")]
        configs: Vec<String>,
        /// Register-file techniques (`sm.rf.technique`) to time on each configuration; each
        /// row after the first technique's gives its wall time relative to the first's on the
        /// same configuration and workload.
        #[arg(long, value_delimiter = ',', default_value = "baseline")]
        techniques: Vec<String>,
        /// Host threads running the SMs: each count runs each workload, back to back; the
        /// rows after the first count's give the speed-up over it, and every count's
        /// statistics must be identical to the first's (or the bench fails).
        #[arg(long, value_delimiter = ',', default_value = "1", value_parser = crate::host_threads)]
        threads: Vec<usize>,
        /// Rounds of runs: each round runs every thread count once, back to back; each row
        /// gives the fastest of its rounds (the least disturbed by the rest of the machine).
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
        runs: u32,
    },
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
        BenchKind::Functional {
            n,
            samples,
            size,
            threads,
            runs,
        } => functional(n, &samples, size, threads, runs),
        BenchKind::Timing {
            samples,
            n,
            size,
            configs,
            techniques,
            threads,
            runs,
        } => timing(&samples, n, size, &configs, &techniques, &threads, runs),
    }
}

fn timing(
    samples: &[String],
    n: usize,
    size: warpsim::sample::Size,
    configs: &[String],
    techniques: &[String],
    threads: &[usize],
    runs: u32,
) -> Result<ExitCode, String> {
    println!(
        "{:<10} {:<10} {:<22} {:>7} {:>12} {:>12} {:>9} {:>9} {:>14} {:>12} {:>8} {:>8}",
        "config",
        "technique",
        "workload",
        "threads",
        "warp insts",
        "cycles",
        "seconds",
        "CPU s",
        "M warp-inst/s",
        "M cycles/s",
        "time",
        "speed-up"
    );
    for config in configs {
        // Wall seconds of the first technique (on the first thread count), per workload: the
        // reference of the others.
        let mut reference: Vec<f64> = Vec::new();
        for (k, technique) in techniques.iter().enumerate() {
            let overrides = [format!("sm.rf.technique={technique}")];
            let cfg =
                timing::GpuConfig::load(config, &overrides).map_err(|e| format!("error: {e}"))?;
            for (i, name) in samples.iter().enumerate() {
                let label = if name == "saxpy" {
                    format!("saxpy n={n}")
                } else {
                    format!("{name} {}", size.name())
                };
                // Each thread count's fastest run (its statistics, seconds, CPU seconds), the
                // rounds interleaving the counts so that they see the same machine.
                let mut best: Vec<Option<(runtime::TimingReport, f64)>> = vec![None; threads.len()];
                let mut expected: Option<serde_json::Value> = None;
                for _ in 0..runs {
                    for (j, &t) in threads.iter().enumerate() {
                        let (report, cpu) = timed_run(&cfg, name, n, size, t)
                            .map_err(|e| format!("error: {name} on {config} ({technique}): {e}"))?;
                        let stats = serde_json::to_value((&report.total, &report.kernels))
                            .expect("statistics serialize");
                        match &expected {
                            None => expected = Some(stats),
                            Some(e) if *e != stats => {
                                return Err(format!(
                                    "error: {name} on {config} ({technique}): the statistics on \
                                     {t} threads differ from those on {}",
                                    threads[0]
                                ));
                            }
                            Some(_) => {}
                        }
                        let seconds = report.total.host.wall_seconds;
                        if best[j]
                            .as_ref()
                            .is_none_or(|(b, _)| seconds < b.total.host.wall_seconds)
                        {
                            best[j] = Some((report, cpu));
                        }
                    }
                }
                let base = best[0]
                    .as_ref()
                    .map_or(0.0, |(r, _)| r.total.host.wall_seconds);
                for (j, &t) in threads.iter().enumerate() {
                    let (report, cpu) = best[j].as_ref().expect("every count ran");
                    let total = &report.total;
                    let seconds = total.host.wall_seconds;
                    let speedup = if j == 0 {
                        String::new()
                    } else {
                        format!("{:.2}x", base / seconds)
                    };
                    if k == 0 && reference.len() == i {
                        reference.push(seconds);
                    }
                    let relative = if k == 0 {
                        String::new()
                    } else {
                        format!("{:.2}x", seconds / reference[i])
                    };
                    println!(
                        "{:<10} {:<10} {:<22} {:>7} {:>12} {:>12} {:>9.2} {:>9.2} {:>14.2} {:>12.2} {:>8} {:>8}",
                        config,
                        technique,
                        label,
                        t,
                        total.warp_insts,
                        total.gpu_sim_cycle,
                        seconds,
                        cpu,
                        total.host.warp_insts_per_second / 1e6,
                        total.host.cycles_per_second / 1e6,
                        relative,
                        speedup
                    );
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs workload `name` (`saxpy` with `n` elements, another sample at `size`) under the timing
/// model `cfg` with `threads` host threads on a fresh device, validated: its statistics, and
/// the CPU seconds the process spent meanwhile (every thread's).
fn timed_run(
    cfg: &timing::GpuConfig,
    name: &str,
    n: usize,
    size: warpsim::sample::Size,
    threads: usize,
) -> Result<(runtime::TimingReport, f64), String> {
    let dev = runtime::Device::new(runtime::DeviceConfig {
        timing: Some(cfg.clone()),
        timing_threads: threads,
        ..runtime::DeviceConfig::default()
    })
    .map_err(|e| e.to_string())?;
    let cpu = process_cpu_seconds();
    let passed = if name == "saxpy" {
        warpsim::saxpy::run(&dev, n).map(|r| r.validation.passed())
    } else {
        let s = warpsim::registry::find(name).ok_or_else(|| format!("unknown sample `{name}`"))?;
        s.run(&dev, size).map(|o| o.validation.passed())
    }
    .map_err(|e| e.to_string())?;
    let cpu = process_cpu_seconds() - cpu;
    if !passed {
        return Err("failed validation".into());
    }
    Ok((dev.take_timing().expect("a timing device"), cpu))
}

/// CPU seconds (user and system) the process has used so far, every thread's.
fn process_cpu_seconds() -> f64 {
    // SAFETY: `getrusage` fills the struct it is given and has no other effect.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage
    };
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    seconds(usage.ru_utime) + seconds(usage.ru_stime)
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
    let lower = best_time(min, || {
        let ast = frontend::parse(&name, &text).ok();
        std::hint::black_box(ast.map(|ast| frontend::lower::lower(&name, &text, &ast).ok()));
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
        mb / lower.as_secs_f64(),
        lower.as_secs_f64() * 1e3
    );
    println!(
        "+ scheduling:   {:>8.1} MB/s  ({:.3} ms; frontend::compile)",
        mb / compile.as_secs_f64(),
        compile.as_secs_f64() * 1e3
    );
    println!(
        "analyses (CFG, post-dominators, liveness, register allocation): {:.3} ms",
        analyses.as_secs_f64() * 1e3
    );
    Ok(ExitCode::SUCCESS)
}

fn device(engine: emulator::Engine, threads: Option<usize>) -> Result<runtime::Device, String> {
    let mut config = runtime::DeviceConfig {
        engine,
        ..runtime::DeviceConfig::default()
    };
    if let Some(t) = threads {
        config.host_threads = t.max(1);
    }
    runtime::Device::new(config).map_err(|e| format!("error: {e}"))
}

/// One measured run: (seconds in kernels, thread instructions).
fn measure(
    dev: &runtime::Device,
    sample: &dyn warpsim::sample::Sample,
    size: warpsim::sample::Size,
) -> Result<(f64, u64), String> {
    let o = sample
        .run(dev, size)
        .map_err(|e| format!("error: {}: {e}", sample.name()))?;
    if !o.validation.passed() {
        return Err(format!(
            "error: {} failed validation: {}",
            sample.name(),
            o.validation
        ));
    }
    Ok((o.kernel_seconds, o.stats.thread_insts))
}

/// The fastest of `runs` calls of `f`, which returns (seconds, thread instructions).
fn fastest(
    runs: u32,
    mut f: impl FnMut() -> Result<(f64, u64), String>,
) -> Result<(f64, u64), String> {
    let mut best = f()?;
    for _ in 1..runs {
        let r = f()?;
        if r.0 < best.0 {
            best = r;
        }
    }
    Ok(best)
}

fn functional(
    n: usize,
    samples: &[String],
    size: warpsim::sample::Size,
    threads: Option<usize>,
    runs: u32,
) -> Result<ExitCode, String> {
    use emulator::Engine;
    let interp = device(Engine::Interpreter, threads)?;
    let jit = device(Engine::Jit, threads)?;
    let cores = jit.config().host_threads;
    println!(
        "functional-only speed, {cores} host thread(s); thread-instructions per second of kernel time, fastest of {runs} run(s) per engine"
    );
    println!(
        "{:<22} {:>14} {:>12} {:>12} {:>10} {:>10}",
        "workload", "thread insts", "interp M/s", "jit M/s", "jit/interp", "time (jit)"
    );
    let row = |name: &str, (ti, insts): (f64, u64), (tj, _): (f64, u64)| {
        println!(
            "{name:<22} {insts:>14} {:>12.1} {:>12.1} {:>9.1}x {:>9.3}s",
            insts as f64 / ti / 1e6,
            insts as f64 / tj / 1e6,
            ti / tj,
            tj
        );
    };
    // SAXPY at n, with the native reference timed on the same inputs (single-threaded).
    let saxpy = |dev: &runtime::Device| -> Result<(f64, u64), String> {
        let r = warpsim::saxpy::run(dev, n).map_err(|e| format!("error: {e}"))?;
        if !r.validation.passed() {
            return Err(format!("error: saxpy failed validation: {}", r.validation));
        }
        Ok((r.seconds, r.stats.thread_insts))
    };
    // Warm the JIT cache and the page tables once, so compile time is not counted.
    let _ = saxpy(&jit)?;
    let (si, sj) = (
        fastest(runs, || saxpy(&interp))?,
        fastest(runs, || saxpy(&jit))?,
    );
    row(&format!("saxpy n={n}"), si, sj);
    let (a, x, y) = warpsim::saxpy::inputs(n);
    let native = best_time(Duration::from_millis(500), || {
        std::hint::black_box(warpsim::saxpy::reference(
            a,
            std::hint::black_box(&x),
            std::hint::black_box(&y),
        ));
    });
    println!(
        "  native CPU reference (1 thread): {:.4} s; jit is {:.1}x the native time, interpreter {:.1}x",
        native.as_secs_f64(),
        sj.0 / native.as_secs_f64(),
        si.0 / native.as_secs_f64()
    );
    for name in samples {
        let s = warpsim::registry::find(name)
            .ok_or_else(|| format!("error: unknown sample `{name}`"))?;
        let _ = measure(&jit, s, size)?;
        row(
            &format!("{} ({})", s.name(), size.name()),
            fastest(runs, || measure(&interp, s, size))?,
            fastest(runs, || measure(&jit, s, size))?,
        );
    }
    Ok(ExitCode::SUCCESS)
}
