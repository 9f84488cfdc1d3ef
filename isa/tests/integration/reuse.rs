//! Operand slots and operand-cache reuse bits (`isa::reuse`) with exact expected bits: small
//! hand-written functions, most with a hand-made allocation (so every register number is the
//! test's own), one through the register allocator. The random functions of `hints.rs` check
//! the same definition against an independent one.

use isa::builder::{FunctionBuilder, addr, imm, imm_f32, reg, vector};
use isa::reuse::reads_through_operand_cache;
use isa::{
    BarrierKind, FuncKind, Function, FunctionAnalysis, FunctionHints, Op, PhysReg, Rounding,
    StateSpace, TranscFn, Type, VReg, verify_function,
};

fn fma() -> Op {
    Op::Fma {
        ty: Type::F32,
        rnd: Rounding::Rn,
        ftz: false,
        sat: false,
        relu: false,
    }
}

/// The hints of `f` with virtual register `i` in the 32-bit registers `regs[i]` (consecutive,
/// from the first; an empty list is a predicate, `P0`).
fn hints(f: &Function, regs: &[&[u32]]) -> FunctionHints {
    assert_eq!(verify_function(f, None), []);
    assert_eq!(
        regs.len(),
        f.regs.len(),
        "one allocation per virtual register"
    );
    let phys: Vec<Option<PhysReg>> = regs
        .iter()
        .map(|r| {
            Some(match r {
                [] => PhysReg::Pred(0),
                [first, ..] => PhysReg::Gpr {
                    first: *first,
                    count: r.len() as u32,
                },
            })
        })
        .collect();
    FunctionHints::with_allocation(f, &phys)
}

/// Reads, slots and reuse bits of every PC, for one comparison with the expectation.
fn table(h: &FunctionHints) -> Vec<(Vec<u32>, Vec<u8>, Vec<bool>)> {
    (0..h.len() as u32)
        .map(|pc| {
            assert_eq!(
                h.reuse_reads(pc),
                h.reuse(pc).iter().filter(|&&b| b).count()
            );
            (
                h.reads(pc).to_vec(),
                h.read_slots(pc).to_vec(),
                h.reuse(pc).to_vec(),
            )
        })
        .collect()
}

fn row(reads: &[u32], slots: &[u8], reuse: &[bool]) -> (Vec<u32>, Vec<u8>, Vec<bool>) {
    (reads.to_vec(), slots.to_vec(), reuse.to_vec())
}

const NONE: (&[u32], &[u8], &[bool]) = (&[], &[], &[]);

/// An FFMA chain: `%a` stays in slot 0 and is kept for the next FFMA each time; `%b` and `%c`
/// swap slots and are not; nothing is kept for a store, and loads (address bases) never keep
/// anything.
///
/// ```text
///   regs: rd R0-R1, a R2, b R3, c R4, d R5, e R6, f R7
/// 0 ld.param.u64 %rd, [out]
/// 1 ld.global.f32 %a, [%rd]        address base in slot 0, read again in slot 0: memory, no bit
/// 2 ld.global.f32 %b, [%rd+4]
/// 3 ld.global.f32 %c, [%rd+8]
/// 4 fma.rn.f32 %d, %a, %b, %c      a: next reads it in slot 0; b, c: in other slots
/// 5 fma.rn.f32 %e, %a, %c, %b      a: kept again; c, b: not read by pc 6
/// 6 fma.rn.f32 %f, %a, %d, %e      the next instruction is a store
/// 7 st.global.f32 [%rd], %f
/// 8 ret
/// ```
#[test]
fn ffma_chain_keeps_the_register_read_again_in_its_slot() {
    let mut b = FunctionBuilder::new("k", FuncKind::Entry);
    let out = b.param("out", Type::U64);
    let rd = b.reg("%rd", Type::U64);
    let [a, bb, c, d, e, f] = ["%a", "%b", "%c", "%d", "%e", "%f"].map(|n| b.reg(n, Type::F32));
    b.ld_param(Type::U64, rd, out);
    for (i, v) in [a, bb, c].into_iter().enumerate() {
        b.ld(
            StateSpace::Global,
            Type::F32,
            reg(v),
            addr(rd, 4 * i as i64),
        );
    }
    b.inst(fma(), vec![reg(d)], vec![reg(a), reg(bb), reg(c)]);
    b.inst(fma(), vec![reg(e)], vec![reg(a), reg(c), reg(bb)]);
    b.inst(fma(), vec![reg(f)], vec![reg(a), reg(d), reg(e)]);
    b.st(StateSpace::Global, Type::F32, addr(rd, 0), reg(f));
    b.ret();
    let h = hints(&b.finish(), &[&[0, 1], &[2], &[3], &[4], &[5], &[6], &[7]]);
    let expected = [
        NONE,
        (&[0, 1], &[0, 0], &[false, false]),
        (&[0, 1], &[0, 0], &[false, false]),
        (&[0, 1], &[0, 0], &[false, false]),
        (&[2, 3, 4], &[0, 1, 2], &[true, false, false]),
        (&[2, 4, 3], &[0, 1, 2], &[true, false, false]),
        (&[2, 5, 6], &[0, 1, 2], &[false, false, false]),
        (&[0, 1, 7], &[0, 0, 1], &[false, false, false]),
        NONE,
    ];
    assert_eq!(table(&h), expected.map(|(r, s, u)| row(r, s, u)));
    assert_eq!(h.reuse_reads(4), 1);
    assert_eq!(h.reuse_reads(7), 0);
}

/// Immediates take slots: `%c` after an immediate multiplicand is in slot 2 on both sides.
/// A register named twice is read once, in its first slot.
///
/// ```text
///   regs: rd R0-R1, a R2, c R3, d R4, e R5, f R6
/// 0 ld.param.u64 %rd, [out]
/// 1 ld.global.f32 %a, [%rd]
/// 2 ld.global.f32 %c, [%rd+4]
/// 3 fma.rn.f32 %d, %a, 2.0, %c     c in slot 2, read in slot 2 next
/// 4 fma.rn.f32 %e, %d, 3.0, %c     d: slot 0, read first in slot 0 next (and again in slot 1)
/// 5 mul.rn.f32 %f, %d, %d          d read once, slot 0; the next instruction is a store
/// 6 st.global.f32 [%rd], %f
/// 7 ret
/// ```
#[test]
fn immediates_take_slots_and_a_repeated_register_takes_its_first() {
    let mut b = FunctionBuilder::new("k", FuncKind::Entry);
    let out = b.param("out", Type::U64);
    let rd = b.reg("%rd", Type::U64);
    let [a, c, d, e, f] = ["%a", "%c", "%d", "%e", "%f"].map(|n| b.reg(n, Type::F32));
    b.ld_param(Type::U64, rd, out);
    b.ld(StateSpace::Global, Type::F32, reg(a), addr(rd, 0));
    b.ld(StateSpace::Global, Type::F32, reg(c), addr(rd, 4));
    b.inst(fma(), vec![reg(d)], vec![reg(a), imm_f32(2.0), reg(c)]);
    b.inst(fma(), vec![reg(e)], vec![reg(d), imm_f32(3.0), reg(c)]);
    let fmul = Op::FMul {
        ty: Type::F32,
        rnd: Some(Rounding::Rn),
        ftz: false,
        sat: false,
    };
    b.inst(fmul, vec![reg(f)], vec![reg(d), reg(d)]);
    b.st(StateSpace::Global, Type::F32, addr(rd, 0), reg(f));
    b.ret();
    let h = hints(&b.finish(), &[&[0, 1], &[2], &[3], &[4], &[5], &[6]]);
    assert_eq!(h.reads(3), [2, 3]);
    assert_eq!(h.read_slots(3), [0, 2]);
    assert_eq!(h.reuse(3), [false, true]);
    assert_eq!(h.read_slots(4), [0, 2]);
    assert_eq!(
        h.reuse(4),
        [true, false],
        "d is read in slot 0 (first) by the FMUL"
    );
    assert_eq!(h.reads(5), [4]);
    assert_eq!(h.read_slots(5), [0]);
    assert_eq!(h.reuse(5), [false]);
}

/// Both halves of a 64-bit operand share its slot and are kept together.
///
/// ```text
///   regs: rd R0-R1, x R2-R3, y R4-R5, z R6-R7, w R8-R9, v R10-R11
/// 0 ld.param.u64 %rd, [out]
/// 1 ld.global.u64 %x, [%rd]
/// 2 ld.global.u64 %y, [%rd+8]
/// 3 add.s64 %z, %x, %y             x: read in slot 0 next; y: not read next
/// 4 add.s64 %w, %x, %z             x: read next, but in slot 1
/// 5 add.s64 %v, %w, %x
/// 6 st.global.u64 [%rd], %v
/// 7 ret
/// ```
#[test]
fn both_halves_of_a_64_bit_operand_share_its_slot() {
    let mut b = FunctionBuilder::new("k", FuncKind::Entry);
    let out = b.param("out", Type::U64);
    let [rd, x, y, z, w, v] = ["%rd", "%x", "%y", "%z", "%w", "%v"].map(|n| b.reg(n, Type::U64));
    b.ld_param(Type::U64, rd, out);
    b.ld(StateSpace::Global, Type::U64, reg(x), addr(rd, 0));
    b.ld(StateSpace::Global, Type::U64, reg(y), addr(rd, 8));
    b.add(Type::S64, z, reg(x), reg(y));
    b.add(Type::S64, w, reg(x), reg(z));
    b.add(Type::S64, v, reg(w), reg(x));
    b.st(StateSpace::Global, Type::U64, addr(rd, 0), reg(v));
    b.ret();
    let regs: [&[u32]; 6] = [&[0, 1], &[2, 3], &[4, 5], &[6, 7], &[8, 9], &[10, 11]];
    let h = hints(&b.finish(), &regs);
    assert_eq!(h.reads(3), [2, 3, 4, 5]);
    assert_eq!(h.read_slots(3), [0, 0, 1, 1]);
    assert_eq!(h.reuse(3), [true, true, false, false]);
    assert_eq!(h.reuse_reads(3), 2);
    assert_eq!(h.reads(4), [2, 3, 6, 7]);
    assert_eq!(h.reuse(4), [false; 4]);
    assert_eq!(h.read_slots(5), [0, 0, 1, 1]);
    assert_eq!(h.reuse(5), [false; 4]);
}

/// The elements of a vector operand (a pack's source) share its slot.
///
/// ```text
///   regs: lo R0, hi R1, hi2 R2, x R4-R5, y R6-R7
/// 0 mov.b64 %x, {%lo, %hi}        lo and hi in slot 0; lo read in slot 0 next, hi not read
/// 1 mov.b64 %y, {%lo, %hi2}
/// ```
#[test]
fn vector_elements_share_the_vector_slot() {
    let mut b = FunctionBuilder::new("k", FuncKind::Func);
    let [lo, hi, hi2] = ["%lo", "%hi", "%hi2"].map(|n| b.reg(n, Type::B32));
    let [x, y] = ["%x", "%y"].map(|n| b.reg(n, Type::B64));
    let pack = Op::Pack { ty: Type::B64 };
    b.inst(pack.clone(), vec![reg(x)], vec![vector(&[lo, hi])]);
    b.inst(pack, vec![reg(y)], vec![vector(&[lo, hi2])]);
    b.ret();
    let h = hints(&b.finish(), &[&[0], &[1], &[2], &[4, 5], &[6, 7]]);
    assert_eq!(h.reads(0), [0, 1]);
    assert_eq!(h.read_slots(0), [0, 0]);
    assert_eq!(h.reuse(0), [true, false]);
    assert_eq!(h.reuse(1), [false, false], "the next instruction is ret");
}

/// An instruction that overwrites its source does not keep it (the cache would hold the old
/// value), guarded or not; its other sources are kept.
///
/// ```text
///   regs: a R0, b R1, c R2, p P0
/// 0 add.s32 %a, %a, %b             a written here: no bit; b kept
/// 1 add.s32 %c, %a, %b             a, b kept
/// 2 @p add.s32 %a, %a, %b          a written (guarded): no bit; b kept
/// 3 add.s32 %c, %a, %b
/// 4 ret
/// ```
#[test]
fn an_instruction_overwriting_its_source_does_not_keep_it() {
    let mut b = FunctionBuilder::new("k", FuncKind::Func);
    let [a, bb, c] = ["%a", "%b", "%c"].map(|n| b.reg(n, Type::S32));
    let p = b.reg("%p", Type::Pred);
    b.add(Type::S32, a, reg(a), reg(bb));
    b.add(Type::S32, c, reg(a), reg(bb));
    let add = Op::IAdd {
        ty: Type::S32,
        sat: false,
    };
    b.guarded(p, false, add, vec![reg(a)], vec![reg(a), reg(bb)]);
    b.add(Type::S32, c, reg(a), reg(bb));
    b.ret();
    let h = hints(&b.finish(), &[&[0], &[1], &[2], &[]]);
    assert_eq!(h.reads(0), [0, 1]);
    assert_eq!(h.reuse(0), [false, true]);
    assert_eq!(h.reuse(1), [true, true]);
    assert_eq!(
        h.reads(2),
        [0, 1],
        "the guard is a predicate: no register read"
    );
    assert_eq!(h.read_slots(2), [0, 1]);
    assert_eq!(h.reuse(2), [false, true]);
    assert_eq!(h.reuse(3), [false, false]);
}

/// Nothing is kept across a block boundary, a barrier, or an SFU operation, and a block's
/// first instructions keep as usual.
///
/// ```text
///   regs: a R0, b R1, c R2, d R3, e R4
///   bb0:
/// 0 add.s32 %c, %a, %b             last of its block: no bit although pc 1 reads a, b alike
///   bb1:
/// 1 add.s32 %d, %a, %b             a, b kept
/// 2 add.s32 %e, %a, %b             next: a barrier
/// 3 bar.sync 0
/// 4 add.s32 %c, %a, %b             next: ex2 (SFU), reading a in slot 0
/// 5 ex2.approx.f32 %d, %a
/// 6 add.s32 %e, %a, %b             the SFU operation keeps nothing either
/// 7 ret
/// ```
#[test]
fn nothing_is_kept_across_blocks_barriers_or_sfu_operations() {
    let mut b = FunctionBuilder::new("k", FuncKind::Func);
    let [a, bb, c, d, e] = ["%a", "%b", "%c", "%d", "%e"].map(|n| b.reg(n, Type::S32));
    let next = b.block();
    b.add(Type::S32, c, reg(a), reg(bb));
    b.switch_to(next);
    b.add(Type::S32, d, reg(a), reg(bb));
    b.add(Type::S32, e, reg(a), reg(bb));
    let bar = Op::Bar {
        kind: BarrierKind::Sync,
        aligned: true,
    };
    b.inst(bar, Vec::new(), vec![imm(0)]);
    b.add(Type::S32, c, reg(a), reg(bb));
    let ex2 = Op::Transc {
        func: TranscFn::Ex2,
        ty: Type::F32,
        ftz: false,
    };
    b.inst(ex2, vec![reg(d)], vec![reg(a)]);
    b.add(Type::S32, e, reg(a), reg(bb));
    b.ret();
    let h = hints(&b.finish(), &[&[0], &[1], &[2], &[3], &[4]]);
    assert!(h.ends_run(0) && !h.ends_run(1));
    let bits: Vec<Vec<bool>> = (0..8).map(|pc| h.reuse(pc).to_vec()).collect();
    let f = [false, false];
    let t = [true, true];
    assert_eq!(
        bits,
        [
            f.to_vec(),
            t.to_vec(),
            f.to_vec(),
            vec![],
            f.to_vec(),
            vec![false],
            f.to_vec(),
            vec![]
        ]
    );
}

/// The operation classes of the operand cache: ALU operations, not memory, SFU, warp-wide or
/// control instructions.
#[test]
fn operand_cache_instructions_are_the_fixed_latency_alu_operations() {
    let add = Op::IAdd {
        ty: Type::S32,
        sat: false,
    };
    let sin = Op::Transc {
        func: TranscFn::Sin,
        ty: Type::F32,
        ftz: false,
    };
    let bar = Op::Bar {
        kind: BarrierKind::Sync,
        aligned: true,
    };
    for (op, cached) in [
        (add, true),
        (fma(), true),
        (Op::Mov { ty: Type::B32 }, true),
        (sin, false),
        (Op::IDiv { ty: Type::S32 }, false),
        (bar, false),
        (Op::Exit, false),
    ] {
        assert_eq!(reads_through_operand_cache(&op), cached, "{op:?}");
    }
}

/// Through the register allocator: a dot-product step `acc = fma(x, w, acc)` twice with the
/// same `w`, as NVRTC would emit it; `w` is kept, whatever registers the allocator picked.
#[test]
fn allocated_registers_keep_the_shared_multiplicand() {
    let mut b = FunctionBuilder::new("k", FuncKind::Entry);
    let out = b.param("out", Type::U64);
    let rd = b.reg("%rd", Type::U64);
    let [x, y, w, acc] = ["%x", "%y", "%w", "%acc"].map(|n| b.reg(n, Type::F32));
    b.ld_param(Type::U64, rd, out);
    for (i, v) in [x, y, w, acc].into_iter().enumerate() {
        b.ld(
            StateSpace::Global,
            Type::F32,
            reg(v),
            addr(rd, 4 * i as i64),
        );
    }
    b.inst(fma(), vec![reg(acc)], vec![reg(w), reg(x), reg(acc)]);
    b.inst(fma(), vec![reg(acc)], vec![reg(w), reg(y), reg(acc)]);
    b.st(StateSpace::Global, Type::F32, addr(rd, 0), reg(acc));
    b.ret();
    let f = b.finish();
    let a = FunctionAnalysis::compute(&f);
    let h = FunctionHints::compute(&f, &a);
    let one = |v: VReg| a.alloc.get(v).expect("allocated").gprs().start;
    assert_eq!(h.reads(5), [one(w), one(x), one(acc)]);
    assert_eq!(h.read_slots(5), [0, 1, 2]);
    // acc is read in slot 2 again, but pc 5 writes it.
    assert_eq!(h.reuse(5), [true, false, false]);
    assert_eq!(h.reuse(6), [false; 3]);
}
