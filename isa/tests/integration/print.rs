//! Mnemonics, operands and instructions in their PTX-like text form, and the `dis` listing of
//! control flow (loops, reconvergence at exit, declarations).

use isa::builder::{FunctionBuilder, addr, imm, imm_f32, reg, sym_addr, variable, vector};
use isa::*;

/// Each operation and the mnemonic it prints as.
#[test]
fn mnemonics_in_canonical_order() {
    let cases: Vec<(Op, &str)> = vec![
        (
            Op::IAdd {
                ty: Type::S32,
                sat: false,
            },
            "add.s32",
        ),
        (
            Op::IAdd {
                ty: Type::S32,
                sat: true,
            },
            "add.sat.s32",
        ),
        (
            Op::IMul {
                ty: Type::S32,
                mode: MulMode::Wide,
            },
            "mul.wide.s32",
        ),
        (
            Op::IMad {
                ty: Type::S32,
                mode: MulMode::Hi,
                sat: true,
            },
            "mad.hi.sat.s32",
        ),
        (
            Op::Mul24 {
                ty: Type::U32,
                hi: false,
            },
            "mul24.lo.u32",
        ),
        (
            Op::Carry {
                op: CarryOp::Add,
                ty: Type::U32,
                carry_in: false,
                carry_out: true,
            },
            "add.cc.u32",
        ),
        (
            Op::Carry {
                op: CarryOp::Sub,
                ty: Type::U32,
                carry_in: true,
                carry_out: true,
            },
            "subc.cc.u32",
        ),
        (
            Op::Carry {
                op: CarryOp::MadLo,
                ty: Type::U32,
                carry_in: true,
                carry_out: false,
            },
            "madc.lo.u32",
        ),
        (
            Op::Carry {
                op: CarryOp::MadHi,
                ty: Type::U64,
                carry_in: false,
                carry_out: true,
            },
            "mad.hi.cc.u64",
        ),
        (
            Op::Bfind {
                ty: Type::U32,
                shift_amount: true,
            },
            "bfind.shiftamt.u32",
        ),
        (Op::Prmt { mode: None }, "prmt.b32"),
        (
            Op::Prmt {
                mode: Some(PrmtMode::Ecl),
            },
            "prmt.b32.ecl",
        ),
        (
            Op::Shf {
                dir: ShiftDir::Left,
                mode: ShiftMode::Clamp,
            },
            "shf.l.clamp.b32",
        ),
        (
            Op::Bmsk {
                mode: ShiftMode::Wrap,
            },
            "bmsk.wrap.b32",
        ),
        (Op::And { ty: Type::Pred }, "and.pred"),
        (
            Op::FAdd {
                ty: Type::F32,
                rnd: None,
                ftz: true,
                sat: false,
            },
            "add.ftz.f32",
        ),
        (
            Op::FMul {
                ty: Type::F64,
                rnd: Some(Rounding::Rz),
                ftz: false,
                sat: false,
            },
            "mul.rz.f64",
        ),
        (
            Op::Fma {
                ty: Type::F32,
                rnd: Rounding::Rn,
                ftz: true,
                sat: true,
                relu: false,
            },
            "fma.rn.ftz.sat.f32",
        ),
        (
            Op::FDiv {
                ty: Type::F32,
                prec: FloatPrecision::Full,
                ftz: true,
            },
            "div.full.ftz.f32",
        ),
        (
            Op::Rcp {
                ty: Type::F64,
                prec: FloatPrecision::Rounded(Rounding::Rn),
                ftz: false,
            },
            "rcp.rn.f64",
        ),
        (
            Op::Sqrt {
                ty: Type::F32,
                prec: FloatPrecision::Approx,
                ftz: false,
            },
            "sqrt.approx.f32",
        ),
        (
            Op::Transc {
                func: TranscFn::Ex2,
                ty: Type::F32,
                ftz: true,
            },
            "ex2.approx.ftz.f32",
        ),
        (
            Op::FMin {
                ty: Type::F32,
                ftz: true,
                nan: true,
                xorsign: false,
            },
            "min.ftz.NaN.f32",
        ),
        (
            Op::Testp {
                prop: TestProp::NotANumber,
                ty: Type::F64,
            },
            "testp.notanumber.f64",
        ),
        (
            Op::Setp {
                cmp: CmpOp::Lt,
                ty: Type::S32,
                combine: Some(BoolOp::And),
                ftz: false,
            },
            "setp.lt.and.s32",
        ),
        (
            Op::Setp {
                cmp: CmpOp::Gtu,
                ty: Type::F32,
                combine: None,
                ftz: true,
            },
            "setp.gtu.ftz.f32",
        ),
        (
            Op::Set {
                cmp: CmpOp::Eq,
                dty: Type::U32,
                sty: Type::F32,
                combine: Some(BoolOp::Or),
                ftz: true,
            },
            "set.eq.or.ftz.u32.f32",
        ),
        (
            Op::Slct {
                ty: Type::S32,
                cty: Type::F32,
                ftz: true,
            },
            "slct.ftz.s32.f32",
        ),
        (Op::Selp { ty: Type::F32 }, "selp.f32"),
        (Op::Pack { ty: Type::B64 }, "mov.b64"),
        (
            Op::Cvt {
                dty: Type::S32,
                sty: Type::F32,
                rnd: CvtRounding::Int(Rounding::Rz),
                ftz: false,
                sat: true,
                relu: false,
                satfinite: false,
            },
            "cvt.rzi.sat.s32.f32",
        ),
        (
            Op::Cvt {
                dty: Type::F32,
                sty: Type::F64,
                rnd: CvtRounding::Float(Rounding::Rn),
                ftz: true,
                sat: false,
                relu: false,
                satfinite: false,
            },
            "cvt.rn.ftz.f32.f64",
        ),
        (
            Op::Cvt {
                dty: Type::U64,
                sty: Type::U32,
                rnd: CvtRounding::None,
                ftz: false,
                sat: false,
                relu: false,
                satfinite: false,
            },
            "cvt.u64.u32",
        ),
        (
            Op::Cvta {
                space: StateSpace::Global,
                to_generic: false,
                ty: Type::U64,
            },
            "cvta.to.global.u64",
        ),
        (
            Op::Cvta {
                space: StateSpace::Shared,
                to_generic: true,
                ty: Type::U64,
            },
            "cvta.shared.u64",
        ),
        (
            Op::Ld {
                space: StateSpace::Global,
                ty: Type::F32,
                vec: 4,
                order: MemOrder::Weak,
                scope: None,
                cache: None,
                nc: true,
            },
            "ld.global.nc.v4.f32",
        ),
        (
            Op::Ld {
                space: StateSpace::Global,
                ty: Type::U32,
                vec: 1,
                order: MemOrder::Acquire,
                scope: Some(Scope::Gpu),
                cache: None,
                nc: false,
            },
            "ld.acquire.gpu.global.u32",
        ),
        (
            Op::Ld {
                space: StateSpace::Generic,
                ty: Type::U8,
                vec: 1,
                order: MemOrder::Volatile,
                scope: None,
                cache: None,
                nc: false,
            },
            "ld.volatile.u8",
        ),
        (
            Op::St {
                space: StateSpace::Shared,
                ty: Type::B32,
                vec: 2,
                order: MemOrder::Weak,
                scope: None,
                cache: Some(CacheOp::Wb),
            },
            "st.shared.wb.v2.b32",
        ),
        (
            Op::Ldu {
                space: StateSpace::Global,
                ty: Type::F32,
                vec: 2,
            },
            "ldu.global.v2.f32",
        ),
        (
            Op::Atom {
                space: StateSpace::Global,
                op: AtomOp::Add,
                ty: Type::U32,
                vec: 1,
                order: MemOrder::Relaxed,
                scope: Some(Scope::Gpu),
            },
            "atom.relaxed.gpu.global.add.u32",
        ),
        (
            Op::Red {
                space: StateSpace::Shared,
                op: AtomOp::Max,
                ty: Type::S32,
                vec: 1,
                order: MemOrder::Weak,
                scope: None,
            },
            "red.shared.max.s32",
        ),
        (
            Op::Bar {
                kind: BarrierKind::Sync,
                aligned: true,
            },
            "bar.sync",
        ),
        (
            Op::Bar {
                kind: BarrierKind::Arrive,
                aligned: false,
            },
            "barrier.arrive",
        ),
        (
            Op::Bar {
                kind: BarrierKind::Red(BarRedOp::Popc),
                aligned: true,
            },
            "bar.red.popc.u32",
        ),
        (
            Op::Bar {
                kind: BarrierKind::ClusterArrive { relaxed: true },
                aligned: true,
            },
            "barrier.cluster.arrive.relaxed.aligned",
        ),
        (
            Op::Bar {
                kind: BarrierKind::ClusterWait,
                aligned: false,
            },
            "barrier.cluster.wait",
        ),
        (
            Op::Membar {
                level: MembarLevel::Gl,
            },
            "membar.gl",
        ),
        (
            Op::Fence {
                order: MemOrder::AcqRel,
                scope: Scope::Cta,
            },
            "fence.acq_rel.cta",
        ),
        (
            Op::Vote {
                mode: VoteMode::Ballot,
            },
            "vote.sync.ballot.b32",
        ),
        (
            Op::Shfl {
                mode: ShflMode::Bfly,
            },
            "shfl.sync.bfly.b32",
        ),
        (
            Op::Match {
                mode: MatchMode::All,
                ty: Type::B64,
            },
            "match.all.sync.b64",
        ),
        (
            Op::Redux {
                op: ReduxOp::Xor,
                ty: Type::B32,
                abs: false,
                nan: false,
            },
            "redux.sync.xor.b32",
        ),
        (
            Op::Redux {
                op: ReduxOp::Max,
                ty: Type::F32,
                abs: true,
                nan: true,
            },
            "redux.sync.max.abs.NaN.f32",
        ),
        (Op::Activemask, "activemask.b32"),
        (Op::Elect, "elect.sync"),
        (Op::Fns, "fns.b32"),
        (
            Op::Bra {
                target: BlockId(3),
                uni: true,
            },
            "bra.uni",
        ),
        (
            Op::Call {
                callee: isa::Callee::Direct(FuncId(3)),
                uni: true,
                args: vec![],
                rets: vec![],
            },
            "call.uni fn3",
        ),
        (Op::Ret { uni: false }, "ret"),
        (Op::Exit, "exit"),
        (Op::Trap, "trap"),
        (
            Op::Unsupported {
                text: "tex.2d.v4.f32.f32".into(),
            },
            "tex.2d.v4.f32.f32",
        ),
    ];
    for (op, expected) in cases {
        assert_eq!(op.to_string(), expected, "{op:?}");
    }
}

/// A function with one of each operand kind, and a module around it.
fn operands_module() -> Module {
    let mut b = FunctionBuilder::new("f", FuncKind::Func);
    let ret = b.ret_param("func_retval0", Type::B32);
    let x = b.param("x", Type::U64);
    let depot = b.local(variable(
        "__local_depot0",
        StateSpace::Local,
        Type::B8,
        Some(32),
    ));
    let (p, q) = (b.reg("%p1", Type::Pred), b.reg("%p2", Type::Pred));
    let (r1, r2) = (b.reg("%r1", Type::B32), b.reg("%r2", Type::B32));
    let (rd1, f1, f2) = (
        b.reg("%rd1", Type::U64),
        b.reg("%f1", Type::F32),
        b.reg("%f2", Type::F32),
    );
    let fd = b.reg("%fd1", Type::F64);
    b.ld_param(Type::U64, rd1, x);
    b.mov(
        Type::U64,
        rd1,
        Operand::SymbolAddr {
            sym: depot,
            offset: 8,
        },
    );
    b.mov(
        Type::U64,
        rd1,
        Operand::SymbolAddr {
            sym: SymbolRef::Global(GlobalId(0)),
            offset: 0,
        },
    );
    b.mov(Type::U64, rd1, Operand::FuncAddr(FuncId(0)));
    b.mov(Type::U32, r1, Operand::Special(SpecialReg::Tid(Dim::Y)));
    b.inst(
        Op::FAdd {
            ty: Type::F32,
            rnd: None,
            ftz: false,
            sat: false,
        },
        vec![reg(f1)],
        vec![reg(f2), imm_f32(1.0)],
    );
    b.inst(
        Op::Mov { ty: Type::F64 },
        vec![reg(fd)],
        vec![Operand::Imm(1.5f64.to_bits())],
    );
    b.inst(
        Op::IAdd {
            ty: Type::S32,
            sat: false,
        },
        vec![reg(r1)],
        vec![reg(r2), imm(-1)],
    );
    b.inst(
        Op::And { ty: Type::B64 },
        vec![reg(rd1)],
        vec![reg(rd1), Operand::Imm(0xFFFF_0000_0000)],
    );
    let setp = Op::Setp {
        cmp: CmpOp::Lt,
        ty: Type::S32,
        combine: Some(BoolOp::And),
        ftz: false,
    };
    b.guarded(
        q,
        true,
        setp,
        vec![reg(p), reg(q)],
        vec![reg(r1), imm(0), Operand::NotPred(q)],
    );
    b.inst(
        Op::Ld {
            space: StateSpace::Global,
            ty: Type::F32,
            vec: 2,
            order: MemOrder::Weak,
            scope: None,
            cache: None,
            nc: false,
        },
        vec![Operand::Vector(vec![reg(f1), Operand::Sink])],
        vec![addr(rd1, -8)],
    );
    b.st(StateSpace::Local, Type::B32, sym_addr(depot, 4), reg(r1));
    b.st(
        StateSpace::Global,
        Type::B32,
        Operand::Address(Address::new(AddrBase::Absolute, 256)),
        reg(r1),
    );
    b.st(StateSpace::Param, Type::B32, sym_addr(ret, 0), reg(r1));
    b.inst(
        Op::Call {
            callee: isa::Callee::Direct(FuncId(0)),
            uni: true,
            args: vec![x],
            rets: vec![ret],
        },
        vec![],
        vec![],
    );
    b.inst(
        Op::Unpack { ty: Type::B64 },
        vec![vector(&[r1, r2])],
        vec![reg(rd1)],
    );
    b.ret();
    let mut m = b.into_module();
    m.globals.push(Variable {
        linkage: Linkage::Visible,
        align: 8,
        ..variable("table", StateSpace::Global, Type::F32, Some(16))
    });
    m
}

#[test]
fn instruction_text() {
    let m = operands_module();
    assert_eq!(verify_module(&m), []);
    let f = &m.functions[0];
    let p = Printer::new(Some(&m), f);
    let text: Vec<String> = f.blocks[0]
        .insts
        .iter()
        .map(|i| p.inst(i).to_string())
        .collect();
    assert_eq!(
        text,
        [
            "ld.param.u64 %rd1, [x];",
            "mov.u64 %rd1, __local_depot0+8;",
            "mov.u64 %rd1, table;",
            "mov.u64 %rd1, f;",
            "mov.u32 %r1, %tid.y;",
            "add.f32 %f1, %f2, 0f3F800000;",
            "mov.f64 %fd1, 0d3FF8000000000000;",
            "add.s32 %r1, %r2, -1;",
            "and.b64 %rd1, %rd1, 0xFFFF00000000;",
            "@!%p2 setp.lt.and.s32 %p1|%p2, %r1, 0, !%p2;",
            "ld.global.v2.f32 {%f1, _}, [%rd1-8];",
            "st.local.b32 [__local_depot0+4], %r1;",
            "st.global.b32 [256], %r1;",
            "st.param.b32 [func_retval0], %r1;",
            "call.uni (func_retval0), f, (x);",
            "mov.b64 {%r1, %r2}, %rd1;",
            "ret;",
        ]
    );
    // Without the module, globals and functions print by id.
    let bare = Printer::new(None, f);
    assert_eq!(
        bare.inst(&f.blocks[0].insts[2]).to_string(),
        "mov.u64 %rd1, g0;"
    );
    assert_eq!(
        bare.operand(&Operand::FuncAddr(FuncId(7))).to_string(),
        "fn7"
    );
    assert_eq!(bare.operand(&Operand::Reg(VReg(99))).to_string(), "v99");
}

#[test]
fn module_header_and_declarations() {
    let mut m = operands_module();
    let mut decl = FunctionBuilder::new("ext", FuncKind::Func).finish();
    decl.blocks.clear();
    decl.linkage = Linkage::Extern;
    decl.params
        .push(variable("a", StateSpace::Param, Type::F32, None));
    m.functions.push(decl);
    m.functions[0].tuning.maxntid = Some([256, 1, 1]);
    m.functions[0].tuning.pragmas.push("nounroll".into());
    let analysis = FunctionAnalysis::compute(&m.functions[0]);
    assert_eq!(
        regalloc::validate(&m.functions[0], &analysis.liveness, &analysis.alloc),
        []
    );
    let text = disassemble(&m);
    let head: Vec<&str> = text.lines().take(10).collect();
    assert_eq!(
        head,
        [
            ".version 8.8",
            ".target sm_70",
            ".address_size 64",
            ".visible .global .align 8 .f32 table[16];",
            "",
            ".func (.param .b32 func_retval0) f(.param .u64 x)",
            ".maxntid 256, 1, 1",
            ".pragma \"nounroll\";",
            "// regs 5, preds 2 per thread; 8 vregs, 1 blocks, 17 insts",
            "{",
        ]
    );
    assert!(text.contains("\n    .local .b8 __local_depot0[32];\n"));
    assert!(
        text.ends_with("\n.extern .func ext(.param .f32 a);\n"),
        "{text}"
    );
}

/// Loop depth, headers, unreachable blocks and reconvergence at exit in the listing.
#[test]
fn control_flow_listing() {
    let mut b = FunctionBuilder::new("loop", FuncKind::Entry);
    let (p, i) = (b.reg("%p1", Type::Pred), b.reg("%r1", Type::S32));
    let [header, split, ret, exit, dead] = [
        b.labeled_block("$L__BB0_1"),
        b.block(),
        b.block(),
        b.block(),
        b.block(),
    ];
    b.mov(Type::S32, i, imm(0));
    b.switch_to(header);
    b.add(Type::S32, i, reg(i), imm(1));
    b.setp(CmpOp::Lt, Type::S32, p, reg(i), imm(10));
    b.bra_if(p, false, header);
    b.switch_to(split);
    b.bra_if(p, true, exit);
    b.switch_to(ret);
    b.ret();
    b.switch_to(exit);
    b.exit();
    b.switch_to(dead);
    b.add(Type::S32, i, reg(i), imm(1));
    b.ret();
    let m = b.into_module();
    assert_eq!(verify_module(&m), []);
    let expected = "\
.visible .entry loop()
// regs 1, preds 1 per thread; 2 vregs, 6 blocks, 9 insts
{
bb0:  // preds: none; loop depth 0
     0  mov.s32 %r1, 0;                               // %r1→R0 | live: %r1
bb1 ($L__BB0_1):  // preds: bb0, bb1; loop depth 1, header
     1  add.s32 %r1, %r1, 1;                          // %r1→R0 | live: %r1
     2  setp.lt.s32 %p1, %r1, 10;                     // %p1→P0 %r1→R0 | live: %p1 %r1
     3  @%p1 bra bb1;                                 // %p1→P0 | live: %p1 %r1 | reconverge at bb2
bb2:  // preds: bb1; loop depth 0
     4  @!%p1 bra bb4;                                // %p1→P0 | live: - | reconverge at exit
bb3:  // preds: bb2; loop depth 0
     5  ret;                                          // live: -
bb4:  // preds: bb2; loop depth 0
     6  exit;                                         // live: -
bb5:  // preds: none; loop depth 0; unreachable
     7  add.s32 %r1, %r1, 1;                          // %r1→R0 | live: -
     8  ret;                                          // live: -
}
";
    let text = disassemble(&m);
    let listing = &text[text.find(".visible").unwrap()..];
    assert!(
        listing == expected,
        "listing changed; new listing:\n{listing}"
    );
}
