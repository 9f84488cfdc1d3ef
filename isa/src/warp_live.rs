//! Warp-level register demand per PC: how many 32-bit registers a warp must hold while its
//! next instruction is at a PC, whatever lanes are waiting elsewhere on its SIMT stack.
//!
//! [`crate::hints`]' live sets are per-thread facts. A warp that diverged runs one side of a
//! branch while the lanes of the other side wait, so a register read only on the waiting side
//! (or only after the reconvergence point) holds a value throughout the side running now,
//! although no path through that side reads it. RegMutex's compiler makes the same
//! conservative assumption (seed 000, §4.3.1, on Figure 4.3): a register live when a warp may
//! diverge stays live in every block up to the branch's reconvergence point (its immediate
//! post-dominator), and a register defined inside the region and read after it is live on
//! every side.
//!
//! So, for every potentially divergent branch (guarded and not `.uni`) ending block `b` and
//! reconverging at block `p`, every block reachable from `b` without passing `p` holds
//! `live_out(b) ∪ live_in(p)` as well. The demand at a PC is the size of
//! `live_in ∪ live_out ∪ writes` (the instruction's own results need registers even when
//! nothing reads them), together with what the enclosing regions hold.
//!
//! A PC-level upper bound rather than the exact union over a running warp's SIMT stack: a
//! compiler placing acquire and release points (RegMutex) cannot see which lanes diverge.

use crate::cfg::Cfg;
use crate::dom::{PostDominators, Reconvergence};
use crate::function::{BlockId, Function};
use crate::hints::FunctionHints;

/// The warp-level register demand of every PC of `f` (whose hints are `hints`), in PC order
/// (see the module docs). `O(D·B·W + I·W)` for `D` divergent branches, `B` blocks, `I`
/// instructions and `W` words per register set.
pub fn warp_live_counts(f: &Function, hints: &FunctionHints) -> Vec<u32> {
    let n = hints.len();
    if n == 0 {
        return Vec::new();
    }
    let words = hints.live_in(0).words().len();
    let cfg = Cfg::compute(f);
    let postdom = PostDominators::compute(f, &cfg);
    let mut block_pc = Vec::with_capacity(f.blocks.len());
    let mut pc = 0u32;
    for b in &f.blocks {
        block_pc.push(pc);
        pc += b.insts.len() as u32;
    }
    // What each block holds for lanes elsewhere on the SIMT stack.
    let mut held = vec![0u64; f.blocks.len() * words];
    let mut extra = vec![0u64; words];
    let mut seen = vec![false; f.blocks.len()];
    let mut stack = Vec::new();
    for (bi, block) in f.blocks.iter().enumerate() {
        let b = BlockId(bi as u32);
        let Some(rp) = postdom.reconvergence_point(b) else {
            continue;
        };
        let branch = block_pc[bi] + block.insts.len() as u32 - 1;
        extra.copy_from_slice(hints.live_out(branch).words());
        let stop = match rp {
            Reconvergence::Block(p) => {
                // An empty reconvergence block starts where the next instruction is.
                let at = block_pc[p.index()];
                if (at as usize) < n {
                    for (e, w) in extra.iter_mut().zip(hints.live_in(at).words()) {
                        *e |= w;
                    }
                }
                Some(p)
            }
            Reconvergence::Exit => None,
        };
        seen.fill(false);
        stack.clear();
        stack.extend(cfg.succs(b).iter().copied().filter(|&s| Some(s) != stop));
        while let Some(r) = stack.pop() {
            if std::mem::replace(&mut seen[r.index()], true) {
                continue;
            }
            for (h, e) in held[r.index() * words..][..words].iter_mut().zip(&extra) {
                *h |= e;
            }
            stack.extend(cfg.succs(r).iter().copied().filter(|&s| Some(s) != stop));
        }
    }
    let mut counts = Vec::with_capacity(n);
    let mut set = vec![0u64; words];
    for (bi, block) in f.blocks.iter().enumerate() {
        for pc in block_pc[bi]..block_pc[bi] + block.insts.len() as u32 {
            set.copy_from_slice(&held[bi * words..][..words]);
            for (s, (a, b)) in set.iter_mut().zip(
                hints
                    .live_in(pc)
                    .words()
                    .iter()
                    .zip(hints.live_out(pc).words()),
            ) {
                *s |= a | b;
            }
            for &r in hints.writes(pc) {
                set[r as usize / 64] |= 1 << (r % 64);
            }
            counts.push(set.iter().map(|w| w.count_ones()).sum());
        }
    }
    counts
}
