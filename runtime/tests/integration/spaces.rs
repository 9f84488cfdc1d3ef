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
    for engine in [emulator::Engine::Interpreter, emulator::Engine::Jit] {
        let dev = Device::new(DeviceConfig {
            engine,
            ..DeviceConfig::default()
        })
        .unwrap();
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
