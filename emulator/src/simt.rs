//! The SIMT reconvergence stack of one warp in one function frame.
//!
//! Each entry is (next PC, reconvergence PC, active mask). The top entry runs. A branch that
//! splits the active lanes turns the top entry into the reconvergence entry (its PC becomes the
//! branch's immediate post-dominator) and pushes one entry per side; an entry whose PC reaches
//! its reconvergence PC, or whose lanes all left, is popped. This is the post-dominator stack of
//! GPGPU-Sim and of the architecture literature.

use crate::program::EXIT_PC;

/// One stack entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SimtEntry {
    pub pc: u32,
    /// Where this entry's lanes rejoin the entry below ([`EXIT_PC`] for the bottom entry).
    pub rpc: u32,
    pub mask: u32,
}

/// Counters of divergence events, for statistics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SimtStats {
    /// Conditional branches whose lanes went both ways.
    pub divergent_branches: u64,
    /// Entries popped because their lanes reached the reconvergence point.
    pub reconvergences: u64,
    /// Deepest stack seen.
    pub max_depth: usize,
}

/// The stack, with its divergence counters.
#[derive(Clone, Debug)]
pub struct SimtStack {
    entries: Vec<SimtEntry>,
    pub stats: SimtStats,
}

impl SimtStack {
    /// A stack whose lanes in `mask` start at `pc`.
    pub fn new(pc: u32, mask: u32) -> SimtStack {
        SimtStack {
            entries: vec![SimtEntry {
                pc,
                rpc: EXIT_PC,
                mask,
            }],
            stats: SimtStats {
                max_depth: 1,
                ..SimtStats::default()
            },
        }
    }

    /// Empties the stack and starts lanes `mask` at `pc` again, keeping its storage.
    pub fn reset(&mut self, pc: u32, mask: u32) {
        self.entries.clear();
        self.entries.push(SimtEntry {
            pc,
            rpc: EXIT_PC,
            mask,
        });
        self.stats = SimtStats {
            max_depth: 1,
            ..SimtStats::default()
        };
    }

    pub fn top(&self) -> Option<&SimtEntry> {
        self.entries.last()
    }

    pub fn entries(&self) -> &[SimtEntry] {
        &self.entries
    }

    pub fn depth(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Moves the top entry to `pc` (straight-line execution); lanes arriving at their
    /// reconvergence point rejoin the entry below.
    pub fn goto(&mut self, pc: u32) {
        if let Some(top) = self.entries.last_mut() {
            top.pc = pc;
        }
        self.pop_finished();
    }

    /// The PC [`SimtStack::goto`]`(pc)` would leave on top, without changing the stack (`None`
    /// when every entry would be popped): where straight-line execution continues.
    pub fn peek_goto(&self, pc: u32) -> Option<u32> {
        self.peek_straight(pc, 1)
    }

    /// The PC on top after a [`SimtStack::goto`]`(first)` and then `n - 1` more, each to the
    /// PC after the top's (straight-line execution of `n` instructions, the first one's
    /// successor being `first`), without changing the stack; `None` when every entry would be
    /// popped.
    pub fn peek_straight(&self, first: u32, n: usize) -> Option<u32> {
        let mut depth = self.entries.len();
        let mut at = SimtEntry {
            pc: first,
            ..*self.entries.last()?
        };
        for k in 0..n.max(1) {
            if k > 0 {
                at.pc += 1;
            }
            // Lanes that reached their reconvergence point rejoin the entry below.
            while at.mask == 0 || at.pc == at.rpc {
                depth -= 1;
                at = *self.entries[..depth].last()?;
            }
        }
        Some(at.pc)
    }

    /// Sets the top entry's PC without reconverging (to point a fault report at an instruction
    /// inside compiled code).
    pub fn set_pc(&mut self, pc: u32) {
        if let Some(top) = self.entries.last_mut() {
            top.pc = pc;
        }
    }

    /// Resolves a conditional branch of the top entry: lanes in `taken` go to `target`, the
    /// others to `fallthrough`, and both sides rejoin at `rpc`. (As in GPGPU-Sim, a branch
    /// whose reconvergence point is the top entry's own needs no new reconvergence entry.)
    pub fn branch(&mut self, taken: u32, target: u32, fallthrough: u32, rpc: u32) {
        let Some(top) = self.entries.last_mut() else {
            return;
        };
        let active = top.mask;
        let taken = taken & active;
        if taken == active {
            top.pc = target;
        } else if taken == 0 {
            top.pc = fallthrough;
        } else {
            self.stats.divergent_branches += 1;
            if rpc == top.rpc {
                // The entry below already waits at `rpc` with these lanes: the two sides can
                // replace the top entry instead of stacking on it, so a loop that sheds lanes
                // on every iteration does not grow the stack.
                self.entries.pop();
            } else {
                top.pc = rpc;
            }
            // The fall-through side runs second, the taken side first. A side that starts at
            // the reconvergence point needs no entry: its lanes wait in the entry below.
            for (pc, mask) in [(fallthrough, active & !taken), (target, taken)] {
                if pc != rpc {
                    self.entries.push(SimtEntry { pc, rpc, mask });
                }
            }
            self.stats.max_depth = self.stats.max_depth.max(self.entries.len());
        }
        self.pop_finished();
    }

    /// Serialises the top entry's instruction over `groups` (disjoint lane masks, the first to
    /// run first; more than one): the top entry waits at `rpc` with all its lanes, and each
    /// group gets an entry at the instruction that rejoins it at `rpc`. A divergent indirect
    /// call runs once per distinct target this way.
    pub fn serialize(&mut self, groups: &[u32], rpc: u32) {
        let Some(top) = self.entries.last_mut() else {
            return;
        };
        if groups.len() < 2 {
            return;
        }
        let pc = top.pc;
        top.pc = rpc;
        for &mask in groups.iter().rev() {
            self.entries.push(SimtEntry { pc, rpc, mask });
        }
        self.stats.max_depth = self.stats.max_depth.max(self.entries.len());
    }

    /// Removes lanes from every entry (they exited or returned).
    pub fn remove_lanes(&mut self, lanes: u32) {
        for e in &mut self.entries {
            e.mask &= !lanes;
        }
        self.pop_finished();
    }

    /// Pops entries that reached their reconvergence point or have no lanes left.
    pub fn pop_finished(&mut self) {
        while let Some(top) = self.entries.last() {
            if top.mask == 0 {
                self.entries.pop();
            } else if top.pc == top.rpc {
                self.entries.pop();
                self.stats.reconvergences += 1;
            } else {
                break;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn if_else_diverges_and_reconverges() {
        let mut s = SimtStack::new(0, 0xff);
        // pc 2: @p bra 6 (taken by the low nibble), fall through to 3, reconverge at 9.
        s.goto(2);
        s.branch(0x0f, 6, 3, 9);
        assert_eq!(s.depth(), 3);
        assert_eq!(
            *s.top().unwrap(),
            SimtEntry {
                pc: 6,
                rpc: 9,
                mask: 0x0f
            }
        );
        s.goto(9); // taken side reaches the reconvergence point
        s.pop_finished();
        assert_eq!(
            *s.top().unwrap(),
            SimtEntry {
                pc: 3,
                rpc: 9,
                mask: 0xf0
            }
        );
        s.goto(9);
        s.pop_finished();
        assert_eq!(
            *s.top().unwrap(),
            SimtEntry {
                pc: 9,
                rpc: EXIT_PC,
                mask: 0xff
            }
        );
        assert_eq!(
            (
                s.stats.divergent_branches,
                s.stats.reconvergences,
                s.stats.max_depth
            ),
            (1, 2, 3)
        );
    }

    /// `peek_goto` names the PC `goto` leaves on top, across reconvergences, and changes nothing.
    #[test]
    fn peek_goto_sees_where_goto_goes() {
        let mut s = SimtStack::new(0, 0xff);
        s.branch(0x0f, 6, 3, 9);
        let before = s.clone();
        assert_eq!(s.peek_goto(7), Some(7), "straight on");
        assert_eq!(
            s.peek_goto(9),
            Some(3),
            "the taken side reconverges: the other side runs"
        );
        assert_eq!(s.entries(), before.entries());
        // The taken side's instructions at 6, 7 and 8: its lanes then reconverge at 9, and
        // the other side's first (3) is next.
        assert_eq!(s.peek_straight(7, 2), Some(8));
        assert_eq!(s.peek_straight(7, 3), Some(3));
        let mut walked = s.clone();
        for pc in [7, 8, 9, 4] {
            walked.goto(pc);
        }
        assert_eq!(walked.top().map(|t| t.pc), s.peek_straight(7, 4));
        for (pc, expect) in [(9, Some(3)), (9, Some(9)), (EXIT_PC, None)] {
            assert_eq!(s.peek_goto(pc), expect);
            s.goto(pc);
            assert_eq!(s.top().map(|t| t.pc), expect);
        }
    }

    #[test]
    fn loop_exit_side_waits_at_the_reconvergence_point() {
        let mut s = SimtStack::new(5, 0b111);
        // Back edge at pc 5 to 2; lanes leaving the loop fall through to 6 = reconvergence.
        s.branch(0b011, 2, 6, 6);
        assert_eq!(
            s.depth(),
            2,
            "no entry is pushed for the side already at the reconvergence point"
        );
        assert_eq!(
            *s.top().unwrap(),
            SimtEntry {
                pc: 2,
                rpc: 6,
                mask: 0b011
            }
        );
        // Next iteration: one more lane leaves; the stack does not grow.
        s.goto(5);
        s.branch(0b001, 2, 6, 6);
        assert_eq!(s.depth(), 2);
        assert_eq!(
            *s.top().unwrap(),
            SimtEntry {
                pc: 2,
                rpc: 6,
                mask: 0b001
            }
        );
        s.remove_lanes(0b001); // the last looping lane exits
        assert_eq!(
            *s.top().unwrap(),
            SimtEntry {
                pc: 6,
                rpc: EXIT_PC,
                mask: 0b110
            }
        );
    }

    #[test]
    fn uniform_branches_do_not_push() {
        let mut s = SimtStack::new(0, 0b11);
        s.branch(0b11, 7, 1, 9);
        assert_eq!((s.depth(), s.top().unwrap().pc), (1, 7));
        s.branch(0, 7, 8, 9);
        assert_eq!((s.depth(), s.top().unwrap().pc), (1, 8));
    }
}
