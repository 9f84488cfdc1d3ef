//! PTX micro-benchmarks with known answers for the timing model (`gtx480` preset, one SM):
//! a dependent ALU chain (also timed from inside with `%clock64`), independent ALU operations, shared-memory bank conflicts, coalesced
//! and strided global loads, reductions that skip the L1, and occupancy limited by each resource
//! in turn; and on `v100`,
//! one SM, a warp's use of its own sub-core's pipelines.
//!
//! Loops take their trip count as a parameter: running a kernel for `n` and `2n` iterations
//! and subtracting removes everything outside the loop (launch, parameter loads, cold
//! instruction-cache misses, the drain at the end), leaving the exact cost of `n` iterations.
//! A first, unmeasured launch ([`warm_up`]) brings the kernel's code into the L2, which
//! persists across launches and serves the instruction cache's misses, so the launches
//! compared all start from the same state.
//!
//! The pipeline costs that appear in the answers (gtx480's, GPGPU-Sim's: docs/timing.md): an
//! instruction issued on cycle t waits in the issue latch until its collector unit takes it
//! at the end of t + 1, reads its register operands on t + 2 (one collector step a cycle,
//! every bank at once), dispatches on t + 3 (a unit dispatches in the step after its last
//! read), and its result leaves the execution unit's three latches (`sm.execute_latches`)
//! on t + 3 + latency + 3, when a dependent instruction can issue. So a dependent ALU
//! instruction follows its producer by latency + 6 cycles; a memory instruction leaves its
//! collector unit into the LD/ST latch (`sm.ldst_latch`, GPGPU-Sim's `OC_EX_MEM`) on t + 3 and
//! the LD/ST unit takes it on t + 4.

use runtime::{Arg, Device, DeviceConfig};
use timing::occupancy::Limiter;
use timing::{GpuConfig, TimingStats};

/// The loop of `chain` and `clocked_chain`: 16 dependent adds an iteration (see `chain`).
macro_rules! chain_loop {
    () => {
        r#"$LOOP:
    add.s32 %r3, %r3, 1;
    add.s32 %r1, %r1, 1;
    setp.lt.u32 %p1, %r3, %r2;
    add.s32 %r1, %r1, 1;
    add.s32 %r1, %r1, 1;
    add.s32 %r1, %r1, 1;
    add.s32 %r1, %r1, 1;
    add.s32 %r1, %r1, 1;
    add.s32 %r1, %r1, 1;
    add.s32 %r1, %r1, 1;
    add.s32 %r1, %r1, 1;
    add.s32 %r1, %r1, 1;
    add.s32 %r1, %r1, 1;
    add.s32 %r1, %r1, 1;
    add.s32 %r1, %r1, 1;
    add.s32 %r1, %r1, 1;
    add.s32 %r1, %r1, 1;
    add.s32 %r1, %r1, 1;
    @%p1 bra $LOOP;
"#
    };
}

const PTX: &str = concat!(
    r#"
.version 8.8
.target sm_70
.address_size 64

// 16 dependent adds per iteration (r1 = r1 + 1). The loop counter and its compare sit between
// the chain's first two adds, so they complete in the chain's shadow and the branch finds its
// predicate ready: an iteration costs exactly the chain.
.visible .entry chain(.param .u64 out, .param .u32 iters)
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<2>;
    ld.param.u32 %r2, [iters];
    mov.u32 %r1, 0;
    mov.u32 %r3, 0;
"#,
    chain_loop!(),
    r#"    ld.param.u64 %rd1, [out];
    st.global.u32 [%rd1], %r1;
    ret;
}

// The chain above timed from inside with %clock64, as the published microbenchmarks time code:
// the difference of two reads around the loop, written to out[0] (the chain's sum to out[1]).
.visible .entry clocked_chain(.param .u64 out, .param .u32 iters)
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<5>;
    ld.param.u32 %r2, [iters];
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, 0;
    mov.u32 %r3, 0;
    mov.u64 %rd2, %clock64;
"#,
    chain_loop!(),
    r#"    mov.u64 %rd3, %clock64;
    sub.s64 %rd4, %rd3, %rd2;
    st.global.u64 [%rd1], %rd4;
    cvt.u64.u32 %rd4, %r1;
    st.global.u64 [%rd1+8], %rd4;
    ret;
}

// 33 independent adds per iteration over eight accumulators (each accumulator's next add is
// eight instructions later, further than an add's latency + 2 at one issue per cycle), plus
// the loop counter, its compare and the branch: 36 instructions, an even number, so the
// fetch stage's two-instruction fetches never straddle the back edge.
.visible .entry independent(.param .u32 iters)
{
    .reg .pred %p<2>;
    .reg .b32 %r<12>;
    ld.param.u32 %r10, [iters];
    mov.u32 %r11, 0;
    mov.u32 %r1, 0;
    mov.u32 %r2, 0;
    mov.u32 %r3, 0;
    mov.u32 %r4, 0;
    mov.u32 %r5, 0;
    mov.u32 %r6, 0;
    mov.u32 %r7, 0;
    mov.u32 %r8, 0;
$LOOP:
    add.s32 %r11, %r11, 1;
    add.s32 %r1, %r1, 1;
    add.s32 %r2, %r2, 1;
    add.s32 %r3, %r3, 1;
    add.s32 %r4, %r4, 1;
    add.s32 %r5, %r5, 1;
    add.s32 %r6, %r6, 1;
    add.s32 %r7, %r7, 1;
    add.s32 %r8, %r8, 1;
    setp.lt.u32 %p1, %r11, %r10;
    add.s32 %r1, %r1, 1;
    add.s32 %r2, %r2, 1;
    add.s32 %r3, %r3, 1;
    add.s32 %r4, %r4, 1;
    add.s32 %r5, %r5, 1;
    add.s32 %r6, %r6, 1;
    add.s32 %r7, %r7, 1;
    add.s32 %r8, %r8, 1;
    add.s32 %r1, %r1, 1;
    add.s32 %r2, %r2, 1;
    add.s32 %r3, %r3, 1;
    add.s32 %r4, %r4, 1;
    add.s32 %r5, %r5, 1;
    add.s32 %r6, %r6, 1;
    add.s32 %r7, %r7, 1;
    add.s32 %r8, %r8, 1;
    add.s32 %r1, %r1, 1;
    add.s32 %r2, %r2, 1;
    add.s32 %r3, %r3, 1;
    add.s32 %r4, %r4, 1;
    add.s32 %r5, %r5, 1;
    add.s32 %r6, %r6, 1;
    add.s32 %r7, %r7, 1;
    add.s32 %r8, %r8, 1;
    add.s32 %r1, %r1, 1;
    @%p1 bra $LOOP;
    ret;
}

// Lane t loads the 4-byte word t * stride of a shared array, four times per iteration. The
// loads all write r5 on purpose: each waits (WAW) for the previous one's write-back, so an
// iteration is four back-to-back shared-memory round trips.
.visible .entry shared_stride(.param .u32 stride, .param .u32 iters)
{
    .reg .pred %p<2>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<4>;
    .shared .align 4 .b8 buf[4096];
    ld.param.u32 %r1, [stride];
    ld.param.u32 %r2, [iters];
    mov.u32 %r3, %tid.x;
    mul.lo.s32 %r4, %r3, %r1;
    mov.u64 %rd1, buf;
    mul.wide.u32 %rd2, %r4, 4;
    add.s64 %rd3, %rd1, %rd2;
    mov.u32 %r9, 0;
$LOOP:
    ld.shared.u32 %r5, [%rd3];
    ld.shared.u32 %r5, [%rd3];
    ld.shared.u32 %r5, [%rd3];
    ld.shared.u32 %r5, [%rd3];
    add.s32 %r9, %r9, 1;
    setp.lt.u32 %p1, %r9, %r2;
    @%p1 bra $LOOP;
    ret;
}

// One warp-wide load: lane t reads the 4-byte word t * stride of `in`.
.visible .entry global_stride(.param .u64 in, .param .u32 stride)
{
    .reg .b32 %r<6>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [in];
    ld.param.u32 %r1, [stride];
    mov.u32 %r2, %tid.x;
    mul.lo.s32 %r3, %r2, %r1;
    mul.wide.u32 %rd2, %r3, 4;
    add.s64 %rd3, %rd1, %rd2;
    ld.global.u32 %r4, [%rd3];
    ret;
}

// 8 independent SFU operations per iteration, into 8 registers (summed after the loop, so that
// they are all live at once and the allocator keeps them apart).
.visible .entry sfu_independent(.param .u64 out, .param .u32 iters)
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<2>;
    .reg .f32 %f<9>;
    ld.param.u32 %r2, [iters];
    mov.u32 %r1, 0;
    mov.f32 %f8, 0f3F000000;
$LOOP:
    sin.approx.f32 %f0, %f8;
    sin.approx.f32 %f1, %f8;
    sin.approx.f32 %f2, %f8;
    sin.approx.f32 %f3, %f8;
    add.s32 %r1, %r1, 1;
    sin.approx.f32 %f4, %f8;
    sin.approx.f32 %f5, %f8;
    setp.lt.u32 %p1, %r1, %r2;
    sin.approx.f32 %f6, %f8;
    sin.approx.f32 %f7, %f8;
    @%p1 bra $LOOP;
    add.f32 %f0, %f0, %f1;
    add.f32 %f2, %f2, %f3;
    add.f32 %f4, %f4, %f5;
    add.f32 %f6, %f6, %f7;
    add.f32 %f0, %f0, %f2;
    add.f32 %f4, %f4, %f6;
    add.f32 %f0, %f0, %f4;
    ld.param.u64 %rd1, [out];
    st.global.f32 [%rd1], %f0;
    ret;
}

// Two cp.async groups, each one 4-byte copy: the first from `in` (a line the warm-up launch
// left in the L2), the second from `in + 4096 * cold` (a line no launch read before). Then,
// by `mode`, `cp.async.wait_group 0` (0), `cp.async.wait_group 1` (1) or no wait (2), and a
// dependent chain of 16 x 16 adds, longer than a DRAM access, before the result is stored.
.visible .entry async_wait(.param .u64 out, .param .u64 in, .param .u32 cold, .param .u32 mode)
{
    .shared .align 4 .b8 s[8];
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [in];
    ld.param.u32 %r1, [cold];
    ld.param.u32 %r2, [mode];
    mul.wide.u32 %rd2, %r1, 4096;
    add.u64 %rd2, %rd1, %rd2;
    mov.u32 %r3, s;
    cp.async.ca.shared.global [%r3], [%rd1], 4;
    cp.async.commit_group;
    cp.async.ca.shared.global [%r3+4], [%rd2], 4;
    cp.async.commit_group;
    setp.eq.u32 %p1, %r2, 0;
    @%p1 bra $ALL;
    setp.eq.u32 %p1, %r2, 1;
    @%p1 bra $ONE;
    bra $CHAIN;
$ALL:
    cp.async.wait_group 0;
    bra $CHAIN;
$ONE:
    cp.async.wait_group 1;
$CHAIN:
    mov.u32 %r5, 0;
    mov.u32 %r6, 0;
$LOOP:
    add.s32 %r6, %r6, 1;
    add.s32 %r5, %r5, 1;
    setp.lt.u32 %p1, %r6, 16;
    add.s32 %r5, %r5, 1;
    add.s32 %r5, %r5, 1;
    add.s32 %r5, %r5, 1;
    add.s32 %r5, %r5, 1;
    add.s32 %r5, %r5, 1;
    add.s32 %r5, %r5, 1;
    add.s32 %r5, %r5, 1;
    add.s32 %r5, %r5, 1;
    add.s32 %r5, %r5, 1;
    add.s32 %r5, %r5, 1;
    add.s32 %r5, %r5, 1;
    add.s32 %r5, %r5, 1;
    add.s32 %r5, %r5, 1;
    add.s32 %r5, %r5, 1;
    add.s32 %r5, %r5, 1;
    @%p1 bra $LOOP;
    ld.shared.u32 %r4, [%r3+4];
    add.s32 %r4, %r4, %r5;
    ld.param.u64 %rd3, [out];
    st.global.u32 [%rd3], %r4;
    ret;
}

// Four independent m16n16k16 multiply-adds an iteration (same A, B and C, four destinations,
// all summed at the end so that each keeps registers of its own).
.visible .entry tensor_rate(.param .u64 out, .param .u32 iters)
{
    .reg .pred %p<2>;
    .reg .b32 %r<24>;
    .reg .f32 %f<48>;
    .reg .b64 %rd<2>;
    ld.param.u32 %r1, [iters];
    mov.u32 %r2, 0;
$LOOP:
    wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}, {%r8, %r9, %r10, %r11, %r12, %r13, %r14, %r15}, {%r16, %r17, %r18, %r19, %r20, %r21, %r22, %r23}, {%f40, %f41, %f42, %f43, %f44, %f45, %f46, %f47};
    wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%f8, %f9, %f10, %f11, %f12, %f13, %f14, %f15}, {%r8, %r9, %r10, %r11, %r12, %r13, %r14, %r15}, {%r16, %r17, %r18, %r19, %r20, %r21, %r22, %r23}, {%f40, %f41, %f42, %f43, %f44, %f45, %f46, %f47};
    wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%f16, %f17, %f18, %f19, %f20, %f21, %f22, %f23}, {%r8, %r9, %r10, %r11, %r12, %r13, %r14, %r15}, {%r16, %r17, %r18, %r19, %r20, %r21, %r22, %r23}, {%f40, %f41, %f42, %f43, %f44, %f45, %f46, %f47};
    wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%f24, %f25, %f26, %f27, %f28, %f29, %f30, %f31}, {%r8, %r9, %r10, %r11, %r12, %r13, %r14, %r15}, {%r16, %r17, %r18, %r19, %r20, %r21, %r22, %r23}, {%f40, %f41, %f42, %f43, %f44, %f45, %f46, %f47};
    add.s32 %r2, %r2, 1;
    setp.lt.u32 %p1, %r2, %r1;
    @%p1 bra $LOOP;
    add.f32 %f0, %f0, %f1;
    add.f32 %f0, %f0, %f2;
    add.f32 %f0, %f0, %f3;
    add.f32 %f0, %f0, %f4;
    add.f32 %f0, %f0, %f5;
    add.f32 %f0, %f0, %f6;
    add.f32 %f0, %f0, %f7;
    add.f32 %f0, %f0, %f8;
    add.f32 %f0, %f0, %f9;
    add.f32 %f0, %f0, %f10;
    add.f32 %f0, %f0, %f11;
    add.f32 %f0, %f0, %f12;
    add.f32 %f0, %f0, %f13;
    add.f32 %f0, %f0, %f14;
    add.f32 %f0, %f0, %f15;
    add.f32 %f0, %f0, %f16;
    add.f32 %f0, %f0, %f17;
    add.f32 %f0, %f0, %f18;
    add.f32 %f0, %f0, %f19;
    add.f32 %f0, %f0, %f20;
    add.f32 %f0, %f0, %f21;
    add.f32 %f0, %f0, %f22;
    add.f32 %f0, %f0, %f23;
    add.f32 %f0, %f0, %f24;
    add.f32 %f0, %f0, %f25;
    add.f32 %f0, %f0, %f26;
    add.f32 %f0, %f0, %f27;
    add.f32 %f0, %f0, %f28;
    add.f32 %f0, %f0, %f29;
    add.f32 %f0, %f0, %f30;
    add.f32 %f0, %f0, %f31;
    ld.param.u64 %rd1, [out];
    st.global.f32 [%rd1], %f0;
    ret;
}

// A counted loop: every CTA does the same work.
.visible .entry spin(.param .u32 iters)
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    ld.param.u32 %r2, [iters];
    mov.u32 %r1, 0;
$LOOP:
    add.s32 %r1, %r1, 1;
    setp.lt.u32 %p1, %r1, %r2;
    @%p1 bra $LOOP;
    ret;
}

// One thread stores (or, with store = 0, skips the same store by its predicate) and exits.
.visible .entry store_last(.param .u64 out, .param .u32 store)
{
    .reg .pred %p<2>;
    .reg .b32 %r<2>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r1, [store];
    setp.ne.u32 %p1, %r1, 0;
    @%p1 st.global.u32 [%rd1], 7;
    ret;
}

// Four reductions an iteration, each lane in its own 32-byte sector: 32 transactions each, all
// skipping the L1 (an atomic goes to the L2).
.visible .entry reductions(.param .u64 out, .param .u32 iters)
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r2, [iters];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd2, %r1, 32;
    add.s64 %rd3, %rd1, %rd2;
    mov.u32 %r3, 0;
$RED:
    red.global.add.u32 [%rd3], 1;
    red.global.add.u32 [%rd3], 1;
    red.global.add.u32 [%rd3], 1;
    red.global.add.u32 [%rd3], 1;
    add.s32 %r3, %r3, 1;
    setp.lt.u32 %p1, %r3, %r2;
    @%p1 bra $RED;
    ret;
}
"#
);

/// The `gtx480` preset with `overrides` (as `--set` takes them).
fn config(overrides: &[&str]) -> GpuConfig {
    let overrides: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    GpuConfig::load("gtx480", &overrides).unwrap()
}

fn device(cfg: &GpuConfig) -> Device {
    Device::new(DeviceConfig {
        host_threads: 1,
        timing: Some(cfg.clone()),
        ..DeviceConfig::default()
    })
    .unwrap()
}

/// Launches `kernel` once, unmeasured, so its code is in the L2 for the launches compared
/// after it (the SM's caches start cold at every launch, the L2 does not).
fn warm_up(dev: &Device, kernel: &str, grid: u32, block: u32, args: &[Arg]) {
    run(dev, kernel, grid, block, 0, args);
}

/// Launches `kernel` and returns its timing statistics.
fn run(
    dev: &Device,
    kernel: &str,
    grid: u32,
    block: u32,
    dynamic_shared: u64,
    args: &[Arg],
) -> TimingStats {
    let module = dev.load_ptx("micro.ptx", PTX).unwrap();
    dev.launch(
        &module.kernel(kernel).unwrap(),
        grid,
        block,
        dynamic_shared,
        args,
    )
    .unwrap();
    let mut report = dev.take_timing().unwrap();
    assert_eq!(report.kernels.len(), 1);
    report.kernels.pop().unwrap()
}

/// The `gtx480` preset with `overrides` and GPGPU-Sim 3.x's collector
/// (`GpuConfig::use_single_step_collector`).
fn single_step_config(overrides: &[&str]) -> GpuConfig {
    let mut cfg = config(overrides);
    cfg.use_single_step_collector();
    cfg
}

/// A dependent chain of n adds takes n × (latency + 6) cycles on gtx480: the latency of the
/// configuration's integer add, plus the six cycles of GPGPU-Sim's pipeline around it (module
/// doc); GPGPU-Sim 4.2 itself takes 10.1 cycles an add of latency 4 on SM2_GTX480
/// (docs/validation.md, `lat_iadd`). Checked with the preset's latency (4: 10 cycles an add)
/// and with `latency.int.add.latency=20` (26), so the cost follows the configured latency,
/// not a constant; with two collector steps a cycle (`gpgpu_reg_file_port_throughput 2`, the
/// modern presets) the unit takes the add at the end of t + 1's first step and reads in its
/// second, a cycle sooner: latency + 5 (GPGPU-Sim 9.2 on SM7_QV100); with GPGPU-Sim 3.x's
/// collector, reads on t + 1, dispatch on t + 2, the result on t + 2 + latency:
/// latency + 2.
#[test]
fn dependent_chain_takes_count_times_latency() {
    const CHAIN: u64 = 16;
    for (cfg, pipeline) in [
        (config(&["gpu.sms=1"]), 6),
        (config(&["gpu.sms=1", "latency.int.add.latency=20"]), 6),
        (config(&["gpu.sms=1", "sm.rf.collector_steps=2"]), 5),
        (single_step_config(&["gpu.sms=1"]), 2),
    ] {
        let latency = u64::from(cfg.latency.int.add.latency);
        let dev = device(&cfg);
        let scratch = dev.alloc_from(&[0u32]).unwrap();
        warm_up(&dev, "chain", 1, 1, &[(&scratch).into(), Arg::U32(1)]);
        let mut cycles = Vec::new();
        for iters in [10u32, 20] {
            let out = dev.alloc_from(&[0u32]).unwrap();
            let s = run(&dev, "chain", 1, 1, 0, &[(&out).into(), Arg::U32(iters)]);
            assert_eq!(out.to_host().unwrap(), [iters * CHAIN as u32]);
            assert_eq!(s.rf.bank_conflicts, 0);
            cycles.push(s.gpu_sim_cycle);
        }
        let per_iteration = (cycles[1] - cycles[0]) / 10;
        eprintln!("latency {latency}: {cycles:?} cycles, {per_iteration} per iteration");
        assert_eq!(
            cycles[1] - cycles[0],
            10 * CHAIN * (latency + pipeline),
            "latency {latency} + {pipeline} cycles of pipeline"
        );
    }
}

/// `%clock64` reads the SM cycle at which the instruction issues (GPGPU-Sim's `%clock`: the
/// functional execution happens at issue, `shader_core_ctx::issue_warp`, and the register reads
/// `gpu_sim_cycle + gpu_tot_sim_cycle`, `ptx_thread_info::get_builtin`). Two reads around
/// the dependent chain of [`dependent_chain_takes_count_times_latency`]: 10 more iterations
/// of 16 dependent adds read 10 × 16 × (latency + 6) more cycles, the configured integer add
/// latency (gtx480.toml: `int.add.latency = 4`, so 10 cycles an add; 26 with
/// `latency.int.add.latency=20`) plus the pipeline around it; identically under the
/// interpreter and compiled code. Without the timing model the reads count the warp's
/// instructions: 10 iterations of 19 instructions (16 adds, the counter's add, its compare and
/// the branch) read 190 more.
#[test]
fn clock64_reads_the_cycle_of_issue() {
    use emulator::launch::Engine;
    const CHAIN: u64 = 16;
    let measure = |dev: &Device, iters: u32| {
        let out = dev.alloc_from(&[0u64, 0]).unwrap();
        let module = dev.load_ptx("micro.ptx", PTX).unwrap();
        let kernel = module.kernel("clocked_chain").unwrap();
        dev.launch(&kernel, 1, 1, 0, &[(&out).into(), Arg::U32(iters)])
            .unwrap();
        let got = out.to_host().unwrap();
        assert_eq!(got[1], u64::from(iters) * CHAIN);
        got[0]
    };
    for latency in [4u64, 20] {
        let set = format!("latency.int.add.latency={latency}");
        let cfg = config(&["gpu.sms=1", &set]);
        assert_eq!(u64::from(cfg.latency.int.add.latency), latency);
        let mut by_engine = Vec::new();
        for engine in [Engine::Interpreter, Engine::Jit] {
            let dev = Device::new(DeviceConfig {
                host_threads: 1,
                engine,
                timing: Some(cfg.clone()),
                ..DeviceConfig::default()
            })
            .unwrap();
            measure(&dev, 1); // brings the code into the L2 (as `warm_up`)
            let (short, long) = (measure(&dev, 10), measure(&dev, 20));
            eprintln!("latency {latency}, {engine:?}: {short} and {long} cycles");
            assert_eq!(long - short, 10 * CHAIN * (latency + 6), "{engine:?}");
            by_engine.push((short, long));
        }
        assert_eq!(by_engine[0], by_engine[1], "interpreter and compiled code");
    }
    for engine in [Engine::Interpreter, Engine::Jit] {
        let dev = Device::new(DeviceConfig {
            host_threads: 1,
            engine,
            ..DeviceConfig::default()
        })
        .unwrap();
        assert_eq!(measure(&dev, 20) - measure(&dev, 10), 10 * 19, "{engine:?}");
    }
}

/// Independent adds from enough warps issue at the issue rate: one warp instruction per
/// scheduler per cycle (`sm.issue_width` = 1 on gtx480). 16 warps hide the loop's compare and
/// branch, and the two SP pipelines (initiation interval 1) take two adds a cycle.
///
/// - One scheduler: exactly 1 warp instruction per cycle.
/// - Two schedulers with 4-instruction fetches (`sm.fetch_width=4`, `sm.ibuffer_entries=4`):
///   exactly 2 per cycle.
/// - Two schedulers with the preset's fetch (one warp's 2 instructions per SM per cycle):
///   fetch supplies exactly what the two schedulers consume, so every cycle in which the
///   fetch stage finds no warp with an empty instruction buffer is an issue slot lost for
///   good: 1.988 per cycle measured (11520 instructions in 5794 cycles). Checked as at most
///   2, no more than the 4-wide fetch gives, and well above one scheduler's rate (1.5): both
///   schedulers issue.
///
/// With GPGPU-Sim 3.x's collector (`single_step_config`), as these rates were worked out: with the
/// preset's deeper pipeline one scheduler issues 0.981 a cycle here (11,520 instructions in
/// 11,740 cycles; about 8 fetch-stall and 3 scoreboard-stall cycles an iteration, at the
/// loop's turn, not analysed), and with more warps (32) as much.
#[test]
fn independent_alu_operations_issue_at_the_issue_width() {
    // Cycles of the two-scheduler run with 4-instruction fetches (it runs before the 2-wide one).
    let mut wide_fetch_cycles = 0;
    for (schedulers, fetch) in [(1u32, 2u32), (2, 4), (2, 2)] {
        let s = format!("sm.schedulers={schedulers}");
        let f = format!("sm.fetch_width={fetch}");
        let b = format!("sm.ibuffer_entries={fetch}");
        let cfg = single_step_config(&["gpu.sms=1", &s, &f, &b]);
        assert_eq!(cfg.sm.issue_width, 1);
        let dev = device(&cfg);
        warm_up(&dev, "independent", 1, 16 * 32, &[Arg::U32(1)]);
        let short = run(&dev, "independent", 1, 16 * 32, 0, &[Arg::U32(20)]);
        let long = run(&dev, "independent", 1, 16 * 32, 0, &[Arg::U32(40)]);
        let insts = long.warp_insts - short.warp_insts;
        let cycles = long.gpu_sim_cycle - short.gpu_sim_cycle;
        eprintln!(
            "{schedulers} scheduler(s), fetch {fetch}: {insts} warp instructions in {cycles} cycles ({:.3} per cycle)",
            insts as f64 / cycles as f64
        );
        // 16 warps × 20 iterations × 36 instructions.
        assert_eq!(insts, 16 * 20 * 36);
        let peak = cycles * u64::from(schedulers * cfg.sm.issue_width);
        if schedulers * cfg.sm.issue_width < fetch {
            assert_eq!(insts, peak, "{schedulers} scheduler(s), fetch {fetch}");
            wide_fetch_cycles = cycles;
        } else {
            assert!(
                insts <= peak && cycles >= wide_fetch_cycles && 2 * insts > 3 * cycles,
                "{schedulers} scheduler(s), fetch {fetch}: {insts} in {cycles} cycles"
            );
        }
    }
}

/// Sub-cores (`sm.sub_cores`, v100): a warp's instructions go to its own sub-core's pipelines
/// only. One warp of independent SFU operations on one v100 SM (SFU latency 20): with sub-cores
/// its one SFU pipeline (initiation interval 8) takes the iteration's 8 operations in exactly 64 cycles;
/// sharing the SM's 4 SFU pipelines, it takes under half of that (21 cycles measured: each
/// operation then waits only for the previous iteration's write of its register).
#[test]
fn with_sub_cores_a_warp_uses_only_its_own_pipelines() {
    let mut per_iteration = Vec::new();
    for sub_cores in ["true", "false"] {
        let set = format!("sm.sub_cores={sub_cores}");
        // An SFU latency under the 64 cycles of an iteration (v100's is SM7_QV100's 100): the
        // iteration is then bound by the pipelines, not by each operation's previous write.
        let overrides: Vec<String> = ["gpu.sms=1", "latency.sfu.latency=20", set.as_str()]
            .map(String::from)
            .to_vec();
        let cfg = GpuConfig::load("v100", &overrides).unwrap();
        assert_eq!((cfg.sm.units.sfu, cfg.latency.sfu.initiation), (4, 8));
        let dev = device(&cfg);
        let out = dev.alloc_from(&[0f32]).unwrap();
        let args = |iters| [(&out).into(), Arg::U32(iters)];
        warm_up(&dev, "sfu_independent", 1, 32, &args(1));
        let short = run(&dev, "sfu_independent", 1, 32, 0, &args(10));
        let long = run(&dev, "sfu_independent", 1, 32, 0, &args(20));
        per_iteration.push((long.gpu_sim_cycle - short.gpu_sim_cycle) as f64 / 10.0);
    }
    eprintln!("cycles per iteration, with and without sub-cores: {per_iteration:?}");
    assert_eq!(per_iteration[0], 64.0);
    assert!(per_iteration[1] < 32.0, "{per_iteration:?}");
}

/// Lane t reading word t × stride: stride 1 touches 32 banks once (no conflict); strides 2,
/// 4 and 32 put 2, 4 and 32 distinct words in one bank (2-, 4- and 32-way conflicts). A
/// k-way conflict replays the request k − 1 times, and each replay holds the LD/ST unit one
/// more cycle, so an iteration of four dependent loads costs 4 × (shared latency + 4 + k − 1):
/// the 4 are the issue latch, the read of the address, dispatch and the LD/ST latch (the
/// LD/ST unit has no execute latches). The address is a 64-bit PTX
/// register, but a shared-window offset keeps only its low half, one 32-bit register (as in
/// ptxas's code; `isa::storage`), read in one cycle.
#[test]
fn shared_memory_bank_conflicts_replay_proportionally() {
    let cfg = config(&["gpu.sms=1"]);
    assert_eq!((cfg.mem.shared.banks, cfg.mem.shared.bank_bytes), (32, 4));
    let latency = u64::from(cfg.mem.shared.latency);
    let dev = device(&cfg);
    warm_up(&dev, "shared_stride", 1, 32, &[Arg::U32(1), Arg::U32(1)]);
    for (stride, ways) in [(1u32, 1u64), (2, 2), (4, 4), (32, 32)] {
        let a = run(
            &dev,
            "shared_stride",
            1,
            32,
            0,
            &[Arg::U32(stride), Arg::U32(10)],
        );
        let b = run(
            &dev,
            "shared_stride",
            1,
            32,
            0,
            &[Arg::U32(stride), Arg::U32(20)],
        );
        let per_iteration = (b.gpu_sim_cycle - a.gpu_sim_cycle) / 10;
        eprintln!(
            "stride {stride}: {} requests, {} replays, {per_iteration} cycles per iteration",
            b.ldst.shared_requests, b.ldst.shared_replays
        );
        assert_eq!(b.ldst.shared_requests, 20 * 4, "stride {stride}");
        assert_eq!(
            b.ldst.shared_replays,
            b.ldst.shared_requests * (ways - 1),
            "stride {stride}"
        );
        assert_eq!(
            b.gpu_sim_cycle - a.gpu_sim_cycle,
            10 * 4 * (latency + 4 + ways - 1),
            "stride {stride}"
        );
    }
}

/// A warp's 4-byte loads coalesce into 128-byte lines and 32-byte sectors: consecutive words
/// are one line and 4 sectors; stride 2 spans 256 bytes (2 lines, 8 sectors); stride 8 puts
/// each lane in its own sector, four sectors per line (8 lines, 32 sectors); stride 32 puts
/// each lane in its own line (32 lines, 32 sectors). Every line is one L1 access (all cold
/// misses here), and the strided request takes longer.
#[test]
fn coalesced_and_strided_global_loads() {
    let cfg = config(&["gpu.sms=1"]);
    assert_eq!((cfg.mem.l1d.line, cfg.mem.sector), (128, 32));
    let dev = device(&cfg);
    let input = dev.alloc_from(&vec![0u32; 32 * 32]).unwrap();
    warm_up(
        &dev,
        "global_stride",
        1,
        32,
        &[(&input).into(), Arg::U32(1)],
    );
    let mut cycles = Vec::new();
    for (stride, lines, sectors) in [(1u32, 1u64, 4u64), (2, 2, 8), (8, 8, 32), (32, 32, 32)] {
        let s = run(
            &dev,
            "global_stride",
            1,
            32,
            0,
            &[(&input).into(), Arg::U32(stride)],
        );
        eprintln!("stride {stride}: {:?}, {} cycles", s.ldst, s.gpu_sim_cycle);
        let l = &s.ldst;
        assert_eq!(
            (l.global_requests, l.global_transactions, l.global_sectors),
            (1, lines, sectors),
            "stride {stride}"
        );
        assert_eq!(
            (s.mem.l1d_accesses, s.mem.l1d_misses),
            (lines, lines),
            "stride {stride}"
        );
        cycles.push(s.gpu_sim_cycle);
    }
    assert!(cycles[0] < cycles[3], "{cycles:?}");
}

/// A warp exits only once its stores are acknowledged (GPGPU-Sim's `hardware_done` needs
/// `stores_done`), so a kernel whose last instruction before `ret` is a store lasts until the
/// store's acknowledgement is back: on gtx480 the L1's pipeline (35), the interconnect both
/// ways (2 × 7) and the L2's latency (120), 169 cycles after the store reaches the LD/ST unit
/// (a store is written into the L2 without reading DRAM), which is 4 cycles after its issue
/// (the issue latch, the read of its address, dispatch, the LD/ST latch), and it completes
/// the cycle after: 174 cycles after its issue. With the store predicated off the kernel ends
/// with its `ret`, issued 2 cycles after the store and complete 2 + 2 + 3 cycles later (the
/// issue latch and dispatch, the branch latency, the execute latches): 9. So 165 cycles more
/// with the store.
/// Before, a store completed once the L1 took it.
#[test]
fn a_warp_exits_once_its_stores_are_acknowledged() {
    let cfg = config(&["gpu.sms=1"]);
    let (l1, icnt, l2) = (
        u64::from(cfg.mem.l1d.latency),
        u64::from(cfg.mem.icnt_latency),
        u64::from(cfg.mem.l2.slice.latency),
    );
    assert_eq!(l1 + 2 * icnt + l2, 169);
    let ret_done = 2 + 2 + u64::from(cfg.latency.branch.latency + cfg.sm.execute_latches);
    assert_eq!(ret_done, 9);
    let dev = device(&cfg);
    let out = dev.alloc_from(&[0u32]).unwrap();
    warm_up(&dev, "store_last", 1, 1, &[(&out).into(), Arg::U32(0)]);
    let skipped = run(&dev, "store_last", 1, 1, 0, &[(&out).into(), Arg::U32(0)]);
    let stored = run(&dev, "store_last", 1, 1, 0, &[(&out).into(), Arg::U32(1)]);
    assert_eq!(out.to_host().unwrap(), [7]);
    let extra = stored.gpu_sim_cycle - skipped.gpu_sim_cycle;
    assert_eq!(extra, 4 + 169 + 1 - ret_done, "the store's acknowledgement");
}

/// Transactions that skip the L1 leave the LD/ST unit one a cycle, as GPGPU-Sim's bypass
/// path pushes one access a cycle to the interconnect (`ldst_unit::memory_cycle`), though the
/// L1 takes four a cycle here: a reduction of 32 lanes in 32 sectors holds the unit 32
/// cycles, so four an iteration cost 128 cycles (a cycle more each between instructions at
/// most). Through the L1 they would take 8 each.
#[test]
fn transactions_skipping_the_l1_leave_one_a_cycle() {
    let cfg = config(&["gpu.sms=1", "mem.l1_requests_per_cycle=4"]);
    let dev = device(&cfg);
    let out = dev.alloc_from(&vec![0u32; 32 * 8]).unwrap();
    let args = |n: u32| [(&out).into(), Arg::U32(n)];
    warm_up(&dev, "reductions", 1, 32, &args(1));
    let n = 16;
    let once = run(&dev, "reductions", 1, 32, 0, &args(n)).gpu_sim_cycle;
    let twice = run(&dev, "reductions", 1, 32, 0, &args(2 * n)).gpu_sim_cycle;
    let per_reduction = (twice - once) as f64 / f64::from(4 * n);
    assert!(
        (32.0..=33.0).contains(&per_reduction),
        "{per_reduction} cycles a reduction"
    );
    let words = out.to_host().unwrap();
    assert!(words.iter().step_by(8).all(|&w| w == 4 * (1 + 3 * n)));
}

/// `cp.async.wait_group n` holds the warp until at most its `n` most recent groups are
/// incomplete, and copies not waited for overlap the work after them: with a first group
/// whose line is in the L2 and a second whose line is cold, waiting for both (`wait_group 0`)
/// costs about a DRAM access more than not waiting, and waiting for the first only
/// (`wait_group 1`) an L2 access. (Without a wait the kernel still lasts until its copies
/// complete, which the 256-add chain after them outlasts.) Each copy is one global request.
#[test]
fn cp_async_wait_group_waits_for_the_older_groups_only() {
    let dev = device(&config(&["gpu.sms=1"]));
    let input: Vec<u32> = (0..4 * 1024).collect();
    let input = dev.alloc_from(&input).unwrap();
    let args = |cold: u32, mode: u32, out: &runtime::DeviceBuffer<u32>| {
        [
            (out).into(),
            (&input).into(),
            Arg::U32(cold),
            Arg::U32(mode),
        ]
    };
    let out = dev.alloc_from(&[0u32]).unwrap();
    warm_up(&dev, "async_wait", 1, 32, &args(0, 2, &out));
    let mut cycles = Vec::new();
    for (cold, mode) in [(1u32, 2u32), (2, 1), (3, 0)] {
        let s = run(&dev, "async_wait", 1, 32, 0, &args(cold, mode, &out));
        // The second copy's word, plus the chain's 256.
        assert_eq!(out.to_host().unwrap(), [cold * 1024 + 256], "mode {mode}");
        // The two copies and the store.
        assert_eq!(s.ldst.global_requests, 3, "mode {mode}");
        cycles.push(s.gpu_sim_cycle);
    }
    eprintln!("no wait, wait_group 1, wait_group 0: {cycles:?} cycles");
    let (none, one, all) = (cycles[0], cycles[1], cycles[2]);
    assert!(none < one && one < all, "{cycles:?}");
    // A DRAM access takes far longer than an L2 hit.
    assert!(all - none > 2 * (one - none), "{cycles:?}");
}

/// One warp's independent `wmma.mma`s issue to its sub-core's tensor pipeline once per
/// initiation interval (`latency.tensor`, for an m16n16k16): four an iteration take 4 × 32
/// cycles on v100; on a100 (16) they no longer outlast the wait of each iteration's first
/// multiply-add for the previous iteration's to write its destination (the 64-cycle latency
/// plus the 2 of collection and dispatch). Each counts in the tensor class. The scoreboard
/// gets 64 entries: the presets' 16 hold two multiply-adds' 8 destination registers each,
/// which would bound one warp to two in flight.
#[test]
fn tensor_multiply_adds_issue_at_the_initiation_interval() {
    for (preset, per_iteration) in [("v100", 4 * 32), ("a100", 64 + 2)] {
        let overrides = ["gpu.sms=1", "sm.scoreboard_entries=64"].map(String::from);
        let cfg = GpuConfig::load(preset, &overrides).unwrap();
        assert_eq!(cfg.latency.tensor.latency, 64);
        let dev = device(&cfg);
        let out = dev.alloc_from(&[0f32]).unwrap();
        warm_up(&dev, "tensor_rate", 1, 32, &[(&out).into(), Arg::U32(1)]);
        let mut cycles = Vec::new();
        for iters in [10u32, 20] {
            let s = run(
                &dev,
                "tensor_rate",
                1,
                32,
                0,
                &[(&out).into(), Arg::U32(iters)],
            );
            let tensor = &s.by_class[timing::decode::OpClass::Tensor.index()];
            assert_eq!(tensor.warp_insts, u64::from(4 * iters), "{preset}");
            cycles.push(s.gpu_sim_cycle);
        }
        eprintln!("{preset}: {cycles:?} cycles");
        assert_eq!(
            (cycles[1] - cycles[0]) / 10,
            per_iteration,
            "{preset}: {cycles:?}"
        );
    }
}

/// One limiter case: a block shape, dynamic shared memory, registers per thread (as
/// `ptxas -v` would report them), configuration overrides, and the expected CTAs per SM and
/// limiter.
struct Limit {
    block: u32,
    shared: u64,
    regs: Option<u32>,
    overrides: &'static [&'static str],
    ctas: u32,
    limiter: Limiter,
}

/// CTAs per SM limited by each resource in turn (gtx480: 1536 threads, 48 warps, 8 CTAs,
/// 32768 registers, 48 KB shared memory per SM), and the limit enforced: on one SM, `ctas`
/// CTAs run as one wave, and one CTA more has to wait for the first wave to finish, so the
/// launch takes about twice as long (a limit too high would leave it about as long). For the
/// waves to show, every warp is latency-bound: `latency.int.add.latency=400` makes the
/// loop's add → compare → branch chain over 400 cycles an iteration, so the 72 cycles in
/// which two schedulers issue 48 warps' three instructions hide behind it and a CTA takes
/// about as long alone as on a full SM; 32 iterations, so that what a launch costs once
/// (its start, the parameter loads, the drain) is small beside a wave.
#[test]
fn occupancy_is_limited_by_each_resource_in_turn() {
    let cases = [
        // 64 threads: 24 by threads, 24 by warps, 8 CTA slots.
        Limit {
            block: 64,
            shared: 0,
            regs: None,
            overrides: &[],
            ctas: 8,
            limiter: Limiter::CtaSlots,
        },
        // 512 threads: 3 by threads; 48 / 16 = 3 by warps too (gtx480's 1536 threads are
        // exactly 48 warps, so the two always tie; threads is named first).
        Limit {
            block: 512,
            shared: 0,
            regs: None,
            overrides: &[],
            ctas: 3,
            limiter: Limiter::Threads,
        },
        // Warps cannot limit alone: a valid configuration has at most 32 threads per warp
        // slot (`sm.max_threads` ≤ 32 × `sm.max_warps`) and CTAs occupy whole warps, so the
        // thread limit is never above the warp limit and, named first, wins the tie. With 40
        // warps, 1280 threads and 32 CTA slots, 96-thread CTAs: 13 by threads and by warps.
        Limit {
            block: 96,
            shared: 0,
            regs: None,
            overrides: &["sm.max_warps=40", "sm.max_threads=1280", "sm.max_ctas=32"],
            ctas: 13,
            limiter: Limiter::Threads,
        },
        // 37 registers round up to 40 (granularity 4): 256 × 40 = 10240 per CTA, 3 fit
        // (6 by threads).
        Limit {
            block: 256,
            shared: 0,
            regs: Some(37),
            overrides: &[],
            ctas: 3,
            limiter: Limiter::Registers,
        },
        // 16 KB of shared memory per CTA: 3 fit (12 by threads).
        Limit {
            block: 128,
            shared: 16 * 1024,
            regs: None,
            overrides: &[],
            ctas: 3,
            limiter: Limiter::SharedMemory,
        },
    ];
    for case in &cases {
        let mut overrides = vec!["gpu.sms=1", "latency.int.add.latency=400"];
        overrides.extend_from_slice(case.overrides);
        let cfg = config(&overrides);
        let dev = Device::new(DeviceConfig {
            host_threads: 1,
            timing: Some(cfg.clone()),
            kernel_registers: case
                .regs
                .map(|r| [("spin".to_string(), r)].into())
                .unwrap_or_default(),
            ..DeviceConfig::default()
        })
        .unwrap();
        let mut cycles = Vec::new();
        for grid in [case.ctas, case.ctas + 1] {
            let s = run(&dev, "spin", grid, case.block, case.shared, &[Arg::U32(32)]);
            let occ = s.occupancy.unwrap();
            assert_eq!(
                (occ.ctas_per_sm, occ.limiter),
                (case.ctas, case.limiter),
                "block {} ({:?})",
                case.block,
                case.limiter
            );
            if let Some(r) = case.regs {
                assert_eq!(occ.regs_per_thread, r.next_multiple_of(4));
            }
            cycles.push(s.gpu_sim_cycle);
        }
        eprintln!(
            "{:?}: {} CTAs per SM; {} CTAs take {} cycles, {} take {}",
            case.limiter,
            case.ctas,
            case.ctas,
            cycles[0],
            case.ctas + 1,
            cycles[1]
        );
        assert!(
            10 * cycles[1] > 19 * cycles[0],
            "{:?}: one CTA over the limit waits for a second wave: {cycles:?}",
            case.limiter
        );
    }
}

/// Assumed register counts are looked up as `FILE:KERNEL` first (kernel names repeat across
/// PTX files), then as a bare kernel name.
#[test]
fn assumed_registers_are_keyed_by_file_and_kernel() {
    let regs = |map: &[(&str, u32)]| {
        let dev = Device::new(DeviceConfig {
            host_threads: 1,
            timing: Some(config(&["gpu.sms=1"])),
            kernel_registers: map.iter().map(|(k, r)| (k.to_string(), *r)).collect(),
            ..DeviceConfig::default()
        })
        .unwrap();
        let s = run(&dev, "spin", 1, 64, 0, &[Arg::U32(1)]);
        s.occupancy.unwrap().regs_per_thread
    };
    assert_eq!(regs(&[("spin", 20)]), 20);
    assert_eq!(regs(&[("micro.ptx:spin", 40), ("spin", 20)]), 40);
    assert_eq!(regs(&[("other.ptx:spin", 40), ("spin", 20)]), 20);
}
