//! The host API and the memory spaces end to end: module symbols, constant and initialized
//! global tables, shared memory with barriers, dynamic shared memory, local arrays, generic
//! addressing, atomics, device-function calls and warp shuffles.

use runtime::{Arg, Device, DeviceConfig};

const PTX: &str = r#"
.version 8.8
.target sm_70
.address_size 64

.const .align 4 .u32 coeff[4];
.global .align 4 .u32 table[4] = {10, 20, 30, 40};
.global .align 4 .u32 counter;

// out[t] = coeff[t % 4] * table[t % 4]; every thread also bumps `counter`.
.visible .entry tables(.param .u64 out)
{
    .reg .b32 %r<8>;
    .reg .b64 %rd<8>;
    mov.u32 %r1, %tid.x;
    and.b32 %r2, %r1, 3;
    mul.wide.u32 %rd1, %r2, 4;
    mov.u64 %rd2, coeff;
    add.s64 %rd3, %rd2, %rd1;
    ld.const.u32 %r3, [%rd3];
    mov.u64 %rd4, table;
    add.s64 %rd5, %rd4, %rd1;
    ld.global.u32 %r4, [%rd5];
    mul.lo.s32 %r5, %r3, %r4;
    ld.param.u64 %rd6, [out];
    mul.wide.u32 %rd7, %r1, 4;
    add.s64 %rd6, %rd6, %rd7;
    st.global.u32 [%rd6], %r5;
    atom.global.add.u32 %r6, [counter], 1;
    ret;
}

// Block sum through static shared memory: sum[ctaid] = Σ in[t] over the CTA's 128 threads.
.visible .entry block_sum(.param .u64 in, .param .u64 sum)
{
    .reg .pred %p<3>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<8>;
    .shared .align 4 .b8 buf[512];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    mad.lo.s32 %r3, %r2, 128, %r1;
    ld.param.u64 %rd1, [in];
    mul.wide.u32 %rd2, %r3, 4;
    add.s64 %rd3, %rd1, %rd2;
    ld.global.u32 %r4, [%rd3];
    mov.u64 %rd4, buf;
    mul.wide.u32 %rd5, %r1, 4;
    add.s64 %rd6, %rd4, %rd5;
    st.shared.u32 [%rd6], %r4;
    bar.sync 0;
    mov.u32 %r5, 64;
$LOOP:
    setp.ge.u32 %p1, %r1, %r5;
    @%p1 bra $SKIP;
    ld.shared.u32 %r6, [%rd6];
    shl.b32 %r7, %r5, 2;
    cvt.u64.u32 %rd7, %r7;
    add.s64 %rd7, %rd6, %rd7;
    ld.shared.u32 %r8, [%rd7];
    add.s32 %r6, %r6, %r8;
    st.shared.u32 [%rd6], %r6;
$SKIP:
    bar.sync 0;
    shr.u32 %r5, %r5, 1;
    setp.ne.u32 %p2, %r5, 0;
    @%p2 bra $LOOP;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra $END;
    ld.shared.u32 %r9, [buf];
    ld.param.u64 %rd1, [sum];
    mul.wide.u32 %rd2, %r2, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r9;
$END:
    ret;
}

// Dynamic shared memory, a local array, generic addressing and a call:
// out[t] = add1(reverse-of-warp(t)) via shared, with a round trip through a local array.
.extern .shared .align 4 .b8 dyn[];

.func (.param .b32 r) add1(.param .b32 a)
{
    .reg .b32 %r<3>;
    ld.param.b32 %r1, [a];
    add.s32 %r2, %r1, 1;
    st.param.b32 [r], %r2;
    ret;
}

.visible .entry spaces(.param .u64 out)
{
    .local .align 4 .b8 depot[16];
    .reg .b32 %r<10>;
    .reg .b64 %rd<10>;
    mov.u32 %r1, %tid.x;
    mov.u64 %rd1, dyn;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.shared.u32 [%rd3], %r1;
    bar.sync 0;
    mov.u32 %r2, 31;
    sub.s32 %r3, %r2, %r1;
    mul.wide.u32 %rd4, %r3, 4;
    add.s64 %rd5, %rd1, %rd4;
    cvta.shared.u64 %rd6, %rd5;
    ld.u32 %r4, [%rd6];
    mov.u64 %rd7, depot;
    cvta.local.u64 %rd8, %rd7;
    st.u32 [%rd8+8], %r4;
    ld.local.u32 %r5, [depot+8];
    {
    .param .b32 arg;
    st.param.b32 [arg], %r5;
    .param .b32 res;
    call.uni (res), add1, (arg);
    ld.param.b32 %r6, [res];
    }
    ld.param.u64 %rd9, [out];
    add.s64 %rd9, %rd9, %rd2;
    st.global.u32 [%rd9], %r6;
    ret;
}

// Warp shuffle reduction and ballot: out[t] = Σ lanes (for every lane), ballot of odd lanes.
.visible .entry warp_ops(.param .u64 out, .param .u64 ballots)
{
    .reg .pred %p<3>;
    .reg .b32 %r<10>;
    .reg .b64 %rd<6>;
    mov.u32 %r1, %laneid;
    mov.u32 %r2, %r1;
    shfl.sync.bfly.b32 %r3|%p1, %r2, 16, 31, -1;
    add.s32 %r2, %r2, %r3;
    shfl.sync.bfly.b32 %r3|%p1, %r2, 8, 31, -1;
    add.s32 %r2, %r2, %r3;
    shfl.sync.bfly.b32 %r3|%p1, %r2, 4, 31, -1;
    add.s32 %r2, %r2, %r3;
    shfl.sync.bfly.b32 %r3|%p1, %r2, 2, 31, -1;
    add.s32 %r2, %r2, %r3;
    shfl.sync.bfly.b32 %r3|%p1, %r2, 1, 31, -1;
    add.s32 %r2, %r2, %r3;
    and.b32 %r4, %r1, 1;
    setp.ne.u32 %p2, %r4, 0;
    vote.sync.ballot.b32 %r5, %p2, -1;
    mov.u32 %r6, %tid.x;
    ld.param.u64 %rd1, [out];
    mul.wide.u32 %rd2, %r6, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r2;
    ld.param.u64 %rd4, [ballots];
    add.s64 %rd5, %rd4, %rd2;
    st.global.u32 [%rd5], %r5;
    ret;
}

// The legacy forms without `.sync` (deprecated in PTX ISA 6.0), among the active threads:
// a ballot of odd lanes taken by lanes 0-15 only, then by every lane a shuffle down by one
// and a vote on lane 5. Three words per thread.
.visible .entry legacy_warp_ops(.param .u64 out)
{
    .reg .pred %p<5>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    mov.u32 %r1, %laneid;
    mov.u32 %r5, 0;
    setp.ge.u32 %p3, %r1, 16;
    @%p3 bra $L_joined;
    and.b32 %r2, %r1, 1;
    setp.ne.u32 %p1, %r2, 0;
    vote.ballot.b32 %r5, %p1;
$L_joined:
    shfl.down.b32 %r3, %r1, 1, 31;
    setp.eq.u32 %p4, %r1, 5;
    vote.any.pred %p2, %p4;
    selp.u32 %r4, 1, 0, %p2;
    mov.u32 %r6, %tid.x;
    ld.param.u64 %rd1, [out];
    mul.wide.u32 %rd2, %r6, 12;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r5;
    st.global.u32 [%rd3+4], %r3;
    st.global.u32 [%rd3+8], %r4;
    ret;
}

// Barrier reductions and warp-wide match/redux/activemask: six words per thread.
.visible .entry sync_ops(.param .u64 out)
{
    .reg .pred %p<4>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<4>;
    mov.u32 %r1, %tid.x;
    and.b32 %r2, %r1, 3;
    setp.eq.u32 %p1, %r2, 0;
    bar.red.popc.u32 %r3, 0, %p1;
    bar.red.and.pred %p2, 1, %p1;
    bar.red.or.pred %p3, 2, %p1;
    selp.u32 %r4, 1, 0, %p2;
    selp.u32 %r5, 1, 0, %p3;
    and.b32 %r6, %r1, 7;
    match.any.sync.b32 %r7, %r6, -1;
    redux.sync.add.u32 %r8, %r1, -1;
    activemask.b32 %r9;
    ld.param.u64 %rd1, [out];
    mul.wide.u32 %rd2, %r1, 24;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r3;
    st.global.u32 [%rd3+4], %r4;
    st.global.u32 [%rd3+8], %r5;
    st.global.u32 [%rd3+12], %r7;
    st.global.u32 [%rd3+16], %r8;
    st.global.u32 [%rd3+20], %r9;
    ret;
}
"#;

fn setup() -> (Device, runtime::Module) {
    let dev = Device::new(DeviceConfig {
        host_threads: 2,
        ..DeviceConfig::default()
    })
    .unwrap();
    let m = dev.load_ptx("api.ptx", PTX).unwrap();
    (dev, m)
}

#[test]
fn symbols_constant_and_initialized_tables_and_atomics() {
    let (dev, m) = setup();
    let coeff: Vec<u8> = [1u32, 2, 3, 4]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    m.write_symbol("coeff", 0, &coeff).unwrap();
    assert_eq!(m.read_symbol("coeff").unwrap(), coeff);
    let out = dev.alloc::<u32>(256).unwrap();
    dev.launch(&m.kernel("tables").unwrap(), 4, 64, 0, &[(&out).into()])
        .unwrap();
    let expected: Vec<u32> = (0..256).map(|t| (t % 4 + 1) * 10 * (t % 4 + 1)).collect();
    // Only the first 64 threads' slots are per-thread unique: every CTA writes out[tid].
    assert_eq!(out.to_host().unwrap()[..64], expected[..64]);
    assert_eq!(
        m.read_symbol("counter").unwrap(),
        256u32.to_le_bytes(),
        "every thread's atomic add counted"
    );
    assert_eq!(
        m.write_symbol("coeff", 12, &[0; 8])
            .unwrap_err()
            .to_string(),
        "invalid value: 8 bytes at offset 12 overflow symbol `coeff` of 16 bytes"
    );
    assert_eq!(
        m.read_symbol("nope").unwrap_err().to_string(),
        "invalid value: no symbol `nope` in api.ptx"
    );
}

#[test]
fn shared_memory_reduction_with_barriers() {
    let (dev, m) = setup();
    let input: Vec<u32> = (0..512).map(|i| i * 3 + 1).collect();
    let din = dev.alloc_from(&input).unwrap();
    let sums = dev.alloc::<u32>(4).unwrap();
    dev.launch(
        &m.kernel("block_sum").unwrap(),
        4,
        128,
        0,
        &[(&din).into(), (&sums).into()],
    )
    .unwrap();
    let expected: Vec<u32> = input.chunks(128).map(|c| c.iter().sum()).collect();
    assert_eq!(sums.to_host().unwrap(), expected);
}

#[test]
fn dynamic_shared_local_generic_and_calls() {
    let (dev, m) = setup();
    let out = dev.alloc::<u32>(32).unwrap();
    dev.launch(&m.kernel("spaces").unwrap(), 1, 32, 128, &[(&out).into()])
        .unwrap();
    assert_eq!(
        out.to_host().unwrap(),
        (0..32).map(|t| 31 - t + 1).collect::<Vec<u32>>()
    );
}

#[test]
fn warp_shuffles_and_ballots() {
    let (dev, m) = setup();
    let out = dev.alloc::<u32>(64).unwrap();
    let ballots = dev.alloc::<u32>(64).unwrap();
    dev.launch(
        &m.kernel("warp_ops").unwrap(),
        1,
        64,
        0,
        &[Arg::from(&out), Arg::from(&ballots)],
    )
    .unwrap();
    assert_eq!(out.to_host().unwrap(), vec![(0..32).sum::<u32>(); 64]);
    assert_eq!(ballots.to_host().unwrap(), vec![0xAAAA_AAAA; 64]);
}

#[test]
fn legacy_votes_and_shuffles_work_among_the_active_threads() {
    let (dev, m) = setup();
    let out = dev.alloc::<u32>(3 * 32).unwrap();
    dev.launch(
        &m.kernel("legacy_warp_ops").unwrap(),
        1,
        32,
        0,
        &[Arg::from(&out)],
    )
    .unwrap();
    let got = out.to_host().unwrap();
    for lane in 0..32u32 {
        let word = |k: u32| got[(3 * lane + k) as usize];
        let ballot = if lane < 16 { 0x0000_AAAA } else { 0 };
        assert_eq!(
            word(0),
            ballot,
            "lane {lane}: ballot of the lanes that voted"
        );
        assert_eq!(word(1), (lane + 1).min(31), "lane {lane}: shfl.down by one");
        assert_eq!(word(2), 1, "lane {lane}: vote.any");
    }
}

#[test]
fn barrier_reductions_and_warp_collectives() {
    let (dev, m) = setup();
    let out = dev.alloc::<u32>(64 * 6).unwrap();
    dev.launch(&m.kernel("sync_ops").unwrap(), 1, 64, 0, &[(&out).into()])
        .unwrap();
    let got = out.to_host().unwrap();
    for t in 0..64u32 {
        let lane = t % 32;
        let warp_sum: u32 = (t - lane..t - lane + 32).sum();
        let expected = [16, 0, 1, 0x0101_0101 << (lane & 7), warp_sum, u32::MAX];
        assert_eq!(
            got[t as usize * 6..t as usize * 6 + 6],
            expected,
            "thread {t}"
        );
    }
}

/// A device function with `.reg` parameters and two `.reg` return values (one returned early
/// under a predicate), called with registers and an immediate.
const REG_PARAMS: &str = r#"
.version 7.8
.target sm_70
.address_size 64

.func (.reg .u32 %sum, .reg .f32 %scaled) combine(.reg .u32 %a, .reg .u32 %b, .reg .f32 %x)
{
    .reg .pred %p;
    add.u32 %sum, %a, %b;
    setp.gt.u32 %p, %sum, 100;
    mul.f32 %scaled, %x, 0f40000000;
    @%p ret;
    add.u32 %sum, %sum, 1000;
}

.visible .entry k(.param .u64 out)
{
    .reg .u32 %r<4>;
    .reg .f32 %f<3>;
    .reg .u64 %rd<3>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    cvt.rn.f32.u32 %f1, %r1;
    call.uni (%r2, %f2), combine, (%r1, 95, %f1);
    mul.wide.u32 %rd2, %r1, 8;
    add.u64 %rd2, %rd1, %rd2;
    st.global.u32 [%rd2], %r2;
    st.global.f32 [%rd2+4], %f2;
    ret;
}
"#;

#[test]
fn reg_parameters_and_multiple_return_values() {
    let expected: Vec<u32> = (0..32u32)
        .flat_map(|t| {
            let sum = t + 95;
            [
                if sum > 100 { sum } else { sum + 1000 },
                (2.0 * t as f32).to_bits(),
            ]
        })
        .collect();
    for config in each_engine() {
        let what = format!("{:?}, timing {}", config.engine, config.timing.is_some());
        let dev = Device::new(config).unwrap();
        let m = dev.load_ptx("reg_params.ptx", REG_PARAMS).unwrap();
        let out = dev.alloc::<u32>(64).unwrap();
        dev.launch(&m.kernel("k").unwrap(), 1, 32, 0, &[(&out).into()])
            .unwrap();
        assert_eq!(out.to_host().unwrap(), expected, "{what}");
    }
}

/// Vector registers: a `.v4` loaded and stored whole and by component, a range of `.v2`
/// registers, and vector moves from a list, from a vector and between overlapping elements.
const VECTOR_REGS: &str = r#"
.version 7.8
.target sm_70
.address_size 64
.visible .entry k(.param .u64 out)
{
    .reg .v4 .f32 %v;
    .reg .v2 .u32 %w<2>;
    .reg .u32 %r<3>;
    .reg .u64 %rd<3>;
    ld.param.u64 %rd1, [out];
    ld.global.v4.f32 %v, [%rd1];
    add.f32 %v.x, %v.y, %v.z;
    mov.u32 %r1, %tid.x;
    mov.v2.u32 %w0, {%r1, 7};
    mov.v2.u32 %w1, %w0;
    mov.v2.u32 {%w1.x, %w1.y}, {%w1.y, %w1.x};
    st.global.v4.f32 [%rd1+16], %v;
    mul.wide.u32 %rd2, %r1, 8;
    add.u64 %rd2, %rd1, %rd2;
    st.global.v2.u32 [%rd2+32], %w1;
    ret;
}
"#;

#[test]
fn vector_registers_load_store_and_move_whole() {
    let dev = Device::new(DeviceConfig::default()).unwrap();
    let m = dev.load_ptx("vectors.ptx", VECTOR_REGS).unwrap();
    let mut init = vec![0u32; 16];
    init[..4].copy_from_slice(&[1.0f32, 2.0, 3.0, 4.0].map(f32::to_bits));
    let out = dev.alloc_from(&init).unwrap();
    dev.launch(&m.kernel("k").unwrap(), 1, 4, 0, &[(&out).into()])
        .unwrap();
    let got = out.to_host().unwrap();
    assert_eq!(got[4..8], [5.0f32, 2.0, 3.0, 4.0].map(f32::to_bits));
    // Each thread's %w1 is {7, tid}: the swap read both elements before writing either.
    assert_eq!(got[8..16], [7, 0, 7, 1, 7, 2, 7, 3]);
}

/// The JIT, the interpreter, and the timing model (gtx480).
fn each_engine() -> [DeviceConfig; 3] {
    let with = |engine, timing| DeviceConfig {
        engine,
        timing,
        ..DeviceConfig::default()
    };
    [
        with(emulator::Engine::Jit, None),
        with(emulator::Engine::Interpreter, None),
        with(
            emulator::Engine::Jit,
            Some(timing::GpuConfig::preset("gtx480")),
        ),
    ]
}

/// `.v8` accesses: 256-bit global ones (sm_100's `.v8.f32` and `.v4.u64`), each thread's 64
/// bytes written back with the elements reversed, and 128- and 64-bit ones (`.v8.b16` through
/// shared memory, `.v8.u8`).
const V8_ACCESSES: &str = r#"
.version 8.8
.target sm_100
.address_size 64
.visible .entry k(.param .u64 in, .param .u64 out, .param .u64 bytes)
{
    .shared .align 16 .b8 s[512];
    .reg .f32 %f<9>;
    .reg .b16 %h<9>;
    .reg .u32 %r<3>;
    .reg .u64 %rd<10>;
    ld.param.u64 %rd1, [in];
    ld.param.u64 %rd2, [out];
    ld.param.u64 %rd3, [bytes];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd8, %r1, 64;
    add.u64 %rd1, %rd1, %rd8;
    add.u64 %rd2, %rd2, %rd8;
    ld.global.v8.f32 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, [%rd1];
    st.global.v8.f32 [%rd2+32], {%f8, %f7, %f6, %f5, %f4, %f3, %f2, %f1};
    ld.global.v4.u64 {%rd4, %rd5, %rd6, %rd7}, [%rd1+32];
    st.global.v4.u64 [%rd2], {%rd7, %rd6, %rd5, %rd4};
    ld.global.v8.u8 {%h1, %h2, %h3, %h4, %h5, %h6, %h7, %h8}, [%rd1];
    mul.lo.u32 %r2, %r1, 16;
    mov.u32 %r0, s;
    add.u32 %r2, %r2, %r0;
    st.shared.v8.b16 [%r2], {%h8, %h7, %h6, %h5, %h4, %h3, %h2, %h1};
    ld.shared.v8.b16 {%h1, %h2, %h3, %h4, %h5, %h6, %h7, %h8}, [%r2];
    mul.wide.u32 %rd9, %r1, 8;
    add.u64 %rd3, %rd3, %rd9;
    st.global.v8.u8 [%rd3], {%h1, %h2, %h3, %h4, %h5, %h6, %h7, %h8};
    ret;
}
"#;

#[test]
fn v8_and_256_bit_accesses() {
    let input: Vec<u32> = (0..32 * 16)
        .map(|i| i * 0x0101_0101 + 0x0403_0201)
        .collect();
    let mut expected = vec![0u32; 32 * 16];
    let mut bytes: Vec<u8> = Vec::new();
    for (t, chunk) in input.chunks(16).enumerate() {
        let out = &mut expected[t * 16..][..16];
        // Words 8..16 were four u64s; they come back in reverse order of u64s.
        for (i, pair) in chunk[8..].chunks(2).rev().enumerate() {
            out[2 * i..][..2].copy_from_slice(pair);
        }
        for (i, w) in chunk[..8].iter().rev().enumerate() {
            out[8 + i] = *w;
        }
        let first: Vec<u8> = chunk[..2].iter().flat_map(|w| w.to_le_bytes()).collect();
        bytes.extend(first.iter().rev());
    }
    for config in each_engine() {
        let what = format!("{:?}, timing {}", config.engine, config.timing.is_some());
        let dev = Device::new(config).unwrap();
        let m = dev.load_ptx("v8.ptx", V8_ACCESSES).unwrap();
        let inp = dev.alloc_from(&input).unwrap();
        let out = dev.alloc::<u32>(32 * 16).unwrap();
        let b = dev.alloc::<u8>(32 * 8).unwrap();
        let args = [(&inp).into(), (&out).into(), (&b).into()];
        dev.launch(&m.kernel("k").unwrap(), 1, 32, 0, &args)
            .unwrap();
        assert_eq!(out.to_host().unwrap(), expected, "{what}");
        assert_eq!(b.to_host().unwrap(), bytes, "{what}");
    }
}

/// sm_90's vector atomics: every lane of a warp adds, maximises or minimises into the same
/// elements; each element is its own atomic operation.
const VECTOR_ATOMICS: &str = r#"
.version 8.8
.target sm_90
.address_size 64
.visible .entry k(.param .u64 f32s, .param .u64 halves)
{
    .reg .b32 %r<6>;
    .reg .f32 %f<6>;
    .reg .b16 %h<10>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [f32s];
    ld.param.u64 %rd2, [halves];
    mov.u32 %r1, %tid.x;
    cvt.rn.f32.u32 %f1, %r1;
    atom.global.v4.f32.add {%f2, %f3, %f4, %f5}, [%rd1], {%f1, %f1, %f1, %f1};
    red.global.v4.f32.add [%rd1+16], {%f1, %f1, %f1, %f1};
    cvt.rn.f16.u32 %h1, %r1;
    atom.global.v8.f16.max.noftz {%h2, %h3, %h4, %h5, %h6, %h7, %h8, %h9}, [%rd2], {%h1, %h1, %h1, %h1, %h1, %h1, %h1, %h1};
    mov.b32 %r2, {%h1, %h1};
    atom.global.v2.f16x2.min.noftz {%r3, %r4}, [%rd2+16], {%r2, %r2};
    ret;
}
"#;

#[test]
fn vector_atomics_operate_per_element() {
    let f16 = |x: u16| -> u16 {
        // Small integers as f16: 2^e × (1 + m/1024).
        if x == 0 {
            return 0;
        }
        let e = 15 - x.leading_zeros() as u16;
        (e + 15) << 10 | ((x << (10 - e)) & 0x3ff)
    };
    let mut halves = vec![0u16; 12];
    halves[8..].fill(f16(100));
    let mut want_halves = vec![f16(31); 8];
    want_halves.extend([0; 4]);
    for config in each_engine() {
        let what = format!("{:?}, timing {}", config.engine, config.timing.is_some());
        let dev = Device::new(config).unwrap();
        let m = dev.load_ptx("vatom.ptx", VECTOR_ATOMICS).unwrap();
        let f = dev.alloc_from(&[0f32; 8]).unwrap();
        let h = dev.alloc_from(&halves).unwrap();
        dev.launch(
            &m.kernel("k").unwrap(),
            1,
            32,
            0,
            &[(&f).into(), (&h).into()],
        )
        .unwrap();
        assert_eq!(f.to_host().unwrap(), [496.0; 8], "{what}");
        assert_eq!(h.to_host().unwrap(), want_halves, "{what}");
    }
}

/// Prefetches compute nothing and never fault, even from an address outside every allocation.
const PREFETCH: &str = r#"
.version 8.8
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [out];
    prefetch.global.L2 [%rd1];
    prefetchu.L1 [%rd1+64];
    mov.u64 %rd2, 8;
    prefetch.L1 [%rd2];
    mov.u32 %r1, %tid.x;
    st.global.u32 [%rd1], %r1;
    ret;
}
"#;

#[test]
fn prefetches_compute_nothing_and_never_fault() {
    for config in each_engine() {
        let dev = Device::new(config).unwrap();
        let m = dev.load_ptx("prefetch.ptx", PREFETCH).unwrap();
        let out = dev.alloc::<u32>(1).unwrap();
        dev.launch(&m.kernel("k").unwrap(), 1, 1, 0, &[(&out).into()])
            .unwrap();
        assert_eq!(out.to_host().unwrap(), [0]);
    }
}

/// Every thread sleeps `t` nanoseconds, then stores its index.
const NANOSLEEP: &str = r#"
.version 7.8
.target sm_70
.address_size 64
.visible .entry k(.param .u64 out, .param .u32 t)
{
    .reg .u32 %r<4>;
    .reg .u64 %rd<3>;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r2, [t];
    mov.u32 %r1, %tid.x;
    nanosleep.u32 %r2;
    mul.wide.u32 %rd2, %r1, 4;
    add.u64 %rd2, %rd1, %rd2;
    st.global.u32 [%rd2], %r1;
    ret;
}
"#;

/// `nanosleep` holds the warp for its duration at the preset's core clock (gtx480: 700 MHz,
/// so 9,000 ns more are 6,300 cycles more), the same cycle by cycle, and computes nothing.
#[test]
fn nanosleep_holds_the_warp_for_its_duration() {
    let cycles = |t: u32, fast_forward: bool| {
        let set = [format!("gpu.fast_forward={fast_forward}")];
        let dev = Device::new(DeviceConfig {
            timing: Some(timing::GpuConfig::load("gtx480", &set).unwrap()),
            ..DeviceConfig::default()
        })
        .unwrap();
        let m = dev.load_ptx("nanosleep.ptx", NANOSLEEP).unwrap();
        let out = dev.alloc::<u32>(32).unwrap();
        dev.launch(
            &m.kernel("k").unwrap(),
            1,
            32,
            0,
            &[(&out).into(), Arg::U32(t)],
        )
        .unwrap();
        assert_eq!(out.to_host().unwrap(), (0..32).collect::<Vec<u32>>());
        dev.take_timing().unwrap().total.gpu_sim_cycle
    };
    let (short, long) = (cycles(1_000, true), cycles(10_000, true));
    assert_eq!(long - short, 6_300);
    assert_eq!(cycles(10_000, false), long);
    // The manual's bound: at most 1 ms (700,000 cycles at 700 MHz).
    assert_eq!(cycles(u32::MAX, true) - cycles(1_000_000, true), 0);
}
