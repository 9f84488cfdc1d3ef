//! PTX forms that CUDA 13's NVVM emits and hand-written suites use, each run under the
//! interpreter, the JIT and the timing model (under both engines) against values worked by
//! hand from the PTX ISA manual. Every kernel takes one `.u64` buffer `out` (read and written)
//! and its values are compared whole.

use emulator::{Engine, MemoryMap};
use runtime::{Arg, Device, DeviceConfig};

/// The four ways a launch runs: each engine alone and under the gtx480 timing model.
const RUNS: [(Engine, Option<&str>); 4] = [
    (Engine::Interpreter, None),
    (Engine::Jit, None),
    (Engine::Jit, Some("gtx480")),
    (Engine::Interpreter, Some("gtx480")),
];

/// A device for one of [`RUNS`], under `map` (the default map when `None`).
fn device(engine: Engine, timing: Option<&str>, map: Option<MemoryMap>) -> Device {
    Device::new(DeviceConfig {
        engine,
        timing: timing.map(|t| timing::GpuConfig::load(t, &[]).unwrap()),
        memory_map: map,
        ..DeviceConfig::default()
    })
    .unwrap()
}

/// Runs kernel `k` of `ptx` on one CTA of `block` threads with the buffer `out` and then
/// `extra` as its arguments, four ways ([`RUNS`]) on devices under `map`, and checks that each
/// leaves `want` in `out`.
#[track_caller]
pub fn check_runs(
    ptx: &str,
    map: Option<MemoryMap>,
    block: u32,
    extra: &[Arg],
    out: &[u32],
    want: &[u32],
) {
    for (engine, timing) in RUNS {
        let dev = device(engine, timing, map);
        let what = format!("{engine:?}, timing {timing:?}, map {map:?}");
        let k = dev
            .load_ptx("forms.ptx", ptx)
            .unwrap_or_else(|e| panic!("{what}: {e}"))
            .kernel("k")
            .unwrap();
        let buf = dev.alloc_from(out).unwrap();
        let mut args = vec![Arg::from(&buf)];
        args.extend_from_slice(extra);
        dev.launch(&k, 1, block, 0, &args)
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        let got = buf.to_host().unwrap();
        let hex = |v: &[u32]| v.iter().map(|x| format!("{x:#x}")).collect::<Vec<_>>();
        assert_eq!(hex(&got), hex(want), "{what}");
    }
}

/// [`check_runs`] on the default device, without further arguments.
#[track_caller]
pub fn check_everywhere(ptx: &str, block: u32, out: &[u32], want: &[u32]) {
    check_runs(ptx, None, block, &[], out, want);
}

/// `mov.pred %p, -1` (NVVM 13's "true") and other integer constants as predicates: zero is
/// false, anything else true, as the manual's "Predicate Constants" say.
#[test]
fn integer_constants_are_predicates() {
    let ptx = "
.version 8.8
.target sm_70
.address_size 64
.visible .entry k(.param .u64 out)
{
    .reg .pred %p<5>;
    .reg .b32 %r<6>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [out];
    mov.pred %p1, -1;
    mov.pred %p2, 0;
    mov.pred %p3, 2;
    selp.u32 %r1, 7, 9, %p1;
    selp.u32 %r2, 7, 9, %p2;
    selp.u32 %r3, 7, 9, %p3;
    selp.u32 %r4, 7, 9, -1;
    setp.ne.and.u32 %p4, %r1, 0, 0xff;
    selp.u32 %r5, 7, 9, %p4;
    st.global.v4.u32 [%rd1], {%r1, %r2, %r3, %r4};
    st.global.u32 [%rd1+16], %r5;
    ret;
}
";
    check_everywhere(ptx, 1, &[0; 5], &[7, 9, 7, 7, 7]);
}

/// `ld`, `st` and `cvt` with registers wider than the instruction type, as the manual's
/// "Operand Size Exceeding Instruction-Type Size" allows: a bit-size register with any type, a
/// float register with a narrower bit-size type. A wider source is truncated to the type; a
/// wider destination is zero-extended (sign-extended only for signed integer types).
#[test]
fn ld_st_and_cvt_take_registers_wider_than_their_type() {
    let ptx = "
.version 8.8
.target sm_70
.address_size 64
.visible .entry k(.param .u64 out)
{
    .reg .b16 %h<2>;
    .reg .b32 %r<4>;
    .reg .f32 %f<5>;
    .reg .b64 %rd<8>;
    .reg .f64 %fd<3>;
    .reg .v2 .f64 %vd;
    ld.param.u64 %rd1, [out];
    ld.global.f32 %rd2, [%rd1];
    st.global.u64 [%rd1+8], %rd2;
    mov.b64 %rd3, 0x123456783f800000;
    st.global.f32 [%rd1+16], %rd3;
    ld.global.b32 %fd1, [%rd1+4];
    st.global.b64 [%rd1+24], %fd1;
    mov.b32 %f1, 0x40490fdb;
    st.global.b16 [%rd1+32], %f1;
    ld.global.b16 %f2, [%rd1+36];
    st.global.b32 [%rd1+40], %f2;
    mov.b32 %r1, 0xffff3c00;
    cvt.f32.f16 %f3, %r1;
    st.global.f32 [%rd1+44], %f3;
    mov.b32 %f4, 0x40000000;
    cvt.rn.f16.f32 %r2, %f4;
    st.global.b32 [%rd1+48], %r2;
    mov.b32 %r3, -2;
    cvt.rn.f32.s32 %rd4, %r3;
    st.global.b64 [%rd1+56], %rd4;
    cvt.f64.f32 %fd2, %rd3;
    st.global.f64 [%rd1+64], %fd2;
    ld.global.v2.f32 {%rd5, %rd6}, [%rd1+80];
    st.global.v2.f32 [%rd1+88], {%rd5, %rd6};
    st.global.u64 [%rd1+96], %rd6;
    ld.global.v2.b32 %vd, [%rd1+80];
    st.global.v2.b64 [%rd1+112], %vd;
    ret;
}
";
    let mut out = [0x5555_5555u32; 32];
    out[0] = 0x3fc0_0000; // 1.5f
    out[1] = 0xdead_beef;
    out[8] = 0xaaaa_aaaa;
    out[9] = 0x1234_abcd;
    out[20] = 0x4040_0000; // 3.0f
    out[21] = 0xc080_0000; // -4.0f
    let mut want = out;
    // ld.f32 into a .b64: zero-extended.
    want[2..4].copy_from_slice(&[0x3fc0_0000, 0]);
    // st.f32 of a .b64: its low 32 bits.
    want[4] = 0x3f80_0000;
    // ld.b32 into a .f64: zero-extended.
    want[6..8].copy_from_slice(&[0xdead_beef, 0]);
    // st.b16 of a .f32: its low 16 bits, the rest of the word untouched.
    want[8] = 0xaaaa_0fdb;
    // ld.b16 into a .f32: zero-extended.
    want[10] = 0xabcd;
    // cvt.f32.f16 of a .b32: its low 16 bits, 0x3c00 = 1.0.
    want[11] = 0x3f80_0000;
    // cvt.rn.f16.f32 into a .b32: 2.0 is 0x4000, zero-extended.
    want[12] = 0x4000;
    // cvt.rn.f32.s32 into a .b64: -2.0f zero-extended.
    want[14..16].copy_from_slice(&[0xc000_0000, 0]);
    // cvt.f64.f32 of a .b64: the f32 in its low half, 1.0, is 0x3ff0000000000000.
    want[16..18].copy_from_slice(&[0, 0x3ff0_0000]);
    // ld.v2.f32 into .b64s and back; the second zero-extended.
    want[22..24].copy_from_slice(&[0x4040_0000, 0xc080_0000]);
    want[24..26].copy_from_slice(&[0xc080_0000, 0]);
    // ld.v2.b32 into a .v2.f64 vector register: each element zero-extended.
    want[28..32].copy_from_slice(&[0x4040_0000, 0, 0xc080_0000, 0]);
    check_everywhere(ptx, 1, &out, &want);
}

/// `.global` and `.const` variables declared in function bodies: module-scope storage (kept
/// from launch to launch, initialized once) whose names only their function sees, from their
/// declaration's scope on (an inner block's `g` hides the outer one).
const FUNCTION_GLOBALS: &str = "
.version 8.8
.target sm_70
.address_size 64
.func (.reg .u32 %o) bump()
{
    .global .align 4 .u32 count = 10;
    .reg .u32 %t;
    ld.global.u32 %t, [count];
    add.u32 %t, %t, 1;
    st.global.u32 [count], %t;
    mov.u32 %o, %t;
    ret;
}
.visible .entry k(.param .u64 out)
{
    .global .align 4 .u32 g[2] = {5, 6};
    .const .align 4 .u32 c = 7;
    .reg .u32 %r<9>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    ld.global.u32 %r1, [g+4];
    call (%r2), bump;
    call (%r3), bump;
    ld.const.u32 %r4, [c];
    {
        .global .align 4 .u32 g = 40;
        ld.global.u32 %r5, [g];
    }
    ld.global.u32 %r6, [g];
    mov.u64 %rd2, g;
    ld.global.u32 %r7, [%rd2+4];
    mov.u32 %r8, 0;
    st.global.v4.u32 [%rd1], {%r1, %r2, %r3, %r4};
    st.global.v4.u32 [%rd1+16], {%r5, %r6, %r7, %r8};
    ret;
}
";

#[test]
fn function_scope_global_variables_are_module_storage() {
    check_everywhere(FUNCTION_GLOBALS, 1, &[0; 8], &[6, 11, 12, 7, 40, 5, 6, 0]);
    // The storage outlives a launch: a second one counts on from 12; the host names the
    // variable `function.name`.
    let dev = Device::new(DeviceConfig::default()).unwrap();
    let module = dev.load_ptx("forms.ptx", FUNCTION_GLOBALS).unwrap();
    let k = module.kernel("k").unwrap();
    let buf = dev.alloc::<u32>(8).unwrap();
    for _ in 0..2 {
        dev.launch(&k, 1, 1, 0, &[Arg::from(&buf)]).unwrap();
    }
    assert_eq!(buf.to_host().unwrap(), [6, 13, 14, 7, 40, 5, 6, 0]);
    assert_eq!(
        module.read_symbol("bump.count").unwrap(),
        14u32.to_le_bytes()
    );
    assert_eq!(module.read_symbol("k.c").unwrap(), 7u32.to_le_bytes());
}

/// `.reg` parameters and results of predicate and vector type, several of each: a predicate
/// travels as 0 or 1 (an integer constant argument as a predicate constant), a vector register
/// as its elements.
#[test]
fn reg_parameters_of_predicate_and_vector_type() {
    let ptx = "
.version 8.8
.target sm_70
.address_size 64
.func (.reg .pred %pr, .reg .v2 .f32 %rv, .reg .u32 %n) f(.reg .pred %pa, .reg .v2 .f32 %v, .reg .v4 .b32 %q)
{
    .reg .pred %t;
    setp.lt.f32 %t, %v.x, %v.y;
    and.pred %pr, %t, %pa;
    add.f32 %rv.x, %v.x, %v.y;
    sub.f32 %rv.y, %v.x, %v.y;
    @%pa add.u32 %n, %q.x, %q.w;
    @!%pa sub.u32 %n, %q.w, %q.y;
    ret;
}
.visible .entry k(.param .u64 out)
{
    .reg .pred %p<4>;
    .reg .v2 .f32 %w<4>;
    .reg .v4 .b32 %q;
    .reg .b32 %r<8>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [out];
    mov.f32 %w0.x, 0f3F800000;
    mov.f32 %w0.y, 0f40000000;
    mov.f32 %w1.x, 0f40A00000;
    mov.f32 %w1.y, 0f40800000;
    mov.v4.b32 %q, {3, 5, 7, 40};
    setp.eq.u32 %p1, 0, 0;
    call (%p2, %w2, %r1), f, (%p1, %w0, %q);
    call (%p3, %w3, %r2), f, (0, %w1, %q);
    selp.u32 %r3, 1, 0, %p2;
    selp.u32 %r4, 1, 0, %p3;
    st.global.v4.u32 [%rd1], {%r3, %r4, %r1, %r2};
    st.global.v2.f32 [%rd1+16], %w2;
    st.global.v2.f32 [%rd1+24], %w3;
    ret;
}
";
    // f(true, (1, 2), q): 1 < 2 and true; (3, -1); 3 + 40. f(0, (5, 4), q): false; (9, 1);
    // 40 - 5.
    check_everywhere(
        ptx,
        1,
        &[0; 8],
        &[
            1,
            0,
            43,
            35,
            0x4040_0000,
            0xbf80_0000,
            0x4110_0000,
            0x3f80_0000,
        ],
    );
}

/// `.b128` registers: packed from 8 × 16, 4 × 32 or 2 × 64-bit elements and unpacked into
/// them (`_` discarding some; a `.vN` vector register named whole as the elements), loaded and
/// stored whole, passed to and returned from a `.func` in `.reg` parameters. The elements are in order from the low bits (the manual's pack and
/// unpack), and the register's bytes are little-endian in memory.
#[test]
fn b128_registers_pack_unpack_load_store_and_pass() {
    let ptx = "
.version 8.8
.target sm_80
.address_size 64
.func (.reg .b128 %o) swap(.reg .b128 %i)
{
    .reg .b64 %a<2>;
    mov.b128 {%a0, %a1}, %i;
    mov.b128 %o, {%a1, %a0};
    ret;
}
.visible .entry k(.param .u64 out)
{
    .reg .b16 %h<8>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    .reg .b128 %q<4>;
    .reg .v4 .b32 %v;
    .reg .v2 .b32 %u;
    ld.param.u64 %rd1, [out];
    mov.b16 %h0, 0x0100;
    mov.b16 %h1, 0x0302;
    mov.b16 %h2, 0x0504;
    mov.b16 %h3, 0x0706;
    mov.b16 %h4, 0x0908;
    mov.b16 %h5, 0x0b0a;
    mov.b16 %h6, 0x0d0c;
    mov.b16 %h7, 0x0f0e;
    mov.b128 %q0, {%h0, %h1, %h2, %h3, %h4, %h5, %h6, %h7};
    st.global.b128 [%rd1], %q0;
    ld.global.b128 %q1, [%rd1+16];
    mov.b128 {%r0, %r1, %r2, %r3}, %q1;
    st.global.v4.u32 [%rd1+32], {%r3, %r2, %r1, %r0};
    mov.b128 {%rd2, %rd3}, %q1;
    mov.b128 %q2, {%rd3, %rd2};
    st.global.b128 [%rd1+48], %q2;
    mov.b128 {%h0, %h1, _, _, _, _, %h6, _}, %q1;
    mov.b32 %r4, {%h0, %h6};
    mov.b32 %r5, {%h1, %h1};
    st.global.v2.u32 [%rd1+64], {%r4, %r5};
    call (%q3), swap, (%q1);
    st.global.b128 [%rd1+80], %q3;
    mov.b64 %rd2, {%h7, %h6, %h5, %h4, %h3, %h2, %h1, %h0};
    st.global.u64 [%rd1+96], %rd2;
    mov.b64 {%h0, %h1, %h2, %h3, %h4, %h5, %h6, %h7}, %rd2;
    mov.b64 %rd3, {%h1, %h0, %h3, %h2, %h5, %h4, %h7, %h6};
    st.global.u64 [%rd1+104], %rd3;
    mov.b128 %v, %q1;
    st.global.v4.u32 [%rd1+112], {%v.w, %v.z, %v.y, %v.x};
    mov.b128 {_, %rd3}, %q1;
    mov.b64 %u, %rd3;
    mov.b64 %rd2, %u;
    st.global.v2.u32 [%rd1+128], {%u.y, %u.x};
    st.global.u64 [%rd1+136], %rd2;
    ret;
}
";
    let mut out = [0u32; 36];
    out[4..8].copy_from_slice(&[0xa0a1_a2a3, 0xb0b1_b2b3, 0xc0c1_c2c3, 0xd0d1_d2d3]);
    let mut want = out;
    // Eight halves, the first lowest: bytes 0x00 to 0x0f in order.
    want[0..4].copy_from_slice(&[0x0302_0100, 0x0706_0504, 0x0b0a_0908, 0x0f0e_0d0c]);
    // Four words, stored in reverse.
    want[8..12].copy_from_slice(&[0xd0d1_d2d3, 0xc0c1_c2c3, 0xb0b1_b2b3, 0xa0a1_a2a3]);
    // The two 64-bit halves swapped.
    let swapped = [0xc0c1_c2c3, 0xd0d1_d2d3, 0xa0a1_a2a3, 0xb0b1_b2b3];
    want[12..16].copy_from_slice(&swapped);
    // Halves 0, 1 and 6 of the loaded value: 0xa2a3, 0xa0a1, 0xd2d3.
    want[16..18].copy_from_slice(&[0xd2d3_a2a3, 0xa0a1_a0a1]);
    // Through the `.func`.
    want[20..24].copy_from_slice(&swapped);
    // Eight 8-bit elements (the low bytes of 16-bit registers) into a `.b64`, first lowest:
    // %h7..%h0 hold 0x0f0e, 0xd2d3 (unpacked above), 0x0b0a, 0x0908, 0x0706, 0x0504, 0xa0a1,
    // 0xa2a3, so bytes 0e d3 0a 08 06 04 a1 a3. Unpacked (each byte zero-extended) and packed
    // again with neighbours swapped: d3 0e 08 0a 04 06 a3 a1.
    want[24..26].copy_from_slice(&[0x080a_d30e, 0xa3a1_0406]);
    want[26..28].copy_from_slice(&[0x0a08_0ed3, 0xa1a3_0604]);
    // Unpacked into a `.v4.b32` vector register named whole, stored in reverse; the high half
    // unpacked into a `.v2.b32` named whole (stored swapped) and packed from it again.
    want[28..32].copy_from_slice(&[0xd0d1_d2d3, 0xc0c1_c2c3, 0xb0b1_b2b3, 0xa0a1_a2a3]);
    want[32..36].copy_from_slice(&[0xd0d1_d2d3, 0xc0c1_c2c3, 0xc0c1_c2c3, 0xd0d1_d2d3]);
    check_everywhere(ptx, 1, &out, &want);
}

/// Vector-register components wherever a register list or a `d|p` pair takes registers:
/// `ldmatrix`'s fragment, `lop3`'s `d|p`, a vector store.
#[test]
fn vector_register_components_as_operands() {
    let ptx = "
.version 8.8
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{
    .shared .align 16 .b16 sm[256];
    .reg .pred %p<2>;
    .reg .v4 .b32 %x;
    .reg .v2 .b32 %y;
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    shl.b32 %r2, %r1, 4;
    mov.u32 %r3, sm;
    add.u32 %r4, %r3, %r2;
    shl.b32 %r5, %r1, 3;
    mul.lo.u32 %r6, %r5, 0x00010001;
    add.u32 %r6, %r6, 0x00010000;
    st.shared.u32 [%r4], %r6;
    add.u32 %r6, %r6, 0x00020002;
    st.shared.u32 [%r4+4], %r6;
    add.u32 %r6, %r6, 0x00020002;
    st.shared.u32 [%r4+8], %r6;
    add.u32 %r6, %r6, 0x00020002;
    st.shared.u32 [%r4+12], %r6;
    bar.sync 0;
    ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%x.x, %x.y, %x.z, %x.w}, [%r4];
    mul.wide.u32 %rd2, %r1, 32;
    add.s64 %rd3, %rd1, %rd2;
    st.global.v4.u32 [%rd3], {%x.x, %x.y, %x.z, %x.w};
    lop3.and.b32 %y.y|%p1, %r5, 0xff, 0x3c, 0x80, 1;
    selp.u32 %y.x, 1, 0, %p1;
    st.global.v2.u32 [%rd3+16], %y;
    ret;
}
";
    // Thread t wrote the 16-bit values 8t .. 8t+7 at sm + 16t, so matrix j's row r (thread
    // 8j + r's address) holds 64j + 8r .. 64j + 8r + 7, and lane l's register j holds row
    // l / 4, elements 2(l % 4) and the next: 64j + 8(l / 4) + 2(l % 4), plus one above.
    // `lop3.and` (LUT 0x80: a & b & c) of 8t, 0xff, 0x3c is 8t & 0x3c; p is that != 0 and 1.
    let mut want = Vec::new();
    for l in 0u32..32 {
        for j in 0..4 {
            let e = 64 * j + 8 * (l / 4) + 2 * (l % 4);
            want.push(e | (e + 1) << 16);
        }
        let d = (8 * l) & 0x3c;
        want.extend([u32::from(d != 0), d, 0, 0]);
    }
    check_everywhere(ptx, 32, &[0; 32 * 8], &want);
}
