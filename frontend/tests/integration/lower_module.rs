//! Lowering of declarations, scopes and control flow: what the ISA module looks like, beyond
//! single instructions.

use isa::{InitValue, Op, Operand, StateSpace, SymbolRef, Type};

const HEADER: &str = ".version 8.8\n.target sm_70\n.address_size 64\n";

fn compile(body: &str) -> isa::Module {
    let text = format!("{HEADER}{body}");
    frontend::compile("m.ptx", &text).unwrap_or_else(|e| panic!("does not lower:\n{e}"))
}

#[test]
fn global_arrays_take_their_size_from_initializers_and_may_name_later_symbols() {
    let m = compile(
        ".global .align 8 .u64 ptr = generic(table);\n\
         .global .u32 table[] = {1, -2, 0x10};\n\
         .const .align 4 .f32 coeffs[4] = {1.0, 0f40000000};\n",
    );
    let ptr = &m.globals[0];
    let table = &m.globals[1];
    let coeffs = &m.globals[2];
    assert_eq!(
        ptr.init,
        Some(vec![InitValue::SymbolAddr {
            sym: SymbolRef::Global(isa::GlobalId(1)),
            offset: 0
        }])
    );
    assert_eq!((table.count, table.size_bytes()), (Some(3), 12));
    assert_eq!(
        table.init,
        Some(vec![
            InitValue::Bits(1),
            InitValue::Bits(0xffff_fffe),
            InitValue::Bits(16)
        ])
    );
    assert_eq!(
        (coeffs.space, coeffs.align, coeffs.size_bytes()),
        (StateSpace::Const, 4, 16)
    );
    assert_eq!(
        coeffs.init,
        Some(vec![
            InitValue::Bits(0x3f80_0000),
            InitValue::Bits(0x4000_0000)
        ])
    );
}

#[test]
fn dynamic_shared_memory_is_an_unsized_extern_array() {
    let m = compile(".extern .shared .align 16 .b8 dyn[];\n.entry k()\n{\n\tret;\n}\n");
    assert!(m.globals[0].is_dynamic_shared());
    assert_eq!(m.globals[0].align, 16);
}

#[test]
fn inner_scopes_shadow_registers_of_outer_ones() {
    // NVRTC's expansion of __syncthreads_count declares `%p1` again inside a `{ }` block.
    let m = compile(
        ".entry k()\n{\n\t.reg .pred %p<2>;\n\t.reg .b32 %r<3>;\n\tsetp.eq.s32 %p1, %r1, 0;\n\
         \t{\n\t.reg .pred %p1;\n\tsetp.ne.s32 %p1, %r2, 0;\n\t}\n\t@%p1 bra $L;\n$L:\n\tret;\n}\n",
    );
    let f = &m.functions[0];
    let insts: Vec<_> = f.blocks.iter().flat_map(|b| &b.insts).collect();
    let outer = insts[0].dsts[0].clone();
    let inner = insts[1].dsts[0].clone();
    assert_ne!(outer, inner, "the inner %p1 is a different register");
    assert_eq!(
        insts[2].guard.map(|g| Operand::Reg(g.pred)),
        Some(outer),
        "the guard sees the outer %p1 again"
    );
}

#[test]
fn warp_sz_is_the_constant_32_unless_a_register_takes_the_name() {
    let m = compile(
        ".entry k()\n{\n\t.reg .b32 %r<3>;\n\tmov.u32 %r1, WARP_SZ;\n\
         \tadd.s32 %r2, %r1, WARP_SZ;\n\t{\n\t.reg .b32 WARP_SZ;\n\tmov.b32 %r1, WARP_SZ;\n\t}\n\
         \tret;\n}\n",
    );
    let insts: Vec<_> = m.functions[0]
        .blocks
        .iter()
        .flat_map(|b| &b.insts)
        .collect();
    assert_eq!(insts[0].srcs, [Operand::Imm(32)]);
    assert_eq!(insts[1].srcs[1], Operand::Imm(32));
    assert!(
        matches!(insts[2].srcs[0], Operand::Reg(_)),
        "a register named WARP_SZ shadows the constant: {:?}",
        insts[2].srcs
    );
}

#[test]
fn vector_registers_have_components() {
    let m = compile(
        ".entry k(.param .u64 p)\n{\n\t.reg .v4 .f32 %v;\n\t.reg .b64 %rd1;\n\
         \tld.param.u64 %rd1, [p];\n\tld.global.v4.f32 {%v.x, %v.y, %v.z, %v.w}, [%rd1];\n\
         \tadd.f32 %v.x, %v.y, %v.z;\n\tret;\n}\n",
    );
    let f = &m.functions[0];
    let names: Vec<_> = f.regs.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["%v.x", "%v.y", "%v.z", "%v.w", "%rd1"]);
    assert!(f.regs[..4].iter().all(|r| r.ty == Type::F32));
}

#[test]
fn labels_start_blocks_and_a_missing_ret_is_added() {
    let m = compile(
        ".entry k()\n{\n\t.reg .pred %p1;\n\t.reg .b32 %r1;\n\tsetp.eq.s32 %p1, %r1, 0;\n\
         \t@%p1 bra $A;\n\tmov.b32 %r1, 1;\n$A:\n$B:\n\tmov.b32 %r1, 2;\n}\n",
    );
    let f = &m.functions[0];
    assert_eq!(f.blocks.len(), 3);
    assert_eq!(
        f.blocks[2].label.as_deref(),
        Some("$A"),
        "consecutive labels share a block"
    );
    assert_eq!(f.blocks[0].fallthrough, Some(isa::BlockId(1)));
    assert!(matches!(
        f.blocks[2].insts.last().map(|i| &i.op),
        Some(Op::Ret { .. })
    ));
    assert!(isa::verify::verify_module(&m).is_empty());
}

#[test]
fn calls_pass_param_variables_of_the_caller() {
    let m = compile(
        ".func (.param .b32 ret) add1(.param .b32 a)\n{\n\t.reg .b32 %r<2>;\n\
         \tld.param.b32 %r0, [a];\n\tadd.s32 %r1, %r0, 1;\n\tst.param.b32 [ret], %r1;\n\tret;\n}\n\
         .entry k()\n{\n\t.reg .b32 %r<2>;\n\t{\n\t.param .b32 arg;\n\tst.param.b32 [arg], %r0;\n\
         \t.param .b32 res;\n\tcall.uni (res), add1, (arg);\n\tld.param.b32 %r1, [res];\n\t}\n\tret;\n}\n",
    );
    let k = &m.functions[1];
    let call = k.blocks[0]
        .insts
        .iter()
        .find(|i| matches!(i.op, Op::Call { .. }))
        .expect("a call");
    let Op::Call {
        callee,
        args,
        rets,
        uni,
    } = &call.op
    else {
        unreachable!()
    };
    assert_eq!(
        (m.function(callee.direct().unwrap()).name.as_str(), *uni),
        ("add1", true)
    );
    assert_eq!(args.len(), 1);
    assert_eq!(rets.len(), 1);
    assert!(
        args.iter()
            .chain(rets)
            .all(|s| matches!(s, SymbolRef::Local(_)))
    );
    let callee_fn = &m.functions[0];
    let store = &callee_fn.blocks[0].insts[2];
    assert!(
        matches!(&store.srcs[0], Operand::Address(a) if a.base == isa::AddrBase::Symbol(SymbolRef::Ret(0)))
    );
}

#[test]
fn prototypes_may_precede_definitions() {
    let m = compile(
        ".func foo(.param .b32 a);\n.entry k()\n{\n\t.param .b32 x;\n\tcall foo, (x);\n\tret;\n}\n\
         .func foo(.param .b32 a)\n{\n\tret;\n}\n",
    );
    assert_eq!(m.functions.len(), 2);
    assert!(
        !m.functions[0].is_declaration(),
        "the definition replaced the prototype"
    );
}

/// A texture lookup whose results nobody reads leaves those registers alone (the write mask),
/// and a `.texref` operand is the variable's address, the handle's slot.
#[test]
fn unread_texture_results_are_masked_and_texrefs_are_their_slots() {
    let m = frontend::compile(
        "t.ptx",
        ".version 8.8\n.target sm_70\n.address_size 64\n.global .texref t;\n\
         .entry k(.param .u64 out)\n{\n\t.reg .f32 %f<5>;\n\t.reg .b32 %r<2>;\n\t.reg .b64 %rd<2>;\n\
         \tld.param.u64 %rd1, [out];\n\tmov.u32 %r1, 3;\n\
         \ttex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [t, {%r1}];\n\
         \tst.global.v2.f32 [%rd1], {%f1, %f3};\n\tret;\n}\n",
    )
    .unwrap();
    let t = m.globals.iter().position(|g| g.name == "t").unwrap();
    assert_eq!(m.globals[t].opaque, Some(isa::Opaque::Texture));
    assert_eq!(m.globals[t].ty, Type::B64);
    let inst = m.functions[0]
        .blocks
        .iter()
        .flat_map(|b| &b.insts)
        .find(|i| matches!(i.op, Op::Tex(_)))
        .unwrap();
    let Operand::Vector(results) = &inst.dsts[0] else {
        panic!("{inst:?}")
    };
    let written: Vec<bool> = results.iter().map(|r| *r != Operand::Sink).collect();
    assert_eq!(written, [true, false, true, false]);
    assert!(matches!(
        inst.srcs[0],
        Operand::SymbolAddr {
            sym: SymbolRef::Global(g),
            offset: 0
        } if g.index() == t
    ));
}
