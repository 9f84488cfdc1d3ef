//! The memory hierarchy of the timing model: coalescing, shared-memory banks, the per-SM caches
//! (L1 data with MSHRs, constant, instruction) and the GPU-wide interconnect, L2 slices and DRAM
//! channels.
//!
//! Everything is a timestamp ("ready cycle") model: a request offered at cycle `now` is
//! answered with the cycle its data is available (at once, or for a request an SM sends to
//! the L2, when the SM's cycle commits: [`SmMemory::commit`]), and each shared resource (an L2
//! slice, a DRAM bank and its channel's buses, an MSHR, a cache port) remembers when it is next
//! free, so contention shows up as later ready cycles. The model is deterministic: results depend only on the
//! configuration and the order of calls. All cycles are core cycles.
//!
//! - `coalesce.rs`: a warp's lane addresses → line transactions with sector masks.
//! - `shared.rs`: shared-memory bank conflicts.
//! - `cache.rs`: the generic set-associative cache (tags, LRU, pending fills, sector bits).
//! - `sm.rs`: [`SmMemory`], the caches of one SM.
//! - `l2.rs`: [`MemorySystem`], interconnect and L2 slices.
//! - `addrmap.rs`: [`AddressMap`], GPGPU-Sim's address decoding to channel, slice, bank, row.
//! - `dram.rs`: the DRAM channels: banks, row buffers, FR-FCFS, GDDR5 command timing.
//! - `slots.rs`: a one-packet-a-cycle port booked out of order (the crossbar's outputs).
//! - `stats.rs`: [`MemStats`].
//! - `power.rs`: Snooze's power states of the L1 and L2 data arrays ([`CachePowerReport`]).

mod addrmap;
mod cache;
mod coalesce;
mod dram;
mod ipoly;
mod l2;
pub mod power;
mod shared;
mod slots;
mod sm;
mod stats;

pub use addrmap::{AddressMap, Location};
pub use coalesce::{coalesce, coalesce_atomics};
pub use l2::MemorySystem;
pub use power::{CachePowerReport, Gating, SnoozeConfig};
pub use shared::shared_passes;
pub use sm::SmMemory;
pub use stats::MemStats;

/// Kind of a global-memory access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessKind {
    /// A read (`ld.global`, `ld.local`).
    Load,
    /// A write (`st.global`, `st.local`).
    Store,
    /// A read-modify-write (`atom`, `red`), performed at L2.
    Atomic,
}

/// One coalesced request: a line-aligned byte address and the sectors (of `mem.sector` bytes)
/// of the line it touches (bit i = sector i).
///
/// The line size is the L1 line (`mem.l1d.line`) the coalescer was given. A mask with no bit
/// inside the line is taken as the whole line, so a hand-made request always moves data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transaction {
    /// Byte address of the line (a multiple of the line size).
    pub line: u64,
    /// Sectors of the line touched: bit i = bytes `i * sector .. (i + 1) * sector`.
    pub sectors: u32,
}

/// A request an SM's memory sent on to the L2 during the SM's cycle: its index among that
/// cycle's requests, by which [`SmMemory::commit`] gives its answer.
pub type Ticket = u32;

/// Result of offering a request to a cache: it completes at this cycle (data available to the
/// SM), at a cycle known when the SM's cycle commits (it went to the L2), or it cannot be
/// accepted this cycle (retry later: MSHRs full, merge limit reached, all ways of the set
/// pending, or the L1's requests for this cycle used up).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Accepted: the data (or, for a store, the acknowledgement) is back at this cycle.
    Ready(u64),
    /// Accepted, and sent to the L2 when the cycle commits: the commit's answer of this
    /// ticket is the cycle the data (or acknowledgement) is back.
    Pending(Ticket),
    /// Not accepted; nothing changed but the stall counters. Offer it again at a later cycle.
    Stall,
}

/// The mask of every sector of a line of `line` bytes with `sector`-byte sectors (at most 32
/// sectors are tracked; beyond that the last bit stands for the rest).
fn full_mask(line: u64, sector: u64) -> u32 {
    let n = (line / sector.max(1)).clamp(1, 32);
    if n == 32 { u32::MAX } else { (1u32 << n) - 1 }
}

/// The sectors a request names, restricted to the line; none means the whole line.
fn request_mask(sectors: u32, full: u32) -> u32 {
    match sectors & full {
        0 => full,
        m => m,
    }
}
