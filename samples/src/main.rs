//! `warpsim`: the command-line front of the simulator.
//!
//! Subcommands run samples through the runtime, or read PTX, lower it into warpsim's internal
//! ISA, and show or measure the result.

mod bench;
mod characterize;
mod check;
mod dis;
mod locality;
mod nvrtc;
mod output;
mod pictures;
mod plots;
mod pool;
mod progress;
mod regs;
mod report;
mod rf;
mod run;
mod run_cu;
mod run_ptx;
mod sweep;

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

/// Parses a host thread count: a positive integer (`--threads 0` would run nothing).
pub(crate) fn host_threads(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(0) => Err("must be at least 1".into()),
        Ok(n) => Ok(n),
        Err(e) => Err(e.to_string()),
    }
}

/// Says on stderr when the timing model is to run on more host threads than the host has
/// cores: its threads wait for each other every simulated cycle, so that is slower, not
/// wrong.
pub(crate) fn note_timing_threads(threads: usize) {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if threads > cores {
        eprintln!(
            "note: --threads {threads} runs the timing model on more threads than this host's \
             {cores} core(s): the same results, but the threads wait for each other every \
             simulated cycle, so fewer are faster"
        );
    }
}

/// Parses `--device-memory`: MiB, from 1 to `timing::config::MAX_MEMORY_MIB`; gives bytes.
pub(crate) fn device_memory(text: &str) -> Result<u64, String> {
    let max = timing::config::MAX_MEMORY_MIB;
    match text.parse::<u64>() {
        Ok(mib @ 1..) if mib <= max => Ok(mib << 20),
        Ok(_) => Err(format!("must be from 1 to {max} MiB")),
        Err(e) => Err(format!("{e} (from 1 to {max} MiB)")),
    }
}

/// Parses `--time-limit`: seconds, a positive number.
pub(crate) fn time_limit(text: &str) -> Result<std::time::Duration, String> {
    match text.parse::<f64>() {
        Ok(s) if s > 0.0 && s.is_finite() => std::time::Duration::try_from_secs_f64(s)
            .map_err(|_| format!("{text} seconds is out of range")),
        Ok(_) => Err("must be a positive number of seconds".into()),
        Err(e) => Err(e.to_string()),
    }
}

/// warpsim: an execution-driven functional and timing emulator for a virtual GPU ISA.
///
/// Kernels arrive as PTX (what NVIDIA's compilers emit), are lowered into warpsim's internal
/// ISA with physical register allocation, SIMT reconvergence points and liveness, and run
/// functionally (Cranelift JIT or interpreter) or under the cycle-level timing model, which
/// sees the real width of every register value.
///
/// Output files (--out, --stats-json, --trace, --plots, --json, --svg, sweep results) are
/// written whole or not at all, renamed into place once complete; a symbolic link is followed
/// and its target written; a FIFO or character device (/dev/null, /dev/stdout) is written in
/// place, as a stream; a directory, block device or socket named as an output is an error.
#[derive(Parser)]
#[command(name = "warpsim", version, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a sample (or every sample) end to end under the timing model (a GTX 480 unless
    /// --config says otherwise; --functional skips it), validate it against its CPU reference
    /// and print the timing summary; the exit status is 1 if any validation fails. `warpsim
    /// list` shows the samples; docs/timing.md explains the model and every statistic.
    Run {
        /// The sample: `saxpy`, `<suite>/<name>` (or just `<name>`); `warpsim list` shows them.
        sample: Option<String>,
        /// Run every sample (the same as `--suite all`).
        #[arg(long, conflicts_with_all = ["sample", "suite"])]
        all: bool,
        /// Run every sample of a suite: rodinia, parboil, polybench, sdk, dnn, or all.
        #[arg(long, conflicts_with = "sample", value_parser = suite_arg)]
        suite: Option<String>,
        /// Problem size: small (seconds; what CI runs), default (the suite's default), large.
        #[arg(long, value_enum, default_value_t = warpsim::sample::Size::Default)]
        size: warpsim::sample::Size,
        /// SAXPY only: number of elements, instead of a size.
        #[arg(long)]
        n: Option<usize>,
        /// Host threads: running CTAs in functional mode (default: every core), or the SMs'
        /// cycles under the timing model (default: 1). The timing model's statistics and
        /// results are the same for every count (docs/timing.md, "Parallel timing and memory
        /// semantics").
        #[arg(long, value_parser = host_threads)]
        threads: Option<usize>,
        /// Most instructions one warp may execute before the launch fails (a runaway loop;
        /// default 2^23, far above any sample's busiest warp).
        #[arg(long)]
        budget: Option<u64>,
        /// Stop a launch that runs longer than this many seconds of wall-clock time. Launches
        /// that run longer than 10 s print their progress on stderr every 10 s either way.
        #[arg(long, value_name = "SECONDS", value_parser = time_limit)]
        time_limit: Option<std::time::Duration>,
        /// Device memory in MiB that the sample may allocate (default: the timing preset's
        /// `gpu.memory_mib`, or 4096 with --functional, capped by the host's memory).
        #[arg(long, value_name = "MIB", value_parser = device_memory)]
        device_memory: Option<u64>,
        /// Execution engine: the Cranelift JIT, or the interpreter (the reference). Under the
        /// timing model the JIT runs each lane-wise instruction compiled at issue and the rest
        /// through the interpreter; the statistics are the same with either engine.
        #[arg(long, value_enum, default_value_t = EngineArg::Jit)]
        engine: EngineArg,
        /// Print engine statistics in functional mode (compiled, helper and fallback
        /// instruction counts).
        #[arg(long)]
        stats: bool,
        /// Functional execution only: skip the timing model.
        #[arg(long)]
        functional: bool,
        /// The GPU the timing model simulates: a preset (gtx480, gtx480-4bank, gtx480-cmrc,
        /// titanx, titanx-bow, gtx980, v100, rtx2060, rtx3070, a100, h100) or a TOML file.
        #[arg(long, default_value = "gtx480", value_name = "PRESET|FILE")]
        config: String,
        /// Override a configuration field, e.g. `--set sm.rf.banks=8 --set sm.scheduler=lrr`
        /// (see timing/configs/gtx480.toml for every key).
        #[arg(long = "set", value_name = "KEY=VALUE", conflicts_with = "functional")]
        overrides: Vec<String>,
        /// Registers per thread for occupancy: `warpsim` (its allocation), `ptxas` (ptxas's
        /// count, from samples/ptxas-registers.tsv) or a count for every kernel.
        #[arg(long, value_name = "warpsim|ptxas|N", default_value = "warpsim", value_parser = RegsArg::parse)]
        regs: RegsArg,
        /// Read the samples' PTX from a PTX set instead of the committed PTX (NVRTC 12.9's, for
        /// compute_70 unless a source asks for more): the name of a set in samples/ptx-sets,
        /// such as `cuda13-sm_90` or `cuda13-sm_120` (NVRTC 13's output for compute_90 and
        /// compute_120; samples/ptx-sets/README.md lists them), `committed` (the default), or
        /// a directory laid out as samples/ is, given as a path with a `/` (`tools/regen_ptx.py
        /// --ptx-set DIR --nvrtc 13 --arch compute_100` writes one). A sample whose file the
        /// set lacks fails, naming the file and why (not applicable, or missing).
        #[arg(long, value_name = "NAME|DIR", default_value = "committed", value_parser = ptx_set_arg)]
        ptx_set: warpsim::ptx_set::PtxSet,
        #[command(flatten)]
        sampling: TimingSamplingArgs,
        /// Write every statistic to this JSON file: the timing model's, or with --functional
        /// the engine's counters per sample (instructions, CTAs, divergence, busiest warp, the
        /// JIT's split). Two runs of the same input write byte-identical files: host time and
        /// simulation speed are left out (see --host-times).
        #[arg(long, value_name = "FILE")]
        stats_json: Option<PathBuf>,
        /// Add each sample's host time and simulation speed (wall seconds, warp instructions
        /// and cycles per second; with --functional kernel and compile seconds) to the
        /// --stats-json file, under `host`.
        #[arg(long, requires = "stats_json")]
        host_times: bool,
        /// Write every launch out for replay: DIR/SAMPLE/launches.toml lists each launch in
        /// run-ptx's terms (PTX, kernel, grid, block, arguments, changed module variables) with
        /// the bytes of its buffers at launch in DIR/SAMPLE/data/, as
        /// tools/gpgpusim/compare.py reads them (runtime/src/capture.rs).
        #[arg(long, value_name = "DIR")]
        capture_launches: Option<PathBuf>,
        /// With --capture-launches: write the first N launches of each kernel (the others
        /// still run and count in the launch numbers).
        #[arg(long, value_name = "N", requires = "capture_launches", default_value_t = usize::MAX, hide_default_value = true)]
        capture_per_kernel: usize,
        /// Print the timing model's configuration as TOML (preset, --config and --set
        /// applied) and stop without running anything (not with --functional).
        #[arg(long, conflicts_with = "functional")]
        dump_config: bool,
        #[command(flatten)]
        pictures: pictures::PicturesArgs,
    },
    /// List every sample with its sizes and kernels.
    List,
    /// Run any PTX kernel, or a chain of kernels from one module, without writing a driver.
    ///
    /// Arguments are scalars and device buffers made from .npy files, raw files or zeros;
    /// buffers are written back to .npy files after the last launch.
    RunPtx(run_ptx::RunPtxArgs),
    /// `run-ptx` for CUDA C: compile a .cu file with NVRTC (found at run time) and run its
    /// kernels with the same options; `--kernel` takes C++ names (`axpy<float>`).
    RunCu(run_cu::RunCuArgs),
    /// Disassemble a PTX file into warpsim's internal ISA: blocks, reconvergence points,
    /// liveness and physical registers.
    Dis {
        /// The PTX file.
        file: PathBuf,
        /// Print only this kernel or function.
        #[arg(long)]
        kernel: Option<String>,
        /// Print the compiler hints for register-file techniques instead, over 32-bit
        /// physical registers (predicates excluded): per instruction the registers it reads
        /// (`*` marks a last use: the value is never read again) and those live after it; per
        /// block its loop depth and weight (10^depth, the estimated execution count); per
        /// function every affinity edge `Ra,Rb=w` (two registers read by one instruction,
        /// weights summed), heaviest first.
        #[arg(long)]
        hints: bool,
        /// Leave out each instruction's `live:` list (the registers live after it). With many
        /// values live at once the lists dominate: 200,000 live values would print 200,000
        /// names on each of 200,000 lines.
        #[arg(long, conflicts_with_all = ["hints", "locality"])]
        no_live: bool,
        /// Print what PAVER's locality analysis (LocalityGuru) sees instead: each global load
        /// and what its address is computed from (special registers, parameters, `.const`
        /// memory, loop counters, or loaded data, which it does not analyse). With --grid and
        /// --block, also the CTA locality graph of that launch (CTAs sharing 128-byte lines)
        /// and PAVER's CTA groups; parameters that are not 64-bit pointers need --param.
        #[arg(long, conflicts_with = "hints")]
        locality: bool,
        /// With --locality: the launch's grid, in CTAs.
        #[arg(long, value_name = "X[,Y,Z]", value_parser = run_ptx::spec::parse_dim, requires_all = ["locality", "block"])]
        grid: Option<[u32; 3]>,
        /// With --locality: the launch's block, in threads.
        #[arg(long, value_name = "X[,Y,Z]", value_parser = run_ptx::spec::parse_dim, requires = "grid")]
        block: Option<[u32; 3]>,
        /// With --grid: a parameter's value (repeat), an integer (or 0x hex) or, for float
        /// parameters, a decimal. 64-bit parameters left out are taken as pointers to
        /// separate buffers.
        #[arg(long = "param", value_name = "NAME=VALUE", value_parser = locality::parse_param, requires = "grid")]
        params: Vec<(String, String)>,
        /// With --grid: CTAs one SM holds at once (the size of PAVER's groups).
        #[arg(long, value_name = "N", default_value_t = 8, requires = "grid")]
        ctas_per_sm: u32,
    },
    /// Parse, lower and verify PTX files; report diagnostics and unsupported instructions.
    Check {
        /// PTX files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Tabulate registers per thread: warpsim's allocation beside `ptxas -v`'s count.
    Regs {
        /// PTX files or directories to search for `.ptx` files (default: `samples/`).
        paths: Vec<PathBuf>,
        /// The `file<TAB>kernel<TAB>registers` table written by `tools/ptxas_regs.py`.
        #[arg(long, default_value = "samples/ptxas-registers.tsv")]
        ptxas: PathBuf,
        /// Print a Markdown table.
        #[arg(long)]
        markdown: bool,
        /// Before the table, print for each kernel (and each function it calls) the point of
        /// highest register pressure and every value live there with the instruction that
        /// defines it: no allocation can use fewer registers than that peak.
        #[arg(long)]
        why: bool,
    },
    /// Characterize the opportunity of register-file techniques on samples (narrow values,
    /// reads per value, BOW bypassing windows, multi-source instructions, first-fit
    /// coalescing): one row per benchmark, their average and the published figures, from one
    /// functional run stepping every warp instruction (no timing model). The exit status is 1
    /// if any validation fails. docs/characterization.md defines every column.
    Characterize {
        /// Samples: `saxpy`, `<suite>/<name>` (or `<name>`), or a suite name for all of its
        /// samples (default: every sample).
        samples: Vec<String>,
        /// Every sample of these suites too: rodinia, parboil, polybench, sdk, dnn, all.
        #[arg(long, value_delimiter = ',', value_name = "SUITE,...", value_parser = suite_arg)]
        suite: Vec<String>,
        /// Problem size: small, default (the suite's default), large.
        #[arg(long, value_enum, default_value_t = warpsim::sample::Size::Default)]
        size: warpsim::sample::Size,
        /// Write every count, percentage and per-kernel breakdown to this JSON file.
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
        /// Host threads running CTAs (default: every core); the figures do not depend on it.
        #[arg(long, value_parser = host_threads)]
        threads: Option<usize>,
        /// Print the tables as Markdown.
        #[arg(long)]
        markdown: bool,
        /// CTAs observed per launch, evenly spaced and rotating from launch to launch; the
        /// others run unobserved (compiled runs). Each observed CTA is observed whole.
        #[arg(long, default_value_t = 16, value_name = "N")]
        ctas_per_launch: u64,
        /// Millions of warp instructions of a kernel to observe; its later launches run
        /// unobserved.
        #[arg(long, default_value_t = 25, value_name = "M")]
        kernel_minsts: u64,
        /// Observe every warp instruction of every launch (overrides the two limits above;
        /// the largest default-size runs then take hours).
        #[arg(long)]
        full: bool,
        /// Draw the narrow values, reads per value and bypassable accesses per sample as SVG
        /// charts into this directory (widths.svg, reads.svg, bypass.svg; made if missing).
        #[arg(long, value_name = "DIR")]
        plots: Option<PathBuf>,
    },
    /// Compare register-file techniques side by side: one timing simulation per (technique,
    /// sample), run concurrently on every host core, each figure relative to the baseline.
    ///
    /// Prints per sample the absolute figures of every run (cycles, IPC, register-bank reads
    /// and writes, bank conflicts, collector residency, register-file dynamic and leakage
    /// energy, achieved occupancy, validation), then each technique's ratios to the baseline
    /// and their geometric means over the samples; --json and --svg write them out. Each run
    /// is deterministic and independent of --threads. The exit status is 1 if any run fails
    /// validation or does not complete (the others still run). docs/rf.md explains every
    /// column and the energy model.
    Rf(rf::RfArgs),
    /// Run a sweep: a grid of timing simulations (samples × sizes × presets × `--set`
    /// overrides × register-file techniques) from a TOML specification, here on every core or
    /// as a SLURM job array (--slurm), each point's result kept as a file so that an
    /// interrupted sweep resumes; `warpsim sweep collect SPEC` merges them into one table and
    /// charts. docs/sweeps.md describes the specification.
    Sweep(sweep::SweepArgs),
    /// Measure simulator speed.
    Bench {
        #[command(subcommand)]
        what: bench::BenchKind,
    },
}

/// Sampling of the timing model (`--kernel-minsts`, `--launch-waves`): for runs too long to
/// time whole. What is not timed runs functionally, so results are complete and validated.
#[derive(clap::Args, Clone, Copy, Debug, Default)]
pub(crate) struct TimingSamplingArgs {
    /// Time each kernel until this many million of its warp instructions were timed; its
    /// later launches run functionally (default 0: no limit). Kernels are told apart by file
    /// and name.
    #[arg(long, value_name = "M", default_value_t = 0)]
    pub(crate) kernel_minsts: u64,
    /// Time the first W waves of CTAs of each launch (a wave: the GPU's SMs × the kernel's
    /// CTAs per SM, in CTA order); its other CTAs run functionally after them (default 0:
    /// every CTA).
    #[arg(long, value_name = "W", default_value_t = 0)]
    pub(crate) launch_waves: u32,
}

impl TimingSamplingArgs {
    pub(crate) fn sampling(self) -> runtime::TimingSampling {
        runtime::TimingSampling {
            kernel_warp_insts: self.kernel_minsts.saturating_mul(1_000_000),
            launch_waves: self.launch_waves,
        }
    }
}

/// `--suite` values: a suite name or `all`.
pub(crate) fn suite_arg(text: &str) -> Result<String, String> {
    if text == "all" || warpsim::registry::SUITES.contains(&text) {
        Ok(text.to_string())
    } else {
        Err(format!(
            "expected a suite: {} or all",
            warpsim::registry::SUITES.join(", ")
        ))
    }
}

/// Parses `--ptx-set`: opens the set (its directory and manifest) so that a wrong name fails
/// before anything runs.
pub(crate) fn ptx_set_arg(text: &str) -> Result<warpsim::ptx_set::PtxSet, String> {
    warpsim::ptx_set::PtxSet::open(text)
}

/// `--regs` values: where the registers per thread that occupancy counts come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RegsArg {
    /// warpsim's register allocation.
    Warpsim,
    /// `ptxas -v`'s count, from samples/ptxas-registers.tsv.
    Ptxas,
    /// This many for every kernel.
    Count(u32),
}

impl RegsArg {
    /// Parses `warpsim`, `ptxas` or a count from 1 to 255 (the most a thread may have).
    pub(crate) fn parse(text: &str) -> Result<RegsArg, String> {
        match text {
            "warpsim" => Ok(RegsArg::Warpsim),
            "ptxas" => Ok(RegsArg::Ptxas),
            n => match n.parse::<u32>() {
                Ok(n @ 1..=255) => Ok(RegsArg::Count(n)),
                _ => Err("expected `warpsim`, `ptxas` or a count from 1 to 255".into()),
            },
        }
    }

    /// Sets the registers `config` assumes: ptxas's counts per kernel, a count for every
    /// kernel, or nothing (warpsim's allocation).
    pub(crate) fn configure(self, config: &mut runtime::DeviceConfig) -> Result<(), String> {
        match self {
            RegsArg::Warpsim => {}
            RegsArg::Ptxas => config.kernel_registers = regs::ptxas_by_kernel()?,
            RegsArg::Count(n) => config.registers_per_thread = Some(n),
        }
        Ok(())
    }
}

/// `--engine` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum EngineArg {
    /// The Cranelift JIT (default).
    Jit,
    /// The interpreter, the executable specification.
    Interp,
}

impl From<EngineArg> for emulator::Engine {
    fn from(e: EngineArg) -> emulator::Engine {
        match e {
            EngineArg::Jit => emulator::Engine::Jit,
            EngineArg::Interp => emulator::Engine::Interpreter,
        }
    }
}

fn main() -> ExitCode {
    // Output piped into `head` and the like ends quietly, as command-line tools do, instead of
    // panicking on the closed pipe.
    #[cfg(unix)]
    // SAFETY: restoring the default disposition of SIGPIPE before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run {
            sample,
            all,
            suite,
            size,
            n,
            threads,
            budget,
            time_limit,
            device_memory,
            engine,
            stats,
            functional,
            config,
            overrides,
            regs,
            ptx_set,
            sampling,
            stats_json,
            host_times,
            capture_launches,
            capture_per_kernel,
            dump_config,
            pictures,
        } => timing_config(functional, &config, &overrides).and_then(|timing| {
            if let (true, Some(cfg)) = (dump_config, &timing) {
                print!("{}", cfg.to_toml());
                return Ok(ExitCode::SUCCESS);
            }
            // clap keeps these three exclusive.
            let selection = if all {
                Some("all".to_string())
            } else {
                sample.or(suite)
            };
            run::run(
                selection.as_deref(),
                &run::RunOptions {
                    size,
                    n,
                    threads,
                    budget,
                    time_limit,
                    device_memory,
                    engine: engine.into(),
                    stats,
                    timing,
                    regs,
                    ptx_set,
                    sampling: sampling.sampling(),
                    stats_json,
                    host_times,
                    capture: capture_launches.map(|dir| (dir, capture_per_kernel)),
                    pictures,
                },
            )
        }),
        Command::List => run::list(),
        Command::RunPtx(args) => run_ptx::run(args),
        Command::RunCu(args) => run_cu::run(args),
        Command::Dis {
            file,
            kernel,
            locality: true,
            grid,
            block,
            params,
            ctas_per_sm,
            ..
        } => {
            let launch = grid
                .zip(block)
                .map(|(grid, block)| locality::LocalityLaunch {
                    grid,
                    block,
                    params,
                    ctas_per_sm: ctas_per_sm.max(1),
                });
            locality::listing(&file, kernel.as_deref(), launch.as_ref()).map(|text| {
                print!("{text}");
                ExitCode::SUCCESS
            })
        }
        Command::Dis {
            file,
            kernel,
            hints,
            no_live,
            ..
        } => dis::run(&file, kernel.as_deref(), hints, !no_live),
        Command::Check { files } => check::run(&files),
        Command::Regs {
            paths,
            ptxas,
            markdown,
            why,
        } => regs::run(&paths, &ptxas, markdown, why),
        Command::Characterize {
            mut samples,
            suite,
            size,
            json,
            threads,
            markdown,
            ctas_per_launch,
            kernel_minsts,
            full,
            plots,
        } => characterize::run(&characterize::CharacterizeOptions {
            samples: {
                samples.extend(suite);
                samples
            },
            size,
            json,
            threads,
            markdown,
            sampling: if full {
                timing::characterize::Sampling::FULL
            } else {
                timing::characterize::Sampling {
                    ctas_per_launch,
                    insts_per_kernel: kernel_minsts.saturating_mul(1_000_000),
                }
            },
            plots,
        }),
        Command::Rf(args) => rf::run(args),
        Command::Sweep(args) => sweep::run(args),
        Command::Bench { what } => bench::run(what),
    };
    match result {
        Ok(code) => code,
        Err(message) => {
            eprintln!("{message}");
            ExitCode::FAILURE
        }
    }
}

/// The timing model's configuration, or `None` with `--functional`.
fn timing_config(
    functional: bool,
    config: &str,
    overrides: &[String],
) -> Result<Option<timing::GpuConfig>, String> {
    if functional {
        return Ok(None);
    }
    timing::GpuConfig::load(config, overrides)
        .map(Some)
        .map_err(|e| format!("error: {e}"))
}

/// Reads and lowers a PTX file; errors are rendered with source snippets.
pub(crate) fn load_ptx(path: &std::path::Path) -> Result<isa::Module, String> {
    let text = frontend::read_source(path).map_err(|e| format!("error: {e}"))?;
    frontend::compile(&path.display().to_string(), &text).map_err(|e| e.to_string())
}

/// Every `.ptx` file under `paths` (files as given, directories searched recursively), sorted.
pub(crate) fn ptx_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    fn walk(dir: &std::path::Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
        let entries = std::fs::read_dir(dir)
            .map_err(|e| format!("error: cannot read {}: {e}", dir.display()))?;
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, out)?;
            } else if path.extension().is_some_and(|e| e == "ptx") {
                out.push(path);
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            walk(p, &mut out)?;
        } else {
            out.push(p.clone());
        }
    }
    out.sort();
    Ok(out)
}
