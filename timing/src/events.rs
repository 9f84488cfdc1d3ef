//! The write-back queue of an SM: in-flight instructions by the cycle their results are due,
//! in (cycle, insertion) order, as a binary heap of (cycle, sequence) would give them, but
//! with constant-time insertion and removal for the near future.
//!
//! Events due within [`RING`] cycles of the queue's base cycle go to the bucket of their
//! cycle (buckets keep insertion order); later ones wait in an overflow heap. An overflow
//! event of a cycle was always inserted before any bucketed event of the same cycle (it was
//! further ahead when inserted, and the base never moves back), so ties go to the overflow.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// Buckets (a power of two).
const RING: u64 = 256;

pub struct EventQueue {
    /// Bucket `c % RING` holds the events due at cycle `c`, for `base <= c < base + RING`.
    ring: Vec<VecDeque<usize>>,
    /// Events in the buckets.
    in_ring: usize,
    /// No bucketed event is due before this cycle; it only moves forward, never past the
    /// current cycle.
    base: u64,
    /// Later events: (cycle, sequence, item).
    overflow: BinaryHeap<Reverse<(u64, u64, usize)>>,
    seq: u64,
}

impl Default for EventQueue {
    fn default() -> EventQueue {
        EventQueue {
            ring: (0..RING).map(|_| VecDeque::new()).collect(),
            in_ring: 0,
            base: 0,
            overflow: BinaryHeap::new(),
            seq: 0,
        }
    }
}

impl EventQueue {
    pub fn is_empty(&self) -> bool {
        self.in_ring == 0 && self.overflow.is_empty()
    }

    /// Adds `item`, due at `cycle` (never before the cycle of the last `due` call).
    pub fn push(&mut self, cycle: u64, item: usize) {
        if cycle >= self.base && cycle - self.base < RING {
            self.ring[(cycle % RING) as usize].push_back(item);
            self.in_ring += 1;
        } else {
            self.seq += 1;
            self.overflow.push(Reverse((cycle, self.seq, item)));
        }
    }

    /// The first event due at or before `now`, if any: (is it in the overflow, item). Take it
    /// with [`EventQueue::pop`] before any other call.
    pub fn due(&mut self, now: u64) -> Option<(bool, usize)> {
        let ring = if self.in_ring == 0 {
            self.base = self.base.max(now);
            None
        } else {
            while self.base < now && self.ring[(self.base % RING) as usize].is_empty() {
                self.base += 1;
            }
            self.ring[(self.base % RING) as usize]
                .front()
                .filter(|_| self.base <= now)
                .map(|&item| (self.base, item))
        };
        let over = self
            .overflow
            .peek()
            .filter(|Reverse((c, _, _))| *c <= now)
            .map(|&Reverse((c, _, item))| (c, item));
        match (ring, over) {
            (Some((rc, item)), Some((oc, _))) if rc < oc => Some((false, item)),
            (_, Some((_, item))) => Some((true, item)),
            (Some((_, item)), None) => Some((false, item)),
            (None, None) => None,
        }
    }

    /// Removes the event `due` returned.
    pub fn pop(&mut self, overflow: bool) {
        if overflow {
            self.overflow.pop();
        } else {
            self.ring[(self.base % RING) as usize].pop_front();
            self.in_ring -= 1;
        }
    }

    /// The cycle of the earliest event, if any.
    pub fn first_cycle(&self) -> Option<u64> {
        let ring = if self.in_ring == 0 {
            None
        } else {
            (self.base..self.base + RING).find(|&c| !self.ring[(c % RING) as usize].is_empty())
        };
        let over = self.overflow.peek().map(|Reverse((c, _, _))| *c);
        [ring, over].into_iter().flatten().min()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against a heap of (cycle, sequence): the same items in the same order.
    #[test]
    fn pops_in_cycle_then_insertion_order() {
        let mut q = EventQueue::default();
        let mut heap = BinaryHeap::new();
        let mut seq = 0u64;
        let mut x = 12345u64;
        let mut rand = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut item = 0usize;
        for now in 0..20_000u64 {
            for _ in 0..rand() % 3 {
                let lat = match rand() % 4 {
                    0 => rand() % 2000,
                    _ => rand() % 40,
                } + 1;
                q.push(now + lat, item);
                seq += 1;
                heap.push(Reverse((now + lat, seq, item)));
                item += 1;
            }
            // At most a few per cycle, as write-back ports allow.
            for _ in 0..rand() % 3 {
                let want = heap
                    .peek()
                    .filter(|Reverse((c, _, _))| *c <= now)
                    .map(|Reverse((_, _, i))| *i);
                let got = q.due(now).map(|(over, i)| {
                    q.pop(over);
                    i
                });
                assert_eq!(got, want, "cycle {now}");
                if want.is_some() {
                    heap.pop();
                }
            }
            assert_eq!(
                q.first_cycle(),
                heap.peek().map(|Reverse((c, _, _))| *c),
                "cycle {now}"
            );
        }
    }
}
