//! The state of one warp slot, and the compact copies of it the schedulers read.

use super::async_copies::AsyncCopies;
use crate::decode::Unit;
use crate::scoreboard::Scoreboard;
use emulator::stepper::FrameBase;
use isa::FuncId;
use std::collections::VecDeque;

/// A warp slot of the SM.
pub(super) struct WarpSlot {
    pub(super) live: bool,
    pub(super) cta: usize,
    /// Index of the warp in its CTA.
    pub(super) index: usize,
    /// Function and PC of its next instruction; `None` while at a barrier or after exit (a
    /// copy of the functional state, refreshed whenever that changes).
    pub(super) next: Option<(FuncId, u32)>,
    /// Register-window base of the call frame its next instruction runs in.
    pub(super) frame: FrameBase,
    /// Instruction buffer: (function, PC, cycle the decoded instruction is available).
    pub(super) ibuf: VecDeque<(FuncId, u32, u64)>,
    pub(super) sb: Scoreboard,
    /// Issued instructions not yet complete.
    pub(super) outstanding: u32,
    /// The scoreboard refused the instruction at the head of the buffer (`Some(long)`); it
    /// cannot change its mind before one of this warp's writes completes.
    pub(super) sb_wait: Option<bool>,
    /// The instruction at the head of the buffer passed the scoreboard and needs this unit: it
    /// stays issuable (as far as the scoreboard goes) until the warp issues, since only this
    /// warp's issues add pending writes.
    pub(super) sb_ok: Option<Unit>,
    /// The warp executed its last instruction.
    pub(super) exited: bool,
    /// A `nanosleep` keeps the warp's next instructions unavailable before this cycle.
    pub(super) sleep_until: u64,
    /// Its `cp.async` copies in flight.
    pub(super) copies: AsyncCopies,
}

/// No unit (in [`Heads::ok`]).
pub(super) const NO_UNIT: u8 = u8::MAX;

/// Exact copies of the issue-relevant state of each warp slot, refreshed by [`Heads::sync`]
/// whenever that state changes, so the schedulers refuse most warps without touching the slots
/// (and their instruction buffers).
pub(super) struct Heads {
    /// Running warps waiting at a barrier (no next instruction).
    pub(super) barrier: u64,
    /// Running warps with a next instruction but an empty instruction buffer.
    pub(super) empty: u64,
    /// Cycle the instruction at the head of the buffer is available, when it is the warp's
    /// next instruction; 0 when it is another (`try_issue` refetches).
    pub(super) at: Vec<u64>,
    /// `sb_ok` as a unit index, or [`NO_UNIT`].
    pub(super) ok: Vec<u8>,
}

/// One slot's entry of [`Heads`]: (at a barrier, buffer empty, `at`, `ok`).
type HeadEntry = (bool, bool, u64, u8);

impl Heads {
    /// What the slot's entry must be for the warp slot `w`.
    #[inline]
    fn entry(w: &WarpSlot) -> HeadEntry {
        let running = w.live && !w.exited;
        let at = match (w.next, w.ibuf.front()) {
            (Some((f, p)), Some(&(bf, bp, at))) if f == bf && p == bp => at,
            _ => 0,
        };
        (
            running && w.next.is_none(),
            running && w.next.is_some() && w.ibuf.is_empty(),
            at,
            w.sb_ok.map_or(NO_UNIT, |u| u.index() as u8),
        )
    }

    #[inline]
    pub(super) fn sync(&mut self, w: &WarpSlot, slot: usize) {
        let bit = 1u64 << slot;
        let (at_barrier, empty, at, ok) = Heads::entry(w);
        self.barrier = (self.barrier & !bit) | if at_barrier { bit } else { 0 };
        self.empty = (self.empty & !bit) | if empty { bit } else { 0 };
        self.at[slot] = at;
        self.ok[slot] = ok;
    }

    /// Debug builds: panics if the slot's entry is not what [`Heads::sync`] would make it (a
    /// stage changed the warp slot without refreshing its copy).
    #[cfg(debug_assertions)]
    pub(super) fn check(&self, w: &WarpSlot, slot: usize) {
        let bit = 1u64 << slot;
        let cached = (
            self.barrier & bit != 0,
            self.empty & bit != 0,
            self.at[slot],
            self.ok[slot],
        );
        assert_eq!(
            cached,
            Heads::entry(w),
            "stale head copy of warp slot {slot}"
        );
    }
}
