//! What every workload provides: a name, its kernels, three problem sizes, and a run that
//! launches through the runtime and validates against a CPU reference.

use crate::Validation;
use crate::ptx_set::PtxSet;
use runtime::{Arg, Device, Dim3, Kernel, LaunchStats, Module};

/// Problem sizes: `small` runs in seconds (CI), `default` is the suite's default input or the
/// size the register-file papers used, `large` is bigger.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum Size {
    Small,
    Default,
    Large,
}

impl Size {
    pub const ALL: [Size; 3] = [Size::Small, Size::Default, Size::Large];

    pub fn name(self) -> &'static str {
        match self {
            Size::Small => "small",
            Size::Default => "default",
            Size::Large => "large",
        }
    }
}

/// A workload.
pub trait Sample: Sync {
    /// `saxpy` or `rodinia/<name>`.
    fn name(&self) -> &'static str;
    /// Kernel names, in launch order.
    fn kernels(&self) -> &'static [&'static str];
    /// What a size means for this workload (e.g. "1024 × 1024 grid, 2 iterations").
    fn size_description(&self, size: Size) -> String;
    /// Runs at `size` on `dev` and validates the result.
    fn run(&self, dev: &Device, size: Size) -> runtime::Result<Outcome>;
    /// [`Sample::run`] with its modules read from the PTX set `set` instead of the committed
    /// PTX (a set's file missing or not applicable is an `InvalidValue` naming it).
    fn run_from(&self, dev: &Device, size: Size, set: &PtxSet) -> runtime::Result<Outcome> {
        crate::ptx_set::with(set, || self.run(dev, size))
    }
    /// Why the values its registers hold (not its results, nor which instructions run) depend
    /// on the order in which warps execute, if they do: value-returning atomics whose old
    /// values differ with the interleaving. `None` (the default): the same values whatever the
    /// timing, so the width statistics of a run do not depend on the GPU model or technique.
    fn values_depend_on_warp_order(&self) -> Option<&'static str> {
        None
    }
}

/// The result of one run.
pub struct Outcome {
    pub validation: Validation,
    /// Counters summed over every launch.
    pub stats: LaunchStats,
    pub launches: u64,
    /// Wall time spent inside launches (host code excluded).
    pub kernel_seconds: f64,
    /// Seconds the JIT spent compiling the modules the run loaded (0 with the interpreter).
    pub compile_seconds: f64,
}

/// Launches kernels for a driver and keeps the totals an [`Outcome`] reports.
pub struct Session<'d> {
    pub dev: &'d Device,
    pub stats: LaunchStats,
    pub launches: u64,
    pub kernel_seconds: f64,
    pub compile_seconds: f64,
}

impl<'d> Session<'d> {
    pub fn new(dev: &'d Device) -> Session<'d> {
        Session {
            dev,
            stats: LaunchStats::default(),
            launches: 0,
            kernel_seconds: 0.0,
            compile_seconds: 0.0,
        }
    }

    /// Loads a sample's PTX file, by path relative to the samples directory
    /// (`rodinia/nn/nn.ptx`): the committed one, or the same file of the PTX set in force
    /// ([`Sample::run_from`]).
    pub fn load(&mut self, relative: &str) -> runtime::Result<Module> {
        let module = self
            .dev
            .load_ptx_file(&crate::ptx_set::module_path(relative)?)?;
        if self.dev.config().engine == emulator::Engine::Jit {
            self.compile_seconds += module.jit_compile_seconds();
        }
        Ok(module)
    }

    /// Launches and waits, accumulating counters and time.
    pub fn launch(
        &mut self,
        kernel: &Kernel,
        grid: impl Into<Dim3>,
        block: impl Into<Dim3>,
        dynamic_shared: u64,
        args: &[Arg],
    ) -> runtime::Result<LaunchStats> {
        let start = std::time::Instant::now();
        let stats = self.dev.launch(kernel, grid, block, dynamic_shared, args)?;
        self.kernel_seconds += start.elapsed().as_secs_f64();
        self.stats.merge(&stats);
        self.launches += 1;
        Ok(stats)
    }

    /// The outcome of the session with this validation.
    pub fn finish(self, validation: Validation) -> Outcome {
        Outcome {
            validation,
            stats: self.stats,
            launches: self.launches,
            kernel_seconds: self.kernel_seconds,
            compile_seconds: self.compile_seconds,
        }
    }
}
