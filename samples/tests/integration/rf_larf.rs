//! LARF in the pipeline, with exact outcomes: a load of data another warp's load already
//! brought into a register is served by renaming, without a memory access, and a store to
//! that data deletes the mapping so that the next load goes to memory again; under LAS, the
//! warp whose next load the table holds is looked up at its write-backs.

use runtime::{Device, DeviceConfig};
use timing::{GpuConfig, TimingStats};

/// Two warps of one CTA load `data[lane]` (the same 32 words: one stride, every lane), warp 0
/// then adds one to each word, and both load them again; each warp writes the sum of its two
/// loads to `out[tid]`.
const PTX: &str = r#"
.version 8.8
.target sm_70
.address_size 64

.visible .entry share(.param .u64 data, .param .u64 out)
{
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [data];
    ld.param.u64 %rd2, [out];
    mov.u32 %r1, %tid.x;
    and.b32 %r2, %r1, 31;
    mul.wide.u32 %rd3, %r2, 4;
    add.s64 %rd4, %rd1, %rd3;
    ld.global.u32 %r3, [%rd4];
    bar.sync 0;
    setp.lt.u32 %p1, %r1, 32;
    @!%p1 bra $SKIP;
    add.s32 %r4, %r3, 1;
    st.global.u32 [%rd4], %r4;
$SKIP:
    bar.sync 0;
    ld.global.u32 %r5, [%rd4];
    add.s32 %r6, %r3, %r5;
    mul.wide.u32 %rd5, %r1, 4;
    add.s64 %rd6, %rd2, %rd5;
    st.global.u32 [%rd6], %r6;
    ret;
}
"#;

/// Runs the kernel on one SM of gtx480 under `technique` and the `scheduler` policy; its
/// statistics.
fn run(technique: &str, scheduler: &str) -> TimingStats {
    let overrides = [
        format!("sm.rf.technique={technique}"),
        format!("sm.scheduler={scheduler}"),
        "gpu.sms=1".into(),
    ];
    let dev = Device::new(DeviceConfig {
        host_threads: 1,
        timing: Some(GpuConfig::load("gtx480", &overrides).unwrap()),
        ..DeviceConfig::default()
    })
    .unwrap();
    let module = dev.load_ptx("share.ptx", PTX).unwrap();
    let kernel = module.kernel("share").unwrap();
    let words: Vec<u32> = (0..32).map(|i| 100 * i).collect();
    let data = dev.alloc_from(&words).unwrap();
    let out = dev.alloc_from(&[0u32; 64]).unwrap();
    dev.launch(&kernel, 1, 64, 0, &[(&data).into(), (&out).into()])
        .unwrap();
    // Each thread: its word before the store plus after it (one more).
    let expected: Vec<u32> = (0..64).map(|t| 2 * words[t % 32] + 1).collect();
    assert_eq!(out.to_host().unwrap(), expected, "{technique}");
    dev.take_timing().unwrap().total
}

fn counter(t: &TimingStats, key: &str) -> u64 {
    t.technique.counters.get(key).copied().unwrap_or(0)
}

#[test]
fn a_second_warps_load_is_served_from_a_register_and_a_store_evicts_it() {
    let base = run("baseline", "gto");
    for technique in ["larf", "larf-infinite"] {
        let t = run(technique, "gto");
        assert_eq!(t.technique.name, technique);
        // Four warp loads: in each phase the first goes to memory and the second (the other
        // warp's, same base, stride and lanes) is served from the first one's register.
        assert_eq!(counter(&t, "global_loads"), 4, "{technique}");
        assert_eq!(counter(&t, "loads_shared"), 2, "{technique}");
        assert_eq!(counter(&t, "entries_inserted"), 2, "{technique}");
        assert_eq!(counter(&t, "registers_shared"), 2, "{technique}");
        // Warp 0's store overwrote the first phase's words: that mapping went.
        assert_eq!(counter(&t, "evictions_store"), 1, "{technique}");
        assert_eq!(counter(&t, "evictions_capacity"), 0, "{technique}");
        // The served loads made no request: two fewer than the baseline's (four loads, warp
        // 0's store, the two warps' stores of the sums), and wrote no register.
        assert_eq!(base.ldst.global_requests, 7);
        assert_eq!(t.ldst.global_requests, 5, "{technique}");
        assert_eq!(t.rf.writes + 2, base.rf.writes, "{technique}");
        assert_eq!(t.warp_insts, base.warp_insts, "{technique}");
    }
}

#[test]
fn las_looks_up_a_warps_next_load_at_its_write_backs() {
    let t = run("larf", "las");
    assert_eq!(counter(&t, "loads_shared"), 2);
    // The locality checker runs at write-backs: each warp's address, written back just
    // before its first load, is looked up once (the second loads follow a barrier and a
    // store, which write nothing back); the second warp's finds the first warp's entry.
    assert_eq!(counter(&t, "locality_checks"), 2);
    assert_eq!(counter(&t, "locality_hits"), 1);
    // Without LAS nothing is looked up ahead.
    assert_eq!(counter(&run("larf", "lrr"), "locality_checks"), 0);
}

/// Runs sample `name` at the small size on gtx480 under LARF and LAS with `extra`
/// overrides on `host_threads` threads; it must validate.
fn run_sample(name: &str, extra: &[&str], host_threads: usize) -> serde_json::Value {
    let mut overrides = vec![
        "sm.rf.technique=larf".to_string(),
        "sm.scheduler=las".to_string(),
    ];
    overrides.extend(extra.iter().map(|s| s.to_string()));
    crate::common::small_run_on_gtx480(name, &overrides, host_threads)
}

#[test]
fn las_is_deterministic_and_exact_without_fast_forward() {
    // 2MM shares most: LAS marks warps there.
    let name = "polybench/2mm";
    let reference = run_sample(name, &[], 1);
    let hits = &reference["technique"]["counters"]["locality_hits"];
    assert!(hits.as_u64().unwrap() > 0, "{name}: {hits}");
    assert!(
        run_sample(name, &[], 2) == reference,
        "{name}: 2 host threads"
    );
    let stepped = run_sample(name, &["gpu.fast_forward=false"], 1);
    assert!(stepped == reference, "{name}: cycle by cycle");
}
