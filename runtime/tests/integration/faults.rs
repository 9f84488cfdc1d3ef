//! Faults inside kernels and bad launches: each gives its documented error, device memory
//! stays intact, and a later launch on the same device works.

use runtime::{Arg, Device, DeviceConfig, Error};

const PTX: &str = r#"
.version 8.8
.target sm_70
.address_size 64

// out[tid] = tid; the caller picks how many threads, so a large block writes out of bounds.
.visible .entry store_tid(.param .u64 out)
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r1;
    ret;
}

// A vector load from base+4: misaligned for a 16-byte vector.
.visible .entry misaligned_v4(.param .u64 p)
{
    .reg .f32 %f<5>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [p];
    ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1+4];
    ret;
}

// Uses dynamic shared memory.
.extern .shared .align 16 .b8 dyn[];
.visible .entry uses_dynamic_shared()
{
    .reg .b32 %r<2>;
    mov.u32 %r1, 7;
    st.shared.u32 [dyn], %r1;
    ret;
}

// Lanes with odd tid skip the barrier: the even lanes wait forever.
.visible .entry divergent_barrier()
{
    .reg .pred %p<2>;
    .reg .b32 %r<3>;
    mov.u32 %r1, %tid.x;
    and.b32 %r2, %r1, 1;
    setp.ne.u32 %p1, %r2, 0;
    @%p1 bra $L_skip;
    bar.sync 0;
$L_skip:
    ret;
}

// Never terminates.
.visible .entry spin()
{
$L_top:
    bra.uni $L_top;
}

// out[tid] = in[tid]: a too-short `in` is read past its end.
.visible .entry copy_tid(.param .u64 out, .param .u64 in)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [out];
    ld.param.u64 %rd2, [in];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd2, %rd3;
    ld.global.u32 %r2, [%rd4];
    add.s64 %rd5, %rd1, %rd3;
    st.global.u32 [%rd5], %r2;
    ret;
}

// Shared memory of 64 words, indexed by tid: a block of more than 64 threads overruns it.
.visible .entry shared_tid()
{
    .shared .align 4 .b32 words[64];
    .reg .b32 %r<4>;
    mov.u32 %r1, %tid.x;
    shl.b32 %r2, %r1, 2;
    mov.u32 %r3, words;
    add.u32 %r3, %r3, %r2;
    st.shared.u32 [%r3], %r1;
    ret;
}

// Counts for ever in a three-instruction loop (wraps at 2^32, far beyond any budget).
.visible .entry count_up()
{
    .reg .b32 %r<2>;
    .reg .pred %p<2>;
    mov.u32 %r1, 1;
$L_loop:
    add.u32 %r1, %r1, 1;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra $L_loop;
    ret;
}

// Recurses for ever.
.func recurse()
{
    call recurse, ();
    ret;
}
.visible .entry recursion()
{
    call recurse, ();
    ret;
}

// cp.async of 8 bytes with src-size n: more than 8 is an error.
.visible .entry cp_async_src_size(.param .u64 p, .param .u32 n)
{
    .shared .align 8 .b8 s[8];
    .reg .b32 %r<3>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [p];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, s;
    cp.async.ca.shared.global [%r2], [%rd1], 8, %r1;
    cp.async.wait_all;
    ret;
}

// A warp-wide matrix load; launched with 16 threads, half the warp is missing.
.visible .entry wmma_half_warp(.param .u64 p)
{
    .reg .b32 %r<8>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [p];
    wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, [%rd1];
    ret;
}

// A warp-wide matrix load whose lane 5 gives the matrix 64 bytes further on.
.visible .entry wmma_lane_address(.param .u64 p)
{
    .reg .pred %p<2>;
    .reg .b32 %r<9>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [p];
    mov.u32 %r8, %tid.x;
    setp.eq.u32 %p1, %r8, 5;
    add.s64 %rd2, %rd1, 64;
    selp.b64 %rd1, %rd2, %rd1, %p1;
    wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, [%rd1];
    ret;
}
"#;

/// A functional device and one with the timing model: every fault must be reported the same
/// way by both, and both must stay usable afterwards.
fn devices() -> [Device; 3] {
    let config = DeviceConfig {
        warp_budget: 100_000,
        host_threads: 2,
        ..DeviceConfig::default()
    };
    let timed = DeviceConfig {
        timing: Some(timing::GpuConfig::preset("gtx480")),
        ..config.clone()
    };
    let interpreted = DeviceConfig {
        engine: emulator::launch::Engine::Interpreter,
        ..config.clone()
    };
    [
        Device::new(config).expect("device"),
        Device::new(interpreted).expect("interpreted device"),
        Device::new(timed).expect("timed device"),
    ]
}

/// The device still runs kernels correctly after a fault.
fn still_works(dev: &Device, module: &runtime::Module) {
    let out = dev.alloc::<u32>(64).unwrap();
    dev.launch(
        &module.kernel("store_tid").unwrap(),
        1,
        64,
        0,
        &[(&out).into()],
    )
    .expect("a later launch works");
    assert_eq!(out.to_host().unwrap(), (0..64).collect::<Vec<u32>>());
}

#[test]
fn out_of_bounds_global_store() {
    for dev in devices() {
        let m = dev.load_ptx("faults.ptx", PTX).unwrap();
        let keep = dev.alloc_from(&[0xdead_beefu32; 4]).unwrap();
        let out = dev.alloc::<u32>(64).unwrap();
        let err = dev
            .launch(&m.kernel("store_tid").unwrap(), 1, 128, 0, &[(&out).into()])
            .unwrap_err();
        let Error::IllegalAddress(f) = &err else {
            panic!("expected an illegal address, got {err}")
        };
        // 64 u32 fill one 256-byte allocation exactly: thread 64 is the first out of bounds.
        assert_eq!(f.thread, [64, 0, 0]);
        assert_eq!((f.kernel.as_str(), f.pc, f.line), ("store_tid", 4, 15));
        assert_eq!(
            err.to_string(),
            format!(
                "illegal global address {:#x} (4-byte access 0 bytes past the end of allocation #1 of 256 bytes at {:#x}) in kernel `store_tid`, CTA (0,0,0), thread (64,0,0), pc 4, PTX line 15: `st.global.u32 [%rd3], %r1;`",
                out.device_ptr() + 256,
                out.device_ptr()
            )
        );
        assert_eq!(
            keep.to_host().unwrap(),
            vec![0xdead_beef; 4],
            "other allocations are intact"
        );
        still_works(&dev, &m);
    }
}

/// A store running past the end of one buffer faults instead of landing in the buffer
/// allocated right after it, which keeps its contents.
#[test]
fn a_store_past_the_end_never_reaches_the_next_allocation() {
    for dev in devices() {
        let m = dev.load_ptx("faults.ptx", PTX).unwrap();
        let out = dev.alloc::<u32>(60).unwrap();
        out.set_label("out");
        let next = dev.alloc_from(&[7u32; 64]).unwrap();
        let err = dev
            .launch(&m.kernel("store_tid").unwrap(), 1, 64, 0, &[(&out).into()])
            .unwrap_err();
        let Error::IllegalAddress(f) = &err else {
            panic!("expected an illegal address, got {err}")
        };
        assert_eq!(
            f.thread,
            [60, 0, 0],
            "the first lane past the 240 requested bytes"
        );
        assert!(
            err.to_string().contains(&format!(
                "illegal global address {:#x} (4-byte access 0 bytes past the end of allocation #0 `out` of 240 bytes at {:#x})",
                out.device_ptr() + 240,
                out.device_ptr()
            )),
            "{err}"
        );
        assert_eq!(
            next.to_host().unwrap(),
            vec![7; 64],
            "the neighbour is intact"
        );
        still_works(&dev, &m);
    }
}

/// A too-short input buffer is not silently completed with its neighbour's data.
#[test]
fn a_load_past_the_end_of_a_short_input_faults() {
    for dev in devices() {
        let m = dev.load_ptx("faults.ptx", PTX).unwrap();
        let input = dev.alloc_from(&[1u32; 3]).unwrap();
        let _next = dev.alloc_from(&[9u32; 64]).unwrap();
        let out = dev.alloc::<u32>(32).unwrap();
        let err = dev
            .launch(
                &m.kernel("copy_tid").unwrap(),
                1,
                32,
                0,
                &[(&out).into(), (&input).into()],
            )
            .unwrap_err();
        let Error::IllegalAddress(f) = &err else {
            panic!("expected an illegal address, got {err}")
        };
        assert_eq!((f.thread, f.line), ([3, 0, 0], 70));
        assert!(
            err.to_string().contains(&format!(
                "(4-byte access 0 bytes past the end of allocation #0 of 12 bytes at {:#x})",
                input.device_ptr()
            )),
            "{err}"
        );
    }
}

/// A kernel given the address of a freed buffer faults, naming the freed allocation.
#[test]
fn a_use_after_free_names_the_freed_allocation() {
    for dev in devices() {
        let m = dev.load_ptx("faults.ptx", PTX).unwrap();
        let stale = {
            let gone = dev.alloc::<u32>(1024).unwrap();
            gone.set_label("gone");
            gone.device_ptr()
        };
        let err = dev
            .launch(
                &m.kernel("store_tid").unwrap(),
                1,
                32,
                0,
                &[Arg::Ptr(stale)],
            )
            .unwrap_err();
        assert!(
            err.to_string().contains(&format!(
                "illegal global address {stale:#x} (4-byte access inside freed allocation #0 `gone` of 4096 bytes at {stale:#x} (use after free))"
            )),
            "{err}"
        );
        still_works(&dev, &m);
    }
}

/// Shared memory is checked against the CTA's own size, and the fault says so.
#[test]
fn a_shared_access_past_the_ctas_shared_memory_faults() {
    for dev in devices() {
        let m = dev.load_ptx("faults.ptx", PTX).unwrap();
        let err = dev
            .launch(&m.kernel("shared_tid").unwrap(), 1, 65, 0, &[])
            .unwrap_err();
        assert!(
            err.to_string().starts_with(
                "illegal shared address 0x100 (4-byte access at offset 256 of the CTA's 256-byte shared space) in kernel `shared_tid`, CTA (0,0,0), thread (64,0,0)"
            ),
            "{err}"
        );
    }
}

#[test]
fn misaligned_vector_load() {
    for dev in devices() {
        let m = dev.load_ptx("faults.ptx", PTX).unwrap();
        let buf = dev.alloc::<f32>(16).unwrap();
        let err = dev
            .launch(
                &m.kernel("misaligned_v4").unwrap(),
                1,
                32,
                0,
                &[(&buf).into()],
            )
            .unwrap_err();
        let Error::MisalignedAddress(f) = &err else {
            panic!("expected a misaligned address, got {err}")
        };
        assert_eq!(
            f.kind.to_string(),
            format!("misaligned global address {:#x}", buf.device_ptr() + 4)
        );
        assert_eq!(err.cuda_name(), "cudaErrorMisalignedAddress");
        still_works(&dev, &m);
    }
}

#[test]
fn cp_async_src_size_past_its_copy_size() {
    for dev in devices() {
        let m = dev.load_ptx("faults.ptx", PTX).unwrap();
        let k = m.kernel("cp_async_src_size").unwrap();
        let buf = dev.alloc::<u32>(2).unwrap();
        dev.launch(&k, 1, 32, 0, &[(&buf).into(), Arg::U32(8)])
            .unwrap();
        let err = dev
            .launch(&k, 1, 32, 0, &[(&buf).into(), Arg::U32(12)])
            .unwrap_err();
        let Error::LaunchFailure(f) = &err else {
            panic!("expected a launch failure, got {err}")
        };
        assert_eq!(
            f.kind.to_string(),
            "invalid operand: `cp.async` src-size 12 exceeds its copy size 8"
        );
        still_works(&dev, &m);
    }
}

#[test]
fn wmma_needs_the_whole_warp() {
    for dev in devices() {
        let m = dev.load_ptx("faults.ptx", PTX).unwrap();
        let k = m.kernel("wmma_half_warp").unwrap();
        let buf = dev.alloc::<u16>(256).unwrap();
        dev.launch(&k, 1, 32, 0, &[(&buf).into()]).unwrap();
        let err = dev.launch(&k, 1, 16, 0, &[(&buf).into()]).unwrap_err();
        let Error::LaunchFailure(f) = &err else {
            panic!("expected a launch failure, got {err}")
        };
        assert_eq!(
            f.kind.to_string(),
            "invalid operand: `wmma.load.a.sync.aligned.row.m16n16k16.global.f16` executed by 16 of the warp's 32 threads (`.sync.aligned` needs all of them)"
        );
        still_works(&dev, &m);
    }
}

#[test]
fn wmma_needs_one_address_for_the_warp() {
    for dev in devices() {
        let m = dev.load_ptx("faults.ptx", PTX).unwrap();
        let k = m.kernel("wmma_lane_address").unwrap();
        let buf = dev.alloc::<u16>(512).unwrap();
        let err = dev.launch(&k, 1, 32, 0, &[(&buf).into()]).unwrap_err();
        let Error::LaunchFailure(f) = &err else {
            panic!("expected a launch failure, got {err}")
        };
        let base = buf.device_ptr();
        assert_eq!(
            f.kind.to_string(),
            format!(
                "invalid operand: `wmma.load.a.sync.aligned.row.m16n16k16.global.f16`: lane 5 \
                 gives the matrix at Global({:x}) with stride 16, lane 0 at Global({base:x}) \
                 with stride 16 (the warp must give one address and one stride)",
                base + 64
            )
        );
        still_works(&dev, &m);
    }
}

#[test]
fn dynamic_shared_memory_over_the_limit() {
    for dev in devices() {
        let m = dev.load_ptx("faults.ptx", PTX).unwrap();
        let k = m.kernel("uses_dynamic_shared").unwrap();
        let err = dev.launch(&k, 1, 32, 64 * 1024, &[]).unwrap_err();
        assert!(matches!(err, Error::OutOfResources(_)), "{err}");
        assert_eq!(
            err.to_string(),
            "out of resources: `uses_dynamic_shared` needs 0 bytes of static and 65536 of dynamic shared memory; the device allows 49152 per block"
        );
        dev.launch(&k, 1, 32, 1024, &[])
            .expect("within the limit it runs");
        still_works(&dev, &m);
    }
}

#[test]
fn barrier_deadlock_is_reported_not_hung() {
    for dev in devices() {
        let m = dev.load_ptx("faults.ptx", PTX).unwrap();
        let err = dev
            .launch(&m.kernel("divergent_barrier").unwrap(), 1, 64, 0, &[])
            .unwrap_err();
        let Error::BarrierDeadlock(f) = &err else {
            panic!("expected a barrier deadlock, got {err}")
        };
        assert_eq!((f.pc, f.line), (4, 48), "the fault points at the barrier");
        let text = err.to_string();
        assert!(text.contains("barrier 0 has 32 of 64 threads"), "{text}");
        assert!(
            text.contains("warp 0 waits at barrier 0 (pc 4) with lanes 0x55555555; its lanes 0xaaaaaaaa diverged around the barrier"),
            "{text}"
        );
        still_works(&dev, &m);
    }
}

#[test]
fn runaway_loop_hits_the_budget() {
    for dev in devices() {
        let m = dev.load_ptx("faults.ptx", PTX).unwrap();
        let err = dev
            .launch(&m.kernel("spin").unwrap(), 2, 32, 0, &[])
            .unwrap_err();
        let Error::BudgetExceeded(f) = &err else {
            panic!("expected the budget error, got {err}")
        };
        assert_eq!(
            f.cta,
            [0, 0, 0],
            "the lowest faulting CTA is reported, whatever the thread timing"
        );
        assert!(err.to_string().starts_with("instruction budget exceeded: a warp executed 100000 instructions (runaway loop? raise it with --budget) in kernel `spin`"), "{err}");
        // The branch is quoted as written, not as warpsim's listing (`bra bb0;`).
        assert!(
            err.to_string()
                .ends_with("pc 0, PTX line 57: `bra.uni $L_top;`"),
            "{err}"
        );
        still_works(&dev, &m);
    }
}

/// The budget is per warp, so the instruction it stops at does not depend on how warps were
/// interleaved or on how the JIT groups instructions into runs: every engine and the timing
/// model name the same one.
#[test]
fn the_budget_stops_every_engine_at_the_same_instruction() {
    let mut places = Vec::new();
    for dev in devices() {
        let m = dev.load_ptx("faults.ptx", PTX).unwrap();
        let err = dev
            .launch(&m.kernel("count_up").unwrap(), 1, 96, 0, &[])
            .unwrap_err();
        let Error::BudgetExceeded(f) = &err else {
            panic!("expected the budget error, got {err}")
        };
        places.push((f.pc, f.line, f.inst.clone()));
    }
    // One `mov`, then 33,333 passes of the three-instruction loop: the next is its `add`.
    assert_eq!(places[0], (1, 96, "add.u32 %r1, %r1, 1;".to_string()));
    assert!(places.iter().all(|p| *p == places[0]), "{places:?}");
}

/// A wall-clock limit stops a runaway launch in either mode, whatever its budget, and the
/// device stays usable.
#[test]
fn a_wall_clock_limit_stops_a_runaway_launch() {
    for dev in devices() {
        let mut config = dev.config().clone();
        config.warp_budget = u64::MAX;
        config.wall_clock.limit = Some(std::time::Duration::from_millis(200));
        let dev = Device::new(config).unwrap();
        let m = dev.load_ptx("faults.ptx", PTX).unwrap();
        let err = dev
            .launch(&m.kernel("spin").unwrap(), 1, 32, 0, &[])
            .unwrap_err();
        assert!(matches!(err, Error::TimeLimit(_)), "{err}");
        assert_eq!(err.cuda_name(), "cudaErrorLaunchTimeout");
        assert!(
            err.to_string()
                .starts_with("wall-clock limit of 0.2 s exceeded"),
            "{err}"
        );
        still_works(&dev, &m);
    }
}

/// Runaway recursion names the call that went too deep, not the instruction after it.
#[test]
fn runaway_recursion_names_the_call() {
    for dev in devices() {
        let m = dev.load_ptx("faults.ptx", PTX).unwrap();
        let err = dev
            .launch(&m.kernel("recursion").unwrap(), 1, 32, 0, &[])
            .unwrap_err();
        assert!(
            err.to_string().ends_with(
                "(in function `recurse`), CTA (0,0,0), thread (0,0,0), pc 0, PTX line 105: `call recurse, ();`"
            ),
            "{err}"
        );
        still_works(&dev, &m);
    }
}

#[test]
fn bad_launches_are_rejected_before_running() {
    for dev in devices() {
        let m = dev.load_ptx("faults.ptx", PTX).unwrap();
        let k = m.kernel("store_tid").unwrap();
        let out = dev.alloc::<u32>(64).unwrap();
        let cases: Vec<(Result<runtime::LaunchStats, Error>, &str)> = vec![
            (
                dev.launch(&k, 1, 2048, 0, &[(&out).into()]),
                "invalid configuration: block [2048, 1, 1] of `store_tid` has 2048 threads; the device allows 1024",
            ),
            (
                dev.launch(&k, 0, 32, 0, &[(&out).into()]),
                "invalid configuration: launch of `store_tid` with a zero dimension: grid [0, 1, 1], block [32, 1, 1]",
            ),
            (
                dev.launch(&k, 1, 32, 0, &[]),
                "invalid value: kernel `store_tid` takes 1 argument(s), 0 given",
            ),
            (
                dev.launch(&k, 1, 32, 0, &[Arg::F32(1.0)]),
                "invalid value: argument 0 of `store_tid` is f32 (4 bytes) but parameter `out` is .u64 (8 bytes)",
            ),
            (
                dev.launch(&k, 1, 32, 0, &[Arg::F64(1.0)]),
                "invalid value: argument 0 of `store_tid` is f64 but parameter `out` is .u64",
            ),
        ];
        for (result, expected) in cases {
            assert_eq!(result.unwrap_err().to_string(), expected);
        }
        assert_eq!(
            m.kernel("nope").err().map(|e| e.to_string()).as_deref(),
            Some(
                "invalid value: no kernel `nope` in faults.ptx; kernels: store_tid, misaligned_v4, uses_dynamic_shared, divergent_barrier, spin, copy_tid, shared_tid, count_up, recursion, cp_async_src_size, wmma_half_warp, wmma_lane_address"
            )
        );
        still_works(&dev, &m);
    }
}
