//! Compiler hints over physical registers: live sets, last-use bits and the affinity graph, on
//! hand-built functions, and on random functions against a brute-force search over paths of
//! the physical registers themselves (independent of virtual-register liveness); on the
//! random functions, operand slots and reuse bits too (`reuse.rs` has the hand-built ones).

use isa::Dim;
use isa::builder::{FunctionBuilder, addr, imm, reg, vector};
use isa::hints::LOOP_WEIGHT;
use isa::reuse::reads_through_operand_cache;
use isa::{
    AffinityEdge, BlockId, CmpOp, FuncKind, Function, FunctionAnalysis, FunctionHints, Inst,
    MemOrder, Op, Operand, SpecialReg, StateSpace, Type, VReg, regalloc, verify_function,
};
use proptest::prelude::*;
use std::collections::BTreeMap;

fn analyze(f: &Function) -> (FunctionAnalysis, FunctionHints) {
    assert_eq!(verify_function(f, None), []);
    let a = FunctionAnalysis::compute(f);
    assert_eq!(regalloc::validate(f, &a.liveness, &a.alloc), []);
    let h = FunctionHints::compute(f, &a);
    assert_eq!(
        h,
        FunctionHints::with_allocation(f, &a.alloc.phys),
        "recomputing the control-flow analyses gives the same hints"
    );
    (a, h)
}

/// The 32-bit registers of `v`.
fn r(a: &FunctionAnalysis, v: VReg) -> Vec<u32> {
    a.alloc.get(v).expect("allocated").gprs().collect()
}

/// The single 32-bit register of a 32-bit `v`.
fn r1(a: &FunctionAnalysis, v: VReg) -> u32 {
    let regs = r(a, v);
    assert_eq!(regs.len(), 1);
    regs[0]
}

fn set(h: &FunctionHints, pc: u32, out: bool) -> Vec<u32> {
    if out {
        h.live_out(pc).iter().collect()
    } else {
        h.live_in(pc).iter().collect()
    }
}

fn sorted(mut v: Vec<u32>) -> Vec<u32> {
    v.sort_unstable();
    v.dedup();
    v
}

/// ```text
/// 0 ld.param.u64 %rd1, [out]
/// 1 mov.u32      %r1, 7
/// 2 add.s32      %r2, %r1, %r1      // %r1 read twice: one read, no self-edge
/// 3 add.s32      %r3, %r2, %r1      // last use of %r1
/// 4 st.global    [%rd1], %r3        // last use of %r3
/// 5 st.global    [%rd1+4], %r2      // last use of %rd1 and %r2
/// 6 ret
/// ```
#[test]
fn straight_line() {
    let mut b = FunctionBuilder::new("k", FuncKind::Entry);
    let out = b.param("out", Type::U64);
    let (rd1, r1v, r2v, r3v) = (
        b.reg("%rd1", Type::U64),
        b.reg("%r1", Type::U32),
        b.reg("%r2", Type::U32),
        b.reg("%r3", Type::U32),
    );
    b.ld_param(Type::U64, rd1, out);
    b.mov(Type::U32, r1v, imm(7));
    b.add(Type::S32, r2v, reg(r1v), reg(r1v));
    b.add(Type::S32, r3v, reg(r2v), reg(r1v));
    b.st(StateSpace::Global, Type::U32, addr(rd1, 0), reg(r3v));
    b.st(StateSpace::Global, Type::U32, addr(rd1, 4), reg(r2v));
    b.ret();
    let f = b.finish();
    let (a, h) = analyze(&f);
    let (d, x1, x2, x3) = (r(&a, rd1), r1(&a, r1v), r1(&a, r2v), r1(&a, r3v));

    assert_eq!(h.len(), 7);
    assert_eq!(h.num_regs(), a.alloc.regs_per_thread);
    assert!(h.live_in(0).is_empty());
    assert_eq!(set(&h, 0, true), d);
    // The read-twice register is one read; the value survives into pc 3.
    assert_eq!(h.reads(2), [x1]);
    assert_eq!(h.last_uses(2), [false]);
    assert_eq!(set(&h, 2, false), sorted([d.clone(), vec![x1]].concat()));
    assert_eq!(set(&h, 2, true), sorted([d.clone(), vec![x1, x2]].concat()));
    // pc 3 reads %r2 (still needed at pc 5) and %r1 for the last time.
    assert_eq!(h.reads(3), [x2, x1]);
    assert_eq!(h.last_uses(3), [false, true]);
    assert!(h.last_use(3, x1));
    assert!(!h.last_use(3, x2));
    assert!(!h.last_use(3, 999), "a register not read is no last use");
    // Address halves first (operand order), then the value.
    assert_eq!(h.reads(4), [d.clone(), vec![x3]].concat());
    assert_eq!(h.last_uses(4), [false, false, true]);
    assert_eq!(h.reads(5), [d.clone(), vec![x2]].concat());
    assert_eq!(h.last_uses(5), [true, true, true]);
    assert!(h.live_out(5).is_empty());
    assert!(h.reads(6).is_empty() && h.live_in(6).is_empty());
    for pc in 0..7 {
        assert_eq!(h.weight(pc), 1);
    }

    // Affinity: pc 3 joins %r2-%r1; pc 4 joins the address halves with each other and with
    // %r3; pc 5 the address halves with each other and with %r2. No self-edge from pc 2.
    let mut expected: BTreeMap<(u32, u32), u64> = BTreeMap::new();
    let mut add = |x: u32, y: u32| *expected.entry((x.min(y), x.max(y))).or_insert(0) += 1;
    add(x2, x1);
    for v in [x3, x2] {
        add(d[0], d[1]);
        add(d[0], v);
        add(d[1], v);
    }
    let got: BTreeMap<(u32, u32), u64> = h
        .affinity()
        .iter()
        .map(|e| ((e.a, e.b), e.weight))
        .collect();
    assert_eq!(got, expected);
    assert_eq!(h.affinity_weight(d[1], d[0]), 2);
    assert_eq!(h.affinity_weight(x1, x1), 0);
    assert!(h.affinity().iter().all(|e| e.a < e.b));
    let by_weight = h.affinity_by_weight();
    assert_eq!(
        by_weight[0],
        AffinityEdge {
            a: d[0],
            b: d[1],
            weight: 2
        }
    );
    assert!(by_weight.windows(2).all(|w| w[0].weight >= w[1].weight));
}

/// Two nested loops: instructions weigh 1 outside, 10 in the outer loop, 100 in the inner
/// one, and the affinity edges sum those weights.
///
/// ```text
/// bb0: mov i, 0; mov s, 0; mov t, 0
/// bb1: add s, s, i              // depth 1: s-i += 10
///      mov j, 0
/// bb2: add t, t, j              // depth 2: t-j += 100
///      add t, t, s              // depth 2: t-s += 100
///      add j, j, 1
///      setp.lt p, j, 8
///      @p bra bb2
/// bb3: add i, i, 1
///      add t, t, i              // depth 1: t-i += 10
///      setp.lt q, i, 8
///      @q bra bb1
/// bb4: add u, t, s              // depth 0: t-s += 1
///      st [a], u
///      ret
/// ```
#[test]
fn loop_weights_by_depth() {
    let mut b = FunctionBuilder::new("k", FuncKind::Entry);
    let out = b.param("out", Type::U64);
    let a64 = b.reg("%rd1", Type::U64);
    let [i, j, s, t, u] = ["%i", "%j", "%s", "%t", "%u"].map(|n| b.reg(n, Type::U32));
    let (p, q) = (b.reg("%p", Type::Pred), b.reg("%q", Type::Pred));
    let (outer, inner, latch, exit) = (b.block(), b.block(), b.block(), b.block());
    b.ld_param(Type::U64, a64, out);
    b.mov(Type::U32, i, imm(0));
    b.mov(Type::U32, s, imm(0));
    b.mov(Type::U32, t, imm(0));
    b.switch_to(outer);
    b.add(Type::U32, s, reg(s), reg(i));
    b.mov(Type::U32, j, imm(0));
    b.switch_to(inner);
    b.add(Type::U32, t, reg(t), reg(j));
    b.add(Type::U32, t, reg(t), reg(s));
    b.add(Type::U32, j, reg(j), imm(1));
    b.setp(CmpOp::Lt, Type::U32, p, reg(j), imm(8));
    b.bra_if(p, false, inner);
    b.switch_to(latch);
    b.add(Type::U32, i, reg(i), imm(1));
    b.add(Type::U32, t, reg(t), reg(i));
    b.setp(CmpOp::Lt, Type::U32, q, reg(i), imm(8));
    b.bra_if(q, false, outer);
    b.switch_to(exit);
    b.add(Type::U32, u, reg(t), reg(s));
    b.st(StateSpace::Global, Type::U32, addr(a64, 0), reg(u));
    b.ret();
    let f = b.finish();
    let (a, h) = analyze(&f);
    assert_eq!(a.loops.depth(inner), 2);

    let weights: Vec<u64> = (0..h.len() as u32).map(|pc| h.weight(pc)).collect();
    let (w1, w2) = (LOOP_WEIGHT, LOOP_WEIGHT * LOOP_WEIGHT);
    assert_eq!(
        weights,
        [
            1, 1, 1, 1, w1, w1, w2, w2, w2, w2, w2, w1, w1, w1, w1, 1, 1, 1
        ]
    );

    let [ri, rj, rs, rt] = [i, j, s, t].map(|v| r1(&a, v));
    assert_eq!(h.affinity_weight(rs, ri), w1);
    assert_eq!(h.affinity_weight(rt, rj), w2);
    assert_eq!(h.affinity_weight(rt, rs), w2 + 1);
    assert_eq!(h.affinity_weight(rt, ri), w1);
    // The heaviest edge comes first.
    let top = h.affinity_by_weight()[0];
    assert_eq!((top.a, top.b, top.weight), (rt.min(rs), rt.max(rs), w2 + 1));

    // Loop-carried values stay live around the back edges: `s` and `i` across the inner loop,
    // and `s` is not last-used inside it although the inner loop's last read is at pc 7.
    let inner_end = a.pc(inner, 4);
    assert!(h.live_out(inner_end).contains(rs) && h.live_out(inner_end).contains(ri));
    assert!(!h.last_use(7, rs));
    // `j` is dead on loop entry (redefined at pc 5) but live around the inner back edge.
    assert!(!h.live_in(a.pc(outer, 0)).contains(rj));
    assert!(h.live_in(a.pc(inner, 0)).contains(rj));
    // After the loops, `t` and `s` are read for the last time at pc 15.
    assert_eq!(h.last_uses(15), [true, true]);
}

/// `mov x, 1; @p add x, x, 5; st [a], x`: the guarded add reads `x`, but lanes whose guard is
/// false keep the old value for the store, so it is no last use. Unguarded, the add replaces
/// `x` entirely, so the value it reads dies there.
#[test]
fn guarded_write_is_not_a_last_use() {
    for guarded in [true, false] {
        let mut b = FunctionBuilder::new("k", FuncKind::Entry);
        let out = b.param("out", Type::U64);
        let (a64, p, x) = (
            b.reg("%rd1", Type::U64),
            b.reg("%p1", Type::Pred),
            b.reg("%r1", Type::U32),
        );
        b.ld_param(Type::U64, a64, out);
        b.setp(CmpOp::Eq, Type::U64, p, reg(a64), imm(0));
        b.mov(Type::U32, x, imm(1));
        let add = Op::IAdd {
            ty: Type::U32,
            sat: false,
        };
        if guarded {
            b.guarded(p, false, add, vec![reg(x)], vec![reg(x), imm(5)]);
        } else {
            b.inst(add, vec![reg(x)], vec![reg(x), imm(5)]);
        }
        b.st(StateSpace::Global, Type::U32, addr(a64, 0), reg(x));
        b.ret();
        let f = b.finish();
        let (a, h) = analyze(&f);
        let rx = r1(&a, x);
        // The predicate file is not in the hints: pc 3 reads only `x`.
        assert_eq!(h.reads(3), [rx]);
        assert_eq!(h.last_use(3, rx), !guarded, "guarded: {guarded}");
        assert!(h.live_in(3).contains(rx) && h.live_out(3).contains(rx));
        // The guarded write keeps `x` live; without a guard, whether `x` lives into pc 3
        // depends only on the add reading it, so both see it live in.
        assert!(h.last_use(4, rx));
    }

    // A guarded write of a register read only under the guard: nothing reads the value after,
    // so the read is a last use even though the write is guarded.
    let mut b = FunctionBuilder::new("k", FuncKind::Entry);
    let (p, x, y) = (
        b.reg("%p1", Type::Pred),
        b.reg("%r1", Type::U32),
        b.reg("%r2", Type::U32),
    );
    // `%tid.x`, not an immediate: a launch constant would have no register to read.
    b.mov(Type::U32, y, Operand::Special(SpecialReg::Tid(Dim::X)));
    b.setp(CmpOp::Eq, Type::U32, p, reg(y), imm(0));
    b.guarded(
        p,
        false,
        Op::IAdd {
            ty: Type::U32,
            sat: false,
        },
        vec![reg(x)],
        vec![reg(y), imm(5)],
    );
    b.ret();
    let f = b.finish();
    let (a, h) = analyze(&f);
    assert!(h.last_use(2, r1(&a, y)));
    assert!(h.live_out(2).is_empty(), "the guarded result is never read");
}

/// 64-bit values occupy aligned pairs: both halves are live, read, and last-used together, and
/// the halves of one operand are joined in the affinity graph.
#[test]
fn sixty_four_bit_pairs() {
    // A device function: its parameters arrive in registers (a kernel's parameters are
    // constant-bank operands, which take none).
    let mut b = FunctionBuilder::new("k", FuncKind::Func);
    let (pa, pb) = (b.param("a", Type::U64), b.param("b", Type::U64));
    let [d0, d1, d2] = ["%rd0", "%rd1", "%rd2"].map(|n| b.reg(n, Type::U64));
    let [lo, hi] = ["%r0", "%r1"].map(|n| b.reg(n, Type::U32));
    b.ld_param(Type::U64, d0, pa);
    b.ld_param(Type::U64, d1, pb);
    b.add(Type::S64, d2, reg(d0), reg(d1)); // pc 2: reads 4 registers
    b.inst(
        Op::Unpack { ty: Type::B64 },
        vec![vector(&[lo, hi])],
        vec![reg(d2)],
    ); // pc 3
    b.mul_wide(Type::S32, d1, reg(lo), imm(4)); // pc 4: 32-bit read, 64-bit write
    b.inst(
        Op::St {
            space: StateSpace::Global,
            ty: Type::U32,
            vec: 2,
            order: MemOrder::Weak,
            scope: None,
            cache: None,
        },
        vec![],
        vec![addr(d1, 0), vector(&[hi, lo])],
    ); // pc 5
    b.ret();
    let f = b.finish();
    let (a, h) = analyze(&f);
    let [q0, q1, q2] = [d0, d1, d2].map(|v| r(&a, v));
    assert_eq!(q0.len(), 2);
    assert_eq!(q0[0] % 2, 0, "pairs are aligned");

    assert_eq!(h.reads(2), [q0.clone(), q1.clone()].concat());
    assert_eq!(h.last_uses(2), [true; 4]);
    assert_eq!(set(&h, 2, false), sorted([q0.clone(), q1.clone()].concat()));
    assert_eq!(set(&h, 2, true), q2);
    // Six edges among the four registers read at pc 2 (pc 5 adds its own).
    for (x, y) in [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)] {
        let regs = [q0.clone(), q1.clone()].concat();
        assert!(h.affinity_weight(regs[x], regs[y]) >= 1);
    }
    let (rlo, rhi) = (r1(&a, lo), r1(&a, hi));
    assert_eq!(h.reads(3), q2);
    assert_eq!(h.last_uses(3), [true, true]);
    assert_eq!(h.reads(4), [rlo]);
    assert_eq!(h.last_uses(4), [false], "%r0 is stored at pc 5");
    assert!(h.live_out(4).contains(rhi));
    let q1_after = r(&a, d1);
    assert_eq!(h.reads(5), [q1_after.clone(), vec![rhi, rlo]].concat());
    assert_eq!(h.last_uses(5), [true; 4]);
    assert!(h.live_out(5).is_empty());
}

// ---------------------------------------------------------------------------------------------
// Random functions against a brute-force definition over physical registers.

const PREDS: u32 = 2;
const R32: u32 = 5;
const R64: u32 = 3;

#[derive(Clone, Debug)]
enum Body {
    Mov(u32, i8),
    Add(u32, u32, u32),
    Add64(u32, u32, u32),
    MulWide(u32, u32),
    Setp(u32, u32),
    GuardedAdd(u32, bool, u32, u32),
    Store(u32, u32),
    Pack(u32, u32, u32),
    Unpack(u32, u32, u32),
    Copy(u32, u32),
}

#[derive(Clone, Debug)]
enum Term {
    None,
    Bra(u32),
    BraIf(u32, u32),
    Ret,
}

fn body() -> impl Strategy<Value = Body> {
    let r = || 0..R32;
    let d = || 0..R64;
    prop_oneof![
        (r(), any::<i8>()).prop_map(|(a, i)| Body::Mov(a, i)),
        (r(), r(), r()).prop_map(|(a, b, c)| Body::Add(a, b, c)),
        (d(), d(), d()).prop_map(|(a, b, c)| Body::Add64(a, b, c)),
        (d(), r()).prop_map(|(a, b)| Body::MulWide(a, b)),
        (0..PREDS, r()).prop_map(|(a, b)| Body::Setp(a, b)),
        (0..PREDS, any::<bool>(), r(), r()).prop_map(|(p, n, a, b)| Body::GuardedAdd(p, n, a, b)),
        (d(), r()).prop_map(|(a, b)| Body::Store(a, b)),
        (d(), r(), r()).prop_map(|(a, b, c)| Body::Pack(a, b, c)),
        (r(), r(), d()).prop_map(|(a, b, c)| Body::Unpack(a, b, c)),
        (r(), r()).prop_map(|(a, b)| Body::Copy(a, b)),
    ]
}

fn term() -> impl Strategy<Value = Term> {
    prop_oneof![
        Just(Term::None),
        (0..8u32).prop_map(Term::Bra),
        (0..PREDS, 0..8u32).prop_map(|(p, t)| Term::BraIf(p, t)),
        Just(Term::Ret),
    ]
}

fn build(spec: &[(Vec<Body>, Term)]) -> Function {
    let mut b = FunctionBuilder::new("random", FuncKind::Entry);
    let p: Vec<VReg> = (0..PREDS)
        .map(|i| b.reg(&format!("%p{i}"), Type::Pred))
        .collect();
    let r: Vec<VReg> = (0..R32)
        .map(|i| b.reg(&format!("%r{i}"), Type::B32))
        .collect();
    let d: Vec<VReg> = (0..R64)
        .map(|i| b.reg(&format!("%rd{i}"), Type::B64))
        .collect();
    let n = spec.len() as u32;
    for _ in 1..n {
        b.block();
    }
    let r = |i: u32| r[i as usize];
    let d = |i: u32| d[i as usize];
    for (bi, (insts, end)) in spec.iter().enumerate() {
        b.switch_to(BlockId(bi as u32));
        for inst in insts {
            match *inst {
                Body::Mov(x, v) => b.mov(Type::B32, r(x), imm(v.into())),
                Body::Add(x, y, z) => b.add(Type::S32, r(x), reg(r(y)), reg(r(z))),
                Body::Add64(x, y, z) => b.add(Type::S64, d(x), reg(d(y)), reg(d(z))),
                Body::MulWide(x, y) => b.mul_wide(Type::S32, d(x), reg(r(y)), imm(4)),
                Body::Setp(x, y) => b.setp(CmpOp::Lt, Type::S32, p[x as usize], reg(r(y)), imm(0)),
                Body::GuardedAdd(g, neg, x, y) => b.guarded(
                    p[g as usize],
                    neg,
                    Op::IAdd {
                        ty: Type::S32,
                        sat: false,
                    },
                    vec![reg(r(x))],
                    vec![reg(r(y)), imm(1)],
                ),
                Body::Store(x, y) => b.st(StateSpace::Global, Type::B32, addr(d(x), 0), reg(r(y))),
                Body::Pack(x, y, z) => b.inst(
                    Op::Pack { ty: Type::B64 },
                    vec![reg(d(x))],
                    vec![vector(&[r(y), r(z)])],
                ),
                Body::Unpack(x, y, z) => b.inst(
                    Op::Unpack { ty: Type::B64 },
                    vec![vector(&[r(x), r(y)])],
                    vec![reg(d(z))],
                ),
                Body::Copy(x, y) => b.mov(Type::B32, r(x), reg(r(y))),
            }
        }
        match *end {
            Term::None => {}
            Term::Bra(t) => b.bra(BlockId(t % n)),
            Term::BraIf(g, t) => b.bra_if(p[g as usize], false, BlockId(t % n)),
            Term::Ret => b.ret(),
        }
    }
    b.finish()
}

/// Whether the value in physical register `reg` at the start of instruction `i` of block `b`
/// (`i == len` meaning the block's end) is read on some path before an unguarded instruction
/// overwrites it: the definition of a live physical register, searched path by path.
fn read_later(f: &Function, a: &FunctionAnalysis, reg: u32, b: BlockId, i: usize) -> bool {
    let touches = |inst: &Inst, defs: bool| {
        let regs: Vec<VReg> = if defs {
            inst.defs().collect()
        } else {
            inst.uses().collect()
        };
        regs.iter()
            .any(|&v| a.alloc.get(v).is_some_and(|p| p.gprs().contains(&reg)))
    };
    let mut seen = vec![false; f.blocks.len()];
    let mut stack = vec![(b, i)];
    while let Some((b, start)) = stack.pop() {
        let insts = &f.blocks[b.index()].insts;
        let mut blocked = false;
        for inst in &insts[start..] {
            if touches(inst, false) {
                return true;
            }
            if inst.guard.is_none() && touches(inst, true) {
                blocked = true;
                break;
            }
        }
        if !blocked {
            for &s in a.cfg.succs(b) {
                if !seen[s.index()] {
                    seen[s.index()] = true;
                    stack.push((s, 0));
                }
            }
        }
    }
    false
}

fn check(f: &Function) -> Result<(), TestCaseError> {
    let a = FunctionAnalysis::compute(f);
    prop_assert!(regalloc::validate(f, &a.liveness, &a.alloc).is_empty());
    let h = FunctionHints::compute(f, &a);
    prop_assert_eq!(&h, &FunctionHints::compute(f, &a), "deterministic");
    prop_assert_eq!(h.len(), f.inst_count());
    let mut expected_edges: BTreeMap<(u32, u32), u64> = BTreeMap::new();
    for b in f.block_ids() {
        for (i, inst) in f.blocks[b.index()].insts.iter().enumerate() {
            let pc = a.pc(b, i);
            for reg in 0..h.num_regs() {
                prop_assert_eq!(
                    h.live_in(pc).contains(reg),
                    read_later(f, &a, reg, b, i),
                    "live-in of R{} at pc {}",
                    reg,
                    pc
                );
                prop_assert_eq!(
                    h.live_out(pc).contains(reg),
                    read_later(f, &a, reg, b, i + 1),
                    "live-out of R{} at pc {}",
                    reg,
                    pc
                );
            }
            let mut reads: Vec<u32> = Vec::new();
            for v in inst.uses() {
                for x in a.alloc.get(v).map_or(0..0, |p| p.gprs()) {
                    if !reads.contains(&x) {
                        reads.push(x);
                    }
                }
            }
            prop_assert_eq!(h.reads(pc), reads.as_slice());
            check_reuse(f, &a, &h, b, i, &reads)?;
            for &x in &reads {
                let overwritten = inst.guard.is_none()
                    && inst
                        .defs()
                        .any(|v| a.alloc.get(v).is_some_and(|p| p.gprs().contains(&x)));
                let expected = overwritten || !read_later(f, &a, x, b, i + 1);
                prop_assert_eq!(
                    h.last_use(pc, x),
                    expected,
                    "last use of R{} at pc {}",
                    x,
                    pc
                );
            }
            let weight = if a.cfg.is_reachable(b) {
                LOOP_WEIGHT.pow(a.loops.depth(b))
            } else {
                0
            };
            prop_assert_eq!(h.weight(pc), weight);
            if weight > 0 {
                for (k, &x) in reads.iter().enumerate() {
                    for &y in &reads[k + 1..] {
                        *expected_edges.entry((x.min(y), x.max(y))).or_insert(0) += weight;
                    }
                }
            }
        }
    }
    let got: BTreeMap<(u32, u32), u64> = h
        .affinity()
        .iter()
        .map(|e| ((e.a, e.b), e.weight))
        .collect();
    prop_assert_eq!(got, expected_edges);
    prop_assert!(
        h.affinity()
            .windows(2)
            .all(|w| (w[0].a, w[0].b) < (w[1].a, w[1].b))
    );
    Ok(())
}

/// The first source operand of `inst` naming physical register `x`.
fn first_slot(inst: &Inst, a: &FunctionAnalysis, x: u32) -> Option<usize> {
    inst.srcs.iter().position(|src| {
        src.regs()
            .any(|v| a.alloc.get(v).is_some_and(|p| p.gprs().contains(&x)))
    })
}

/// Operand slots and reuse bits of instruction `i` of block `b` (reading `reads`), straight
/// from the definition of `isa::reuse`: the next instruction of the block, both reading
/// through the operand cache, reads the register in the same slot, and this one does not write
/// it.
fn check_reuse(
    f: &Function,
    a: &FunctionAnalysis,
    h: &FunctionHints,
    b: BlockId,
    i: usize,
    reads: &[u32],
) -> Result<(), TestCaseError> {
    let insts = &f.blocks[b.index()].insts;
    let inst = &insts[i];
    let pc = a.pc(b, i);
    let next = insts.get(i + 1).filter(|next| {
        reads_through_operand_cache(&inst.op) && reads_through_operand_cache(&next.op)
    });
    prop_assert_eq!(h.read_slots(pc).len(), reads.len());
    prop_assert_eq!(h.reuse(pc).len(), reads.len());
    for (k, &x) in reads.iter().enumerate() {
        let slot = first_slot(inst, a, x);
        prop_assert_eq!(slot.map(|s| s as u8), Some(h.read_slots(pc)[k]));
        let written = inst
            .defs()
            .any(|v| a.alloc.get(v).is_some_and(|p| p.gprs().contains(&x)));
        let expected =
            next.is_some_and(|next| !written && slot.is_some() && first_slot(next, a, x) == slot);
        prop_assert_eq!(h.reuse(pc)[k], expected, "reuse bit of R{} at pc {}", x, pc);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn hints_match_physical_register_paths(
        spec in prop::collection::vec((prop::collection::vec(body(), 0..6), term()), 1..7)
    ) {
        check(&build(&spec))?;
    }
}

/// BOW-WR's write-back targets (`isa::writeback`) on a straight line, for windows of 1 to 3:
///
/// ```text
/// 0 ld.param.u64 %rd1, [out]     first read at 4, out of every window, live: Rf
/// 1 mov.u32      %r1, 7          read at 2 and 3 (each within reach of the last), dead: Window
/// 2 add.s32      %r2, %r1, %r1   read at 3, then at 6 (3 after): Both
/// 3 add.s32      %r3, %r2, %r1   read at 4, dead: Window
/// 4 st.global    [%rd1], %r3
/// 5 mov.u32      %r3, 1          never read (a dead definition of a register read before): Unread
/// 6 st.global    [%rd1+4], %r2
/// 7 ret
/// ```
#[test]
fn writeback_targets_follow_reuse_distance_and_liveness() {
    use isa::writeback::WriteTarget::{Both, Rf, Unread, Window};
    let mut b = FunctionBuilder::new("k", FuncKind::Entry);
    let out = b.param("out", Type::U64);
    let rd1 = b.reg("%rd1", Type::U64);
    let [r1v, r2v, r3v] = ["%r1", "%r2", "%r3"].map(|n| b.reg(n, Type::U32));
    b.ld_param(Type::U64, rd1, out);
    b.mov(Type::U32, r1v, imm(7));
    b.add(Type::S32, r2v, reg(r1v), reg(r1v));
    b.add(Type::S32, r3v, reg(r2v), reg(r1v));
    b.st(StateSpace::Global, Type::U32, addr(rd1, 0), reg(r3v));
    b.mov(Type::U32, r3v, imm(1));
    b.st(StateSpace::Global, Type::U32, addr(rd1, 4), reg(r2v));
    b.ret();
    let f = b.finish();
    let (a, h) = analyze(&f);
    assert_eq!(h.writes(0), r(&a, rd1));
    assert_eq!(h.writes(2), [r1(&a, r2v)]);
    assert!(h.writes(4).is_empty() && !h.is_guarded(4));
    assert!((0..7).all(|pc| !h.ends_run(pc)) && h.ends_run(7));
    let targets = |window| {
        let w = h.writeback(window);
        assert_eq!(w.window(), window);
        [0, 1, 2, 3, 5].map(|pc| w.targets(pc).to_vec())
    };
    assert_eq!(
        targets(3),
        [
            vec![Rf, Rf],
            vec![Window],
            vec![Both],
            vec![Window],
            vec![Unread]
        ]
    );
    // IW = 2: %r2's read at 3 is in reach, the one at 6 is not.
    assert_eq!(
        targets(2),
        [
            vec![Rf, Rf],
            vec![Window],
            vec![Both],
            vec![Window],
            vec![Unread]
        ]
    );
    // IW = 1 forwards nothing: every value read goes to the register file.
    assert_eq!(
        targets(1),
        [vec![Rf, Rf], vec![Rf], vec![Rf], vec![Rf], vec![Unread]]
    );
    // A value still in the window where its block ends is read later if it is live there.
    let mut b = FunctionBuilder::new("k", FuncKind::Entry);
    let out = b.param("out", Type::U64);
    let rd1 = b.reg("%rd1", Type::U64);
    let x = b.reg("%r1", Type::U32);
    let next = b.block();
    b.ld_param(Type::U64, rd1, out);
    b.mov(Type::U32, x, imm(3));
    b.bra(next);
    b.switch_to(next);
    b.st(StateSpace::Global, Type::U32, addr(rd1, 0), reg(x));
    b.ret();
    let f = b.finish();
    let (_, h) = analyze(&f);
    assert!(h.ends_run(2));
    assert_eq!(h.writeback(3).targets(1), [Rf]);
}
