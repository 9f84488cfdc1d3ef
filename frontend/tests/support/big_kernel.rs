//! Generators of large PTX kernels for the scaling tests (`tests/integration/scaling.rs`) and the
//! `big_kernel` example, which measures them at full size, and for the runtime's big-kernel
//! tests (`runtime/tests/integration/big_kernels.rs`); each includes the generators it needs.
#![allow(dead_code)]

use std::fmt::Write as _;

/// A straight-line kernel with `n` simultaneously live values: `n` loads into distinct
/// registers `%f0`..`%f{n-1}`, then a reduction in SSA form (`%g1 = %f0 + %f1`,
/// `%g{i} = %g{i-1} + %f{i}`) and one store. `n` must be at least 2.
///
/// Every `%f` value is live from its load to its use in the reduction, so right after the last
/// load the `n` values and the output pointer (a 64-bit pair) are live; the input pointer
/// dies at that load, whose value reuses its first register. The allocation needs `n + 3`
/// 32-bit registers.
pub fn live_values(n: usize) -> String {
    assert!(n >= 2, "the reduction needs two values");
    let mut s = String::with_capacity(64 * n);
    s.push_str(".version 7.0\n.target sm_70\n.address_size 64\n\n");
    s.push_str(".visible .entry live(.param .u64 live_in, .param .u64 live_out)\n{\n");
    let _ = writeln!(
        s,
        "\t.reg .b64 %rd<3>;\n\t.reg .f32 %f<{n}>;\n\t.reg .f32 %g<{n}>;"
    );
    s.push_str("\tld.param.u64 %rd1, [live_in];\n\tld.param.u64 %rd2, [live_out];\n");
    for i in 0..n {
        let _ = writeln!(s, "\tld.global.f32 %f{i}, [%rd1+{}];", 4 * i);
    }
    s.push_str("\tadd.f32 %g1, %f0, %f1;\n");
    for i in 2..n {
        let _ = writeln!(s, "\tadd.f32 %g{i}, %g{}, %f{i};", i - 1);
    }
    let _ = writeln!(s, "\tst.global.f32 [%rd2], %g{};\n\tret;\n}}", n - 1);
    s
}

/// A kernel (`entry`) or device function with `n` `.u32` parameters `p0`..`p{n-1}`, whose body
/// adds the first and the last. A kernel stores the sum through a 64-bit parameter `out` (the
/// last one, so `n + 1` parameters in all); a device function returns it.
pub fn parameters(n: usize, entry: bool) -> String {
    assert!(n >= 1, "the body reads a parameter");
    let mut s = String::with_capacity(24 * n);
    s.push_str(".version 7.0\n.target sm_70\n.address_size 64\n\n");
    if entry {
        s.push_str(".visible .entry params(");
    } else {
        s.push_str(".visible .func (.param .u32 sum) params(");
    }
    for i in 0..n {
        let _ = write!(s, "\n\t.param .u32 p{i},");
    }
    if entry {
        s.push_str("\n\t.param .u64 out");
    } else {
        s.pop();
    }
    s.push_str("\n)\n{\n\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<2>;\n");
    let _ = writeln!(
        s,
        "\tld.param.u32 %r1, [p0];\n\tld.param.u32 %r2, [p{}];\n\tadd.s32 %r3, %r1, %r2;",
        n - 1
    );
    if entry {
        s.push_str("\tld.param.u64 %rd1, [out];\n\tst.global.u32 [%rd1], %r3;\n");
    } else {
        s.push_str("\tst.param.u32 [sum], %r3;\n");
    }
    s.push_str("\tret;\n}\n");
    s
}

/// A straight-line kernel of `n` dependent additions: `%f0` is loaded, `%f{i} = %f{i-1} + 1`,
/// and `%f{n-1}` stored; `n` virtual registers and instructions, two values live at once.
pub fn chain(n: usize) -> String {
    assert!(n >= 1, "the chain starts with a load");
    let mut s = String::with_capacity(48 * n);
    s.push_str(".version 7.0\n.target sm_70\n.address_size 64\n\n");
    s.push_str(".visible .entry chain(.param .u64 chain_in, .param .u64 chain_out)\n{\n");
    let _ = writeln!(s, "\t.reg .b64 %rd<3>;\n\t.reg .f32 %f<{n}>;");
    s.push_str("\tld.param.u64 %rd1, [chain_in];\n\tld.param.u64 %rd2, [chain_out];\n");
    s.push_str("\tld.global.f32 %f0, [%rd1];\n");
    for i in 1..n {
        let _ = writeln!(s, "\tadd.f32 %f{i}, %f{}, 0f3F800000;", i - 1);
    }
    let _ = writeln!(s, "\tst.global.f32 [%rd2], %f{};\n\tret;\n}}", n - 1);
    s
}

/// A straight-line kernel with `n` simultaneously live warp-uniform values: `%r{i} = i` for
/// `i` in 1..=n (immediates, launch constants that take no register), then their sum
/// `%s{i} = %s{i-1} + %r{i}` stored through the parameter `uniform_out`. The JIT hoists every
/// move out of its lane loop (`emulator/src/jit/uniform.rs`). `n` must be at least 1.
pub fn uniform_values(n: usize) -> String {
    assert!(n >= 1, "the sum needs a value");
    let mut s = String::with_capacity(64 * n);
    s.push_str(".version 7.0\n.target sm_70\n.address_size 64\n\n");
    s.push_str(".visible .entry uniform(.param .u64 uniform_out)\n{\n");
    let _ = writeln!(
        s,
        "\t.reg .b64 %rd<2>;\n\t.reg .b32 %r<{}>;\n\t.reg .b32 %s<{}>;",
        n + 1,
        n + 1
    );
    for i in 1..=n {
        let _ = writeln!(s, "\tmov.u32 %r{i}, {i};");
    }
    s.push_str("\tmov.u32 %s0, 0;\n");
    for i in 1..=n {
        let _ = writeln!(s, "\tadd.u32 %s{i}, %s{}, %r{i};", i - 1);
    }
    let _ = writeln!(
        s,
        "\tld.param.u64 %rd1, [uniform_out];\n\tst.global.u32 [%rd1], %s{n};\n\tret;\n}}"
    );
    s
}
