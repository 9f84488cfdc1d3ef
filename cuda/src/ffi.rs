//! The C side of every entry point: reading and writing through the caller's pointers, each
//! checked for NULL (`CUDA_ERROR_INVALID_VALUE`). These are the library's only dereferences of
//! client pointers; the CUDA API's contract (a non-NULL pointer is valid for what the call
//! reads or writes) is what makes them sound.

use crate::error::{Error, Result};
use crate::types::{Handle, status};
use std::ffi::{CStr, c_char};

/// Writes `value` through the out-pointer `out`.
pub fn write<T>(out: *mut T, value: T) -> Result {
    if out.is_null() {
        return Err(Error::code(status::INVALID_VALUE));
    }
    // SAFETY: non-NULL, and the API contract makes it valid for a write of a `T`; it may be
    // unaligned when it comes from a packed host structure.
    unsafe { out.write_unaligned(value) };
    Ok(())
}

/// Writes `value` through `out` when it is not NULL (optional out-parameters).
pub fn write_opt<T>(out: *mut T, value: T) -> Result {
    if out.is_null() {
        Ok(())
    } else {
        write(out, value)
    }
}

/// Reads a `T` from `ptr`.
pub fn read<T: Copy>(ptr: *const T) -> Result<T> {
    if ptr.is_null() {
        return Err(Error::code(status::INVALID_VALUE));
    }
    // SAFETY: non-NULL, and the API contract makes it valid for a read of a `T`.
    Ok(unsafe { ptr.read_unaligned() })
}

/// The NUL-terminated string at `ptr`.
pub fn c_str<'a>(ptr: *const c_char) -> Result<&'a str> {
    Ok(c_bytes(ptr)?
        .to_str()
        .map_err(|_| Error::invalid("a name that is not UTF-8"))?
        .trim_end_matches('\0'))
}

/// The NUL-terminated byte string at `ptr`.
pub fn c_bytes<'a>(ptr: *const c_char) -> Result<&'a CStr> {
    if ptr.is_null() {
        return Err(Error::code(status::INVALID_VALUE));
    }
    // SAFETY: non-NULL; the API contract makes it a NUL-terminated string that outlives the
    // call (the `'a` the caller picks never outlives the entry point).
    Ok(unsafe { CStr::from_ptr(ptr) })
}

/// Refuses `n` elements of `T` that no host object can hold (more than `isize::MAX` bytes):
/// such a size is a caller's error, and a slice of it would be undefined.
fn check_extent<T>(n: usize) -> Result {
    match n.checked_mul(size_of::<T>()) {
        Some(bytes) if bytes <= isize::MAX as usize => Ok(()),
        _ => Err(Error::invalid(format!(
            "{n} elements of {} bytes exceed the host's address space",
            size_of::<T>()
        ))),
    }
}

/// `len` bytes of host memory at `ptr` (empty for `len == 0`, whatever `ptr` is).
pub fn host_bytes<'a>(ptr: *const u8, len: usize) -> Result<&'a [u8]> {
    if len == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(Error::code(status::INVALID_VALUE));
    }
    check_extent::<u8>(len)?;
    // SAFETY: non-NULL, and the API contract makes `[ptr, ptr + len)` readable host memory
    // for the duration of the call.
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

/// `len` writable bytes of host memory at `ptr`.
pub fn host_bytes_mut<'a>(ptr: *mut u8, len: usize) -> Result<&'a mut [u8]> {
    if len == 0 {
        return Ok(&mut []);
    }
    if ptr.is_null() {
        return Err(Error::code(status::INVALID_VALUE));
    }
    check_extent::<u8>(len)?;
    // SAFETY: non-NULL, and the API contract makes `[ptr, ptr + len)` writable host memory
    // that nothing else accesses during the call.
    Ok(unsafe { std::slice::from_raw_parts_mut(ptr, len) })
}

/// `n` pointer-sized entries of the array at `ptr` (`kernelParams`, option arrays).
pub fn array<'a, T>(ptr: *const T, n: usize) -> Result<&'a [T]> {
    if n == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(Error::code(status::INVALID_VALUE));
    }
    check_extent::<T>(n)?;
    // SAFETY: non-NULL, and the API contract makes it an array of at least `n` elements.
    Ok(unsafe { std::slice::from_raw_parts(ptr, n) })
}

/// Copies `text` into the caller's buffer of `len` bytes, NUL-terminated and truncated to fit
/// (`cuDeviceGetName`, log buffers).
pub fn write_c_string(buf: *mut c_char, len: usize, text: &str) -> Result {
    let out = host_bytes_mut(buf.cast(), len)?;
    if out.is_empty() {
        return Ok(());
    }
    let n = text.len().min(out.len() - 1);
    out[..n].copy_from_slice(&text.as_bytes()[..n]);
    out[n] = 0;
    Ok(())
}

/// A handle's number (warpsim's handles are numbers, never pointers to its objects).
pub fn handle_id(h: Handle) -> u64 {
    h as usize as u64
}

/// The handle for number `id`.
pub fn handle(id: u64) -> Handle {
    id as usize as Handle
}
