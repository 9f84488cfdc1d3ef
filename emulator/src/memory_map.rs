//! A device's memory map: where global memory starts and where the shared and local windows of
//! the generic address space lie.
//!
//! The map is a value chosen when device memory is created, not a set of global constants,
//! because PTX's `.address_size 32` needs everything a kernel can address below 4 GiB while
//! 64-bit kernels keep warpsim's historical layout (and with it every address, cache line and
//! statistic of the 64-bit runs). Two maps exist:
//!
//! ```text
//! MemoryMap::BITS64 (default)               MemoryMap::BITS32 (.address_size 32)
//! 0x6000_0000_0000 +4 GiB  shared window    0x0000_0000 +256 MiB  nothing
//! 0x6100_0000_0000 +4 GiB  local window     0x1000_0000 +3 GiB    global memory
//! 0x7000_0000_0000 ..      global memory    0xd000_0000 +256 MiB  shared window
//!                                           0xe000_0000 +512 MiB  local window, up to 4 GiB
//! ```
//!
//! In the 32-bit map, null and small integers used as pointers fault (nothing lives in the
//! first 256 MiB). Global memory's span (its allocations and their guard gaps: twice the device
//! memory) ends where the windows start, which bounds the device memory at
//! [`MemoryMap::max_capacity`]: 1,536 MiB, the GTX 480's. The local window ends at 4 GiB, so the
//! generic address of local memory past it (a thread's local memory beyond 512 MiB: warpsim
//! allows 1,024 nested frames of up to 512 KiB each, hardware 512 KiB in all) wraps, as a
//! 32-bit address, into the empty first 256 MiB and faults rather than reaching global memory.
//! A 64-bit kernel runs unchanged under the 32-bit map (its pointers are merely small); a
//! 32-bit kernel needs the 32-bit map.
//!
//! The interpreter reads the map of the device memory it runs on; compiled code bakes the map
//! its [`crate::Program`] was prepared for in as constants, and a launch checks that the two
//! agree ([`crate::launch::compiled`]).

use isa::StateSpace;

/// Where a generic address points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GenericTarget {
    Shared(u64),
    Local(u64),
    Global(u64),
}

/// Where global memory and the generic windows of one device lie (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MemoryMap {
    /// First device address of global memory (`.const` variables live there too).
    pub global_base: u64,
    /// One past the last address global memory may occupy.
    pub global_limit: u64,
    /// Start of the shared-memory window of the generic address space.
    pub shared_window: u64,
    /// Size of the shared window: the most shared memory per CTA generic addresses reach.
    pub shared_size: u64,
    /// Start of the local-memory window of the generic address space.
    pub local_window: u64,
    /// Size of the local window: the most local memory per thread generic addresses reach.
    pub local_size: u64,
}

impl MemoryMap {
    /// warpsim's layout for 64-bit modules: global memory from 2^46 + 2^45, the windows below.
    pub const BITS64: MemoryMap = MemoryMap {
        global_base: 0x7000_0000_0000,
        global_limit: u64::MAX,
        shared_window: 0x6000_0000_0000,
        shared_size: 1 << 32,
        local_window: 0x6100_0000_0000,
        local_size: 1 << 32,
    };

    /// The layout for `.address_size 32` modules: everything below 4 GiB (see the module docs).
    pub const BITS32: MemoryMap = MemoryMap {
        global_base: 0x1000_0000,
        global_limit: 0xd000_0000,
        shared_window: 0xd000_0000,
        shared_size: 256 << 20,
        local_window: 0xe000_0000,
        local_size: 512 << 20,
    };

    /// The map a module of `.address_size bits` runs under by default: [`MemoryMap::BITS32`]
    /// for 32, [`MemoryMap::BITS64`] otherwise.
    pub fn for_address_size(bits: u32) -> MemoryMap {
        if bits == 32 {
            MemoryMap::BITS32
        } else {
            MemoryMap::BITS64
        }
    }

    /// The widest addresses the map needs: 32 when global memory and both windows lie below
    /// 4 GiB, else 64.
    pub fn address_bits(&self) -> u32 {
        let end = self
            .global_limit
            .max(self.shared_window.saturating_add(self.shared_size))
            .max(self.local_window.saturating_add(self.local_size));
        if end <= 1 << 32 { 32 } else { 64 }
    }

    /// Whether kernels of `.address_size bits` can run under this map: 64-bit ones always,
    /// 32-bit ones only when everything lies below 4 GiB.
    pub fn serves(&self, bits: u32) -> bool {
        bits >= self.address_bits()
    }

    /// The most device memory the map holds: global memory's span is twice the memory (each
    /// allocation is followed by a guard gap as large) and must end at
    /// [`MemoryMap::global_limit`]. Rounded down to the 256-byte allocation alignment.
    pub fn max_capacity(&self) -> u64 {
        let span = self.global_limit - self.global_base;
        (span / 2) / crate::memory::ALLOC_ALIGN * crate::memory::ALLOC_ALIGN
    }

    /// The generic window of `space` (`cvta`'s offset): the shared or local window, 0 for
    /// global and constant memory (their generic addresses are their own), `None` for the
    /// others (kernel parameters have no generic window in warpsim).
    pub fn window(&self, space: StateSpace) -> Option<u64> {
        match space {
            StateSpace::Shared | StateSpace::SharedCluster => Some(self.shared_window),
            StateSpace::Local => Some(self.local_window),
            StateSpace::Global | StateSpace::Const => Some(0),
            _ => None,
        }
    }

    /// Classifies a generic address into its state space and the address or offset there.
    pub fn classify(&self, addr: u64) -> GenericTarget {
        if addr.wrapping_sub(self.shared_window) < self.shared_size {
            GenericTarget::Shared(addr - self.shared_window)
        } else if addr.wrapping_sub(self.local_window) < self.local_size {
            GenericTarget::Local(addr - self.local_window)
        } else {
            GenericTarget::Global(addr)
        }
    }

    /// The map in a message: "the 32-bit memory map (global memory at 0x10000000)".
    pub fn describe(&self) -> String {
        format!(
            "the {}-bit memory map (global memory at {:#x})",
            self.address_bits(),
            self.global_base
        )
    }
}

impl Default for MemoryMap {
    /// [`MemoryMap::BITS64`].
    fn default() -> MemoryMap {
        MemoryMap::BITS64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_32_bit_map_lies_below_4_gib_and_its_regions_are_disjoint() {
        let m = MemoryMap::BITS32;
        assert_eq!(m.address_bits(), 32);
        assert_eq!(MemoryMap::BITS64.address_bits(), 64);
        assert!(m.global_base + 2 * m.max_capacity() <= m.shared_window);
        assert!(m.shared_window + m.shared_size <= m.local_window);
        assert_eq!(m.local_window + m.local_size, 1 << 32);
        assert_eq!(m.max_capacity(), 1536 << 20);
        assert!(m.serves(32) && m.serves(64));
        assert!(!MemoryMap::BITS64.serves(32) && MemoryMap::BITS64.serves(64));
        // The local memory of 1,024 nested frames of 512 KiB and a kernel frame as large, past
        // the window, wraps below global memory.
        let deepest = 1025 * (512 << 10);
        assert!((m.local_window + deepest) % (1 << 32) < m.global_base);
    }

    #[test]
    fn generic_addresses_are_classified_by_window() {
        for m in [MemoryMap::BITS32, MemoryMap::BITS64] {
            assert_eq!(m.classify(m.shared_window + 8), GenericTarget::Shared(8));
            assert_eq!(
                m.classify(m.shared_window + m.shared_size),
                if m.shared_window + m.shared_size == m.local_window {
                    GenericTarget::Local(0)
                } else {
                    GenericTarget::Global(m.shared_window + m.shared_size)
                }
            );
            assert_eq!(
                m.classify(m.local_window + m.local_size - 1),
                GenericTarget::Local(m.local_size - 1)
            );
            assert_eq!(
                m.classify(m.local_window + m.local_size),
                GenericTarget::Global(m.local_window + m.local_size)
            );
            assert_eq!(m.classify(0), GenericTarget::Global(0));
            assert_eq!(
                m.classify(m.global_base),
                GenericTarget::Global(m.global_base)
            );
        }
    }
}
