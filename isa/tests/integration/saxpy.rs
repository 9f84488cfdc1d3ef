//! SAXPY as NVRTC emits it, built by hand: register counts against `ptxas -v` and the golden
//! `warpsim dis` listing.

use isa::builder::{FunctionBuilder, addr, imm, reg};
use isa::{
    CmpOp, Dim, FuncKind, FunctionAnalysis, Module, MulMode, Op, Operand, PhysReg, Rounding,
    SpecialReg, StateSpace, Type, disassemble, regalloc, verify_module,
};

/// The SAXPY kernel of `samples/saxpy/saxpy.ptx`, instruction for instruction.
fn saxpy() -> Module {
    let mut b = FunctionBuilder::new("saxpy", FuncKind::Entry);
    let n = b.param("saxpy_param_0", Type::U32);
    let a = b.param("saxpy_param_1", Type::F32);
    let x = b.param("saxpy_param_2", Type::U64);
    let y = b.param("saxpy_param_3", Type::U64);
    let p1 = b.reg("%p1", Type::Pred);
    let f: Vec<_> = (1..5)
        .map(|i| b.reg(&format!("%f{i}"), Type::F32))
        .collect();
    let r: Vec<_> = (1..6)
        .map(|i| b.reg(&format!("%r{i}"), Type::B32))
        .collect();
    let rd: Vec<_> = (1..8)
        .map(|i| b.reg(&format!("%rd{i}"), Type::B64))
        .collect();
    let body = b.block();
    let done = b.labeled_block("$L__BB0_2");

    b.ld_param(Type::U32, r[1], n);
    b.ld_param(Type::F32, f[0], a);
    b.ld_param(Type::U64, rd[0], x);
    b.ld_param(Type::U64, rd[1], y);
    b.mov(Type::U32, r[2], Operand::Special(SpecialReg::Ctaid(Dim::X)));
    b.mov(Type::U32, r[3], Operand::Special(SpecialReg::Ntid(Dim::X)));
    b.mov(Type::U32, r[4], Operand::Special(SpecialReg::Tid(Dim::X)));
    b.inst(
        Op::IMad {
            ty: Type::S32,
            mode: MulMode::Lo,
            sat: false,
        },
        vec![reg(r[0])],
        vec![reg(r[2]), reg(r[3]), reg(r[4])],
    );
    b.setp(CmpOp::Ge, Type::S32, p1, reg(r[0]), reg(r[1]));
    b.bra_if(p1, false, done);

    b.switch_to(body);
    let cvta = Op::Cvta {
        space: StateSpace::Global,
        to_generic: false,
        ty: Type::U64,
    };
    b.inst(cvta.clone(), vec![reg(rd[2])], vec![reg(rd[1])]);
    b.inst(cvta, vec![reg(rd[3])], vec![reg(rd[0])]);
    b.mul_wide(Type::S32, rd[4], reg(r[0]), imm(4));
    b.add(Type::S64, rd[5], reg(rd[3]), reg(rd[4]));
    b.ld(StateSpace::Global, Type::F32, reg(f[1]), addr(rd[5], 0));
    b.add(Type::S64, rd[6], reg(rd[2]), reg(rd[4]));
    b.ld(StateSpace::Global, Type::F32, reg(f[2]), addr(rd[6], 0));
    b.inst(
        Op::Fma {
            ty: Type::F32,
            rnd: Rounding::Rn,
            ftz: false,
            sat: false,
            relu: false,
        },
        vec![reg(f[3])],
        vec![reg(f[1]), reg(f[0]), reg(f[2])],
    );
    b.st(StateSpace::Global, Type::F32, addr(rd[6], 0), reg(f[3]));

    b.switch_to(done);
    b.ret();
    b.into_module()
}

/// The listing `warpsim dis` prints for SAXPY.
const SAXPY_DIS: &str = "\
.version 8.8
.target sm_70
.address_size 64

.visible .entry saxpy(.param .u32 saxpy_param_0, .param .f32 saxpy_param_1, .param .u64 saxpy_param_2, .param .u64 saxpy_param_3)
// regs 4, preds 1 per thread; 17 vregs, 3 blocks, 20 insts
{
bb0:  // preds: none; loop depth 0
     0  ld.param.u32 %r2, [saxpy_param_0];            // %r2→C | live: %r2
     1  ld.param.f32 %f1, [saxpy_param_1];            // %f1→C | live: %f1 %r2
     2  ld.param.u64 %rd1, [saxpy_param_2];           // %rd1→C | live: %f1 %r2 %rd1
     3  ld.param.u64 %rd2, [saxpy_param_3];           // %rd2→C | live: %f1 %r2 %rd1 %rd2
     4  mov.u32 %r3, %ctaid.x;                        // %r3→R0 | live: %f1 %r2 %r3 %rd1 %rd2
     5  mov.u32 %r4, %ntid.x;                         // %r4→C | live: %f1 %r2 %r3 %r4 %rd1 %rd2
     6  mov.u32 %r5, %tid.x;                          // %r5→R1 | live: %f1 %r2 %r3 %r4 %r5 %rd1 %rd2
     7  mad.lo.s32 %r1, %r3, %r4, %r5;                // %r1→R0 %r3→R0 %r4→C %r5→R1 | live: %f1 %r1 %r2 %rd1 %rd2
     8  setp.ge.s32 %p1, %r1, %r2;                    // %p1→P0 %r1→R0 %r2→C | live: %p1 %f1 %r1 %rd1 %rd2
     9  @%p1 bra bb2;                                 // %p1→P0 | live: %f1 %r1 %rd1 %rd2 | reconverge at bb2
bb1:  // preds: bb0; loop depth 0
    10  cvta.to.global.u64 %rd3, %rd2;                // %rd3→C %rd2→C | live: %f1 %r1 %rd1 %rd3
    11  cvta.to.global.u64 %rd4, %rd1;                // %rd4→C %rd1→C | live: %f1 %r1 %rd3 %rd4
    12  mul.wide.s32 %rd5, %r1, 4;                    // %rd5→R[0:1] %r1→R0 | live: %f1 %rd3 %rd4 %rd5
    13  add.s64 %rd6, %rd4, %rd5;                     // %rd6→R[2:3] %rd4→C %rd5→R[0:1] | live: %f1 %rd3 %rd5 %rd6
    14  ld.global.f32 %f2, [%rd6];                    // %f2→R2 %rd6→R[2:3] | live: %f1 %f2 %rd3 %rd5
    15  add.s64 %rd7, %rd3, %rd5;                     // %rd7→R[0:1] %rd3→C %rd5→R[0:1] | live: %f1 %f2 %rd7
    16  ld.global.f32 %f3, [%rd7];                    // %f3→R3 %rd7→R[0:1] | live: %f1 %f2 %f3 %rd7
    17  fma.rn.f32 %f4, %f2, %f1, %f3;                // %f4→R2 %f2→R2 %f1→C %f3→R3 | live: %f4 %rd7
    18  st.global.f32 [%rd7], %f4;                    // %rd7→R[0:1] %f4→R2 | live: -
bb2 ($L__BB0_2):  // preds: bb0, bb1; loop depth 0
    19  ret;                                          // live: -
}
";

#[test]
fn saxpy_listing_is_stable() {
    let m = saxpy();
    assert_eq!(verify_module(&m), []);
    let actual = disassemble(&m);
    assert!(
        actual == SAXPY_DIS,
        "listing changed; new listing:\n{actual}"
    );
}

#[test]
fn saxpy_registers_are_close_to_ptxas() {
    let m = saxpy();
    let f = &m.functions[0];
    let a = FunctionAnalysis::compute(f);
    assert_eq!(regalloc::validate(f, &a.liveness, &a.alloc), []);
    // ptxas -v reports 8 for sm_70. As there, the kernel parameters and `%ntid.x` are
    // constant-bank operands and take no register; the peak is at the second `add.s64`
    // (%f2, and the pairs %rd5 and %rd6 or %rd7), where ptxas, having scheduled both loads
    // early, holds two addresses and two loaded values.
    assert_eq!(a.alloc.regs_per_thread, 4);
    assert_eq!(a.alloc.preds_per_thread, 1);
    let get = |name: &str| {
        let v = isa::VReg(f.regs.iter().position(|r| r.name == name).unwrap() as u32);
        a.alloc.get(v)
    };
    assert_eq!(get("%rd1"), Some(PhysReg::Constant));
    assert!(matches!(get("%rd5"), Some(PhysReg::Gpr { first, count: 2 }) if first % 2 == 0));
}
