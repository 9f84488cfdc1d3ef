//! The device: memory, module loading and kernel launches.

use crate::args::{Arg, pack};
use crate::buffer::{DeviceBuffer, DeviceCopy};
use crate::config::DeviceConfig;
use crate::error::{Error, Result};
use crate::module::{Kernel, Module};
use emulator::{GlobalMemory, LaunchConfig, LaunchStats, MemoryMap};
use std::path::Path;
use std::sync::{Arc, Mutex, RwLock};

/// Three launch dimensions (`dim3`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dim3(pub [u32; 3]);

impl From<u32> for Dim3 {
    fn from(x: u32) -> Dim3 {
        Dim3([x, 1, 1])
    }
}

impl From<(u32, u32)> for Dim3 {
    fn from((x, y): (u32, u32)) -> Dim3 {
        Dim3([x, y, 1])
    }
}

impl From<(u32, u32, u32)> for Dim3 {
    fn from((x, y, z): (u32, u32, u32)) -> Dim3 {
        Dim3([x, y, z])
    }
}

impl From<[u32; 3]> for Dim3 {
    fn from(d: [u32; 3]) -> Dim3 {
        Dim3(d)
    }
}

/// A simulated GPU.
pub struct Device {
    config: DeviceConfig,
    /// Device memory. Replaced at most once, by memory under the 32-bit map, when a device
    /// whose map is not configured loads an `.address_size 32` module before anything uses
    /// its memory ([`Device::load_ptx`]).
    mem: RwLock<Arc<GlobalMemory>>,
    /// The timing model, when the configuration names a GPU.
    gpu: Option<Mutex<timing::Gpu>>,
    /// Characterization mode: the counts so far, and each program decoded once.
    characterization: Option<Mutex<Characterizing>>,
    /// Warp instructions timed so far per kernel (`file:kernel`), for
    /// [`crate::TimingSampling::kernel_warp_insts`].
    timed_by_kernel: Mutex<std::collections::BTreeMap<String, u64>>,
}

/// What characterization mode keeps between launches.
#[derive(Default)]
struct Characterizing {
    report: CharacterizationReport,
    /// Programs decoded for the characterizer; the `Arc` keeps each program alive so its
    /// address cannot be reused by another.
    decoded: Vec<(
        Arc<emulator::Program>,
        Arc<timing::characterize::launch::Decoding>,
    )>,
    /// Per kernel (`file:kernel`): launches observed and warp instructions observed, for
    /// [`timing::characterize::Sampling`].
    observed: Vec<(String, u64, u64)>,
}

/// Characterization counts of the launches since the last [`Device::take_characterization`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CharacterizationReport {
    /// One entry per launch, in order.
    pub launches: Vec<LaunchCharacterization>,
    /// The counts of every launch together (what was observed).
    pub total: timing::characterize::Characterization,
    /// Warp instructions executed, observed or not (`total.warp_insts` were observed).
    pub warp_insts: u64,
}

/// One launch's characterization.
#[derive(Clone, Debug, PartialEq)]
pub struct LaunchCharacterization {
    pub kernel: String,
    /// Warp instructions the launch executed.
    pub executed: u64,
    /// What was observed of them (nothing once the kernel's observation budget is spent).
    pub counts: timing::characterize::Characterization,
}

impl CharacterizationReport {
    /// The counts of the whole run estimated from what was observed: each launch's counts
    /// weighted by executed / observed instructions (its CTAs not observed are taken to be
    /// like the ones observed), and each kernel's by its instructions in all launches over
    /// those in its observed launches (its unobserved launches are taken to be like its
    /// observed ones). Every launch and kernel so weighs what it executed. With everything
    /// observed, every weight is 1 and this is [`CharacterizationReport::total`].
    pub fn estimate(&self) -> timing::characterize::Characterization {
        let mut out = timing::characterize::Characterization::default();
        for name in self.kernel_names() {
            out.merge(&self.estimate_kernel(name));
        }
        out
    }

    /// Kernels in order of first launch.
    pub fn kernel_names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        for l in &self.launches {
            if !names.contains(&l.kernel.as_str()) {
                names.push(&l.kernel);
            }
        }
        names
    }

    /// [`CharacterizationReport::estimate`] for one kernel's launches.
    pub fn estimate_kernel(&self, kernel: &str) -> timing::characterize::Characterization {
        let mut out = timing::characterize::Characterization::default();
        let (mut all, mut observed) = (0u64, 0u64);
        for l in self.launches.iter().filter(|l| l.kernel == kernel) {
            all += l.executed;
            if l.counts.warp_insts > 0 {
                observed += l.executed;
                out.merge(
                    &l.counts
                        .scaled(l.executed as f64 / l.counts.warp_insts as f64),
                );
            }
        }
        if observed == 0 {
            return out;
        }
        out.scaled(all as f64 / observed as f64)
    }
}

/// Timing statistics of the launches since the last [`Device::take_timing`].
#[derive(Clone, Debug, Default)]
pub struct TimingReport {
    /// One entry per launch, in order.
    pub kernels: Vec<timing::TimingStats>,
    /// All of them together.
    pub total: timing::TimingStats,
}

impl Device {
    pub fn new(config: DeviceConfig) -> Result<Device> {
        let mem = new_memory(&config, config.memory_map.unwrap_or(MemoryMap::BITS64))?;
        if config.characterize && config.timing.is_some() {
            return Err(Error::InvalidValue(
                "characterization runs functionally; it cannot be combined with the timing model"
                    .into(),
            ));
        }
        let gpu = config.timing.clone().map(|cfg| {
            let mut gpu = timing::Gpu::new(cfg);
            gpu.record(config.recording.clone());
            Mutex::new(gpu)
        });
        let characterization = config.characterize.then(Mutex::default);
        Ok(Device {
            config,
            mem: RwLock::new(Arc::new(mem)),
            gpu,
            characterization,
            timed_by_kernel: Mutex::default(),
        })
    }

    pub fn config(&self) -> &DeviceConfig {
        &self.config
    }

    /// Device memory, for tools that work with raw addresses. While a handle lives, the
    /// memory counts as in use: the device no longer switches to the 32-bit memory map for an
    /// `.address_size 32` module (see [`Device::load_ptx`]).
    pub fn memory(&self) -> Arc<GlobalMemory> {
        self.mem.read().expect("device memory lock").clone()
    }

    /// Allocates `len` zeroed values (`cudaMalloc`).
    pub fn alloc<T: DeviceCopy>(&self, len: usize) -> Result<DeviceBuffer<T>> {
        DeviceBuffer::new(self.memory(), len)
    }

    /// Allocates a buffer holding a copy of `data`.
    pub fn alloc_from<T: DeviceCopy>(&self, data: &[T]) -> Result<DeviceBuffer<T>> {
        let b = self.alloc(data.len())?;
        b.copy_from_host(data)?;
        Ok(b)
    }

    /// Loads PTX text; `file` names it in diagnostics. With the JIT engine, every kernel is
    /// compiled here, so launches do not pay for compilation (a compile error surfaces at
    /// launch, with the kernel named). An `.address_size 32` module needs the 32-bit memory
    /// map: a device whose map is not configured switches to it when this is the first use of
    /// its memory, and refuses the module otherwise, saying why.
    pub fn load_ptx(&self, file: &str, text: &str) -> Result<Module> {
        // The timing model and the characterizer execute one instruction at a time: they
        // compile them one by one.
        let stepped = self.gpu.is_some() || self.characterization.is_some();
        let granularity = (self.config.engine == emulator::Engine::Jit).then_some(if stepped {
            emulator::jit::Granularity::Instructions
        } else {
            emulator::jit::Granularity::Runs
        });
        let module = Module::load(
            |m| self.memory_for(file, m.address_size),
            file,
            text,
            granularity,
            self.config.max_registers_per_thread,
        )?;
        module.precompile();
        Ok(module)
    }

    /// The device memory a module of `.address_size bits` named `file` loads into: the
    /// device's, when its map serves such modules. A 32-bit module meeting the 64-bit map
    /// replaces the device memory by one under the 32-bit map when the map was not configured
    /// and nothing uses the memory yet (no allocation, module, buffer, texture object or
    /// [`Device::memory`] handle); otherwise it is an error naming the problem.
    fn memory_for(&self, file: &str, bits: u32) -> Result<Arc<GlobalMemory>> {
        let current = self.memory();
        if current.map().serves(bits) {
            return Ok(current);
        }
        drop(current);
        let mut mem = self.mem.write().expect("device memory lock");
        if mem.map().serves(bits) {
            return Ok(mem.clone());
        }
        let refused = |why: &str| {
            Error::InvalidValue(format!(
                "`{file}` has `.address_size {bits}`: its addresses must lie below 4 GiB, but the device uses {} and {why}; create the device with `memory_map: Some(MemoryMap::BITS32)`",
                mem.map().describe()
            ))
        };
        if self.config.memory_map.is_some() {
            return Err(refused("was configured so (`memory_map`)"));
        }
        // Under the write lock nobody can take another reference: one is the device's own.
        if Arc::strong_count(&mem) > 1 || !mem.is_unused() {
            return Err(refused(
                "its memory is already in use (allocations, loaded modules, texture objects or `Device::memory` handles)",
            ));
        }
        let narrow = MemoryMap::BITS32;
        let fresh = new_memory(&self.config, narrow).map_err(|e| match e {
            Error::InvalidValue(why) => {
                Error::InvalidValue(format!("`{file}` has `.address_size {bits}`, but {why}"))
            }
            e => e,
        })?;
        *mem = Arc::new(fresh);
        Ok(mem.clone())
    }

    /// Loads a PTX file.
    pub fn load_ptx_file(&self, path: &Path) -> Result<Module> {
        let text = frontend::read_source(path).map_err(Error::InvalidValue)?;
        self.load_ptx(&path.display().to_string(), &text)
    }

    /// The registers per thread [`DeviceConfig::registers_per_thread`] or
    /// [`DeviceConfig::kernel_registers`] give `kernel`, if any.
    fn assumed_registers(&self, kernel: &Kernel) -> Option<u32> {
        if let Some(n) = self.config.registers_per_thread {
            return Some(n);
        }
        let regs = &self.config.kernel_registers;
        let file = Path::new(&kernel.file)
            .file_name()
            .map_or(kernel.file.as_str(), |f| f.to_str().unwrap_or_default());
        regs.get(&format!("{file}:{}", kernel.name()))
            .or_else(|| regs.get(kernel.name()))
            .copied()
    }

    /// Launches `kernel` and waits for it (`cudaLaunchKernel` + `cudaDeviceSynchronize`).
    pub fn launch(
        &self,
        kernel: &Kernel,
        grid: impl Into<Dim3>,
        block: impl Into<Dim3>,
        dynamic_shared: u64,
        args: &[Arg],
    ) -> Result<LaunchStats> {
        let (grid, block) = (grid.into().0, block.into().0);
        let Some(capture) = &self.config.capture else {
            return self.launch_now(kernel, grid, block, dynamic_shared, args);
        };
        let captured = capture.begin(kernel, &self.memory(), grid, block, dynamic_shared, args)?;
        let stats = self.launch_now(kernel, grid, block, dynamic_shared, args)?;
        if let Some(captured) = captured {
            capture.finish(captured, stats.warp_insts)?;
        }
        Ok(stats)
    }

    /// [`Device::launch`] without the capture.
    fn launch_now(
        &self,
        kernel: &Kernel,
        grid: [u32; 3],
        block: [u32; 3],
        dynamic_shared: u64,
        args: &[Arg],
    ) -> Result<LaunchStats> {
        self.check_launch(kernel, grid, block, dynamic_shared)?;
        let program = kernel.program();
        let mem = self.memory();
        if program.map() != mem.map() {
            return Err(Error::InvalidValue(format!(
                "kernel `{}` of `{}` was loaded under {}, but this device's memory uses {} (load the module on this device)",
                kernel.name(),
                kernel.file,
                program.map().describe(),
                mem.map().describe()
            )));
        }
        let layout = program.layouts[kernel.id().index()]
            .as_ref()
            .expect("kernels have layouts");
        let params = pack(
            kernel.name(),
            &kernel.function().params,
            layout,
            program.module.address_size,
            args,
        )?;
        let unsupported = kernel.unsupported();
        if !unsupported.is_empty() {
            return Err(Error::Unsupported(unsupported.join("\n")));
        }
        if let Some(gpu) = &self.gpu {
            let sampling = self.config.timing_sampling;
            let key = format!("{}:{}", kernel.file, kernel.name());
            let timed_before = self
                .timed_by_kernel
                .lock()
                .expect("sampling lock")
                .get(&key)
                .copied()
                .unwrap_or(0);
            let timed =
                if sampling.kernel_warp_insts > 0 && timed_before >= sampling.kernel_warp_insts {
                    timing::TimedCtas::None
                } else if sampling.launch_waves > 0 {
                    timing::TimedCtas::Waves(sampling.launch_waves)
                } else {
                    timing::TimedCtas::All
                };
            let mut gpu = gpu.lock().expect("timing model lock");
            let s = gpu
                .launch(&timing::TimedLaunch {
                    program,
                    kernel: kernel.id(),
                    mem: &mem,
                    params: &params,
                    grid,
                    block,
                    dynamic_shared,
                    warp_budget: self.config.warp_budget,
                    wall_clock: self.config.wall_clock,
                    regs_per_thread: self.assumed_registers(kernel),
                    engine: self.config.engine,
                    timed,
                    host_threads: self.config.host_threads,
                    sm_threads: self.config.timing_threads,
                })
                .map_err(Error::from)?;
            *self
                .timed_by_kernel
                .lock()
                .expect("sampling lock")
                .entry(key)
                .or_default() += s.warp_insts;
            return Ok(LaunchStats {
                ctas: s.ctas + s.untimed.ctas,
                warp_insts: s.warp_insts + s.untimed.warp_insts,
                thread_insts: s.gpu_sim_insn + s.untimed.thread_insts,
                divergent_branches: s.divergent_branches,
                reconvergences: s.reconvergences,
                max_simt_depth: s.max_simt_depth,
                ..LaunchStats::default()
            });
        }
        if let Some(ch) = &self.characterization {
            return self.characterize(ch, kernel, &mem, &params, grid, block, dynamic_shared);
        }
        self.launch_functional(kernel, &mem, &params, grid, block, dynamic_shared)
    }

    /// A checked launch in functional mode.
    fn launch_functional(
        &self,
        kernel: &Kernel,
        mem: &GlobalMemory,
        params: &[u8],
        grid: [u32; 3],
        block: [u32; 3],
        dynamic_shared: u64,
    ) -> Result<LaunchStats> {
        let cfg = LaunchConfig {
            engine: self.config.engine,
            grid,
            block,
            dynamic_shared,
            host_threads: self.config.host_threads,
            warp_budget: self.config.warp_budget,
            wall_clock: self.config.wall_clock,
        };
        emulator::launch(kernel.program(), kernel.id(), mem, params, &cfg).map_err(Error::from)
    }

    /// The timing statistics gathered since the last call (`None` in functional mode).
    pub fn take_timing(&self) -> Option<TimingReport> {
        let gpu = self.gpu.as_ref()?;
        let mut gpu = gpu.lock().expect("timing model lock");
        Some(TimingReport {
            kernels: std::mem::take(&mut gpu.kernels),
            total: std::mem::take(&mut gpu.total),
        })
    }

    /// What the timing model recorded since the device was made or the last call, as
    /// [`DeviceConfig::recording`] asks (`None` in functional mode or when nothing is asked).
    pub fn take_recording(&self) -> Option<timing::trace::Trace> {
        let gpu = self.gpu.as_ref()?;
        gpu.lock().expect("timing model lock").take_recording()
    }

    /// Runs a launch in characterization mode, adding its counts to the report.
    #[allow(clippy::too_many_arguments)]
    fn characterize(
        &self,
        ch: &Mutex<Characterizing>,
        kernel: &Kernel,
        mem: &GlobalMemory,
        params: &[u8],
        grid: [u32; 3],
        block: [u32; 3],
        dynamic_shared: u64,
    ) -> Result<LaunchStats> {
        let code = {
            let mut ch = ch.lock().expect("characterization lock");
            match ch
                .decoded
                .iter()
                .find(|(p, _)| Arc::ptr_eq(p, &kernel.program))
            {
                Some((_, code)) => code.clone(),
                None => {
                    let code = Arc::new(timing::characterize::launch::decode(kernel.program()));
                    ch.decoded.push((kernel.program.clone(), code.clone()));
                    code
                }
            }
        };
        let key = format!("{}:{}", kernel.file, kernel.name());
        let sampling = self.config.characterize_sampling;
        let (launches, observed) = {
            let ch = ch.lock().expect("characterization lock");
            ch.observed
                .iter()
                .find(|(k, ..)| *k == key)
                .map_or((0, 0), |&(_, l, o)| (l, o))
        };
        if sampling.insts_per_kernel > 0 && observed >= sampling.insts_per_kernel {
            // Enough of this kernel was observed: the launch runs as in functional mode.
            let stats = self.launch_functional(kernel, mem, params, grid, block, dynamic_shared)?;
            let report = &mut ch.lock().expect("characterization lock").report;
            report.warp_insts += stats.warp_insts;
            report.launches.push(LaunchCharacterization {
                kernel: kernel.name().to_string(),
                executed: stats.warp_insts,
                counts: Default::default(),
            });
            return Ok(stats);
        }
        let total_ctas = grid.iter().map(|&d| u64::from(d)).product();
        let sample =
            timing::characterize::CtaSample::spread(total_ctas, sampling.ctas_per_launch, launches);
        let (stats, counts) =
            timing::characterize::characterize(&timing::characterize::CharacterizeLaunch {
                program: kernel.program(),
                code: &code,
                kernel: kernel.id(),
                mem,
                params,
                grid,
                block,
                dynamic_shared,
                warp_budget: self.config.warp_budget,
                engine: self.config.engine,
                host_threads: self.config.host_threads,
                sample,
            })
            .map_err(Error::from)?;
        let mut ch = ch.lock().expect("characterization lock");
        match ch.observed.iter_mut().find(|(k, ..)| *k == key) {
            Some(entry) => {
                entry.1 += 1;
                entry.2 += counts.warp_insts;
            }
            None => ch.observed.push((key, 1, counts.warp_insts)),
        }
        ch.report.warp_insts += stats.warp_insts;
        ch.report.total.merge(&counts);
        ch.report.launches.push(LaunchCharacterization {
            kernel: kernel.name().to_string(),
            executed: stats.warp_insts,
            counts,
        });
        Ok(stats)
    }

    /// The characterization counts gathered since the last call (`None` unless
    /// [`DeviceConfig::characterize`] is set).
    pub fn take_characterization(&self) -> Option<CharacterizationReport> {
        let ch = self.characterization.as_ref()?;
        let mut ch = ch.lock().expect("characterization lock");
        Some(std::mem::take(&mut ch.report))
    }

    /// Starts the timing model afresh: cold caches, empty queues, cycle 0 (the statistics
    /// gathered so far are dropped). A no-op in functional mode.
    pub fn reset_timing(&self) {
        if let Some(gpu) = &self.gpu {
            let mut gpu = gpu.lock().expect("timing model lock");
            *gpu = timing::Gpu::new(gpu.cfg.clone());
            gpu.record(self.config.recording.clone());
        }
        self.timed_by_kernel.lock().expect("sampling lock").clear();
    }

    fn check_launch(
        &self,
        kernel: &Kernel,
        grid: [u32; 3],
        block: [u32; 3],
        dynamic_shared: u64,
    ) -> Result<()> {
        let c = &self.config;
        let name = kernel.name();
        if grid.contains(&0) || block.contains(&0) {
            return Err(Error::InvalidConfiguration(format!(
                "launch of `{name}` with a zero dimension: grid {grid:?}, block {block:?}"
            )));
        }
        let threads = saturating_product(block);
        if threads > u64::from(c.max_threads_per_block) {
            return Err(Error::InvalidConfiguration(format!(
                "block {block:?} of `{name}` has {threads} threads; the device allows {}",
                c.max_threads_per_block
            )));
        }
        for (i, axis) in ["x", "y", "z"].iter().enumerate() {
            if block[i] > c.max_block_dims[i] {
                return Err(Error::InvalidConfiguration(format!(
                    "block.{axis} = {} exceeds {}",
                    block[i], c.max_block_dims[i]
                )));
            }
            if grid[i] > c.max_grid_dims[i] {
                return Err(Error::InvalidConfiguration(format!(
                    "grid.{axis} = {} exceeds {}",
                    grid[i], c.max_grid_dims[i]
                )));
            }
        }
        let t = &kernel.function().tuning;
        for (what, dims) in [("reqntid", t.reqntid), ("maxntid", t.maxntid)] {
            let Some(d) = dims else { continue };
            let ok = if what == "reqntid" {
                d == block
            } else {
                threads <= saturating_product(d)
            };
            if !ok {
                return Err(Error::InvalidConfiguration(format!(
                    "block {block:?} violates `.{what} {}, {}, {}` of `{name}`",
                    d[0], d[1], d[2]
                )));
            }
        }
        let layout = kernel.program().layouts[kernel.id().index()]
            .as_ref()
            .expect("kernels have layouts");
        let shared = layout.dynamic_offset + dynamic_shared;
        if shared > c.max_shared_per_block {
            return Err(Error::OutOfResources(format!(
                "`{name}` needs {} bytes of static and {dynamic_shared} of dynamic shared memory; the device allows {} per block",
                layout.static_shared, c.max_shared_per_block
            )));
        }
        let regs = kernel.program().kernel_registers(kernel.id());
        if regs > c.max_registers_per_thread {
            return Err(Error::OutOfResources(format!(
                "`{name}` needs {regs} registers per thread; the device allows {} (warpsim does not spill registers to local memory)",
                c.max_registers_per_thread
            )));
        }
        let regs = u64::from(regs);
        if regs * threads > c.max_registers_per_block {
            return Err(Error::OutOfResources(format!(
                "`{name}` needs {regs} registers per thread × {threads} threads; the device allows {} per block",
                c.max_registers_per_block
            )));
        }
        Ok(())
    }
}

/// Device memory for `config` under `map`: its size checked against the map, its address
/// space reserved.
fn new_memory(config: &DeviceConfig, map: MemoryMap) -> Result<GlobalMemory> {
    let memory_bytes = config
        .device_memory_under(map)
        .map_err(Error::InvalidValue)?;
    GlobalMemory::with_map(memory_bytes, config.memory_check, map).map_err(|e| {
        Error::InvalidValue(format!(
            "cannot reserve {memory_bytes} bytes of device memory: {e}"
        ))
    })
}

/// The product of three dimensions, saturating: three `u32`s can exceed `u64` (a hostile
/// block of 2^32 - 1 threads a side), and a saturated count is refused as too large.
pub fn saturating_product(dims: [u32; 3]) -> u64 {
    dims.iter()
        .fold(1u64, |acc, &d| acc.saturating_mul(u64::from(d)))
}
