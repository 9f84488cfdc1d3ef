//! Memory: device allocations in the simulated device's memory, copies and sets (the
//! asynchronous forms complete before they return: streams run in order, at submission),
//! "pinned" host memory as plain host memory, and pointer queries.
//!
//! Device and host addresses never overlap (device memory is one reserved range of the
//! process's address space), so `cuMemcpy` tells them apart as unified addressing promises.
//! Kernels cannot reach host memory: mapped host memory (`cuMemHostGetDevicePointer`,
//! `CU_MEMHOSTALLOC_DEVICEMAP`) is refused, and the device reports
//! `CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY` = 0.

use crate::error::{Error, Result, guard};
use crate::ffi::{self, host_bytes, host_bytes_mut, write, write_opt};
use crate::state::{Allocation, Driver, HostRange, with};
use crate::types::{CUdeviceptr, CUresult, Handle, ptr_attr, status};
use emulator::GlobalMemory;
use std::alloc::Layout;
use std::ffi::{c_int, c_uint, c_void};
use std::sync::Arc;

/// The device memory of the driver, once a context is current.
fn device_memory() -> Result<Arc<GlobalMemory>> {
    with(|d| {
        d.current()?;
        Ok(d.device.memory().clone())
    })
}

/// Checks a stream handle of an asynchronous call (work runs at once, in order).
fn check_stream(stream: Handle) -> Result {
    with(|d| crate::stream::check_stream(d, stream))
}

fn fault(e: emulator::memory::MemFault) -> Error {
    Error::invalid(e.to_string())
}

/// Whether `addr` lies in the device's address range (allocated or not).
pub fn is_device_address(mem: &GlobalMemory, addr: u64) -> bool {
    let base = mem.map().global_base;
    addr >= base && addr - base < mem.span()
}

fn mem_alloc(dptr: *mut CUdeviceptr, size: usize) -> Result {
    with(|d| {
        let ctx = d.current()?;
        if dptr.is_null() || size == 0 {
            return Err(Error::code(status::INVALID_VALUE));
        }
        let ptr = d.device.memory().alloc(size as u64).map_err(|e| match e {
            emulator::memory::AllocError::OutOfMemory { .. } => {
                Error::new(status::OUT_OF_MEMORY, e.to_string())
            }
            other => Error::invalid(other.to_string()),
        })?;
        d.allocations.insert(
            ptr,
            Allocation {
                size: size as u64,
                ctx,
            },
        );
        write(dptr, ptr)
    })
}

/// `cuMemAlloc_v2`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemAlloc_v2(dptr: *mut CUdeviceptr, size: usize) -> CUresult {
    guard("cuMemAlloc_v2", || mem_alloc(dptr, size))
}

/// `cuMemAllocPitch_v2`: rows padded to 512 bytes (`CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT`
/// is smaller, so such a pitch suits textures too).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemAllocPitch_v2(
    dptr: *mut CUdeviceptr,
    pitch: *mut usize,
    width: usize,
    height: usize,
    element_size: c_uint,
) -> CUresult {
    guard("cuMemAllocPitch_v2", || {
        if ![4, 8, 16].contains(&element_size) || width == 0 || height == 0 {
            return Err(Error::code(status::INVALID_VALUE));
        }
        let too_large = || {
            Error::invalid(format!(
                "{height} rows of {width} bytes, padded to 512, overflow the address space"
            ))
        };
        let p = width.checked_next_multiple_of(512).ok_or_else(too_large)?;
        let bytes = p.checked_mul(height).ok_or_else(too_large)?;
        mem_alloc(dptr, bytes)?;
        write(pitch, p)
    })
}

/// `cuMemFree_v2`: 0 is a no-op.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemFree_v2(dptr: CUdeviceptr) -> CUresult {
    guard("cuMemFree_v2", || {
        with(|d| {
            d.current()?;
            if dptr == 0 {
                return Ok(());
            }
            if d.allocations.remove(&dptr).is_none() {
                return Err(Error::invalid(format!(
                    "{dptr:#x} is not the start of a live allocation"
                )));
            }
            d.device
                .memory()
                .free(dptr)
                .map_err(|e| Error::invalid(e.to_string()))
        })
    })
}

/// `cuMemGetInfo_v2`: free and total device memory.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemGetInfo_v2(free: *mut usize, total: *mut usize) -> CUresult {
    guard("cuMemGetInfo_v2", || {
        with(|d| {
            d.current()?;
            let mem = d.device.memory();
            write(
                free,
                (mem.capacity() - mem.used().min(mem.capacity())) as usize,
            )?;
            write(total, mem.capacity() as usize)
        })
    })
}

/// `cuMemGetAddressRange_v2`: the allocation holding `dptr`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemGetAddressRange_v2(
    base: *mut CUdeviceptr,
    size: *mut usize,
    dptr: CUdeviceptr,
) -> CUresult {
    guard("cuMemGetAddressRange_v2", || {
        with(|d| {
            d.current()?;
            let (start, len) = d
                .device
                .memory()
                .allocation_of(dptr, 1)
                .ok_or_else(|| Error::code(status::NOT_FOUND))?;
            write_opt(base, start)?;
            write_opt(size, len as usize)
        })
    })
}

// Every copy checks its device range (and every size) before it touches a byte or allocates
// anything: a length far beyond the allocations is `CUDA_ERROR_INVALID_VALUE`, as CUDA's
// documentation gives for out-of-range copies, never an allocation of that many bytes (which
// would abort the host process) nor a partial copy.

fn htod(dst: CUdeviceptr, src: *const c_void, n: usize) -> Result {
    let mem = device_memory()?;
    if n == 0 {
        return Ok(());
    }
    mem.check(dst, n as u64).map_err(fault)?;
    let data = host_bytes(src.cast(), n)?;
    mem.write(dst, data).map_err(fault)
}

fn dtoh(dst: *mut c_void, src: CUdeviceptr, n: usize) -> Result {
    let mem = device_memory()?;
    if n == 0 {
        return Ok(());
    }
    mem.check(src, n as u64).map_err(fault)?;
    let out = host_bytes_mut(dst.cast(), n)?;
    mem.read(src, out).map_err(fault)
}

fn dtod(dst: CUdeviceptr, src: CUdeviceptr, n: usize) -> Result {
    let mem = device_memory()?;
    if n == 0 {
        return Ok(());
    }
    // Within device memory, without a buffer: both ranges checked first.
    mem.copy(dst, src, n as u64).map_err(fault)
}

/// `cuMemcpy` over unified addresses: each side is device memory or host memory by address.
fn copy_unified(dst: u64, src: u64, n: usize) -> Result {
    let mem = device_memory()?;
    match (is_device_address(&mem, dst), is_device_address(&mem, src)) {
        (true, true) => dtod(dst, src, n),
        (true, false) => htod(dst, src as usize as *const c_void, n),
        (false, true) => dtoh(dst as usize as *mut c_void, src, n),
        (false, false) => {
            // Host to host, in place: the ranges may overlap and no buffer is needed.
            let from = host_bytes(src as usize as *const u8, n)?.as_ptr();
            let to = host_bytes_mut(dst as usize as *mut u8, n)?.as_mut_ptr();
            // SAFETY: both are valid for `n` bytes (checked non-NULL and sized; the API
            // contract makes them host memory); `copy` allows them to overlap.
            unsafe { std::ptr::copy(from, to, n) };
            Ok(())
        }
    }
}

/// `cuMemcpyHtoD_v2`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemcpyHtoD_v2(
    dst: CUdeviceptr,
    src: *const c_void,
    n: usize,
) -> CUresult {
    guard("cuMemcpyHtoD_v2", || htod(dst, src, n))
}

/// `cuMemcpyDtoH_v2`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemcpyDtoH_v2(dst: *mut c_void, src: CUdeviceptr, n: usize) -> CUresult {
    guard("cuMemcpyDtoH_v2", || dtoh(dst, src, n))
}

/// `cuMemcpyDtoD_v2`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemcpyDtoD_v2(dst: CUdeviceptr, src: CUdeviceptr, n: usize) -> CUresult {
    guard("cuMemcpyDtoD_v2", || dtod(dst, src, n))
}

/// `cuMemcpy`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemcpy(dst: CUdeviceptr, src: CUdeviceptr, n: usize) -> CUresult {
    guard("cuMemcpy", || copy_unified(dst, src, n))
}

/// `cuMemcpyHtoDAsync_v2`: done when it returns.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemcpyHtoDAsync_v2(
    dst: CUdeviceptr,
    src: *const c_void,
    n: usize,
    stream: Handle,
) -> CUresult {
    guard("cuMemcpyHtoDAsync_v2", || {
        check_stream(stream)?;
        htod(dst, src, n)
    })
}

/// `cuMemcpyDtoHAsync_v2`: done when it returns.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemcpyDtoHAsync_v2(
    dst: *mut c_void,
    src: CUdeviceptr,
    n: usize,
    stream: Handle,
) -> CUresult {
    guard("cuMemcpyDtoHAsync_v2", || {
        check_stream(stream)?;
        dtoh(dst, src, n)
    })
}

/// `cuMemcpyDtoDAsync_v2`: done when it returns.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemcpyDtoDAsync_v2(
    dst: CUdeviceptr,
    src: CUdeviceptr,
    n: usize,
    stream: Handle,
) -> CUresult {
    guard("cuMemcpyDtoDAsync_v2", || {
        check_stream(stream)?;
        dtod(dst, src, n)
    })
}

/// `cuMemcpyAsync`: done when it returns.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemcpyAsync(
    dst: CUdeviceptr,
    src: CUdeviceptr,
    n: usize,
    stream: Handle,
) -> CUresult {
    guard("cuMemcpyAsync", || {
        check_stream(stream)?;
        copy_unified(dst, src, n)
    })
}

/// The largest piece of a patterned set written at once: the pattern repeated, so that a set
/// of any size needs no buffer of its size.
const SET_CHUNK: usize = 64 * 1024;

/// Sets `height` rows of `width` elements of `pattern`, rows `pitch` bytes apart. The whole
/// pitched range is checked (one allocation, sizes without overflow, rows that do not
/// overlap) before any byte is written.
fn set(dst: CUdeviceptr, pitch: usize, pattern: &[u8], width: usize, height: usize) -> Result {
    let mem = device_memory()?;
    if width == 0 || height == 0 {
        return Ok(());
    }
    if !dst.is_multiple_of(pattern.len() as u64) {
        return Err(Error::invalid(format!(
            "{dst:#x} is not aligned to the {}-byte element of the set",
            pattern.len()
        )));
    }
    let too_large = || {
        Error::invalid(format!(
            "a set of {height} row(s) of {width} {}-byte elements, {pitch} bytes apart, overflows the address space",
            pattern.len()
        ))
    };
    let row_bytes = width.checked_mul(pattern.len()).ok_or_else(too_large)?;
    if height > 1 && pitch < row_bytes {
        return Err(Error::invalid(format!(
            "a pitch of {pitch} bytes is less than a row's {row_bytes}"
        )));
    }
    // From the first row's start to the last row's end.
    let span = (height - 1)
        .checked_mul(pitch)
        .and_then(|b| b.checked_add(row_bytes))
        .ok_or_else(too_large)?;
    mem.check(dst, span as u64).map_err(fault)?;
    let chunk: Vec<u8> = if pattern.iter().all(|&b| b == pattern[0]) {
        Vec::new()
    } else {
        let elements = row_bytes.min(SET_CHUNK) / pattern.len();
        pattern.repeat(elements)
    };
    for r in 0..height {
        let at = dst + (r * pitch) as u64;
        if chunk.is_empty() {
            mem.fill(at, row_bytes as u64, pattern[0]).map_err(fault)?;
            continue;
        }
        let mut done = 0;
        while done < row_bytes {
            let n = chunk.len().min(row_bytes - done);
            mem.write(at + done as u64, &chunk[..n]).map_err(fault)?;
            done += n;
        }
    }
    Ok(())
}

macro_rules! memset {
    ($name:ident, $async_name:ident, $two_d:ident, $two_d_async:ident, $t:ty) => {
        /// `cuMemsetD*_v2`: `n` elements set to the value.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $name(dst: CUdeviceptr, value: $t, n: usize) -> CUresult {
            guard(stringify!($name), || {
                set(dst, 0, &value.to_le_bytes(), n, 1)
            })
        }

        /// `cuMemsetD*Async`: done when it returns.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $async_name(
            dst: CUdeviceptr,
            value: $t,
            n: usize,
            stream: Handle,
        ) -> CUresult {
            guard(stringify!($async_name), || {
                check_stream(stream)?;
                set(dst, 0, &value.to_le_bytes(), n, 1)
            })
        }

        /// `cuMemsetD2D*_v2`: a pitched 2-D set.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $two_d(
            dst: CUdeviceptr,
            pitch: usize,
            value: $t,
            width: usize,
            height: usize,
        ) -> CUresult {
            guard(stringify!($two_d), || {
                set(dst, pitch, &value.to_le_bytes(), width, height)
            })
        }

        /// `cuMemsetD2D*Async`: done when it returns.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $two_d_async(
            dst: CUdeviceptr,
            pitch: usize,
            value: $t,
            width: usize,
            height: usize,
            stream: Handle,
        ) -> CUresult {
            guard(stringify!($two_d_async), || {
                check_stream(stream)?;
                set(dst, pitch, &value.to_le_bytes(), width, height)
            })
        }
    };
}

memset!(
    cuMemsetD8_v2,
    cuMemsetD8Async,
    cuMemsetD2D8_v2,
    cuMemsetD2D8Async,
    u8
);
memset!(
    cuMemsetD16_v2,
    cuMemsetD16Async,
    cuMemsetD2D16_v2,
    cuMemsetD2D16Async,
    u16
);
memset!(
    cuMemsetD32_v2,
    cuMemsetD32Async,
    cuMemsetD2D32_v2,
    cuMemsetD2D32Async,
    u32
);

/// The alignment of host allocations: a page, as pinned allocations are.
const HOST_ALIGN: usize = 4096;

/// `CU_MEMHOSTALLOC_DEVICEMAP`.
const DEVICEMAP: u32 = 2;

fn host_alloc(pp: *mut *mut c_void, size: usize, flags: u32) -> Result {
    with(|d| {
        d.current()?;
        if pp.is_null() || size == 0 {
            return Err(Error::code(status::INVALID_VALUE));
        }
        if flags & DEVICEMAP != 0 {
            return Err(Error::unsupported(
                "CU_MEMHOSTALLOC_DEVICEMAP: kernels cannot reach host memory in warpsim",
            ));
        }
        let layout = Layout::from_size_align(size, HOST_ALIGN)
            .map_err(|_| Error::code(status::INVALID_VALUE))?;
        // SAFETY: the layout has a non-zero size.
        let p = unsafe { std::alloc::alloc_zeroed(layout) };
        if p.is_null() {
            return Err(Error::new(
                status::OUT_OF_MEMORY,
                format!("cannot allocate {size} bytes of host memory"),
            ));
        }
        d.host.insert(
            p as usize,
            HostRange {
                size,
                registered: false,
                flags,
            },
        );
        write(pp, p.cast())
    })
}

/// `cuMemAllocHost_v2`: page-aligned host memory.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemAllocHost_v2(pp: *mut *mut c_void, size: usize) -> CUresult {
    guard("cuMemAllocHost_v2", || host_alloc(pp, size, 0))
}

/// `cuMemHostAlloc`: page-aligned host memory (portable and write-combined are the same
/// here; device-mapped is refused).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemHostAlloc(
    pp: *mut *mut c_void,
    size: usize,
    flags: c_uint,
) -> CUresult {
    guard("cuMemHostAlloc", || host_alloc(pp, size, flags))
}

/// `cuMemFreeHost`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemFreeHost(p: *mut c_void) -> CUresult {
    guard("cuMemFreeHost", || {
        with(|d| {
            let key = p as usize;
            match d.host.get(&key) {
                Some(r) if !r.registered => {
                    let layout = Layout::from_size_align(r.size, HOST_ALIGN)
                        .expect("the layout it was allocated with");
                    d.host.remove(&key);
                    // SAFETY: `p` was allocated by `host_alloc` with this layout and is
                    // freed once (it left the table above).
                    unsafe { std::alloc::dealloc(p.cast(), layout) };
                    Ok(())
                }
                _ => Err(Error::invalid(format!(
                    "{p:?} was not allocated by cuMemAllocHost or cuMemHostAlloc"
                ))),
            }
        })
    })
}

/// `cuMemHostRegister_v2`: remembered, so that pointer queries know the range; the memory
/// stays plain host memory.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemHostRegister_v2(
    p: *mut c_void,
    size: usize,
    flags: c_uint,
) -> CUresult {
    guard("cuMemHostRegister_v2", || {
        with(|d| {
            d.current()?;
            if p.is_null() || size == 0 {
                return Err(Error::code(status::INVALID_VALUE));
            }
            if flags & DEVICEMAP != 0 {
                return Err(Error::unsupported(
                    "CU_MEMHOSTREGISTER_DEVICEMAP: kernels cannot reach host memory in warpsim",
                ));
            }
            let start = p as usize;
            let end = start.checked_add(size).ok_or_else(|| {
                Error::invalid(format!(
                    "{size} bytes at {p:?} run past the end of the address space"
                ))
            })?;
            if host_range(d, start).is_some() || d.host.range(start..end).next().is_some() {
                return Err(Error::code(status::HOST_MEMORY_ALREADY_REGISTERED));
            }
            d.host.insert(
                start,
                HostRange {
                    size,
                    registered: true,
                    flags,
                },
            );
            Ok(())
        })
    })
}

/// `cuMemHostUnregister`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemHostUnregister(p: *mut c_void) -> CUresult {
    guard("cuMemHostUnregister", || {
        with(|d| match d.host.get(&(p as usize)) {
            Some(r) if r.registered => {
                d.host.remove(&(p as usize));
                Ok(())
            }
            _ => Err(Error::code(status::HOST_MEMORY_NOT_REGISTERED)),
        })
    })
}

/// `cuMemHostGetDevicePointer_v2`: refused, kernels cannot reach host memory.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemHostGetDevicePointer_v2(
    _pdptr: *mut CUdeviceptr,
    _p: *mut c_void,
    _flags: c_uint,
) -> CUresult {
    guard("cuMemHostGetDevicePointer_v2", || {
        Err(Error::unsupported(
            "mapped host memory: kernels cannot reach host memory in warpsim (CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY is 0)",
        ))
    })
}

/// `cuMemHostGetFlags`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemHostGetFlags(flags: *mut c_uint, p: *mut c_void) -> CUresult {
    guard("cuMemHostGetFlags", || {
        with(|d| {
            let (_, r) =
                host_range(d, p as usize).ok_or_else(|| Error::code(status::INVALID_VALUE))?;
            write(flags, r.flags)
        })
    })
}

/// The host range known to the driver that holds `addr`.
fn host_range(d: &Driver, addr: usize) -> Option<(usize, &HostRange)> {
    let (&start, r) = d.host.range(..=addr).next_back()?;
    (addr < start + r.size).then_some((start, r))
}

/// What a pointer query reads into: attribute values are 4 or 8 bytes.
enum Value {
    U32(u32),
    U64(u64),
    Ptr(u64),
}

/// Attribute `attr` of pointer `ptr`, `None` when the driver does not know the pointer.
fn pointer_attribute(d: &Driver, attr: c_int, ptr: u64) -> Result<Option<Value>> {
    let mem = d.device.memory();
    let ctx = crate::state::current_context().unwrap_or(0);
    if let Some((start, size)) = mem.allocation_of(ptr, 1) {
        let owner = d.allocations.get(&start).map_or(ctx, |a| a.ctx);
        return Ok(Some(match attr {
            ptr_attr::CONTEXT => Value::Ptr(owner),
            ptr_attr::MEMORY_TYPE => Value::U32(ptr_attr::MEMORYTYPE_DEVICE),
            ptr_attr::DEVICE_POINTER => Value::Ptr(ptr),
            ptr_attr::HOST_POINTER => return Err(Error::code(status::INVALID_VALUE)),
            ptr_attr::SYNC_MEMOPS | ptr_attr::IS_LEGACY_CUDA_IPC_CAPABLE | ptr_attr::MAPPED => {
                Value::U32(1)
            }
            ptr_attr::BUFFER_ID | ptr_attr::MEMORY_BLOCK_ID => Value::U64(start),
            ptr_attr::IS_MANAGED | ptr_attr::IS_GPU_DIRECT_RDMA_CAPABLE => Value::U32(0),
            ptr_attr::DEVICE_ORDINAL => Value::U32(0),
            ptr_attr::RANGE_START_ADDR | ptr_attr::MAPPING_BASE_ADDR => Value::Ptr(start),
            ptr_attr::RANGE_SIZE | ptr_attr::MAPPING_SIZE => Value::U64(size),
            ptr_attr::ALLOWED_HANDLE_TYPES | ptr_attr::IS_HW_DECOMPRESS_CAPABLE => Value::U64(0),
            ptr_attr::ACCESS_FLAGS => Value::U32(3),
            ptr_attr::MEMPOOL_HANDLE => Value::Ptr(0),
            _ => return Err(Error::invalid(format!("pointer attribute {attr}"))),
        }));
    }
    let Some((start, r)) = host_range(d, ptr as usize) else {
        return Ok(None);
    };
    Ok(Some(match attr {
        ptr_attr::CONTEXT => Value::Ptr(ctx),
        ptr_attr::MEMORY_TYPE => Value::U32(ptr_attr::MEMORYTYPE_HOST),
        ptr_attr::HOST_POINTER => Value::Ptr(ptr),
        ptr_attr::DEVICE_POINTER => return Err(Error::code(status::INVALID_VALUE)),
        ptr_attr::DEVICE_ORDINAL | ptr_attr::IS_MANAGED | ptr_attr::MAPPED => Value::U32(0),
        ptr_attr::SYNC_MEMOPS | ptr_attr::IS_LEGACY_CUDA_IPC_CAPABLE => Value::U32(0),
        ptr_attr::BUFFER_ID | ptr_attr::MEMORY_BLOCK_ID => Value::U64(start as u64),
        ptr_attr::RANGE_START_ADDR => Value::Ptr(start as u64),
        ptr_attr::RANGE_SIZE => Value::U64(r.size as u64),
        _ => {
            return Err(Error::invalid(format!(
                "pointer attribute {attr} of host memory"
            )));
        }
    }))
}

fn store(data: *mut c_void, v: Value) -> Result {
    match v {
        Value::U32(x) => write(data.cast::<u32>(), x),
        Value::U64(x) | Value::Ptr(x) => write(data.cast::<u64>(), x),
    }
}

/// `cuPointerGetAttribute`: device allocations and host memory the driver knows of; any
/// other pointer is `CUDA_ERROR_INVALID_VALUE`, as for CUDA.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuPointerGetAttribute(
    data: *mut c_void,
    attribute: c_int,
    ptr: CUdeviceptr,
) -> CUresult {
    guard("cuPointerGetAttribute", || {
        with(|d| {
            let v = pointer_attribute(d, attribute, ptr)?
                .ok_or_else(|| Error::code(status::INVALID_VALUE))?;
            store(data, v)
        })
    })
}

/// `cuPointerGetAttributes`: an unknown pointer gets zeros (memory type 0) and success, as
/// CUDA's does.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuPointerGetAttributes(
    count: c_uint,
    attributes: *const c_int,
    data: *const *mut c_void,
    ptr: CUdeviceptr,
) -> CUresult {
    guard("cuPointerGetAttributes", || {
        with(|d| {
            let attrs = ffi::array(attributes, count as usize)?;
            let outs = ffi::array(data, count as usize)?;
            for (&a, &out) in attrs.iter().zip(outs) {
                let v = match pointer_attribute(d, a, ptr) {
                    Ok(Some(v)) => v,
                    Ok(None) | Err(_) => match a {
                        ptr_attr::MEMORY_TYPE
                        | ptr_attr::SYNC_MEMOPS
                        | ptr_attr::IS_MANAGED
                        | ptr_attr::MAPPED
                        | ptr_attr::IS_LEGACY_CUDA_IPC_CAPABLE
                        | ptr_attr::IS_GPU_DIRECT_RDMA_CAPABLE
                        | ptr_attr::ACCESS_FLAGS => Value::U32(0),
                        ptr_attr::DEVICE_ORDINAL => Value::U32(u32::MAX),
                        _ => Value::U64(0),
                    },
                };
                store(out, v)?;
            }
            Ok(())
        })
    })
}
