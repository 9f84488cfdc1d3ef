//! `libwarpsim_cuda.so`: the CUDA driver API (the C ABI of NVIDIA's `libcuda.so`) over
//! warpsim, so that unmodified CUDA host programs, numba-cuda and cuda-python run their kernels
//! on the simulator. Link a C program against it, or put a `libcuda.so.1` link to it on
//! `LD_LIBRARY_PATH` (the README's "Running real CUDA programs on warpsim").
//!
//! ```text
//! host program ──C ABI──► cuInit, cuCtx*, cuMem*, cuModule*/cuLibrary*, cuLink*, cuLaunchKernel,
//!                         cuStream*/cuEvent*, cuGetProcAddress ...
//!                 │
//!                 ▼ one simulated device (config.rs: WARPSIM_MODE, WARPSIM_GPU, ...)
//!          runtime::Device ── load_ptx ──► frontend ── launch ──► emulator (functional)
//!                                                             └─► timing::Gpu (timing mode)
//! ```
//!
//! One module per job: `device.rs` (initialisation, device queries; `attributes.rs` the
//! properties from the preset), `context.rs`, `memory.rs`, `module.rs` (modules, libraries,
//! kernels, globals), `link.rs`, `launch.rs`, `stream.rs` (streams and events), `function.rs`
//! (kernel attributes, occupancy), `stats.rs`, `proc_address.rs` (`cuGetProcAddress` and the
//! versioned names) and `unsupported.rs` (every other driver entry point: it names itself on
//! stderr and returns `CUDA_ERROR_NOT_SUPPORTED`). `state.rs` holds the handles' tables,
//! `ffi.rs` every read and write through a caller's pointer, `error.rs` the codes and the guard
//! each entry point runs in. `fuzzing.rs` is the harness of the `cuda_calls` fuzz target.
//!
//! **Safety contract.** Every exported function is `unsafe extern "C"`: its pointer arguments
//! must be what NVIDIA's documentation of the same function says (valid for the reads and
//! writes the call makes). Within that contract nothing here is undefined: every pointer is
//! checked for NULL (`CUDA_ERROR_INVALID_VALUE`), every handle is looked up in a table
//! (`CUDA_ERROR_INVALID_HANDLE`), and no panic unwinds into the caller (`error::guard`).
//!
//! **API boundary:** like `runtime`, this crate does I/O (PTX files, statistics files).

// The exported functions share one safety contract, stated above, rather than a `# Safety`
// section each; and they keep CUDA's names.
#![allow(clippy::missing_safety_doc, non_snake_case)]

pub mod attributes;
pub mod config;
pub mod context;
pub mod device;
pub mod error;
mod ffi;
pub mod function;
pub mod fuzzing;
pub mod launch;
pub mod link;
pub mod memory;
pub mod module;
pub mod proc_address;
pub mod state;
pub mod stats;
pub mod stream;
pub mod types;
pub mod unsupported;
