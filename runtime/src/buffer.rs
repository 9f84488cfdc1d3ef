//! Typed device buffers.

use crate::error::{Error, Result};
use emulator::GlobalMemory;
use std::marker::PhantomData;
use std::sync::Arc;

/// Plain values that can be copied between host and device as little-endian bytes.
pub trait DeviceCopy: Copy + Default + 'static {
    /// Size in bytes.
    const SIZE: usize;
    /// Writes the value's bytes into `out` (exactly `SIZE` bytes).
    fn write_le(&self, out: &mut [u8]);
    /// Reads a value from `SIZE` bytes.
    fn read_le(bytes: &[u8]) -> Self;
}

macro_rules! device_copy {
    ($($t:ty),*) => {$(
        impl DeviceCopy for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            fn write_le(&self, out: &mut [u8]) {
                out.copy_from_slice(&self.to_le_bytes());
            }
            fn read_le(bytes: &[u8]) -> Self {
                <$t>::from_le_bytes(bytes.try_into().expect("exactly SIZE bytes"))
            }
        }
    )*};
}
device_copy!(u8, u16, u32, u64, i8, i16, i32, i64, f32, f64);

/// Bytes of a host slice, little-endian.
pub fn to_bytes<T: DeviceCopy>(data: &[T]) -> Vec<u8> {
    let mut out = vec![0u8; data.len() * T::SIZE];
    for (chunk, v) in out.chunks_exact_mut(T::SIZE).zip(data) {
        v.write_le(chunk);
    }
    out
}

/// Host values from little-endian bytes.
pub fn from_bytes<T: DeviceCopy>(bytes: &[u8]) -> Vec<T> {
    bytes.chunks_exact(T::SIZE).map(T::read_le).collect()
}

/// A device allocation of `len` values of `T`; freed when dropped.
pub struct DeviceBuffer<T: DeviceCopy> {
    ptr: u64,
    len: usize,
    mem: Arc<GlobalMemory>,
    _t: PhantomData<T>,
}

impl<T: DeviceCopy> DeviceBuffer<T> {
    pub(crate) fn new(mem: Arc<GlobalMemory>, len: usize) -> Result<DeviceBuffer<T>> {
        let bytes = (len as u64)
            .checked_mul(T::SIZE as u64)
            .ok_or_else(|| Error::InvalidValue("allocation size overflows".into()))?;
        let ptr = mem.alloc(bytes)?;
        Ok(DeviceBuffer {
            ptr,
            len,
            mem,
            _t: PhantomData,
        })
    }

    /// Names the buffer in fault reports ("4-byte access 0 bytes past the end of allocation #1
    /// `x` ..."), like compute-sanitizer naming an allocation site.
    pub fn set_label(&self, label: impl Into<String>) {
        // The buffer owns a live allocation, so its pointer is always valid.
        let _ = self.mem.set_label(self.ptr, label);
    }

    /// The device address (what a kernel receives as a pointer argument).
    pub fn device_ptr(&self) -> u64 {
        self.ptr
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Copies `data` to the start of the buffer (`cudaMemcpy` host to device).
    pub fn copy_from_host(&self, data: &[T]) -> Result<()> {
        if data.len() > self.len {
            return Err(Error::HostAccess(format!(
                "copy of {} elements into a buffer of {}",
                data.len(),
                self.len
            )));
        }
        self.mem
            .write(self.ptr, &to_bytes(data))
            .map_err(|e| Error::HostAccess(e.to_string()))
    }

    /// Copies the whole buffer to the host (`cudaMemcpy` device to host).
    pub fn to_host(&self) -> Result<Vec<T>> {
        let mut bytes = vec![0u8; self.len * T::SIZE];
        self.mem
            .read(self.ptr, &mut bytes)
            .map_err(|e| Error::HostAccess(e.to_string()))?;
        Ok(from_bytes(&bytes))
    }

    /// Sets every byte to `byte` (`cudaMemset`).
    pub fn memset(&self, byte: u8) -> Result<()> {
        self.mem
            .fill(self.ptr, (self.len * T::SIZE) as u64, byte)
            .map_err(|e| Error::HostAccess(e.to_string()))
    }
}

impl<T: DeviceCopy> Drop for DeviceBuffer<T> {
    fn drop(&mut self) {
        // The pointer came from `alloc` and is freed only here, so this cannot fail.
        let _ = self.mem.free(self.ptr);
    }
}
