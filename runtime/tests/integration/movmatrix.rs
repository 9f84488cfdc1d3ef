//! `movmatrix.sync.aligned.m8n8.trans.b16`: the warp's 8×8 fragment transposed, element by
//! element against the manual's fragment layout, under both engines; and a partial warp refused.

use runtime::Arg;

const PTX: &str = r#"
.version 8.8
.target sm_75
.address_size 64

// Lane l holds row l / 4, columns 2(l % 4) and the next, of M[r][c] = 8r + c; out[l] = its
// transposed fragment. Lanes at or above `active` skip it (a partial warp).
.visible .entry transpose(.param .u64 out, .param .u32 active)
{
    .reg .pred %p<2>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r9, [active];
    mov.u32 %r1, %tid.x;
    shr.u32 %r2, %r1, 2;
    and.b32 %r3, %r1, 3;
    shl.b32 %r3, %r3, 1;
    mad.lo.u32 %r4, %r2, 8, %r3;
    add.u32 %r5, %r4, 1;
    shl.b32 %r5, %r5, 16;
    or.b32 %r6, %r4, %r5;
    setp.lt.u32 %p1, %r1, %r9;
    @%p1 movmatrix.sync.aligned.m8n8.trans.b16 %r7, %r6;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r7;
    ret;
}
"#;

#[test]
fn movmatrix_transposes_the_fragment() {
    // Lane l, half h: T[l / 4][2(l % 4) + h] = M[2(l % 4) + h][l / 4].
    let want: Vec<u32> = (0..32u32)
        .map(|l| {
            let element = |h: u32| (2 * (l % 4) + h) * 8 + l / 4;
            element(0) | element(1) << 16
        })
        .collect();
    for (engine, dev) in crate::engines::both() {
        let k = dev
            .load_ptx("movmatrix.ptx", PTX)
            .unwrap()
            .kernel("transpose")
            .unwrap();
        let out = dev.alloc::<u32>(32).unwrap();
        dev.launch(&k, 1, 32, 0, &[(&out).into(), Arg::U32(32)])
            .unwrap();
        assert_eq!(out.to_host().unwrap(), want, "{engine:?}");
        let err = dev
            .launch(&k, 1, 32, 0, &[(&out).into(), Arg::U32(16)])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("executed by 16 of the warp's 32 threads"),
            "{engine:?}: {err}"
        );
    }
}
