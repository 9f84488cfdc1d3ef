//! Warp-level register demand: a register a diverged warp holds for lanes waiting on the other
//! side of a branch counts on the side running now, up to the reconvergence point.

use isa::builder::{FunctionBuilder, addr, imm, reg};
use isa::warp_live::warp_live_counts;
use isa::{CmpOp, Dim, FuncKind, FunctionAnalysis, FunctionHints, Operand, SpecialReg};
use isa::{StateSpace, Type};

/// ```text
/// bb0: ld.param %rd1; mov %r1, %tid.x; mov %r2, %tid.y; setp %p, %r1, 0; @p bra bb2
/// bb1: add %r3, %r1, 1; st [%rd1], %r3; bra bb3      // reads %r1 only
/// bb2: st [%rd1+4], %r2                             // reads %r2 only
/// bb3: ret
/// ```
/// With `uniform`, the branch is `.uni`: no lanes wait, nothing extra is held.
fn diamond(uniform: bool) -> (FunctionAnalysis, FunctionHints, Vec<u32>, [u32; 2]) {
    let mut b = FunctionBuilder::new("k", FuncKind::Entry);
    let out = b.param("out", Type::U64);
    let (rd1, r1, r2, r3, p) = (
        b.reg("%rd1", Type::U64),
        b.reg("%r1", Type::U32),
        b.reg("%r2", Type::U32),
        b.reg("%r3", Type::U32),
        b.reg("%p1", Type::Pred),
    );
    let (left, right, join) = (b.block(), b.block(), b.block());
    b.ld_param(Type::U64, rd1, out);
    b.mov(Type::U32, r1, Operand::Special(SpecialReg::Tid(Dim::X)));
    b.mov(Type::U32, r2, Operand::Special(SpecialReg::Tid(Dim::Y)));
    b.setp(CmpOp::Eq, Type::U32, p, reg(r1), imm(0));
    if uniform {
        b.guarded(
            p,
            false,
            isa::Op::Bra {
                target: right,
                uni: true,
            },
            Vec::new(),
            Vec::new(),
        );
    } else {
        b.bra_if(p, false, right);
    }
    b.switch_to(left);
    b.add(Type::U32, r3, reg(r1), imm(1));
    b.st(StateSpace::Global, Type::U32, addr(rd1, 0), reg(r3));
    b.bra(join);
    b.switch_to(right);
    b.st(StateSpace::Global, Type::U32, addr(rd1, 4), reg(r2));
    b.switch_to(join);
    b.ret();
    let f = b.finish();
    let a = FunctionAnalysis::compute(&f);
    let h = FunctionHints::compute(&f, &a);
    let counts = warp_live_counts(&f, &h);
    let one = |v| {
        let regs: Vec<u32> = a.alloc.get(v).unwrap().gprs().collect();
        regs[0]
    };
    let (x1, x2) = (one(r1), one(r2));
    (a, h, counts, [x1, x2])
}

/// The per-thread demand at `pc`: live before, live after, written.
fn per_thread(h: &FunctionHints, pc: u32) -> u32 {
    let mut regs: Vec<u32> = h.live_in(pc).iter().chain(h.live_out(pc).iter()).collect();
    regs.extend_from_slice(h.writes(pc));
    regs.sort_unstable();
    regs.dedup();
    regs.len() as u32
}

#[test]
fn a_diverged_warp_holds_the_other_sides_registers_until_reconvergence() {
    let (_, h, counts, [x1, x2]) = diamond(false);
    assert_eq!(counts.len(), h.len());
    // pcs: 0-4 bb0, 5-7 bb1 (add, st, bra), 8 bb2 (st), 9 bb3 (ret).
    let (add, right_store, ret) = (5, 8, 9);
    // Per thread, the left side no longer needs %r2 nor the right side %r1; the warp does.
    assert!(!h.live_in(add).contains(x2));
    assert!(!h.live_in(right_store).contains(x1));
    assert_ne!(x1, x2, "both are live at the branch");
    for pc in [add, add + 1, add + 2] {
        assert!(
            counts[pc as usize] > per_thread(&h, pc),
            "pc {pc}: {} vs {}",
            counts[pc as usize],
            per_thread(&h, pc)
        );
    }
    assert_eq!(counts[add as usize], per_thread(&h, add) + 1, "%r2 held");
    assert_eq!(
        counts[right_store as usize],
        per_thread(&h, right_store) + 1,
        "%r1 held"
    );
    // Outside the region (before the branch, and from the reconvergence point on) the warp
    // needs what a thread needs.
    for pc in [0, 1, 2, 3, 4, ret] {
        assert_eq!(counts[pc as usize], per_thread(&h, pc), "pc {pc}");
    }
}

#[test]
fn a_uniform_branch_holds_nothing_extra() {
    let (_, h, counts, _) = diamond(true);
    for pc in 0..h.len() as u32 {
        assert_eq!(counts[pc as usize], per_thread(&h, pc), "pc {pc}");
    }
}
