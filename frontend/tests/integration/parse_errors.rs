//! Malformed PTX and the exact first line of the diagnostic it gets (`PtxError::headlines`).
//!
//! Each case is a kernel body (or, with `MODULE:` in front, module-scope text) put after a fixed
//! five-line header, so line numbers below count from line 6.

/// Header lines 1-5; a body starts on line 6.
const HEADER: &str =
    ".version 8.8\n.target sm_70\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n";

/// `(name, source, expected headline)`. Sources starting with `MODULE:` replace the whole file.
const CASES: &[(&str, &str, &str)] = &[
    (
        "missing semicolon",
        "\tadd.s32 %r1, %r2, %r3\n\tret;\n}\n",
        "t.ptx:7:2: error: unexpected `ret`, expected `,` or `;`",
    ),
    (
        "missing operand after comma",
        "\tadd.s32 %r1, , %r3;\n}\n",
        "t.ptx:6:15: error: unexpected `,`, expected an operand",
    ),
    (
        "trailing comma",
        "\tadd.s32 %r1, %r2,;\n}\n",
        "t.ptx:6:19: error: unexpected `;`, expected an operand",
    ),
    (
        "missing comma between operands",
        "\tmov.u32 %r1, %r2 %r3;\n}\n",
        "t.ptx:6:19: error: unexpected `%r3`, expected `,` or `;`",
    ),
    (
        "missing semicolon before brace",
        "\tret\n}\n",
        "t.ptx:7:1: error: unexpected `}`, expected an operand or `;`",
    ),
    (
        "truncated file",
        "\tadd.s32 %r1, %r2, %r3;\n",
        "t.ptx:6:24: error: unexpected end of file, expected `}`",
    ),
    (
        "truncated mid-instruction",
        "\tadd.s32 %r1,",
        "t.ptx:6:14: error: unexpected end of file, expected an operand",
    ),
    (
        "unbalanced inner brace",
        "\t{ ret;\n}\n",
        "t.ptx:7:2: error: unexpected end of file, expected `}`",
    ),
    (
        "extra closing brace",
        "\tret;\n}\n}\n",
        "t.ptx:8:1: error: unexpected `}`, expected a directive",
    ),
    (
        "bad f32 immediate",
        "\tmov.f32 %f1, 0fZZ;\n}\n",
        "t.ptx:6:15: error: invalid f32 literal `0fZZ`",
    ),
    (
        "short f32 immediate",
        "\tmov.f32 %f1, 0f3F80;\n}\n",
        "t.ptx:6:15: error: invalid f32 literal `0f3F80`",
    ),
    (
        "short f64 immediate",
        "\tmov.f64 %fd1, 0d3FF0;\n}\n",
        "t.ptx:6:16: error: invalid f64 literal `0d3FF0`",
    ),
    (
        "empty hex literal",
        "\tmov.u32 %r1, 0x;\n}\n",
        "t.ptx:6:15: error: invalid integer literal `0x`",
    ),
    (
        "bad octal digit",
        "\tmov.u32 %r1, 08;\n}\n",
        "t.ptx:6:15: error: invalid integer literal `08`",
    ),
    (
        "bad binary digit",
        "\tmov.u32 %r1, 0b102;\n}\n",
        "t.ptx:6:15: error: invalid integer literal `0b102`",
    ),
    (
        "integer too large",
        "\tmov.u64 %rd1, 18446744073709551616;\n}\n",
        "t.ptx:6:16: error: integer literal out of range",
    ),
    (
        "bad exponent",
        "\tmov.f64 %fd1, 1e;\n}\n",
        "t.ptx:6:16: error: invalid float literal `1e`",
    ),
    (
        "float too large",
        "\tmov.f64 %fd1, 1e999;\n}\n",
        "t.ptx:6:16: error: float literal out of range",
    ),
    (
        "unterminated comment",
        "\t/* unterminated\n\tret;\n}\n",
        "t.ptx:6:2: error: unterminated block comment",
    ),
    (
        "unterminated string",
        "\t.pragma \"nounroll\n}\n",
        "t.ptx:6:10: error: unterminated string literal",
    ),
    (
        "unknown character",
        "\tmov.u32 %r1, #3;\n}\n",
        "t.ptx:6:15: error: invalid token `#`",
    ),
    (
        "non-ascii character",
        "\tmov.u32 %r1, é;\n}\n",
        "t.ptx:6:15: error: invalid token `é`",
    ),
    (
        "lone percent",
        "\tmov.u32 %r1, %;\n}\n",
        "t.ptx:6:15: error: invalid token `%`",
    ),
    (
        "label without colon",
        "$L__BB0_2\n\tret;\n}\n",
        "t.ptx:7:2: error: unexpected `ret`, expected `:`",
    ),
    (
        "unclosed address",
        "\tld.global.u32 %r1, [%rd1;\n}\n",
        "t.ptx:6:26: error: unexpected `;`, expected `,` or `]`",
    ),
    (
        "address offset missing",
        "\tld.global.u32 %r1, [%rd1+];\n}\n",
        "t.ptx:6:27: error: unexpected `]`, expected an integer or `-`",
    ),
    (
        "unclosed call list",
        "\tcall.uni (retval0), f, (param0;\n}\n",
        "t.ptx:6:32: error: unexpected `;`, expected `)`",
    ),
    (
        "declaration without type",
        "\t.reg %r1;\n}\n",
        "t.ptx:6:7: error: missing type in `.reg` declaration",
    ),
    (
        "register range too large",
        "\t.reg .b32 %r<4294967296>;\n}\n",
        "t.ptx:6:15: error: integer literal out of range",
    ),
    (
        "pragma without string",
        "\t.pragma nounroll;\n}\n",
        "t.ptx:6:10: error: unexpected `nounroll`, expected a string",
    ),
    (
        "directive inside body",
        "\tret;\n\t.version 8.8\n}\n",
        "t.ptx:7:2: error: unexpected `.version`, expected a statement or `}`",
    ),
    (
        "unterminated section",
        "\tret;\n}\n.section .debug_info { .b8 1\n",
        "t.ptx:8:1: error: unterminated `.section` block",
    ),
    (
        "trailing comma in parameters",
        "\tret;\n}\n.entry f(.param .u32 a,) {}\n",
        "t.ptx:8:24: error: unexpected `)`, expected a state space",
    ),
    (
        "missing comma in parameters",
        "\tret;\n}\n.entry f(.param .u32 a b) {}\n",
        "t.ptx:8:24: error: unexpected `b`, expected `,` or `)`",
    ),
    (
        "empty tuning directive entry",
        "\tret;\n}\n.entry f() .maxntid 1,, {}\n",
        "t.ptx:8:23: error: unexpected `,`, expected an integer",
    ),
    (
        "entry without name",
        "\tret;\n}\n.entry",
        "t.ptx:8:7: error: unexpected end of file, expected an identifier or `(`",
    ),
    (
        "stray word at module scope",
        "\tret;\n}\nfoo",
        "t.ptx:8:1: error: unexpected `foo`, expected a directive",
    ),
    (
        "declaration cut short",
        "\tret;\n}\n.visible .global",
        "t.ptx:8:17: error: unexpected end of file, expected a type, an identifier or `_`",
    ),
    (
        "missing initializer",
        "\tret;\n}\n.global .u32 x = ;\n",
        "t.ptx:8:18: error: unexpected `;`, expected an initializer",
    ),
    (
        "unclosed initializer",
        "\tret;\n}\n.global .b8 x[3] = {1, 2, 3;\n",
        "t.ptx:8:28: error: unexpected `;`, expected `,` or `}`",
    ),
    (
        "unknown initializer function",
        "\tret;\n}\n.global .u64 x = foo(bar);\n",
        "t.ptx:8:18: error: unexpected `foo`, expected `generic`",
    ),
    (
        "version without minor",
        "MODULE:.version 8\n",
        "t.ptx:1:10: error: invalid version `8`, expected `major.minor`",
    ),
    (
        "address size too large",
        "MODULE:.address_size 4294967296\n",
        "t.ptx:1:15: error: integer literal out of range",
    ),
    (
        "nesting too deep",
        "MODULE:.global .b8 x[1] = {{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{1",
        "t.ptx:1:52: error: nesting too deep",
    ),
    (
        "pair with three halves",
        "\tsetp.eq.s32 %p1|%p2|%p3, %r1, %r2;\n}\n",
        "t.ptx:6:21: error: unexpected `|`, expected `,` or `;`",
    ),
    (
        "pair missing its second half",
        "\tlop3.and.b32 %v.x|, %r1, %r2, %r3, 0x80, 1;\n}\n",
        "t.ptx:6:20: error: unexpected `,`, expected an identifier or `_`",
    ),
];

#[test]
fn malformed_inputs_report_the_expected_headline() {
    let mut failures = Vec::new();
    for &(name, source, expected) in CASES {
        let text = match source.strip_prefix("MODULE:") {
            Some(module) => module.to_string(),
            None => format!("{HEADER}{source}"),
        };
        let got = match frontend::parser::parse("t.ptx", &text) {
            Ok(_) => vec!["<parsed without error>".to_string()],
            Err(e) => e.headlines(),
        };
        if got != [expected] {
            failures.push(format!(
                "{name}:\n  expected {expected}\n  got      {}",
                got.join(" | ")
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} case(s) differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn there_are_enough_cases() {
    assert!(CASES.len() >= 15);
}

#[test]
fn rendering_points_at_the_error() {
    let text = format!("{HEADER}\tadd.s32 %r1, , %r3;\n}}\n");
    let e = frontend::parser::parse("t.ptx", &text).expect_err("malformed");
    let rendered = e.render();
    assert!(rendered.contains("6 | \tadd.s32 %r1, , %r3;"), "{rendered}");
    assert_eq!(e.diagnostics[0].kind, frontend::DiagKind::Syntax);
}
