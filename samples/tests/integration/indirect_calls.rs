//! Calls through function pointers (`call (r), %rd, (a), prototype`): `samples/corpus/control.cu`'s
//! `indirect_call`, whose lanes call three functions picked by their data, checked against the
//! host under the JIT, the interpreter and the timing model (each target's lanes call in
//! turn); and the errors of a pointer that is no function and of a function whose parameters
//! differ from the prototype.

use runtime::Device;

fn devices() -> Vec<Device> {
    crate::common::engine_devices("gtx480")
}

#[test]
fn divergent_indirect_calls_run_each_target() {
    const N: usize = 96;
    let input: Vec<i32> = (0..N as i32).map(|i| (i * 7919) % 101 - 50).collect();
    // ops[in % 3 < 0 ? 0 : in % 3] of {add, mul, max}, applied to (in, t).
    let want: Vec<i32> = input
        .iter()
        .enumerate()
        .map(|(t, &v)| {
            let t = t as i32;
            match if v % 3 < 0 { 0 } else { v % 3 } {
                0 => v + t,
                1 => v * t,
                _ => v.max(t),
            }
        })
        .collect();
    for dev in devices() {
        let module = dev
            .load_ptx_file(&warpsim::samples_dir().join("corpus/control.ptx"))
            .unwrap();
        let k = module.kernel("indirect_call").unwrap();
        let (inp, out) = (
            dev.alloc_from(&input).unwrap(),
            dev.alloc::<i32>(N).unwrap(),
        );
        dev.launch(&k, 1, N as u32, 0, &[(&inp).into(), (&out).into()])
            .unwrap();
        assert_eq!(out.to_host().unwrap(), want);
    }
}

const BAD_CALLS: &str = r#"
.version 8.8
.target sm_70
.address_size 64

.func (.param .b32 r) twice(.param .b32 a)
{
    .reg .b32 %r<3>;
    ld.param.b32 %r1, [a];
    add.s32 %r2, %r1, %r1;
    st.param.b32 [r], %r2;
    ret;
}

.func (.param .b64 r) wide(.param .b64 a)
{
    .reg .b64 %rd<2>;
    ld.param.b64 %rd1, [a];
    st.param.b64 [r], %rd1;
    ret;
}

// out[0] = f(21) through the pointer `which` selects: 0 twice, 1 wide, else not a function.
.visible .entry through(.param .u64 out, .param .u32 which)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    .reg .pred %p<3>;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r1, [which];
    mov.u64 %rd2, twice;
    setp.eq.u32 %p1, %r1, 1;
    @%p1 mov.u64 %rd2, wide;
    setp.gt.u32 %p2, %r1, 1;
    @%p2 mov.u64 %rd2, 12345;
    {
    .param .b32 arg;
    st.param.b32 [arg], 21;
    .param .b32 ret0;
    proto : .callprototype (.param .b32 _) _ (.param .b32 _);
    call (ret0), %rd2, (arg), proto;
    ld.param.b32 %r2, [ret0];
    }
    st.global.u32 [%rd1], %r2;
    ret;
}
"#;

#[test]
fn bad_indirect_calls_name_the_target() {
    for dev in devices() {
        let module = dev.load_ptx("bad_calls.ptx", BAD_CALLS).unwrap();
        let k = module.kernel("through").unwrap();
        let out = dev.alloc::<u32>(1).unwrap();
        let run = |which: u32| dev.launch(&k, 1, 1, 0, &[(&out).into(), runtime::Arg::U32(which)]);
        run(0).unwrap();
        assert_eq!(out.to_host().unwrap(), [42]);
        let err = run(1).unwrap_err().to_string();
        assert!(
            err.contains("indirect call to `wide`, whose parameters or results differ from the call's prototype"),
            "{err}"
        );
        let err = run(2).unwrap_err().to_string();
        assert!(
            err.contains("indirect call through 0x3039, which is no device function's address"),
            "{err}"
        );
        // The device stays usable.
        run(0).unwrap();
    }
}
