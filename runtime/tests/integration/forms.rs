//! PTX forms that CUDA 13's NVVM emits and hand-written suites use, each run under the
//! interpreter, the JIT and the timing model (under both engines) against values worked by
//! hand from the PTX ISA manual. Every kernel takes one `.u64` buffer `out` (read and written)
//! and its values are compared whole.

use emulator::{Engine, MemoryMap};
use runtime::{Arg, Device, DeviceConfig};

/// The four ways a launch runs: each engine alone and under the gtx480 timing model.
const RUNS: [(Engine, Option<&str>); 4] = [
    (Engine::Interpreter, None),
    (Engine::Jit, None),
    (Engine::Jit, Some("gtx480")),
    (Engine::Interpreter, Some("gtx480")),
];

/// A device for one of [`RUNS`], under `map` (the default map when `None`).
fn device(engine: Engine, timing: Option<&str>, map: Option<MemoryMap>) -> Device {
    Device::new(DeviceConfig {
        engine,
        timing: timing.map(|t| timing::GpuConfig::load(t, &[]).unwrap()),
        memory_map: map,
        ..DeviceConfig::default()
    })
    .unwrap()
}

/// Runs kernel `k` of `ptx` on one CTA of `block` threads with the buffer `out` and then
/// `extra` as its arguments, four ways ([`RUNS`]) on devices under `map`, and checks that each
/// leaves `want` in `out`.
#[track_caller]
pub fn check_runs(
    ptx: &str,
    map: Option<MemoryMap>,
    block: u32,
    extra: &[Arg],
    out: &[u32],
    want: &[u32],
) {
    for (engine, timing) in RUNS {
        let dev = device(engine, timing, map);
        let what = format!("{engine:?}, timing {timing:?}, map {map:?}");
        let k = dev
            .load_ptx("forms.ptx", ptx)
            .unwrap_or_else(|e| panic!("{what}: {e}"))
            .kernel("k")
            .unwrap();
        let buf = dev.alloc_from(out).unwrap();
        let mut args = vec![Arg::from(&buf)];
        args.extend_from_slice(extra);
        dev.launch(&k, 1, block, 0, &args)
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        let got = buf.to_host().unwrap();
        let hex = |v: &[u32]| v.iter().map(|x| format!("{x:#x}")).collect::<Vec<_>>();
        assert_eq!(hex(&got), hex(want), "{what}");
    }
}

/// [`check_runs`] on the default device, without further arguments.
#[track_caller]
pub fn check_everywhere(ptx: &str, block: u32, out: &[u32], want: &[u32]) {
    check_runs(ptx, None, block, &[], out, want);
}

/// `mov.pred %p, -1` (NVVM 13's "true") and other integer constants as predicates: zero is
/// false, anything else true, as the manual's "Predicate Constants" say.
#[test]
fn integer_constants_are_predicates() {
    let ptx = "
.version 8.8
.target sm_70
.address_size 64
.visible .entry k(.param .u64 out)
{
    .reg .pred %p<5>;
    .reg .b32 %r<6>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [out];
    mov.pred %p1, -1;
    mov.pred %p2, 0;
    mov.pred %p3, 2;
    selp.u32 %r1, 7, 9, %p1;
    selp.u32 %r2, 7, 9, %p2;
    selp.u32 %r3, 7, 9, %p3;
    selp.u32 %r4, 7, 9, -1;
    setp.ne.and.u32 %p4, %r1, 0, 0xff;
    selp.u32 %r5, 7, 9, %p4;
    st.global.v4.u32 [%rd1], {%r1, %r2, %r3, %r4};
    st.global.u32 [%rd1+16], %r5;
    ret;
}
";
    check_everywhere(ptx, 1, &[0; 5], &[7, 9, 7, 7, 7]);
}
