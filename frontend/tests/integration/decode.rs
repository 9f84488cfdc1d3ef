//! Decoding: each instruction below lowers to the typed operation whose canonical mnemonic is
//! given, whatever the order its modifiers were written in.

use isa::print::Printer;

const TEMPLATE: &str = "\
.version 8.8
.target sm_80
.address_size 64
.global .align 4 .u32 gvar[4];
.visible .entry k(.param .u64 k_p)
{
\t.reg .pred %p<4>;
\t.reg .b16 %rs<4>;
\t.reg .b32 %r<8>;
\t.reg .b64 %rd<8>;
\t.reg .f32 %f<8>;
\t.reg .f64 %fd<8>;
\t.shared .align 8 .b8 smem[64];
\t.local .align 8 .b8 lmem[64];
BODY
\tret;
}
";

/// Lowers one instruction and returns its printed form (mnemonic and operands).
fn lowered(inst: &str) -> String {
    let text = TEMPLATE.replace("BODY", &format!("\t{inst}"));
    let module = frontend::compile("d.ptx", &text)
        .unwrap_or_else(|e| panic!("`{inst}` does not lower:\n{e}"));
    let f = &module.functions[0];
    let first = &f.blocks[0].insts[0];
    Printer::new(Some(&module), f).inst(first).to_string()
}

#[track_caller]
fn check(cases: &[(&str, &str)]) {
    for (input, expected) in cases {
        assert_eq!(lowered(input), *expected, "input: {input}");
    }
}

#[test]
fn integer_arithmetic() {
    check(&[
        ("add.s32 %r1, %r2, -5;", "add.s32 %r1, %r2, -5;"),
        ("add.sat.s32 %r1, %r2, %r3;", "add.sat.s32 %r1, %r2, %r3;"),
        ("sub.u64 %rd1, %rd2, 0x10;", "sub.u64 %rd1, %rd2, 16;"),
        ("mul.lo.s32 %r1, %r2, %r3;", "mul.lo.s32 %r1, %r2, %r3;"),
        ("mul.hi.u32 %r1, %r2, %r3;", "mul.hi.u32 %r1, %r2, %r3;"),
        ("mul.wide.s32 %rd1, %r2, 4;", "mul.wide.s32 %rd1, %r2, 4;"),
        ("mul.s32.wide %rd1, %r2, 4;", "mul.wide.s32 %rd1, %r2, 4;"),
        (
            "mad.lo.s32 %r1, %r2, %r3, %r4;",
            "mad.lo.s32 %r1, %r2, %r3, %r4;",
        ),
        (
            "mad.hi.sat.s32 %r1, %r2, %r3, %r4;",
            "mad.hi.sat.s32 %r1, %r2, %r3, %r4;",
        ),
        (
            "mad.wide.u32 %rd1, %r2, %r3, %rd4;",
            "mad.wide.u32 %rd1, %r2, %r3, %rd4;",
        ),
        ("mul24.hi.u32 %r1, %r2, %r3;", "mul24.hi.u32 %r1, %r2, %r3;"),
        (
            "mad24.lo.s32 %r1, %r2, %r3, %r4;",
            "mad24.lo.s32 %r1, %r2, %r3, %r4;",
        ),
        ("div.s32 %r1, %r2, %r3;", "div.s32 %r1, %r2, %r3;"),
        ("rem.u64 %rd1, %rd2, %rd3;", "rem.u64 %rd1, %rd2, %rd3;"),
        ("abs.s32 %r1, %r2;", "abs.s32 %r1, %r2;"),
        ("neg.s64 %rd1, %rd2;", "neg.s64 %rd1, %rd2;"),
        ("min.u32 %r1, %r2, %r3;", "min.u32 %r1, %r2, %r3;"),
        ("max.s16 %rs1, %rs2, %rs3;", "max.s16 %rs1, %rs2, %rs3;"),
        ("sad.u32 %r1, %r2, %r3, %r4;", "sad.u32 %r1, %r2, %r3, %r4;"),
        ("add.cc.u32 %r1, %r2, %r3;", "add.cc.u32 %r1, %r2, %r3;"),
        ("addc.cc.u32 %r1, %r2, %r3;", "addc.cc.u32 %r1, %r2, %r3;"),
        ("sub.cc.u32 %r1, %r2, %r3;", "sub.cc.u32 %r1, %r2, %r3;"),
        ("subc.u32 %r1, %r2, %r3;", "subc.u32 %r1, %r2, %r3;"),
        (
            "mad.lo.cc.u32 %r1, %r2, %r3, %r4;",
            "mad.lo.cc.u32 %r1, %r2, %r3, %r4;",
        ),
        (
            "madc.hi.cc.u32 %r1, %r2, %r3, %r4;",
            "madc.hi.cc.u32 %r1, %r2, %r3, %r4;",
        ),
    ]);
}

#[test]
fn bit_manipulation() {
    check(&[
        ("popc.b64 %r1, %rd1;", "popc.b64 %r1, %rd1;"),
        ("clz.b32 %r1, %r2;", "clz.b32 %r1, %r2;"),
        (
            "bfind.shiftamt.u32 %r1, %r2;",
            "bfind.shiftamt.u32 %r1, %r2;",
        ),
        ("brev.b32 %r1, %r2;", "brev.b32 %r1, %r2;"),
        ("bfe.s32 %r1, %r2, 4, 8;", "bfe.s32 %r1, %r2, 4, 8;"),
        (
            "bfi.b64 %rd1, %rd2, %rd3, %r1, %r2;",
            "bfi.b64 %rd1, %rd2, %rd3, %r1, %r2;",
        ),
        (
            "prmt.b32 %r1, %r2, %r3, 0x3210;",
            "prmt.b32 %r1, %r2, %r3, 12816;",
        ),
        (
            "prmt.b32.rc8 %r1, %r2, %r3, %r4;",
            "prmt.b32.rc8 %r1, %r2, %r3, %r4;",
        ),
        (
            "shf.l.wrap.b32 %r1, %r2, %r3, %r4;",
            "shf.l.wrap.b32 %r1, %r2, %r3, %r4;",
        ),
        (
            "shf.clamp.r.b32 %r1, %r2, %r3, %r4;",
            "shf.r.clamp.b32 %r1, %r2, %r3, %r4;",
        ),
        (
            "bmsk.clamp.b32 %r1, %r2, %r3;",
            "bmsk.clamp.b32 %r1, %r2, %r3;",
        ),
        ("and.pred %p1, %p2, %p3;", "and.pred %p1, %p2, %p3;"),
        ("xor.b16 %rs1, %rs2, 1;", "xor.b16 %rs1, %rs2, 1;"),
        ("not.b64 %rd1, %rd2;", "not.b64 %rd1, %rd2;"),
        ("cnot.b32 %r1, %r2;", "cnot.b32 %r1, %r2;"),
        ("shl.b64 %rd1, %rd2, 3;", "shl.b64 %rd1, %rd2, 3;"),
        ("shr.s32 %r1, %r2, %r3;", "shr.s32 %r1, %r2, %r3;"),
    ]);
}

#[test]
fn floating_point() {
    check(&[
        (
            "add.f32 %f1, %f2, 0f3F800000;",
            "add.f32 %f1, %f2, 0f3F800000;",
        ),
        (
            "add.rz.ftz.sat.f32 %f1, %f2, %f3;",
            "add.rz.ftz.sat.f32 %f1, %f2, %f3;",
        ),
        (
            "add.sat.ftz.rz.f32 %f1, %f2, %f3;",
            "add.rz.ftz.sat.f32 %f1, %f2, %f3;",
        ),
        (
            "sub.rm.f64 %fd1, %fd2, %fd3;",
            "sub.rm.f64 %fd1, %fd2, %fd3;",
        ),
        (
            "mul.rp.f32 %f1, %f2, 1.5;",
            "mul.rp.f32 %f1, %f2, 0f3FC00000;",
        ),
        (
            "fma.rn.f64 %fd1, %fd2, %fd3, %fd4;",
            "fma.rn.f64 %fd1, %fd2, %fd3, %fd4;",
        ),
        (
            "mad.rz.ftz.f32 %f1, %f2, %f3, %f4;",
            "fma.rz.ftz.f32 %f1, %f2, %f3, %f4;",
        ),
        ("div.rn.f32 %f1, %f2, %f3;", "div.rn.f32 %f1, %f2, %f3;"),
        (
            "div.approx.ftz.f32 %f1, %f2, %f3;",
            "div.approx.ftz.f32 %f1, %f2, %f3;",
        ),
        ("div.full.f32 %f1, %f2, %f3;", "div.full.f32 %f1, %f2, %f3;"),
        ("rcp.rn.f64 %fd1, %fd2;", "rcp.rn.f64 %fd1, %fd2;"),
        (
            "rcp.approx.ftz.f64 %fd1, %fd2;",
            "rcp.approx.ftz.f64 %fd1, %fd2;",
        ),
        ("sqrt.approx.f32 %f1, %f2;", "sqrt.approx.f32 %f1, %f2;"),
        (
            "rsqrt.approx.f64 %fd1, %fd2;",
            "rsqrt.approx.f64 %fd1, %fd2;",
        ),
        (
            "sin.approx.ftz.f32 %f1, %f2;",
            "sin.approx.ftz.f32 %f1, %f2;",
        ),
        ("ex2.approx.f32 %f1, %f2;", "ex2.approx.f32 %f1, %f2;"),
        (
            "lg2.approx.ftz.f32 %f1, %f2;",
            "lg2.approx.ftz.f32 %f1, %f2;",
        ),
        ("tanh.approx.f32 %f1, %f2;", "tanh.approx.f32 %f1, %f2;"),
        ("abs.ftz.f32 %f1, %f2;", "abs.ftz.f32 %f1, %f2;"),
        ("neg.f64 %fd1, %fd2;", "neg.f64 %fd1, %fd2;"),
        ("min.NaN.f32 %f1, %f2, %f3;", "min.NaN.f32 %f1, %f2, %f3;"),
        (
            "max.xorsign.abs.bf16x2 %r1, %r2, %r3;",
            "max.xorsign.abs.bf16x2 %r1, %r2, %r3;",
        ),
        (
            "cp.async.ca.shared::cta.global.L2::128B [%r1], [%rd1], 8, %r2;",
            "cp.async.ca.shared.global [%r1], [%rd1], 8, %r2;",
        ),
        (
            "cp.async.cg.shared.global [%r1+16], [%rd1], 16, %p1;",
            "cp.async.cg.shared.global [%r1+16], [%rd1], 16, %p1;",
        ),
        ("cp.async.commit_group;", "cp.async.commit_group;"),
        (
            "prefetch.global.L2::evict_last [%rd1];",
            "prefetch.global.L2::evict_last [%rd1];",
        ),
        ("prefetchu.L1 [%rd1+8];", "prefetchu.L1 [%rd1+8];"),
        (
            "atom.global.v4.f32.add {%f0, %f1, %f2, %f3}, [%rd1], {%f4, %f5, %f6, %f7};",
            "atom.global.add.v4.f32 {%f0, %f1, %f2, %f3}, [%rd1], {%f4, %f5, %f6, %f7};",
        ),
        (
            "red.global.v2.bf16x2.max.noftz [%rd1], {%r1, %r2};",
            "red.global.max.noftz.v2.bf16x2 [%rd1], {%r1, %r2};",
        ),
        (
            "vabsdiff.s32.s32.s32.sat %r1.h0, %r2.b0, %r3.b2, %r4;",
            "vabsdiff.s32.s32.s32.sat %r1.h0, %r2.b0, %r3.b2, %r4;",
        ),
        (
            "vshl.u32.u32.u32.wrap.max %r1, %r2, %r3.h1, %r4;",
            "vshl.u32.u32.u32.wrap.max %r1, %r2, %r3.h1, %r4;",
        ),
        (
            "createpolicy.fractional.L2::evict_normal.b64 %rd1, 0.25;",
            "createpolicy.fractional.L2::evict_normal.b64 %rd1, 0f3E800000;",
        ),
        (
            "ld.global.L2::cache_hint.v2.u32 {%r1, %r2}, [%rd1], %rd2;",
            "ld.global.v2.u32 {%r1, %r2}, [%rd1], %rd2;",
        ),
        (
            "max.s16x2.relu %r1, %r2, %r3;",
            "max.relu.s16x2 %r1, %r2, %r3;",
        ),
        ("min.relu.s32 %r1, %r2, %r3;", "min.relu.s32 %r1, %r2, %r3;"),
        ("add.s16x2 %r1, %r2, %r3;", "add.s16x2 %r1, %r2, %r3;"),
        (
            "add.f32.f16 %f1, %rs1, %f2;",
            "add.rn.f32.f16 %f1, %rs1, %f2;",
        ),
        (
            "fma.rz.sat.f32.bf16 %f1, %rs1, %rs2, %f2;",
            "fma.rz.sat.f32.bf16 %f1, %rs1, %rs2, %f2;",
        ),
        ("txq.width.b32 %r1, [%rd1];", "txq.width.b32 %r1, [%rd1];"),
        (
            "sust.b.2d.b32.trap [%rd1, {%r2, %r3}], {%r1};",
            "sust.b.2d.b32.trap [%rd1, {%r2, %r3}], %r1;",
        ),
        (
            "vadd2.s32.s32.u32.sat %r1, %r2, %r3, %r4;",
            "vadd2.s32.s32.u32.sat %r1, %r2, %r3, %r4;",
        ),
        (
            "vsub2.s32.s32.s32.sat %r1.h0, %r2.h10, %r3.h32, %r1;",
            "vsub2.s32.s32.s32.sat %r1.h0, %r2, %r3, %r1;",
        ),
        (
            "vmin4.s32.u32.u32.add %r1.b31, %r2.b0000, %r3.b7654, %r1;",
            "vmin4.s32.u32.u32.add %r1.b31, %r2.b0000, %r3, %r1;",
        ),
        (
            "vset2.u32.u32.ne %r1, %r2.h22, %r3.h01, %r1;",
            "vset2.u32.u32.ne %r1, %r2.h22, %r3.h01, %r1;",
        ),
        (
            "vmad.s32.u32.u32.sat %r1, -%r2.b1, %r3, %r4;",
            "vmad.s32.u32.u32.sat %r1, -%r2.b1, %r3, %r4;",
        ),
        (
            "vmad.u32.u32.u32.shr15.po %r1, %r2.h0, %r3.h0, %r4;",
            "vmad.u32.u32.u32.po.shr15 %r1, %r2.h0, %r3.h0, %r4;",
        ),
        (
            "vset.s32.u32.lt %r1, %r2, %r3;",
            "vset.s32.u32.lt %r1, %r2, %r3;",
        ),
        (
            "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f0, %f1, %f2, %f3}, {%r0, %r1, %r2, %r3}, {%r4, %r5}, {%f0, %f1, %f2, %f3};",
            "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f0, %f1, %f2, %f3}, {%r0, %r1, %r2, %r3}, {%r4, %r5}, {%f0, %f1, %f2, %f3};",
        ),
        (
            "mma.sync.aligned.m8n8k4.col.row.f32.f16.f16.f32 {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}, {%r0, %r1}, {%r2, %r3}, {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7};",
            "mma.sync.aligned.m8n8k4.col.row.f32.f16.f16.f32 {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}, {%r0, %r1}, {%r2, %r3}, {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7};",
        ),
        (
            "mma.sync.aligned.m8n8k4.row.row.f32.f16.f16.f16 {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}, {%r0, %r1}, {%r2, %r3}, {%r4, %r5, %r6, %r7};",
            "mma.sync.aligned.m8n8k4.row.row.f32.f16.f16.f16 {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}, {%r0, %r1}, {%r2, %r3}, {%r4, %r5, %r6, %r7};",
        ),
        (
            "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%r0, %r1}, [%r2];",
            "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%r0, %r1}, [%r2];",
        ),
        (
            "stmatrix.sync.aligned.m8n8.x1.shared::cta.b16 [%r2], {%r0};",
            "stmatrix.sync.aligned.m8n8.x1.shared.b16 [%r2], {%r0};",
        ),
        (
            "wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, [%rd1], %r0;",
            "wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, [%rd1], %r0;",
        ),
        (
            "wmma.store.d.sync.aligned.col.m16n16k16.f32 [%rd1], {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7};",
            "wmma.store.d.sync.aligned.col.m16n16k16.f32 [%rd1], {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7};",
        ),
        (
            "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}, {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7};",
            "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}, {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7};",
        ),
        (
            "wmma.mma.sync.aligned.row.col.m8n8k4.f64.f64.f64.f64 {%fd1, %fd2}, {%fd3}, {%fd4}, {%fd1, %fd2};",
            "wmma.mma.sync.aligned.row.col.m8n8k4.rn.f64.f64.f64.f64 {%fd1, %fd2}, {%fd3}, {%fd4}, {%fd1, %fd2};",
        ),
        (
            "lop3.b32 %r1, %r2, %r3, %r4, 0x80;",
            "lop3.b32 %r1, %r2, %r3, %r4, 128;",
        ),
        (
            "lop3.or.b32 %r1|%p1, %r2, %r3, %r4, 63, %p2;",
            "lop3.or.b32 %r1|%p1, %r2, %r3, %r4, 63, %p2;",
        ),
        ("cp.async.wait_group 2;", "cp.async.wait_group 2;"),
        ("cp.async.wait_all;", "cp.async.wait_all;"),
        ("max.ftz.f32 %f1, %f2, %f3;", "max.ftz.f32 %f1, %f2, %f3;"),
        (
            "copysign.f64 %fd1, %fd2, %fd3;",
            "copysign.f64 %fd1, %fd2, %fd3;",
        ),
        (
            "testp.notanumber.f32 %p1, %f1;",
            "testp.notanumber.f32 %p1, %f1;",
        ),
    ]);
}

#[test]
fn comparison_and_selection() {
    check(&[
        ("setp.lt.s32 %p1, %r1, %r2;", "setp.lt.s32 %p1, %r1, %r2;"),
        ("setp.geu.f32 %p1, %f1, %f2;", "setp.geu.f32 %p1, %f1, %f2;"),
        (
            "setp.nan.f64 %p1, %fd1, %fd2;",
            "setp.nan.f64 %p1, %fd1, %fd2;",
        ),
        (
            "setp.gt.and.s32 %p1|%p2, %r1, %r2, %p3;",
            "setp.gt.and.s32 %p1|%p2, %r1, %r2, %p3;",
        ),
        (
            "setp.ltu.or.ftz.f32 %p1|%p2, %f1, %f2, !%p3;",
            "setp.ltu.or.ftz.f32 %p1|%p2, %f1, %f2, !%p3;",
        ),
        (
            "setp.hi.u64 %p1, %rd1, %rd2;",
            "setp.hi.u64 %p1, %rd1, %rd2;",
        ),
        (
            "set.le.u32.f32 %r1, %f1, %f2;",
            "set.le.u32.f32 %r1, %f1, %f2;",
        ),
        (
            "set.eq.xor.f32.s32 %f1, %r1, %r2, %p1;",
            "set.eq.xor.f32.s32 %f1, %r1, %r2, %p1;",
        ),
        (
            "selp.b64 %rd1, %rd2, %rd3, %p1;",
            "selp.b64 %rd1, %rd2, %rd3, %p1;",
        ),
        (
            "slct.f32.s32 %f1, %f2, %f3, %r1;",
            "slct.f32.s32 %f1, %f2, %f3, %r1;",
        ),
    ]);
}

#[test]
fn conversion_and_movement() {
    check(&[
        ("cvt.rn.f32.s32 %f1, %r1;", "cvt.rn.f32.s32 %f1, %r1;"),
        (
            "cvt.rzi.sat.s32.f32 %r1, %f1;",
            "cvt.rzi.sat.s32.f32 %r1, %f1;",
        ),
        (
            "cvt.sat.rzi.s32.f32 %r1, %f1;",
            "cvt.rzi.sat.s32.f32 %r1, %f1;",
        ),
        ("cvt.rpi.f32.f32 %f1, %f2;", "cvt.rpi.f32.f32 %f1, %f2;"),
        ("cvt.f64.f32 %fd1, %f1;", "cvt.f64.f32 %fd1, %f1;"),
        (
            "cvt.rm.ftz.f32.f64 %f1, %fd1;",
            "cvt.rm.ftz.f32.f64 %f1, %fd1;",
        ),
        ("cvt.u32.u16 %r1, %rs1;", "cvt.u32.u16 %r1, %rs1;"),
        ("cvt.s64.s32 %rd1, %r1;", "cvt.s64.s32 %rd1, %r1;"),
        (
            "cvta.to.global.u64 %rd1, %rd2;",
            "cvta.to.global.u64 %rd1, %rd2;",
        ),
        ("cvta.shared.u64 %rd1, smem;", "cvta.shared.u64 %rd1, smem;"),
        ("mov.u32 %r1, %tid.y;", "mov.u32 %r1, %tid.y;"),
        ("mov.u64 %rd1, gvar;", "mov.u64 %rd1, gvar;"),
        ("mov.b64 %rd1, {%r1, %r2};", "mov.b64 %rd1, {%r1, %r2};"),
        ("mov.b64 {%r1, %r2}, %rd1;", "mov.b64 {%r1, %r2}, %rd1;"),
        ("mov.b32 %r1, {%rs1, %rs2};", "mov.b32 %r1, {%rs1, %rs2};"),
        ("mov.pred %p1, 1;", "mov.pred %p1, 1;"),
    ]);
}

#[test]
fn memory() {
    check(&[
        (
            "ld.global.f32 %f1, [%rd1+16];",
            "ld.global.f32 %f1, [%rd1+16];",
        ),
        (
            "ld.v4.global.f32 {%f1, %f2, %f3, %f4}, [%rd1];",
            "ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1];",
        ),
        (
            "ld.global.nc.v2.u32 {%r1, %r2}, [%rd1+-8];",
            "ld.global.nc.v2.u32 {%r1, %r2}, [%rd1-8];",
        ),
        (
            "ld.volatile.shared.u32 %r1, [smem+4];",
            "ld.volatile.shared.u32 %r1, [smem+4];",
        ),
        (
            "ld.acquire.gpu.global.u32 %r1, [%rd1];",
            "ld.acquire.gpu.global.u32 %r1, [%rd1];",
        ),
        (
            "ld.global.cg.u8 %rs1, [%rd1];",
            "ld.global.cg.u8 %rs1, [%rd1];",
        ),
        ("ld.global.s16 %r1, [%rd1];", "ld.global.s16 %r1, [%rd1];"),
        (
            "ld.local.u64 %rd1, [lmem+8];",
            "ld.local.u64 %rd1, [lmem+8];",
        ),
        ("ld.const.u32 %r1, [%rd1];", "ld.const.u32 %r1, [%rd1];"),
        ("ld.param.u64 %rd1, [k_p];", "ld.param.u64 %rd1, [k_p];"),
        ("ld.u32 %r1, [%rd1];", "ld.u32 %r1, [%rd1];"),
        (
            "ldu.global.v2.f32 {%f1, %f2}, [%rd1];",
            "ldu.global.v2.f32 {%f1, %f2}, [%rd1];",
        ),
        (
            "st.global.wt.f32 [%rd1], %f1;",
            "st.global.wt.f32 [%rd1], %f1;",
        ),
        (
            "st.release.sys.global.u32 [%rd1], %r1;",
            "st.release.sys.global.u32 [%rd1], %r1;",
        ),
        (
            "st.shared.v2.u32 [smem], {%r1, 7};",
            "st.shared.v2.u32 [smem], {%r1, 7};",
        ),
        ("st.local.u32 [lmem], %rd1;", "st.local.u32 [lmem], %rd1;"),
        (
            "atom.global.add.u32 %r1, [%rd1], 1;",
            "atom.global.add.u32 %r1, [%rd1], 1;",
        ),
        (
            "atom.shared.cas.b64 %rd1, [smem], %rd2, %rd3;",
            "atom.shared.cas.b64 %rd1, [smem], %rd2, %rd3;",
        ),
        (
            "atom.acq_rel.gpu.inc.u32 %r1, [%rd1], 10;",
            "atom.acq_rel.gpu.inc.u32 %r1, [%rd1], 10;",
        ),
        (
            "atom.global.add.f64 %fd1, [%rd1], %fd2;",
            "atom.global.add.f64 %fd1, [%rd1], %fd2;",
        ),
        (
            "red.global.max.s32 [%rd1], %r1;",
            "red.global.max.s32 [%rd1], %r1;",
        ),
    ]);
}

#[test]
fn synchronisation_warp_and_control() {
    check(&[
        ("bar.sync 0;", "bar.sync 0;"),
        ("bar.sync 1, 64;", "bar.sync 1, 64;"),
        ("barrier.sync.aligned 0;", "bar.sync 0;"),
        ("barrier.sync 0;", "barrier.sync 0;"),
        ("bar.arrive 1, 64;", "bar.arrive 1, 64;"),
        (
            "bar.red.popc.u32 %r1, 0, %p1;",
            "bar.red.popc.u32 %r1, 0, %p1;",
        ),
        (
            "bar.red.and.pred %p1, 0, 64, !%p2;",
            "bar.red.and.pred %p1, 0, 64, !%p2;",
        ),
        ("bar.warp.sync -1;", "bar.warp.sync -1;"),
        ("membar.gl;", "membar.gl;"),
        ("fence.acq_rel.gpu;", "fence.acq_rel.gpu;"),
        (
            "vote.sync.ballot.b32 %r1, %p1, -1;",
            "vote.sync.ballot.b32 %r1, %p1, -1;",
        ),
        (
            "vote.sync.all.pred %p1, !%p2, %r1;",
            "vote.sync.all.pred %p1, !%p2, %r1;",
        ),
        (
            "shfl.sync.bfly.b32 %r1|%p1, %r2, 16, 31, -1;",
            "shfl.sync.bfly.b32 %r1|%p1, %r2, 16, 31, -1;",
        ),
        (
            "shfl.sync.up.b32 %r1|_, %r2, 1, 0, -1;",
            "shfl.sync.up.b32 %r1|_, %r2, 1, 0, -1;",
        ),
        (
            "shfl.sync.idx.b32 %r1, %r2, %r3, 31, %r4;",
            "shfl.sync.idx.b32 %r1, %r2, %r3, 31, %r4;",
        ),
        (
            "match.all.sync.b64 %r1|%p1, %rd1, -1;",
            "match.all.sync.b64 %r1|%p1, %rd1, -1;",
        ),
        ("activemask.b32 %r1;", "activemask.b32 %r1;"),
        (
            "redux.sync.max.s32 %r1, %r2, -1;",
            "redux.sync.max.s32 %r1, %r2, -1;",
        ),
        (
            "redux.sync.min.abs.NaN.f32 %r1, %r2, %r3;",
            "redux.sync.min.abs.NaN.f32 %r1, %r2, %r3;",
        ),
        (
            "redux.sync.max.f32 %r1, %r2, -1;",
            "redux.sync.max.f32 %r1, %r2, -1;",
        ),
        ("elect.sync %r1|%p1, -1;", "elect.sync %r1|%p1, -1;"),
        ("elect.sync _|%p1, %r2;", "elect.sync _|%p1, %r2;"),
        ("fns.b32 %r1, %r2, %r3, -2;", "fns.b32 %r1, %r2, %r3, -2;"),
        ("barrier.cluster.arrive;", "barrier.cluster.arrive;"),
        ("barrier.cluster.arrive.release;", "barrier.cluster.arrive;"),
        (
            "barrier.cluster.arrive.relaxed.aligned;",
            "barrier.cluster.arrive.relaxed.aligned;",
        ),
        ("barrier.cluster.wait;", "barrier.cluster.wait;"),
        (
            "barrier.cluster.wait.acquire.aligned;",
            "barrier.cluster.wait.aligned;",
        ),
        ("mov.u32 %r1, %clusterid.y;", "mov.u32 %r1, %clusterid.y;"),
        ("mov.u32 %r1, %nclusterid.z;", "mov.u32 %r1, %nclusterid.z;"),
        (
            "mov.u32 %r1, %cluster_ctaid.x;",
            "mov.u32 %r1, %cluster_ctaid.x;",
        ),
        (
            "mov.u32 %r1, %cluster_nctaid.x;",
            "mov.u32 %r1, %cluster_nctaid.x;",
        ),
        (
            "mov.u32 %r1, %cluster_ctarank;",
            "mov.u32 %r1, %cluster_ctarank;",
        ),
        (
            "mov.u32 %r1, %cluster_nctarank;",
            "mov.u32 %r1, %cluster_nctarank;",
        ),
        (
            "mov.pred %p1, %is_explicit_cluster;",
            "mov.pred %p1, %is_explicit_cluster;",
        ),
        ("exit;", "exit;"),
        ("trap;", "trap;"),
    ]);
}
