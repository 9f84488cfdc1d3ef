//! `isspacep`: which window a generic address lies in, for addresses of every space, under both
//! engines.

use runtime::{Device, DeviceConfig};

const PTX: &str = r#"
.version 8.8
.target sm_70
.address_size 64

.const .align 4 .b32 table[4];

// out[8 * k + s]: isspacep of address k (shared, local, global buffer, const, null) for space s
// (global, const, local, shared, param).
.visible .entry spaces(.param .u64 out)
{
    .shared .align 4 .b32 tile[4];
    .local .align 4 .b32 scratch[4];
    .reg .pred %p<2>;
    .reg .b32 %r<3>;
    .reg .b64 %rd<12>;
    ld.param.u64 %rd1, [out];
    cvta.shared.u64 %rd2, tile;
    cvta.local.u64 %rd3, scratch;
    cvta.global.u64 %rd4, %rd1;
    cvta.const.u64 %rd5, table;
    mov.u64 %rd6, 0;
    mov.u32 %r1, %tid.x;
    // Thread k tests address k.
    setp.eq.u32 %p1, %r1, 0;
    selp.b64 %rd7, %rd2, %rd6, %p1;
    setp.eq.u32 %p1, %r1, 1;
    selp.b64 %rd7, %rd3, %rd7, %p1;
    setp.eq.u32 %p1, %r1, 2;
    selp.b64 %rd7, %rd4, %rd7, %p1;
    setp.eq.u32 %p1, %r1, 3;
    selp.b64 %rd7, %rd5, %rd7, %p1;
    mul.wide.u32 %rd8, %r1, 32;
    add.s64 %rd9, %rd1, %rd8;
    isspacep.global %p1, %rd7;
    selp.u32 %r2, 1, 0, %p1;
    st.global.u32 [%rd9], %r2;
    isspacep.const %p1, %rd7;
    selp.u32 %r2, 1, 0, %p1;
    st.global.u32 [%rd9+4], %r2;
    isspacep.local %p1, %rd7;
    selp.u32 %r2, 1, 0, %p1;
    st.global.u32 [%rd9+8], %r2;
    isspacep.shared %p1, %rd7;
    selp.u32 %r2, 1, 0, %p1;
    st.global.u32 [%rd9+12], %r2;
    isspacep.param %p1, %rd7;
    selp.u32 %r2, 1, 0, %p1;
    st.global.u32 [%rd9+16], %r2;
    ret;
}
"#;

#[test]
fn isspacep_names_each_window() {
    for (engine, dev) in crate::engines::both() {
        let k = dev
            .load_ptx("spaces.ptx", PTX)
            .unwrap()
            .kernel("spaces")
            .unwrap();
        let out = dev.alloc::<u32>(5 * 8).unwrap();
        dev.launch(&k, 1, 5, 0, &[(&out).into()]).unwrap();
        let got: Vec<Vec<u32>> = out
            .to_host()
            .unwrap()
            .chunks(8)
            .map(|c| c[..5].to_vec())
            .collect();
        // Columns: global, const, local, shared, param. Null is in the global window.
        let want = [
            [0, 0, 0, 1, 0],
            [0, 0, 1, 0, 0],
            [1, 0, 0, 0, 0],
            [0, 1, 0, 0, 0],
            [1, 0, 0, 0, 0],
        ];
        assert_eq!(got, want.map(|r| r.to_vec()), "{engine:?}");
    }
}

const POLICIES: &str = r#"
.version 8.8
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<8>;
    .reg .b64 %rd<8>;
    .reg .f32 %f<2>;
    ld.param.u64 %rd1, [out];
    mov.f32 %f1, 0f3F000000;
    createpolicy.fractional.L2::evict_last.L2::evict_unchanged.b64 %rd2, %f1;
    createpolicy.fractional.L2::evict_first.b64 %rd3;
    ld.global.L2::cache_hint.u32 %r1, [%rd1], %rd2;
    add.u32 %r1, %r1, 1;
    st.global.L2::cache_hint.u32 [%rd1], %r1, %rd2;
    atom.global.L2::cache_hint.add.u32 %r2, [%rd1+4], 5, %rd3;
    st.global.u64 [%rd1+8], %rd2;
    st.global.u64 [%rd1+16], %rd3;
    ret;
}
"#;

/// `createpolicy.fractional` makes warpsim's policy encoding, and accesses with
/// `.L2::cache_hint` take it as a hint: they compute what the plain access would.
#[test]
fn cache_policies_are_hints() {
    for (engine, dev) in crate::engines::both() {
        let k = dev
            .load_ptx("policies.ptx", POLICIES)
            .unwrap()
            .kernel("k")
            .unwrap();
        let out = dev.alloc_from(&[41u32, 1, 0, 0, 0, 0]).unwrap();
        dev.launch(&k, 1, 1, 0, &[(&out).into()]).unwrap();
        // evict_last (0) with evict_unchanged (3) second, fraction 0.5; evict_first (2), 1.0.
        assert_eq!(
            out.to_host().unwrap(),
            [42, 6, 0x30, 0x3f00_0000, 2, 0x3f80_0000],
            "{engine:?}"
        );
    }
}

/// `prefetch.tensormap` of a kernel parameter, directly and through a generic address: a hint,
/// it does nothing and cannot fault, under both engines and the timing model.
#[test]
fn tensormap_prefetches_are_hints() {
    const TMAP: &str = ".version 8.8\n.target sm_90\n.address_size 64\n\
        .visible .entry k(.param .align 64 .b8 tmap[128])\n{\n\t.reg .b64 %rd<2>;\n\
        \tprefetch.param.tensormap [tmap];\n\tmov.u64 %rd1, tmap;\n\
        \tprefetch.tensormap [%rd1];\n\tret;\n}\n";
    let configs = [
        (emulator::Engine::Interpreter, None),
        (emulator::Engine::Jit, None),
        (
            emulator::Engine::Jit,
            Some(timing::GpuConfig::preset("h100")),
        ),
    ];
    for (engine, timing) in configs {
        let dev = Device::new(DeviceConfig {
            engine,
            timing,
            ..DeviceConfig::default()
        })
        .unwrap();
        let k = dev.load_ptx("tmap.ptx", TMAP).unwrap().kernel("k").unwrap();
        let stats = dev
            .launch(&k, 1, 32, 0, &[runtime::Arg::Bytes(vec![0; 128])])
            .unwrap();
        assert_eq!(stats.warp_insts, 4, "{engine:?}");
    }
}
