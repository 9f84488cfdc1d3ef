//! Kernel attributes (`cuFuncGetAttribute` and the `cuKernel*` forms), parameter layout,
//! and the occupancy queries, answered by the timing crate's occupancy rule over the
//! registers warpsim's allocator gives the kernel and the preset's SM.

use crate::context::check_device;
use crate::error::{Error, Result, guard};
use crate::ffi::write;
use crate::module::function_entry;
use crate::state::{Driver, FunctionEntry, with};
use crate::types::{CUdevice, CUresult, Handle, func_attr, status};
use std::ffi::{c_int, c_uint};

/// Default shared memory per block without opting in.
const DEFAULT_SHARED: u64 = 48 * 1024;

/// The most threads per block `f` can launch with: the device's limit, the kernel's
/// `.maxntid`/`.reqntid`, and the register file (whole warps).
fn max_threads(d: &Driver, f: &FunctionEntry) -> u64 {
    let cfg = d.device.config();
    let program = f.kernel.program();
    let regs = u64::from(program.kernel_registers(f.kernel.id()).max(1))
        .next_multiple_of(u64::from(d.settings.gpu.sm.register_granularity.max(1)));
    let by_regs = (cfg.max_registers_per_block / (regs * 32)) * 32;
    let t = &f.kernel.function().tuning;
    let by_tuning = t
        .reqntid
        .or(t.maxntid)
        .map_or(u64::MAX, runtime::device::saturating_product);
    u64::from(cfg.max_threads_per_block)
        .min(by_regs)
        .min(by_tuning)
}

/// Attribute `attr` of `f`.
fn attribute(d: &Driver, f: &FunctionEntry, attr: c_int) -> Result<c_int> {
    let program = f.kernel.program();
    let id = f.kernel.id();
    let layout = program.layouts[id.index()]
        .as_ref()
        .expect("kernels have layouts");
    let cc = d.settings.gpu.gpu.compute_capability;
    let optin = d.device.config().max_shared_per_block;
    let v: i64 = match attr {
        func_attr::MAX_THREADS_PER_BLOCK => max_threads(d, f) as i64,
        func_attr::SHARED_SIZE_BYTES => layout.static_shared as i64,
        func_attr::CONST_SIZE_BYTES => program
            .module
            .globals
            .iter()
            .filter(|g| g.space == isa::StateSpace::Const)
            .map(|g| g.size_bytes() as i64)
            .sum(),
        func_attr::LOCAL_SIZE_BYTES => emulator::program::reachable_functions(&program.module, id)
            .iter()
            .map(|g| program.code[g.index()].frame_size as i64)
            .max()
            .unwrap_or(0),
        func_attr::NUM_REGS => i64::from(program.kernel_registers(id)),
        func_attr::PTX_VERSION => {
            let (major, minor) = program.module.version;
            i64::from(major * 10 + minor)
        }
        func_attr::BINARY_VERSION => i64::from(cc.major) * 10 + i64::from(cc.minor),
        func_attr::CACHE_MODE_CA => 0,
        func_attr::MAX_DYNAMIC_SHARED_SIZE_BYTES => f.max_dynamic_shared.unwrap_or(
            DEFAULT_SHARED
                .min(optin)
                .saturating_sub(layout.static_shared),
        ) as i64,
        func_attr::PREFERRED_SHARED_MEMORY_CARVEOUT => i64::from(f.carveout),
        10..func_attr::END => 0,
        _ => return Err(Error::invalid(format!("no function attribute {attr}"))),
    };
    Ok(v as c_int)
}

fn get(out: *mut c_int, attr: c_int, f: Handle) -> Result {
    with(|d| {
        let v = attribute(d, function_entry(d, f)?, attr)?;
        write(out, v)
    })
}

fn set(attr: c_int, value: c_int, f: Handle) -> Result {
    with(|d| {
        let optin = d.device.config().max_shared_per_block;
        let entry = function_entry(d, f)?;
        let static_shared = entry.kernel.program().layouts[entry.kernel.id().index()]
            .as_ref()
            .expect("kernels have layouts")
            .static_shared;
        let entry = d
            .functions
            .get_mut(&crate::ffi::handle_id(f))
            .expect("looked up above");
        match attr {
            func_attr::MAX_DYNAMIC_SHARED_SIZE_BYTES => {
                let v = u64::try_from(value).map_err(|_| Error::code(status::INVALID_VALUE))?;
                if static_shared + v > optin {
                    return Err(Error::invalid(format!(
                        "{v} bytes of dynamic shared memory and {static_shared} static exceed the device's {optin} per block"
                    )));
                }
                entry.max_dynamic_shared = Some(v);
                Ok(())
            }
            func_attr::PREFERRED_SHARED_MEMORY_CARVEOUT => {
                if !(-1..=100).contains(&value) {
                    return Err(Error::code(status::INVALID_VALUE));
                }
                entry.carveout = value;
                Ok(())
            }
            10..func_attr::END => Err(Error::unsupported(format!(
                "function attribute {attr} (thread-block clusters)"
            ))),
            _ => Err(Error::invalid(format!(
                "function attribute {attr} cannot be set"
            ))),
        }
    })
}

/// `cuFuncGetAttribute`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuFuncGetAttribute(out: *mut c_int, attr: c_int, f: Handle) -> CUresult {
    guard("cuFuncGetAttribute", || get(out, attr, f))
}

/// `cuFuncSetAttribute`: the dynamic shared memory limit and the carveout preference.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuFuncSetAttribute(f: Handle, attr: c_int, value: c_int) -> CUresult {
    guard("cuFuncSetAttribute", || set(attr, value, f))
}

/// `cuKernelGetAttribute`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuKernelGetAttribute(
    out: *mut c_int,
    attr: c_int,
    kernel: Handle,
    dev: CUdevice,
) -> CUresult {
    guard("cuKernelGetAttribute", || {
        check_device(dev)?;
        get(out, attr, kernel)
    })
}

/// `cuKernelSetAttribute`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuKernelSetAttribute(
    attr: c_int,
    value: c_int,
    kernel: Handle,
    dev: CUdevice,
) -> CUresult {
    guard("cuKernelSetAttribute", || {
        check_device(dev)?;
        set(attr, value, kernel)
    })
}

fn cache_config(f: Handle, config: c_int) -> Result {
    if !(0..=3).contains(&config) {
        return Err(Error::code(status::INVALID_VALUE));
    }
    with(|d| {
        function_entry(d, f)?;
        d.functions
            .get_mut(&crate::ffi::handle_id(f))
            .expect("looked up above")
            .cache_config = config;
        Ok(())
    })
}

/// `cuFuncSetCacheConfig`: a preference, remembered (the presets fix the L1/shared split).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuFuncSetCacheConfig(f: Handle, config: c_int) -> CUresult {
    guard("cuFuncSetCacheConfig", || cache_config(f, config))
}

/// `cuKernelSetCacheConfig`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuKernelSetCacheConfig(
    kernel: Handle,
    config: c_int,
    dev: CUdevice,
) -> CUresult {
    guard("cuKernelSetCacheConfig", || {
        check_device(dev)?;
        cache_config(kernel, config)
    })
}

/// `cuFuncSetSharedMemConfig`: accepted; the presets fix the bank width.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuFuncSetSharedMemConfig(f: Handle, _config: c_int) -> CUresult {
    guard("cuFuncSetSharedMemConfig", || {
        with(|d| function_entry(d, f).map(|_| ()))
    })
}

fn param_info(f: Handle, index: usize, offset: *mut usize, size: *mut usize) -> Result {
    with(|d| {
        let entry = function_entry(d, f)?;
        let params = &entry.kernel.function().params;
        let layout = entry.kernel.program().layouts[entry.kernel.id().index()]
            .as_ref()
            .expect("kernels have layouts");
        let p = params.get(index).ok_or_else(|| {
            Error::invalid(format!(
                "parameter {index} of a kernel with {}",
                params.len()
            ))
        })?;
        crate::ffi::write_opt(offset, layout.param_offsets[index] as usize)?;
        crate::ffi::write_opt(size, p.size_bytes() as usize)
    })
}

/// `cuFuncGetParamInfo`: a parameter's offset and size, from the PTX signature.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuFuncGetParamInfo(
    f: Handle,
    index: usize,
    offset: *mut usize,
    size: *mut usize,
) -> CUresult {
    guard("cuFuncGetParamInfo", || param_info(f, index, offset, size))
}

/// `cuKernelGetParamInfo`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuKernelGetParamInfo(
    kernel: Handle,
    index: usize,
    offset: *mut usize,
    size: *mut usize,
) -> CUresult {
    guard("cuKernelGetParamInfo", || {
        param_info(kernel, index, offset, size)
    })
}

/// CTAs of `f` with `threads` threads and `dynamic` bytes of dynamic shared memory that fit on
/// one SM (0 when none does).
fn blocks_per_sm(d: &Driver, f: &FunctionEntry, threads: u32, dynamic: u64) -> u32 {
    let program = f.kernel.program();
    let layout = program.layouts[f.kernel.id().index()]
        .as_ref()
        .expect("kernels have layouts");
    // More shared memory than an SM has fits nowhere; checked here, since the occupancy rule
    // rounds the demand up and a caller's size near 2^64 would overflow there.
    let shared_bytes = layout.dynamic_offset.saturating_add(dynamic);
    if shared_bytes > u64::from(d.settings.gpu.sm.shared_memory) {
        return 0;
    }
    let demand = timing::occupancy::CtaDemand {
        threads,
        regs_per_thread: program.kernel_registers(f.kernel.id()),
        shared_bytes,
    };
    timing::occupancy::occupancy(&d.settings.gpu, demand).map_or(0, |o| o.ctas_per_sm)
}

fn max_active(out: *mut c_int, f: Handle, block: c_int, dynamic: usize) -> Result {
    with(|d| {
        let entry = function_entry(d, f)?;
        let threads = u32::try_from(block)
            .ok()
            .filter(|&t| t > 0)
            .ok_or_else(|| Error::code(status::INVALID_VALUE))?;
        if u64::from(threads) > max_threads(d, entry) {
            return write(out, 0);
        }
        write(
            out,
            blocks_per_sm(d, entry, threads, dynamic as u64) as c_int,
        )
    })
}

/// `cuOccupancyMaxActiveBlocksPerMultiprocessor`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuOccupancyMaxActiveBlocksPerMultiprocessor(
    out: *mut c_int,
    f: Handle,
    block: c_int,
    dynamic: usize,
) -> CUresult {
    guard("cuOccupancyMaxActiveBlocksPerMultiprocessor", || {
        max_active(out, f, block, dynamic)
    })
}

/// `cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags`: the flags change nothing here.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    out: *mut c_int,
    f: Handle,
    block: c_int,
    dynamic: usize,
    _flags: c_uint,
) -> CUresult {
    guard(
        "cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
        || max_active(out, f, block, dynamic),
    )
}

/// `CUoccupancyB2DSize`: dynamic shared memory as a function of the block size.
type BlockToShared = unsafe extern "C" fn(c_int) -> usize;

fn potential(
    min_grid: *mut c_int,
    block_out: *mut c_int,
    f: Handle,
    to_shared: Option<BlockToShared>,
    dynamic: usize,
    limit: c_int,
) -> Result {
    let most = with(|d| {
        let entry = function_entry(d, f)?;
        let most = max_threads(d, entry);
        Ok(if limit > 0 {
            most.min(limit as u64)
        } else {
            most
        })
    })?;
    // The caller's function runs outside the driver's lock (it may call the driver).
    let candidates: Vec<(u32, usize)> = (1..=most / 32)
        .rev()
        .map(|warps| {
            let block = (warps * 32) as u32;
            let shared = match to_shared {
                // SAFETY: the caller hands a function of this type for this call.
                Some(cb) => unsafe { cb(block as c_int) },
                None => dynamic,
            };
            (block, shared)
        })
        .collect();
    let (best_block, best_grid) = with(|d| {
        let entry = function_entry(d, f)?;
        let (mut best_block, mut best_threads, mut best_ctas) = (0u32, 0u64, 0u32);
        for &(block, shared) in &candidates {
            let ctas = blocks_per_sm(d, entry, block, shared as u64);
            let threads = u64::from(ctas) * u64::from(block);
            if threads > best_threads {
                (best_block, best_threads, best_ctas) = (block, threads, ctas);
            }
        }
        Ok((best_block, best_ctas * d.settings.gpu.gpu.sms))
    })?;
    write(min_grid, best_grid as c_int)?;
    write(block_out, best_block as c_int)
}

/// `cuOccupancyMaxPotentialBlockSize`: the block size (a multiple of 32) with the most
/// resident threads per SM, the largest of equals, and the grid that fills the device.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuOccupancyMaxPotentialBlockSize(
    min_grid: *mut c_int,
    block: *mut c_int,
    f: Handle,
    to_shared: Option<BlockToShared>,
    dynamic: usize,
    limit: c_int,
) -> CUresult {
    guard("cuOccupancyMaxPotentialBlockSize", || {
        potential(min_grid, block, f, to_shared, dynamic, limit)
    })
}

/// `cuOccupancyMaxPotentialBlockSizeWithFlags`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuOccupancyMaxPotentialBlockSizeWithFlags(
    min_grid: *mut c_int,
    block: *mut c_int,
    f: Handle,
    to_shared: Option<BlockToShared>,
    dynamic: usize,
    limit: c_int,
    _flags: c_uint,
) -> CUresult {
    guard("cuOccupancyMaxPotentialBlockSizeWithFlags", || {
        potential(min_grid, block, f, to_shared, dynamic, limit)
    })
}

/// `cuOccupancyAvailableDynamicSMemPerBlock`: what `blocks` blocks of `threads` leave each
/// of their share of the SM's shared memory.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuOccupancyAvailableDynamicSMemPerBlock(
    out: *mut usize,
    f: Handle,
    blocks: c_int,
    _threads: c_int,
) -> CUresult {
    guard("cuOccupancyAvailableDynamicSMemPerBlock", || {
        with(|d| {
            let entry = function_entry(d, f)?;
            let blocks = u64::try_from(blocks)
                .ok()
                .filter(|&b| b > 0)
                .ok_or_else(|| Error::code(status::INVALID_VALUE))?;
            let layout = entry.kernel.program().layouts[entry.kernel.id().index()]
                .as_ref()
                .expect("kernels have layouts");
            let per_block = u64::from(d.settings.gpu.sm.shared_memory) / blocks;
            let optin = d.device.config().max_shared_per_block;
            let v = per_block.min(optin).saturating_sub(layout.static_shared);
            write(out, v as usize)
        })
    })
}
