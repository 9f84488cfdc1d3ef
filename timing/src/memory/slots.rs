//! A port that passes one packet a cycle, booked out of order: the cycles taken are kept as
//! runs, so finding the first free cycle behind a long busy stretch costs a lookup, not a
//! walk over every cycle of it.

use std::collections::BTreeMap;

/// The cycles of a one-packet-a-cycle port already taken, as runs `start -> end` (end
/// exclusive, runs never touching).
#[derive(Clone, Debug, Default)]
pub(super) struct Slots {
    runs: BTreeMap<u64, u64>,
}

impl Slots {
    /// Takes the first free cycle at or after `at`; returns it.
    pub(super) fn book(&mut self, at: u64) -> u64 {
        // The run holding `at`, if any, ends at the first free cycle (runs never touch).
        let before = self.runs.range(..=at).next_back().map(|(&s, &e)| (s, e));
        let cycle = match before {
            Some((_, end)) if end > at => end,
            _ => at,
        };
        // Join the run ending at `cycle` and the one starting just after it.
        let start = match before {
            Some((s, end)) if end >= cycle => s,
            _ => cycle,
        };
        let end = match self.runs.remove(&(cycle + 1)) {
            Some(e) => e,
            None => cycle + 1,
        };
        self.runs.insert(start, end);
        cycle
    }

    /// Forgets the cycles before `cycle`: nothing is booked before it any more.
    pub(super) fn forget_before(&mut self, cycle: u64) {
        while let Some((&s, &e)) = self.runs.first_key_value() {
            if e > cycle {
                break;
            }
            self.runs.remove(&s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_cycle_is_booked_once_earliest_first() {
        let mut s = Slots::default();
        assert_eq!(s.book(10), 10);
        assert_eq!(s.book(10), 11);
        assert_eq!(s.book(5), 5, "an earlier free cycle is still free");
        assert_eq!(s.book(9), 9, "it joins the run after it");
        assert_eq!(s.book(9), 12, "9..=11 are one run now");
        assert_eq!(s.book(6), 6);
        assert_eq!(s.book(7), 7);
        assert_eq!(s.book(8), 8, "fills the gap, joining both runs");
        assert_eq!(s.book(5), 13);
        assert_eq!(s.runs.len(), 1);
    }

    /// Against a plain set of taken cycles, on a pseudo-random sequence of bookings.
    #[test]
    fn matches_a_cycle_by_cycle_scan() {
        let mut s = Slots::default();
        let mut taken = std::collections::BTreeSet::new();
        let mut x = 12345u64;
        for _ in 0..5000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let at = (x >> 33) % 3000;
            let mut c = at;
            while taken.contains(&c) {
                c += 1;
            }
            taken.insert(c);
            assert_eq!(s.book(at), c);
        }
    }

    #[test]
    fn forgetting_keeps_later_bookings() {
        let mut s = Slots::default();
        for _ in 0..4 {
            s.book(0);
        }
        s.book(20);
        s.forget_before(10);
        assert_eq!(s.book(20), 21);
        assert_eq!(s.book(2), 2, "forgotten cycles are free again");
    }
}
