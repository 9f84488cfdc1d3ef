//! The register file of recent NVIDIA cores (`sm.rf.technique = "modern"`, on v100 with two
//! banks per sub-core): the operand cache's hits counted exactly on a kernel, and every other
//! light sample and a heavy one (`common::HEAVY`) computing what the baseline does with the
//! accounting identities kept. (The bubbles'
//! exact cycles are unit tests of `timing/src/rf/modern.rs`.)

use runtime::{Arg, Device, DeviceConfig};
use timing::{GpuConfig, TimingStats};
use warpsim::registry;
use warpsim::sample::Size;

const MODERN: [&str; 2] = ["sm.rf.technique=modern", "sm.rf.banks=8"];

const PTX: &str = r#"
.version 8.8
.target sm_70
.address_size 64

// 16 FFMAs per iteration reading %f5 and %f6 in slots 0 and 1: each but the last marks both
// for reuse (the next instruction reads them in the same slots), so the last 15 hit twice.
.visible .entry chain(.param .u64 out, .param .u32 iters)
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<2>;
    .reg .f32 %f<8>;
    ld.param.u32 %r2, [iters];
    mov.u32 %r3, 0;
    mov.f32 %f1, 0f00000000;
    // 0.5 and 1.0 computed, so that they live in registers rather than as constants.
    mov.u32 %r1, %tid.x;
    and.b32 %r1, %r1, 0;
    cvt.rn.f32.u32 %f5, %r1;
    add.f32 %f6, %f5, 0f3F800000;
    add.f32 %f5, %f5, 0f3F000000;
$LOOP:
    fma.rn.f32 %f1, %f5, %f6, %f1;
    fma.rn.f32 %f1, %f5, %f6, %f1;
    fma.rn.f32 %f1, %f5, %f6, %f1;
    fma.rn.f32 %f1, %f5, %f6, %f1;
    fma.rn.f32 %f1, %f5, %f6, %f1;
    fma.rn.f32 %f1, %f5, %f6, %f1;
    fma.rn.f32 %f1, %f5, %f6, %f1;
    fma.rn.f32 %f1, %f5, %f6, %f1;
    fma.rn.f32 %f1, %f5, %f6, %f1;
    fma.rn.f32 %f1, %f5, %f6, %f1;
    fma.rn.f32 %f1, %f5, %f6, %f1;
    fma.rn.f32 %f1, %f5, %f6, %f1;
    fma.rn.f32 %f1, %f5, %f6, %f1;
    fma.rn.f32 %f1, %f5, %f6, %f1;
    fma.rn.f32 %f1, %f5, %f6, %f1;
    fma.rn.f32 %f1, %f5, %f6, %f1;
    add.s32 %r3, %r3, 1;
    setp.lt.u32 %p1, %r3, %r2;
    @%p1 bra $LOOP;
    ld.param.u64 %rd1, [out];
    st.global.f32 [%rd1], %f1;
    ret;
}
"#;

fn config(extra: &[&str]) -> GpuConfig {
    let overrides: Vec<String> = MODERN.iter().chain(extra).map(|s| s.to_string()).collect();
    GpuConfig::load("v100", &overrides).unwrap()
}

fn device(cfg: GpuConfig, host_threads: usize) -> Device {
    Device::new(DeviceConfig {
        host_threads,
        timing: Some(cfg),
        ..DeviceConfig::default()
    })
    .unwrap()
}

fn counter(t: &TimingStats, key: &str) -> u64 {
    t.technique.counters.get(key).copied().unwrap_or(0)
}

#[test]
fn the_operand_cache_serves_each_reuse_marked_read_of_one_warp() {
    let dev = device(config(&["gpu.sms=1"]), 1);
    let module = dev.load_ptx("chain.ptx", PTX).unwrap();
    let chain = module.kernel("chain").unwrap();
    let mut hits = Vec::new();
    for iters in [10u32, 20] {
        let out = dev.alloc_from(&[0f32]).unwrap();
        dev.launch(&chain, 1, 32, 0, &[(&out).into(), Arg::U32(iters)])
            .unwrap();
        assert_eq!(out.to_host().unwrap(), [iters as f32 * 16.0 * 0.5]);
        let t = dev.take_timing().unwrap().total;
        assert_eq!(t.technique.name, "modern");
        assert_eq!(
            t.rf.reads,
            counter(&t, "operand_reads") - counter(&t, "cache_hits")
        );
        hits.push(counter(&t, "cache_hits"));
    }
    assert_eq!(hits[1] - hits[0], 10 * 15 * 2, "{hits:?}");
}

#[test]
fn every_other_sample_computes_what_the_baseline_does() {
    let cfg = config(&[]);
    let golden = crate::common::golden("v100");
    // Every other light sample and one heavy one keep CI fast.
    let mut samples: Vec<_> = crate::common::light_samples()
        .into_iter()
        .step_by(2)
        .collect();
    samples.push(crate::common::heavy_sample(0));
    for s in samples {
        let name = s.name();
        let dev = device(cfg.clone(), 1);
        let outcome = s
            .run(&dev, Size::Small)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            outcome.validation.passed(),
            "{name}: {}",
            outcome.validation
        );
        let t = dev.take_timing().unwrap().total;
        let same_values = s.values_depend_on_warp_order().is_none();
        for (key, value) in crate::common::functional_stats(&t) {
            if key.starts_with("widths.") && !same_values {
                continue;
            }
            assert_eq!(
                golden.get(&format!("{name} {key}")),
                Some(&value),
                "{name} {key}"
            );
        }
        crate::identities::one_outcome_per_scheduler_and_cycle(name, &t, &cfg);
        // Every operand read is a width record, from a bank or from the operand cache.
        let c = |k| counter(&t, k);
        let sum = |h: &[u64]| h.iter().sum::<u64>();
        assert_eq!(sum(&t.rf.reads_per_bank), t.rf.reads, "{name}");
        assert_eq!(sum(&t.widths.reads_all_lanes), c("operand_reads"), "{name}");
        assert_eq!(sum(&t.rf.writes_per_bank), t.rf.writes, "{name}");
        assert_eq!(c("operand_reads"), t.rf.reads + c("cache_hits"), "{name}");
        assert!(c("cache_hits") <= c("cache_reads") && c("cache_reads") <= c("operand_reads"));
        assert!(c("allocations_stalled") <= c("allocations"), "{name}");
    }
}

#[test]
fn a_sample_times_the_same_on_two_threads_and_cycle_by_cycle() {
    let run = |cfg: GpuConfig, threads| {
        let dev = device(cfg, threads);
        let s = registry::find("rodinia/hotspot").unwrap();
        assert!(s.run(&dev, Size::Small).unwrap().validation.passed());
        serde_json::to_value(dev.take_timing().unwrap().total).unwrap()
    };
    let reference = run(config(&[]), 1);
    assert!(run(config(&[]), 2) == reference, "2 host threads");
    assert!(
        run(config(&["gpu.fast_forward=false"]), 1) == reference,
        "cycle by cycle"
    );
}
