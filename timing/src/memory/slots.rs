//! A port that passes one packet a cycle, booked out of order: a bit a cycle from the
//! earliest cycle still remembered, so finding the first free cycle behind a long busy
//! stretch tests 64 cycles at a time.

use std::collections::VecDeque;

/// The cycles of a one-packet-a-cycle port already taken: bit `i` of word `w` is cycle
/// `base + 64 w + i`. Cycles before `forgotten` are free whatever was booked there.
#[derive(Clone, Debug, Default)]
pub(super) struct Slots {
    base: u64,
    words: VecDeque<u64>,
    forgotten: u64,
}

impl Slots {
    /// Takes the first free cycle at or after `at`; returns it.
    pub(super) fn book(&mut self, at: u64) -> u64 {
        if at < self.forgotten {
            return at;
        }
        if self.words.is_empty() {
            self.base = at - at % 64;
        }
        while at < self.base {
            self.words.push_front(0);
            self.base -= 64;
        }
        let mut word = ((at - self.base) / 64) as usize;
        let mut below = (1u64 << ((at - self.base) % 64)) - 1;
        loop {
            if word >= self.words.len() {
                self.words.resize(word + 1, 0);
            }
            let taken = self.words[word] | below;
            if taken != u64::MAX {
                let bit = (!taken).trailing_zeros();
                self.words[word] |= 1 << bit;
                return self.base + word as u64 * 64 + u64::from(bit);
            }
            word += 1;
            below = 0;
        }
    }

    /// Forgets the cycles before `cycle`: nothing is booked before it any more.
    pub(super) fn forget_before(&mut self, cycle: u64) {
        self.forgotten = self.forgotten.max(cycle);
        while self.base + 64 <= cycle && self.words.pop_front().is_some() {
            self.base += 64;
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
        assert_eq!(s.book(9), 9);
        assert_eq!(s.book(9), 12, "9..=11 are taken");
        assert_eq!(s.book(6), 6);
        assert_eq!(s.book(7), 7);
        assert_eq!(s.book(8), 8, "fills the gap");
        assert_eq!(s.book(5), 13);
        assert_eq!(s.book(70), 70, "in a later word");
        assert_eq!(s.book(63), 63);
        assert_eq!(s.book(63), 64, "across a word's end");
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
        s.book(100);
        s.forget_before(70);
        assert_eq!(s.book(100), 101);
        assert_eq!(s.book(2), 2, "forgotten cycles are free again");
    }
}
