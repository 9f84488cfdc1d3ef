//! The environment variables that configure the simulated device, read once at `cuInit`.
//!
//! | variable | values | default |
//! | --- | --- | --- |
//! | `WARPSIM_MODE` | `functional`, or a timing preset (`v100`, `a100`, ...) or a preset TOML file: kernels run under the timing model of that GPU | `functional` |
//! | `WARPSIM_GPU` | in functional mode, the preset whose properties the device reports (name, SMs, clock, memory, compute capability) | `a100` |
//! | `WARPSIM_SET` | timing-model overrides, `KEY=VALUE` separated by `;` or `,` (`sm.rf.banks=8`) | none |
//! | `WARPSIM_ENGINE` | `jit` or `interp` | `jit` |
//! | `WARPSIM_THREADS` | host threads that run CTAs in functional mode | every core |
//! | `WARPSIM_TIMING_THREADS` | host threads that run the SMs in timing mode (the same statistics and results for any number: docs/timing.md, "Parallel timing and memory semantics") | 1 |
//! | `WARPSIM_DEVICE_MEMORY_MIB` | device memory in MiB | the preset's, capped by the host's |
//! | `WARPSIM_STATS` | a directory: one JSON per launch (`launch-NNNNN.json`) and `summary.json` at exit | none |
//! | `WARPSIM_CUDA_TRACE` | `1`: every entry point and every name `cuGetProcAddress` resolves, on stderr | off |

use crate::error::{Error, Result};
use std::path::PathBuf;

/// How kernels run.
#[derive(Clone, Debug, PartialEq)]
pub enum Mode {
    /// Functionally only: no simulated time.
    Functional,
    /// Under the timing model of the named GPU.
    Timing(String),
}

/// Everything the environment says.
#[derive(Clone, Debug)]
pub struct Settings {
    pub mode: Mode,
    /// The GPU the device reports (and, in timing mode, simulates).
    pub gpu: timing::GpuConfig,
    pub engine: emulator::Engine,
    pub host_threads: Option<usize>,
    /// Host threads running the SMs under the timing model.
    pub timing_threads: Option<usize>,
    pub memory_mib: Option<u64>,
    pub stats_dir: Option<PathBuf>,
}

/// The preset a functional device reports when `WARPSIM_GPU` is unset: an sm_80 part, which
/// every current CUDA toolchain (NVRTC, numba's NVVM) compiles for without deprecation notes.
pub const DEFAULT_GPU: &str = "a100";

fn var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

impl Settings {
    /// Reads the environment.
    pub fn from_env() -> Result<Settings> {
        Settings::parse(&|name| var(name))
    }

    /// Reads settings through `get` (the environment, or a table in tests).
    pub fn parse(get: &dyn Fn(&str) -> Option<String>) -> Result<Settings> {
        let overrides: Vec<String> = get("WARPSIM_SET")
            .map(|s| {
                s.split([';', ','])
                    .map(|kv| kv.trim().to_string())
                    .filter(|kv| !kv.is_empty())
                    .collect()
            })
            .unwrap_or_default();
        let mode_text = get("WARPSIM_MODE").unwrap_or_else(|| "functional".into());
        let (mode, gpu_name) = if mode_text == "functional" {
            (
                Mode::Functional,
                get("WARPSIM_GPU").unwrap_or_else(|| DEFAULT_GPU.into()),
            )
        } else {
            (Mode::Timing(mode_text.clone()), mode_text)
        };
        let gpu = timing::GpuConfig::load(&gpu_name, &overrides).map_err(|e| {
            Error::invalid(format!(
                "WARPSIM_MODE / WARPSIM_GPU / WARPSIM_SET: {e} (WARPSIM_MODE is `functional` or a timing preset: {})",
                timing::config::PRESETS.join(", ")
            ))
        })?;
        let engine = match get("WARPSIM_ENGINE").as_deref() {
            None | Some("jit") => emulator::Engine::Jit,
            Some("interp") | Some("interpreter") => emulator::Engine::Interpreter,
            Some(other) => {
                return Err(Error::invalid(format!(
                    "WARPSIM_ENGINE=`{other}`: expected `jit` or `interp`"
                )));
            }
        };
        let number = |name: &str| -> Result<Option<u64>> {
            get(name)
                .map(|v| {
                    v.trim()
                        .parse::<u64>()
                        .ok()
                        .filter(|&n| n > 0)
                        .ok_or_else(|| {
                            Error::invalid(format!("{name}=`{v}`: expected a positive integer"))
                        })
                })
                .transpose()
        };
        Ok(Settings {
            mode,
            gpu,
            engine,
            host_threads: number("WARPSIM_THREADS")?.map(|n| n as usize),
            timing_threads: number("WARPSIM_TIMING_THREADS")?.map(|n| n as usize),
            memory_mib: number("WARPSIM_DEVICE_MEMORY_MIB")?,
            stats_dir: get("WARPSIM_STATS").map(PathBuf::from),
        })
    }

    /// The runtime device these settings describe.
    pub fn device_config(&self) -> runtime::DeviceConfig {
        let mut c = runtime::DeviceConfig {
            engine: self.engine,
            memory_bytes: self.memory_mib.map(|m| m << 20),
            ..Default::default()
        };
        if let Some(n) = self.host_threads {
            c.host_threads = n;
        }
        if let Some(n) = self.timing_threads {
            c.timing_threads = n;
        }
        let sm = &self.gpu.sm;
        // The block may use up to the SM's shared memory (CUDA's opt-in limit); the default
        // 48 KiB limit is the launch code's, lifted per function by
        // CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES.
        c.max_shared_per_block = u64::from(sm.shared_memory);
        c.max_registers_per_block = u64::from(sm.registers).min(65536);
        c.max_threads_per_block = sm.max_threads.min(1024);
        if self.mode != Mode::Functional {
            c.timing = Some(self.gpu.clone());
        }
        if c.memory_bytes.is_none() && self.mode == Mode::Functional {
            // A functional device has the reported GPU's memory, as a timing one does.
            c.memory_bytes = Some(
                runtime::DeviceConfig {
                    timing: Some(self.gpu.clone()),
                    ..Default::default()
                }
                .device_memory(),
            );
        }
        c
    }

    /// What `cuDeviceGetName` reports.
    pub fn device_name(&self) -> String {
        match &self.mode {
            Mode::Functional => format!("warpsim {} (functional)", self.gpu.name),
            Mode::Timing(_) => format!("warpsim {} (timing model)", self.gpu.name),
        }
    }

    /// The mode as statistics name it: `functional` or the preset.
    pub fn mode_name(&self) -> String {
        match &self.mode {
            Mode::Functional => "functional".into(),
            Mode::Timing(_) => self.gpu.name.clone(),
        }
    }
}

/// Whether `WARPSIM_CUDA_TRACE` asks for a trace of entry points.
pub fn tracing() -> bool {
    static TRACE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *TRACE.get_or_init(|| var("WARPSIM_CUDA_TRACE").is_some_and(|v| v != "0"))
}
