//! Per-warp scoreboard: the registers (and predicates) with writes in flight. An instruction
//! may issue only when none of the registers it reads (RAW) or writes (WAW) is pending and an
//! entry is free for each register it writes.

/// One warp's pending writes.
#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    /// Pending register identities, with whether the write comes from a long-latency
    /// (global/local memory) instruction.
    pending: Vec<(u32, bool)>,
    capacity: usize,
}

/// Why an instruction cannot issue yet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hazard {
    /// A register it reads or writes has a write in flight; `long` when that write is a
    /// long-latency memory result.
    Pending { long: bool },
    /// Not enough free entries for its destinations.
    Full,
}

impl Scoreboard {
    pub fn new(capacity: u32) -> Scoreboard {
        Scoreboard {
            pending: Vec::with_capacity(capacity as usize),
            capacity: capacity as usize,
        }
    }

    pub fn clear(&mut self) {
        self.pending.clear();
    }

    pub fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }

    /// Whether an instruction reading `reads` and writing `writes` may issue.
    pub fn check(&self, reads: &[u32], writes: &[u32]) -> Result<(), Hazard> {
        let mut blocked: Option<bool> = None;
        for &(r, long) in &self.pending {
            if reads.contains(&r) || writes.contains(&r) {
                blocked = Some(blocked.unwrap_or(false) | long);
            }
        }
        if let Some(long) = blocked {
            return Err(Hazard::Pending { long });
        }
        if self.pending.len() + writes.len() > self.capacity.max(writes.len()) {
            return Err(Hazard::Full);
        }
        Ok(())
    }

    /// Marks `writes` pending.
    pub fn reserve(&mut self, writes: &[u32], long: bool) {
        self.pending.extend(writes.iter().map(|&r| (r, long)));
    }

    /// Clears `writes` (their results were written back).
    pub fn release(&mut self, writes: &[u32]) {
        self.pending.retain(|(r, _)| !writes.contains(r));
    }

    /// Pending register identities (for deadlock reports).
    pub fn pending(&self) -> impl Iterator<Item = u32> + '_ {
        self.pending.iter().map(|(r, _)| *r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_and_waw_block_until_release() {
        let mut sb = Scoreboard::new(4);
        sb.reserve(&[3, 4], false);
        // RAW on r3.
        assert_eq!(sb.check(&[3], &[7]), Err(Hazard::Pending { long: false }));
        // WAW on r4.
        assert_eq!(sb.check(&[1], &[4]), Err(Hazard::Pending { long: false }));
        // Independent.
        assert_eq!(sb.check(&[1, 2], &[5]), Ok(()));
        sb.release(&[3, 4]);
        assert_eq!(sb.check(&[3], &[4]), Ok(()));
    }

    #[test]
    fn long_latency_writes_are_flagged_and_entries_are_limited() {
        let mut sb = Scoreboard::new(2);
        sb.reserve(&[8], true);
        assert_eq!(sb.check(&[8], &[]), Err(Hazard::Pending { long: true }));
        assert_eq!(sb.check(&[], &[9, 10]), Err(Hazard::Full));
        assert_eq!(sb.check(&[], &[9]), Ok(()));
    }
}
