//! The asynchronous-copy corpus (`samples/corpus/async_copy.cu`, NVRTC's PTX of
//! cuda_pipeline_primitives.h and cooperative groups for compute_80): `cp.async` with its
//! sizes, zero fill and groups, `cooperative_groups::memcpy_async`, and cooperative-groups
//! reductions. Every kernel's output is checked exactly against a host computation, under the
//! JIT, the interpreter and the timing model (a100).

use emulator::Engine;
use runtime::{Arg, Device, DeviceConfig};
use timing::GpuConfig;

fn devices() -> [(&'static str, Device); 3] {
    let device = |engine, timing: Option<&str>| {
        Device::new(DeviceConfig {
            engine,
            timing: timing.map(GpuConfig::preset),
            ..DeviceConfig::default()
        })
        .unwrap()
    };
    [
        ("jit", device(Engine::Jit, None)),
        ("interpreter", device(Engine::Interpreter, None)),
        ("a100 timing", device(Engine::Jit, Some("a100"))),
    ]
}

fn kernel(dev: &Device, name: &str) -> runtime::Kernel {
    let path = warpsim::samples_dir().join("corpus/async_copy.ptx");
    dev.load_ptx_file(&path).unwrap().kernel(name).unwrap()
}

/// Inputs with distinct, exactly representable values.
fn floats(n: usize) -> Vec<f32> {
    (0..n).map(|i| (i % 1000) as f32 * 0.25 - 40.0).collect()
}

#[test]
fn pipelined_sum_double_buffers_with_wait_group() {
    const BLOCKS: usize = 3;
    const TILES: usize = 5;
    let input = floats(BLOCKS * TILES * 128);
    let expected: Vec<f32> = (0..BLOCKS * 128)
        .map(|i| {
            let (b, t) = (i / 128, i % 128);
            (0..TILES)
                .map(|k| input[(b * TILES + k) * 128 + (t + 1) % 128])
                .sum()
        })
        .collect();
    for (what, dev) in devices() {
        let inp = dev.alloc_from(&input).unwrap();
        let out = dev.alloc::<f32>(BLOCKS * 128).unwrap();
        let args = [(&inp).into(), (&out).into(), Arg::I32(TILES as i32)];
        dev.launch(&kernel(&dev, "pipelined_sum"), BLOCKS as u32, 128, 0, &args)
            .unwrap();
        assert_eq!(out.to_host().unwrap(), expected, "{what}");
    }
}

#[test]
fn zero_fill_copies_only_src_size_bytes() {
    const BLOCKS: usize = 2;
    let input = floats(BLOCKS * 128 * 4);
    let mut expected = input.clone();
    for (i, v) in expected.chunks_mut(4).enumerate() {
        // The last (t % 5) * 4 bytes of thread t's 16 are zeros.
        let zeros = (i % 128) % 5;
        v[4 - zeros..].fill(0.0);
    }
    let expected2: Vec<f32> = input.chunks(4).flat_map(|v| [v[2], v[3]]).collect();
    for (what, dev) in devices() {
        let inp = dev.alloc_from(&input).unwrap();
        let out = dev.alloc::<f32>(BLOCKS * 128 * 4).unwrap();
        let out2 = dev.alloc::<f32>(BLOCKS * 128 * 2).unwrap();
        let args = [(&inp).into(), (&out).into(), (&out2).into()];
        dev.launch(&kernel(&dev, "zero_fill"), BLOCKS as u32, 128, 0, &args)
            .unwrap();
        assert_eq!(out.to_host().unwrap(), expected, "{what}");
        assert_eq!(out2.to_host().unwrap(), expected2, "{what}");
    }
}

#[test]
fn group_copy_and_group_reduce() {
    const BLOCKS: usize = 3;
    let input: Vec<i32> = (0..BLOCKS as i32 * 256)
        .map(|i| (i * 7919) % 1013 - 500)
        .collect();
    let reversed: Vec<i32> = input
        .chunks(256)
        .flat_map(|c| c.iter().rev().copied())
        .collect();
    let reduced = [
        input.iter().sum::<i32>(),
        *input.iter().max().unwrap(),
        input.iter().fold(0, |a, v| a | v),
    ];
    for (what, dev) in devices() {
        let inp = dev.alloc_from(&input).unwrap();
        let out = dev.alloc::<i32>(BLOCKS * 256).unwrap();
        let args = [(&inp).into(), (&out).into()];
        dev.launch(&kernel(&dev, "group_copy"), BLOCKS as u32, 256, 0, &args)
            .unwrap();
        assert_eq!(out.to_host().unwrap(), reversed, "{what}");
        let red = dev.alloc_from(&[0, i32::MIN, 0]).unwrap();
        let args = [(&inp).into(), (&red).into()];
        dev.launch(&kernel(&dev, "group_reduce"), BLOCKS as u32, 256, 0, &args)
            .unwrap();
        assert_eq!(red.to_host().unwrap(), reduced, "{what}");
    }
}

/// The copies' groups time the same cycle by cycle as with fast-forward, and on two host
/// threads as on one.
#[test]
fn pipelined_sum_times_the_same_cycle_by_cycle() {
    let input = floats(4 * 5 * 128);
    let run = |overrides: &[&str], host_threads| {
        let overrides: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
        let dev = Device::new(DeviceConfig {
            host_threads,
            timing: Some(GpuConfig::load("a100", &overrides).unwrap()),
            ..DeviceConfig::default()
        })
        .unwrap();
        let inp = dev.alloc_from(&input).unwrap();
        let out = dev.alloc::<f32>(4 * 128).unwrap();
        let args = [(&inp).into(), (&out).into(), Arg::I32(5)];
        dev.launch(&kernel(&dev, "pipelined_sum"), 4, 128, 0, &args)
            .unwrap();
        serde_json::to_value(dev.take_timing().unwrap().total).unwrap()
    };
    let reference = run(&[], 1);
    assert!(run(&[], 2) == reference, "2 host threads");
    assert!(
        run(&["gpu.fast_forward=false"], 1) == reference,
        "cycle by cycle"
    );
}
