//! `warpsim run` and `warpsim list`: run samples end to end, validate them, and report counts
//! and time.

use runtime::{Device, DeviceConfig};
use std::process::ExitCode;
use warpsim::ptx_set::PtxSet;
use warpsim::registry;
use warpsim::sample::{Sample, Size};

/// Options of `warpsim run`.
pub(crate) struct RunOptions {
    pub size: Size,
    /// SAXPY only: an exact element count instead of a size.
    pub n: Option<usize>,
    pub threads: Option<usize>,
    pub budget: Option<u64>,
    /// The wall-clock limit per launch.
    pub time_limit: Option<std::time::Duration>,
    /// Bytes of device memory, instead of the default (see `runtime::DeviceConfig`).
    pub device_memory: Option<u64>,
    pub engine: emulator::Engine,
    /// Print engine statistics.
    pub stats: bool,
    /// The timing model's GPU; `None` runs functionally only.
    pub timing: Option<timing::GpuConfig>,
    /// Take registers per thread from `ptxas -v` (samples/ptxas-registers.tsv) for occupancy.
    pub regs: crate::RegsArg,
    /// Where the samples' PTX comes from: the committed files or a PTX set.
    pub ptx_set: PtxSet,
    /// How much of the run the timing model simulates.
    pub sampling: runtime::TimingSampling,
    /// Where to write every statistic as JSON: the timing model's, or in functional mode the
    /// engine's counters.
    pub stats_json: Option<std::path::PathBuf>,
    /// Add each sample's host time and simulation speed to that file.
    pub host_times: bool,
    /// Capture launches for replay, into DIR/SAMPLE/: the first N of each kernel.
    pub capture: Option<(std::path::PathBuf, usize)>,
    /// A trace and plots of the timing run.
    pub pictures: crate::pictures::PicturesArgs,
}

/// The device configuration `opts` asks for.
fn device_config(opts: &RunOptions) -> Result<DeviceConfig, String> {
    let mut config = DeviceConfig {
        engine: opts.engine,
        memory_bytes: opts.device_memory,
        ..DeviceConfig::default()
    };
    if let Some(t) = opts.threads {
        config.host_threads = t.max(1);
        config.timing_threads = t.max(1);
    }
    if let Some(b) = opts.budget {
        config.warp_budget = b;
    }
    config.wall_clock = emulator::watch::WallClock {
        limit: opts.time_limit,
        ..emulator::watch::WallClock::INTERACTIVE
    };
    config.timing = opts.timing.clone();
    if config.timing.is_some() {
        crate::note_timing_threads(config.timing_threads);
    }
    config.timing_sampling = opts.sampling;
    if opts.regs == crate::RegsArg::Ptxas && !opts.ptx_set.is_committed() {
        // The TSV is keyed by file and kernel name, which a set shares with the committed PTX:
        // its counts would silently apply to other code.
        return Err(format!(
            "error: --regs ptxas takes samples/ptxas-registers.tsv, ptxas's counts for the \
             committed PTX, not for {}; use --regs warpsim or a count",
            opts.ptx_set.describe()
        ));
    }
    opts.regs.configure(&mut config)?;
    Ok(config)
}

/// Runs the samples `selection` names: one sample, a suite, or `all`.
pub(crate) fn run(selection: Option<&str>, opts: &RunOptions) -> Result<ExitCode, String> {
    let Some(selection) = selection else {
        return Err(
            "error: name a sample (see `warpsim list`), or pass --suite NAME or --all".into(),
        );
    };
    let samples = registry::select(&[selection.to_string()])?;
    if opts.n.is_some() && samples.iter().any(|s| s.name() != "saxpy") {
        return Err("error: --n applies to saxpy only; other samples take --size".into());
    }
    if let Some(n) = opts.n
        && i32::try_from(n).is_err()
    {
        return Err(format!(
            "error: --n {n}: SAXPY's kernel takes n as a 32-bit int (at most {})",
            i32::MAX
        ));
    }
    let mut config = device_config(opts)?;
    config.recording = opts
        .pictures
        .recording(opts.timing.is_some(), samples.len())?;
    let threads = config.host_threads;
    if !opts.ptx_set.is_committed() {
        println!(
            "PTX from {} in {}",
            opts.ptx_set.describe(),
            opts.ptx_set.root().display()
        );
    }
    let mut failed = Vec::new();
    let mut reports = Vec::new();
    let mut functional = Vec::new();
    let bar = crate::progress::bar(
        samples.len() as u64,
        "samples",
        samples.len() == 1 && opts.size != Size::Large,
    );
    if !bar.is_hidden() {
        // The bar's clock shows the run is alive; the heartbeat's lines would tear it.
        config.wall_clock.heartbeat = None;
    }
    for s in &samples {
        bar.set_message(s.name());
        // A fresh device per sample (memory layout, caches, clocks): its figures are the ones
        // it has alone, whatever ran before it.
        let mut config = config.clone();
        if let Some((dir, per_kernel)) = &opts.capture {
            let capture = runtime::LaunchCapture::new(&dir.join(s.name()), s.name(), *per_kernel)
                .map_err(|e| format!("error: {e}"))?;
            config.capture = Some(std::sync::Arc::new(capture));
        }
        let dev = Device::new(config).map_err(|e| format!("error: {e}"))?;
        let ran = run_one(&dev, *s, opts);
        // The results print above the bar, which the sample's run left ticking.
        bar.suspend(|| {
            match ran {
                Ok((label, outcome)) => {
                    print_outcome(*s, &label, &outcome, opts);
                    if !outcome.validation.passed() {
                        failed.push(s.name());
                    }
                    functional.push((s.name(), outcome));
                }
                Err(e) => {
                    println!("{}: ERROR: {e}", s.name());
                    failed.push(s.name());
                }
            }
            if let Some(r) = dev.take_timing() {
                if !r.kernels.is_empty() {
                    crate::report::print_summary(&r);
                }
                let title = format!("{} on {}", s.name(), r.total.config);
                let subdir = (samples.len() > 1).then(|| s.name().replace('/', "__"));
                if let Err(e) = opts.pictures.write(&dev, &r, &title, subdir.as_deref()) {
                    println!("{}: ERROR: {}", s.name(), e.trim_start_matches("error: "));
                    failed.push(s.name());
                }
                reports.push((s.name(), r));
            }
        });
        bar.inc(1);
    }
    bar.finish_and_clear();
    if let Some(path) = &opts.stats_json {
        let ptx_set = (!opts.ptx_set.is_committed()).then_some(opts.ptx_set.name());
        let text = if opts.timing.is_some() {
            let entries: Vec<_> = reports
                .iter()
                .map(|(name, r)| crate::report::SampleStats {
                    sample: name,
                    ptx_set,
                    total: &r.total,
                    kernels: &r.kernels,
                    host: opts.host_times.then_some(r.total.host),
                })
                .collect();
            serde_json::to_string_pretty(&entries)
        } else {
            let entries: Vec<_> = functional
                .iter()
                .map(|(name, outcome)| crate::report::FunctionalSampleStats {
                    ptx_set,
                    ..crate::report::FunctionalSampleStats::new(
                        name,
                        opts.engine,
                        outcome,
                        opts.host_times,
                    )
                })
                .collect();
            serde_json::to_string_pretty(&entries)
        }
        .expect("statistics serialize");
        crate::output::write_text(path, &text).map_err(|e| format!("error: {e}"))?;
    }
    if samples.len() > 1 {
        let mode = match &opts.timing {
            Some(cfg) => format!("timing on {}", cfg.name),
            None => format!(
                "functional, {threads} host thread{}",
                if threads == 1 { "" } else { "s" }
            ),
        };
        let ptx = if opts.ptx_set.is_committed() {
            String::new()
        } else {
            format!(", {}", opts.ptx_set.describe())
        };
        println!(
            "{} of {} samples passed ({} size, {mode}{ptx})",
            samples.len() - failed.len(),
            samples.len(),
            opts.size.name(),
        );
        if !failed.is_empty() {
            println!("failed: {}", failed.join(", "));
        }
    }
    Ok(if failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// Runs and reports one sample.
fn run_one(
    dev: &Device,
    s: &dyn Sample,
    opts: &RunOptions,
) -> runtime::Result<(String, warpsim::sample::Outcome)> {
    let (label, outcome) = match (s.name(), opts.n) {
        ("saxpy", Some(n)) => {
            let r = warpsim::ptx_set::with(&opts.ptx_set, || warpsim::saxpy::run(dev, n))?;
            let mut session = warpsim::sample::Session::new(dev);
            session.stats = r.stats;
            session.launches = 1;
            session.kernel_seconds = r.seconds;
            (format!("n={n}"), session.finish(r.validation))
        }
        _ => (
            format!("{}: {}", opts.size.name(), s.size_description(opts.size)),
            s.run_from(dev, opts.size, &opts.ptx_set)?,
        ),
    };
    Ok((label, outcome))
}

/// Prints one sample's verdict and counts (with --functional, its speed too), `label` naming
/// its size.
fn print_outcome(
    s: &dyn Sample,
    label: &str,
    outcome: &warpsim::sample::Outcome,
    opts: &RunOptions,
) {
    let verdict = if outcome.validation.passed() {
        "PASS"
    } else {
        "FAIL"
    };
    println!("{} ({label}): {verdict}: {}", s.name(), outcome.validation);
    let st = &outcome.stats;
    println!(
        "  {} launch(es), {} thread instructions, {} warp instructions, {} CTAs",
        outcome.launches, st.thread_insts, st.warp_insts, st.ctas
    );
    if opts.timing.is_some() {
        // The timing summary follows (printed by the caller).
        return;
    }
    let secs = outcome.kernel_seconds.max(1e-9);
    let engine = match opts.engine {
        emulator::Engine::Jit => "jit",
        emulator::Engine::Interpreter => "interpreter",
    };
    println!(
        "  functional ({engine}): {:.3} s in kernels, {:.1} M thread-instructions/s",
        outcome.kernel_seconds,
        st.thread_insts as f64 / secs / 1e6
    );
    if opts.stats {
        println!(
            "  busiest warp: {} instructions (budget {} per warp)",
            st.max_warp_insts,
            opts.budget.unwrap_or(emulator::DEFAULT_WARP_BUDGET)
        );
    }
    if opts.stats && opts.engine == emulator::Engine::Jit {
        let pct = |x: u64| 100.0 * x as f64 / st.warp_insts.max(1) as f64;
        println!("  jit: compilation took {:.3} s", outcome.compile_seconds);
        println!(
            "  jit: {} warp instructions compiled ({:.1}%: {:.1}% inline, {:.1}% through the ALU helper, {:.1}% warp-wide helper), {} by the engine (control flow, calls, barriers), {} fallback to the interpreter",
            st.jit_insts,
            pct(st.jit_insts),
            pct(st.jit_inline),
            pct(st.jit_alu_helper),
            pct(st.jit_warp_helper),
            st.engine_insts,
            st.fallback_insts
        );
    }
}

/// `warpsim list`: every sample with its suite, sizes and kernels.
pub(crate) fn list() -> Result<ExitCode, String> {
    let variants = registry::texture_variants();
    for (s, variant) in registry::all()
        .into_iter()
        .map(|s| (s, false))
        .chain(variants.into_iter().map(|s| (s, true)))
    {
        if variant {
            println!("{}  (texture references; selected by name only)", s.name());
        } else {
            let suite = registry::suite_of(s.name()).unwrap_or("none: only in `all`");
            println!("{}  (suite: {suite})", s.name());
        }
        println!("  kernels: {}", s.kernels().join(", "));
        for size in Size::ALL {
            println!("  {:<8} {}", size.name(), s.size_description(size));
        }
    }
    Ok(ExitCode::SUCCESS)
}
