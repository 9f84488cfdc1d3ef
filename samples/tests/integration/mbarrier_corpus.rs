//! Arrive/wait barriers: `samples/corpus/mbarrier.cu` (libcu++'s `cuda::barrier` with
//! `cuda::memcpy_async`, as NVRTC emits them for sm_80) checked against the host under the JIT,
//! the interpreter and the timing model; and the object's exact counts and phases on
//! hand-written PTX, with the errors of misuse.

use runtime::{Arg, Device};

fn devices() -> Vec<Device> {
    crate::common::engine_devices("a100")
}

#[test]
fn cuda_barrier_with_memcpy_async() {
    const BLOCK: usize = 128;
    const N: usize = 3 * BLOCK;
    let input: Vec<i32> = (0..N as i32).map(|i| (i * 37) % 1000 - 500).collect();
    let want: Vec<i32> = (0..N)
        .map(|i| {
            let (b, t) = (i / BLOCK, i % BLOCK);
            (0..4).map(|k| input[b * BLOCK + (t + k) % BLOCK]).sum()
        })
        .collect();
    for dev in devices() {
        let module = dev
            .load_ptx_file(&warpsim::samples_dir().join("corpus/mbarrier.ptx"))
            .unwrap();
        let k = module.kernel("barrier_sum").unwrap();
        let (inp, out) = (
            dev.alloc_from(&input).unwrap(),
            dev.alloc::<i32>(N).unwrap(),
        );
        dev.launch(&k, 3, BLOCK as u32, 0, &[(&inp).into(), (&out).into()])
            .unwrap();
        assert_eq!(out.to_host().unwrap(), want);
    }
}

/// One warp: thread 0 initialises a barrier for `count` arrivals; every lane arrives
/// (`out[tid]` = the pending count its state saw, `out[32 + tid]` whether the phase of that
/// state completed); lanes below `again` arrive once more (`out[64 + tid]` the phase test of the
/// first state then, `out[96 + tid]` the parity test of parity 0); then, if `extra` is not 0,
/// lane 0 arrives `extra` times at once.
const PHASES: &str = r#"
.version 8.8
.target sm_80
.address_size 64

.visible .entry phases(.param .u64 out, .param .u32 count, .param .u32 again,
    .param .u32 extra)
{
    .shared .align 8 .b64 bar;
    .reg .b32 %r<12>;
    .reg .b64 %rd<8>;
    .reg .pred %p<8>;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r1, [count];
    ld.param.u32 %r2, [again];
    mov.u32 %r3, %tid.x;
    setp.eq.u32 %p1, %r3, 0;
    @%p1 mbarrier.init.shared.b64 [bar], %r1;
    bar.warp.sync -1;
    mbarrier.arrive.shared.b64 %rd2, [bar];
    mbarrier.pending_count.b64 %r4, %rd2;
    mbarrier.test_wait.shared.b64 %p2, [bar], %rd2;
    selp.u32 %r5, 1, 0, %p2;
    setp.lt.u32 %p3, %r3, %r2;
    @%p3 mbarrier.arrive.shared.b64 _, [bar];
    mbarrier.try_wait.shared.b64 %p4, [bar], %rd2;
    selp.u32 %r6, 1, 0, %p4;
    mbarrier.test_wait.parity.shared.b64 %p5, [bar], 0;
    selp.u32 %r7, 1, 0, %p5;
    mul.wide.u32 %rd3, %r3, 4;
    add.s64 %rd4, %rd1, %rd3;
    st.global.u32 [%rd4], %r4;
    st.global.u32 [%rd4+128], %r5;
    st.global.u32 [%rd4+256], %r6;
    st.global.u32 [%rd4+384], %r7;
    ld.param.u32 %r8, [extra];
    setp.ne.u32 %p6, %r8, 0;
    and.pred %p7, %p6, %p1;
    @%p7 mbarrier.arrive.shared.b64 _, [bar], %r8;
    ret;
}
"#;

#[test]
fn arrivals_complete_the_phase_exactly() {
    for dev in devices() {
        let module = dev.load_ptx("phases.ptx", PHASES).unwrap();
        let k = module.kernel("phases").unwrap();
        let out = dev.alloc::<u32>(128).unwrap();
        let run_with = |count: u32, again: u32, extra: u32| {
            let args = [
                (&out).into(),
                Arg::U32(count),
                Arg::U32(again),
                Arg::U32(extra),
            ];
            dev.launch(&k, 1, 32, 0, &args)
                .map(|_| out.to_host().unwrap())
        };
        let run = |count, again| run_with(count, again, 0);
        // 40 arrivals expected: the 32 lanes leave 8 pending, lanes 0..8 complete the phase.
        let r = run(40, 8).unwrap();
        let pending: Vec<u32> = (0..32).map(|l| 40 - l).collect();
        assert_eq!(&r[..32], &pending[..]);
        assert_eq!(&r[32..64], &[0; 32][..], "not complete after 32 of 40");
        assert_eq!(&r[64..96], &[1; 32][..], "complete after 40");
        assert_eq!(&r[96..], &[1; 32][..], "phase 0 completed");
        // 32 expected: the first arrivals complete the phase; lanes 0..3 then arrive in the
        // next one (phase 1), which stays open: parity 0's phase is the completed one.
        let r = run(32, 3).unwrap();
        assert_eq!(&r[32..64], &[1; 32][..]);
        assert_eq!((r[0], r[31]), (32, 1));
        assert_eq!(&r[96..], &[1; 32][..]);
        // Phase 1 (40 pending after the 40 of phase 0) cannot take 41 arrivals at once.
        let err = run_with(40, 8, 41).unwrap_err().to_string();
        assert!(
            err.contains("41 arrival(s) on an mbarrier object whose phase expects 40 more"),
            "{err}"
        );
        let err = run(0, 0).unwrap_err().to_string();
        assert!(
            err.contains("mbarrier.init with a count of 0 (1 to 1048575)"),
            "{err}"
        );
        // The device stays usable.
        run(40, 8).unwrap();
    }
}
