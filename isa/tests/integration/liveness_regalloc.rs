//! Liveness with guarded and vector definitions, and register allocation checked against it.

use isa::builder::{FunctionBuilder, addr, addr32, imm, reg, vector};
use isa::{
    AllocError, BlockId, CmpOp, FuncKind, Function, FunctionAnalysis, MemOrder, Op, Operand,
    PhysReg, StateSpace, Type, VReg, regalloc, verify_function,
};

fn analyze(f: &Function) -> FunctionAnalysis {
    assert_eq!(verify_function(f, None), []);
    let a = FunctionAnalysis::compute(f);
    assert_eq!(regalloc::validate(f, &a.liveness, &a.alloc), []);
    a
}

fn names(f: &Function, set: &isa::BitSet) -> Vec<String> {
    set.iter().map(|v| f.regs[v].name.clone()).collect()
}

/// `mov x, 1; @p mov x, 2; st [a], x`: the guarded definition does not kill `x`, so the first
/// value is live across it; an unguarded one would kill it.
#[test]
fn guarded_definition_does_not_kill() {
    for guarded in [true, false] {
        let mut b = FunctionBuilder::new("k", FuncKind::Entry);
        let (a, p, x) = (
            b.reg("%rd1", Type::U64),
            b.reg("%p1", Type::Pred),
            b.reg("%r1", Type::U32),
        );
        let param = b.param("a", Type::U64);
        b.ld_param(Type::U64, a, param);
        b.setp(CmpOp::Eq, Type::U64, p, reg(a), imm(0));
        b.mov(Type::U32, x, imm(1));
        if guarded {
            b.guarded(
                p,
                false,
                Op::Mov { ty: Type::U32 },
                vec![reg(x)],
                vec![imm(2)],
            );
        } else {
            b.mov(Type::U32, x, imm(2));
        }
        b.st(StateSpace::Global, Type::U32, addr(a, 0), reg(x));
        b.ret();
        let f = b.finish();
        let an = analyze(&f);
        let live = an.liveness.live_after(&f, BlockId(0));
        let after_first_mov = names(&f, &live[2]);
        if guarded {
            assert_eq!(after_first_mov, ["%rd1", "%p1", "%r1"]);
        } else {
            assert_eq!(after_first_mov, ["%rd1"], "the unguarded mov kills %r1");
        }
        assert_eq!(names(&f, &live[3]), ["%rd1", "%r1"]);
    }
}

/// A register defined only under a guard is live from the function entry: in lanes where the
/// guard is false, the value read later is whatever was there before.
#[test]
fn guarded_only_definition_is_live_in() {
    let mut b = FunctionBuilder::new("k", FuncKind::Entry);
    let (p, x, a) = (
        b.reg("%p1", Type::Pred),
        b.reg("%r1", Type::U32),
        b.reg("%rd1", Type::U64),
    );
    b.mov(Type::U64, a, imm(0));
    b.guarded(
        p,
        false,
        Op::Mov { ty: Type::U32 },
        vec![reg(x)],
        vec![imm(2)],
    );
    b.st(StateSpace::Global, Type::U32, addr(a, 0), reg(x));
    b.ret();
    let f = b.finish();
    let an = analyze(&f);
    assert_eq!(names(&f, an.liveness.live_in(BlockId(0))), ["%p1", "%r1"]);
    // %r1 is live while %rd1 is written, so they do not share a register.
    assert!(!an.alloc.get(x).unwrap().overlaps(an.alloc.get(a).unwrap()));
}

/// A guarded definition whose value is never read keeps nothing alive, but it still writes
/// its register, which must not clobber anything live.
#[test]
fn dead_guarded_definition_still_interferes() {
    let mut b = FunctionBuilder::new("k", FuncKind::Entry);
    let (p, x, y) = (
        b.reg("%p1", Type::Pred),
        b.reg("%r1", Type::U32),
        b.reg("%r2", Type::U32),
    );
    b.mov(Type::U32, y, imm(7));
    b.guarded(
        p,
        false,
        Op::Mov { ty: Type::U32 },
        vec![reg(x)],
        vec![imm(2)],
    );
    b.st(StateSpace::Global, Type::U32, addr32(y, 0), reg(y));
    b.ret();
    let f = b.finish();
    let an = analyze(&f);
    assert!(!an.liveness.live_in(BlockId(0)).contains(x.index()));
    assert_ne!(an.alloc.get(x), an.alloc.get(y));
}

/// Each element of a vector destination is its own definition; all are written, so they never
/// share registers, even when one is dead.
#[test]
fn vector_elements_are_separate_definitions() {
    let mut b = FunctionBuilder::new("k", FuncKind::Entry);
    let a = b.reg("%rd1", Type::U64);
    let f4: Vec<VReg> = (1..5)
        .map(|i| b.reg(&format!("%f{i}"), Type::F32))
        .collect();
    b.mov(Type::U64, a, imm(64));
    let ld = Op::Ld {
        space: StateSpace::Global,
        ty: Type::F32,
        vec: 4,
        order: MemOrder::Weak,
        scope: None,
        cache: None,
        nc: true,
    };
    b.inst(ld, vec![vector(&f4)], vec![addr(a, 16)]);
    b.st(StateSpace::Global, Type::F32, addr(a, 0), reg(f4[0]));
    b.ret();
    let f = b.finish();
    let an = analyze(&f);
    let live = an.liveness.live_after(&f, BlockId(0));
    assert_eq!(names(&f, &live[1]), ["%rd1", "%f1"]);
    let phys: Vec<PhysReg> = f4.iter().map(|&v| an.alloc.get(v).unwrap()).collect();
    for i in 0..4 {
        for j in i + 1..4 {
            assert!(
                !phys[i].overlaps(phys[j]),
                "{} and {} share a register",
                phys[i],
                phys[j]
            );
        }
    }
}

/// 64-bit values take aligned even pairs and 128-bit ones aligned quads; 32-bit values fill the
/// holes; registers never mentioned get nothing.
#[test]
fn wide_registers_are_aligned() {
    let mut b = FunctionBuilder::new("k", FuncKind::Entry);
    let r1 = b.reg("%r1", Type::U32);
    let rd1 = b.reg("%rd1", Type::U64);
    let r2 = b.reg("%r2", Type::U32);
    let q = b.reg("%q1", Type::B128);
    let unused = b.reg("%r99", Type::U32);
    let rd2 = b.reg("%rd2", Type::U64);
    b.mov(Type::U32, r1, imm(1));
    b.mov(Type::U64, rd1, imm(2));
    b.mov(Type::U32, r2, tid_x());
    b.mov(Type::B128, q, imm(4));
    b.inst(
        Op::IAdd {
            ty: Type::U32,
            sat: false,
        },
        vec![reg(r1)],
        vec![reg(r1), reg(r2)],
    );
    b.inst(Op::Mov { ty: Type::B128 }, vec![reg(q)], vec![reg(q)]);
    b.inst(
        Op::IAdd {
            ty: Type::U64,
            sat: false,
        },
        vec![reg(rd2)],
        vec![reg(rd1), reg(rd1)],
    );
    b.st(StateSpace::Global, Type::U64, addr(rd2, 0), reg(r1));
    b.ret();
    let f = b.finish();
    let an = analyze(&f);
    let get = |v| an.alloc.get(v).unwrap();
    assert_eq!(get(r1), PhysReg::Gpr { first: 0, count: 1 });
    assert_eq!(get(rd1), PhysReg::Gpr { first: 2, count: 2 });
    assert_eq!(get(r2), PhysReg::Gpr { first: 1, count: 1 });
    assert_eq!(get(q), PhysReg::Gpr { first: 4, count: 4 });
    assert_eq!(an.alloc.get(unused), None);
    assert!(matches!(get(rd2), PhysReg::Gpr { first, count: 2 } if first % 2 == 0));
    assert_eq!(an.alloc.regs_per_thread, 8);
    assert_eq!(an.alloc.preds_per_thread, 0);
    assert_eq!(get(rd1).to_string(), "R[2:3]");
    assert_eq!(get(q).to_string(), "R[4:7]");
}

/// Predicates live in their own file and never compete with 32-bit registers.
#[test]
fn predicates_are_coloured_separately() {
    let mut b = FunctionBuilder::new("k", FuncKind::Entry);
    let (x, p, q) = (
        b.reg("%r1", Type::S32),
        b.reg("%p1", Type::Pred),
        b.reg("%p2", Type::Pred),
    );
    b.mov(Type::S32, x, tid_x());
    let setp = Op::Setp {
        cmp: CmpOp::Lt,
        ty: Type::S32,
        combine: None,
        ftz: false,
    };
    b.inst(setp, vec![reg(p), reg(q)], vec![reg(x), imm(0)]);
    b.inst(
        Op::And { ty: Type::Pred },
        vec![reg(p)],
        vec![reg(p), reg(q)],
    );
    b.guarded(p, false, Op::Ret { uni: false }, vec![], vec![]);
    let tail = b.block();
    b.switch_to(tail);
    b.ret();
    let f = b.finish();
    let an = analyze(&f);
    assert_eq!(an.alloc.get(x), Some(PhysReg::Gpr { first: 0, count: 1 }));
    assert_eq!(an.alloc.get(p), Some(PhysReg::Pred(0)));
    assert_eq!(an.alloc.get(q), Some(PhysReg::Pred(1)));
    assert_eq!(
        (an.alloc.regs_per_thread, an.alloc.preds_per_thread),
        (1, 2)
    );
}

/// A register carried around a loop stays allocated through it; values local to one
/// iteration reuse registers.
#[test]
fn loop_carried_register() {
    let mut b = FunctionBuilder::new("k", FuncKind::Entry);
    let (i, t, p) = (
        b.reg("%r1", Type::S32),
        b.reg("%r2", Type::S32),
        b.reg("%p1", Type::Pred),
    );
    let (header, exit) = (b.block(), b.block());
    b.mov(Type::S32, i, imm(0));
    b.switch_to(header);
    b.add(Type::S32, t, reg(i), imm(3));
    b.add(Type::S32, i, reg(t), imm(1));
    b.setp(CmpOp::Lt, Type::S32, p, reg(i), imm(100));
    b.bra_if(p, false, header);
    b.switch_to(exit);
    b.ret();
    let f = b.finish();
    let an = analyze(&f);
    assert!(an.liveness.live_in(BlockId(1)).contains(i.index()));
    assert!(an.liveness.live_out(BlockId(1)).contains(i.index()));
    // `t` dies where `i` is redefined: one register suffices.
    assert_eq!(an.alloc.regs_per_thread, 1);
}

/// The checker catches an allocation that puts two live values in one register.
#[test]
fn validate_reports_conflicts() {
    let mut b = FunctionBuilder::new("k", FuncKind::Entry);
    let (x, y) = (b.reg("%r1", Type::S32), b.reg("%r2", Type::S32));
    b.mov(Type::S32, x, imm(1));
    b.mov(Type::S32, y, tid_x());
    b.add(Type::S32, x, reg(x), reg(y));
    b.ret();
    let f = b.finish();
    let an = analyze(&f);
    let mut bad = an.alloc.clone();
    bad.phys[y.index()] = bad.phys[x.index()];
    bad.regs_per_thread = 1;
    let errors = regalloc::validate(&f, &an.liveness, &bad);
    assert_eq!(
        errors,
        [AllocError::Conflict {
            block: BlockId(0),
            inst: 1,
            a: y,
            b: x
        }]
    );

    let mut misaligned = an.alloc.clone();
    misaligned.phys[x.index()] = Some(PhysReg::Gpr { first: 1, count: 2 });
    let errors = regalloc::validate(&f, &an.liveness, &misaligned);
    assert!(
        errors
            .iter()
            .any(|e| matches!(e, AllocError::BadShape { .. }))
    );
    assert!(
        errors
            .iter()
            .any(|e| matches!(e, AllocError::WrongCount { .. }))
    );
}

/// Allocation is a pure function of the input.
#[test]
fn allocation_is_deterministic() {
    let build = || {
        let mut b = FunctionBuilder::new("k", FuncKind::Entry);
        let ty = |i: usize| {
            if i.is_multiple_of(3) {
                Type::U64
            } else {
                Type::U32
            }
        };
        let regs: Vec<VReg> = (0..40).map(|i| b.reg(&format!("%r{i}"), ty(i))).collect();
        for (k, &r) in regs.iter().enumerate() {
            let src = (k * 7) % 40;
            let a = if ty(src) == ty(k) {
                reg(regs[src])
            } else {
                imm(-1)
            };
            b.inst(
                Op::IAdd {
                    ty: ty(k),
                    sat: false,
                },
                vec![reg(r)],
                vec![a, imm(k as i64)],
            );
        }
        b.ret();
        b.finish()
    };
    let (f1, f2) = (build(), build());
    let (a1, a2) = (
        FunctionAnalysis::compute(&f1),
        FunctionAnalysis::compute(&f2),
    );
    assert_eq!(a1.alloc, a2.alloc);
    assert_eq!(regalloc::validate(&f1, &a1.liveness, &a1.alloc), []);
}

/// A long straight-line function with many registers allocates quickly and validly.
#[test]
fn large_function() {
    let mut b = FunctionBuilder::new("big", FuncKind::Entry);
    let regs: Vec<VReg> = (0..3000)
        .map(|i| b.reg(&format!("%r{i}"), Type::U32))
        .collect();
    let sink = b.reg("%rd0", Type::U64);
    b.mov(Type::U64, sink, imm(0));
    for &r in &regs {
        b.mov(Type::U32, r, tid_x());
    }
    // Consume them in reverse, pairwise, so about half are live at the peak.
    for k in (1..regs.len()).rev() {
        b.add(Type::U32, regs[k - 1], reg(regs[k - 1]), reg(regs[k]));
        if k % 1000 == 0 {
            b.st(
                StateSpace::Global,
                Type::U32,
                addr(sink, 0),
                reg(regs[k - 1]),
            );
        }
    }
    b.st(StateSpace::Global, Type::U32, addr(sink, 0), reg(regs[0]));
    b.ret();
    let f = b.finish();
    let an = analyze(&f);
    assert_eq!(an.alloc.regs_per_thread, 3000 + 2);
}

/// An unguarded copy does not make its destination interfere with its source, so both share a
/// register while they hold the same value; redefining either while the other is live
/// separates them again.
#[test]
fn copies_coalesce_until_redefined() {
    for redefine in [false, true] {
        let mut b = FunctionBuilder::new("k", FuncKind::Entry);
        let (p, a, c) = (
            b.reg("%rd1", Type::U64),
            b.reg("%r1", Type::U32),
            b.reg("%r2", Type::U32),
        );
        b.mov(Type::U64, p, imm(0));
        b.mov(Type::U32, a, imm(1));
        b.mov(Type::U32, c, reg(a));
        if redefine {
            b.add(Type::U32, a, reg(a), imm(1));
        }
        b.st(StateSpace::Global, Type::U32, addr(p, 0), reg(a));
        b.st(StateSpace::Global, Type::U32, addr(p, 4), reg(c));
        b.ret();
        let f = b.finish();
        let an = analyze(&f);
        assert_eq!(an.alloc.get(a) == an.alloc.get(c), !redefine);
        assert_eq!(an.alloc.regs_per_thread, if redefine { 4 } else { 3 });
    }
}

/// A guarded copy is not a copy: lanes where the guard is false keep the destination's old
/// value, which is live alongside the source.
#[test]
fn guarded_copies_interfere() {
    let mut b = FunctionBuilder::new("k", FuncKind::Entry);
    let (p, a, c, q) = (
        b.reg("%rd1", Type::U64),
        b.reg("%r1", Type::U32),
        b.reg("%r2", Type::U32),
        b.reg("%p1", Type::Pred),
    );
    b.mov(Type::U64, p, imm(0));
    b.mov(Type::U32, a, imm(1));
    b.mov(Type::U32, c, imm(2));
    b.setp(CmpOp::Eq, Type::U32, q, reg(a), imm(0));
    b.guarded(
        q,
        false,
        Op::Mov { ty: Type::U32 },
        vec![reg(c)],
        vec![reg(a)],
    );
    b.st(StateSpace::Global, Type::U32, addr(p, 0), reg(a));
    b.st(StateSpace::Global, Type::U32, addr(p, 4), reg(c));
    b.ret();
    let f = b.finish();
    let an = analyze(&f);
    assert_ne!(an.alloc.get(a), an.alloc.get(c));
}

/// On straight-line code in SSA form without copies, registers interfere exactly when their
/// hulls overlap, so the linear scan (the allocator of functions with huge interference
/// graphs) gives the graph colouring's allocation. Random functions over 32-bit, 64-bit and
/// predicate registers, with dead definitions, two-destination instructions and guards.
#[test]
fn linear_scan_matches_graph_colouring_on_straight_line_ssa() {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    for case in 0..40 {
        let mut b = FunctionBuilder::new("k", FuncKind::Entry);
        let base = b.reg("%rd0", Type::U64);
        let param = b.param("p", Type::U64);
        b.ld_param(Type::U64, base, param);
        let (mut r32, mut r64, mut preds) = (Vec::new(), vec![base], Vec::new());
        let len = 20 + 10 * case;
        for i in 0..len {
            // Sources from anywhere earlier, so that live ranges nest and cross.
            let pick = |pool: &Vec<VReg>, k: usize| pool.get(k % pool.len().max(1)).copied();
            let (x, y) = (next(1 << 20), next(1 << 20));
            match next(6) {
                0 | 1 => {
                    let d = b.reg(&format!("%r{i}"), Type::U32);
                    let a = pick(&r32, x).map_or(imm(i as i64), reg);
                    let c = pick(&r32, y).map_or(imm(1), reg);
                    b.add(Type::U32, d, a, c);
                    r32.push(d);
                }
                2 => {
                    let d = b.reg(&format!("%rd{}", i + 1), Type::U64);
                    let a = pick(&r64, x).map_or(imm(0), reg);
                    b.add(Type::U64, d, a, imm(8));
                    r64.push(d);
                }
                3 => {
                    let p = b.reg(&format!("%p{i}"), Type::Pred);
                    let a = pick(&r32, x).map_or(imm(3), reg);
                    b.setp(CmpOp::Lt, Type::U32, p, a, imm(7));
                    preds.push(p);
                }
                4 => {
                    // A load of two values at once.
                    let (d0, d1) = (
                        b.reg(&format!("%v{i}a"), Type::U32),
                        b.reg(&format!("%v{i}b"), Type::U32),
                    );
                    let a = pick(&r64, x).unwrap_or(base);
                    b.inst(
                        Op::Ld {
                            space: StateSpace::Global,
                            ty: Type::U32,
                            vec: 2,
                            order: MemOrder::Weak,
                            scope: None,
                            cache: None,
                            nc: false,
                        },
                        vec![vector(&[d0, d1])],
                        vec![addr(a, 0)],
                    );
                    r32.extend([d0, d1]);
                }
                _ => {
                    // A store, guarded by a predicate when there is one.
                    let a = pick(&r64, x).unwrap_or(base);
                    let v = pick(&r32, y).map_or(imm(0), reg);
                    let op = Op::St {
                        space: StateSpace::Global,
                        ty: Type::U32,
                        vec: 1,
                        order: MemOrder::Weak,
                        scope: None,
                        cache: None,
                    };
                    match pick(&preds, x) {
                        Some(p) => b.guarded(p, x % 2 == 0, op, vec![], vec![addr(a, 0), v]),
                        None => b.inst(op, vec![], vec![addr(a, 0), v]),
                    }
                }
            }
        }
        b.ret();
        let f = b.finish();
        let an = analyze(&f);
        let linear = regalloc::Allocation::linear_scan(&f, &an.liveness);
        assert_eq!(linear, an.alloc, "case {case}");
    }
}

/// `%tid.x` as an operand: a value that needs a register, where an immediate moved into a
/// register would be a launch constant that takes none (`isa::storage`).
fn tid_x() -> Operand {
    Operand::Special(isa::SpecialReg::Tid(isa::Dim::X))
}
