//! Hand-built control-flow graphs with their dominators, post-dominators, reconvergence points
//! and loops worked out by hand.

use isa::builder::{FunctionBuilder, imm, reg};
use isa::{
    BlockId, CmpOp, FuncKind, Function, FunctionAnalysis, Reconvergence, Type, VReg,
    verify_function,
};

fn bb(i: u32) -> BlockId {
    BlockId(i)
}

/// A builder with predicates `p`, `q`, `r` and a 32-bit register `x`.
fn start() -> (FunctionBuilder, [VReg; 4]) {
    let mut b = FunctionBuilder::new("k", FuncKind::Entry);
    let regs = [
        b.reg("%p", Type::Pred),
        b.reg("%q", Type::Pred),
        b.reg("%r", Type::Pred),
        b.reg("%x", Type::S32),
    ];
    (b, regs)
}

fn analyze(f: &Function) -> FunctionAnalysis {
    assert_eq!(verify_function(f, None), []);
    FunctionAnalysis::compute(f)
}

/// Checks `ipdom` of every block (`None` = exit).
fn assert_ipdoms(a: &FunctionAnalysis, expected: &[Option<u32>]) {
    let got: Vec<Option<u32>> = (0..expected.len() as u32)
        .map(|b| a.postdom.ipdom(bb(b)).map(|p| p.0))
        .collect();
    assert_eq!(got, expected, "ipdoms");
}

fn assert_depths(a: &FunctionAnalysis, expected: &[u32]) {
    let got: Vec<u32> = (0..expected.len() as u32)
        .map(|b| a.loops.depth(bb(b)))
        .collect();
    assert_eq!(got, expected, "loop depths");
}

/// ```text
/// bb0: setp; @p bra bb2      bb1: mov; bra bb3      bb2: mov      bb3: ret
/// ```
#[test]
fn diamond() {
    let (mut b, [p, _, _, x]) = start();
    let (then, els, join) = (b.block(), b.block(), b.block());
    b.setp(CmpOp::Lt, Type::S32, p, reg(x), imm(0));
    b.bra_if(p, false, els);
    b.switch_to(then);
    b.mov(Type::S32, x, imm(1));
    b.bra(join);
    b.switch_to(els);
    b.mov(Type::S32, x, imm(2));
    b.switch_to(join);
    b.ret();
    let f = b.finish();
    let a = analyze(&f);

    assert_eq!(a.cfg.succs(bb(0)), [bb(2), bb(1)]);
    assert_eq!(a.cfg.preds(bb(3)), [bb(1), bb(2)]);
    assert_eq!(a.cfg.rpo()[0], bb(0));
    assert_eq!(a.dom.idom(bb(3)), Some(bb(0)));
    assert_eq!(a.dom.idom(bb(0)), None);
    assert!(a.dom.dominates(bb(0), bb(3)) && !a.dom.dominates(bb(1), bb(3)));
    assert_ipdoms(&a, &[Some(3), Some(3), Some(3), None]);
    assert!(a.postdom.post_dominates(bb(3), bb(0)));
    assert_eq!(
        a.postdom.reconvergence_point(bb(0)),
        Some(Reconvergence::Block(bb(3)))
    );
    assert_eq!(
        a.postdom.reconvergence_point(bb(1)),
        None,
        "unconditional branch"
    );
    assert_depths(&a, &[0, 0, 0, 0]);
    assert!(a.loops.loops().is_empty());
}

/// A `.uni` branch does not diverge, so it has no reconvergence point.
#[test]
fn uniform_branch_has_no_reconvergence_point() {
    let (mut b, [p, ..]) = start();
    let exit = b.block();
    b.guarded(
        p,
        false,
        isa::Op::Bra {
            target: exit,
            uni: true,
        },
        vec![],
        vec![],
    );
    b.switch_to(exit);
    b.ret();
    let a = analyze(&b.finish());
    assert_eq!(a.postdom.ipdom(bb(0)), Some(bb(1)));
    assert_eq!(a.postdom.reconvergence_point(bb(0)), None);
}

/// ```text
/// bb0 → bb1 (header): @p bra bb5
///       bb2: @q bra bb4
///       bb3: add
///       bb4 (latch): add; bra bb1
/// bb5: ret
/// ```
#[test]
fn nested_if_inside_loop() {
    let (mut b, [p, q, _, x]) = start();
    let [header, cond, then, latch, exit] = [b.block(), b.block(), b.block(), b.block(), b.block()];
    b.mov(Type::S32, x, imm(0));
    b.switch_to(header);
    b.setp(CmpOp::Ge, Type::S32, p, reg(x), imm(10));
    b.bra_if(p, false, exit);
    b.switch_to(cond);
    b.setp(CmpOp::Eq, Type::S32, q, reg(x), imm(3));
    b.bra_if(q, false, latch);
    b.switch_to(then);
    b.add(Type::S32, x, reg(x), imm(2));
    b.switch_to(latch);
    b.add(Type::S32, x, reg(x), imm(1));
    b.bra(header);
    b.switch_to(exit);
    b.ret();
    let a = analyze(&b.finish());

    assert_ipdoms(&a, &[Some(1), Some(5), Some(4), Some(4), Some(1), None]);
    assert_eq!(
        a.postdom.reconvergence_point(bb(1)),
        Some(Reconvergence::Block(bb(5)))
    );
    assert_eq!(
        a.postdom.reconvergence_point(bb(2)),
        Some(Reconvergence::Block(bb(4)))
    );
    assert_eq!(a.dom.idom(bb(4)), Some(bb(2)));
    assert_eq!(a.dom.idom(bb(5)), Some(bb(1)));
    assert_depths(&a, &[0, 1, 1, 1, 1, 0]);
    let l = &a.loops.loops()[0];
    assert_eq!(
        (l.header, l.latches.as_slice()),
        (bb(1), [bb(4)].as_slice())
    );
    assert_eq!(l.blocks, [bb(1), bb(2), bb(3), bb(4)]);
    assert!(a.loops.is_header(bb(1)) && !a.loops.is_header(bb(4)));
    // The loop-carried register is live around the whole loop.
    for blk in 1..5 {
        assert!(
            a.liveness.live_in(bb(blk)).contains(x.index()),
            "x live into bb{blk}"
        );
    }
    assert!(!a.liveness.live_in(bb(5)).contains(x.index()));
}

/// ```text
/// bb0 → bb1 (header): @p bra bb6      (loop exit)
///       bb2: @q bra bb5               (continue)
///       bb3: @r bra bb6               (break)
///       bb4: add
///       bb5 (latch): add; bra bb1
/// bb6: ret
/// ```
#[test]
fn loop_with_break_and_continue() {
    let (mut b, [p, q, r, x]) = start();
    let [header, c, brk, work, latch, exit] = [
        b.block(),
        b.block(),
        b.block(),
        b.block(),
        b.block(),
        b.block(),
    ];
    b.mov(Type::S32, x, imm(0));
    b.switch_to(header);
    b.bra_if(p, false, exit);
    b.switch_to(c);
    b.bra_if(q, false, latch);
    b.switch_to(brk);
    b.bra_if(r, true, exit);
    b.switch_to(work);
    b.add(Type::S32, x, reg(x), imm(2));
    b.switch_to(latch);
    b.add(Type::S32, x, reg(x), imm(1));
    b.bra(header);
    b.switch_to(exit);
    b.ret();
    let a = analyze(&b.finish());

    // The break makes the exit block, not the latch, the reconvergence point of `continue`.
    assert_ipdoms(
        &a,
        &[Some(1), Some(6), Some(6), Some(6), Some(5), Some(1), None],
    );
    for blk in [1, 2, 3] {
        assert_eq!(
            a.postdom.reconvergence_point(bb(blk)),
            Some(Reconvergence::Block(bb(6)))
        );
    }
    assert_depths(&a, &[0, 1, 1, 1, 1, 1, 0]);
    assert_eq!(a.loops.loops().len(), 1);
    assert_eq!(a.loops.loops()[0].latches, [bb(5)]);
}

/// Two nested loops, the inner one a single self-looping block.
#[test]
fn nested_loops() {
    let (mut b, [p, q, ..]) = start();
    let [outer, inner, tail, exit] = [b.block(), b.block(), b.block(), b.block()];
    b.switch_to(outer);
    b.switch_to(inner);
    b.bra_if(p, false, inner);
    b.switch_to(tail);
    b.bra_if(q, false, outer);
    b.switch_to(exit);
    b.ret();
    let a = analyze(&b.finish());

    assert_depths(&a, &[0, 1, 2, 1, 0]);
    let loops = a.loops.loops();
    assert_eq!(loops.len(), 2);
    assert_eq!(
        (loops[0].header, loops[0].depth, loops[0].parent),
        (bb(1), 1, None)
    );
    assert_eq!(
        (loops[1].header, loops[1].depth, loops[1].parent),
        (bb(2), 2, Some(0))
    );
    assert_eq!(loops[1].blocks, [bb(2)]);
    assert_eq!(
        a.postdom.reconvergence_point(bb(2)),
        Some(Reconvergence::Block(bb(3)))
    );
    assert_eq!(
        a.postdom.reconvergence_point(bb(3)),
        Some(Reconvergence::Block(bb(4)))
    );
}

/// A guarded `ret` may leave the function, so its block's post-dominator is the exit.
#[test]
fn early_return() {
    let (mut b, [p, q, _, x]) = start();
    let [check, work, exit] = [b.block(), b.block(), b.block()];
    b.guarded(p, false, isa::Op::Ret { uni: false }, vec![], vec![]);
    b.switch_to(check);
    b.bra_if(q, false, exit);
    b.switch_to(work);
    b.add(Type::S32, x, reg(x), imm(1));
    b.switch_to(exit);
    b.ret();
    let a = analyze(&b.finish());

    assert_eq!(a.cfg.exits(), [bb(0), bb(3)]);
    assert_ipdoms(&a, &[None, Some(3), Some(3), None]);
    assert_eq!(
        a.postdom.reconvergence_point(bb(0)),
        None,
        "a guarded ret is not a branch"
    );
    assert_eq!(
        a.postdom.reconvergence_point(bb(1)),
        Some(Reconvergence::Block(bb(3)))
    );
}

/// A branch around a block that returns: the paths meet only at the function exit.
#[test]
fn reconvergence_at_exit() {
    let (mut b, [p, ..]) = start();
    let [early, late] = [b.block(), b.block()];
    b.bra_if(p, false, late);
    b.switch_to(early);
    b.ret();
    b.switch_to(late);
    b.inst(isa::Op::Exit, vec![], vec![]);
    let a = analyze(&b.finish());
    assert_ipdoms(&a, &[None, None, None]);
    assert_eq!(
        a.postdom.reconvergence_point(bb(0)),
        Some(Reconvergence::Exit)
    );
}

/// ```text
/// bb0: @p bra bb2     bb1: ret
/// bb2 (header): @q bra bb4     bb3: bra bb2     bb4: bra bb2     (never leaves)
/// ```
#[test]
fn infinite_loop() {
    let (mut b, [p, q, ..]) = start();
    let [ret, header, left, right] = [b.block(), b.block(), b.block(), b.block()];
    b.bra_if(p, false, header);
    b.switch_to(ret);
    b.ret();
    b.switch_to(header);
    b.bra_if(q, false, right);
    b.switch_to(left);
    b.bra(header);
    b.switch_to(right);
    b.bra(header);
    let a = analyze(&b.finish());

    // One block of the loop (the first in postorder: bb4) is tied to the virtual exit, so the
    // branch inside the loop still reconverges inside it.
    assert_eq!(a.postdom.non_exiting_roots(), [bb(4)]);
    assert_ipdoms(&a, &[None, None, Some(4), Some(2), None]);
    assert_eq!(
        a.postdom.reconvergence_point(bb(0)),
        Some(Reconvergence::Exit)
    );
    assert_eq!(
        a.postdom.reconvergence_point(bb(2)),
        Some(Reconvergence::Block(bb(4)))
    );
    assert_depths(&a, &[0, 0, 1, 1, 1]);
    assert_eq!(a.loops.loops()[0].latches, [bb(3), bb(4)]);
}

/// A single block branching to itself forever.
#[test]
fn self_loop_only() {
    let (mut b, _) = start();
    b.bra(bb(0));
    let a = analyze(&b.finish());
    assert!(a.cfg.exits().is_empty());
    assert_eq!(a.postdom.non_exiting_roots(), [bb(0)]);
    assert_eq!(a.postdom.ipdom(bb(0)), None);
    assert_depths(&a, &[1]);
}

/// Unreachable blocks have no dominator but still get post-dominators and liveness.
#[test]
fn unreachable_block() {
    let (mut b, [_, _, _, x]) = start();
    let [dead, exit] = [b.block(), b.block()];
    b.bra(exit);
    b.switch_to(dead);
    b.add(Type::S32, x, reg(x), imm(1));
    b.switch_to(exit);
    b.ret();
    let a = analyze(&b.finish());
    assert!(!a.cfg.is_reachable(bb(1)));
    assert_eq!(a.cfg.rpo(), [bb(0), bb(2)]);
    assert_eq!(a.dom.idom(bb(1)), None);
    assert!(!a.dom.dominates(bb(0), bb(1)));
    assert_eq!(a.postdom.ipdom(bb(1)), Some(bb(2)));
    assert!(a.liveness.live_in(bb(1)).contains(x.index()));
    assert!(!a.liveness.live_in(bb(0)).contains(x.index()));
}

#[test]
fn pcs_locate_instructions() {
    let (mut b, [_, _, _, x]) = start();
    let [_empty, last] = [b.block(), b.block()];
    b.mov(Type::S32, x, imm(0));
    b.add(Type::S32, x, reg(x), imm(1));
    b.switch_to(last);
    b.ret();
    let f = b.finish();
    let a = analyze(&f);
    assert_eq!(a.pc(bb(2), 0), 2);
    assert_eq!(a.locate(&f, 1), Some((bb(0), 1)));
    assert_eq!(a.locate(&f, 2), Some((bb(2), 0)));
    assert_eq!(a.locate(&f, 3), None);
}
