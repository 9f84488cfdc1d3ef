//! Read coalescing in the pipeline (CMRC, CORF, CORF++), with exact cycle counts: a dependent
//! chain `r1 = r1 + r5` whose two source registers are read with one bank access in one cycle
//! when the technique coalesces them, and in two otherwise (the baseline's collector unit
//! reads one operand per cycle).
//!
//! As in `timing_micro.rs`, a kernel runs for n and 2n iterations and the difference is the
//! exact cost of n iterations. A dependent add follows its producer by latency + 2 cycles when
//! its operands are collected in one cycle (issue, collect, dispatch, execute), one more when
//! they take two. warpsim allocates `%r5` to R0 and `%r1` to R1 (`warpsim dis`): under the
//! `wid` mapping both live in the warp's bank at entries 0 (even: right-aligned) and 1 (odd:
//! left-aligned); under `wshift` with 16 banks they are in banks 0 and 1, both at entry 0 of
//! their bank, so both right-aligned. For CORF, R0 and R1 are the heaviest edge of the
//! affinity graph (16 reads together per iteration), an exclusive pair; for CORF++, R0 is
//! right-aligned and R1 left-aligned.

use runtime::{Arg, Device, DeviceConfig};
use timing::rf::TechniqueReport;
use timing::{GpuConfig, TimingStats};

const PTX: &str = r#"
.version 8.8
.target sm_70
.address_size 64

// 16 dependent adds r1 = r1 + r5 per iteration; r5 = %tid.x + step (one thread: step).
.visible .entry pair(.param .u64 out, .param .u32 iters, .param .u32 step)
{
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<2>;
    ld.param.u32 %r2, [iters];
    ld.param.u32 %r6, [step];
    mov.u32 %r5, %tid.x;
    add.u32 %r5, %r5, %r6;
    mov.u32 %r1, 0;
    mov.u32 %r3, 0;
$LOOP:
    add.s32 %r3, %r3, 1;
    add.s32 %r1, %r1, %r5;
    setp.lt.u32 %p1, %r3, %r2;
    add.s32 %r1, %r1, %r5;
    add.s32 %r1, %r1, %r5;
    add.s32 %r1, %r1, %r5;
    add.s32 %r1, %r1, %r5;
    add.s32 %r1, %r1, %r5;
    add.s32 %r1, %r1, %r5;
    add.s32 %r1, %r1, %r5;
    add.s32 %r1, %r1, %r5;
    add.s32 %r1, %r1, %r5;
    add.s32 %r1, %r1, %r5;
    add.s32 %r1, %r1, %r5;
    add.s32 %r1, %r1, %r5;
    add.s32 %r1, %r1, %r5;
    add.s32 %r1, %r1, %r5;
    add.s32 %r1, %r1, %r5;
    @%p1 bra $LOOP;
    ld.param.u64 %rd1, [out];
    st.global.u32 [%rd1], %r1;
    ret;
}
"#;

const CHAIN: u64 = 16;

/// Cycles per chain add for `step` under `technique` and `mapping`.
fn cycles_per_add(technique: &str, mapping: &str, step: u32) -> u64 {
    chain(technique, mapping, step).0
}

/// Cycles per chain add for `step` under `technique` and `mapping`, and the technique's
/// counters of the 10-iteration and the 20-iteration runs.
fn chain(technique: &str, mapping: &str, step: u32) -> (u64, TechniqueReport, TechniqueReport) {
    let overrides = [
        "gpu.sms=1".to_string(),
        format!("sm.rf.technique={technique}"),
        format!("sm.rf.mapping={mapping}"),
    ];
    let cfg = GpuConfig::load("gtx480", &overrides).unwrap();
    let dev = Device::new(DeviceConfig {
        host_threads: 1,
        timing: Some(cfg),
        ..DeviceConfig::default()
    })
    .unwrap();
    let module = dev.load_ptx("pair.ptx", PTX).unwrap();
    let kernel = module.kernel("pair").unwrap();
    let run = |iters: u32| -> TimingStats {
        let out = dev.alloc_from(&[0u32]).unwrap();
        let args = [(&out).into(), Arg::U32(iters), Arg::U32(step)];
        dev.launch(&kernel, 1, 1, 0, &args).unwrap();
        let sum = step.wrapping_mul(iters * CHAIN as u32);
        assert_eq!(out.to_host().unwrap(), [sum]);
        dev.take_timing().unwrap().kernels.pop().unwrap()
    };
    // Unmeasured: brings the code into the L2 (the SM's caches start cold at every launch).
    run(1);
    let (short, long) = (run(10), run(20));
    let per_add = (long.gpu_sim_cycle - short.gpu_sim_cycle) / (10 * CHAIN);
    assert_eq!(
        (long.gpu_sim_cycle - short.gpu_sim_cycle) % (10 * CHAIN),
        0,
        "{technique} {mapping} step {step}: {} and {} cycles",
        short.gpu_sim_cycle,
        long.gpu_sim_cycle
    );
    (per_add, short.technique, long.technique)
}

#[test]
fn a_narrow_pair_in_an_even_and_an_odd_entry_is_read_in_one_cycle() {
    let latency = u64::from(GpuConfig::preset("gtx480").latency.int.add.latency);
    // Baseline: two operands, one per cycle.
    assert_eq!(cycles_per_add("baseline", "wid", 1), latency + 3);
    // CMRC: r1 (odd entry, under 2 bytes: 1000 or 1100) and r5 (even, 1 byte: 0001) share the
    // bank access and the collector port.
    assert_eq!(cycles_per_add("cmrc", "wid", 1), latency + 2);
    // A full-width r5 (1111) overlaps r1's slices: two cycles again.
    assert_eq!(cycles_per_add("cmrc", "wid", 0x1234_5678), latency + 3);
    // Under wshift both are at entry 0 of their banks, both right-aligned: their slices
    // overlap in the collector port, which takes one per slice.
    assert_eq!(cycles_per_add("cmrc", "wshift", 1), latency + 3);
}

#[test]
fn corf_reads_a_packed_pair_with_one_access() {
    let latency = u64::from(GpuConfig::preset("gtx480").latency.int.add.latency);
    for mapping in ["wid", "wshift"] {
        // r5 (1 byte) takes an empty physical register, right-aligned; its partner r1 the
        // high slices: one access reads both.
        let (per_add, short, long) = chain("corf", mapping, 1);
        assert_eq!(per_add, latency + 2, "{mapping}");
        let more = |k: &str| long.counters[k] - short.counters[k];
        // Ten more iterations: 160 more chain adds, each reading the pair with one access.
        assert_eq!(more("coalesced_reads"), 10 * CHAIN, "{mapping}");
        // r1 = 16 x iterations passes 127 once in either run: 1 byte to 2, reallocated once
        // (into the same physical register, beside the 1-byte r5).
        assert_eq!(short.counters["reallocations"], 1, "{mapping}");
        assert_eq!(long.counters["reallocations"], 1, "{mapping}");
        // Packed beside a partner: r1 at its first write and again when it grows, and the
        // high half of the output address beside its low half (R2 and R3, the other exclusive
        // pair, read together by the final store).
        assert_eq!(long.counters["pairs_packed"], 3, "{mapping}");
        // A full-width r5 leaves no room for r1: two accesses.
        assert_eq!(cycles_per_add("corf", mapping, 0x1234_5678), latency + 3);
    }
}

#[test]
fn corf_plus_plus_reads_disjoint_slices_of_one_bank_with_one_access() {
    let latency = u64::from(GpuConfig::preset("gtx480").latency.int.add.latency);
    // CORF++ places every register of a warp in one bank whatever the mapping says.
    for mapping in ["wid", "wshift"] {
        let (per_add, short, long) = chain("corf++", mapping, 1);
        assert_eq!(per_add, latency + 2, "{mapping}");
        assert_eq!(
            long.counters["coalesced_reads"] - short.counters["coalesced_reads"],
            10 * CHAIN
        );
        // A full-width r5 overlaps every slice.
        assert_eq!(cycles_per_add("corf++", mapping, 0x1234_5678), latency + 3);
    }
}
