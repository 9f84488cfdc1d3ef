//! Kernel launches (`cuLaunchKernel`, `cuLaunchKernelEx`): the arguments read at the sizes
//! of the kernel's PTX signature, from `kernelParams` (one pointer per parameter) or from the
//! `extra` buffer (`CU_LAUNCH_PARAM_BUFFER_POINTER`/`_SIZE`, laid out at the parameters'
//! offsets), then one launch on the device, run to completion before the call returns (every
//! stream executes in order, at submission).
//!
//! Refused before anything runs: `kernelParams` and `extra` both given
//! (`CUDA_ERROR_INVALID_VALUE`), and a module's function launched while another context than
//! the module's is current (`CUDA_ERROR_INVALID_HANDLE`).
//!
//! A kernel fault returns its `CUresult` (`CUDA_ERROR_ILLEGAL_ADDRESS`, ...) with warpsim's
//! report on stderr; unlike on hardware the context stays usable, so later calls succeed.

use crate::error::{Error, Result, guard};
use crate::ffi::{self, read};
use crate::module::function_entry;
use crate::state::with;
use crate::types::{
    CUlaunchAttribute, CUlaunchConfig, CUresult, Handle, launch_attr, launch_param, status,
};
use runtime::Arg;
use std::ffi::{c_uint, c_void};

/// What a launch asks for.
pub struct Launch {
    pub f: Handle,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub shared: u32,
    pub stream: Handle,
    pub params: *mut *mut c_void,
    pub extra: *mut *mut c_void,
}

/// Default shared memory a block may use without opting in (CUDA's 48 KiB).
const DEFAULT_SHARED: u64 = 48 * 1024;

/// The kernel's arguments, each as the bytes of its parameter.
fn arguments(
    kernel: &runtime::Kernel,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> Result<Vec<Arg>> {
    let decl = &kernel.function().params;
    let layout = kernel.program().layouts[kernel.id().index()]
        .as_ref()
        .expect("kernels have layouts");
    if !params.is_null() {
        let ptrs = ffi::array(params.cast_const(), decl.len())?;
        return decl
            .iter()
            .zip(ptrs)
            .enumerate()
            .map(|(i, (p, &ptr))| {
                let size = p.size_bytes() as usize;
                if ptr.is_null() {
                    return Err(Error::invalid(format!(
                        "kernelParams[{i}] of `{}` is NULL",
                        kernel.name()
                    )));
                }
                Ok(Arg::Bytes(
                    ffi::host_bytes(ptr.cast_const().cast(), size)?.to_vec(),
                ))
            })
            .collect();
    }
    if !extra.is_null() {
        let (mut buffer, mut size) = (None, None);
        for i in (0..).step_by(2) {
            let key = read(extra.wrapping_add(i).cast_const())? as usize;
            if key == launch_param::END {
                break;
            }
            let value = read(extra.wrapping_add(i + 1).cast_const())?;
            match key {
                launch_param::BUFFER_POINTER => buffer = Some(value),
                launch_param::BUFFER_SIZE => size = Some(read(value.cast_const().cast::<usize>())?),
                other => {
                    return Err(Error::invalid(format!(
                        "unknown key {other:#x} in `extra` (CU_LAUNCH_PARAM_BUFFER_POINTER, _BUFFER_SIZE and _END are known)"
                    )));
                }
            }
        }
        let (Some(buffer), Some(size)) = (buffer, size) else {
            return Err(Error::invalid(
                "`extra` needs both CU_LAUNCH_PARAM_BUFFER_POINTER and CU_LAUNCH_PARAM_BUFFER_SIZE",
            ));
        };
        if (size as u64) < layout.param_size {
            return Err(Error::invalid(format!(
                "the `extra` buffer holds {size} bytes; the parameters of `{}` take {}",
                kernel.name(),
                layout.param_size
            )));
        }
        let bytes = ffi::host_bytes(buffer.cast_const().cast(), size)?;
        return Ok(decl
            .iter()
            .zip(&layout.param_offsets)
            .map(|(p, &off)| {
                let off = off as usize;
                Arg::Bytes(bytes[off..off + p.size_bytes() as usize].to_vec())
            })
            .collect());
    }
    if decl.is_empty() {
        return Ok(Vec::new());
    }
    Err(Error::invalid(format!(
        "`{}` takes {} parameter(s) but kernelParams and extra are both NULL",
        kernel.name(),
        decl.len()
    )))
}

/// Runs a launch.
pub fn launch(l: &Launch) -> Result {
    // CUDA's documentation: "CUDA_ERROR_INVALID_VALUE will be returned if kernel parameters
    // are specified with both kernelParams and extra".
    if !l.params.is_null() && !l.extra.is_null() {
        return Err(Error::invalid(
            "kernelParams and extra are both given; pass the arguments one way, the other NULL",
        ));
    }
    let (device, kernel, max_dynamic) = with(|d| {
        let current = d.current()?;
        crate::stream::check_stream(d, l.stream)?;
        let f = function_entry(d, l.f)?;
        // A module's function runs in the context that loaded the module, as with CUDA (a
        // library's kernel belongs to no context and runs in the current one).
        let owner = d.modules.get(&f.module).and_then(|m| m.ctx);
        if let Some(owner) = owner.filter(|&o| o != current) {
            return Err(Error::new(
                status::INVALID_HANDLE,
                format!(
                    "`{}` belongs to context {owner:#x}, not to the current context {current:#x}",
                    f.kernel.name()
                ),
            ));
        }
        Ok((d.device.clone(), f.kernel.clone(), f.max_dynamic_shared))
    })?;
    let layout = kernel.program().layouts[kernel.id().index()]
        .as_ref()
        .expect("kernels have layouts");
    let limit = match max_dynamic {
        Some(m) => layout.static_shared + m,
        None => DEFAULT_SHARED.min(device.config().max_shared_per_block),
    };
    let shared = layout.dynamic_offset + u64::from(l.shared);
    if shared > limit {
        return Err(Error::new(
            status::INVALID_VALUE,
            format!(
                "`{}` asks for {} bytes of shared memory ({} static, {} dynamic); the limit is {limit} (raise it with CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, up to {})",
                kernel.name(),
                shared,
                layout.static_shared,
                l.shared,
                device.config().max_shared_per_block
            ),
        ));
    }
    let args = arguments(&kernel, l.params, l.extra)?;
    let outcome = device.launch(&kernel, l.grid, l.block, u64::from(l.shared), &args);
    let timing = device.take_timing();
    let stats = outcome?;
    with(|d| {
        crate::stats::record(d, &kernel, l.grid, l.block, l.shared, &stats, timing);
        Ok(())
    })
}

/// `cuLaunchKernel`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLaunchKernel(
    f: Handle,
    grid_x: c_uint,
    grid_y: c_uint,
    grid_z: c_uint,
    block_x: c_uint,
    block_y: c_uint,
    block_z: c_uint,
    shared: c_uint,
    stream: Handle,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> CUresult {
    guard("cuLaunchKernel", || {
        launch(&Launch {
            f,
            grid: [grid_x, grid_y, grid_z],
            block: [block_x, block_y, block_z],
            shared,
            stream,
            params,
            extra,
        })
    })
}

/// `cuLaunchKernelEx`: attributes that change nothing in warpsim (priorities, access policy
/// windows, synchronisation policies, ...) are accepted; cooperative launches and clusters
/// larger than one block are refused.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLaunchKernelEx(
    config: *const CUlaunchConfig,
    f: Handle,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> CUresult {
    guard("cuLaunchKernelEx", || {
        if config.is_null() {
            return Err(Error::code(status::INVALID_VALUE));
        }
        // SAFETY: non-NULL, and the API contract makes it a valid `CUlaunchConfig`.
        let c = unsafe { &*config };
        let attrs = ffi::array(c.attrs.cast_const(), c.num_attrs as usize)?;
        for a in attrs {
            check_attribute(a)?;
        }
        launch(&Launch {
            f,
            grid: [c.grid_dim_x, c.grid_dim_y, c.grid_dim_z],
            block: [c.block_dim_x, c.block_dim_y, c.block_dim_z],
            shared: c.shared_mem_bytes,
            stream: c.h_stream,
            params,
            extra,
        })
    })
}

fn check_attribute(a: &CUlaunchAttribute) -> Result {
    let word =
        |i: usize| u32::from_le_bytes(a.value[i * 4..i * 4 + 4].try_into().expect("4 bytes"));
    match a.id {
        launch_attr::COOPERATIVE if word(0) != 0 => Err(Error::unsupported(
            "cooperative launches (grid-wide synchronisation is not simulated)",
        )),
        launch_attr::CLUSTER_DIMENSION
            if (word(0), word(1), word(2)) != (1, 1, 1) && word(0) != 0 =>
        {
            Err(Error::unsupported("thread-block clusters"))
        }
        launch_attr::IGNORE | launch_attr::PRIORITY => Ok(()),
        _ => Ok(()),
    }
}

/// `cuLaunchCooperativeKernel`: refused, grid-wide synchronisation is not simulated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLaunchCooperativeKernel(
    _f: Handle,
    _gx: c_uint,
    _gy: c_uint,
    _gz: c_uint,
    _bx: c_uint,
    _by: c_uint,
    _bz: c_uint,
    _shared: c_uint,
    _stream: Handle,
    _params: *mut *mut c_void,
) -> CUresult {
    guard("cuLaunchCooperativeKernel", || {
        Err(Error::unsupported(
            "cooperative launches (grid-wide synchronisation is not simulated)",
        ))
    })
}
