//! `[reg+imm]` with a 32-bit base register: `base + imm` is computed at the register's width,
//! modulo 2^32, and zero-extended (PTX ISA 6.4.1, "Addresses are zero-extended to the specified
//! width as needed"), in every state space and whatever the module's `.address_size`. NVVM 13
//! forms such bases (`temp − 64·tid`) in ordinary kernels. Each case runs under the
//! interpreter, the JIT and the timing model (`forms::check_runs`); the addresses the timing
//! model's coalescer receives are checked through the stepper.

use crate::forms::check_runs;
use emulator::exec::{CtaEnv, Target};
use emulator::jit::Granularity;
use emulator::stepper::{CtaStepper, Executed};
use emulator::{Engine, MemoryMap};
use runtime::{Arg, Device, DeviceConfig};

/// Shared, local and kernel-parameter accesses of a 64-bit module through 32-bit bases that
/// wrap: `sm - 64` then `+68` is `sm + 4` (the form of issue 47), each thread's
/// `sm + 4t - 56` then `+64` is `sm + 8 + 4t`, and `v - 2^30` then `+(2^30 + k)` is `v + k`
/// for a local variable and a parameter, whatever their offsets.
const WINDOWS: &str = "
.version 8.8
.target sm_70
.address_size 64
.visible .entry k(.param .u64 out, .param .u32 pa, .param .u32 pb)
{
    .shared .align 4 .b32 sm[40];
    .local .align 4 .b32 lc[4];
    .reg .b32 %r<24>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r20, %tid.x;
    mul.wide.u32 %rd2, %r20, 32;
    add.s64 %rd1, %rd1, %rd2;
    mov.u32 %r1, sm;
    mov.u32 %r2, 0xa1;
    st.shared.u32 [sm+4], %r2;
    sub.s32 %r3, %r1, 64;
    ld.shared.u32 %r4, [%r3+68];
    shl.b32 %r5, %r20, 2;
    add.s32 %r6, %r1, %r5;
    add.s32 %r6, %r6, -56;
    add.s32 %r7, %r20, 0xb0;
    st.shared.u32 [%r6+64], %r7;
    bar.sync 0;
    ld.shared.u32 %r8, [sm+8];
    ld.shared.u32 %r9, [sm+12];
    mov.u32 %r10, lc;
    mov.u32 %r11, 0xc3;
    st.local.u32 [lc+8], %r11;
    sub.s32 %r12, %r10, 0x40000000;
    ld.local.u32 %r13, [%r12+0x40000008];
    st.local.u32 [%r12+0x40000004], %r7;
    ld.local.u32 %r14, [lc+4];
    mov.u32 %r15, pa;
    sub.s32 %r16, %r15, 0x40000000;
    ld.param.u32 %r17, [%r16+0x40000004];
    ld.param.u32 %r18, [%r16+0x40000000];
    st.global.v4.u32 [%rd1], {%r4, %r8, %r9, %r13};
    st.global.v4.u32 [%rd1+16], {%r14, %r17, %r18, %r20};
    ret;
}
";

#[test]
fn a_32_bit_base_wraps_in_shared_local_and_param_space() {
    // Thread t: sm[1] = 0xa1; sm[2], sm[3] = 0xb0, 0xb1 (threads 0 and 1 stored t + 0xb0);
    // lc[2] = 0xc3; its own lc[1] = t + 0xb0; pb, pa; t.
    let thread = |t: u32| [0xa1, 0xb0, 0xb1, 0xc3, 0xb0 + t, 0x22, 0x11, t];
    let want: Vec<u32> = (0..2).flat_map(thread).collect();
    check_runs(
        WINDOWS,
        None,
        2,
        &[Arg::U32(0x11), Arg::U32(0x22)],
        &[0; 16],
        &want,
    );
}

/// Global and generic accesses through 32-bit bases of a 64-bit module on the 32-bit memory
/// map (where a global address fits 32 bits): `out - 2^30` wraps below zero and
/// `+(2^30 + k)` brings it back; a generic shared or local address `+ 2^30` wraps past 2^32
/// and `-(2^30 - 4)` brings it back. The same kernel in a 32-bit module (`.address_size 32`)
/// must compute the same.
const GLOBAL_64: &str = "
.version 8.8
.target sm_70
.address_size 64
.visible .entry k(.param .u64 out)
{
    .shared .align 4 .b32 sm[4];
    .local .align 4 .b32 lc[4];
    .reg .b32 %r<24>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    cvt.u32.u64 %r1, %rd1;
BODY
    st.global.v4.u32 [%rd1+16], {%r4, %r8, %r13, %r12};
    ret;
}
";

const GLOBAL_32: &str = "
.version 8.8
.target sm_70
.address_size 32
.visible .entry k(.param .u32 out)
{
    .shared .align 4 .b32 sm[4];
    .local .align 4 .b32 lc[4];
    .reg .b32 %r<24>;
    ld.param.u32 %r1, [out];
BODY
    st.global.v4.u32 [%r1+16], {%r4, %r8, %r13, %r12};
    ret;
}
";

const GLOBAL_BODY: &str = "
    sub.s32 %r2, %r1, 0x40000000;
    ld.global.u32 %r3, [%r2+0x40000004];
    st.global.u32 [%r2+0x40000000], %r3;
    ld.u32 %r4, [%r2+0x40000008];
    ld.global.v2.u32 {%r11, %r12}, [%r2+0x40000008];
    mov.u32 %r5, 0x5a;
    st.shared.u32 [sm+4], %r5;
    cvta.shared.u32 %r6, sm;
    add.s32 %r7, %r6, 0x40000000;
    ld.u32 %r8, [%r7+-0x3ffffffc];
    mov.u32 %r9, 0x6b;
    st.local.u32 [lc+4], %r9;
    cvta.local.u32 %r10, lc;
    add.s32 %r14, %r10, 0x40000000;
    ld.u32 %r13, [%r14+-0x3ffffffc];
    st.u32 [%r2+0x40000004], %r11;";

#[test]
fn a_32_bit_base_wraps_in_global_and_generic_space_for_either_address_size() {
    // out[0] = out[1]; then out[4..8] = out[2], the shared 0x5a, the local 0x6b, out[3]; and
    // out[1] = out[2] through the generic store.
    let out = [0x10, 0x11, 0x12, 0x13, 0, 0, 0, 0];
    let want = [0x11, 0x12, 0x12, 0x13, 0x12, 0x5a, 0x6b, 0x13];
    for module in [GLOBAL_64, GLOBAL_32] {
        let ptx = module.replace("BODY", GLOBAL_BODY);
        check_runs(&ptx, Some(MemoryMap::BITS32), 1, &[], &out, &want);
    }
}

/// Each memory instruction's per-lane targets (the addresses the timing model's coalescer and
/// shared-memory banks receive), stepping one warp of `WINDOWS` as the timing model does,
/// compiled one instruction at a time or interpreted.
fn stepped_targets(jit: bool) -> Vec<(u32, Vec<Target>)> {
    let engine = if jit {
        Engine::Jit
    } else {
        Engine::Interpreter
    };
    let dev = Device::new(DeviceConfig {
        engine,
        ..DeviceConfig::default()
    })
    .unwrap();
    let module = dev.load_ptx("windows.ptx", WINDOWS).unwrap();
    let kernel = module.kernel("k").unwrap();
    let program = kernel.program();
    let layout = program.layouts[kernel.id().index()].as_ref().unwrap();
    let out = dev.alloc::<u32>(32 * 8).unwrap();
    let mut params = out.device_ptr().to_le_bytes().to_vec();
    params.extend(0x11u32.to_le_bytes());
    params.extend(0x22u32.to_le_bytes());
    let mem = dev.memory();
    let env = CtaEnv {
        program,
        kernel: kernel.id(),
        layout,
        mem: &mem,
        params: &params,
        shared: vec![0; layout.dynamic_offset as usize],
        dynamic_shared: 0,
        cta: [0; 3],
        grid: [1, 1, 1],
        block: [32, 1, 1],
        warps_per_cta: 1,
        held_stores: None,
        clock: None,
    };
    let compiled = emulator::launch::compiled(
        program,
        kernel.id(),
        &mem,
        engine,
        Granularity::Instructions,
    )
    .unwrap();
    let mut cta = CtaStepper::new(env, Vec::new(), 10_000, compiled);
    let mut step = Executed::default();
    let mut memory = Vec::new();
    while cta.next(0).is_some() {
        cta.step(0, &mut step).unwrap();
        if step.memory {
            memory.push((step.pc, step.targets.to_vec()));
        }
    }
    memory
}

#[test]
fn the_timing_model_receives_the_wrapped_addresses() {
    for jit in [false, true] {
        let accesses = stepped_targets(jit);
        // The memory instructions in order: ld.param out; st.shared [sm+4]; ld.shared
        // [%r3+68]; st.shared [%r6+64]; ld.shared [sm+8], [sm+12]; st.local [lc+8]; ld.local
        // [%r12+...]; st.local [%r12+...]; ld.local [lc+4]; ld.param [%r16+...] twice; two
        // st.global.
        assert_eq!(accesses.len(), 14, "jit {jit}: {accesses:?}");
        let lane = |i: usize, l: usize| accesses[i].1[l];
        let offset = |t: Target| match t {
            Target::Shared(o) | Target::Local(o) | Target::Param(o) => o,
            other => panic!("jit {jit}: {other:?}"),
        };
        for l in 0..32 {
            // `[%r3+68]` is `[sm+4]`.
            assert_eq!(lane(2, l), lane(1, l), "jit {jit}, lane {l}");
            // `[%r6+64]` is sm + 8 + 4·lane.
            let sm = offset(lane(1, l)) - 4;
            assert_eq!(
                lane(3, l),
                Target::Shared(sm + 8 + 4 * l as u64),
                "lane {l}"
            );
            // `[%r12+0x40000008]` is `[lc+8]`; `[%r12+0x40000004]` is `[lc+4]`.
            assert_eq!(lane(7, l), lane(6, l), "jit {jit}, lane {l}");
            assert_eq!(lane(8, l), lane(9, l), "jit {jit}, lane {l}");
            // `pa` is at the parameter `out`'s 8 bytes, `pb` after it.
            assert_eq!(lane(10, l), Target::Param(12), "jit {jit}, lane {l}");
            assert_eq!(lane(11, l), Target::Param(8), "jit {jit}, lane {l}");
        }
    }
}
