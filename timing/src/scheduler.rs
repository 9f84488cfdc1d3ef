//! Warp schedulers: the order in which a scheduler considers its warps each cycle.
//!
//! Warps are assigned to schedulers statically by slot (slot mod schedulers). The policies:
//! - LRR: starting after the warp that issued last.
//! - GTO: the warp that issued last first (greedy), then the others oldest first.
//! - Two-level: round robin over an active pool; a warp that stalls on a long-latency result
//!   or waits at a barrier is demoted to the back of the pending queue and the pending
//!   queue's head takes its place; a warp that exits leaves both (GPGPU-Sim's
//!   `two_level_active` demotes every warp that `waiting()`: exited, at a barrier, or on a
//!   long operation; without that, a pool full of warps at a barrier would wait forever for
//!   the pending warps the barrier waits for).
//! - LAS: LRR, with the warps the SM marked as about to load shared data
//!   ([`Scheduler::prioritise`]) first, in LRR order among themselves; a mark lasts until the
//!   warp issues.

use crate::config::SchedulerPolicy;
use std::collections::VecDeque;

/// Why a scheduler did not issue, ordered from least to most advanced (a cycle is charged to
/// the most advanced reason any of its warps reached).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Stall {
    Idle,
    Barrier,
    Fetch,
    Data,
    Structural,
    /// The residency policy holds the instruction until its registers are available.
    Registers,
}

/// One scheduler's warps and policy state.
#[derive(Clone, Debug)]
pub struct Scheduler {
    policy: SchedulerPolicy,
    active_size: usize,
    /// Warp slots this scheduler owns, in slot order.
    slots: Vec<usize>,
    /// The owned slots holding warps, oldest first.
    by_age: Vec<usize>,
    /// Slot that issued last.
    last: Option<usize>,
    /// LAS: the slots marked to go first (bits).
    priority: u64,
    /// Two-level: the active pool and the pending queue.
    pool: Vec<usize>,
    pending: VecDeque<usize>,
    /// The last order computed, valid until `stale` (the order changes only when warps come,
    /// go, issue or are demoted; most cycles reuse it).
    cached: Vec<usize>,
    stale: bool,
}

impl Scheduler {
    pub fn new(policy: SchedulerPolicy, active_size: u32, slots: Vec<usize>) -> Scheduler {
        Scheduler {
            policy,
            active_size: active_size as usize,
            slots,
            by_age: Vec::new(),
            last: None,
            priority: 0,
            pool: Vec::new(),
            pending: VecDeque::new(),
            cached: Vec::new(),
            stale: true,
        }
    }

    /// A new warp arrived in `slot` (younger than every warp already there).
    pub fn launched(&mut self, slot: usize) {
        self.by_age.push(slot);
        self.pending.push_back(slot);
        self.stale = true;
    }

    /// The warp in `slot` left the SM.
    pub fn retired(&mut self, slot: usize) {
        self.priority &= !(1 << slot);
        self.by_age.retain(|&s| s != slot);
        self.pool.retain(|&s| s != slot);
        self.pending.retain(|&s| s != slot);
        if self.last == Some(slot) {
            self.last = None;
        }
        self.stale = true;
    }

    /// The warp in `slot` exited: it never issues again, so the two-level policy drops it from
    /// its pool and queue (it stays in the age order until it retires).
    pub fn exited(&mut self, slot: usize) {
        if self.policy == SchedulerPolicy::TwoLevel {
            self.pool.retain(|&s| s != slot);
            self.pending.retain(|&s| s != slot);
            self.stale = true;
        }
    }

    /// The warp in `slot` issued.
    pub fn issued(&mut self, slot: usize) {
        if self.last != Some(slot) {
            self.last = Some(slot);
            self.stale = true;
        }
        self.prioritise(slot, false);
    }

    /// LAS: marks (or unmarks) the warp in `slot` to go first until it issues.
    pub fn prioritise(&mut self, slot: usize, first: bool) {
        let before = self.priority;
        if first {
            self.priority |= 1 << slot;
        } else {
            self.priority &= !(1 << slot);
        }
        self.stale |= self.priority != before;
    }

    /// Two-level: the warp in `slot` waits on a long-latency result; it leaves the pool.
    /// Returns whether anything changed.
    pub fn demote(&mut self, slot: usize) -> bool {
        if self.policy == SchedulerPolicy::TwoLevel
            && let Some(i) = self.pool.iter().position(|&s| s == slot)
        {
            self.pool.remove(i);
            self.pending.push_back(slot);
            self.stale = true;
            return true;
        }
        false
    }

    /// Fills `out` with the slots to consider this cycle, in priority order. The copying form
    /// of [`Scheduler::take_order`], which the SM uses; tests hold the two to the same order.
    pub fn order(&mut self, out: &mut Vec<usize>) {
        if self.policy == SchedulerPolicy::TwoLevel && self.pool.len() < self.active_size {
            self.stale |= !self.pending.is_empty();
        }
        if !self.stale {
            out.clone_from(&self.cached);
            return;
        }
        self.compute(out);
        self.cached.clone_from(out);
        self.stale = false;
    }

    /// The slots to consider this cycle, in priority order, lent without copying: `first` (if
    /// any), then the vector's slots other than `first`. Give the vector back with
    /// [`Scheduler::put_order`]; changes made meanwhile (an issue) take effect at the next
    /// call. GTO lends its age order itself, after the last issuer.
    pub fn take_order(&mut self) -> (Option<usize>, Vec<usize>) {
        if self.policy == SchedulerPolicy::Gto {
            return (self.last, std::mem::take(&mut self.by_age));
        }
        if self.policy == SchedulerPolicy::TwoLevel && self.pool.len() < self.active_size {
            self.stale |= !self.pending.is_empty();
        }
        let mut out = std::mem::take(&mut self.cached);
        if self.stale {
            self.compute(&mut out);
            self.stale = false;
        }
        (None, out)
    }

    /// Returns the vector lent by [`Scheduler::take_order`].
    pub fn put_order(&mut self, order: Vec<usize>) {
        if self.policy == SchedulerPolicy::Gto {
            self.by_age = order;
        } else {
            self.cached = order;
        }
    }

    fn compute(&mut self, out: &mut Vec<usize>) {
        out.clear();
        match self.policy {
            SchedulerPolicy::Lrr | SchedulerPolicy::Las => {
                let n = self.slots.len();
                let start = self
                    .last
                    .and_then(|l| self.slots.iter().position(|&s| s == l))
                    .map_or(0, |i| i + 1);
                let lrr = (0..n).map(|k| self.slots[(start + k) % n]);
                let first = |&s: &usize| self.priority & (1 << s) != 0;
                out.extend(lrr.clone().filter(first));
                out.extend(lrr.filter(|s| !first(s)));
            }
            SchedulerPolicy::Gto => {
                if let Some(l) = self.last {
                    out.push(l);
                }
                out.extend(
                    self.by_age
                        .iter()
                        .copied()
                        .filter(|&s| Some(s) != self.last),
                );
            }
            SchedulerPolicy::TwoLevel => {
                while self.pool.len() < self.active_size {
                    let Some(s) = self.pending.pop_front() else {
                        break;
                    };
                    self.pool.push(s);
                }
                let n = self.pool.len();
                let start = self
                    .last
                    .and_then(|l| self.pool.iter().position(|&s| s == l))
                    .map_or(0, |i| i + 1);
                out.extend((0..n).map(|k| self.pool[(start + k) % n]));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lent order, flattened.
    fn lent(s: &mut Scheduler) -> Vec<usize> {
        let (first, rest) = s.take_order();
        let out = first
            .into_iter()
            .chain(rest.iter().copied().filter(|&x| Some(x) != first))
            .collect();
        s.put_order(rest);
        out
    }

    #[test]
    fn lent_orders_match_computed_ones() {
        for policy in [
            SchedulerPolicy::Lrr,
            SchedulerPolicy::Gto,
            SchedulerPolicy::TwoLevel,
            SchedulerPolicy::Las,
        ] {
            let mut s = Scheduler::new(policy, 2, vec![0, 1, 2, 3]);
            for slot in [2, 0, 3, 1] {
                s.launched(slot);
            }
            let mut out = Vec::new();
            for step in 0..6 {
                let mut copy = s.clone();
                copy.order(&mut out);
                assert_eq!(lent(&mut s), out, "{policy:?} step {step}");
                s.issued(out[step % out.len()]);
                if step == 3 {
                    s.demote(out[0]);
                    s.retired(1);
                }
            }
        }
    }

    #[test]
    fn lrr_starts_after_the_last_issuer() {
        let mut s = Scheduler::new(SchedulerPolicy::Lrr, 8, vec![0, 2, 4, 6]);
        let mut out = Vec::new();
        s.order(&mut out);
        assert_eq!(out, [0, 2, 4, 6]);
        s.issued(4);
        s.order(&mut out);
        assert_eq!(out, [6, 0, 2, 4]);
    }

    #[test]
    fn las_puts_marked_warps_first_until_they_issue() {
        let mut s = Scheduler::new(SchedulerPolicy::Las, 8, vec![0, 2, 4, 6]);
        let mut out = Vec::new();
        s.issued(2);
        s.order(&mut out);
        assert_eq!(out, [4, 6, 0, 2], "LRR without marks");
        // Marked warps first, in LRR order among themselves.
        s.prioritise(0, true);
        s.prioritise(6, true);
        s.order(&mut out);
        assert_eq!(out, [6, 0, 4, 2]);
        // Issuing clears the mark (and moves the round robin on).
        s.issued(6);
        s.order(&mut out);
        assert_eq!(out, [0, 2, 4, 6]);
        s.prioritise(0, false);
        s.prioritise(4, true);
        s.order(&mut out);
        assert_eq!(out, [4, 0, 2, 6]);
    }

    #[test]
    fn gto_is_greedy_then_oldest() {
        let mut s = Scheduler::new(SchedulerPolicy::Gto, 8, vec![0, 1, 2, 3]);
        for slot in [2, 0, 3] {
            s.launched(slot);
        }
        let mut out = Vec::new();
        s.order(&mut out);
        assert_eq!(out, [2, 0, 3]);
        s.issued(3);
        s.order(&mut out);
        assert_eq!(out, [3, 2, 0]);
        s.retired(2);
        s.order(&mut out);
        assert_eq!(out, [3, 0]);
    }

    #[test]
    fn an_exited_warp_makes_room_in_the_two_level_pool() {
        let mut s = Scheduler::new(SchedulerPolicy::TwoLevel, 2, vec![0, 1, 2]);
        for slot in 0..3 {
            s.launched(slot);
        }
        let mut out = Vec::new();
        s.order(&mut out);
        assert_eq!(out, [0, 1]);
        s.exited(0);
        s.order(&mut out);
        assert_eq!(out, [1, 2]);
        // Never promoted again.
        s.exited(1);
        s.order(&mut out);
        assert_eq!(out, [2]);
    }

    #[test]
    fn two_level_demotes_long_latency_waiters() {
        let mut s = Scheduler::new(SchedulerPolicy::TwoLevel, 2, vec![0, 1, 2, 3]);
        for slot in 0..4 {
            s.launched(slot);
        }
        let mut out = Vec::new();
        s.order(&mut out);
        assert_eq!(out, [0, 1]);
        s.demote(0);
        s.order(&mut out);
        assert_eq!(out, [1, 2]);
        s.demote(1);
        s.demote(2);
        s.order(&mut out);
        assert_eq!(out, [3, 0]);
    }
}
