//! Device limits and execution settings: engine, host threads, budgets, and the timing model's GPU.

/// Settings of a [`crate::Device`].
#[derive(Clone, Debug)]
pub struct DeviceConfig {
    /// Bytes of device memory (reserved lazily; untouched memory costs nothing). `None`: the
    /// timing model's GPU's memory (`gpu.memory_mib`), or [`FUNCTIONAL_MEMORY_BYTES`] without
    /// one, either capped by the host's physical memory; see [`DeviceConfig::device_memory`].
    pub memory_bytes: Option<u64>,
    /// How global-memory accesses are checked: exactly (default) or as the hardware does.
    pub memory_check: emulator::MemoryCheck,
    /// Where global memory and the generic windows lie ([`emulator::MemoryMap`]). `None`
    /// (default): the 64-bit map, which the device replaces by the 32-bit one when the first
    /// thing it does is load an `.address_size 32` module. `Some(map)` fixes the map:
    /// `MemoryMap::BITS32` runs 32- and 64-bit modules alike (its device memory is at most
    /// [`emulator::MemoryMap::max_capacity`]), `MemoryMap::BITS64` refuses 32-bit modules.
    pub memory_map: Option<emulator::MemoryMap>,
    /// The execution engine: the Cranelift JIT (default) or the interpreter.
    pub engine: emulator::launch::Engine,
    /// Host threads that run CTAs in functional mode (and the CTAs a sampled timing run does
    /// not time).
    pub host_threads: usize,
    /// Host threads that run the timing model's SMs, each cycle (at least 1; more than the
    /// GPU's SMs are not used). Every statistic and result is the same for every count
    /// (docs/timing.md, "Parallel timing and memory semantics"); 1 by default, since threads
    /// that wait for each other every simulated cycle only pay where each has a core of its
    /// own.
    pub timing_threads: usize,
    /// Most instructions one warp may execute before the launch fails (a runaway loop).
    pub warp_budget: u64,
    /// A wall-clock limit per launch and a progress heartbeat on stderr (default: neither;
    /// the command line turns the heartbeat on).
    pub wall_clock: emulator::watch::WallClock,
    pub max_threads_per_block: u32,
    pub max_block_dims: [u32; 3],
    pub max_grid_dims: [u32; 3],
    /// Bytes of shared memory per block (static plus dynamic).
    pub max_shared_per_block: u64,
    /// 32-bit registers per block (registers per thread × threads).
    pub max_registers_per_block: u64,
    /// 32-bit registers per thread (255 from compute capability 3.0 on). warpsim does not
    /// spill registers to local memory as ptxas would, so a kernel whose allocation needs more
    /// is refused at launch, and the JIT does not compile it at load.
    pub max_registers_per_thread: u32,
    /// The GPU the timing model simulates; `None` runs functionally only.
    pub timing: Option<timing::GpuConfig>,
    /// How much of each run the timing model simulates (default: everything).
    pub timing_sampling: TimingSampling,
    /// What the timing model records besides its statistics (a trace, a timeline of
    /// counters), taken with [`crate::Device::take_recording`]; nothing by default.
    pub recording: timing::trace::Recording,
    /// Characterize every launch (`timing::characterize`): CTAs are stepped one warp
    /// instruction at a time on the host threads and each instruction is observed; the counts
    /// accumulate until [`crate::Device::take_characterization`]. Functional only: a device
    /// with both this and `timing` is refused.
    pub characterize: bool,
    /// How much of each launch characterization observes (default: everything).
    pub characterize_sampling: timing::characterize::Sampling,
    /// Registers per thread to assume for occupancy (for example the counts `ptxas -v`
    /// reports) instead of warpsim's own allocation. Keys are `FILE:KERNEL`, FILE being the
    /// PTX file's name without its directories (kernel names repeat across files), or a bare
    /// `KERNEL` for that kernel in any file; the qualified key wins.
    pub kernel_registers: std::collections::BTreeMap<String, u32>,
    /// Registers per thread to assume for the occupancy of every kernel (`--regs N`), ahead
    /// of [`DeviceConfig::kernel_registers`] and warpsim's allocation.
    pub registers_per_thread: Option<u32>,
    /// Write every launch out for replay by `warpsim run-ptx` and GPGPU-Sim
    /// ([`crate::capture`]); `None` by default.
    pub capture: Option<std::sync::Arc<crate::capture::LaunchCapture>>,
}

/// How much of a run the timing model simulates, for runs too long to time whole (the default,
/// zeros, times everything). What is not timed runs functionally, so results stay complete;
/// which launches and CTAs are timed depends only on the program and the GPU's shape, never on
/// timing, so every register-file technique times the same work.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimingSampling {
    /// Once this many warp instructions of a kernel were timed, its later launches run
    /// functionally (0: no limit). Kernels are told apart by `FILE:KERNEL`.
    pub kernel_warp_insts: u64,
    /// Waves of CTAs timed per launch, a wave being the GPU's SMs × the kernel's CTAs per SM,
    /// in CTA order; the launch's other CTAs run functionally after them (0: every CTA).
    pub launch_waves: u32,
}

impl TimingSampling {
    /// Whether everything is timed.
    pub fn is_full(&self) -> bool {
        *self == TimingSampling::default()
    }
}

/// Device memory of a functional-only device when none is configured.
pub const FUNCTIONAL_MEMORY_BYTES: u64 = 4 << 30;

impl DeviceConfig {
    /// The device memory a program may allocate: `memory_bytes` when set, otherwise the
    /// timing model's GPU's memory (or [`FUNCTIONAL_MEMORY_BYTES`]) capped by the host's
    /// physical memory, so a default device never promises more than the machine can hold,
    /// and by a quarter of the process's address-space limit when it has one (`ulimit -v`:
    /// the device reserves twice its memory in address space, and the rest of the process
    /// needs room too).
    pub fn device_memory(&self) -> u64 {
        if let Some(bytes) = self.memory_bytes {
            return bytes;
        }
        let card = self
            .timing
            .as_ref()
            .map_or(FUNCTIONAL_MEMORY_BYTES, |t| t.gpu.memory_mib << 20);
        let card = host_physical_memory().map_or(card, |host| card.min(host));
        address_space_limit().map_or(card, |limit| card.min((limit / 4) & !((1 << 20) - 1)))
    }

    /// The device memory under `map`: [`DeviceConfig::device_memory`], capped at what the map
    /// holds ([`emulator::MemoryMap::max_capacity`]) when `memory_bytes` is not set; a
    /// `memory_bytes` beyond it is an error saying so.
    pub fn device_memory_under(&self, map: emulator::MemoryMap) -> Result<u64, String> {
        let max = map.max_capacity();
        match self.memory_bytes {
            Some(bytes) if bytes > max => Err(format!(
                "{bytes} bytes of device memory do not fit {}: it holds at most {max} bytes ({} MiB)",
                map.describe(),
                max >> 20
            )),
            Some(bytes) => Ok(bytes),
            None => Ok(self.device_memory().min(max)),
        }
    }
}

/// The process's address-space limit in bytes (`RLIMIT_AS`'s soft limit), when it has one.
fn address_space_limit() -> Option<u64> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes the limit into the struct it is given, which lives here.
    if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut limit) } != 0
        || limit.rlim_cur == libc::RLIM_INFINITY
    {
        return None;
    }
    Some(limit.rlim_cur)
}

/// The host's physical memory in bytes, when the system says.
fn host_physical_memory() -> Option<u64> {
    // SAFETY: sysconf has no preconditions; it returns -1 for an unknown name or value.
    let (pages, page_size) = unsafe {
        (
            libc::sysconf(libc::_SC_PHYS_PAGES),
            libc::sysconf(libc::_SC_PAGESIZE),
        )
    };
    let pages = u64::try_from(pages).ok()?;
    let page_size = u64::try_from(page_size).ok()?;
    pages.checked_mul(page_size)
}

impl Default for DeviceConfig {
    /// A CUDA-like device of compute capability 7.0 limits, 4 GiB of memory (capped by the
    /// host's), every host core.
    fn default() -> DeviceConfig {
        DeviceConfig {
            memory_bytes: None,
            memory_check: emulator::MemoryCheck::Exact,
            memory_map: None,
            engine: emulator::launch::Engine::default(),
            host_threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            timing_threads: 1,
            warp_budget: emulator::DEFAULT_WARP_BUDGET,
            wall_clock: Default::default(),
            max_threads_per_block: 1024,
            max_block_dims: [1024, 1024, 64],
            max_grid_dims: [i32::MAX as u32, 65535, 65535],
            max_shared_per_block: 48 * 1024,
            max_registers_per_block: 65536,
            max_registers_per_thread: 255,
            timing: None,
            timing_sampling: TimingSampling::default(),
            recording: Default::default(),
            characterize: false,
            characterize_sampling: timing::characterize::Sampling::FULL,
            kernel_registers: Default::default(),
            registers_per_thread: None,
            capture: None,
        }
    }
}
