//! The resource limits of `frontend::lower::limits`: each is refused with its exact diagnostic
//! at the declaration that crosses it, and what lies exactly at a limit is accepted. None of
//! these inputs may allocate in proportion to what it declares before being refused.

use frontend::lower::limits::{
    MAX_FUNCTION_REGS, MAX_KERNEL_PARAM_BYTES, MAX_LOCAL_FRAME_BYTES, MAX_MODULE_REGS, MAX_PARAMS,
    MAX_REG_RANGE,
};
use std::fmt::Write as _;

const HEADER: &str = ".version 8.8\n.target sm_70\n.address_size 64\n";

/// The first diagnostic headline of `items` after the 3-line header, or `None` if it lowers.
fn first_error(items: &str) -> Option<String> {
    let text = format!("{HEADER}{items}");
    frontend::compile("t.ptx", &text)
        .err()
        .map(|e| e.headlines()[0].clone())
}

/// Checks that `items` fails with exactly `expected` as its first diagnostic.
#[track_caller]
fn check(items: &str, expected: &str) {
    assert_eq!(first_error(items).as_deref(), Some(expected));
}

/// Checks that `items` lowers.
#[track_caller]
fn accepted(items: &str) {
    assert_eq!(first_error(items), None);
}

/// A kernel `k` whose body (from line 5) is `body` and a `ret`.
fn kernel(body: &str) -> String {
    format!(".visible .entry k()\n{{\n{body}\n\tret;\n}}\n")
}

#[test]
fn a_huge_register_range_is_refused_before_any_register_exists() {
    // The user's 60-byte file: it used to allocate gigabytes and abort.
    check(
        &kernel("\t.reg .b32 %r<2147483648>;"),
        "t.ptx:6:15: error: too many registers: `%r<2147483648>` declares 2147483648, \
         at most 1048576 per declaration",
    );
    check(
        &kernel(&format!("\t.reg .pred %p<{}>;", MAX_REG_RANGE + 1)),
        "t.ptx:6:16: error: too many registers: `%p<1048577>` declares 1048577, \
         at most 1048576 per declaration",
    );
}

#[test]
fn registers_per_function_and_per_module_are_bounded() {
    let range = format!("\t.reg .b32 %a<{MAX_REG_RANGE}>;\n\t.reg .b32 %b<{MAX_REG_RANGE}>;");
    assert_eq!(2 * MAX_REG_RANGE as usize, MAX_FUNCTION_REGS);
    // Exactly at the limit: accepted.
    accepted(&kernel(&range));
    // One more, as a single register, a vector or a range, is refused where it is declared.
    check(
        &kernel(&format!("{range}\n\t.reg .b32 %c;")),
        "t.ptx:8:12: error: too many registers: `k` declares more than 2097152",
    );
    check(
        &kernel(&format!("{range}\n\t.reg .v2 .b32 %v;")),
        "t.ptx:8:16: error: too many registers: `k` declares more than 2097152",
    );
    check(
        &kernel(&format!("{range}\n\t{{\n\t.reg .b32 %c<1>;\n\t}}")),
        "t.ptx:9:12: error: too many registers: `k` declares more than 2097152",
    );

    // Two functions at the function limit fill the module; a third register is refused.
    assert_eq!(2 * MAX_FUNCTION_REGS, MAX_MODULE_REGS);
    let function = |name: &str| format!(".func {name}()\n{{\n{range}\n\tret;\n}}\n");
    let full = format!("{}{}", function("f"), function("g"));
    accepted(&full);
    check(
        &format!("{full}{}", kernel("\t.reg .b32 %x;")),
        "t.ptx:18:12: error: too many registers: the module declares more than 4194304",
    );
}

/// A kernel with `n` `.u32` parameters `p0`.. and an empty body.
fn kernel_with_params(n: usize, first: &str) -> String {
    let mut s = format!(".visible .entry k({first}");
    for i in 0..n {
        let _ = write!(
            s,
            "{}\n.param .u32 p{i}",
            if i == 0 && first.is_empty() { "" } else { "," }
        );
    }
    s.push_str(")\n{\n\tret;\n}\n");
    s
}

#[test]
fn the_kernel_parameter_space_is_32764_bytes() {
    let n = (MAX_KERNEL_PARAM_BYTES / 4) as usize;
    accepted(&kernel_with_params(n, ""));
    // Parameter `p8191` is on line 4 + 8192.
    check(
        &kernel_with_params(n + 1, ""),
        "t.ptx:8196:13: error: `k` has more than 32764 bytes of kernel parameters: \
         `p8191` ends at byte 32768",
    );
    // Alignment padding counts: after one byte, `p8190` ends at 4 + 8191 * 4.
    check(
        &kernel_with_params(n, ".param .u8 b"),
        "t.ptx:8195:13: error: `k` has more than 32764 bytes of kernel parameters: \
         `p8190` ends at byte 32768",
    );
    check(
        &format!(
            ".entry k(.param .align 8 .b8 s[{}])\n{{\n\tret;\n}}\n",
            n * 4 + 1
        ),
        "t.ptx:4:30: error: `k` has more than 32764 bytes of kernel parameters: \
         `s` ends at byte 32765",
    );
}

#[test]
fn a_device_function_frame_is_512_kib() {
    let max = MAX_LOCAL_FRAME_BYTES;
    // Parameters and return values share the frame.
    accepted(&format!(
        ".func (.param .b8 r[{}]) f(.param .b8 a[{}])\n{{\n\tret;\n}}\n",
        max / 2,
        max / 2
    ));
    check(
        &format!(
            ".func (.param .b8 r[{}]) f(.param .b8 a[{}])\n{{\n\tret;\n}}\n",
            max / 2,
            max / 2 + 1
        ),
        "t.ptx:4:19: error: `f` needs more than 524288 bytes of local memory per thread: \
         `r` ends at byte 524289",
    );
    // `.local` and `.param` variables extend it; `.shared` ones do not.
    check(
        &kernel(&format!(
            "\t.local .b8 a[{}];\n\t.shared .b8 s[{max}];\n\t.param .b32 x;\n\t.local .b8 b[{}];",
            max / 2,
            max / 2
        )),
        "t.ptx:9:13: error: `k` needs more than 524288 bytes of local memory per thread: \
         `b` ends at byte 524292",
    );
}

#[test]
fn the_parameter_count_is_bounded_before_parameters_are_built() {
    // Unsized parameters take no bytes: only the count stops them.
    let mut s = String::from(".func f(");
    for i in 0..=MAX_PARAMS {
        let _ = write!(s, "{}.param .b8 p{i}[]", if i == 0 { "" } else { ", " });
    }
    s.push_str(");\n");
    let column = s
        .find(&format!(" p{MAX_PARAMS}["))
        .expect("the last parameter")
        + 2;
    check(
        &s,
        &format!("t.ptx:4:{column}: error: too many parameters: `f` has more than 524288"),
    );
}

#[test]
fn variables_are_bounded_by_their_state_space() {
    // 2^60 bytes of shared memory: refused, never laid out or allocated.
    check(
        ".shared .b8 s[1152921504606846976];\n",
        "t.ptx:4:13: error: `.shared` variable `s` is too large: 1152921504606846976 bytes, \
         at most 4294967296",
    );
    check(
        ".global .b64 g[2305843009213693952];\n",
        "t.ptx:4:14: error: `.global` variable `g` is too large: its size overflows 64 bits",
    );
    check(
        ".global .b8 g[1099511627777];\n",
        "t.ptx:4:13: error: `.global` variable `g` is too large: 1099511627777 bytes, \
         at most 1099511627776",
    );
    accepted(".const .b8 c[65536];\n");
    check(
        ".const .v4 .f32 c[4097];\n",
        "t.ptx:4:17: error: `.const` variable `c` is too large: 65552 bytes, at most 65536",
    );
    check(
        &kernel("\t.local .align 8 .b64 buf[65537];"),
        "t.ptx:6:23: error: `.local` variable `buf` is too large: 524296 bytes, at most 524288",
    );
    // A dimension product that overflows, and an initialized array of a huge declared size.
    check(
        ".global .b8 g[4294967296][4294967296];\n",
        "t.ptx:4:13: error: array size overflows",
    );
    check(
        ".global .v4 .b32 g[4611686018427387904] = {1};\n",
        "t.ptx:4:18: error: `.global` variable `g` is too large: its size overflows 64 bits",
    );
}
