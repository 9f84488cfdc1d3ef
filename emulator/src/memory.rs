//! Device global memory and the layout of the generic address space.
//!
//! Global memory is one anonymous `memmap2` mapping: the host kernel commits pages only when
//! they are touched, so a large, sparsely used device costs nothing up front. Device addresses
//! start at the [`MemoryMap`]'s global base; allocations are 256-byte aligned (as `cudaMalloc`'s
//! are).
//!
//! Every access is checked exactly, as compute-sanitizer's memcheck does: the bytes touched must
//! lie inside one live allocation's *requested* size (the padding up to the next 256 bytes is
//! outside), and a fault names the nearest allocation and how far the access is from it. Each
//! allocation is followed by an unmapped guard gap as large as the allocation itself, so an
//! access running past the end of a buffer by up to its own size (or before the start of the
//! next one by up to the previous buffer's size) can never land in a neighbour — the silent
//! corruption that adjacent allocations would allow. Addresses further away are checked like
//! any other: they fault unless they fall inside some live allocation (pointer provenance is not
//! tracked, as it is not by compute-sanitizer). Freed memory faults until it is handed out
//! again, and the fault names the freed allocation (use after free).
//!
//! The generic address space holds three disjoint ranges, as on real GPUs, placed by the
//! memory's [`MemoryMap`] (`crate::memory_map` has both layouts):
//!
//! ```text
//! shared_window .. +shared_size   the CTA's shared memory (offset = address - shared_window)
//! local_window  .. +local_size    the thread's local memory (offset = address - local_window)
//! global_base   .. +span          global memory (`.const` variables live here too)
//! ```

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, Ordering};
use std::sync::{Mutex, RwLock};

pub use crate::memory_map::{GenericTarget, MemoryMap};

/// Alignment of every allocation, as CUDA guarantees; also the granule of the validity table.
pub const ALLOC_ALIGN: u64 = 256;

/// How strictly global-memory accesses are checked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MemoryCheck {
    /// Every access must lie inside one live allocation's requested bytes; each allocation is
    /// followed by a guard gap, so an overrun never lands in a neighbour (compute-sanitizer's
    /// memcheck).
    #[default]
    Exact,
    /// As the hardware (and GPGPU-Sim) does: allocations are packed back to back, 256-byte
    /// aligned as `cudaMalloc` places them, and an access faults only where it touches bytes
    /// outside every live allocation's 256-byte extent; an overrun into a neighbour reads or
    /// writes it silently. For legacy kernels that read a little out of bounds by design.
    Device,
}

/// Why a global-memory access failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MemFault {
    /// The access touches bytes outside every live allocation; `detail` says where it is
    /// relative to the nearest allocation (empty when there is none).
    #[error("illegal address {address:#x}{}", detail_suffix(detail))]
    Illegal { address: u64, detail: String },
    #[error("misaligned address {0:#x}")]
    Misaligned(u64),
}

fn detail_suffix(detail: &str) -> String {
    if detail.is_empty() {
        String::new()
    } else {
        format!(" ({detail})")
    }
}

/// Why an allocation failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AllocError {
    #[error(
        "out of device memory: {requested} bytes requested, {free} of {capacity} bytes free{}",
        if *fragmented { " (but no free range is large enough: fragmentation)" } else { "" }
    )]
    OutOfMemory {
        requested: u64,
        free: u64,
        capacity: u64,
        fragmented: bool,
    },
    #[error("invalid device pointer {0:#x} (not the start of a live allocation)")]
    InvalidPointer(u64),
}

/// One allocation, as faults describe it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Allocation {
    /// Its first address.
    pub start: u64,
    /// The bytes requested (accesses beyond them fault, though the range is 256-byte padded).
    pub size: u64,
    /// Its sequence number on this device, from 0.
    pub id: u64,
    /// What it holds, when the allocator's caller said (a module variable's name, a
    /// `run-ptx` argument).
    pub label: Option<String>,
    /// The bytes it holds in the address space: `size` padded to the alignment, then its guard
    /// gap.
    footprint: u64,
}

impl Allocation {
    /// One past its last valid address.
    pub fn end(&self) -> u64 {
        self.start + self.size
    }

    fn describe(&self) -> String {
        let label = self
            .label
            .as_ref()
            .map(|l| format!(" `{l}`"))
            .unwrap_or_default();
        format!(
            "allocation #{}{label} of {} bytes at {:#x}",
            self.id, self.size, self.start
        )
    }
}

/// Allocated memory's bookkeeping, behind one lock.
struct Allocator {
    /// Free ranges of the address space (start → length), coalesced on free.
    free: BTreeMap<u64, u64>,
    /// The first address never handed out: memory above it is still untouched zero pages.
    fresh_from: u64,
    /// Bytes of device memory in use (requested sizes padded to the alignment; guards are free).
    used: u64,
    next_id: u64,
    /// Recently freed allocations, by start, to name them in a use-after-free fault; entries
    /// overlapping a new allocation are dropped, and at most `FREED_HISTORY` are kept.
    freed: BTreeMap<u64, Allocation>,
}

/// How many freed allocations a use-after-free report can still name.
const FREED_HISTORY: usize = 4096;

/// Device global memory: a lazily committed mapping, the table of live allocations, and a
/// per-granule validity table for the hot path of the checks.
pub struct GlobalMemory {
    /// The mapping of the whole address space (twice the capacity, for the guard gaps); written
    /// through raw pointers by many host threads at once (one per CTA), like device memory.
    /// Kernels that race on an address get an unspecified value, as on a GPU.
    map: memmap2::MmapMut,
    base_ptr: *mut u8,
    /// Bytes of device memory allocations may use.
    capacity: u64,
    /// Live allocations by start.
    live: RwLock<BTreeMap<u64, Allocation>>,
    /// One `u16` per 256-byte granule of the address space: how many bytes from the granule's
    /// start belong to a live allocation (0: none, 256: all). Allocations start on a granule,
    /// so a naturally aligned access of at most 16 bytes (which never crosses a granule) is
    /// valid exactly when `offset in granule + size <= valid[granule]`: one load and a compare,
    /// for compiled code and the interpreter alike. Its own lazily committed mapping.
    valid: memmap2::MmapMut,
    allocator: Mutex<Allocator>,
    check: MemoryCheck,
    /// Where global memory and the generic windows lie.
    memory_map: MemoryMap,
    /// The texture, sampler and surface objects created on the device, by handle: device
    /// state that kernels read like memory.
    resources: crate::texture::Resources,
}

// SAFETY: the raw pointer refers to `map`, which lives as long as `self`; concurrent access
// is by design (see `map`), atomics use atomic instructions, and the allocation tables are locked.
unsafe impl Send for GlobalMemory {}
unsafe impl Sync for GlobalMemory {}

impl GlobalMemory {
    /// A device with `capacity` bytes of memory (rounded up to the allocation alignment),
    /// checked exactly.
    ///
    /// Reserves twice that much address space (allocations plus their guard gaps); nothing is
    /// committed until touched, and the reservation does not count against swap.
    pub fn new(capacity: u64) -> std::io::Result<GlobalMemory> {
        GlobalMemory::with_check(capacity, MemoryCheck::Exact)
    }

    /// A device with `capacity` bytes of memory whose accesses are checked as `check` says,
    /// under the 64-bit memory map.
    pub fn with_check(capacity: u64, check: MemoryCheck) -> std::io::Result<GlobalMemory> {
        GlobalMemory::with_map(capacity, check, MemoryMap::BITS64)
    }

    /// A device with `capacity` bytes of memory checked as `check` says, laid out as `map`
    /// says. A capacity beyond [`MemoryMap::max_capacity`] is an error.
    pub fn with_map(
        capacity: u64,
        check: MemoryCheck,
        map: MemoryMap,
    ) -> std::io::Result<GlobalMemory> {
        let capacity = capacity.max(ALLOC_ALIGN).next_multiple_of(ALLOC_ALIGN);
        if capacity > map.max_capacity() {
            return Err(std::io::Error::other(format!(
                "{capacity} bytes of device memory do not fit {} (at most {} bytes)",
                map.describe(),
                map.max_capacity()
            )));
        }
        let span = capacity
            .checked_mul(2)
            .filter(|s| usize::try_from(*s).is_ok())
            .ok_or_else(|| std::io::Error::other("device memory size too large"))?;
        let mut mapping = memmap2::MmapOptions::new()
            .len(span as usize)
            .no_reserve_swap()
            .map_anon()?;
        let valid = memmap2::MmapOptions::new()
            .len((span / ALLOC_ALIGN * 2) as usize)
            .no_reserve_swap()
            .map_anon()?;
        let base_ptr = mapping.as_mut_ptr();
        let mut free = BTreeMap::new();
        free.insert(map.global_base, span);
        Ok(GlobalMemory {
            map: mapping,
            base_ptr,
            capacity,
            live: RwLock::new(BTreeMap::new()),
            valid,
            allocator: Mutex::new(Allocator {
                free,
                fresh_from: map.global_base,
                used: 0,
                next_id: 0,
                freed: BTreeMap::new(),
            }),
            check,
            memory_map: map,
            resources: crate::texture::Resources::default(),
        })
    }

    /// The device's texture, sampler and surface objects.
    pub fn resources(&self) -> &crate::texture::Resources {
        &self.resources
    }

    /// Where global memory and the generic windows lie.
    pub fn map(&self) -> MemoryMap {
        self.memory_map
    }

    /// Whether nothing lives in the memory: no allocation and no texture, sampler or surface
    /// object (a device may then still change its memory map).
    pub fn is_unused(&self) -> bool {
        self.live.read().expect("allocation table lock").is_empty() && self.resources.is_empty()
    }

    /// Host address of the map's global base (for compiled code, which checks bounds
    /// itself before using it).
    pub fn host_base(&self) -> *mut u8 {
        self.base_ptr
    }

    /// Bytes of device memory.
    pub fn capacity(&self) -> u64 {
        self.capacity
    }

    /// Bytes of address space from the map's global base (allocations and their guard gaps).
    pub fn span(&self) -> u64 {
        self.map.len() as u64
    }

    /// A copy of everything allocations ever covered, freed ones included: the bytes from
    /// the global base up to the end of the highest allocation made (above it the memory was
    /// never used). What runs left in device memory, to compare two runs by; call it while no
    /// kernel runs.
    pub fn snapshot(&self) -> Vec<u8> {
        let base = self.memory_map.global_base;
        let end = self.allocator.lock().expect("allocator lock").fresh_from;
        // SAFETY: `[base, end)` lies inside the mapping, which lives as long as `self`; no
        // kernel writes it meanwhile (the caller's promise).
        unsafe { std::slice::from_raw_parts(self.ptr(base), (end - base) as usize) }.to_vec()
    }

    /// Bytes of device memory in use (each allocation padded to 256 bytes).
    pub fn used(&self) -> u64 {
        self.allocator.lock().expect("allocator lock").used
    }

    /// The validity table (see `valid`), for compiled code.
    pub fn validity_table(&self) -> *const u16 {
        self.valid.as_ptr().cast()
    }

    fn valid_entry(&self, granule: u64) -> &AtomicU16 {
        // SAFETY: callers pass a granule inside the span; the table is u16-aligned (page
        // aligned mapping) and lives as long as `self`.
        unsafe {
            AtomicU16::from_ptr(
                self.valid
                    .as_ptr()
                    .cast::<u16>()
                    .cast_mut()
                    .add(granule as usize),
            )
        }
    }

    /// Allocates `size` bytes (at least 1), zero-filled, 256-byte aligned, followed by a guard
    /// gap of its own size; first fit by address, so the same sequence of allocations always
    /// gives the same addresses. When fragmentation leaves no range for the full guard, the
    /// guard shrinks to one granule rather than the allocation failing. Under
    /// [`MemoryCheck::Device`] there are no guards: allocations follow each other.
    pub fn alloc(&self, size: u64) -> Result<u64, AllocError> {
        let size = size.max(1);
        let padded = size
            .checked_next_multiple_of(ALLOC_ALIGN)
            .unwrap_or(u64::MAX);
        let mut guard = self.allocator.lock().expect("allocator lock");
        let a = &mut *guard;
        let free_bytes = self.capacity - a.used;
        let out_of_memory = |fragmented| AllocError::OutOfMemory {
            requested: size,
            free: free_bytes,
            capacity: self.capacity,
            fragmented,
        };
        if padded > free_bytes {
            return Err(out_of_memory(false));
        }
        let fits = |footprint: u64| {
            a.free
                .iter()
                .find(|(_, len)| **len >= footprint)
                .map(|(s, l)| (*s, *l, footprint))
        };
        let found = match self.check {
            MemoryCheck::Exact => {
                fits(padded.saturating_mul(2)).or_else(|| fits(padded + ALLOC_ALIGN))
            }
            MemoryCheck::Device => fits(padded),
        };
        let Some((start, len, footprint)) = found else {
            return Err(out_of_memory(true));
        };
        a.free.remove(&start);
        if len > footprint {
            a.free.insert(start + footprint, len - footprint);
        }
        // Reused memory is cleared, so every allocation reads as zero; never-used memory is
        // left alone, so that untouched pages stay uncommitted.
        if start < a.fresh_from {
            let reused = a.fresh_from.min(start + padded) - start;
            // SAFETY: the range was just taken from the free list, inside the mapping.
            unsafe { std::ptr::write_bytes(self.ptr(start), 0, reused as usize) };
        }
        a.fresh_from = a.fresh_from.max(start + padded);
        a.used += padded;
        let id = a.next_id;
        a.next_id += 1;
        let stale: Vec<u64> = a
            .freed
            .range(..start + footprint)
            .filter(|(_, f)| f.start + f.footprint > start)
            .map(|(s, _)| *s)
            .collect();
        for s in stale {
            a.freed.remove(&s);
        }
        drop(guard);
        self.set_valid(start, size, true);
        self.live.write().expect("allocation table lock").insert(
            start,
            Allocation {
                start,
                size,
                id,
                label: None,
                footprint,
            },
        );
        Ok(start)
    }

    /// Names the live allocation starting at `ptr` in fault reports (e.g. a variable's name).
    pub fn set_label(&self, ptr: u64, label: impl Into<String>) -> Result<(), AllocError> {
        let mut live = self.live.write().expect("allocation table lock");
        let alloc = live.get_mut(&ptr).ok_or(AllocError::InvalidPointer(ptr))?;
        alloc.label = Some(label.into());
        Ok(())
    }

    /// Frees the allocation starting at `ptr`.
    pub fn free(&self, ptr: u64) -> Result<(), AllocError> {
        let alloc = self
            .live
            .write()
            .expect("allocation table lock")
            .remove(&ptr)
            .ok_or(AllocError::InvalidPointer(ptr))?;
        self.set_valid(ptr, alloc.size, false);
        let mut guard = self.allocator.lock().expect("allocator lock");
        let a = &mut *guard;
        a.used -= alloc.size.next_multiple_of(ALLOC_ALIGN);
        let (mut start, mut len) = (ptr, alloc.footprint);
        if let Some((&next, &next_len)) = a.free.range(start + len..).next()
            && next == start + len
        {
            a.free.remove(&next);
            len += next_len;
        }
        if let Some((&prev, &prev_len)) = a.free.range(..start).next_back()
            && prev + prev_len == start
        {
            a.free.remove(&prev);
            start = prev;
            len += prev_len;
        }
        a.free.insert(start, len);
        if a.freed.len() >= FREED_HISTORY {
            a.freed.pop_first();
        }
        a.freed.insert(ptr, alloc);
        Ok(())
    }

    /// The live allocation containing all of `[addr, addr + len)`, as (start, requested size).
    pub fn allocation_of(&self, addr: u64, len: u64) -> Option<(u64, u64)> {
        let live = self.live.read().expect("allocation table lock");
        let (_, a) = live.range(..=addr).next_back()?;
        (addr.checked_add(len)? <= a.end()).then_some((a.start, a.size))
    }

    /// Where `[addr, addr + len)` lies relative to the nearest allocation, for a fault
    /// report: "4-byte access 0 bytes past the end of allocation #2 ...", or inside a freed one.
    pub fn describe_access(&self, addr: u64, len: u64) -> String {
        let freed = {
            let a = self.allocator.lock().expect("allocator lock");
            a.freed
                .range(..=addr)
                .next_back()
                .filter(|(_, f)| addr < f.end())
                .map(|(_, f)| f.describe())
        };
        let live = self.live.read().expect("allocation table lock");
        let before = live.range(..=addr).next_back().map(|(_, a)| a);
        let after = live.range(addr.saturating_add(1)..).next().map(|(_, a)| a);
        let relation = if let Some(a) = before.filter(|a| addr < a.end()) {
            format!("straddling the end of {}", a.describe())
        } else if let Some(f) = freed {
            format!("inside freed {f} (use after free)")
        } else {
            match (before, after) {
                (Some(a), Some(b)) if b.start - addr < addr - a.end() => {
                    format!(
                        "{} bytes before the start of {}",
                        b.start - addr,
                        b.describe()
                    )
                }
                (Some(a), _) => {
                    format!("{} bytes past the end of {}", addr - a.end(), a.describe())
                }
                (None, Some(b)) => {
                    format!(
                        "{} bytes before the start of {}",
                        b.start - addr,
                        b.describe()
                    )
                }
                (None, None) => "with no allocation live".to_string(),
            }
        };
        format!("{len}-byte access {relation}")
    }

    /// Marks the granules of the `size`-byte allocation at `start` valid (`live`) or not: its
    /// requested bytes, or under [`MemoryCheck::Device`] its whole 256-byte extent.
    fn set_valid(&self, start: u64, size: u64, live: bool) {
        let size = match self.check {
            MemoryCheck::Exact => size,
            MemoryCheck::Device => size.next_multiple_of(ALLOC_ALIGN),
        };
        let first = (start - self.memory_map.global_base) / ALLOC_ALIGN;
        for i in 0..size.div_ceil(ALLOC_ALIGN) {
            let bytes = if live {
                (size - i * ALLOC_ALIGN).min(ALLOC_ALIGN)
            } else {
                0
            };
            self.valid_entry(first + i)
                .store(bytes as u16, Ordering::Relaxed);
        }
    }

    /// Checks that `[addr, addr + len)` lies inside one live allocation's requested bytes (under
    /// [`MemoryCheck::Device`]: inside live allocations' extents). Host-side callers check a
    /// whole range with it before they touch any byte (the CUDA library's copies and sets).
    pub fn check(&self, addr: u64, len: u64) -> Result<(), MemFault> {
        let rel = addr.wrapping_sub(self.memory_map.global_base);
        // Saturating: a host caller's length may be near 2^64 (only `len <= 16` reads it).
        let within = (rel % ALLOC_ALIGN).saturating_add(len);
        let ok = if len <= 16 && rel < self.span() && within <= ALLOC_ALIGN {
            within <= u64::from(self.valid_entry(rel / ALLOC_ALIGN).load(Ordering::Relaxed))
        } else if self.check == MemoryCheck::Device {
            // Every granule touched belongs to a live allocation (extents are whole granules).
            rel.checked_add(len)
                .filter(|&end| end <= self.span())
                .is_some_and(|end| {
                    (rel / ALLOC_ALIGN..end.div_ceil(ALLOC_ALIGN))
                        .all(|g| self.valid_entry(g).load(Ordering::Relaxed) == ALLOC_ALIGN as u16)
                })
        } else {
            self.allocation_of(addr, len).is_some()
        };
        if ok {
            Ok(())
        } else {
            Err(MemFault::Illegal {
                address: addr,
                detail: self.describe_access(addr, len),
            })
        }
    }

    /// Raw pointer to device address `addr`. Callers check that the bytes they touch lie in the
    /// mapping (a live allocation, or a free range being handed out); see `map` for why shared
    /// mutation through raw pointers is accepted.
    fn ptr(&self, addr: u64) -> *mut u8 {
        // SAFETY: the offset is within the mapping for every caller (see above).
        unsafe {
            self.base_ptr
                .add((addr - self.memory_map.global_base) as usize)
        }
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

    /// Copies `len` bytes from device address `src` to `dst` (they may overlap, as with
    /// `memmove`): both ranges are checked before any byte moves, and no host buffer is
    /// allocated, so a length far beyond either allocation is a fault, never an allocation
    /// of that size.
    pub fn copy(&self, dst: u64, src: u64, len: u64) -> Result<(), MemFault> {
        self.check(src, len)?;
        self.check(dst, len)?;
        // SAFETY: both ranges checked to lie in live allocations of the mapping; `copy`
        // allows them to overlap.
        unsafe { std::ptr::copy(self.ptr(src), self.ptr(dst), len as usize) };
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
        self.check_store(addr, size)?;
        let bytes = &value.to_le_bytes()[..size as usize];
        // SAFETY: checked to lie in a live allocation; the value is a local, so no overlap.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), self.ptr(addr), bytes.len()) };
        Ok(())
    }

    /// Whether [`GlobalMemory::store`] of `size` bytes at `addr` would succeed: the address is
    /// naturally aligned and the bytes lie in one live allocation.
    pub fn check_store(&self, addr: u64, size: u32) -> Result<(), MemFault> {
        if !addr.is_multiple_of(u64::from(size)) {
            return Err(MemFault::Misaligned(addr));
        }
        self.check(addr, u64::from(size))
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

    const GLOBAL_BASE: u64 = MemoryMap::BITS64.global_base;

    fn illegal(m: &GlobalMemory, addr: u64, size: u32) -> String {
        match m.load(addr, size) {
            Err(MemFault::Illegal { address, detail }) if address == addr => detail,
            other => panic!("expected an illegal access at {addr:#x}, got {other:?}"),
        }
    }

    #[test]
    fn allocations_are_aligned_guarded_checked_and_reused() {
        let m = GlobalMemory::new(1 << 20).unwrap();
        let a = m.alloc(10).unwrap();
        let b = m.alloc(300).unwrap();
        // `a` pads to 256 bytes and is followed by a 256-byte guard; `b` pads to 512.
        assert_eq!((a, b), (GLOBAL_BASE, GLOBAL_BASE + 512));
        m.store(a + 8, 2, 0xbeef).unwrap();
        assert_eq!(m.load(a + 8, 2).unwrap(), 0xbeef);
        assert_eq!(m.load(a + 1, 4), Err(MemFault::Misaligned(a + 1)));
        assert_eq!(m.used(), 256 + 512);
        m.free(a).unwrap();
        assert_eq!(m.free(a), Err(AllocError::InvalidPointer(a)));
        assert_eq!(m.alloc(16).unwrap(), a, "first fit reuses the freed range");
        assert_eq!(m.load(a + 8, 2).unwrap(), 0, "reused memory is cleared");
    }

    #[test]
    fn every_byte_past_the_requested_size_faults_and_names_the_allocation() {
        let m = GlobalMemory::new(1 << 20).unwrap();
        let a = m.alloc(10).unwrap();
        let b = m.alloc(400).unwrap();
        m.set_label(b, "b").unwrap();
        assert_eq!(m.load(a + 8, 2).unwrap(), 0);
        assert_eq!(
            illegal(&m, a + 8, 4),
            format!("4-byte access straddling the end of allocation #0 of 10 bytes at {a:#x}")
        );
        assert_eq!(
            illegal(&m, a + 12, 4),
            format!("4-byte access 2 bytes past the end of allocation #0 of 10 bytes at {a:#x}")
        );
        // One past `b`'s last element, and far into its guard: never the next allocation.
        let c = m.alloc(4).unwrap();
        assert!(c >= b + 800, "the guard after `b` is as large as `b`");
        assert_eq!(
            illegal(&m, b + 400, 4),
            format!(
                "4-byte access 0 bytes past the end of allocation #1 `b` of 400 bytes at {b:#x}"
            )
        );
        assert_eq!(
            illegal(&m, c - 8, 8),
            format!("8-byte access 8 bytes before the start of allocation #2 of 4 bytes at {c:#x}")
        );
        // Host copies are exact too.
        assert!(m.read(b, &mut [0u8; 401]).is_err());
        m.read(b, &mut [0u8; 400]).unwrap();
        assert_eq!(
            m.describe_access(GLOBAL_BASE - 64, 4),
            format!(
                "4-byte access 64 bytes before the start of allocation #0 of 10 bytes at {a:#x}"
            )
        );
    }

    #[test]
    fn a_freed_allocation_is_named_by_a_use_after_free() {
        let m = GlobalMemory::new(1 << 20).unwrap();
        let a = m.alloc(64).unwrap();
        m.set_label(a, "x").unwrap();
        m.free(a).unwrap();
        assert_eq!(
            illegal(&m, a + 4, 4),
            format!(
                "4-byte access inside freed allocation #0 `x` of 64 bytes at {a:#x} (use after free)"
            )
        );
        let empty = GlobalMemory::new(1 << 16).unwrap();
        assert_eq!(
            illegal(&empty, GLOBAL_BASE, 4),
            "4-byte access with no allocation live"
        );
    }

    #[test]
    fn allocation_is_limited_by_capacity_not_by_the_guards() {
        let m = GlobalMemory::new(4096).unwrap();
        let a = m.alloc(2048).unwrap();
        let b = m.alloc(2048).unwrap();
        assert!(matches!(
            m.alloc(1),
            Err(AllocError::OutOfMemory {
                fragmented: false,
                ..
            })
        ));
        m.free(a).unwrap();
        m.free(b).unwrap();
        assert_eq!(m.used(), 0);
        assert_eq!(m.alloc(4096).unwrap(), GLOBAL_BASE);
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
        assert!(matches!(
            m.alloc(u64::MAX),
            Err(AllocError::OutOfMemory { .. })
        ));
    }

    #[test]
    fn device_check_packs_allocations_and_allows_overruns_into_them() {
        let m = GlobalMemory::with_check(1 << 20, MemoryCheck::Device).unwrap();
        let a = m.alloc(100).unwrap();
        let b = m.alloc(1000).unwrap();
        assert_eq!(
            b,
            a + 256,
            "no guard gap: the next allocation follows the padded one"
        );
        // Past the end of `a` (inside its 256-byte extent, then in `b`): allowed.
        m.store(a + 200, 4, 7).unwrap();
        m.store(a + 256, 4, 9).unwrap();
        assert_eq!(m.load(b, 4).unwrap(), 9);
        // A copy spanning both.
        let mut buf = vec![0u8; 512];
        m.read(a, &mut buf).unwrap();
        // Before the first and past the last extent: faults.
        assert!(m.load(a - 4, 4).is_err());
        assert!(m.load(b + 1024, 4).is_err());
        let mut big = vec![0u8; 2048];
        assert!(m.read(a, &mut big).is_err());
        // Freed memory faults again.
        m.free(b).unwrap();
        assert!(m.load(a + 256, 4).is_err());
    }
}
