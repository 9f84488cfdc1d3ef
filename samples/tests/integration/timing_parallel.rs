//! The timing model on several host threads (`DeviceConfig::timing_threads`): every sample
//! gives the same statistics, the same instruction counts and leaves the same device memory on
//! 1, 2 and 3 threads; and the memory semantics that make it so (docs/timing.md, "Parallel
//! timing and memory semantics"): the atomics two SMs issue in one cycle return their old
//! values in SM order, and a load sees global memory as it was when its cycle began, whatever
//! another SM stores in that cycle.

use runtime::{Device, DeviceConfig, LaunchStats, TimingReport};
use timing::GpuConfig;
use timing::trace::{Recording, SpanKind, Trace, TraceOptions};
use warpsim::sample::{Sample, Size};

const THREADS: [usize; 3] = [1, 2, 3];

fn device(cfg: GpuConfig, threads: usize, recording: Recording) -> Device {
    Device::new(DeviceConfig {
        timing: Some(cfg),
        timing_threads: threads,
        recording,
        ..DeviceConfig::default()
    })
    .unwrap()
}

/// Everything a run of `s` at the small size on gtx480 with `threads` host threads shows: its
/// statistics (as JSON: host time is not part of it), instruction counts and what it left in
/// device memory.
fn observe(s: &dyn Sample, threads: usize) -> (serde_json::Value, LaunchStats, Vec<u8>) {
    let dev = device(GpuConfig::preset("gtx480"), threads, Recording::default());
    let outcome = s
        .run(&dev, Size::Small)
        .unwrap_or_else(|e| panic!("{} on {threads} threads: {e}", s.name()));
    assert!(
        outcome.validation.passed(),
        "{} on {threads} threads: {}",
        s.name(),
        outcome.validation
    );
    let report: TimingReport = dev.take_timing().unwrap();
    let stats = serde_json::to_value((&report.total, &report.kernels)).unwrap();
    (stats, outcome.stats, dev.memory().snapshot())
}

/// Runs each of `samples` on 1, 2 and 3 threads and compares everything with the first.
fn same_on_every_thread_count(samples: &[&dyn Sample]) {
    for &s in samples {
        let (stats, counts, memory) = observe(s, THREADS[0]);
        for &threads in &THREADS[1..] {
            let (other_stats, other_counts, other_memory) = observe(s, threads);
            assert!(
                other_stats == stats,
                "{}: the statistics on {threads} threads differ from those on 1",
                s.name()
            );
            assert_eq!(other_counts, counts, "{} on {threads} threads", s.name());
            assert!(
                other_memory == memory,
                "{}: device memory after the run on {threads} threads differs from that on 1 \
                 ({} and {} bytes)",
                s.name(),
                other_memory.len(),
                memory.len()
            );
        }
    }
}

#[test]
fn every_light_sample_is_the_same_on_one_two_and_three_threads() {
    same_on_every_thread_count(&crate::common::light_samples());
}

#[test]
fn every_heavy_sample_is_the_same_on_one_two_and_three_threads() {
    let heavy: Vec<&dyn Sample> = crate::common::HEAVY
        .iter()
        .map(|name| warpsim::registry::find(name).unwrap())
        .collect();
    same_on_every_thread_count(&heavy);
}

/// gtx480 with a fixed instruction-cache miss latency: the kernels below use no parameter and
/// no memory before the instructions under test, so two CTAs launched in the same cycle on
/// two SMs run in lockstep (their fetches do not meet at the L2).
fn lockstep() -> GpuConfig {
    GpuConfig::load("gtx480", &["sm.icache.miss_latency=40".into()]).unwrap()
}

/// Runs `kernel` of `ptx` on two CTAs of one thread with `threads` host threads, recording a
/// trace; the symbol `out`'s words and the trace.
fn two_ctas(ptx: &str, kernel: &str, threads: usize) -> (Vec<u32>, Trace) {
    let recording = Recording {
        trace: Some(TraceOptions::default()),
        timeline: false,
    };
    let dev = device(lockstep(), threads, recording);
    let module = dev.load_ptx("parallel.ptx", ptx).unwrap();
    dev.launch(&module.kernel(kernel).unwrap(), 2u32, 1u32, 0, &[])
        .unwrap();
    let out = module.read_symbol("out").unwrap();
    let words = out
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes(w.try_into().unwrap()))
        .collect();
    (words, dev.take_recording().unwrap())
}

/// The issue cycles of the instructions of SM `sm` whose mnemonic starts with `prefix`, in
/// issue order.
fn issues(trace: &Trace, sm: u32, prefix: &str) -> Vec<u64> {
    let mut cycles: Vec<u64> = trace
        .spans
        .iter()
        .filter(|s| s.sm == sm)
        .flat_map(|s| &s.spans)
        .filter(|s| s.kind == SpanKind::Issue)
        .filter(|s| trace.names[s.name as usize].starts_with(prefix))
        .map(|s| s.start)
        .collect();
    cycles.sort_unstable();
    cycles
}

/// Which SM each CTA ran on, by CTA index.
fn placement(trace: &Trace) -> Vec<u32> {
    let mut by_cta = Vec::new();
    for sm in &trace.spans {
        for s in sm.spans.iter().filter(|s| s.kind == SpanKind::Cta) {
            by_cta.push((trace.names[s.name as usize].clone(), sm.sm));
        }
    }
    by_cta.sort();
    by_cta.into_iter().map(|(_, sm)| sm).collect()
}

const ATOMICS: &str = r#"
.version 8.8
.target sm_70
.address_size 64

.global .align 4 .u32 counter;
.global .align 4 .u32 out[2];

.visible .entry atomics()
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<5>;
    mov.u32 %r0, %ctaid.x;
    mov.u64 %rd0, counter;
    mov.u64 %rd1, out;
    mul.wide.u32 %rd2, %r0, 4;
    add.s64 %rd3, %rd1, %rd2;
    atom.global.add.u32 %r1, [%rd0], 1;
    st.global.u32 [%rd3], %r1;
    ret;
}
"#;

/// Two SMs add to one counter in the same cycle: the atomics commit in SM order, so the CTA on
/// the lower SM reads 0 and the other 1, on any number of host threads.
#[test]
fn atomics_of_one_cycle_return_old_values_in_sm_order() {
    for threads in THREADS {
        let (old, trace) = two_ctas(ATOMICS, "atomics", threads);
        let sms = placement(&trace);
        assert!(sms[0] < sms[1], "CTA 0 on the lower SM: {sms:?}");
        let (first, second) = (
            issues(&trace, sms[0], "atom"),
            issues(&trace, sms[1], "atom"),
        );
        assert_eq!(first.len(), 1);
        assert_eq!(first, second, "the atomics issue in the same cycle");
        assert_eq!(old, [0, 1], "{threads} threads");
    }
}

/// CTA 0 stores 1 to `flag` after `delay` instructions; CTA 1 (on another SM) loads `flag` 24
/// times in a row, then writes what each load saw to `out`.
fn store_and_loads(delay: usize) -> String {
    let pad: String = (0..delay)
        .map(|i| format!("    mov.u32 %r{}, {i};\n", 10 + i % 8))
        .collect();
    let loads: String = (0..24)
        .map(|i| format!("    ld.volatile.global.u32 %r{}, [%rd0];\n", 20 + i))
        .collect();
    let stores: String = (0..24)
        .map(|i| format!("    st.global.u32 [%rd1+{}], %r{};\n", 4 * i, 20 + i))
        .collect();
    format!(
        r#"
.version 8.8
.target sm_70
.address_size 64

.global .align 4 .u32 flag;
.global .align 4 .u32 out[24];

.visible .entry race()
{{
    .reg .pred %p<2>;
    .reg .b32 %r<44>;
    .reg .b64 %rd<2>;
    mov.u32 %r0, %ctaid.x;
    mov.u64 %rd0, flag;
    mov.u64 %rd1, out;
    mov.u32 %r1, 1;
    setp.ne.u32 %p1, %r0, 0;
    @%p1 bra $READER;
{pad}    st.global.u32 [%rd0], %r1;
    ret;
$READER:
{loads}{stores}    ret;
}}
"#
    )
}

/// A load sees global memory as it was when its cycle began: each of CTA 1's loads reads 1
/// exactly when it issues after the cycle of CTA 0's store, 0 before it and in it. Over a sweep
/// of the store's delay, some load issues in the store's very cycle.
#[test]
fn a_load_sees_memory_as_its_cycle_began() {
    let mut same_cycle = 0;
    for delay in 0..8 {
        let ptx = store_and_loads(delay);
        let mut first: Option<Vec<u32>> = None;
        for threads in THREADS {
            let (seen, trace) = two_ctas(&ptx, "race", threads);
            let sms = placement(&trace);
            let store = issues(&trace, sms[0], "st");
            assert_eq!(store.len(), 1);
            let loads = issues(&trace, sms[1], "ld");
            assert_eq!(loads.len(), 24);
            let expected: Vec<u32> = loads.iter().map(|&l| u32::from(l > store[0])).collect();
            assert_eq!(
                seen, expected,
                "delay {delay}, {threads} threads: store at cycle {}, loads at {loads:?}",
                store[0]
            );
            if threads == 1 {
                same_cycle += usize::from(loads.contains(&store[0]));
            }
            match &first {
                None => first = Some(seen),
                Some(f) => assert_eq!(&seen, f, "delay {delay}, {threads} threads"),
            }
        }
    }
    assert!(
        same_cycle > 0,
        "no delay put a load in the store's cycle: the sweep tests nothing at the boundary"
    );
}
