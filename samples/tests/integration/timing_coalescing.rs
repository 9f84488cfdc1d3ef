//! Read coalescing (CMRC, CORF, CORF++) and operand bypassing (BOW, BOW-WR, the register-file
//! cache) in the pipeline, with exact cycle and access counts. Coalescing: a dependent
//! chain `r1 = r1 + r5` whose two source registers are read with one bank access in one cycle
//! when the technique coalesces them, and in two otherwise (the baseline's collector unit
//! reads one operand per cycle).
//!
//! The SM is gtx480's with GPGPU-Sim 3.x's operand collector, the seeds' baseline
//! (`GpuConfig::use_single_step_collector`: one step a cycle, one operand a unit a step, no
//! pipeline latches). As in `timing_micro.rs`, a kernel runs for n and 2n iterations and the difference is the
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
        format!("sm.rf.technique={technique}"),
        format!("sm.rf.mapping={mapping}"),
    ];
    let (cycles, short, long) = iterations(&overrides, step);
    let what = format!("{technique} {mapping} step {step}: {cycles} cycles per iteration");
    assert_eq!(cycles % CHAIN, 0, "{what}");
    (cycles / CHAIN, short, long)
}

/// Cycles per loop iteration on gtx480 with `overrides` (one SM), and the technique's
/// counters of the 10-iteration and the 20-iteration runs.
fn iterations(overrides: &[String], step: u32) -> (u64, TechniqueReport, TechniqueReport) {
    let mut overrides = overrides.to_vec();
    overrides.push("gpu.sms=1".to_string());
    let mut cfg = GpuConfig::load("gtx480", &overrides).unwrap();
    cfg.use_single_step_collector();
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
    let cycles = long.gpu_sim_cycle - short.gpu_sim_cycle;
    assert_eq!(
        cycles % 10,
        0,
        "{overrides:?}: {cycles} cycles for 10 iterations"
    );
    (cycles / 10, short.technique, long.technique)
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

/// The chain under BOW (seed 000, ch. 3) and the register-file cache, on gtx480 with one
/// bypassing collector per warp. Per iteration the warp runs `add r3` (reads r3 of the last
/// iteration, far back), the 16 chain adds, `setp` (reads r3 two instructions after its write;
/// `iters` is a launch constant, no register) and the branch: 34 register reads, 17 results.
/// `r5` is read by every chain add and written only before the loop; `r1` is written by each
/// chain add and read by the next; the first chain add reads the r1 and r5 of the 16th, three
/// instructions back (branch, `add r3`).
fn bypass(technique: &str, extra: &[&str]) -> (u64, TechniqueReport, TechniqueReport) {
    let mut overrides = vec![format!("sm.rf.technique={technique}")];
    overrides.extend(extra.iter().map(|s| s.to_string()));
    iterations(&overrides, 1)
}

fn delta(short: &TechniqueReport, long: &TechniqueReport, key: &str) -> u64 {
    long.counters[key] - short.counters[key]
}

#[test]
fn bow_forwards_operands_reused_within_the_window_and_reads_the_others() {
    let latency = u64::from(GpuConfig::preset("gtx480").latency.int.add.latency);
    let (baseline, ..) = bypass("baseline", &[]);
    assert_eq!(baseline, CHAIN * (latency + 3));
    // IW = 3: every chain add but the first finds r1 and r5 in its collector (distance 1, or
    // 2 across the setp) and dispatches the cycle after it issues; the first reads both from
    // the banks (distance 3). setp forwards r3 (distance 2) and reads r2; add r3 reads r3.
    let (cycles, short, long) = bypass("bow", &[]);
    let d = |k| delta(&short, &long, k);
    assert_eq!(d("operand_reads"), 10 * 34);
    assert_eq!(d("forwarded_reads"), 10 * (15 * 2 + 1));
    // Write-through: each of the 17 results reaches the register file.
    assert_eq!(d("rf_writes"), 10 * 17);
    assert_eq!(cycles, (CHAIN - 1) * (latency + 1) + (latency + 3));
    // IW = 2: the add after the setp reads r1 and r5 from the banks too, and so does the setp
    // its r3.
    let (cycles, short, long) = bypass("bow", &["sm.rf.bow.window=2"]);
    let d = |k| delta(&short, &long, k);
    assert_eq!(d("forwarded_reads"), 10 * 14 * 2);
    assert_eq!(cycles, (CHAIN - 2) * (latency + 1) + 2 * (latency + 3));
}

#[test]
fn bow_wr_keeps_transient_results_out_of_the_register_file() {
    let (_, short, long) = bypass("bow-wr", &[]);
    let d = |k| delta(&short, &long, k);
    // Chain adds 1 to 15: r1 is read by the next add, which overwrites it: transient, never
    // written (the next add's result consolidates it). The 16th's r1 is read three
    // instructions later: the register file only. add r3's result is read by the setp within
    // the window and live after it: written when it leaves the window.
    assert_eq!(d("register_writes"), 10 * 17);
    assert_eq!(d("writes_window_only"), 10 * 15);
    assert_eq!(d("writes_consolidated"), 10 * 15);
    assert_eq!(d("writes_rf_only"), 10);
    assert_eq!(d("writes_both"), 10);
    assert_eq!(d("writes_on_leave"), 10);
    assert_eq!(d("rf_writes"), 10 * 2);
    assert_eq!(d("forwarded_reads"), 10 * 31);
}

#[test]
fn rfc_frees_dead_results_without_writing_them() {
    let latency = u64::from(GpuConfig::preset("gtx480").latency.int.add.latency);
    let (cycles, short, long) = bypass("rfc", &[]);
    let d = |k| delta(&short, &long, k);
    // Six entries hold r5 (cached as a result before the loop), r1 and r3: every read hits.
    // Each read of r1 and r3 is the value's last (the reader overwrites it), so no result is
    // ever written back: 17 dead, no register-file access at all, and every chain add
    // dispatches the cycle after it issues.
    assert_eq!(d("cache_hits"), 10 * 34);
    assert_eq!(d("writes_dead"), 10 * 17);
    assert_eq!(d("rf_writes"), 0);
    assert_eq!(d("evictions"), 0);
    assert_eq!(cycles, CHAIN * (latency + 1));
    // One entry per warp: add r3's result evicts the 16th add's live r1 (written back), the
    // first chain add's evicts r3 (live: the setp reads it; written back); the other chain
    // adds find their r1 and end it (dead, never written). r5 misses every time (misses are
    // not cached): one bank read per chain add, two for the first.
    let (cycles, short, long) = bypass("rfc", &["sm.rf.rfc.entries=1"]);
    let d = |k| delta(&short, &long, k);
    assert_eq!(d("evictions"), 10 * 2);
    assert_eq!(d("eviction_writes"), 10 * 2);
    assert_eq!(d("writes_dead"), 10 * 15);
    assert_eq!(d("rf_writes"), 10 * 2);
    assert_eq!(cycles, (CHAIN - 1) * (latency + 2) + (latency + 3));
}
