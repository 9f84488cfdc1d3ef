//! The AST the parser builds for each syntactic form: operands, literals, declarations,
//! functions, statements and module directives.

use frontend::ast::*;

fn parse(text: &str) -> Module<'_> {
    match frontend::parser::parse("t.ptx", text) {
        Ok(module) => module,
        Err(e) => panic!("{e}"),
    }
}

/// The body of the only function in `text`.
fn body<'a>(module: &'a Module<'a>) -> &'a [Statement<'a>] {
    module
        .items
        .iter()
        .find_map(|item| match item {
            Item::Function(f) => f.body.as_deref(),
            _ => None,
        })
        .expect("a function with a body")
}

/// The instructions of a kernel whose body is `stmts`.
fn instructions(stmts: &str) -> Vec<Instruction<'static>> {
    let text: &'static str = Box::leak(format!(".entry k()\n{{\n{stmts}\n}}\n").into_boxed_str());
    let module: &'static Module<'static> = Box::leak(Box::new(parse(text)));
    body(module)
        .iter()
        .filter_map(|s| match s {
            Statement::Instruction(i) => Some(i.clone()),
            _ => None,
        })
        .collect()
}

/// The operand kinds of a single instruction.
fn operands(instruction: &str) -> Vec<OperandKind<'static>> {
    let mut instrs = instructions(instruction);
    assert_eq!(instrs.len(), 1);
    instrs
        .remove(0)
        .operands
        .into_iter()
        .map(|o| o.kind)
        .collect()
}

fn name(name: &str) -> OperandKind<'_> {
    OperandKind::Name {
        name,
        component: None,
    }
}

fn op(kind: OperandKind<'_>) -> Operand<'_> {
    Operand {
        kind,
        span: Span::default(),
    }
}

/// Operands with spans zeroed, for comparing shapes.
fn shapes(kinds: Vec<OperandKind<'static>>) -> Vec<OperandKind<'static>> {
    fn clear(kind: OperandKind<'static>) -> OperandKind<'static> {
        match kind {
            OperandKind::Vector(v) => {
                OperandKind::Vector(v.into_iter().map(|o| op(clear(o.kind))).collect())
            }
            OperandKind::List(v) => {
                OperandKind::List(v.into_iter().map(|o| op(clear(o.kind))).collect())
            }
            other => other,
        }
    }
    kinds.into_iter().map(clear).collect()
}

#[test]
fn instruction_parts() {
    let text = ".entry k()\n{\n\t@!%p1 ld.shared::cta.v2.u32 {%r1, %r2}, [%rd1+8];\n}\n";
    let module = parse(text);
    let Statement::Instruction(i) = &body(&module)[0] else {
        panic!("not an instruction")
    };
    let guard = i.guard.expect("guard");
    assert_eq!((guard.pred, guard.negated), ("%p1", true));
    assert_eq!(i.opcode.value, "ld");
    let mods: Vec<&str> = i.modifiers.iter().map(|m| m.value).collect();
    assert_eq!(mods, ["shared::cta", "v2", "u32"]);
    // Spans of names and modifiers slice back to their value (no dot).
    for m in &i.modifiers {
        assert_eq!(&text[m.span.start as usize..m.span.end as usize], m.value);
    }
    assert_eq!(
        &text[i.span.start as usize..i.span.end as usize],
        "@!%p1 ld.shared::cta.v2.u32 {%r1, %r2}, [%rd1+8];"
    );
    assert_eq!(
        &text[i.operands[1].span.start as usize..i.operands[1].span.end as usize],
        "[%rd1+8]"
    );
}

#[test]
fn names_and_components() {
    assert_eq!(
        operands("mov.u32 %r1, %tid.x;"),
        [
            name("%r1"),
            OperandKind::Name {
                name: "%tid",
                component: Some("x")
            }
        ]
    );
    assert_eq!(
        operands("selp.b32 %r1, a, b, !%p;")[3],
        OperandKind::NotName { name: "%p" }
    );
    assert_eq!(
        operands("mov.u64 %rd1, sym+8, sym-8, sym+-8;")[1..],
        [
            OperandKind::NameOffset {
                name: "sym",
                offset: 8
            },
            OperandKind::NameOffset {
                name: "sym",
                offset: -8
            },
            OperandKind::NameOffset {
                name: "sym",
                offset: -8
            },
        ]
    );
    // Opcode names are ordinary identifiers elsewhere.
    assert_eq!(operands("bra add;"), [name("add")]);
    assert_eq!(operands("mov.u32 %r1, _;")[1], OperandKind::Sink);
}

#[test]
fn integer_literals() {
    let ints: Vec<u64> = operands("mov.u32 %r1, 42, 0x2A, 0X2a, 052, 0b101010, 42U, 0x2AU, -1, -0x10, 0, 18446744073709551615;")
        [1..]
        .iter()
        .map(|k| match k {
            OperandKind::Int { bits } => *bits,
            other => panic!("not an int: {other:?}"),
        })
        .collect();
    assert_eq!(
        ints,
        [
            42,
            42,
            42,
            42,
            42,
            42,
            42,
            u64::MAX,
            0u64.wrapping_sub(16),
            0,
            u64::MAX
        ]
    );
}

#[test]
fn float_literals() {
    assert_eq!(
        operands("mov.f32 %f1, 0f3F800000, -0f3F800000, 0FBF800000;")[1..],
        [
            OperandKind::F32 { bits: 0x3F80_0000 },
            OperandKind::F32 { bits: 0xBF80_0000 },
            OperandKind::F32 { bits: 0xBF80_0000 }
        ]
    );
    let f64s: Vec<f64> =
        operands("mov.f64 %fd1, 0d3FF8000000000000, 1.5, -2.0, 1e10, 2.5e-3, 1E+2, 3.;")[1..]
            .iter()
            .map(|k| match k {
                OperandKind::F64 { bits } => f64::from_bits(*bits),
                other => panic!("not an f64: {other:?}"),
            })
            .collect();
    assert_eq!(f64s, [1.5, 1.5, -2.0, 1e10, 2.5e-3, 100.0, 3.0]);
}

#[test]
fn addresses() {
    let address = |base, offset| OperandKind::Address { base, offset };
    assert_eq!(
        operands(
            "ld.u32 %r1, [%rd1], [%rd1+16], [%rd1+-16], [%rd1-16], [sym], [sym+8], [0x100], [-4];"
        )[1..],
        [
            address(Some("%rd1"), 0),
            address(Some("%rd1"), 16),
            address(Some("%rd1"), -16),
            address(Some("%rd1"), -16),
            address(Some("sym"), 0),
            address(Some("sym"), 8),
            address(None, 0x100),
            address(None, -4),
        ]
    );
}

#[test]
fn vectors_lists_and_pairs() {
    assert_eq!(
        shapes(operands("ld.v4.f32 {%f1, %f2, _, %f4}, [%rd1];"))[0],
        OperandKind::Vector(vec![
            op(name("%f1")),
            op(name("%f2")),
            op(OperandKind::Sink),
            op(name("%f4"))
        ])
    );
    assert_eq!(
        shapes(operands("call.uni (retval0), foo, (param0, param1);")),
        [
            OperandKind::List(vec![op(name("retval0"))]),
            name("foo"),
            OperandKind::List(vec![op(name("param0")), op(name("param1"))])
        ]
    );
    assert_eq!(
        shapes(operands("call foo, ();")),
        [name("foo"), OperandKind::List(vec![])]
    );
    fn halves(o: OperandKind<'_>) -> (OperandKind<'_>, OperandKind<'_>) {
        match o {
            OperandKind::Pair { first, second } => (first.kind, second.kind),
            other => panic!("not a pair: {other:?}"),
        }
    }
    assert_eq!(
        halves(operands("setp.lt.s32 %p1|%p2, %r1, %r2;").remove(0)),
        (name("%p1"), name("%p2"))
    );
    assert_eq!(
        halves(operands("shfl.sync.bfly.b32 %r1|_, %r2, 1, 31, -1;").remove(0)),
        (name("%r1"), OperandKind::Sink)
    );
    // A vector register's component on either side.
    assert_eq!(
        halves(operands("shfl.sync.bfly.b32 %v.x|%p1, %r2, 1, 31, -1;").remove(0)),
        (
            OperandKind::Name {
                name: "%v",
                component: Some("x")
            },
            name("%p1")
        )
    );
}

#[test]
fn texture_operands_are_vectors_of_the_bracket_parts() {
    let ops = shapes(operands(
        "tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [tex, {%f5, %f6}];",
    ));
    assert_eq!(
        ops[1],
        OperandKind::Vector(vec![
            op(name("tex")),
            op(OperandKind::Vector(vec![op(name("%f5")), op(name("%f6"))]))
        ])
    );
    let ops = shapes(operands(
        "tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [t, s, {%f5, %f6}];",
    ));
    assert!(matches!(&ops[1], OperandKind::Vector(v) if v.len() == 3));
    let ops = shapes(operands(
        "tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}|%p1, [t, {%r1}];",
    ));
    assert_eq!(
        ops[0],
        OperandKind::Vector(vec![
            op(OperandKind::Vector(vec![
                op(name("%f1")),
                op(name("%f2")),
                op(name("%f3")),
                op(name("%f4"))
            ])),
            op(name("%p1"))
        ])
    );
    let ops = shapes(operands("sust.b.1d.b32.trap [%rd3, {%r11}], {%r17};"));
    assert_eq!(
        ops[0],
        OperandKind::Vector(vec![
            op(name("%rd3")),
            op(OperandKind::Vector(vec![op(name("%r11"))]))
        ])
    );
}

#[test]
fn statements() {
    let text = "\
.entry k()
{
\t.reg .b32 %r<4>;
$L__BB0_1:
add:\tbra add;
\t{
\t\t.param .b32 param0;
\t\tproto : .callprototype (.param .b32 _) _ (.param .b64 _, .param .align 8 .b8 _[16]);
\t\ttargets: .calltargets f, g;
\t}
\t.pragma \"nounroll\";
\t.loc 1 2 3, function_name $L__info_string0, inlined_at 1 4 5
\tret;
}
";
    let module = parse(text);
    let stmts = body(&module);
    assert!(matches!(&stmts[0], Statement::Var(v) if v.names[0].range.map(|r| r.value) == Some(4)));
    assert!(matches!(&stmts[1], Statement::Label(l) if l.value == "$L__BB0_1"));
    assert!(matches!(&stmts[2], Statement::Label(l) if l.value == "add"));
    assert!(matches!(&stmts[3], Statement::Instruction(i) if i.opcode.value == "bra"));
    let Statement::Block { body: inner, .. } = &stmts[4] else {
        panic!("block expected: {:?}", stmts[4])
    };
    assert!(matches!(&inner[0], Statement::Var(v) if v.space.value == "param"));
    let Statement::CallPrototype {
        label,
        rets,
        params,
        ..
    } = &inner[1]
    else {
        panic!("prototype: {:?}", inner[1])
    };
    assert_eq!(label.value, "proto");
    assert_eq!(rets.len(), 1);
    assert_eq!(params.len(), 2);
    assert_eq!(params[1].names[0].name.value, "_");
    assert_eq!(params[1].names[0].dims, [Some(16)]);
    assert!(
        matches!(&inner[2], Statement::CallTargets { label, targets, .. } if label.value == "targets" && targets.len() == 2)
    );
    assert!(matches!(&stmts[5], Statement::Pragma { values, .. } if values == &["nounroll"]));
    assert!(matches!(
        &stmts[6],
        Statement::Ignored {
            directive: "loc",
            ..
        }
    ));
    assert!(
        matches!(&stmts[7], Statement::Instruction(i) if i.opcode.value == "ret" && i.operands.is_empty())
    );
    assert_eq!(stmts.len(), 8);
}

fn module_var<'a>(module: &'a Module<'a>, index: usize) -> &'a VarDecl<'a> {
    let vars: Vec<&VarDecl> = module
        .items
        .iter()
        .filter_map(|i| if let Item::Var(v) = i { Some(v) } else { None })
        .collect();
    vars[index]
}

#[test]
fn declarations() {
    let module = parse(
        ".global .align 8 .u64 a = generic(tab)+4, b = tab+8;
.extern .shared .align 16 .b8 dyn[];
.const .v4 .f32 c[2][3];
.global .b8 init[4] = {1, -1, 0x10, {2}};
.global .f32 f = 0f3F800000, g = -1.5;
.weak .global .texref t;
",
    );
    let a = module_var(&module, 0);
    assert_eq!(
        (a.space.value, a.ty.value, a.align.map(|x| x.value)),
        ("global", "u64", Some(8))
    );
    assert_eq!(a.names.len(), 2);
    assert!(matches!(
        a.names[0].init,
        Some(Init::Generic {
            name: "tab",
            offset: 4,
            ..
        })
    ));
    assert!(matches!(
        a.names[1].init,
        Some(Init::Symbol {
            name: "tab",
            offset: 8,
            ..
        })
    ));
    let dynamic = module_var(&module, 1);
    assert_eq!(dynamic.linkage.map(|l| l.value), Some(Linkage::Extern));
    assert_eq!(dynamic.names[0].dims, [None]);
    let c = module_var(&module, 2);
    assert_eq!(
        (c.vec.map(|v| v.value), c.ty.value, &c.names[0].dims[..]),
        (Some(4), "f32", &[Some(2), Some(3)][..])
    );
    let Some(Init::List { items, .. }) = &module_var(&module, 3).names[0].init else {
        panic!("list")
    };
    assert!(matches!(items[1], Init::Int { bits: u64::MAX, .. }));
    assert!(matches!(items[3], Init::List { .. }));
    let f = module_var(&module, 4);
    assert!(matches!(
        f.names[0].init,
        Some(Init::F32 {
            bits: 0x3F80_0000,
            ..
        })
    ));
    assert!(
        matches!(f.names[1].init, Some(Init::F64 { bits, .. }) if f64::from_bits(bits) == -1.5)
    );
    let t = module_var(&module, 5);
    assert_eq!(
        (t.linkage.map(|l| l.value), t.ty.value),
        (Some(Linkage::Weak), "texref")
    );
}

#[test]
fn functions_and_parameters() {
    let module = parse(
        ".version 7.10
.target sm_80, texmode_independent
.address_size 64
.file 1 \"a.cu\", 1700000000, 120
.extern .func (.param .b32 r) f(.param .b64 a) .noreturn;
.visible .entry k(
\t.param .u64 .ptr .global .align 16 p,
\t.param .align 8 .b8 s[16]
)
.maxntid 256, 1, 1
.minnctapersm 2
.pragma \"nounroll\";
{
\tret;
}
.section .debug_str { $L__info_string0: .b8 95,0 }
",
    );
    assert!(matches!(
        module.items[0],
        Item::Version {
            major: 7,
            minor: 10,
            ..
        }
    ));
    let Item::Target { names, .. } = &module.items[1] else {
        panic!("target")
    };
    assert_eq!(
        names.iter().map(|n| n.value).collect::<Vec<_>>(),
        ["sm_80", "texmode_independent"]
    );
    assert!(matches!(
        module.items[2],
        Item::AddressSize { bits: 64, .. }
    ));
    assert!(matches!(
        module.items[3],
        Item::Ignored {
            directive: "file",
            ..
        }
    ));
    let Item::Function(f) = &module.items[4] else {
        panic!("prototype")
    };
    assert_eq!(
        (f.kind, f.linkage.map(|l| l.value), f.body.is_none()),
        (FuncKind::Func, Some(Linkage::Extern), true)
    );
    assert_eq!(f.rets[0].names[0].name.value, "r");
    assert_eq!(f.directives[0].name.value, "noreturn");
    let Item::Function(k) = &module.items[5] else {
        panic!("kernel")
    };
    assert_eq!((k.kind, k.name.value), (FuncKind::Entry, "k"));
    let p = &k.params[0];
    // `.align` after `.ptr` describes the pointee: kept as an attribute, not the param alignment.
    assert_eq!((p.ty.value, p.align), ("u64", None));
    assert_eq!(
        p.attrs.iter().map(|a| a.value).collect::<Vec<_>>(),
        ["ptr", "global", "align 16"]
    );
    let s = &k.params[1];
    assert_eq!(
        (s.ty.value, s.align.map(|a| a.value), &s.names[0].dims[..]),
        ("b8", Some(8), &[Some(16)][..])
    );
    let dirs: Vec<(&str, &[u64], &[&str])> = k
        .directives
        .iter()
        .map(|d| (d.name.value, &d.numbers[..], &d.strings[..]))
        .collect();
    assert_eq!(
        dirs,
        [
            ("maxntid", &[256, 1, 1][..], &[][..]),
            ("minnctapersm", &[2][..], &[][..]),
            ("pragma", &[][..], &["nounroll"][..])
        ]
    );
    assert!(matches!(
        module.items[6],
        Item::Ignored {
            directive: "section",
            ..
        }
    ));
    assert_eq!(module.items.len(), 7);
}

#[test]
fn empty_and_comment_only_files_parse() {
    assert!(parse("").items.is_empty());
    assert!(parse("// nothing\n/* here */\n").items.is_empty());
}
