//! Register pressure: how many 32-bit registers are needed at each instruction, and the
//! instruction where the most are, with what is live there. No allocation can use fewer
//! registers than the peak (without changing the program), so the peak says whether a count
//! above `ptxas -v`'s comes from the allocator or from the program's live ranges
//! (`warpsim regs --why` prints it).
//!
//! The pressure at an instruction counts what the allocator must keep apart there: the
//! registers live after it and its own destinations, each by the 32-bit registers the caller
//! says it occupies (its physical register's: a 64-bit value one or two, a launch constant
//! none; see [`crate::storage`]). Predicates are left out (they have their own file).

use crate::function::{BlockId, Function, VReg};
use crate::liveness::Liveness;
use crate::types::RegClass;

/// The point of highest pressure of a function's 32-bit register file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Peak {
    /// The block of the instruction.
    pub block: BlockId,
    /// The instruction's index in its block.
    pub inst: usize,
    /// 32-bit registers needed there.
    pub regs: u32,
    /// What is live there (after the instruction, and its destinations), in register order.
    pub live: Vec<VReg>,
}

/// The first instruction of `f`, in layout order, of highest 32-bit register pressure, where
/// `width(v)` is the number of 32-bit registers virtual register `v` occupies (0 for
/// predicates; see the module docs). Unreachable blocks count too (the allocator gives their
/// registers room as well). `None` for a function without instructions.
/// `O(B·V/64 + I log V + live registers at each instruction)`.
pub fn peak(f: &Function, liveness: &Liveness, width: impl Fn(VReg) -> u32) -> Option<Peak> {
    let n = f.regs.len();
    let mut best: Option<(u32, BlockId, usize)> = None;
    for b in f.block_ids() {
        liveness.walk_forward(f, b, |i, inst, live_after| {
            let mut regs: u32 = live_after.iter().map(|&v| width(VReg(v))).sum();
            for d in inst.defs() {
                if d.index() < n && !live_after.contains(&d.0) {
                    regs += width(d);
                }
            }
            if best.is_none_or(|(r, _, _)| regs > r) {
                best = Some((regs, b, i));
            }
        });
    }
    let (regs, block, inst) = best?;
    let mut live: Vec<VReg> = Vec::new();
    liveness.walk_forward(f, block, |i, at, live_after| {
        if i == inst {
            live = live_after.iter().map(|&v| VReg(v)).collect();
            live.extend(at.defs().filter(|d| d.index() < n));
            live.sort_unstable();
            live.dedup();
            live.retain(|&v| f.regs[v.index()].class() != RegClass::Pred);
        }
    });
    Some(Peak {
        block,
        inst,
        regs,
        live,
    })
}
