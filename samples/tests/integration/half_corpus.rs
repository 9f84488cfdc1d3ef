//! The half-precision corpus (`samples/corpus/half*.cu`, NVRTC's PTX of cuda_fp16.h,
//! cuda_bf16.h and cuda_fp8.h): every kernel checks the intrinsics against f32/f64 arithmetic
//! rounded once (fp8: against consistency and error bounds) and counts disagreements; none may
//! disagree, under the JIT, the interpreter and the timing
//! model, which must also compute the same outputs.

use emulator::Engine;
use runtime::{Arg, Device, DeviceConfig};
use timing::GpuConfig;

/// Threads per launch; every kernel takes `(const float *in, float *out, int *errors, int n)`
/// and reads at most four inputs per thread.
const N: usize = 512;

/// Inputs that exercise rounding, overflow, subnormals and the special values: a fixed set of
/// edge cases, then values of every magnitude from a small deterministic generator.
fn inputs() -> Vec<f32> {
    let edges = [
        0.0,
        -0.0,
        1.0,
        -1.5,
        65504.0,
        65520.0,
        -65536.0,
        6e-8,
        -3e-8,
        1.0 / 3.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::MAX,
        1e-40,
    ];
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut v: Vec<f32> = edges.to_vec();
    while v.len() < 4 * N {
        let r = next();
        // A significand in [1, 2), a sign, and a binary exponent in [-30, 20].
        let m = 1.0 + (r >> 40) as f32 / (1u64 << 24) as f32;
        let e = ((r >> 8) % 51) as i32 - 30;
        let s = if r & 1 == 0 { 1.0 } else { -1.0 };
        v.push(s * m * 2f32.powi(e));
    }
    v
}

/// Runs `kernel` of `file` on `dev`: (errors counted, outputs).
fn run(dev: &Device, file: &str, kernel: &str) -> (i32, Vec<f32>) {
    let path = warpsim::samples_dir().join("corpus").join(file);
    let module = dev.load_ptx_file(&path).unwrap();
    let k = module.kernel(kernel).unwrap();
    let input = dev.alloc_from(&inputs()).unwrap();
    let out = dev.alloc_from(&vec![0f32; 4 * N]).unwrap();
    let errors = dev.alloc_from(&[0i32]).unwrap();
    let args = [
        (&input).into(),
        (&out).into(),
        (&errors).into(),
        Arg::I32(N as i32),
    ];
    dev.launch(&k, (N / 128) as u32, 128, 0, &args)
        .unwrap_or_else(|e| panic!("{file} {kernel}: {e}"));
    (errors.to_host().unwrap()[0], out.to_host().unwrap())
}

fn device(engine: Engine, timing: Option<&str>) -> Device {
    Device::new(DeviceConfig {
        engine,
        timing: timing.map(GpuConfig::preset),
        ..DeviceConfig::default()
    })
    .unwrap()
}

#[test]
fn half_precision_kernels_agree_with_single_rounding_everywhere() {
    let kernels = [
        ("half.ptx", "half_arith"),
        ("half.ptx", "half2_arith"),
        ("half.ptx", "half_convert"),
        ("half.ptx", "half_atomics"),
        ("half_bf16.ptx", "bf16_arith"),
        ("half_bf16.ptx", "half_sm80"),
        ("half_fp8.ptx", "fp8_convert"),
    ];
    for (file, kernel) in kernels {
        let (errors, jit) = run(&device(Engine::Jit, None), file, kernel);
        assert_eq!(errors, 0, "{file} {kernel}: disagreements under the JIT");
        let (errors, interpreted) = run(&device(Engine::Interpreter, None), file, kernel);
        assert_eq!(
            errors, 0,
            "{file} {kernel}: disagreements under the interpreter"
        );
        let (errors, timed) = run(&device(Engine::Jit, Some("v100")), file, kernel);
        assert_eq!(
            errors, 0,
            "{file} {kernel}: disagreements under the timing model"
        );
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(
            bits(&jit),
            bits(&interpreted),
            "{file} {kernel}: JIT/interpreter"
        );
        assert_eq!(
            bits(&jit),
            bits(&timed),
            "{file} {kernel}: functional/timed"
        );
        assert!(
            jit.iter().any(|x| *x != 0.0),
            "{file} {kernel}: wrote outputs"
        );
    }
}
