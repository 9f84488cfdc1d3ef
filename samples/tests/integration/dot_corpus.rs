//! The packed-integer dot products of `samples/corpus/dot_products.cu` (NVRTC's `dp4a` and
//! `dp2a` from `__dp4a`, `__dp2a_lo`, `__dp2a_hi`), checked against the CUDA documentation's
//! definitions computed on the host, under the JIT, the interpreter and the timing model.

use emulator::Engine;
use runtime::{Arg, Device, DeviceConfig};
use timing::GpuConfig;

#[test]
fn dp4a_and_dp2a_match_their_definitions() {
    const N: usize = 256;
    let word = |i: usize, s: u32| (i as u32).wrapping_mul(0x9e37_79b9).rotate_left(s) as i32;
    let (a, b, c): (Vec<i32>, Vec<i32>, Vec<i32>) = (
        (0..N).map(|i| word(i, 3)).collect(),
        (0..N).map(|i| word(i, 11)).collect(),
        (0..N).map(|i| word(i, 19) >> 8).collect(),
    );
    let bytes = |x: i32| x.to_le_bytes();
    let halves = |x: i32| [x as i16, (x >> 16) as i16];
    let want: Vec<i32> = (0..N)
        .flat_map(|i| {
            let (x, y, z) = (a[i], b[i], c[i]);
            let s4 = (0..4).fold(z, |acc, k| {
                acc.wrapping_add(i32::from(bytes(x)[k] as i8) * i32::from(bytes(y)[k] as i8))
            });
            let u4 = (0..4).fold(z as u32, |acc, k| {
                acc.wrapping_add(u32::from(bytes(x)[k]) * u32::from(bytes(y)[k]))
            });
            // __dp2a_lo: a's halves with b's bytes 0 and 1; __dp2a_hi: bytes 2 and 3.
            let s2 = (0..2).fold(z, |acc, k| {
                acc.wrapping_add(i32::from(halves(x)[k]) * i32::from(bytes(y)[k] as i8))
            });
            let u2 = (0..2).fold(z as u32, |acc, k| {
                acc.wrapping_add(u32::from(halves(x)[k] as u16) * u32::from(bytes(y)[k + 2]))
            });
            [s4, u4 as i32, s2, u2 as i32]
        })
        .collect();
    for (engine, timing) in [
        (Engine::Jit, None),
        (Engine::Interpreter, None),
        (Engine::Jit, Some("v100")),
    ] {
        let dev = Device::new(DeviceConfig {
            engine,
            timing: timing.map(GpuConfig::preset),
            ..DeviceConfig::default()
        })
        .unwrap();
        let path = warpsim::samples_dir().join("corpus/dot_products.ptx");
        let k = dev
            .load_ptx_file(&path)
            .unwrap()
            .kernel("dot_products")
            .unwrap();
        let bufs = [&a, &b, &c].map(|v| dev.alloc_from(v).unwrap());
        let out = dev.alloc::<i32>(4 * N).unwrap();
        let mut args: Vec<Arg> = bufs.iter().map(|b| b.into()).collect();
        args.extend([(&out).into(), Arg::I32(N as i32)]);
        dev.launch(&k, 2, 128, 0, &args).unwrap();
        assert_eq!(out.to_host().unwrap(), want, "{engine:?} {timing:?}");
    }
}
