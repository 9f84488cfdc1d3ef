//! Contexts: the device's primary context (retained and released by count) and explicit ones,
//! each thread's stack of current contexts. Every context shares the one simulated device and
//! its memory; what a context owns (allocations, modules, streams, events) goes with it when it
//! is destroyed or reset.

use crate::error::{Error, Result, guard};
use crate::ffi::{handle, handle_id, read, write, write_opt};
use crate::state::{self, Context, Driver, with};
use crate::types::{CUdevice, CUresult, Handle, status};
use std::ffi::{c_int, c_uint, c_void};

/// Checks a device ordinal: warpsim has exactly one device, 0.
pub fn check_device(dev: CUdevice) -> Result {
    if dev == 0 {
        Ok(())
    } else {
        Err(Error::new(
            status::INVALID_DEVICE,
            format!("device {dev} does not exist: warpsim simulates one device, 0"),
        ))
    }
}

/// A live context handle.
fn live(d: &Driver, ctx: Handle) -> Result<u64> {
    let id = handle_id(ctx);
    if d.contexts.contains_key(&id) {
        Ok(id)
    } else {
        Err(Error::code(status::INVALID_CONTEXT))
    }
}

/// `CU_CTX_FLAGS_MASK`: every context flag CUDA defines (scheduling, `MAP_HOST`,
/// `LMEM_RESIZE_TO_MAX`, the two coredump flags, `SYNC_MEMOPS`).
const FLAGS_MASK: c_uint = 0xff;

/// `CU_CTX_SCHED_MASK`: the scheduling policy, of which at most one may be given.
const SCHED_MASK: c_uint = 0x07;

/// Checks context flags: no bit CUDA does not define, at most one scheduling policy
/// (`CUDA_ERROR_INVALID_VALUE` otherwise, as CUDA's documentation gives).
pub fn check_flags(flags: c_uint) -> Result {
    if flags & !FLAGS_MASK != 0 {
        return Err(Error::invalid(format!(
            "context flags {flags:#x} set bits no CU_CTX_* flag defines ({:#x})",
            flags & !FLAGS_MASK
        )));
    }
    if (flags & SCHED_MASK).count_ones() > 1 {
        return Err(Error::invalid(format!(
            "context flags {flags:#x} name more than one scheduling policy (CU_CTX_SCHED_*)"
        )));
    }
    Ok(())
}

fn create(pctx: *mut Handle, flags: c_uint, dev: CUdevice) -> Result {
    with(|d| {
        check_device(dev)?;
        if pctx.is_null() {
            return Err(Error::code(status::INVALID_VALUE));
        }
        check_flags(flags)?;
        let id = d.new_id();
        d.contexts.insert(id, Context::new(flags, false));
        state::push_context(id);
        write(pctx, handle(id))
    })
}

/// `cuCtxCreate_v2`: a new context, made current on the calling thread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxCreate_v2(
    pctx: *mut Handle,
    flags: c_uint,
    dev: CUdevice,
) -> CUresult {
    guard("cuCtxCreate_v2", || create(pctx, flags, dev))
}

/// `cuCtxCreate_v3`: as `_v2`; execution-affinity parameters are refused (no SM partitioning).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxCreate_v3(
    pctx: *mut Handle,
    params: *mut c_void,
    num_params: c_int,
    flags: c_uint,
    dev: CUdevice,
) -> CUresult {
    guard("cuCtxCreate_v3", || {
        if num_params > 0 && !params.is_null() {
            return Err(Error::unsupported(
                "execution-affinity parameters (warpsim does not partition its SMs)",
            ));
        }
        create(pctx, flags, dev)
    })
}

/// `cuCtxCreate_v4`: as `_v2`; `CUctxCreateParams` (affinity, CIG) are refused when given.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxCreate_v4(
    pctx: *mut Handle,
    params: *mut c_void,
    flags: c_uint,
    dev: CUdevice,
) -> CUresult {
    guard("cuCtxCreate_v4", || {
        if !params.is_null() {
            // CUctxCreateParams: { CUexecAffinityParam *execAffinityParams; int
            // numExecAffinityParams; CUctxCigParam *cigParams; }
            let affinity = read(params.cast::<*mut c_void>())?;
            let cig = read(params.cast::<*mut c_void>().wrapping_add(2))?;
            if !affinity.is_null() || !cig.is_null() {
                return Err(Error::unsupported(
                    "context creation parameters (execution affinity, CIG)",
                ));
            }
        }
        create(pctx, flags, dev)
    })
}

/// `cuCtxDestroy_v2`: frees what the context owns; it is popped if it is the calling thread's
/// current context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxDestroy_v2(ctx: Handle) -> CUresult {
    guard("cuCtxDestroy_v2", || {
        with(|d| {
            let id = live(d, ctx)?;
            if d.contexts[&id].primary {
                return Err(Error::invalid(
                    "the primary context is released with cuDevicePrimaryCtxRelease, not destroyed",
                ));
            }
            d.release_context_resources(id);
            d.contexts.remove(&id);
            if state::current_context() == Some(id) {
                state::pop_context();
            }
            Ok(())
        })
    })
}

/// `cuCtxPushCurrent_v2`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxPushCurrent_v2(ctx: Handle) -> CUresult {
    guard("cuCtxPushCurrent_v2", || {
        with(|d| {
            let id = live(d, ctx)?;
            state::push_context(id);
            Ok(())
        })
    })
}

/// `cuCtxPopCurrent_v2`: the popped context goes to `pctx` when it is not NULL.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxPopCurrent_v2(pctx: *mut Handle) -> CUresult {
    guard("cuCtxPopCurrent_v2", || {
        with(|_| {
            let id = state::pop_context().ok_or_else(|| Error::code(status::INVALID_CONTEXT))?;
            write_opt(pctx, handle(id))
        })
    })
}

/// `cuCtxSetCurrent`: replaces the top of the calling thread's stack; NULL pops it.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxSetCurrent(ctx: Handle) -> CUresult {
    guard("cuCtxSetCurrent", || {
        with(|d| {
            if ctx.is_null() {
                state::set_current_context(None);
            } else {
                let id = live(d, ctx)?;
                state::set_current_context(Some(id));
            }
            Ok(())
        })
    })
}

/// `cuCtxGetCurrent`: NULL when the thread has none.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxGetCurrent(pctx: *mut Handle) -> CUresult {
    guard("cuCtxGetCurrent", || {
        with(|_| {
            write(
                pctx,
                state::current_context().map_or(std::ptr::null_mut(), handle),
            )
        })
    })
}

/// `cuCtxGetDevice`: device 0, once a context is current.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxGetDevice(dev: *mut CUdevice) -> CUresult {
    guard("cuCtxGetDevice", || {
        with(|d| {
            d.current()?;
            write(dev, 0)
        })
    })
}

/// `cuCtxSynchronize`: work runs when it is submitted, so there is nothing to wait for.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxSynchronize() -> CUresult {
    guard("cuCtxSynchronize", || with(|d| d.current().map(|_| ())))
}

/// `cuCtxGetFlags`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxGetFlags(flags: *mut c_uint) -> CUresult {
    guard("cuCtxGetFlags", || {
        with(|d| {
            let id = d.current()?;
            write(flags, d.contexts[&id].flags)
        })
    })
}

/// `cuCtxSetFlags`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxSetFlags(flags: c_uint) -> CUresult {
    guard("cuCtxSetFlags", || {
        with(|d| {
            let id = d.current()?;
            check_flags(flags)?;
            d.contexts.get_mut(&id).expect("live").flags = flags;
            Ok(())
        })
    })
}

/// `cuCtxGetId`: the handle's number, unique for the process.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxGetId(ctx: Handle, id: *mut u64) -> CUresult {
    guard("cuCtxGetId", || {
        with(|d| {
            let c = if ctx.is_null() {
                d.current()?
            } else {
                live(d, ctx)?
            };
            write(id, c)
        })
    })
}

/// `cuCtxGetApiVersion`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxGetApiVersion(ctx: Handle, version: *mut c_uint) -> CUresult {
    guard("cuCtxGetApiVersion", || {
        with(|d| {
            if !ctx.is_null() {
                live(d, ctx)?;
            } else {
                d.current()?;
            }
            write(version, crate::types::DRIVER_VERSION as c_uint)
        })
    })
}

/// `cuCtxGetLimit`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxGetLimit(value: *mut usize, limit: c_int) -> CUresult {
    guard("cuCtxGetLimit", || {
        with(|d| {
            let id = d.current()?;
            let v = d.contexts[&id]
                .limits
                .get(&limit)
                .copied()
                .ok_or_else(|| Error::code(status::UNSUPPORTED_LIMIT))?;
            write(value, v)
        })
    })
}

/// `cuCtxSetLimit`: remembered and reported back; the simulator needs none of them.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxSetLimit(limit: c_int, value: usize) -> CUresult {
    guard("cuCtxSetLimit", || {
        with(|d| {
            let id = d.current()?;
            let ctx = d.contexts.get_mut(&id).expect("live");
            match ctx.limits.get_mut(&limit) {
                Some(v) => {
                    *v = value;
                    Ok(())
                }
                None => Err(Error::code(status::UNSUPPORTED_LIMIT)),
            }
        })
    })
}

/// `cuCtxGetCacheConfig`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxGetCacheConfig(config: *mut c_int) -> CUresult {
    guard("cuCtxGetCacheConfig", || {
        with(|d| {
            let id = d.current()?;
            write(config, d.contexts[&id].cache_config)
        })
    })
}

/// `cuCtxSetCacheConfig`: a preference, remembered (the timing presets fix the L1/shared split).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxSetCacheConfig(config: c_int) -> CUresult {
    guard("cuCtxSetCacheConfig", || {
        with(|d| {
            if !(0..=3).contains(&config) {
                return Err(Error::code(status::INVALID_VALUE));
            }
            let id = d.current()?;
            d.contexts.get_mut(&id).expect("live").cache_config = config;
            Ok(())
        })
    })
}

/// `cuCtxGetSharedMemConfig`: four-byte banks.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxGetSharedMemConfig(config: *mut c_int) -> CUresult {
    guard("cuCtxGetSharedMemConfig", || {
        with(|d| {
            d.current()?;
            write(config, 1)
        })
    })
}

/// `cuCtxSetSharedMemConfig`: accepted; the presets fix the bank width.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxSetSharedMemConfig(_config: c_int) -> CUresult {
    guard("cuCtxSetSharedMemConfig", || {
        with(|d| d.current().map(|_| ()))
    })
}

/// `cuCtxGetStreamPriorityRange`: one priority, 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxGetStreamPriorityRange(
    least: *mut c_int,
    greatest: *mut c_int,
) -> CUresult {
    guard("cuCtxGetStreamPriorityRange", || {
        with(|d| {
            d.current()?;
            write_opt(least, 0)?;
            write_opt(greatest, 0)
        })
    })
}

/// `cuDevicePrimaryCtxRetain`: the primary context, activated on the first retain.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDevicePrimaryCtxRetain(pctx: *mut Handle, dev: CUdevice) -> CUresult {
    guard("cuDevicePrimaryCtxRetain", || {
        with(|d| {
            check_device(dev)?;
            if pctx.is_null() {
                return Err(Error::code(status::INVALID_VALUE));
            }
            if d.primary_refs == 0 {
                d.contexts
                    .insert(d.primary, Context::new(d.primary_flags, true));
            }
            d.primary_refs += 1;
            write(pctx, handle(d.primary))
        })
    })
}

fn primary_release(dev: CUdevice) -> Result {
    with(|d| {
        check_device(dev)?;
        if d.primary_refs == 0 {
            return Err(Error::new(
                status::INVALID_CONTEXT,
                "the primary context is not retained",
            ));
        }
        d.primary_refs -= 1;
        if d.primary_refs == 0 {
            let id = d.primary;
            d.release_context_resources(id);
            d.contexts.remove(&id);
        }
        Ok(())
    })
}

/// `cuDevicePrimaryCtxRelease_v2`: the last release frees what the primary context owns.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDevicePrimaryCtxRelease_v2(dev: CUdevice) -> CUresult {
    guard("cuDevicePrimaryCtxRelease_v2", || primary_release(dev))
}

fn primary_reset(dev: CUdevice) -> Result {
    with(|d| {
        check_device(dev)?;
        let id = d.primary;
        d.release_context_resources(id);
        if let Some(ctx) = d.contexts.get_mut(&id) {
            *ctx = Context::new(d.primary_flags, true);
        }
        Ok(())
    })
}

/// `cuDevicePrimaryCtxReset_v2`: frees everything the primary context owns; it stays
/// retained.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDevicePrimaryCtxReset_v2(dev: CUdevice) -> CUresult {
    guard("cuDevicePrimaryCtxReset_v2", || primary_reset(dev))
}

/// `cuDevicePrimaryCtxGetState`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDevicePrimaryCtxGetState(
    dev: CUdevice,
    flags: *mut c_uint,
    active: *mut c_int,
) -> CUresult {
    guard("cuDevicePrimaryCtxGetState", || {
        with(|d| {
            check_device(dev)?;
            write(flags, d.primary_flags)?;
            write(active, c_int::from(d.primary_refs > 0))
        })
    })
}

/// `cuDevicePrimaryCtxSetFlags_v2`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDevicePrimaryCtxSetFlags_v2(dev: CUdevice, flags: c_uint) -> CUresult {
    guard("cuDevicePrimaryCtxSetFlags_v2", || {
        with(|d| {
            check_device(dev)?;
            check_flags(flags)?;
            d.primary_flags = flags;
            let id = d.primary;
            if let Some(ctx) = d.contexts.get_mut(&id) {
                ctx.flags = flags;
            }
            Ok(())
        })
    })
}
