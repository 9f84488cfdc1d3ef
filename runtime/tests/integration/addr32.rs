//! `.address_size 32` through the host API: the hand-written SAXPY-like kernel of
//! `samples/tests/fixtures/run_ptx/addr32.ptx` (32-bit pointer parameters, `cvta.to.global.u32`,
//! shared and local memory through generic addresses, a `.global` variable's address taken with
//! `mov.u32`, `isspacep`, an atomic) under the interpreter, the JIT and the timing model, bit
//! for bit against the host; the 32-bit memory map a fresh device switches to; and the exact
//! errors of a 32-bit module on a device that cannot take it, and of pointers that do not fit.

use emulator::{Engine, MemoryMap};
use runtime::{Arg, Device, DeviceConfig, LaunchStats};

const PTX: &str = include_str!("../../../samples/tests/fixtures/run_ptx/addr32.ptx");
const FILE: &str = "addr32.ptx";
const SAXPY: &str = include_str!("../../../samples/saxpy/saxpy.ptx");

const N: usize = 1000;
const A: f32 = 2.5;
/// The kernel's `.global` array, added by `i % 4`.
const BIAS: [f32; 4] = [1.0, 2.0, 3.0, 4.0];

fn inputs() -> (Vec<f32>, Vec<f32>) {
    // Values whose products and sums round, so that a fused or reordered evaluation differs.
    let x = (0..N)
        .map(|i| (i as f32 * 0.37).sin() * 1e3 + 0.1)
        .collect();
    let y = (0..N).map(|i| (i as f32 * 1.7).cos() / 3.0).collect();
    (x, y)
}

/// What the kernel computes, on the host: y[i] = a * x[i] + y[i] + bias[i % 4], each operation
/// rounded to f32.
fn expected_y(x: &[f32], y: &[f32]) -> Vec<f32> {
    (0..N).map(|i| A * x[i] + y[i] + BIAS[i % 4]).collect()
}

/// What one run leaves: y, the flags, the `hits` counter, and the launch's counters.
struct Run {
    y: Vec<f32>,
    flags: Vec<u32>,
    hits: u32,
    stats: LaunchStats,
}

/// Loads the kernel on `dev`, launches it over N threads (8 CTAs of 128, the last 24 idle)
/// and reads everything back.
fn run(dev: &Device) -> Run {
    let module = dev.load_ptx(FILE, PTX).unwrap();
    assert_eq!(dev.memory().map(), MemoryMap::BITS32);
    let kernel = module.kernel("saxpy32").unwrap();
    let (x, y) = inputs();
    let xb = dev.alloc_from(&x).unwrap();
    let yb = dev.alloc_from(&y).unwrap();
    let flags = dev.alloc::<u32>(N).unwrap();
    for b in [xb.device_ptr(), yb.device_ptr(), flags.device_ptr()] {
        assert!(
            (MemoryMap::BITS32.global_base..1 << 32).contains(&b),
            "{b:#x}"
        );
    }
    let stats = dev
        .launch(
            &kernel,
            8,
            128,
            0,
            &[
                Arg::U32(N as u32),
                Arg::F32(A),
                (&xb).into(),
                (&yb).into(),
                (&flags).into(),
            ],
        )
        .unwrap();
    let hits = module.read_symbol("hits").unwrap();
    Run {
        y: yb.to_host().unwrap(),
        flags: flags.to_host().unwrap(),
        hits: u32::from_le_bytes(hits.try_into().unwrap()),
        stats,
    }
}

#[test]
fn a_32_bit_kernel_runs_bit_exact_under_both_engines_and_the_timing_model() {
    let (x, y) = inputs();
    let want = expected_y(&x, &y);
    // 16 i from the round trip through local memory, then isspacep: shared 1, local 2,
    // global of x 4, global of a shared address never (8).
    let want_flags: Vec<u32> = (0..N as u32).map(|i| 16 * i + 7).collect();
    let mut counts = Vec::new();
    for (engine, timing) in [
        (Engine::Interpreter, None),
        (Engine::Jit, None),
        (Engine::Jit, Some("gtx480")),
        (Engine::Interpreter, Some("gtx480")),
    ] {
        let dev = Device::new(DeviceConfig {
            engine,
            timing: timing.map(|t| timing::GpuConfig::load(t, &[]).unwrap()),
            ..DeviceConfig::default()
        })
        .unwrap();
        let r = run(&dev);
        let what = format!("{engine:?}, timing {timing:?}");
        let wrong = (0..N)
            .filter(|&i| r.y[i].to_bits() != want[i].to_bits())
            .collect::<Vec<_>>();
        assert!(wrong.is_empty(), "{what}: y differs at {wrong:?}");
        assert_eq!(r.flags, want_flags, "{what}");
        assert_eq!(r.hits, N as u32, "{what}");
        counts.push((r.stats.ctas, r.stats.warp_insts, r.stats.thread_insts));
        if let Some(report) = dev.take_timing() {
            assert!(report.total.gpu_sim_cycle > 0, "{what}");
            assert_eq!(report.total.gpu_sim_insn, r.stats.thread_insts, "{what}");
        }
    }
    // CTAs, warp and thread instructions, the same everywhere: each of the 32 warps runs all
    // 58 instructions (the last one's 8 busy lanes the whole body, its 24 idle lanes the first
    // 11 and `ret`): 1000 × 58 + 24 × 12 thread instructions.
    assert!(
        counts
            .iter()
            .all(|c| *c == (8, 32 * 58, 1000 * 58 + 24 * 12)),
        "{counts:?}"
    );
}

/// A 64-bit module runs under the 32-bit map as it does under the 64-bit one (its pointers are
/// merely small), before or after a 32-bit module on the same device.
#[test]
fn the_32_bit_map_runs_64_bit_modules_too() {
    let saxpy = |dev: &Device| {
        let module = dev.load_ptx("saxpy.ptx", SAXPY).unwrap();
        let k = module.kernel("saxpy").unwrap();
        let x = dev.alloc_from(&[1.5f32; 256]).unwrap();
        let y = dev.alloc_from(&[0.25f32; 256]).unwrap();
        dev.launch(
            &k,
            1,
            256,
            0,
            &[Arg::I32(256), Arg::F32(2.0), (&x).into(), (&y).into()],
        )
        .unwrap();
        assert!(y.device_ptr() < 1 << 32);
        y.to_host().unwrap()
    };
    let configured = Device::new(DeviceConfig {
        memory_map: Some(MemoryMap::BITS32),
        ..DeviceConfig::default()
    })
    .unwrap();
    assert_eq!(saxpy(&configured), vec![3.25f32; 256]);
    assert_eq!(run(&configured).hits, N as u32);
    // A default device switches to the 32-bit map for the 32-bit module it loads first.
    let switched = Device::new(DeviceConfig::default()).unwrap();
    assert_eq!(switched.memory().map(), MemoryMap::BITS64);
    assert_eq!(run(&switched).hits, N as u32);
    assert_eq!(saxpy(&switched), vec![3.25f32; 256]);
    // Its memory is the default device's, capped at what the 32-bit map holds.
    let default = DeviceConfig::default().device_memory();
    assert_eq!(
        switched.memory().capacity(),
        default.min(MemoryMap::BITS32.max_capacity())
    );
}

/// The advice every refusal of a 32-bit module ends with.
const ADVICE: &str = "create the device with `memory_map: Some(MemoryMap::BITS32)`";

fn load_error(dev: &Device) -> String {
    match dev.load_ptx(FILE, PTX) {
        Ok(_) => panic!("the 32-bit module loaded"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn a_32_bit_module_on_a_device_that_cannot_take_it_is_an_error() {
    let wide = "the device uses the 64-bit memory map (global memory at 0x700000000000)";
    let in_use = "its memory is already in use (allocations, loaded modules, texture objects or `Device::memory` handles)";
    let prefix = "invalid value: `addr32.ptx` has `.address_size 32`: its addresses must lie below 4 GiB, but";
    // Configured with the 64-bit map.
    let dev = Device::new(DeviceConfig {
        memory_map: Some(MemoryMap::BITS64),
        ..DeviceConfig::default()
    })
    .unwrap();
    assert_eq!(
        load_error(&dev),
        format!("{prefix} {wide} and was configured so (`memory_map`); {ADVICE}")
    );
    // A default device whose memory holds a buffer, then a 64-bit module: in use. Once both
    // are gone, it switches.
    let dev = Device::new(DeviceConfig::default()).unwrap();
    let buffer = dev.alloc::<u32>(4).unwrap();
    assert_eq!(
        load_error(&dev),
        format!("{prefix} {wide} and {in_use}; {ADVICE}")
    );
    drop(buffer);
    let module = dev.load_ptx("saxpy.ptx", SAXPY).unwrap();
    assert_eq!(
        load_error(&dev),
        format!("{prefix} {wide} and {in_use}; {ADVICE}")
    );
    drop(module);
    assert_eq!(run(&dev).hits, N as u32);
    // More memory than the 32-bit map holds: when the device switches, and at creation.
    let big = DeviceConfig {
        memory_bytes: Some(4 << 30),
        ..DeviceConfig::default()
    };
    let too_big = "4294967296 bytes of device memory do not fit the 32-bit memory map (global memory at 0x10000000): it holds at most 1610612736 bytes (1536 MiB)";
    assert_eq!(
        load_error(&Device::new(big.clone()).unwrap()),
        format!("invalid value: `addr32.ptx` has `.address_size 32`, but {too_big}")
    );
    let err = Device::new(DeviceConfig {
        memory_map: Some(MemoryMap::BITS32),
        ..big
    })
    .err()
    .unwrap();
    assert_eq!(err.to_string(), format!("invalid value: {too_big}"));
}

#[test]
fn pointer_arguments_take_the_module_address_size() {
    let dev = Device::new(DeviceConfig::default()).unwrap();
    let module = dev.load_ptx(FILE, PTX).unwrap();
    let kernel = module.kernel("saxpy32").unwrap();
    let buf = dev.alloc::<u32>(N).unwrap();
    let launch = |x: Arg, a: Arg| {
        dev.launch(
            &kernel,
            1,
            32,
            0,
            &[Arg::U32(0), a, x, (&buf).into(), (&buf).into()],
        )
        .err()
        .map(|e| e.to_string())
    };
    assert_eq!(
        launch(Arg::Ptr(1 << 32), Arg::F32(1.0)),
        Some(
            "invalid value: argument 2 of `saxpy32` is pointer 0x100000000, which does not fit 32 bits (parameter `x` is .u32 in a module of `.address_size 32`)"
                .into()
        )
    );
    assert_eq!(
        launch((&buf).into(), (&buf).into()),
        Some(
            "invalid value: argument 1 of `saxpy32` is a pointer but parameter `a` is .f32 (pointers are .u32 in a module of `.address_size 32`)"
                .into()
        )
    );
    // A pointer that fits, and the same address as a plain u32: both launch.
    assert_eq!(launch((&buf).into(), Arg::F32(1.0)), None);
    assert_eq!(
        launch(Arg::U32(buf.device_ptr() as u32), Arg::F32(1.0)),
        None
    );
    // In a 64-bit module a pointer is 64 bits.
    let module = dev.load_ptx("saxpy.ptx", SAXPY).unwrap();
    let saxpy = module.kernel("saxpy").unwrap();
    let err = dev
        .launch(
            &saxpy,
            1,
            32,
            0,
            &[(&buf).into(), Arg::F32(1.0), (&buf).into(), (&buf).into()],
        )
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid value: argument 0 of `saxpy` is a pointer but parameter `saxpy_param_0` is .u32 (pointers are .u64 in a module of `.address_size 64`)"
    );
}

/// A kernel loaded on one device and launched on another whose memory map differs: an error
/// naming both maps, before anything runs.
#[test]
fn a_kernel_launched_under_another_memory_map_is_an_error() {
    let narrow = Device::new(DeviceConfig::default()).unwrap();
    let module = narrow.load_ptx(FILE, PTX).unwrap();
    let kernel = module.kernel("saxpy32").unwrap();
    let wide = Device::new(DeviceConfig::default()).unwrap();
    let buf = wide.alloc::<u32>(4).unwrap();
    let err = wide
        .launch(
            &kernel,
            1,
            32,
            0,
            &[
                Arg::U32(0),
                Arg::F32(1.0),
                (&buf).into(),
                (&buf).into(),
                (&buf).into(),
            ],
        )
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid value: kernel `saxpy32` of `addr32.ptx` was loaded under the 32-bit memory map (global memory at 0x10000000), but this device's memory uses the 64-bit memory map (global memory at 0x700000000000) (load the module on this device)"
    );
}
