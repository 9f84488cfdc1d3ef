//! The verifier: one broken function per invariant, each reporting exactly its violation.

use isa::builder::{FunctionBuilder, addr, imm, reg, vector};
use isa::*;

/// A valid two-block kernel: `bb0: mov; @p bra bb1` and `bb1: ret`, with registers
/// `%p1` (v0), `%r1` (v1) and `%rd1` (v2).
fn valid() -> Module {
    let mut b = FunctionBuilder::new("k", FuncKind::Entry);
    let (p, r, rd) = (
        b.reg("%p1", Type::Pred),
        b.reg("%r1", Type::U32),
        b.reg("%rd1", Type::U64),
    );
    let exit = b.block();
    b.mov(Type::U64, rd, imm(0));
    b.mov(Type::U32, r, imm(1));
    b.setp(CmpOp::Eq, Type::U32, p, reg(r), imm(0));
    b.bra_if(p, false, exit);
    b.switch_to(exit);
    b.ret();
    b.into_module()
}

/// Applies `mutate` to the valid kernel and returns the kinds of violations, with places.
fn check(mutate: impl FnOnce(&mut Function)) -> Vec<(Option<u32>, Option<usize>, ViolationKind)> {
    let mut m = valid();
    mutate(&mut m.functions[0]);
    verify_module(&m)
        .into_iter()
        .map(|v| (v.block.map(|b| b.0), v.inst, v.kind))
        .collect()
}

fn inst(op: Op, dsts: Vec<Operand>, srcs: Vec<Operand>) -> Inst {
    Inst {
        guard: None,
        op,
        dsts,
        srcs,
        loc: SrcLoc::default(),
    }
}

#[test]
fn valid_function_passes() {
    assert_eq!(check(|_| {}), []);
}

#[test]
fn kernel_needs_a_body() {
    assert_eq!(
        check(|f| f.blocks.clear()),
        [(None, None, ViolationKind::KernelWithoutBody)]
    );
    let mut decl = FunctionBuilder::new("d", FuncKind::Func).finish();
    decl.blocks.clear();
    assert_eq!(verify_function(&decl, None), []);
}

#[test]
fn terminator_must_be_last() {
    let got = check(|f| f.blocks[1].insts.push(inst(Op::Exit, vec![], vec![])));
    assert_eq!(got, [(Some(1), Some(0), ViolationKind::TerminatorNotLast)]);
}

#[test]
fn branch_target_in_range() {
    let got = check(|f| {
        f.blocks[0].insts[3].op = Op::Bra {
            target: BlockId(9),
            uni: false,
        }
    });
    assert_eq!(
        got,
        [(
            Some(0),
            Some(3),
            ViolationKind::BranchTargetOutOfRange(BlockId(9))
        )]
    );
}

#[test]
fn fallthrough_matches_the_block_end() {
    let missing = check(|f| f.blocks[0].fallthrough = None);
    let expected = ViolationKind::BadFallthrough {
        expected: Some(BlockId(1)),
        found: None,
    };
    assert_eq!(missing, [(Some(0), None, expected)]);

    let out_of_range = check(|f| f.blocks[0].fallthrough = Some(BlockId(7)));
    let expected = ViolationKind::BadFallthrough {
        expected: Some(BlockId(1)),
        found: Some(BlockId(7)),
    };
    assert_eq!(out_of_range, [(Some(0), None, expected)]);

    // An unguarded branch cannot fall through.
    let spurious = check(|f| f.blocks[0].insts[3].guard = None);
    let expected = ViolationKind::BadFallthrough {
        expected: None,
        found: Some(BlockId(1)),
    };
    assert_eq!(spurious, [(Some(0), None, expected)]);
}

#[test]
fn control_cannot_run_off_the_end() {
    let got = check(|f| f.blocks[1].insts.clear());
    assert_eq!(got, [(Some(1), None, ViolationKind::FallsOffEnd)]);
}

#[test]
fn registers_in_range() {
    let got = check(|f| f.blocks[0].insts[0].srcs[0] = Operand::Reg(VReg(42)));
    assert_eq!(
        got,
        [(Some(0), Some(0), ViolationKind::RegOutOfRange(VReg(42)))]
    );
    let got = check(|f| f.blocks[0].insts[0].dsts[0] = vector(&[VReg(1), VReg(43)]));
    assert_eq!(
        got,
        [(Some(0), Some(0), ViolationKind::RegOutOfRange(VReg(43)))]
    );
}

#[test]
fn guards_are_predicates() {
    let got = check(|f| {
        f.blocks[0].insts[3].guard = Some(Guard {
            pred: VReg(1),
            negated: false,
        })
    });
    assert_eq!(
        got,
        [(Some(0), Some(3), ViolationKind::NotAPredicate(VReg(1)))]
    );
    let got = check(|f| f.blocks[0].insts[2].srcs.push(Operand::NotPred(VReg(2))));
    assert_eq!(
        got,
        [(Some(0), Some(2), ViolationKind::NotAPredicate(VReg(2)))]
    );
}

#[test]
fn destinations_and_sinks() {
    let got = check(|f| f.blocks[0].insts[1].dsts[0] = imm(3));
    assert_eq!(got, [(Some(0), Some(1), ViolationKind::BadDestination)]);
    let got = check(|f| f.blocks[0].insts[1].srcs[0] = Operand::Sink);
    assert_eq!(got, [(Some(0), Some(1), ViolationKind::SinkAsSource)]);
    let got = check(|f| f.blocks[0].insts[1].dsts[0] = Operand::Vector(vec![]));
    assert_eq!(got, [(Some(0), Some(1), ViolationKind::BadVector)]);
    let got = check(|f| f.blocks[0].insts[1].dsts[0] = Operand::Vector(vec![vector(&[VReg(1)])]));
    assert_eq!(got, [(Some(0), Some(1), ViolationKind::BadVector)]);
}

#[test]
fn symbols_and_functions_resolve() {
    let got = check(|f| {
        f.blocks[0].insts[0].srcs[0] = Operand::SymbolAddr {
            sym: SymbolRef::Global(GlobalId(5)),
            offset: 0,
        };
    });
    assert_eq!(
        got,
        [(
            Some(0),
            Some(0),
            ViolationKind::SymbolOutOfRange(SymbolRef::Global(GlobalId(5)))
        )]
    );
    let got = check(|f| {
        let call = Op::Call {
            callee: isa::Callee::Direct(FuncId(3)),
            uni: false,
            args: vec![SymbolRef::Param(0)],
            rets: vec![],
        };
        f.blocks[1].insts.insert(0, inst(call, vec![], vec![]));
    });
    assert_eq!(
        got,
        [
            (Some(1), Some(0), ViolationKind::FuncOutOfRange(FuncId(3))),
            (
                Some(1),
                Some(0),
                ViolationKind::SymbolOutOfRange(SymbolRef::Param(0))
            ),
        ]
    );
}

#[test]
fn memory_operands() {
    let ld = |vec| Op::Ld {
        space: StateSpace::Global,
        ty: Type::U32,
        vec,
        order: MemOrder::Weak,
        scope: None,
        cache: None,
        nc: false,
    };
    let got = check(|f| f.blocks[0].insts[1] = inst(ld(1), vec![reg(VReg(1))], vec![reg(VReg(2))]));
    assert_eq!(got, [(Some(0), Some(1), ViolationKind::MissingAddress)]);
    let got = check(|f| f.blocks[0].insts[1].srcs[0] = addr(VReg(2), 0));
    assert_eq!(got, [(Some(0), Some(1), ViolationKind::MisplacedAddress)]);
    let got = check(|f| {
        f.blocks[0].insts[1] = inst(
            ld(4),
            vec![vector(&[VReg(1), VReg(1)])],
            vec![addr(VReg(2), 0)],
        )
    });
    assert_eq!(
        got,
        [(
            Some(0),
            Some(1),
            ViolationKind::VectorWidth {
                expected: 4,
                found: 2
            }
        )]
    );
}

#[test]
fn violations_display_their_place() {
    let mut m = valid();
    m.functions[0].blocks[0].insts[3].op = Op::Bra {
        target: BlockId(9),
        uni: false,
    };
    let v = verify_module(&m);
    assert_eq!(
        v[0].to_string(),
        "fn0 bb0 inst 3 branch target bb9 does not exist"
    );
}
