//! A fixed-capacity dense bit set, the working set type of the dataflow analyses (liveness sets
//! of virtual registers, loop bodies, visited marks), and a sparse set for walks that visit
//! the members at every step.
//!
//! Dense words rather than a sorted vector or a hash set: liveness over thousands of registers
//! and tens of thousands of instructions spends its time in whole-set unions and differences,
//! which are a few machine words per 64 registers here. Iterating a [`BitSet`] costs a word per
//! 64 indices of capacity, however few members it has; a walk that iterates the set at every
//! instruction of a function with many registers uses a [`SparseSet`] instead, whose iteration
//! costs only its members.

use std::fmt;

/// A set of indices in `0..capacity`, one bit each.
#[derive(Clone, PartialEq, Eq, Hash, Default)]
pub struct BitSet {
    words: Vec<u64>,
    capacity: usize,
}

impl BitSet {
    /// An empty set able to hold indices `0..capacity`.
    pub fn new(capacity: usize) -> BitSet {
        BitSet {
            words: vec![0; capacity.div_ceil(64)],
            capacity,
        }
    }

    /// The number of indices the set can hold.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Adds `i`; returns whether it was absent. Indices past the capacity are ignored (and
    /// reported as not inserted), so analyses of unverified functions cannot panic here.
    pub fn insert(&mut self, i: usize) -> bool {
        if i >= self.capacity {
            return false;
        }
        let (w, b) = (i / 64, 1u64 << (i % 64));
        let absent = self.words[w] & b == 0;
        self.words[w] |= b;
        absent
    }

    /// Removes `i`; returns whether it was present.
    pub fn remove(&mut self, i: usize) -> bool {
        if i >= self.capacity {
            return false;
        }
        let (w, b) = (i / 64, 1u64 << (i % 64));
        let present = self.words[w] & b != 0;
        self.words[w] &= !b;
        present
    }

    /// Whether `i` is in the set.
    pub fn contains(&self, i: usize) -> bool {
        i < self.capacity && self.words[i / 64] & (1u64 << (i % 64)) != 0
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Whether the set has no elements.
    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|&w| w == 0)
    }

    /// Removes every element.
    pub fn clear(&mut self) {
        self.words.fill(0);
    }

    /// Makes `self` equal to `other` without reallocating (capacities must match).
    pub fn copy_from(&mut self, other: &BitSet) {
        debug_assert_eq!(self.capacity, other.capacity);
        self.words.copy_from_slice(&other.words);
    }

    /// `self ∪= other`; returns whether `self` changed.
    pub fn union_with(&mut self, other: &BitSet) -> bool {
        let mut changed = false;
        for (a, &b) in self.words.iter_mut().zip(&other.words) {
            let new = *a | b;
            changed |= new != *a;
            *a = new;
        }
        changed
    }

    /// `self −= other`.
    pub fn subtract(&mut self, other: &BitSet) {
        for (a, &b) in self.words.iter_mut().zip(&other.words) {
            *a &= !b;
        }
    }

    /// `self ∩= other`.
    pub fn intersect_with(&mut self, other: &BitSet) {
        for (a, &b) in self.words.iter_mut().zip(&other.words) {
            *a &= b;
        }
    }

    /// The elements in increasing order.
    pub fn iter(&self) -> BitSetIter<'_> {
        BitSetIter {
            words: &self.words,
            index: 0,
            current: self.words.first().copied().unwrap_or(0),
        }
    }
}

impl fmt::Debug for BitSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

impl<'a> IntoIterator for &'a BitSet {
    type Item = usize;
    type IntoIter = BitSetIter<'a>;

    fn into_iter(self) -> BitSetIter<'a> {
        self.iter()
    }
}

/// Iterator over a [`BitSet`]'s elements, in increasing order.
pub struct BitSetIter<'a> {
    words: &'a [u64],
    index: usize,
    current: u64,
}

impl Iterator for BitSetIter<'_> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        loop {
            if self.current != 0 {
                let bit = self.current.trailing_zeros() as usize;
                self.current &= self.current - 1;
                return Some(self.index * 64 + bit);
            }
            self.index += 1;
            self.current = *self.words.get(self.index)?;
        }
    }
}

/// A set of indices in `0..capacity` with constant-time insertion, removal and membership and
/// iteration in time proportional to its size (Briggs and Torczon's sparse set): the members in
/// a dense array, and each index's position in it. Iteration order is insertion order, except
/// that a removal moves the last member into the removed one's place.
#[derive(Clone, Debug, Default)]
pub struct SparseSet {
    members: Vec<u32>,
    /// Position in `members` of each index; meaningful only for members.
    position: Vec<u32>,
}

impl SparseSet {
    /// An empty set able to hold indices `0..capacity` (`capacity` at most 2^32).
    pub fn new(capacity: usize) -> SparseSet {
        SparseSet {
            members: Vec::new(),
            position: vec![0; capacity],
        }
    }

    /// Whether `i` is in the set (indices past the capacity never are).
    pub fn contains(&self, i: usize) -> bool {
        self.position
            .get(i)
            .is_some_and(|&p| self.members.get(p as usize) == Some(&(i as u32)))
    }

    /// Adds `i`; returns whether it was absent. Indices past the capacity are ignored.
    pub fn insert(&mut self, i: usize) -> bool {
        if i >= self.position.len() || self.contains(i) {
            return false;
        }
        self.position[i] = self.members.len() as u32;
        self.members.push(i as u32);
        true
    }

    /// Removes `i`; returns whether it was present.
    pub fn remove(&mut self, i: usize) -> bool {
        if !self.contains(i) {
            return false;
        }
        let at = self.position[i] as usize;
        let last = self.members.pop().expect("a member was found");
        if last as usize != i {
            self.members[at] = last;
            self.position[last as usize] = at as u32;
        }
        true
    }

    /// Removes every element, in time proportional to their number.
    pub fn clear(&mut self) {
        self.members.clear();
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.members.len()
    }

    /// Whether the set has no elements.
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// The elements, in the order described on the type.
    pub fn as_slice(&self) -> &[u32] {
        &self.members
    }
}

#[cfg(test)]
mod tests {
    use super::{BitSet, SparseSet};

    #[test]
    fn sparse_set_insert_remove_iterate() {
        let mut s = SparseSet::new(10);
        assert!(s.insert(3));
        assert!(s.insert(7));
        assert!(s.insert(0));
        assert!(!s.insert(7));
        assert!(!s.insert(10));
        assert_eq!(s.as_slice(), [3, 7, 0]);
        assert!(s.remove(3));
        assert!(!s.remove(3));
        assert!(!s.contains(3) && s.contains(0) && s.contains(7));
        assert_eq!(s.as_slice(), [0, 7]);
        s.clear();
        assert!(s.is_empty() && !s.contains(0));
        assert!(s.insert(0));
        assert_eq!(s.len(), 1);
    }

    #[test]
    fn insert_remove_iterate() {
        let mut s = BitSet::new(130);
        assert!(s.insert(0));
        assert!(s.insert(64));
        assert!(s.insert(129));
        assert!(!s.insert(129));
        assert!(!s.insert(130));
        assert_eq!(s.iter().collect::<Vec<_>>(), [0, 64, 129]);
        assert!(s.remove(64));
        assert_eq!(s.len(), 2);
        let mut t = BitSet::new(130);
        t.insert(5);
        assert!(t.union_with(&s));
        assert!(!t.union_with(&s));
        t.subtract(&s);
        assert_eq!(t.iter().collect::<Vec<_>>(), [5]);
        assert!(BitSet::new(0).iter().next().is_none());
    }
}
