//! `cp.async` groups of one warp: which copies are still in flight, so that
//! `cp.async.wait_group n` holds the warp until at most its `n` most recent committed groups
//! are incomplete. The copies happen functionally at issue; here they take the time of a
//! global load (their shared-memory write is not modelled).
//!
//! PTX defines groups per thread; a warp's lanes issue the same `cp.async`, `commit_group`
//! and `wait_group` together, so the model keeps them per warp.

use crate::decode::AsyncCopyRole;
use std::collections::VecDeque;

/// One warp's copies in flight, by group.
#[derive(Clone, Debug, Default)]
pub(super) struct AsyncCopies {
    /// Sequence number of the open group (copies issued since the last commit).
    open: u64,
    /// Incomplete copies per group, oldest first: (group, count), no count zero.
    pending: VecDeque<(u64, u32)>,
}

impl AsyncCopies {
    /// Forgets everything (a new warp in the slot).
    pub(super) fn clear(&mut self) {
        self.open = 0;
        self.pending.clear();
    }

    /// A copy issued into the open group; returns that group, for [`AsyncCopies::complete`].
    pub(super) fn issue(&mut self) -> u64 {
        match self.pending.back_mut() {
            Some((g, count)) if *g == self.open => *count += 1,
            _ => self.pending.push_back((self.open, 1)),
        }
        self.open
    }

    /// A copy of `group` completed.
    pub(super) fn complete(&mut self, group: u64) {
        let i = self
            .pending
            .iter()
            .position(|&(g, _)| g == group)
            .expect("a completing copy is pending");
        self.pending[i].1 -= 1;
        if self.pending[i].1 == 0 {
            self.pending.remove(i);
        }
    }

    /// `cp.async.commit_group`: the open group closes.
    pub(super) fn commit(&mut self) {
        self.open += 1;
    }

    /// Whether `cp.async.wait_group n` (or `wait_all`) may issue now: at most `n` committed
    /// groups incomplete (`wait_all`: no copy at all, committed or not).
    pub(super) fn wait_may_pass(&self, n: u32, all: bool) -> bool {
        if all {
            return self.pending.is_empty();
        }
        let committed = self.pending.iter().filter(|&&(g, _)| g < self.open).count();
        committed <= n as usize
    }

    /// The role's effect once the instruction issued; a copy's group, when it is one.
    pub(super) fn on_issue(&mut self, role: AsyncCopyRole) -> Option<u64> {
        match role {
            AsyncCopyRole::None => None,
            AsyncCopyRole::Copy => Some(self.issue()),
            AsyncCopyRole::Commit | AsyncCopyRole::Wait { all: true, .. } => {
                self.commit();
                None
            }
            AsyncCopyRole::Wait { all: false, .. } => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wait_group_counts_committed_groups_only() {
        let mut c = AsyncCopies::default();
        let g0 = c.issue();
        c.issue();
        c.commit();
        let g1 = c.issue();
        c.commit();
        let open = c.issue();
        // Two committed groups in flight (and an open one, which no wait_group counts).
        assert!(!c.wait_may_pass(1, false));
        assert!(c.wait_may_pass(2, false));
        c.complete(g0);
        assert!(!c.wait_may_pass(1, false), "group 0 has a second copy");
        c.complete(g0);
        assert!(c.wait_may_pass(1, false));
        assert!(!c.wait_may_pass(0, false));
        c.complete(g1);
        assert!(c.wait_may_pass(0, false));
        assert!(
            !c.wait_may_pass(0, true),
            "wait_all waits for the open group too"
        );
        c.complete(open);
        assert!(c.wait_may_pass(0, true));
    }
}
