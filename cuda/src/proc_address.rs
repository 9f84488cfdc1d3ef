//! `cuGetProcAddress`: the entry points by name, as cuda-python's bindings (and the CUDA
//! runtime) resolve every function. A name is the unversioned API name (`cuMemAlloc`); the
//! caller's CUDA version picks the variant, as NVIDIA's headers map names to versioned symbols
//! (`cuMemAlloc` → `cuMemAlloc_v2` from 3.2 on). Per-thread default-stream variants (`_ptds`,
//! `_ptsz`, asked for with `CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM`) resolve to the same
//! functions: every stream runs in order at submission, so the default streams' semantics
//! cannot differ.

use crate::error::{Error, guard};
use crate::ffi::{c_str, write, write_opt};
use crate::types::{CUresult, proc_address, status};
use std::ffi::{c_char, c_int, c_void};

pub use crate::unsupported::{Entry, TABLE};

/// Resolves `name` for CUDA `version`: the exported symbol and its address, or the query
/// result saying why not (`CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND`,
/// `CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT`).
pub fn resolve(name: &str, version: c_int) -> Result<(&'static str, *const c_void), c_int> {
    let mut best: Option<&Entry> = None;
    let mut known = false;
    for e in TABLE.iter().filter(|e| e.name == name) {
        known = true;
        if e.version <= version && best.is_none_or(|b| b.version < e.version) {
            best = Some(e);
        }
    }
    match best {
        Some(e) => Ok((e.symbol, e.function)),
        None if known => Err(proc_address::VERSION_NOT_SUFFICIENT),
        // A versioned symbol asked for by its own name.
        None => TABLE
            .iter()
            .find(|e| e.symbol == name)
            .map(|e| (e.symbol, e.function))
            .ok_or(proc_address::SYMBOL_NOT_FOUND),
    }
}

fn get(
    symbol: *const c_char,
    pfn: *mut *const c_void,
    version: c_int,
    status_out: *mut c_int,
) -> crate::error::Result {
    let name = c_str(symbol)?;
    if pfn.is_null() {
        return Err(Error::code(status::INVALID_VALUE));
    }
    match resolve(name, version) {
        Ok((sym, f)) => {
            if crate::config::tracing() {
                eprintln!("warpsim-cuda: trace: cuGetProcAddress({name}, {version}) -> {sym}");
            }
            write(pfn, f)?;
            write_opt(status_out, proc_address::SUCCESS)
        }
        Err(why) => {
            if crate::config::tracing() {
                eprintln!("warpsim-cuda: trace: cuGetProcAddress({name}, {version}) not found");
            }
            write(pfn, std::ptr::null())?;
            write_opt(status_out, why)?;
            Err(Error::code(status::NOT_FOUND))
        }
    }
}

/// `cuGetProcAddress` (CUDA 11.3).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuGetProcAddress(
    symbol: *const c_char,
    pfn: *mut *const c_void,
    version: c_int,
    _flags: u64,
) -> CUresult {
    guard("cuGetProcAddress", || {
        get(symbol, pfn, version, std::ptr::null_mut())
    })
}

/// `cuGetProcAddress_v2` (CUDA 12.0): with the query result.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuGetProcAddress_v2(
    symbol: *const c_char,
    pfn: *mut *const c_void,
    version: c_int,
    _flags: u64,
    status_out: *mut c_int,
) -> CUresult {
    guard("cuGetProcAddress_v2", || {
        get(symbol, pfn, version, status_out)
    })
}
