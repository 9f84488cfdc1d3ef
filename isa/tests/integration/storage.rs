//! What each virtual register needs before allocation (`isa::storage`): launch constants read
//! as operands, 64-bit window offsets in one register, and the readers that disqualify them.

use isa::builder::{FunctionBuilder, addr, imm, reg};
use isa::storage::{Storage, storage};
use isa::{CmpOp, Dim, FuncKind, FunctionAnalysis, Operand, PhysReg, SpecialReg, StateSpace, Type};

fn tid_x() -> Operand {
    Operand::Special(SpecialReg::Tid(Dim::X))
}

/// A kernel parameter read by arithmetic is a constant (no register); one used as an address
/// needs its register; in a device function parameters arrive in registers.
#[test]
fn kernel_parameters_are_operands_unless_an_address_needs_them() {
    for kind in [FuncKind::Entry, FuncKind::Func] {
        let mut b = FunctionBuilder::new("k", kind);
        let (pa, pn) = (b.param("a", Type::U64), b.param("n", Type::U32));
        let [a, ptr] = ["%rd1", "%rd2"].map(|n| b.reg(n, Type::U64));
        let [n, t, s] = ["%r1", "%r2", "%r3"].map(|n| b.reg(n, Type::U32));
        b.ld_param(Type::U64, a, pa);
        b.ld_param(Type::U32, n, pn);
        b.mov(Type::U32, t, tid_x());
        b.add(Type::U32, s, reg(t), reg(n)); // n: one constant operand
        b.mul_wide(Type::U32, ptr, reg(s), imm(4));
        b.add(Type::U64, ptr, reg(a), reg(ptr)); // a: one constant operand
        b.st(StateSpace::Global, Type::U32, addr(ptr, 0), reg(s));
        b.ret();
        let f = b.finish();
        let st = storage(&f);
        let want = if kind == FuncKind::Entry {
            Storage::Constant
        } else {
            Storage::Full
        };
        assert_eq!((st[a.index()], st[n.index()]), (want, want), "{kind:?}");
        // The address is global: both halves are needed.
        assert_eq!(st[ptr.index()], Storage::Full);
        let an = FunctionAnalysis::compute(&f);
        assert_eq!(
            isa::regalloc::validate(&f, &an.liveness, &an.alloc),
            [],
            "{kind:?}"
        );
        let constant = an.alloc.get(a) == Some(PhysReg::Constant);
        assert_eq!(constant, kind == FuncKind::Entry);
    }
}

/// Machine code encodes one immediate or constant-bank operand per instruction: of two
/// constants read by one `add`, the second needs a register; a constant stored to memory
/// needs one too, as does a value with two definitions.
#[test]
fn one_constant_operand_per_instruction_and_none_as_stored_data() {
    let mut b = FunctionBuilder::new("k", FuncKind::Entry);
    let out = b.param("out", Type::U64);
    let ptr = b.reg("%rd1", Type::U64);
    let [x, y, z, w, v] = ["%r1", "%r2", "%r3", "%r4", "%r5"].map(|n| b.reg(n, Type::U32));
    b.ld_param(Type::U64, ptr, out);
    b.mov(Type::U32, x, imm(3));
    b.mov(Type::U32, y, imm(5));
    b.add(Type::U32, z, reg(x), reg(y));
    b.mov(Type::U32, w, imm(7));
    b.mov(Type::U32, v, imm(1));
    b.add(Type::U32, v, reg(v), reg(z));
    b.st(StateSpace::Global, Type::U32, addr(ptr, 0), reg(v));
    b.st(StateSpace::Global, Type::U32, addr(ptr, 4), reg(w));
    b.ret();
    let f = b.finish();
    let st = storage(&f);
    assert_eq!(st[x.index()], Storage::Constant);
    assert_eq!(st[y.index()], Storage::Full, "the add's second constant");
    assert_eq!(st[w.index()], Storage::Full, "stored data");
    assert_eq!(st[v.index()], Storage::Full, "two definitions");
    assert_eq!(st[ptr.index()], Storage::Full, "an address");
}

/// A 64-bit shared-memory address computed with `mul.wide` and `add.s64` keeps only its low
/// half; the same value compared or used as a global address keeps both.
#[test]
fn shared_offsets_take_one_register() {
    for compared in [false, true] {
        let mut b = FunctionBuilder::new("k", FuncKind::Entry);
        let [base, off, at] = ["%rd1", "%rd2", "%rd3"].map(|n| b.reg(n, Type::U64));
        let [t, x] = ["%r1", "%r2"].map(|n| b.reg(n, Type::U32));
        let p = b.reg("%p1", Type::Pred);
        b.mov(Type::U32, t, tid_x());
        b.mul_wide(Type::S32, off, reg(t), imm(4));
        b.mov(Type::U64, base, clock64());
        b.add(Type::S64, at, reg(base), reg(off));
        b.ld(StateSpace::Shared, Type::U32, reg(x), addr(at, 0));
        if compared {
            b.setp(CmpOp::Lt, Type::U64, p, reg(at), imm(64));
        }
        b.st(StateSpace::Shared, Type::U32, addr(at, 4), reg(x));
        b.ret();
        let f = b.finish();
        let st = storage(&f);
        let want = if compared {
            Storage::Full
        } else {
            Storage::Low32
        };
        assert_eq!(st[at.index()], want, "compared: {compared}");
        assert_eq!(st[off.index()], want, "compared: {compared}");
        let an = FunctionAnalysis::compute(&f);
        assert_eq!(isa::regalloc::validate(&f, &an.liveness, &an.alloc), []);
        let count = if compared { 2 } else { 1 };
        assert!(
            matches!(an.alloc.get(at), Some(PhysReg::Gpr { count: c, .. }) if c == count),
            "compared: {compared}: {:?}",
            an.alloc.get(at)
        );
    }
}

/// A 64-bit value that is not a launch constant: `%clock64`.
fn clock64() -> Operand {
    Operand::Special(SpecialReg::Clock64)
}
