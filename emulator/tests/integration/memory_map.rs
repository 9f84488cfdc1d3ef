//! The memory map of `.address_size 32` modules at the emulator's level: addresses computed
//! modulo 2^32 (an offset past 4 GiB, a 64-bit register with high bits set) under the
//! interpreter and the JIT alike, and a program refused by memory of another map.

use emulator::memory::MemoryCheck;
use emulator::{Engine, FaultKind, GlobalMemory, LaunchConfig, MemoryMap, Program};

const THREADS: u32 = 32;

/// out[tid] = in[tid + 1] + in[tid] + 1000, the first read at offset 2^32 + 4 from &in[tid],
/// the second through a 64-bit register whose high half is all ones, and the 1000 from
/// `isspacep.shared` of a shared generic address with the same high half: each names the
/// intended address only modulo 2^32.
const WRAP: &str = "\
.version 8.8
.target sm_70
.address_size 32
.visible .entry k(.param .u32 in, .param .u32 out)
{
    .reg .pred %p<2>;
    .reg .b32 %r<14>;
    .reg .b64 %rd<5>;
    .shared .align 4 .b32 s[1];
    ld.param.u32 %r1, [in];
    ld.param.u32 %r2, [out];
    mov.u32 %r3, %tid.x;
    shl.b32 %r4, %r3, 2;
    add.s32 %r5, %r1, %r4;
    ld.global.u32 %r6, [%r5+4294967300];
    cvt.u64.u32 %rd1, %r5;
    or.b64 %rd2, %rd1, -4294967296;
    ld.global.u32 %r7, [%rd2];
    add.s32 %r8, %r6, %r7;
    mov.u32 %r10, s;
    cvta.shared.u32 %r11, %r10;
    cvt.u64.u32 %rd3, %r11;
    or.b64 %rd4, %rd3, -4294967296;
    isspacep.shared %p1, %rd4;
    selp.b32 %r12, 1000, 0, %p1;
    add.s32 %r13, %r8, %r12;
    add.s32 %r9, %r2, %r4;
    st.global.u32 [%r9], %r13;
    ret;
}
";

fn config(engine: Engine) -> LaunchConfig {
    LaunchConfig {
        engine,
        grid: [1, 1, 1],
        block: [THREADS, 1, 1],
        dynamic_shared: 0,
        host_threads: 1,
        warp_budget: emulator::DEFAULT_WARP_BUDGET,
        wall_clock: Default::default(),
    }
}

#[test]
fn a_32_bit_module_computes_addresses_modulo_4_gib_under_both_engines() {
    let module = frontend::compile("wrap.ptx", WRAP).unwrap();
    let program = Program::new(module, Vec::new());
    assert_eq!(program.map(), MemoryMap::BITS32);
    let kernel = program.module.function_by_name("k").unwrap();
    let input: Vec<u32> = (0..=THREADS).map(|i| i * i + 3).collect();
    let want: Vec<u32> = (0..THREADS as usize)
        .map(|t| input[t + 1] + input[t] + 1000)
        .collect();
    for engine in [Engine::Interpreter, Engine::Jit] {
        let mem = GlobalMemory::with_map(1 << 20, MemoryCheck::Exact, MemoryMap::BITS32).unwrap();
        let bytes: Vec<u8> = input.iter().flat_map(|v| v.to_le_bytes()).collect();
        let din = mem.alloc(bytes.len() as u64).unwrap();
        mem.write(din, &bytes).unwrap();
        let dout = mem.alloc(u64::from(THREADS) * 4).unwrap();
        assert!(din < 1 << 32 && dout < 1 << 32);
        let mut params = (din as u32).to_le_bytes().to_vec();
        params.extend_from_slice(&(dout as u32).to_le_bytes());
        emulator::launch(&program, kernel, &mem, &params, &config(engine)).unwrap();
        let mut out = vec![0u8; THREADS as usize * 4];
        mem.read(dout, &mut out).unwrap();
        let got: Vec<u32> = out
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(got, want, "{engine:?}");
    }
}

/// The generic address of local memory past the 32-bit map's local window (512 MiB) wraps past
/// 4 GiB into the empty first 256 MiB: an access faults there instead of reaching global memory.
#[test]
fn local_memory_past_its_window_faults_rather_than_alias_global_memory() {
    let text = "\
.version 8.8
.target sm_70
.address_size 32
.visible .entry far(.param .u32 out)
{
    .reg .b32 %r<3>;
    mov.u32 %r1, 536871168;
    cvta.local.u32 %r2, %r1;
    st.u32 [%r2], %r1;
    ret;
}
";
    let module = frontend::compile("far.ptx", text).unwrap();
    let program = Program::new(module, Vec::new());
    let kernel = program.module.function_by_name("far").unwrap();
    for engine in [Engine::Interpreter, Engine::Jit] {
        let mem = GlobalMemory::with_map(1 << 20, MemoryCheck::Exact, MemoryMap::BITS32).unwrap();
        let out = mem.alloc(4).unwrap();
        let params = (out as u32).to_le_bytes();
        let fault = emulator::launch(&program, kernel, &mem, &params, &config(engine)).unwrap_err();
        assert_eq!(
            fault.kind.to_string(),
            format!(
                "illegal global address 0x100 (4-byte access {} bytes before the start of allocation #0 of 4 bytes at {out:#x})",
                out - 0x100
            ),
            "{engine:?}"
        );
    }
}

#[test]
fn a_program_runs_only_on_memory_of_its_map() {
    let module = frontend::compile("wrap.ptx", WRAP).unwrap();
    assert_eq!(
        Program::new(module.clone(), Vec::new())
            .with_map(MemoryMap::BITS64)
            .err(),
        Some(
            "a module of `.address_size 32` cannot run under the 64-bit memory map (global memory at 0x700000000000): its addresses must lie below 4 GiB"
                .to_string()
        )
    );
    let program = Program::new(module, Vec::new());
    let kernel = program.module.function_by_name("k").unwrap();
    let wide = GlobalMemory::new(1 << 20).unwrap();
    for engine in [Engine::Interpreter, Engine::Jit] {
        let fault =
            emulator::launch(&program, kernel, &wide, &[0; 8], &config(engine)).unwrap_err();
        assert!(matches!(fault.kind, FaultKind::MemoryMap { .. }));
        assert_eq!(
            fault.kind.to_string(),
            "memory map mismatch: the program was prepared for the 32-bit memory map (global memory at 0x10000000), but the device memory uses the 64-bit memory map (global memory at 0x700000000000)"
        );
    }
    // A 64-bit module may run under the 32-bit map.
    let saxpy = frontend::compile(
        "saxpy.ptx",
        include_str!("../../../samples/saxpy/saxpy.ptx"),
    )
    .unwrap();
    let program = Program::new(saxpy, Vec::new())
        .with_map(MemoryMap::BITS32)
        .unwrap();
    assert_eq!(program.address_mask(), u64::MAX);
}
