//! Malformed and unsupported PTX that parses but must not lower: each case has the exact
//! diagnostic headline (`file:line:col: error: message`) it must produce.

/// A kernel with a few declared registers; `BODY` is replaced by the case's instructions,
/// which start on line 12.
const TEMPLATE: &str = "\
.version 8.8
.target sm_70
.address_size 64

.visible .entry k(.param .u64 k_param_0)
{
\t.reg .pred %p<3>;
\t.reg .b32 %r<4>;
\t.reg .f32 %f<4>;
\t.reg .b64 %rd<4>;
\t.reg .s32 %s<2>;
BODY
\tret;
}
";

fn headlines(body: &str) -> Vec<String> {
    let text = TEMPLATE.replace("BODY", body);
    match frontend::compile("t.ptx", &text) {
        Ok(_) => vec![],
        Err(e) => e.headlines(),
    }
}

/// Checks that `body` fails with exactly `expected` as its first diagnostic.
#[track_caller]
fn check(body: &str, expected: &str) {
    let got = headlines(body);
    assert_eq!(
        got.first().map(String::as_str),
        Some(expected),
        "body:\n{body}\nall diagnostics: {got:#?}"
    );
}

/// [`check`] of every case, reporting all that differ at once.
fn check_all(cases: &[(&str, &str)]) {
    let wrong: Vec<_> = cases
        .iter()
        .filter_map(|(body, expected)| {
            let got = headlines(body);
            (got.first().map(String::as_str) != Some(*expected)).then_some((body, got))
        })
        .collect();
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
fn unknown_opcode() {
    check(
        "\tfoo.s32 %r1, %r2, %r3;",
        "t.ptx:12:2: error: unknown opcode `foo`",
    );
}

/// Malformed forms of the warp-level operations issue 47 added or changed: `elect.sync`,
/// `fns`, and `redux.sync`'s floating-point forms.
#[test]
fn malformed_elect_fns_and_float_redux() {
    check_all(&[
        (
            "\telect %r1|%p1, -1;",
            "t.ptx:12:2: error: missing `.sync` in `elect`",
        ),
        (
            "\telect.sync %r1, -1;",
            "t.ptx:12:13: error: `elect` writes two destinations, `d|p`",
        ),
        (
            "\telect.sync %r1|%p1;",
            "t.ptx:12:2: error: `elect.sync` takes 2 operands, found 1",
        ),
        (
            "\telect.sync %p1|%r1, -1;",
            "t.ptx:12:13: error: type mismatch: `%p1` is `.pred`, expected `.b32`",
        ),
        (
            "\tfns.b32 %r1, %r2, %r3;",
            "t.ptx:12:2: error: `fns.b32` takes 4 operands, found 3",
        ),
        (
            "\tfns.b64 %rd1, %rd2, %r3, 1;",
            "t.ptx:12:2: error: invalid type `.b64` for `fns`",
        ),
        (
            "\tfns %r1, %r2, %r3, 1;",
            "t.ptx:12:2: error: missing type modifier in `fns`",
        ),
        (
            "\tredux.sync.add.f32 %f1, %f2, -1;",
            "t.ptx:12:2: error: invalid type `.f32` for `redux`",
        ),
        (
            "\tredux.sync.min.abs.u32 %r1, %r2, -1;",
            "t.ptx:12:17: error: unexpected modifier `.abs` for `redux`",
        ),
        (
            "\tredux.sync.max.NaN.s32 %r1, %r2, -1;",
            "t.ptx:12:17: error: unexpected modifier `.NaN` for `redux`",
        ),
        (
            "\tredux.sync.and.f32 %f1, %f2, -1;",
            "t.ptx:12:2: error: invalid type `.f32` for `redux`",
        ),
    ]);
}

#[test]
fn undefined_register() {
    check(
        "\tadd.s32 %r1, %r9, %r2;",
        "t.ptx:12:15: error: undefined register `%r9`",
    );
}

#[test]
fn register_past_its_range() {
    check(
        "\tmov.b32 %r4, 0;",
        "t.ptx:12:10: error: undefined register `%r4`",
    );
}

#[test]
fn operand_size_mismatch() {
    check(
        "\tadd.s32 %r1, %rd1, %r2;",
        "t.ptx:12:15: error: type mismatch: `%rd1` is `.b64`, expected `.s32`",
    );
}

#[test]
fn integer_register_in_float_instruction() {
    check(
        "\tadd.f32 %f1, %s1, %f2;",
        "t.ptx:12:15: error: type mismatch: `%s1` is `.s32`, expected `.f32`",
    );
}

#[test]
fn undefined_label() {
    check(
        "\tbra $L_nowhere;",
        "t.ptx:12:6: error: undefined label `$L_nowhere`",
    );
}

#[test]
fn duplicate_label() {
    check(
        "$L1:\n\tmov.b32 %r1, 1;\n$L1:",
        "t.ptx:14:1: error: duplicate label `$L1`",
    );
}

#[test]
fn duplicate_register_declaration() {
    check(
        "\t.reg .b32 %x;\n\t.reg .b32 %x;",
        "t.ptx:13:12: error: duplicate declaration of `%x`",
    );
}

#[test]
fn missing_rounding_on_fma() {
    check(
        "\tfma.f32 %f1, %f2, %f3, %f1;",
        "t.ptx:12:2: error: missing rounding modifier in `fma.f32`",
    );
}

#[test]
fn mad_f32_needs_rounding() {
    check(
        "\tmad.f32 %f1, %f2, %f3, %f1;",
        "t.ptx:12:2: error: missing rounding modifier (required for sm_20 and later) in `mad.f32`",
    );
}

#[test]
fn conflicting_rounding_modifiers() {
    check(
        "\tadd.rn.rz.f32 %f1, %f2, %f3;",
        "t.ptx:12:9: error: conflicting modifier `.rz`",
    );
}

#[test]
fn modifier_not_allowed() {
    check(
        "\tadd.ftz.s32 %r1, %r2, %r3;",
        "t.ptx:12:6: error: unexpected modifier `.ftz` for `add`",
    );
}

#[test]
fn too_few_operands() {
    check(
        "\tadd.s32 %r1, %r2;",
        "t.ptx:12:2: error: `add.s32` takes 3 operands, found 2",
    );
}

#[test]
fn too_many_operands() {
    check(
        "\tneg.s32 %s1, %s0, %s0;",
        "t.ptx:12:2: error: `neg.s32` takes 2 operands, found 3",
    );
}

#[test]
fn invalid_type_for_instruction() {
    check(
        "\tpopc.f32 %r1, %f1;",
        "t.ptx:12:2: error: invalid type `.f32` for `popc`",
    );
}

#[test]
fn missing_type() {
    check(
        "\tadd %r1, %r2, %r3;",
        "t.ptx:12:2: error: missing type modifier in `add`",
    );
}

#[test]
fn comparison_invalid_for_float() {
    check(
        "\tsetp.lo.f32 %p1, %f1, %f2;",
        "t.ptx:12:2: error: comparison `.lo` is invalid for `.f32` in `setp.lo.f32`",
    );
}

#[test]
fn cvt_float_to_int_needs_integer_rounding() {
    check(
        "\tcvt.s32.f32 %r1, %f1;",
        "t.ptx:12:2: error: missing an integer rounding modifier (`.rni`, `.rzi`, `.rmi`, `.rpi`) in `cvt.s32.f32`",
    );
}

#[test]
fn guard_must_be_predicate() {
    check(
        "\t@%r1 bra $L1;\n$L1:",
        "t.ptx:12:2: error: `%r1` is not a predicate",
    );
}

#[test]
fn load_without_brackets() {
    check(
        "\tld.global.u32 %r1, %rd1;",
        "t.ptx:12:21: error: expected an address `[...]`",
    );
}

#[test]
fn load_from_undefined_symbol() {
    check(
        "\tld.global.u32 %r1, [nosuch];",
        "t.ptx:12:21: error: undefined symbol `nosuch`",
    );
}

#[test]
fn vector_load_element_count() {
    check(
        "\tld.global.v4.f32 {%f1, %f2}, [%rd1];",
        "t.ptx:12:19: error: expected a vector of 4 elements, found 2",
    );
}

#[test]
fn vector_too_wide() {
    check(
        "\t.reg .f64 %fd<5>;\n\tld.shared.v4.f64 {%fd1, %fd2, %fd3, %fd4}, [%rd1];",
        "t.ptx:13:2: error: vector `.v4` of `.f64` exceeds 128 bits (256-bit accesses are `.global` only) in `ld.shared.v4.f64`",
    );
    check(
        "\tst.v8.u32 [%rd1], {%r1, %r1, %r1, %r1, %r1, %r1, %r1, %r1};",
        "t.ptx:12:2: error: vector `.v8` of `.u32` exceeds 128 bits (256-bit accesses are `.global` only) in `st.v8.u32`",
    );
    check(
        "\tst.global.v8.u64 [%rd1], {%rd1, %rd1, %rd1, %rd1, %rd1, %rd1, %rd1, %rd1};",
        "t.ptx:12:2: error: vector `.v8` of `.u64` exceeds 128 bits (256-bit accesses are `.global` only) in `st.global.v8.u64`",
    );
}

#[test]
fn load_from_register_space() {
    check(
        "\tld.reg.u32 %r1, [%rd1];",
        "t.ptx:12:2: error: invalid state space `.reg` in `ld.reg.u32`",
    );
}

#[test]
fn saturation_only_on_s32() {
    check(
        "\tadd.sat.u32 %r1, %r2, %r3;",
        "t.ptx:12:2: error: `.sat` applies only to `.s32` in `add.sat.u32`",
    );
}

#[test]
fn wide_multiply_of_64_bits() {
    check(
        "\tmul.wide.s64 %rd1, %rd2, %rd3;",
        "t.ptx:12:2: error: `.wide` applies only to 16- and 32-bit types in `mul.wide.s64`",
    );
}

#[test]
fn special_register_needs_component() {
    check(
        "\tmov.u32 %r1, %tid;",
        "t.ptx:12:15: error: `%tid` needs a component `.x`, `.y` or `.z`",
    );
}

#[test]
fn atomic_increment_is_unsigned_only() {
    check(
        "\tatom.global.inc.s32 %r1, [%rd1], %r2;",
        "t.ptx:12:2: error: invalid type `.s32` for `atom`",
    );
}

#[test]
fn barrier_needs_a_mode() {
    check(
        "\tbar 0;",
        "t.ptx:12:2: error: missing `.sync`, `.arrive` or `.red` in `bar`",
    );
}

#[test]
fn float_literal_for_integer_operand() {
    check(
        "\tadd.s32 %r1, %r2, 0f3F800000;",
        "t.ptx:12:20: error: float literal for a `.s32` operand",
    );
}

#[test]
fn negating_a_non_predicate_source() {
    check(
        "\tadd.s32 %r1, !%r2, %r3;",
        "t.ptx:12:15: error: `!` applies only to predicate operands",
    );
}

#[test]
fn variable_used_as_register() {
    check(
        "\tadd.u64 %rd1, k_param_0, 1;",
        "t.ptx:12:16: error: `k_param_0` is a variable; use `[k_param_0]` to access it",
    );
}

/// Whole-module cases that do not fit the kernel template.
#[track_caller]
fn check_module(text: &str, expected: &str) {
    let got = match frontend::compile("m.ptx", text) {
        Ok(_) => vec![],
        Err(e) => e.headlines(),
    };
    assert_eq!(
        got.first().map(String::as_str),
        Some(expected),
        "all diagnostics: {got:#?}"
    );
}

#[test]
fn missing_version() {
    check_module(
        ".target sm_70\n.address_size 64\n",
        "m.ptx:1:1: error: missing `.version` directive at the start of the module",
    );
}

/// The header's order, as ptxas 12.9 enforces it: each case here is one ptxas refuses
/// ("Missing .version/.target directive at start of file" or a syntax error at the directive).
#[test]
fn header_directives_out_of_order_or_repeated() {
    const K: &str = ".visible .entry k() { ret; }\n";
    let cases = [
        (
            format!(".target sm_70\n.version 8.8\n{K}"),
            "m.ptx:1:1: error: missing `.version` directive at the start of the module",
        ),
        (
            format!(".version 8.8\n.version 8.8\n.target sm_70\n{K}"),
            "m.ptx:2:1: error: missing `.target` directive: it must immediately follow `.version`",
        ),
        (
            format!(".version 8.8\n.address_size 64\n.target sm_70\n{K}"),
            "m.ptx:2:1: error: missing `.target` directive: it must immediately follow `.version`",
        ),
        (
            format!(".version 8.8\n{K}"),
            "m.ptx:2:1: error: missing `.target` directive: it must immediately follow `.version`",
        ),
        (
            ".version 8.8\n".to_string(),
            "m.ptx:1:1: error: missing `.target` directive: it must immediately follow `.version`",
        ),
        (
            format!(".version 8.8\n.target sm_70\n.address_size 64\n.address_size 64\n{K}"),
            "m.ptx:4:1: error: `.address_size` must come at most once, immediately after `.target`",
        ),
        (
            format!(".version 8.8\n.target sm_70\n{K}.address_size 64\n"),
            "m.ptx:4:1: error: `.address_size` must come at most once, immediately after `.target`",
        ),
        (
            format!(".version 8.8\n.target sm_70\n.address_size 64\n{K}.target sm_70\n"),
            "m.ptx:5:1: error: `.target` must immediately follow `.version` (or another `.target`)",
        ),
        (
            format!(".version 8.8\n.target sm_70\n.address_size 64\n{K}.version 8.8\n"),
            "m.ptx:5:1: error: `.version` must come once, first in the module",
        ),
    ];
    for (text, expected) in &cases {
        check_module(text, expected);
    }
    // What ptxas accepts: repeated `.target` lines directly after `.version`, and no
    // `.address_size`.
    for text in [
        format!(".version 8.8\n.target sm_70\n.target sm_70\n.address_size 64\n{K}"),
        format!(".version 8.8\n.target sm_70, texmode_independent\n{K}"),
    ] {
        assert!(frontend::compile("m.ptx", &text).is_ok(), "{text}");
    }
}

/// `.address_size` is 32 or 64 (PTX ISA, 11.1.3); the lowered module keeps it, and an omitted
/// directive means 32.
#[test]
fn address_size_is_32_or_64() {
    const K: &str = ".visible .entry k() { ret; }\n";
    for (directive, bits) in [
        (".address_size 32\n", 32),
        (".address_size 64\n", 64),
        ("", 32),
    ] {
        let text = format!(".version 8.8\n.target sm_70\n{directive}{K}");
        let module = frontend::compile("m.ptx", &text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(module.address_size, bits, "{text}");
    }
    check_module(
        &format!(".version 8.8\n.target sm_70\n.address_size 16\n{K}"),
        "m.ptx:3:1: error: `.address_size 16`: the address size is 32 or 64",
    );
}

/// An indirect call goes through a function address of the module's address size: `.u32` in
/// a 32-bit module, `.u64` in a 64-bit one. `isspacep` takes `.u32` or `.u64` in either (as the
/// manual says), and so do memory operands (a wider register is truncated to the address size,
/// a narrower one zero-extended).
#[test]
fn function_addresses_take_the_module_address_size() {
    let module = |bits: u32, body: &str| {
        format!(
            ".version 8.8\n.target sm_70\n.address_size {bits}\n\
             .func (.param .b32 r) f(.param .b32 a)\n{{\n\tret;\n}}\n\
             .entry k()\n{{\n\t.reg .b32 %r<2>;\n\t.reg .b64 %rd<2>;\n\t.reg .pred %p<2>;\n\
             \t.param .b32 x;\n\t.param .b32 y;\n\tp: .callprototype (.param .b32 _) _ (.param .b32 _);\n\
             {body}\n\tret;\n}}\n"
        )
    };
    check_module(
        &module(32, "\tmov.u64 %rd1, f;\n\tcall (y), %rd1, (x), p;"),
        "m.ptx:17:12: error: type mismatch: `%rd1` is `.b64`, expected `.u32`",
    );
    check_module(
        &module(64, "\tmov.u32 %r1, f;\n\tcall (y), %r1, (x), p;"),
        "m.ptx:17:12: error: type mismatch: `%r1` is `.b32`, expected `.u64`",
    );
    check_module(
        &module(32, "\tisspacep.global %p1, %p1;"),
        "m.ptx:16:23: error: type mismatch: `%p1` is `.pred`, expected `.u32`",
    );
    for (bits, body) in [
        (
            32,
            "\tisspacep.global %p1, %r1;\n\tisspacep.global %p1, %rd1;\n\tmov.u32 %r1, f;\n\tcall (y), %r1, (x), p;\n\tld.u32 %r1, [%rd1];",
        ),
        (
            64,
            "\tisspacep.global %p1, %r1;\n\tisspacep.global %p1, %rd1;\n\tmov.u64 %rd1, f;\n\tcall (y), %rd1, (x), p;\n\tld.u32 %r1, [%r1];",
        ),
    ] {
        let text = module(bits, body);
        assert!(frontend::compile("m.ptx", &text).is_ok(), "{text}");
    }
}

/// Found by fuzzing (`fuzz/regressions/parse_lower/kernel-without-body.ptx`): a kernel
/// prototype lowered to a kernel with no body, which the IR verifier rejects.
#[test]
fn kernel_declared_without_body() {
    check_module(
        ".version 8.8\n.target sm_70\n.address_size 64\n.visible .entry k;\n",
        "m.ptx:4:17: error: kernel `k` is declared but never defined (an `.entry` needs a body)",
    );
}

#[test]
fn too_many_initializers() {
    check_module(
        ".version 8.8\n.target sm_70\n.address_size 64\n.global .u32 t[2] = {1, 2, 3};\n",
        "m.ptx:4:21: error: 3 initializers for an array of 2 elements",
    );
}

#[test]
fn shared_variable_with_initializer() {
    check_module(
        ".version 8.8\n.target sm_70\n.address_size 64\n.shared .u32 s = 5;\n",
        "m.ptx:4:18: error: `.shared` variables cannot be initialized",
    );
}

#[test]
fn duplicate_global() {
    check_module(
        ".version 8.8\n.target sm_70\n.address_size 64\n.global .u32 g;\n.global .u32 g;\n",
        "m.ptx:5:14: error: duplicate declaration of `g`",
    );
}

#[test]
fn call_with_wrong_arity() {
    check_module(
        ".version 8.8\n.target sm_70\n.address_size 64\n\
         .func (.param .b32 r) f(.param .b32 a)\n{\n\tret;\n}\n\
         .entry k()\n{\n\t.param .b32 x;\n\tcall.uni f, (x);\n\tret;\n}\n",
        "m.ptx:11:2: error: `f` takes 1 argument(s) and 1 return value(s); call passes 1 and 0",
    );
}

#[test]
fn call_to_undefined_function() {
    check_module(
        ".version 8.8\n.target sm_70\n.address_size 64\n.entry k()\n{\n\tcall.uni nothere;\n\tret;\n}\n",
        "m.ptx:6:11: error: undefined function `nothere`",
    );
}

/// Indirect calls: the prototype label must be declared before the call and match it.
#[test]
fn indirect_call_misuse() {
    let module = |body: &str| {
        format!(
            ".version 8.8\n.target sm_70\n.address_size 64\n\
             .func (.param .b32 r) f(.param .b32 a)\n{{\n\tret;\n}}\n\
             .entry k()\n{{\n\t.reg .b64 %rd<2>;\n\t.param .b32 x;\n\t.param .b32 y;\n\
             \tmov.u64 %rd1, f;\n{body}\n\tret;\n}}\n"
        )
    };
    check_module(
        &module("\tcall (y), %rd1, (x);"),
        "m.ptx:14:2: error: an indirect call ends with its `.callprototype` or `.calltargets` label",
    );
    check_module(
        &module("\tcall (y), %rd1, (x), nothere;"),
        "m.ptx:14:23: error: `nothere` is no `.callprototype` or `.calltargets` label declared before the call",
    );
    check_module(
        &module(
            "\tp: .callprototype (.param .b32 _) _ (.param .b32 _, .param .b32 _);\n\tcall (y), %rd1, (x), p;",
        ),
        "m.ptx:15:2: error: the prototype takes 2 argument(s) and 1 return value(s); call passes 1 and 1",
    );
    check_module(
        &module("\tt: .calltargets g;\n\tcall (y), %rd1, (x), t;"),
        "m.ptx:14:18: error: undefined function `g`",
    );
}

/// Texture and surface forms warpsim has no objects for lower as unsupported: cube maps,
/// multi-sample textures, depth compares, formatted surface access.
#[test]
fn unexecuted_texture_forms_lower_as_unsupported() {
    let body = "\t.reg .s32 %t<2>;\n\
        \ttex.cube.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%rd1, {%f0, %f1, %f2, %f3}];\n\
        \ttex.1d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%rd1, {%f1}], %f2;\n\
        \tsust.p.1d.b32.trap [%rd1, {%t1}], {%f1};\n\
        \ttex.1d.v4.f32.s32 {%f0, %f1, %f2, %f3}, [%rd1, {%t1}];";
    let module = frontend::compile("t.ptx", &TEMPLATE.replace("BODY", body))
        .expect("texture instructions lower");
    let unsupported: Vec<_> = module
        .unsupported()
        .map(|(_, i)| (i.loc.line, format!("{}", i.op)))
        .collect();
    assert_eq!(
        unsupported,
        vec![
            (13, "tex.cube.v4.f32.f32".to_string()),
            (
                14,
                "tex.1d.v4.f32.f32 (with a depth-compare operand)".to_string()
            ),
            (15, "sust.p.1d.b32.trap".to_string()),
        ]
    );
}

/// Texture and surface instructions: modifiers and operands the manual does not allow.
#[test]
fn texture_and_surface_misuse() {
    let t = "\t.reg .s32 %t<2>;\n";
    let cases = [
        (
            "\ttex.4d.v4.f32.s32 {%f0, %f1, %f2, %f3}, [%rd1, {%t1}];",
            "t.ptx:13:2: error: missing the geometry (`.1d`, `.2d`, `.3d`, `.a1d`, `.a2d`) in `tex.4d.v4.f32.s32`",
        ),
        (
            "\ttex.1d.v2.f32.s32 {%f0, %f1}, [%rd1, {%t1}];",
            "t.ptx:13:2: error: results need `.v4` in `tex.1d.v2.f32.s32`",
        ),
        (
            "\ttex.1d.v4.f32.u32 {%f0, %f1, %f2, %f3}, [%rd1, {%t1}];",
            "t.ptx:13:2: error: invalid coordinate type `.u32` (`.s32` or `.f32`) in `tex.1d.v4.f32.u32`",
        ),
        (
            "\ttex.2d.v4.f32.s32 {%f0, %f1, %f2, %f3}, [%rd1, {%t1}];",
            "t.ptx:13:49: error: `.2d` takes 2 coordinates, found 1",
        ),
        (
            "\ttex.1d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%rd1, {%t1}];",
            "t.ptx:13:50: error: type mismatch: `%t1` is `.s32`, expected `.f32`",
        ),
        (
            "\ttex.1d.v4.f32.s32 {%f0, %f1, %f2, %f3}, [%r1, {%t1}];",
            "t.ptx:13:43: error: type mismatch: `%r1` is `.b32`, expected `.u64`",
        ),
        (
            "\ttex.1d.v4.f32.s32 {%f0, %f1, %f2, %f3}, [nothere, {%t1}];",
            "t.ptx:13:43: error: undefined texture, sampler or surface `nothere`",
        ),
        (
            "\ttld4.x.2d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%rd1, {%f1, %f2}];",
            "t.ptx:13:2: error: missing the component (`.r`, `.g`, `.b`, `.a`) in `tld4.x.2d.v4.f32.f32`",
        ),
        (
            "\ttxq.level.filter_mode.b32 %r1, [%rd1], %t1;",
            "t.ptx:13:2: error: `.filter_mode` has no `.level` form in `txq.level.filter_mode.b32`",
        ),
        (
            "\tsuq.filter_mode.b32 %r1, [%rd1];",
            "t.ptx:13:2: error: missing the query (`.width`, `.channel_order`, ...) in `suq.filter_mode.b32`",
        ),
        (
            "\tsuld.b.2d.b32 %r1, [%rd1, {%t1, %t1}];",
            "t.ptx:13:2: error: missing the out-of-range mode (`.trap`, `.clamp`, `.zero`) in `suld.b.2d.b32`",
        ),
        (
            "\tsuld.b.2d.f32.trap %f1, [%rd1, {%t1, %t1}];",
            "t.ptx:13:2: error: invalid type `.f32` (`.b8` to `.b64`) in `suld.b.2d.f32.trap`",
        ),
        (
            "\tsured.b.add.1d.b32.trap [%rd1, {%t1}], %r1;",
            "t.ptx:13:2: error: invalid type `.b32` for this operation in `sured.b.add.1d.b32.trap`",
        ),
        (
            "\tsust.b.1d.b32.trap [%rd1], %r1;",
            "t.ptx:13:21: error: expected `[surface, coordinates]`",
        ),
    ];
    let cases: Vec<(String, &str)> = cases
        .iter()
        .map(|(body, expected)| (format!("{t}{body}"), *expected))
        .collect();
    let cases: Vec<(&str, &str)> = cases.iter().map(|(b, e)| (b.as_str(), *e)).collect();
    check_all(&cases);
    // Opaque variables: module scope only, no initializers, and of the right kind.
    check_module(
        ".version 8.8\n.target sm_70\n.address_size 64\n.entry k(.param .texref t)\n{\n\tret;\n}\n",
        "m.ptx:4:18: error: unsupported: `.param .texref` (pass a texture or surface object as a `.u64` parameter)",
    );
    check_module(
        ".version 8.8\n.target sm_70\n.address_size 64\n.global .surfref s;\n.entry k()\n{\n\t.reg .s32 %t<2>;\n\t.reg .f32 %f<4>;\n\ttex.1d.v4.f32.s32 {%f0, %f1, %f2, %f3}, [s, {%t1}];\n\tret;\n}\n",
        "m.ptx:9:43: error: `s` is a `.surfref`; expected a `.u64` register or a `.texref` variable",
    );
}

/// Half precision: the forms the manual does not define, and literals of half types.
#[test]
fn half_precision_misuse() {
    let h = "\t.reg .b16 %h<3>;\n";
    check(
        &format!("{h}\tadd.rz.f16 %h1, %h2, %h0;"),
        "t.ptx:13:2: error: `.f16` rounds to nearest only (`.rn`) in `add.rz.f16`",
    );
    check(
        &format!("{h}\tfma.rn.sat.bf16 %h1, %h2, %h0, %h1;"),
        "t.ptx:13:2: error: `.ftz` and `.sat` do not apply to `.bf16` in `fma.rn.sat.bf16`",
    );
    check(
        &format!("{h}\tfma.rn.relu.f32 %f1, %f2, %f3, %f1;"),
        "t.ptx:13:2: error: `.relu` applies only to half-precision types, and not with `.sat` in `fma.rn.relu.f32`",
    );
    check(
        &format!("{h}\tcvt.f16.f32 %h1, %f1;"),
        "t.ptx:13:2: error: missing a rounding modifier (`.rn`, `.rz`, `.rm`, `.rp`) in `cvt.f16.f32`",
    );
    check(
        &format!("{h}\tcvt.rn.relu.f32.f16 %f1, %h1;"),
        "t.ptx:13:2: error: `.relu` and `.satfinite` apply only to conversions from `.f32` to half precision in `cvt.rn.relu.f32.f16`",
    );
    check(
        &format!("{h}\tcvt.rn.f16x2.f64 %r1, %f1, %f2;"),
        "t.ptx:13:2: error: invalid type `.f64` for `cvt`",
    );
    check(
        &format!("{h}\tsetp.lt.ftz.bf16 %p1, %h1, %h2;"),
        "t.ptx:13:2: error: `.ftz` applies only to `.f32`, `.f16` and `.f16x2` in `setp.lt.ftz.bf16`",
    );
    check(
        &format!("{h}\tadd.f16 %h1, %h2, 0f3F800000;"),
        "t.ptx:13:20: error: immediate operand of type `.f16`: move its bits into a register with `mov.b16`",
    );
    check(
        &format!("{h}\tmul.f16x2 %r1, %r2, 1;"),
        "t.ptx:13:22: error: immediate operand of type `.f16x2`: move its bits into a register with `mov.b32`",
    );
    check(
        &format!("{h}\tcvt.pack.sat.u16.s32.b32 %r1, %r2, %r3, %r1;"),
        "t.ptx:13:2: error: `.b32` (a third operand) applies only to conversions narrower than 16 bits in `cvt.pack.sat.u16.s32.b32`",
    );
    check(
        &format!("{h}\tcvt.rn.e4m3x2.f32 %h1, %f1, %f2;"),
        "t.ptx:13:2: error: conversions to fp8 take `.satfinite` (required) and `.relu` only in `cvt.rn.e4m3x2.f32`",
    );
    check(
        &format!("{h}\tcvt.rz.satfinite.e5m2x2.f32 %h1, %f1, %f2;"),
        "t.ptx:13:2: error: fp8 conversions round to nearest (`.rn`) in `cvt.rz.satfinite.e5m2x2.f32`",
    );
    check(
        &format!("{h}\tcvt.rn.f32.e4m3x2 %f1, %h1;"),
        "t.ptx:13:2: error: invalid type `.f32` for `cvt`",
    );
    check(
        &format!("{h}\tatom.global.add.f16 %h1, [%rd1], %h2;"),
        "t.ptx:13:2: error: `.f16` atomics need `.noftz` in `atom.global.add.f16`",
    );
    check(
        &format!("{h}\tcvt.rm.tf32.f32 %r1, %f1;"),
        "t.ptx:13:2: error: invalid rounding modifier in `cvt.rm.tf32.f32`",
    );
    check(
        &format!("{h}\tmin.xorsign.f32 %f1, %f2, %f3;"),
        "t.ptx:13:2: error: `min` takes `.xorsign` and `.abs` together in `min.xorsign.f32`",
    );
    check(
        &format!("{h}\tmax.xorsign.abs.f64 %fd1, %fd2, %fd3;"),
        "t.ptx:13:2: error: `.xorsign.abs` applies only to `.f32` and the half types in `max.xorsign.abs.f64`",
    );
    check(
        &format!("{h}\tcvt.rna.relu.tf32.f32 %r1, %f1;"),
        "t.ptx:13:2: error: `.tf32` takes `.relu` (with `.rn`, `.rz`) and `.satfinite` only in `cvt.rna.relu.tf32.f32`",
    );
    check(
        &format!("{h}\tadd.f16 %h1, %h2, %f1;"),
        "t.ptx:13:20: error: type mismatch: `%f1` is `.f32`, expected `.f16`",
    );
}

/// Half-precision forms warpsim does not execute yet lower as unsupported.
#[test]
fn lop3_table_is_an_8_bit_immediate() {
    check(
        "\tlop3.b32 %r1, %r2, %r3, %r0, 256;",
        "t.ptx:12:31: error: the look-up table of `lop3` is 8 bits, not 0x100",
    );
    check(
        "\tlop3.b32 %r1, %r2, %r3, %r0, %r1;",
        "t.ptx:12:31: error: the look-up table of `lop3` must be an immediate",
    );
}

#[test]
fn wmma_misuse() {
    let frag8 = "{%r1, %r1, %r1, %r1, %r1, %r1, %r1, %r1}";
    check(
        "\twmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r1, %r2}, [%rd1];",
        "t.ptx:12:52: error: expected a vector of 8 elements, found 2",
    );
    check(
        "\twmma.load.a.sync.aligned.row.m16n16k16.global.f16 %r1, [%rd1];",
        "t.ptx:12:52: error: expected a matrix fragment: a `{...}` of 8 registers",
    );
    check(
        &format!("\twmma.load.a.sync.aligned.row.m16n16k8.f16 {frag8}, [%rd1];"),
        "t.ptx:12:2: error: `wmma` has no `.m16n16k8` fragment of `.f16` for that matrix in `wmma.load.a.sync.aligned.row.m16n16k8.f16`",
    );
    check(
        &format!("\twmma.load.a.sync.aligned.m16n16k16.f16 {frag8}, [%rd1];"),
        "t.ptx:12:2: error: expected one layout, `.row` or `.col` in `wmma.load.a.sync.aligned.m16n16k16.f16`",
    );
    check(
        &format!("\twmma.load.sync.aligned.row.m16n16k16.f16 {frag8}, [%rd1];"),
        "t.ptx:12:2: error: missing the matrix `.a`, `.b` or `.c` in `wmma.load.sync.aligned.row.m16n16k16.f16`",
    );
    check(
        &format!(
            "\twmma.mma.sync.aligned.row.col.m16n16k16.f32.bf16.f16.f32 {frag8}, {frag8}, {frag8}, {frag8};"
        ),
        "t.ptx:12:2: error: invalid combination of types or `.satfinite` in `wmma.mma.sync.aligned.row.col.m16n16k16.f32.bf16.f16.f32`",
    );
    check(
        &format!(
            "\twmma.mma.sync.aligned.row.col.m16n16k16.rz.f32.f32 {frag8}, {frag8}, {frag8}, {frag8};"
        ),
        "t.ptx:12:2: error: a rounding modifier applies only to `.f64` in `wmma.mma.sync.aligned.row.col.m16n16k16.rz.f32.f32`",
    );
    check(
        &format!("\twmma.store.d.sync.aligned.row.m16n16k16.local.f32 [%rd1], {frag8};"),
        "t.ptx:12:2: error: invalid state space `.local` for `wmma` in `wmma.store.d.sync.aligned.row.m16n16k16.local.f32`",
    );
}

#[test]
fn mma_sync_and_ldmatrix_misuse() {
    check(
        "\tmma.sync.aligned.m16n8k16.row.col.f32.tf32.tf32.f32 {%f1, %f1, %f1, %f1}, {%r1, %r1, %r1, %r1}, {%r1, %r1}, {%f1, %f1, %f1, %f1};",
        "t.ptx:12:2: error: no `mma.sync` of `.m16n8k16` with `.f32.tf32.tf32.f32` in `mma.sync.aligned.m16n8k16.row.col.f32.tf32.tf32.f32`",
    );
    check(
        "\tmma.sync.aligned.m16n8k16.col.row.f32.f16.f16.f32 {%f1, %f1, %f1, %f1}, {%r1, %r1, %r1, %r1}, {%r1, %r1}, {%f1, %f1, %f1, %f1};",
        "t.ptx:12:2: error: this shape takes the layouts `.row.col` in `mma.sync.aligned.m16n8k16.col.row.f32.f16.f16.f32`",
    );
    check(
        "\tmma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f1, %f1, %f1}, {%r1, %r1}, {%r1, %r1}, {%f1, %f1, %f1, %f1};",
        "t.ptx:12:74: error: expected a vector of 4 elements, found 2",
    );
    // The manual: m16n8k8's and m16n8k16's "`.dtype` must be the same as `.ctype`".
    check(
        "\tmma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f16 {%f1, %f1, %f1, %f1}, {%r1, %r1, %r1, %r1}, {%r1, %r1}, {%r1, %r1};",
        "t.ptx:12:2: error: no `mma.sync` of `.m16n8k16` with `.f32.f16.f16.f16` in `mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f16`",
    );
    check(
        "\tmma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f32 {%r1, %r1}, {%r1, %r1}, {%r1}, {%f1, %f1, %f1, %f1};",
        "t.ptx:12:2: error: no `mma.sync` of `.m16n8k8` with `.f16.f16.f16.f32` in `mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f32`",
    );
    // Volta's m8n8k4 `.f16`: two registers for A and B, four `.f16x2` or eight `.f32` for C
    // and D, a layout for each multiplicand, no `.satfinite`.
    let (f8, r4) = (
        "{%f1, %f1, %f1, %f1, %f1, %f1, %f1, %f1}",
        "{%r1, %r1, %r1, %r1}",
    );
    check(
        &format!(
            "\tmma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32 {f8}, {r4}, {{%r1, %r1}}, {f8};"
        ),
        "t.ptx:12:92: error: expected a vector of 2 elements, found 4",
    );
    check(
        &format!(
            "\tmma.sync.aligned.m8n8k4.col.row.f32.f16.f16.f32 {f8}, {{%r1, %r1}}, {{%r1}}, {f8};"
        ),
        "t.ptx:12:104: error: expected a vector of 2 elements, found 1",
    );
    check(
        &format!(
            "\tmma.sync.aligned.m8n8k4.row.row.f32.f16.f16.f16 {f8}, {{%r1, %r1}}, {{%r1, %r1}}, {{%r1, %r1}};"
        ),
        "t.ptx:12:116: error: expected a vector of 4 elements, found 2",
    );
    check(
        &format!(
            "\tmma.sync.aligned.m8n8k4.col.col.f32.f16.f16.f32 {f8}, {{%r1, %r1}}, {{%r1, %r1}}, {r4};"
        ),
        "t.ptx:12:116: error: expected a vector of 8 elements, found 4",
    );
    // The manual: "When .ctype is .f32, .dtype must also be .f32" (ptxas agrees).
    check(
        &format!(
            "\tmma.sync.aligned.m8n8k4.col.col.f16.f16.f16.f32 {r4}, {{%r1, %r1}}, {{%r1, %r1}}, {f8};"
        ),
        "t.ptx:12:2: error: no `mma.sync` of `.m8n8k4` with `.f16.f16.f16.f32` in `mma.sync.aligned.m8n8k4.col.col.f16.f16.f16.f32`",
    );
    check(
        &format!(
            "\tmma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32 {r4}, {{%r1, %r1}}, {{%r1, %r1}}, {f8};"
        ),
        "t.ptx:12:50: error: expected a vector of 8 elements, found 4",
    );
    check(
        &format!(
            "\tmma.sync.aligned.m8n8k4.row.col.f16.f16.f16.f16 {f8}, {{%r1, %r1}}, {{%r1, %r1}}, {r4};"
        ),
        "t.ptx:12:50: error: expected a vector of 4 elements, found 8",
    );
    check(
        &format!(
            "\tmma.sync.aligned.m8n8k4.row.f32.f16.f16.f32 {f8}, {{%r1, %r1}}, {{%r1, %r1}}, {f8};"
        ),
        "t.ptx:12:2: error: `.m8n8k4` with `.f16` takes a layout for each of A and B (`.row` or `.col`) in `mma.sync.aligned.m8n8k4.row.f32.f16.f16.f32`",
    );
    check(
        &format!(
            "\tmma.sync.aligned.m8n8k4.row.col.satfinite.f32.f16.f16.f32 {f8}, {{%r1, %r1}}, {{%r1, %r1}}, {f8};"
        ),
        "t.ptx:12:2: error: no `mma.sync` of `.m8n8k4` with `.f32.f16.f16.f32` and `.satfinite` in `mma.sync.aligned.m8n8k4.row.col.satfinite.f32.f16.f16.f32`",
    );
    check(
        &format!(
            "\tmma.sync.aligned.m8n8k4.row.col.f32.bf16.bf16.f32 {f8}, {{%r1, %r1}}, {{%r1, %r1}}, {f8};"
        ),
        "t.ptx:12:2: error: no `mma.sync` of `.m8n8k4` with `.f32.bf16.bf16.f32` in `mma.sync.aligned.m8n8k4.row.col.f32.bf16.bf16.f32`",
    );
    check(
        "\tmma.sync.aligned.m8n8k4.col.row.f64.f64.f64.f64 {%fd1, %fd1}, {%fd1}, {%fd1}, {%fd1, %fd1};",
        "t.ptx:12:2: error: this shape takes the layouts `.row.col` in `mma.sync.aligned.m8n8k4.col.row.f64.f64.f64.f64`",
    );
    check(
        "\tldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r1, %r1}, [%r2];",
        "t.ptx:12:43: error: expected a vector of 4 elements, found 2",
    );
    check(
        "\tldmatrix.sync.aligned.m8n8.x4.global.b16 {%r1, %r1, %r1, %r1}, [%rd1];",
        "t.ptx:12:2: error: invalid state space `.global` (`.shared` only) in `ldmatrix.sync.aligned.m8n8.x4.global.b16`",
    );
}

#[test]
fn vector_atomics_misuse() {
    check(
        "\t.reg .b16 %h<3>;\n\tatom.global.max.noftz.bf16 %h1, [%rd1], %h2;",
        "t.ptx:13:2: error: `.bf16` atomics other than `.add` exist only as vectors (`.global.v2` ...) in `atom.global.max.noftz.bf16`",
    );
    check(
        "\tatom.global.v8.f32.add {%f1, %f1, %f1, %f1, %f1, %f1, %f1, %f1}, [%rd1], {%f1, %f1, %f1, %f1, %f1, %f1, %f1, %f1};",
        "t.ptx:12:2: error: vector atomics are `.add`, `.min`, `.max` of half types (`.v8` at most, `.v4` for pairs) and `.add` of `.f32` (`.v4` at most) in `atom.global.v8.f32.add`",
    );
    check(
        "\tred.shared.v2.f32.add [%rd1], {%f1, %f1};",
        "t.ptx:12:2: error: vector atomics are `.global` only in `red.shared.v2.f32.add`",
    );
    check(
        "\t.reg .b16 %h<3>;\n\tatom.global.v2.f16.add {%h1, %h2}, [%rd1], {%h1, %h2};",
        "t.ptx:13:2: error: `.f16` atomics need `.noftz` in `atom.global.v2.f16.add`",
    );
}

#[test]
fn prefetch_misuse() {
    check(
        "\tprefetch.global [%rd1];",
        "t.ptx:12:2: error: missing the cache level (`.L1`, `.L2`, ...) in `prefetch.global`",
    );
    check(
        "\tprefetchu.L2 [%rd1];",
        "t.ptx:12:2: error: `prefetchu` prefetches into `.L1` only in `prefetchu.L2`",
    );
    check(
        "\tprefetch.shared.L1 [%rd1];",
        "t.ptx:12:2: error: invalid state space `.shared` for `prefetch` in `prefetch.shared.L1`",
    );
}

#[test]
fn video_misuse() {
    check(
        "\tvadd.s32.s32.s32.add %r1, %r2, %r3;",
        "t.ptx:12:33: error: a merge or a secondary operation needs the operand `c`",
    );
    check(
        "\tvadd.s32.s32.s32.add %r1.h0, %r2, %r3, %r1;",
        "t.ptx:12:23: error: a merge (`d.part`) and a secondary operation exclude each other",
    );
    check(
        "\tvadd.s32.s32.s32 %r1, %r2, %r3, %r1;",
        "t.ptx:12:34: error: `c` is used only by a merge (`d.part`) or a secondary operation",
    );
    check(
        "\tvshl.u32.u32.u32 %r1, %r2, %r3;",
        "t.ptx:12:2: error: missing `.clamp` or `.wrap` in `vshl.u32.u32.u32`",
    );
    check(
        "\tvset.u32.u32.lt.sat %r1, %r2, %r3;",
        "t.ptx:12:2: error: `vset` takes no `.sat` in `vset.u32.u32.lt.sat`",
    );
    check(
        "\tvmad.u32.u32.u32.po %r1, -%r2, %r3, %r1;",
        "t.ptx:12:27: error: `vmad.po` takes no negated sources",
    );
    check(
        "\tvmad.s32.u32.u32 %r1, -%r2, %r3, -%r1;",
        "t.ptx:12:35: error: `vmad` negates the product `a·b` or `c`, not both",
    );
    check(
        "\tvmad.u32.u32.u32 %r1, %r2, %r3;",
        "t.ptx:12:29: error: `vmad` takes 4 operands: d, a, b, c",
    );
    check(
        "\tvmad.u32.u32.u32 %r1.h0, %r2, %r3, %r1;",
        "t.ptx:12:19: error: `vmad` writes the whole destination (no `d.part`)",
    );
    check(
        "\tvadd.s32.s32.s32 %r1, -%r2, %r3;",
        "t.ptx:12:24: error: `-` negates only the sources of `vmad`",
    );
    check(
        "\tvmad.u32.u32.u32.add %r1, %r2, %r3, %r1;",
        "t.ptx:12:19: error: unexpected modifier `.add` for `vmad`",
    );
    // SIMD forms: selectors of the element width, masks highest first, no `.sat` with `.add`.
    check_all(&[
        (
            "\tvadd2.u32.u32.u32 %r1, %r2.b3210, %r3, %r1;",
            "t.ptx:12:25: error: invalid selector `.b3210` for `vadd2`",
        ),
        (
            "\tvadd4.u32.u32.u32 %r1, %r2.b8765, %r3, %r1;",
            "t.ptx:12:25: error: invalid selector `.b8765` for `vadd4`",
        ),
        (
            "\tvadd4.u32.u32.u32 %r1.b13, %r2, %r3, %r1;",
            "t.ptx:12:20: error: invalid mask `.b13` for `vadd4`",
        ),
        (
            "\tvadd2.u32.u32.u32.sat.add %r1, %r2, %r3, %r1;",
            "t.ptx:12:2: error: `.sat` does not go with the accumulating `.add` in `vadd2.u32.u32.u32.sat.add`",
        ),
        (
            "\tvset4.u32.u32 %r1, %r2, %r3, %r1;",
            "t.ptx:12:2: error: missing a comparison `.eq`, `.ne`, `.lt`, `.le`, `.gt` or `.ge` in `vset4.u32.u32`",
        ),
        (
            "\tvmax2.u32.u32.u32 %r1, %r2, %r3;",
            "t.ptx:12:2: error: `vmax2.u32.u32.u32` takes 4 operands, found 3",
        ),
    ]);
}

#[test]
fn mbarrier_misuse() {
    check_all(&[
        (
            "\tmbarrier.shared.b64 [%rd1], %r1;",
            "t.ptx:12:2: error: missing the operation (`.init`, `.arrive`, `.test_wait`, ...) in `mbarrier.shared.b64`",
        ),
        (
            "\tmbarrier.arrive.parity.shared.b64 %rd1, [%rd2];",
            "t.ptx:12:2: error: `.parity` belongs to `test_wait` and `try_wait` in `mbarrier.arrive.parity.shared.b64`",
        ),
        (
            "\tmbarrier.init.shared.b32 [%rd1], %r1;",
            "t.ptx:12:2: error: invalid type `.b32` (`.b64`) in `mbarrier.init.shared.b32`",
        ),
        (
            "\tmbarrier.init.global.b64 [%rd1], %r1;",
            "t.ptx:12:2: error: invalid state space `.global` (an mbarrier is in `.shared` memory) in `mbarrier.init.global.b64`",
        ),
        (
            "\tcp.async.mbarrier.shared.b64 [%rd1];",
            "t.ptx:12:2: error: missing `.arrive` in `cp.async.mbarrier.shared.b64`",
        ),
    ]);
    check_all(&[
        (
            "\tmin.relu.u16x2 %r1, %r2, %r3;",
            "t.ptx:12:2: error: `.relu` applies to `.s32` and `.s16x2` (`min.relu`) in `min.relu.u16x2`",
        ),
        (
            "\tmax.relu.u32 %r1, %r2, %r3;",
            "t.ptx:12:2: error: `.relu` applies to `.s32` and `.s16x2` (`max.relu`) in `max.relu.u32`",
        ),
    ]);
    check_all(&[(
        "\tisspacep.reg %p1, %rd1;",
        "t.ptx:12:2: error: invalid state space `.reg` for `isspacep` in `isspacep.reg`",
    )]);
    // sm_90's transaction counts and cluster-scope barriers are not executed.
    let module = frontend::compile(
        "t.ptx",
        &TEMPLATE.replace("BODY", "\tmbarrier.expect_tx.shared.b64 [%rd1], 16;"),
    )
    .unwrap();
    assert_eq!(module.unsupported().count(), 1);
}

#[test]
fn cp_async_misuse() {
    check(
        "\tcp.async.ca.shared.global [%r1], [%rd1], 12;",
        "t.ptx:12:43: error: `cp.async` copies 4, 8 or 16 bytes, not 12",
    );
    check(
        "\tcp.async.cg.shared.global [%r1], [%rd1], 8, %r2;",
        "t.ptx:12:43: error: `cp.async` copies 16 (`.cg`) bytes, not 8",
    );
    check(
        "\tcp.async.shared.global [%r1], [%rd1], 4;",
        "t.ptx:12:2: error: missing `.ca` or `.cg` in `cp.async.shared.global`",
    );
    check(
        "\tcp.async.ca.local.global [%r1], [%rd1], 4;",
        "t.ptx:12:2: error: copies from `.global` to `.shared` only (`.shared.global`) in `cp.async.ca.local.global`",
    );
    check(
        "\tcp.async.ca.shared.global [%r1], [%rd1], %r2;",
        "t.ptx:12:43: error: the copy size of `cp.async` must be an immediate",
    );
    check(
        "\tcp.async.wait_group %r1;",
        "t.ptx:12:22: error: the group count of `cp.async.wait_group` must be an immediate",
    );
}

#[test]
fn unexecuted_half_precision_forms_lower_as_unsupported() {
    let text = TEMPLATE.replace(
        "BODY",
        "\t.reg .b16 %h<3>;\n\tcvt.rn.satfinite.e2m1x2.f32 %h1, %f1, %f2;",
    );
    let module = frontend::compile("t.ptx", &text).expect("unsupported forms lower");
    let lines: Vec<_> = module.unsupported().map(|(_, i)| i.loc.line).collect();
    assert_eq!(lines, vec![13]);
}

/// A kernel's `.reg` parameters are refused; a device function's take any register type, and
/// each argument or result must fit its parameter.
#[test]
fn reg_parameters_of_kernels_are_refused_and_of_functions_checked() {
    let module = |call: &str| {
        format!(
            ".version 8.8\n.target sm_70\n.address_size 64\n\
             .func (.reg .pred %r) f(.reg .pred %p, .reg .v2 .f32 %v)\n{{\n\tmov.pred %r, %p;\n\tret;\n}}\n\
             .entry k()\n{{\n\t.reg .pred %p<2>;\n\t.reg .b32 %r<2>;\n\t.reg .v2 .f32 %w;\n\
             \t.reg .v4 .f32 %x;\n{call}\n\tret;\n}}\n"
        )
    };
    for (call, expected) in [
        (
            "\tcall (%p1), f, (%p0, %r1);",
            "m.ptx:15:23: error: expected a vector of 2 registers",
        ),
        (
            "\tcall (%p1), f, (%p0, %x);",
            "m.ptx:15:23: error: `%x` is a vector of 4 registers, expected 2",
        ),
        (
            "\tcall (%p1), f, (%r0, %w);",
            "m.ptx:15:18: error: type mismatch: `%r0` is `.b32`, expected `.pred`",
        ),
        (
            "\tcall (%p1), f, (1.0, %w);",
            "m.ptx:15:18: error: float literal for a `.pred` operand",
        ),
        (
            "\tcall (%r1), f, (%p0, %w);",
            "m.ptx:15:8: error: type mismatch: `%r1` is `.b32`, expected `.pred`",
        ),
    ] {
        check_module(&module(call), expected);
    }
    assert!(frontend::compile("m.ptx", &module("\tcall (%p1), f, (-1, %w);")).is_ok());
    check_module(
        ".version 8.8\n.target sm_70\n.address_size 64\n\
         .entry k(.reg .u32 %a)\n{\n\tret;\n}\n",
        "m.ptx:4:11: error: unsupported: `.reg` parameters (only `.param`)",
    );
}

#[test]
fn vector_registers_must_match_the_instruction_width() {
    let v = "\t.reg .v2 .f32 %v<2>;\n\t.reg .v4 .f32 %q;\n";
    check(
        &format!("{v}\tld.global.v4.f32 %v1, [%rd1];"),
        "t.ptx:14:19: error: `%v1` is a vector of 2 registers, expected 4",
    );
    check(
        &format!("{v}\tst.global.v2.u64 [%rd1], %v0;"),
        "t.ptx:14:27: error: type mismatch: `%v0` is `.v2.f32`, expected `.u64` elements",
    );
    check(
        &format!("{v}\tmov.v4.f32 %q, %v0;"),
        "t.ptx:14:17: error: `%v0` is a vector of 2 registers, expected 4",
    );
    check(
        &format!("{v}\tmov.v2.f32 _, %v1;"),
        "t.ptx:14:2: error: `mov.v2` moves between vectors of 2 elements",
    );
    check(
        &format!("{v}\tmov.v2.pred %v0, %v1;"),
        "t.ptx:14:2: error: invalid vector move `.v2.pred` in `mov.v2.pred`",
    );
}

/// Integer constants are predicates (zero false, anything else true: `mov.pred %p, -1` is
/// NVVM's "true"); float literals are not.
#[test]
fn predicate_constants_are_integers() {
    check_all(&[
        (
            "\tmov.pred %p1, 1.0;",
            "t.ptx:12:16: error: float literal for a `.pred` operand",
        ),
        (
            "\tselp.u32 %r1, 1, 2, 0f3F800000;",
            "t.ptx:12:22: error: expected a predicate",
        ),
        (
            "\tmov.pred %p1, %r1;",
            "t.ptx:12:16: error: type mismatch: `%r1` is `.b32`, expected `.pred`",
        ),
    ]);
    assert!(headlines("\tmov.pred %p1, -1;\n\tmov.pred %p2, 2;").is_empty());
}

/// Registers wider than the instruction type: allowed for `ld`, `st` and `cvt` as the manual's
/// "Operand Size Exceeding Instruction-Type Size" says (bit-size registers with any type, float
/// registers with bit-size types only), refused everywhere else and for narrower registers.
#[test]
fn wider_registers_only_where_the_manual_allows_them() {
    check_all(&[
        (
            "\t.reg .f64 %fd1;\n\tld.global.f32 %fd1, [%rd1];",
            "t.ptx:13:16: error: type mismatch: `%fd1` is `.f64`, expected `.f32`",
        ),
        (
            "\t.reg .f64 %fd1;\n\tld.global.u32 %fd1, [%rd1];",
            "t.ptx:13:16: error: type mismatch: `%fd1` is `.f64`, expected `.u32`",
        ),
        (
            "\t.reg .b16 %h1;\n\tld.global.u32 %h1, [%rd1];",
            "t.ptx:13:16: error: type mismatch: `%h1` is `.b16`, expected `.u32`",
        ),
        (
            "\tcvt.f32.f16 %f1, %s1;",
            "t.ptx:12:19: error: type mismatch: `%s1` is `.s32`, expected `.f16`",
        ),
        (
            "\tadd.f32 %f1, %rd1, %f2;",
            "t.ptx:12:15: error: type mismatch: `%rd1` is `.b64`, expected `.f32`",
        ),
        (
            "\tmov.b32 %r1, %rd1;",
            "t.ptx:12:15: error: type mismatch: `%rd1` is `.b64`, expected `.b32`",
        ),
        (
            "\tatom.global.add.u32 %rd2, [%rd1], %r1;",
            "t.ptx:12:22: error: type mismatch: `%rd2` is `.b64`, expected `.u32`",
        ),
    ]);
    for ok in [
        "\tld.global.f32 %rd2, [%rd1];\n\tst.global.f32 [%rd1], %rd2;",
        "\t.reg .f64 %fd1;\n\tld.global.b32 %fd1, [%rd1];\n\tst.global.b16 [%rd1], %fd1;",
        "\tcvt.f32.f16 %f1, %r1;\n\tcvt.rn.f16.f32 %rd2, %f1;",
    ] {
        assert_eq!(headlines(ok), Vec::<String>::new(), "{ok}");
    }
}

/// `.global` and `.const` variables in a function body are named only there, from their
/// declaration on.
#[test]
fn function_scope_globals_are_scoped_names() {
    check_all(&[
        (
            "\t.global .u32 g;\n\t.global .u32 g;",
            "t.ptx:13:15: error: duplicate declaration of `g`",
        ),
        (
            "\tld.global.u32 %r1, [g];\n\t.global .u32 g;",
            "t.ptx:12:21: error: undefined symbol `g`",
        ),
        (
            "\t{\n\t.const .u32 c = 1;\n\t}\n\tld.const.u32 %r1, [c];",
            "t.ptx:15:20: error: undefined symbol `c`",
        ),
        (
            "\t.global .u32 g = 1.5;",
            "t.ptx:12:19: error: float initializer for `.u32`",
        ),
    ]);
    check_module(
        ".version 8.8\n.target sm_70\n.address_size 64\n\
         .func f()\n{\n\t.global .u32 g;\n\tret;\n}\n\
         .entry k()\n{\n\t.reg .b32 %r1;\n\tld.global.u32 %r1, [g];\n\tret;\n}\n",
        "m.ptx:12:21: error: undefined symbol `g`",
    );
}

/// `.b128` registers: what takes them and what does not.
#[test]
fn b128_register_misuse() {
    let decl = "\t.reg .b128 %q<2>;\n";
    let cases = [
        (
            "\tmov.b128 %q0, %q1;",
            "t.ptx:13:2: error: `mov.b128` packs or unpacks: one operand must be a `{...}` of elements",
        ),
        (
            "\tmov.b128 %q0, {%rd0, %rd1, %rd2};",
            "t.ptx:13:16: error: cannot split `.b128` into 3 elements",
        ),
        (
            "\tmov.b128 %q0, {%r0, %r1};",
            "t.ptx:13:17: error: type mismatch: `%r0` is `.b32`, expected a 64-bit element",
        ),
        (
            "\tmov.b128 %rd0, {%rd1, %rd2};",
            "t.ptx:13:11: error: type mismatch: `%rd0` is `.b64`, expected `.b128`",
        ),
        (
            "\tmov.b128 {%rd1, %rd2}, {%rd1, %rd2};",
            "t.ptx:13:25: error: `mov.b128` moves between a `.b128` register and a `{...}` of elements",
        ),
        (
            "\tadd.s64 %rd0, %q0, 1;",
            "t.ptx:13:16: error: unsupported: `.b128` register `%q0` here: warpsim executes `.b128` registers in `ld`, `ldu`, `st`, `mov` packing or unpacking, and `.reg` parameters",
        ),
        (
            "\tld.global.b128 %rd0, [%rd1];",
            "t.ptx:13:17: error: type mismatch: `%rd0` is `.b64`, expected `.b128`",
        ),
        (
            "\tst.global.b128 [%rd1], {%rd1, %rd2};",
            "t.ptx:13:25: error: expected a `.b128` register",
        ),
        (
            "\tld.global.v2.b128 {%q0, %q1}, [%rd1];",
            "t.ptx:13:2: error: unsupported: ld.global.v2.b128",
        ),
        (
            "\tld.global.b128 %q0, [%q1];",
            "t.ptx:13:22: error: unsupported: `.b128` register `%q1` here: warpsim executes `.b128` registers in `ld`, `ldu`, `st`, `mov` packing or unpacking, and `.reg` parameters",
        ),
    ];
    let cases: Vec<(String, &str)> = cases
        .iter()
        .map(|(body, want)| (format!("{decl}{body}"), *want))
        .collect();
    let refs: Vec<(&str, &str)> = cases.iter().map(|(b, w)| (b.as_str(), *w)).collect();
    check_all(&refs);
    check(
        "\t.reg .v2 .b128 %w;",
        "t.ptx:12:12: error: unsupported: `.b128` vector registers",
    );
    // sm_90's 128-bit atomics lower as unsupported (their launch stops there).
    let text = TEMPLATE.replace(
        "BODY",
        "\t.reg .b128 %q<2>;\n\tatom.global.cas.b128 %q0, [%rd1], %q0, %q1;\n\tatom.exch.b128 %q0, [%rd1], %q1;",
    );
    let module = frontend::compile("t.ptx", &text).expect("128-bit atomics lower");
    let lines: Vec<_> = module.unsupported().map(|(_, i)| i.loc.line).collect();
    assert_eq!(lines, vec![13, 14]);
}

/// A `d|p` pair's halves are registers (a vector register's component too) or `_`.
#[test]
fn pair_halves_with_components() {
    check_all(&[
        (
            "\t.reg .v2 .b32 %v;\n\tlop3.and.b32 %v.q|%p1, %r1, %r2, %r3, 0x80, 1;",
            "t.ptx:13:15: error: vector register `%v` needs a component `.x`..`.w`",
        ),
        (
            "\tlop3.and.b32 %r0.x|%p1, %r1, %r2, %r3, 0x80, 1;",
            "t.ptx:12:15: error: `%r0` is not a vector register",
        ),
        (
            "\t.reg .v2 .b32 %v;\n\tlop3.and.b32 %p1|%v.x, %r1, %r2, %r3, 0x80, 1;",
            "t.ptx:13:15: error: type mismatch: `%p1` is `.pred`, expected `.b32`",
        ),
        (
            "\t.reg .v2 .b32 %v;\n\tadd.s32 %v.x|%p1, %r1, %r2;",
            "t.ptx:13:10: error: `add` has a single destination",
        ),
    ]);
    assert!(
        headlines("\t.reg .v2 .b32 %v;\n\tlop3.and.b32 %v.y|_, %r1, %r2, %r3, 0x80, 1;").is_empty()
    );
}

/// Packing into or unpacking from a vector register named whole: its components must split
/// the type as a `{...}` list would.
#[test]
fn packing_vector_registers_named_whole() {
    check_all(&[
        (
            "\t.reg .v4 .b32 %v;\n\tmov.b64 %rd1, %v;",
            "t.ptx:13:16: error: type mismatch: `%v` is `.b32`, expected a 16-bit element",
        ),
        (
            "\t.reg .v2 .b32 %v<2>;\n\tmov.b64 %v0, %v1;",
            "t.ptx:13:15: error: vector register `%v1` needs a component `.x`..`.w`",
        ),
        (
            "\t.reg .v2 .b32 %v;\n\t.reg .b128 %q;\n\tmov.b128 %q, %v;",
            "t.ptx:14:15: error: type mismatch: `%v` is `.b32`, expected a 64-bit element",
        ),
    ]);
    assert!(headlines("\t.reg .v2 .b32 %v;\n\tmov.b64 %v, %rd1;\n\tmov.b64 %rd2, %v;").is_empty());
}

#[test]
fn cluster_barrier_and_registers_misuse() {
    check_all(&[
        (
            "\tbarrier.cluster.sync;",
            "t.ptx:12:2: error: missing `.arrive` or `.wait` in `barrier.cluster.sync`",
        ),
        (
            "\tbarrier.cluster;",
            "t.ptx:12:2: error: missing `.arrive` or `.wait` in `barrier.cluster`",
        ),
        (
            "\tbarrier.cluster.arrive.acquire;",
            "t.ptx:12:25: error: unexpected modifier `.acquire` for `barrier`",
        ),
        (
            "\tbarrier.cluster.wait.release;",
            "t.ptx:12:23: error: unexpected modifier `.release` for `barrier`",
        ),
        (
            "\tbarrier.cluster.wait.relaxed;",
            "t.ptx:12:23: error: unexpected modifier `.relaxed` for `barrier`",
        ),
        (
            "\tbarrier.cluster.arrive.release.relaxed;",
            "t.ptx:12:33: error: conflicting modifier `.relaxed`",
        ),
        (
            "\tbarrier.cta.cluster.arrive;",
            "t.ptx:12:10: error: unexpected modifier `.cta` for `barrier`",
        ),
        (
            "\tbar.cluster.arrive 0, 32;",
            "t.ptx:12:6: error: unexpected modifier `.cluster` for `bar`",
        ),
        (
            "\tbarrier.cluster.arrive 0;",
            "t.ptx:12:2: error: `barrier.cluster.arrive` takes 0 operands, found 1",
        ),
        (
            "\tmov.u32 %r1, %is_explicit_cluster;",
            "t.ptx:12:15: error: special register `%is_explicit_cluster` is a `.pred`, not a `.u32`",
        ),
        (
            "\tmov.pred %p1, %cluster_ctarank;",
            "t.ptx:12:16: error: special register `%cluster_ctarank` is a `.u32`, not a `.pred`",
        ),
        (
            "\tmov.u32 %r1, %clusterid;",
            "t.ptx:12:15: error: `%clusterid` needs a component `.x`, `.y` or `.z`",
        ),
        (
            "\tmov.u32 %r1, %cluster_nctarank.x;",
            "t.ptx:12:15: error: `%cluster_nctarank` has no component `.x`",
        ),
    ]);
}
