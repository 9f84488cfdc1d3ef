//! The CUDA-like host API (devices, device memory, modules, launches, errors, GPU configs).
//!
//! Not built yet: it arrives with issue 3. The crate exists now so that the workspace has its
//! final shape and dependency direction (`runtime → frontend, emulator, timing`).
