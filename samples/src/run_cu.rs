//! `warpsim run-cu`: `run-ptx` for CUDA C. The `.cu` file is compiled with NVRTC (found at
//! run time, `nvrtc.rs`), each `--kernel` name resolved to its kernel in the PTX (a C++ or
//! template name to its mangled one, through NVRTC's name expressions), and the launches run
//! as `run-ptx` runs them, with every `run-ptx` option.

use crate::run_ptx::{self, Compiled, RunPtxArgs};
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

/// The options of `run-cu`: NVRTC's, then `run-ptx`'s with FILE the `.cu` file.
#[derive(Args, Debug)]
#[command(
    after_long_help = "Example:\n  warpsim run-cu samples/saxpy/saxpy.cu --kernel saxpy \
    --grid 4 --block 256 --arg i32:1000 --arg f32:2.5 --arg npy:x.npy --arg npy:y.npy \
    --out 3:out.npy\n\nNVRTC is looked up in $WARPSIM_NVRTC, the nvidia-cuda-nvrtc-cu12 \
    wheel of python3, then the system loader (pip install nvidia-cuda-nvrtc-cu12)."
)]
pub(crate) struct RunCuArgs {
    /// NVRTC's virtual architecture (`--gpu-architecture`).
    #[arg(long, value_name = "compute_XY", default_value = "compute_80")]
    arch: String,
    /// Another NVRTC option (repeatable): `-DNAME=VALUE`, `-use_fast_math`, `-I DIR`, ...
    #[arg(long = "nvrtc-flag", value_name = "FLAG", allow_hyphen_values = true)]
    nvrtc_flags: Vec<String>,
    /// Also write the PTX NVRTC made to this file.
    #[arg(long, value_name = "FILE.ptx")]
    emit_ptx: Option<PathBuf>,
    #[command(flatten)]
    ptx: RunPtxArgs,
}

/// Runs `warpsim run-cu`.
pub(crate) fn run(args: RunCuArgs) -> Result<ExitCode, String> {
    let RunCuArgs {
        arch,
        nvrtc_flags,
        emit_ptx,
        ptx,
    } = args;
    run_ptx::run_compiled(ptx, |file, kernels| {
        let source =
            std::fs::read_to_string(file).map_err(|e| format!("error: {}: {e}", file.display()))?;
        let mut flags = vec![format!("--gpu-architecture={arch}")];
        flags.extend(nvrtc_flags);
        let name = file
            .file_name()
            .map_or("kernel.cu".into(), |n| n.to_string_lossy());
        let (ptx, kernels) = crate::nvrtc::compile(&source, &name, &flags, kernels)?;
        if let Some(path) = emit_ptx {
            crate::output::write_text(&path, &ptx).map_err(|e| format!("error: {e}"))?;
        }
        Ok(Compiled { ptx, kernels })
    })
}
