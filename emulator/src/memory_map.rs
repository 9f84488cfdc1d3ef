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
//! 0x6000_0000_0000 +4 GiB  shared window    0x0800_0000 +64 MiB  shared window
//! 0x6100_0000_0000 +4 GiB  local window     0x0c00_0000 +64 MiB  local window
//! 0x7000_0000_0000 ..      global memory    0x1000_0000 .. 4 GiB global memory
//! ```
//!
//! In the 32-bit map the first 128 MiB are unused, so that null and small integers used as
//! pointers fault; global memory's span (its allocations and their guard gaps, twice the
//! device memory) must end at 4 GiB, which bounds the device memory at
//! [`MemoryMap::max_capacity`] (1,920 MiB). A 64-bit kernel runs unchanged under the 32-bit
//! map (its pointers are merely small); a 32-bit kernel needs the 32-bit map.
//!
//! The interpreter reads the map of the device memory it runs on; compiled code bakes the map
//! its [`crate::Program`] was prepared for as constants, and a launch checks that the two agree
//! ([`crate::launch::compiled`]).

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
    /// Start of the shared-memory window of the generic address space.
    pub shared_window: u64,
    /// Start of the local-memory window of the generic address space.
    pub local_window: u64,
    /// Size of each window: the most shared memory per CTA, and local memory per thread, that
    /// generic addresses reach.
    pub window_size: u64,
    /// One past the last address global memory may occupy (`u64::MAX`: no bound below the
    /// host's own).
    pub global_limit: u64,
}

impl MemoryMap {
    /// warpsim's layout for 64-bit modules: global memory above 2^46, far from the windows.
    pub const BITS64: MemoryMap = MemoryMap {
        global_base: 0x7000_0000_0000,
        shared_window: 0x6000_0000_0000,
        local_window: 0x6100_0000_0000,
        window_size: 1 << 32,
        global_limit: u64::MAX,
    };

    /// The layout for `.address_size 32` modules: everything below 4 GiB.
    pub const BITS32: MemoryMap = MemoryMap {
        global_base: 0x1000_0000,
        shared_window: 0x0800_0000,
        local_window: 0x0c00_0000,
        window_size: 64 << 20,
        global_limit: 1 << 32,
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

    /// The widest addresses the map serves: 32 when everything lies below 4 GiB, else 64.
    pub fn address_bits(&self) -> u32 {
        if self.global_limit <= 1 << 32 { 32 } else { 64 }
    }

    /// Whether kernels of `.address_size bits` can run under this map: 64-bit ones always, 32-bit
    /// ones only when every address lies below 4 GiB.
    pub fn serves(&self, bits: u32) -> bool {
        bits >= self.address_bits()
    }

    /// The most device memory the map holds: global memory's span is twice the memory (each
    /// allocation is followed by a guard gap as large), and must end at
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
        if addr.wrapping_sub(self.shared_window) < self.window_size {
            GenericTarget::Shared(addr - self.shared_window)
        } else if addr.wrapping_sub(self.local_window) < self.window_size {
            GenericTarget::Local(addr - self.local_window)
        } else {
            GenericTarget::Global(addr)
        }
    }

    /// A short name for messages: "the 32-bit memory map" or "the 64-bit memory map".
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
        assert!(m.shared_window + m.window_size <= m.local_window);
        assert!(m.local_window + m.window_size <= m.global_base);
        assert_eq!(m.max_capacity(), 1920 << 20);
        assert_eq!(m.global_base + 2 * m.max_capacity(), 1 << 32);
        assert!(m.serves(32) && m.serves(64));
        assert!(!MemoryMap::BITS64.serves(32) && MemoryMap::BITS64.serves(64));
    }

    #[test]
    fn generic_addresses_are_classified_by_window() {
        for m in [MemoryMap::BITS32, MemoryMap::BITS64] {
            assert_eq!(m.classify(m.shared_window + 8), GenericTarget::Shared(8));
            assert_eq!(
                m.classify(m.local_window + m.window_size - 1),
                GenericTarget::Local(m.window_size - 1)
            );
            assert_eq!(
                m.classify(m.local_window + m.window_size),
                GenericTarget::Global(m.local_window + m.window_size)
            );
            assert_eq!(m.classify(0), GenericTarget::Global(0));
            assert_eq!(
                m.classify(m.global_base),
                GenericTarget::Global(m.global_base)
            );
        }
    }
}
