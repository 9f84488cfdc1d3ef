//! Fuzzing harnesses: what one fuzz input goes through. The libFuzzer targets in `fuzz/` call
//! these on every input; `tests/integration/fuzz_corpus.rs` calls them on the committed corpus,
//! every committed crash reproducer and deterministic mutations of them, so stable CI runs the
//! same checks without a nightly toolchain.
//!
//! A harness panics exactly when it finds a bug: malformed input must give an error, never a
//! panic, and the JIT (whole runs, or one instruction at a time) must agree with the
//! interpreter. Each input is bounded (its length, the launch shape, the per-warp instruction
//! budget, device memory), so it takes milliseconds.

use emulator::Engine;
use isa::TypeKind;
use runtime::{Arg, Device, DeviceBuffer, DeviceConfig, Kernel};

/// The file name fuzz inputs carry in diagnostics.
const FILE: &str = "fuzz.ptx";

/// Longest input [`parse_lower`] looks at; longer ones are skipped (libFuzzer's `-max_len`
/// in `fuzz/README.md` keeps inputs below it).
pub const MAX_PARSE_BYTES: usize = 64 << 10;

/// Longest input [`run_ptx`] looks at: a small kernel.
pub const MAX_RUN_BYTES: usize = 24 << 10;

/// Front end and analyses, as `warpsim dis`/`check` take a file: bytes → text (non-UTF-8 is
/// an error, as [`frontend::read_source`] reports it) → parse → lower → IR verifier → every
/// analysis, the listing, the register-file hints and the emulator's program preparation
/// (flattening, register allocation).
///
/// # Panics
///
/// On a bug: any panic below, a diagnostic that cannot be rendered, or lowered IR that fails
/// [`isa::verify::verify_module`].
pub fn parse_lower(data: &[u8]) {
    if data.len() > MAX_PARSE_BYTES {
        return;
    }
    let text = match frontend::decode_source(FILE, data.to_vec()) {
        Ok(text) => text,
        Err(message) => {
            assert!(message.starts_with("fuzz.ptx:"), "{message}");
            return;
        }
    };
    let module = match frontend::compile(FILE, &text) {
        Ok(module) => module,
        Err(e) => {
            // The CLI prints the diagnostic: rendering it (source line, caret) must work.
            let _ = e.to_string();
            return;
        }
    };
    let violations = isa::verify::verify_module(&module);
    assert!(
        violations.is_empty(),
        "lowered IR fails verification: {violations:?}"
    );
    let analysis = isa::analysis::ModuleAnalysis::compute(&module);
    let _ = isa::print::disassemble_with(&module, &analysis);
    for (i, f) in module.functions.iter().enumerate() {
        if !f.is_declaration() {
            let a = analysis.function(isa::FuncId(i as u32));
            let _ = isa::hints::FunctionHints::compute(f, a);
        }
    }
    let addrs = vec![None; module.globals.len()];
    let _ = emulator::Program::new(module, addrs);
}

/// Bytes of device memory each fuzz device has: room for the buffers and small module
/// variables; a larger `.global` is an allocation error at load, as on a full GPU.
pub const MEMORY_BYTES: u64 = 64 << 20;

/// Instructions one warp may execute: loops stop after a few thousand instructions with the
/// budget fault instead of running for seconds.
pub const WARP_BUDGET: u64 = 1 << 12;

/// Kernels launched per module, in declaration order.
pub const MAX_KERNELS: usize = 4;

/// Bytes of each pointer argument's buffer: 64 bytes per thread of the compared launch.
pub const BUFFER_BYTES: usize = 4096;

/// Bytes of dynamic shared memory every launch gets (for `.extern .shared` arrays).
pub const DYNAMIC_SHARED: u64 = 256;

/// Bytes of a module variable compared after a launch (larger ones are left out).
const MAX_SYMBOL_BYTES: u64 = 64 << 10;

/// What one launch did: its counters or its error, then every buffer and module variable.
/// Everything here must be identical under the interpreter and the JIT.
#[derive(Debug, PartialEq, Eq)]
pub struct LaunchOutcome {
    pub kernel: String,
    /// `(ctas, warp instructions, thread instructions, divergent branches, reconvergences,
    /// deepest SIMT stack, busiest warp's instructions)`, or the error as the CLI prints it.
    pub result: Result<[u64; 7], String>,
    /// The argument buffers after the launch, in parameter order.
    pub buffers: Vec<Vec<u8>>,
    /// `.global` and `.const` variables (up to 64 KiB each) after the launch, by name.
    pub symbols: Vec<(String, Vec<u8>)>,
}

/// What a module did on one engine: loading failed, or each kernel's launch.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The module did not load (a PTX diagnostic, a variable too large for device memory).
    Load(String),
    Launches(Vec<LaunchOutcome>),
}

/// Runs a small kernel the way `warpsim run-ptx` does, under the interpreter, under the JIT
/// and under the JIT one instruction at a time (the path of the timing model and the
/// characterizer), and requires the same [`Outcome`] bit for bit (the interpreter is the
/// specification).
///
/// The input is PTX text (non-UTF-8 input is the load error the CLI gives). Each of the first
/// [`MAX_KERNELS`] kernels is launched on a grid of 2 CTAs of one warp ((32,1,1), or the
/// kernel's `.reqntid` when that is one warp or less) on one host thread, so the outcome does
/// not depend on how warps interleave, which legitimately differs between the engines (a
/// compiled run against one instruction per turn). Pointer-sized parameters (64-bit integers,
/// and 32-bit ones in an `.address_size 32` module) get a [`BUFFER_BYTES`] buffer of small
/// patterned words, other 32-bit integers 64, narrower ones 4 or 8,
/// floats 1.5, arrays zeros. Kernel faults (out of bounds, budget, trap, deadlock) are
/// outcomes like any other.
///
/// After those, each kernel runs once more as one CTA of two warps (barriers and shared memory
/// between warps), where only crashes count: a racy kernel may end differently under the two
/// engines.
///
/// # Panics
///
/// On a bug: any panic below, or the engines disagreeing.
pub fn run_ptx(data: &[u8]) -> Outcome {
    if data.len() > MAX_RUN_BYTES {
        return Outcome::Load(format!("skipped: longer than {MAX_RUN_BYTES} bytes"));
    }
    let text = match frontend::decode_source(FILE, data.to_vec()) {
        Ok(text) => text,
        Err(message) => return Outcome::Load(message),
    };
    let interpreted = execute(&text, Engine::Interpreter, false);
    for (engine, stepped, what) in [
        (Engine::Jit, false, "the JIT"),
        (
            Engine::Jit,
            true,
            "the JIT one instruction at a time (characterization)",
        ),
    ] {
        let mut other = execute(&text, engine, stepped);
        if stepped {
            // The busiest warp is counted in functional mode only (`LaunchStats::max_warp_insts`).
            if let (Outcome::Launches(s), Outcome::Launches(i)) = (&mut other, &interpreted) {
                for (s, i) in s.iter_mut().zip(i) {
                    if let (Ok(s), Ok(i)) = (&mut s.result, &i.result) {
                        s[6] = i[6];
                    }
                }
            }
        }
        if other != interpreted {
            panic!(
                "{what} disagrees with the interpreter\ninterpreter: {interpreted:#?}\n{what}: {other:#?}"
            );
        }
    }
    interpreted
}

/// Loads `text` on a fresh device with `engine` (`stepped`: in characterization mode, which
/// steps each warp one instruction at a time through per-instruction code, as the timing
/// model does), launches its kernels as [`run_ptx`] describes and returns the outcome of the
/// one-warp launches.
fn execute(text: &str, engine: Engine, stepped: bool) -> Outcome {
    let dev = Device::new(DeviceConfig {
        memory_bytes: Some(MEMORY_BYTES),
        engine,
        host_threads: 1,
        warp_budget: WARP_BUDGET,
        characterize: stepped,
        ..DeviceConfig::default()
    })
    .expect("a 64 MiB device");
    let module = match dev.load_ptx(FILE, text) {
        Ok(m) => m,
        Err(e) => return Outcome::Load(e.to_string()),
    };
    let kernels: Vec<Kernel> = module
        .kernel_names()
        .iter()
        .take(MAX_KERNELS)
        .map(|name| module.kernel(name).expect("a kernel the module lists"))
        .collect();
    let mut launches = Vec::new();
    for kernel in &kernels {
        let (args, buffers) = arguments(&dev, kernel);
        let result = dev
            .launch(kernel, 2, one_warp(kernel), DYNAMIC_SHARED, &args)
            .map(|s| {
                [
                    s.ctas,
                    s.warp_insts,
                    s.thread_insts,
                    s.divergent_branches,
                    s.reconvergences,
                    s.max_simt_depth as u64,
                    s.max_warp_insts,
                ]
            })
            .map_err(|e| e.to_string());
        let buffers = buffers
            .iter()
            .map(|b| b.to_host().expect("reading back a live buffer"))
            .collect();
        let symbols = kernel
            .program()
            .module
            .globals
            .iter()
            .filter(|g| g.size_bytes() <= MAX_SYMBOL_BYTES)
            .filter_map(|g| Some((g.name.clone(), module.read_symbol(&g.name).ok()?)))
            .collect();
        launches.push(LaunchOutcome {
            kernel: kernel.name().to_string(),
            result,
            buffers,
            symbols,
        });
    }
    for kernel in &kernels {
        let (args, _buffers) = arguments(&dev, kernel);
        let _ = dev.launch(kernel, 1, [32, 2, 1], DYNAMIC_SHARED, &args);
    }
    Outcome::Launches(launches)
}

/// What each pointer argument's buffer holds before the launch: [`BUFFER_BYTES`] of
/// little-endian 32-bit words `i % 61` (small values, usable as indices).
pub fn buffer_pattern() -> Vec<u8> {
    (0..BUFFER_BYTES / 4)
        .flat_map(|i| (i as u32 % 61).to_le_bytes())
        .collect()
}

/// The block of the compared launch: the kernel's `.reqntid` if it is one warp or less, else
/// one full warp along x.
fn one_warp(kernel: &Kernel) -> [u32; 3] {
    match kernel.function().tuning.reqntid {
        Some(d) if d.iter().map(|&x| u64::from(x)).product::<u64>() <= 32 => d,
        _ => [32, 1, 1],
    }
}

/// A fresh [`BUFFER_BYTES`] buffer for parameter `p`, kept in `buffers`, as a pointer argument.
fn pointer(dev: &Device, p: &isa::Variable, buffers: &mut Vec<DeviceBuffer<u8>>) -> Arg {
    let b = dev.alloc_from(&buffer_pattern()).expect("a small buffer");
    b.set_label(format!("parameter {}", p.name));
    let arg = Arg::Ptr(b.device_ptr());
    buffers.push(b);
    arg
}

/// Arguments for every parameter of `kernel`, and the buffers the pointers point to.
fn arguments(dev: &Device, kernel: &Kernel) -> (Vec<Arg>, Vec<DeviceBuffer<u8>>) {
    let mut buffers = Vec::new();
    let address_size = kernel.program().module.address_size;
    let args = kernel
        .function()
        .params
        .iter()
        .map(|p| {
            if p.count.is_some() || p.vec != 1 {
                // An array or aggregate (`.param .align 8 .b8 s[16]`): zeros.
                return Arg::Bytes(vec![0; p.size_bytes().min(1 << 16) as usize]);
            }
            match (p.ty.kind(), p.ty.bits()) {
                (_, 64) if p.ty.kind() != TypeKind::Float => pointer(dev, p, &mut buffers),
                // A 32-bit module's pointers are `.u32`.
                (_, 32) if p.ty.kind() != TypeKind::Float && address_size == 32 => {
                    pointer(dev, p, &mut buffers)
                }
                (TypeKind::Float, 64) => Arg::F64(1.5),
                (TypeKind::Float, 16) => Arg::U16(0x3e00), // 1.5 in half precision
                (TypeKind::Float, _) => Arg::F32(1.5),
                (_, 32) => Arg::U32(64),
                (_, 16) => Arg::U16(8),
                _ => Arg::U8(4),
            }
        })
        .collect();
    (args, buffers)
}
