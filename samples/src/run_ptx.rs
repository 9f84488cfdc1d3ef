//! `warpsim run-ptx`: run any PTX kernel, or a chain of kernels from one module, without
//! writing a driver. Arguments come from the command line (scalars) and from `.npy`, raw or
//! zero-filled buffers; buffers are written back to `.npy` after the last launch.
//!
//! `spec` parses option values, `plan` resolves argument numbers into buffers, `host` reads
//! and writes host arrays; this file holds the options and runs the launches.

/// The accepted `--arg` forms (a macro so that help texts can `concat!` it).
macro_rules! arg_forms {
    () => {
        "  u8:V u16:V u32:V u64:V i8:V i16:V i32:V i64:V f32:V f64:V
                     a scalar (integers in decimal or 0x hex)
  npy:PATH           a device buffer holding a .npy array: dtype <f4 <f8 <i4 <u4 <i8 <u8
                     <i2 <u2 |i1 |u1, C order, any shape (flattened)
  bin:TYPE:PATH      a device buffer holding a raw little-endian file of TYPE elements
  zeros:TYPE:COUNT   a device buffer of COUNT zero elements of TYPE
  @K                 the device buffer of argument K again
  tex:NAME surf:NAME the handle of the --texture / --surface object NAME (a .u64)"
    };
}

mod host;
mod objects;
mod plan;
pub(crate) mod spec;

use clap::{Args, Parser};
use plan::Slot;
use runtime::{Arg, Device, DeviceBuffer, DeviceConfig, Kernel};
use spec::{ArgKind, ArgSpec, ObjectSpec, OutSpec, OutSurfaceSpec, OutSymbolSpec, SymbolSpec};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// What `run-ptx --help` shows after the options.
const AFTER_HELP: &str = concat!(
    "Arguments (--arg, one per kernel parameter, in parameter order):\n",
    arg_forms!(),
    "\nA buffer argument passes the buffer's device address (a .u64 parameter; a .u32 one in an\n",
    "`.address_size 32` module, which runs on a device with the 32-bit memory map: at most\n",
    "1536 MiB of device memory, all of it below 4 GiB).\n",
    "\n",
    "Numbering: every --arg has a number, 0, 1, 2, ... in order of appearance on the whole\n",
    "command line, counting on across --then. `@K` and `--out K:FILE` name argument K, which\n",
    "must be a buffer argument (npy:, bin:, zeros: or an earlier @K). After the last launch,\n",
    "each --out writes its buffer to a .npy file with the buffer's dtype and shape (bin: and\n",
    "zeros: buffers are 1-D).\n",
    "\n",
    "Chaining: --then starts another launch of a kernel from the same module, with its own\n",
    "--kernel, --grid, --block, --shared and --arg. Launches run in order on one device and\n",
    "share buffers through @K. FILE comes first; --out, --threads, --budget and --time-limit may\n",
    "follow any launch (the last --threads, --budget and --time-limit count).\n",
    "\n",
    "Examples:\n",
    "  warpsim run-ptx samples/saxpy/saxpy.ptx --kernel saxpy --grid 4 --block 256 \\\n",
    "      --arg i32:1000 --arg f32:2.5 --arg npy:x.npy --arg npy:y.npy --out 3:out.npy\n",
    "\n",
    "  # arguments 0 and 1 belong to `fill`, 2 and 3 to `scale`; both launches use buffer 0\n",
    "  warpsim run-ptx m.ptx --kernel fill --grid 4 --block 256 --arg zeros:f32:1024 \\\n",
    "      --arg f32:1.5 --then --kernel scale --grid 4 --block 256 --arg @0 --arg f32:2 \\\n",
    "      --out 0:out.npy"
);

/// The options of `run-ptx`: the module and the first launch.
#[derive(Args, Debug)]
#[command(
    override_usage = "warpsim run-ptx FILE --kernel NAME --grid X[,Y,Z] --block X[,Y,Z] \
        [--shared BYTES] [--arg ARG]... [--out K:FILE.npy]... [--threads T] [--budget B] [--time-limit S] \
        [--timing PRESET|FILE [--set KEY=VALUE]... [--regs warpsim|ptxas|N]] [--device-memory MIB] \
        [--memory-check exact|device] [--symbol NAME=VALUE]... [--out-symbol NAME:FILE.npy]... \
        [--texture NAME=npy:PATH[,OPTION]...]... [--surface NAME=npy:PATH[,OPTION]...]... \
        [--out-surface NAME:FILE.npy]... [--then LAUNCH...]",
    after_long_help = AFTER_HELP
)]
pub(crate) struct RunPtxArgs {
    /// The PTX file.
    file: PathBuf,
    /// Run under the timing model on this GPU (a preset: gtx480, gtx480-4bank, gtx480-cmrc,
    /// titanx, titanx-bow, gtx980, v100, rtx2060, rtx3070, a100, h100; or a TOML file) and
    /// print its summary; default: functional only.
    #[arg(long, value_name = "PRESET|FILE")]
    timing: Option<String>,
    /// Override a field of the --timing configuration (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE", requires = "timing")]
    overrides: Vec<String>,
    /// Registers per thread for the --timing model's occupancy: `warpsim` (its allocation, as
    /// `warpsim regs` reports it), `ptxas` (ptxas's count from samples/ptxas-registers.tsv,
    /// for the sample PTX files listed there) or a count for every kernel.
    #[arg(long, value_name = "warpsim|ptxas|N", default_value = "warpsim",
          value_parser = crate::RegsArg::parse, requires = "timing")]
    regs: crate::RegsArg,
    /// Device memory in MiB that the launches may allocate (default: the --timing preset's
    /// `gpu.memory_mib`, or 4096 without --timing, capped by the host's memory, and for an
    /// `.address_size 32` module by the 1536 MiB its 32-bit memory map holds).
    #[arg(long, value_name = "MIB", value_parser = crate::device_memory)]
    device_memory: Option<u64>,
    /// How global-memory accesses are checked: `exact` (every access inside one allocation's
    /// bytes, with guard gaps between allocations) or `device` (allocations packed as
    /// cudaMalloc places them; only accesses outside every allocation fault, as on a GPU or in
    /// GPGPU-Sim: for kernels that read a little out of bounds by design).
    #[arg(long, value_name = "MODE", default_value = "exact")]
    memory_check: MemoryCheckArg,
    /// Set a module-scope `.global` or `.const` variable before the first launch
    /// (repeatable): NAME=TYPE:V, NAME=npy:PATH or NAME=bin:TYPE:PATH, its bytes written from
    /// the variable's start (fewer bytes than the variable leave the rest as declared).
    #[arg(long = "symbol", value_name = "NAME=VALUE")]
    symbols: Vec<SymbolSpec>,
    /// After the last launch, write a module-scope variable to a .npy file, 1-D in its
    /// declared element type (repeatable).
    #[arg(long = "out-symbol", value_name = "NAME:FILE.npy")]
    out_symbols: Vec<OutSymbolSpec>,
    /// A texture over a .npy array's texels (repeatable): an array of its shape (C order:
    /// [layers,] [[depth,] height,] width [, channels]; f32 and 8-, 16-, 32-bit integer
    /// dtypes), or with `linear` a linear buffer for tex1Dfetch. Bound to the module's
    /// `.texref NAME` if there is one; `--arg tex:NAME` passes its handle. Options after the
    /// path: filter=point|linear (point), address=wrap|clamp|mirror|border (clamp),
    /// normalized (normalized coordinates), read=element|normalized, channels=1|2|4 (1),
    /// layered, linear.
    #[arg(long = "texture", value_name = "NAME=npy:PATH[,OPTION]...",
          value_parser = |s: &str| ObjectSpec::parse(s, false))]
    textures: Vec<ObjectSpec>,
    /// A surface over an array holding a .npy array's texels (repeatable; shape as for
    /// --texture; options channels=1|2|4, layered). Bound to the module's `.surfref NAME` if
    /// there is one; `--arg surf:NAME` passes its handle.
    #[arg(long = "surface", value_name = "NAME=npy:PATH[,OPTION]...",
          value_parser = |s: &str| ObjectSpec::parse(s, true))]
    surfaces: Vec<ObjectSpec>,
    /// After the last launch, write a --surface's texels to a .npy file in the shape and dtype
    /// it was read with (repeatable).
    #[arg(long = "out-surface", value_name = "NAME:FILE.npy")]
    out_surfaces: Vec<OutSurfaceSpec>,
    /// Write the timing statistics, of every launch and in total, to this JSON file (the
    /// format of `warpsim run --stats-json`, one entry named after FILE).
    #[arg(long, value_name = "FILE", requires = "timing")]
    stats_json: Option<PathBuf>,
    #[command(flatten)]
    pictures: crate::pictures::PicturesArgs,
    #[command(flatten)]
    launch: LaunchArgs,
    #[command(flatten)]
    common: CommonArgs,
}

/// `--memory-check` (see [`emulator::MemoryCheck`]).
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum MemoryCheckArg {
    Exact,
    Device,
}

/// The options of one launch.
#[derive(Args, Debug)]
struct LaunchArgs {
    /// The kernel (an `.entry` of FILE).
    #[arg(long, value_name = "NAME")]
    kernel: String,
    /// Grid dimensions in CTAs.
    #[arg(long, value_name = "X[,Y,Z]", value_parser = spec::parse_dim)]
    grid: [u32; 3],
    /// Block dimensions in threads.
    #[arg(long, value_name = "X[,Y,Z]", value_parser = spec::parse_dim)]
    block: [u32; 3],
    /// Bytes of dynamic shared memory.
    #[arg(long, value_name = "BYTES", default_value_t = 0)]
    shared: u64,
    /// A kernel argument (repeat, in parameter order); forms: see --help.
    #[arg(long = "arg", value_name = "ARG", allow_hyphen_values = true)]
    args: Vec<ArgSpec>,
    /// After the last launch, write the buffer of argument K to a .npy file (repeatable).
    #[arg(long = "out", value_name = "K:FILE.npy")]
    outs: Vec<OutSpec>,
}

/// Options that may follow any launch.
#[derive(Args, Debug)]
struct CommonArgs {
    /// Host threads running CTAs (default: every core), or under `--timing` the SMs' cycles
    /// (default: 1; the statistics are the same for every count).
    #[arg(long, value_name = "T", value_parser = crate::host_threads)]
    threads: Option<usize>,
    /// Most instructions one warp may execute before the launch fails (a runaway loop;
    /// default 2^23).
    #[arg(long, value_name = "B")]
    budget: Option<u64>,
    /// Stop a launch that runs longer than this many seconds (launches longer than 10 s print
    /// their progress on stderr every 10 s either way).
    #[arg(long, value_name = "SECONDS", value_parser = crate::time_limit)]
    time_limit: Option<std::time::Duration>,
    /// Another launch after this one: everything that follows is its --kernel, --grid,
    /// --block, --shared, --arg and --out options (and perhaps another --then).
    #[arg(long, num_args = 1.., allow_hyphen_values = true, value_name = "LAUNCH")]
    then: Vec<String>,
}

/// A launch after `--then`.
#[derive(Parser, Debug)]
#[command(
    name = "warpsim run-ptx FILE ... --then",
    no_binary_name = true,
    override_usage = "warpsim run-ptx FILE ... --then --kernel NAME --grid X[,Y,Z] \
        --block X[,Y,Z] [--shared BYTES] [--arg ARG]... [--out K:FILE.npy]... [--then LAUNCH...]",
    after_long_help = AFTER_HELP
)]
struct LaterLaunch {
    #[command(flatten)]
    launch: LaunchArgs,
    #[command(flatten)]
    common: CommonArgs,
}

/// The whole command line: launches in order and the device settings.
struct Invocation {
    file: PathBuf,
    regs: crate::RegsArg,
    stats_json: Option<PathBuf>,
    symbols: Vec<SymbolSpec>,
    out_symbols: Vec<OutSymbolSpec>,
    textures: Vec<ObjectSpec>,
    surfaces: Vec<ObjectSpec>,
    out_surfaces: Vec<OutSurfaceSpec>,
    launches: Vec<LaunchArgs>,
    config: DeviceConfig,
    pictures: crate::pictures::PicturesArgs,
}

impl RunPtxArgs {
    /// Parses the text after each `--then` (a malformed launch exits the way clap does:
    /// message, usage, status 2); `--threads` and `--budget` given more than once: the last
    /// one counts.
    fn into_invocation(self) -> Result<Invocation, String> {
        let mut config = DeviceConfig {
            wall_clock: emulator::watch::WallClock::INTERACTIVE,
            memory_bytes: self.device_memory,
            memory_check: match self.memory_check {
                MemoryCheckArg::Exact => emulator::MemoryCheck::Exact,
                MemoryCheckArg::Device => emulator::MemoryCheck::Device,
            },
            ..DeviceConfig::default()
        };
        if let Some(name) = &self.timing {
            config.timing = Some(
                timing::GpuConfig::load(name, &self.overrides)
                    .map_err(|e| format!("error: {e}"))?,
            );
        }
        self.regs.configure(&mut config)?;
        config.recording = self.pictures.recording(config.timing.is_some(), 1)?;
        let mut launches = Vec::new();
        let (mut launch, mut common) = (self.launch, self.common);
        loop {
            launches.push(launch);
            if let Some(t) = common.threads {
                config.host_threads = t.max(1);
                config.timing_threads = t.max(1);
            }
            if let Some(b) = common.budget {
                config.warp_budget = b;
            }
            if let Some(t) = common.time_limit {
                config.wall_clock.limit = Some(t);
            }
            if common.then.is_empty() {
                break;
            }
            let later = LaterLaunch::try_parse_from(&common.then).unwrap_or_else(|e| e.exit());
            (launch, common) = (later.launch, later.common);
        }
        if config.timing.is_some() {
            crate::note_timing_threads(config.timing_threads);
        }
        Ok(Invocation {
            file: self.file,
            regs: self.regs,
            stats_json: self.stats_json,
            symbols: self.symbols,
            out_symbols: self.out_symbols,
            textures: self.textures,
            surfaces: self.surfaces,
            out_surfaces: self.out_surfaces,
            pictures: self.pictures,
            launches,
            config,
        })
    }
}

/// A device buffer with the element type and shape it is written back with.
struct Buffer {
    device: DeviceBuffer<u8>,
    elem: spec::Elem,
    shape: Vec<u64>,
}

/// Runs `warpsim run-ptx`.
pub(crate) fn run(args: RunPtxArgs) -> Result<ExitCode, String> {
    run_invocation(args.into_invocation()?, None)
}

/// PTX made from a source file: its text, and the kernel in it of each name a launch asked
/// for (a C++ name lowers to a mangled one).
pub(crate) struct Compiled {
    pub ptx: String,
    pub kernels: std::collections::HashMap<String, String>,
}

/// Runs `run-ptx` on the PTX that `compile` makes from FILE, given the kernel names the
/// launches ask for (`warpsim run-cu`).
pub(crate) fn run_compiled(
    args: RunPtxArgs,
    compile: impl FnOnce(&std::path::Path, &[String]) -> Result<Compiled, String>,
) -> Result<ExitCode, String> {
    let mut invocation = args.into_invocation()?;
    let mut names: Vec<String> = invocation
        .launches
        .iter()
        .map(|l| l.kernel.clone())
        .collect();
    names.dedup();
    let compiled = compile(&invocation.file, &names)?;
    for l in &mut invocation.launches {
        if let Some(k) = compiled.kernels.get(&l.kernel) {
            l.kernel = k.clone();
        }
    }
    run_invocation(invocation, Some(compiled.ptx))
}

/// Runs an invocation on FILE's PTX, or on `ptx` made from FILE.
fn run_invocation(invocation: Invocation, ptx: Option<String>) -> Result<ExitCode, String> {
    let Invocation {
        file,
        regs,
        stats_json,
        symbols,
        out_symbols,
        textures,
        surfaces,
        out_surfaces,
        pictures,
        launches,
        config,
    } = invocation;
    if regs == crate::RegsArg::Ptxas {
        // A kernel missing from the table would silently fall back to warpsim's count.
        let name = file
            .file_name()
            .map_or(file.as_os_str(), |n| n)
            .to_string_lossy();
        for l in &launches {
            let key = format!("{name}:{}", l.kernel);
            if !config.kernel_registers.contains_key(&key) {
                return Err(format!(
                    "error: --regs ptxas: no count for `{key}` in samples/ptxas-registers.tsv \
                     (tools/ptxas_regs.py records the sample files; pass --regs N for others)"
                ));
            }
        }
    }
    let all_args: Vec<&ArgSpec> = launches.iter().flat_map(|l| &l.args).collect();
    let outs: Vec<OutSpec> = launches.iter().flat_map(|l| l.outs.clone()).collect();
    let plan = plan::resolve(&all_args, &outs).map_err(|e| format!("error: {e}"))?;

    let dev = Device::new(config).map_err(runtime_error)?;
    let module = match &ptx {
        Some(text) => dev.load_ptx(&file.display().to_string(), text),
        None => dev.load_ptx_file(&file),
    }
    .map_err(runtime_error)?;
    let kernels = launches
        .iter()
        .map(|l| {
            let k = module.kernel(&l.kernel).map_err(runtime_error)?;
            check_arg_count(&k, l.args.len())?;
            Ok(k)
        })
        .collect::<Result<Vec<Kernel>, String>>()?;
    for symbol in &symbols {
        let bytes = symbol_bytes(&symbol.value)
            .map_err(|e| format!("error: --symbol {}: {e}", symbol.text))?;
        module
            .write_symbol(&symbol.name, 0, &bytes)
            .map_err(|e| format!("error: --symbol {}: {e}", symbol.text))?;
    }
    let objects = objects::create(&dev, &module, &textures, &surfaces)?;
    let buffers = plan
        .buffers
        .iter()
        .map(|spec| upload(&dev, spec))
        .collect::<Result<Vec<Buffer>, String>>()?;

    let mut first_arg = 0;
    for (i, (launch, kernel)) in launches.iter().zip(&kernels).enumerate() {
        let slots = &plan.slots[first_arg..first_arg + launch.args.len()];
        first_arg += launch.args.len();
        let kernel_args = slots
            .iter()
            .map(|s| {
                Ok(match s {
                    Slot::Scalar(a) => a.clone(),
                    Slot::Buffer(b) => Arg::Ptr(buffers[*b].device.device_ptr()),
                    Slot::Object { name, surface } => {
                        Arg::U64(objects::handle(&objects, name, *surface)?)
                    }
                })
            })
            .collect::<Result<Vec<Arg>, String>>()?;
        println!(
            "launch {}/{}: {} grid {} block {} shared {}",
            i + 1,
            launches.len(),
            launch.kernel,
            spec::format_dim(launch.grid),
            spec::format_dim(launch.block),
            launch.shared
        );
        let start = Instant::now();
        let stats = dev
            .launch(
                kernel,
                launch.grid,
                launch.block,
                launch.shared,
                &kernel_args,
            )
            .map_err(runtime_error)?;
        println!(
            "  {} thread instructions, {} warp instructions, {} CTA{}, {:.2?}",
            stats.thread_insts,
            stats.warp_insts,
            stats.ctas,
            if stats.ctas == 1 { "" } else { "s" },
            start.elapsed()
        );
    }
    if let Some(report) = dev.take_timing() {
        report_timing(&report, &file, stats_json.as_deref())?;
        let title = format!("{} on {}", file.display(), report.total.config);
        pictures.write(&dev, &report, &title, None)?;
    }

    for &(b, out) in &plan.outs {
        let buf = &buffers[b];
        let bytes = buf.device.to_host().map_err(runtime_error)?;
        host::write_npy(&out.path, buf.elem, &buf.shape, &bytes)
            .map_err(|e| format!("error: {e}"))?;
        println!(
            "wrote argument {} ({} {}) to {}",
            out.arg,
            buf.elem.descr(),
            host::format_shape(&buf.shape),
            out.path.display()
        );
    }
    objects::write_back(&objects, &out_surfaces)?;
    for out in &out_symbols {
        let bad = |e: String| format!("error: --out-symbol {}: {e}", out.name);
        let (ty, size) = module
            .symbol_type(&out.name)
            .map_err(|e| bad(e.to_string()))?;
        let elem = spec::Elem::of_type(ty)
            .ok_or_else(|| bad(format!("a `.{ty}` variable has no .npy element type")))?;
        let bytes = module
            .read_symbol(&out.name)
            .map_err(|e| bad(e.to_string()))?;
        let shape = [size / elem.size() as u64];
        host::write_npy(&out.path, elem, &shape, &bytes).map_err(bad)?;
        println!(
            "wrote variable {} ({} {}) to {}",
            out.name,
            elem.descr(),
            host::format_shape(&shape),
            out.path.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The bytes a `--symbol` value writes: a scalar's, or an array file's.
fn symbol_bytes(value: &ArgKind) -> Result<Vec<u8>, String> {
    Ok(match value {
        ArgKind::Scalar(v) => v.bytes(),
        ArgKind::Npy(path) => host::read_npy(path)?.bytes,
        ArgKind::Bin(elem, path) => host::read_bin(*elem, path)?.bytes,
        ArgKind::Zeros(..) | ArgKind::Ref(_) | ArgKind::Object { .. } => {
            unreachable!("refused when parsed")
        }
    })
}

/// Prints the timing summary of each launch of a chain and of all together (one summary for a
/// single launch), and writes `--stats-json`.
fn report_timing(
    report: &runtime::TimingReport,
    file: &std::path::Path,
    stats_json: Option<&std::path::Path>,
) -> Result<(), String> {
    let n = report.kernels.len();
    if n > 1 {
        for (i, k) in report.kernels.iter().enumerate() {
            println!("timing of launch {}/{n} ({}):", i + 1, k.kernel);
            crate::report::print_summary_as(
                &runtime::TimingReport {
                    kernels: vec![k.clone()],
                    total: k.clone(),
                },
                &format!("launch {}/{n} on {}", i + 1, k.config),
            );
        }
        println!("timing of all {n} launches:");
    }
    crate::report::print_summary(report);
    if let Some(path) = stats_json {
        let name = file.display().to_string();
        let entry = [crate::report::SampleStats {
            sample: &name,
            ptx_set: None,
            total: &report.total,
            kernels: &report.kernels,
            host: None,
        }];
        let text = serde_json::to_string_pretty(&entry).map_err(|e| format!("error: {e}"))?;
        crate::output::write_text(path, &text).map_err(|e| format!("error: {e}"))?;
        println!("wrote timing statistics to {}", path.display());
    }
    Ok(())
}

/// Reads (or makes) the host array of a buffer-creating argument and copies it to the device.
fn upload(dev: &Device, spec: &ArgSpec) -> Result<Buffer, String> {
    let bad = |e: String| format!("error: --arg {}: {e}", spec.text);
    let array = match &spec.kind {
        ArgKind::Npy(path) => host::read_npy(path),
        ArgKind::Bin(elem, path) => host::read_bin(*elem, path),
        &ArgKind::Zeros(elem, count) => {
            // Allocated on the device alone (it starts zeroed): a count too large for device
            // memory is an out-of-memory error, not a host allocation that aborts.
            let len = count
                .checked_mul(elem.size())
                .ok_or_else(|| bad(format!("{count} {} elements overflow memory", elem.name())))?;
            let device = dev.alloc::<u8>(len).map_err(|e| bad(e.to_string()))?;
            device.set_label(format!("--arg {}", spec.text));
            return Ok(Buffer {
                device,
                elem,
                shape: vec![count as u64],
            });
        }
        ArgKind::Scalar(_) | ArgKind::Ref(_) | ArgKind::Object { .. } => {
            unreachable!("only new buffers are uploaded")
        }
    }
    .map_err(bad)?;
    let device = dev.alloc_from(&array.bytes).map_err(runtime_error)?;
    device.set_label(format!("--arg {}", spec.text));
    Ok(Buffer {
        device,
        elem: array.elem,
        shape: array.shape,
    })
}

/// Checks the number of `--arg`s before anything runs, listing the kernel's parameters.
fn check_arg_count(kernel: &Kernel, given: usize) -> Result<(), String> {
    let params = &kernel.function().params;
    if params.len() == given {
        return Ok(());
    }
    let list: Vec<String> = params
        .iter()
        .map(|p| match p.count {
            Some(n) => format!(".{} {}[{n}]", p.ty, p.name),
            None => format!(".{} {}", p.ty, p.name),
        })
        .collect();
    Err(format!(
        "error: kernel `{}` takes {} argument(s), {given} given: {}({})",
        kernel.name(),
        params.len(),
        kernel.name(),
        list.join(", ")
    ))
}

/// Renders a runtime error: PTX diagnostics as they are (they carry their own `error:`), the
/// rest after `error: `.
fn runtime_error(e: runtime::Error) -> String {
    match e {
        runtime::Error::InvalidPtx(d) => d.to_string(),
        e => format!("error: {e}"),
    }
}
