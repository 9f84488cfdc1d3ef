//! Device global memory and the layout of the generic address space.
//!
//! Global memory is one anonymous `memmap2` mapping: the host kernel commits pages only when
//! they are touched, so a large, sparsely used device costs nothing up front. Device addresses
//! start at [`GLOBAL_BASE`]; allocations are 256-byte aligned (as `cudaMalloc`'s are) and every
//! access is checked against the live allocations, so an out-of-bounds access is reported
//! instead of silently reading a neighbour.
//!
//! The generic address space holds three disjoint ranges, as on real GPUs:
//!
//! ```text
//! SHARED_WINDOW .. +WINDOW_SIZE   the CTA's shared memory (offset = address - SHARED_WINDOW)
//! LOCAL_WINDOW  .. +WINDOW_SIZE   the thread's local memory (offset = address - LOCAL_WINDOW)
//! GLOBAL_BASE   .. +capacity      global memory (`.const` variables live here too)
//! ```

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Mutex, RwLock};

/// First device address of global memory.
pub const GLOBAL_BASE: u64 = 0x7000_0000_0000;
/// Start of the shared-memory window of the generic address space.
pub const SHARED_WINDOW: u64 = 0x6000_0000_0000;
/// Start of the local-memory window of the generic address space.
pub const LOCAL_WINDOW: u64 = 0x6100_0000_0000;
/// Size of each window.
pub const WINDOW_SIZE: u64 = 1 << 32;
/// Alignment of every allocation, as CUDA guarantees.
pub const ALLOC_ALIGN: u64 = 256;

/// Where a generic address points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GenericTarget {
    Shared(u64),
    Local(u64),
    Global(u64),
}

/// Classifies a generic address into its state space and the address or offset there.
pub fn classify_generic(addr: u64) -> GenericTarget {
    if (SHARED_WINDOW..SHARED_WINDOW + WINDOW_SIZE).contains(&addr) {
        GenericTarget::Shared(addr - SHARED_WINDOW)
    } else if (LOCAL_WINDOW..LOCAL_WINDOW + WINDOW_SIZE).contains(&addr) {
        GenericTarget::Local(addr - LOCAL_WINDOW)
    } else {
        GenericTarget::Global(addr)
    }
}

/// Why a global-memory access failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MemFault {
    #[error("illegal address {0:#x}")]
    Illegal(u64),
    #[error("misaligned address {0:#x}")]
    Misaligned(u64),
}

/// Why an allocation failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AllocError {
    #[error("out of device memory: {requested} bytes requested, {free} of {capacity} free")]
    OutOfMemory {
        requested: u64,
        free: u64,
        capacity: u64,
    },
    #[error("invalid device pointer {0:#x} (not the start of a live allocation)")]
    InvalidPointer(u64),
}

/// Device global memory: a lazily committed mapping plus the table of live allocations.
pub struct GlobalMemory {
    /// The mapping; written through raw pointers by many host threads at once (one per CTA),
    /// like device memory. Kernels that race on an address get an unspecified value, as on a GPU.
    map: memmap2::MmapMut,
    base_ptr: *mut u8,
    /// Live allocations: start → size.
    live: RwLock<BTreeMap<u64, u64>>,
    /// One bit per 256-byte granule, set while the granule belongs to a live allocation.
    /// Allocations are granule-aligned and granule-sized, so a naturally aligned access of at
    /// most 16 bytes (which never crosses a granule) lies inside one live allocation exactly
    /// when its granule's bit is set: one load and a bit test, for the hot path of compiled
    /// code and of the interpreter alike.
    granules: Vec<AtomicU64>,
    /// Free ranges (start → size, coalesced on free) and the first address never handed out:
    /// memory above it is still the mapping's untouched zero pages.
    free: Mutex<(BTreeMap<u64, u64>, u64)>,
}

// SAFETY: the raw pointer refers to `map`, which lives as long as `self`; concurrent access
// is by design (see `map`), atomics use atomic instructions, and the allocation tables are locked.
unsafe impl Send for GlobalMemory {}
unsafe impl Sync for GlobalMemory {}

impl GlobalMemory {
    /// Reserves `capacity` bytes of device memory (rounded up to the allocation alignment).
    pub fn new(capacity: u64) -> std::io::Result<GlobalMemory> {
        let capacity = capacity.max(ALLOC_ALIGN).next_multiple_of(ALLOC_ALIGN);
        let len =
            usize::try_from(capacity).map_err(|_| std::io::Error::other("capacity too large"))?;
        let mut map = memmap2::MmapOptions::new().len(len).map_anon()?;
        let base_ptr = map.as_mut_ptr();
        let mut free = BTreeMap::new();
        free.insert(GLOBAL_BASE, capacity);
        let words = (capacity / ALLOC_ALIGN).div_ceil(64) as usize;
        Ok(GlobalMemory {
            map,
            base_ptr,
            live: RwLock::new(BTreeMap::new()),
            granules: (0..words).map(|_| AtomicU64::new(0)).collect(),
            free: Mutex::new((free, GLOBAL_BASE)),
        })
    }

    /// Host address of device address [`GLOBAL_BASE`] (for compiled code, which checks bounds
    /// itself before using it).
    pub fn host_base(&self) -> *mut u8 {
        self.base_ptr
    }

    /// Total bytes of device memory.
    pub fn capacity(&self) -> u64 {
        self.map.len() as u64
    }

    /// Allocates `size` bytes (at least 1), zero-filled, 256-byte aligned; first fit by address,
    /// so the same sequence of allocations always gives the same addresses.
    pub fn alloc(&self, size: u64) -> Result<u64, AllocError> {
        let size = size.max(1).next_multiple_of(ALLOC_ALIGN);
        let mut guard = self.free.lock().expect("allocator lock");
        let (free, fresh_from) = &mut *guard;
        let found = free
            .iter()
            .find(|(_, len)| **len >= size)
            .map(|(s, l)| (*s, *l));
        let Some((start, len)) = found else {
            let free_total = free.values().sum();
            return Err(AllocError::OutOfMemory {
                requested: size,
                free: free_total,
                capacity: self.capacity(),
            });
        };
        free.remove(&start);
        if len > size {
            free.insert(start + size, len - size);
        }
        // Reused memory is cleared, so every allocation reads as zero; never-used memory is
        // left alone, so that untouched pages stay uncommitted.
        if start < *fresh_from {
            let reused = (*fresh_from).min(start + size) - start;
            // SAFETY: the range was just taken from the free list, inside the mapping.
            unsafe { std::ptr::write_bytes(self.ptr(start), 0, reused as usize) };
        }
        *fresh_from = (*fresh_from).max(start + size);
        drop(guard);
        self.live
            .write()
            .expect("allocation table lock")
            .insert(start, size);
        self.mark(start, size, true);
        Ok(start)
    }

    /// Frees the allocation starting at `ptr`.
    pub fn free(&self, ptr: u64) -> Result<(), AllocError> {
        let size = self
            .live
            .write()
            .expect("allocation table lock")
            .remove(&ptr)
            .ok_or(AllocError::InvalidPointer(ptr))?;
        self.mark(ptr, size, false);
        let mut guard = self.free.lock().expect("allocator lock");
        let free = &mut guard.0;
        let (mut start, mut len) = (ptr, size);
        if let Some((&next, &next_len)) = free.range(start + len..).next()
            && next == start + len
        {
            free.remove(&next);
            len += next_len;
        }
        if let Some((&prev, &prev_len)) = free.range(..start).next_back()
            && prev + prev_len == start
        {
            free.remove(&prev);
            start = prev;
            len += prev_len;
        }
        free.insert(start, len);
        Ok(())
    }

    /// The live allocation containing `[addr, addr + len)`, as (start, size).
    pub fn allocation_of(&self, addr: u64, len: u64) -> Option<(u64, u64)> {
        let live = self.live.read().expect("allocation table lock");
        let (&start, &size) = live.range(..=addr).next_back()?;
        (addr.checked_add(len)? <= start + size).then_some((start, size))
    }

    /// Sets or clears the granule bits of `[start, start + size)`.
    fn mark(&self, start: u64, size: u64, live: bool) {
        let first = (start - GLOBAL_BASE) / ALLOC_ALIGN;
        for g in first..first + size / ALLOC_ALIGN {
            let (word, bit) = ((g / 64) as usize, 1u64 << (g % 64));
            if live {
                self.granules[word].fetch_or(bit, Ordering::Relaxed);
            } else {
                self.granules[word].fetch_and(!bit, Ordering::Relaxed);
            }
        }
    }

    /// The granule bitmap, for compiled code (see `granules`).
    pub fn granule_bits(&self) -> *const u64 {
        self.granules.as_ptr().cast()
    }

    fn check(&self, addr: u64, len: u64) -> Result<(), MemFault> {
        let rel = addr.wrapping_sub(GLOBAL_BASE);
        if len <= 16 && rel < self.capacity() && (rel % ALLOC_ALIGN) + len <= ALLOC_ALIGN {
            let g = rel / ALLOC_ALIGN;
            let live =
                self.granules[(g / 64) as usize].load(Ordering::Relaxed) >> (g % 64) & 1 != 0;
            return if live {
                Ok(())
            } else {
                Err(MemFault::Illegal(addr))
            };
        }
        self.allocation_of(addr, len)
            .map(|_| ())
            .ok_or(MemFault::Illegal(addr))
    }

    /// Raw pointer to device address `addr`. Callers check that the bytes they touch lie in the
    /// mapping (a live allocation, or a free range being handed out); see `map` for why shared
    /// mutation through raw pointers is accepted.
    fn ptr(&self, addr: u64) -> *mut u8 {
        // SAFETY: the offset is within the mapping for every caller (see above).
        unsafe { self.base_ptr.add((addr - GLOBAL_BASE) as usize) }
    }

    /// Copies device memory into `out`; the whole range must lie in one live allocation.
    pub fn read(&self, addr: u64, out: &mut [u8]) -> Result<(), MemFault> {
        self.check(addr, out.len() as u64)?;
        // SAFETY: checked to lie in a live allocation; `out` is host memory, so no overlap.
        unsafe { std::ptr::copy_nonoverlapping(self.ptr(addr), out.as_mut_ptr(), out.len()) };
        Ok(())
    }

    /// Copies `data` into device memory; the whole range must lie in one live allocation.
    pub fn write(&self, addr: u64, data: &[u8]) -> Result<(), MemFault> {
        self.check(addr, data.len() as u64)?;
        // SAFETY: checked to lie in a live allocation; `data` is host memory, so no overlap.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), self.ptr(addr), data.len()) };
        Ok(())
    }

    /// Fills `[addr, addr + len)` with `byte`.
    pub fn fill(&self, addr: u64, len: u64, byte: u8) -> Result<(), MemFault> {
        self.check(addr, len)?;
        // SAFETY: checked to lie in a live allocation.
        unsafe { std::ptr::write_bytes(self.ptr(addr), byte, len as usize) };
        Ok(())
    }

    /// Loads a naturally aligned little-endian value of `size` bytes (1, 2, 4, 8 or 16 for the
    /// first element of a vector; the caller checks vector alignment).
    pub fn load(&self, addr: u64, size: u32) -> Result<u64, MemFault> {
        if !addr.is_multiple_of(u64::from(size)) {
            return Err(MemFault::Misaligned(addr));
        }
        let mut buf = [0u8; 8];
        self.read(addr, &mut buf[..size as usize])?;
        Ok(u64::from_le_bytes(buf))
    }

    /// Stores the low `size` bytes of `value` at a naturally aligned address.
    pub fn store(&self, addr: u64, size: u32, value: u64) -> Result<(), MemFault> {
        if !addr.is_multiple_of(u64::from(size)) {
            return Err(MemFault::Misaligned(addr));
        }
        self.write(addr, &value.to_le_bytes()[..size as usize])
    }

    /// Atomically replaces the 4- or 8-byte value at `addr` with `update(old)`, returning `old`.
    pub fn atomic(
        &self,
        addr: u64,
        size: u32,
        update: impl Fn(u64) -> u64,
    ) -> Result<u64, MemFault> {
        if !addr.is_multiple_of(u64::from(size)) {
            return Err(MemFault::Misaligned(addr));
        }
        self.check(addr, u64::from(size))?;
        let ptr = self.ptr(addr);
        // SAFETY: the address is inside a live allocation and naturally aligned for the size.
        Ok(match size {
            4 => {
                let a = unsafe { AtomicU32::from_ptr(ptr.cast()) };
                let mut old = a.load(Ordering::Relaxed);
                loop {
                    let new = update(u64::from(old)) as u32;
                    match a.compare_exchange_weak(old, new, Ordering::AcqRel, Ordering::Relaxed) {
                        Ok(_) => break u64::from(old),
                        Err(actual) => old = actual,
                    }
                }
            }
            _ => {
                let a = unsafe { AtomicU64::from_ptr(ptr.cast()) };
                let mut old = a.load(Ordering::Relaxed);
                loop {
                    let new = update(old);
                    match a.compare_exchange_weak(old, new, Ordering::AcqRel, Ordering::Relaxed) {
                        Ok(_) => break old,
                        Err(actual) => old = actual,
                    }
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocations_are_aligned_checked_and_reused() {
        let m = GlobalMemory::new(1 << 20).unwrap();
        let a = m.alloc(10).unwrap();
        let b = m.alloc(300).unwrap();
        assert_eq!((a, b), (GLOBAL_BASE, GLOBAL_BASE + 256));
        m.store(a + 8, 2, 0xbeef).unwrap();
        assert_eq!(m.load(a + 8, 2).unwrap(), 0xbeef);
        assert_eq!(m.load(a + 1, 4), Err(MemFault::Misaligned(a + 1)));
        assert_eq!(m.load(b + 512, 4), Err(MemFault::Illegal(b + 512)));
        m.free(a).unwrap();
        assert_eq!(m.free(a), Err(AllocError::InvalidPointer(a)));
        assert_eq!(m.load(a, 4), Err(MemFault::Illegal(a)));
        assert_eq!(m.alloc(16).unwrap(), a, "first fit reuses the freed range");
        assert_eq!(m.load(a + 8, 2).unwrap(), 0, "reused memory is cleared");
    }

    #[test]
    fn atomics_return_the_old_value() {
        let m = GlobalMemory::new(1 << 16).unwrap();
        let a = m.alloc(16).unwrap();
        assert_eq!(m.atomic(a, 4, |v| v + 5).unwrap(), 0);
        assert_eq!(m.atomic(a, 4, |v| v + 5).unwrap(), 5);
        assert_eq!(m.atomic(a + 8, 8, |_| u64::MAX).unwrap(), 0);
        assert_eq!(m.load(a + 8, 8).unwrap(), u64::MAX);
    }

    #[test]
    fn out_of_memory_is_an_error() {
        let m = GlobalMemory::new(1024).unwrap();
        m.alloc(1024).unwrap();
        assert!(matches!(m.alloc(1), Err(AllocError::OutOfMemory { .. })));
    }
}
