//! The register-pressure scheduler (`isa::schedule`) on kernels built to exercise each of its
//! moves: the registers it saves, where it puts instructions, what it must leave alone, and,
//! run under the interpreter, that the reordered kernel computes the same outputs with the
//! same warp and thread instruction counts. (The differential test checks the last on
//! thousands of random programs too.)

use emulator::{Engine, GlobalMemory, LaunchConfig, LaunchStats, Program};
use isa::schedule::{REGISTER_UNIT, reorder_for_pressure};
use isa::{Cfg, Function, Liveness, Module, Op, regalloc::Allocation};

const THREADS: u32 = 64;

/// The module as lowered, before the front end's scheduling, and as `frontend::compile`
/// returns it.
fn lowered_and_compiled(text: &str) -> (Module, Module) {
    let ast = frontend::parse("s.ptx", text).expect("parses");
    let lowered = frontend::lower::lower("s.ptx", text, &ast).expect("lowers");
    let compiled = frontend::compile("s.ptx", text).expect("compiles");
    (lowered, compiled)
}

fn regs(f: &Function) -> u32 {
    let cfg = Cfg::compute(f);
    let liveness = Liveness::compute(f, &cfg);
    Allocation::compute(f, &cfg, &liveness).regs_per_thread
}

/// Every instruction's text, in order.
fn listing(f: &Function) -> Vec<String> {
    f.blocks
        .iter()
        .flat_map(|b| &b.insts)
        .map(|i| format!("{i:?}"))
        .collect()
}

/// The block index and position of the first instruction whose debug text contains `needle`.
fn position(f: &Function, needle: &str) -> (usize, usize) {
    f.blocks
        .iter()
        .enumerate()
        .find_map(|(b, block)| {
            let i = block
                .insts
                .iter()
                .position(|i| format!("{i:?}").contains(needle))?;
            Some((b, i))
        })
        .unwrap_or_else(|| panic!("no instruction with {needle}"))
}

/// The block of the instruction defining the register named `name`.
fn def_block(f: &Function, name: &str) -> usize {
    let v = f
        .regs
        .iter()
        .position(|r| r.name == name)
        .expect("declared");
    f.blocks
        .iter()
        .position(|b| b.insts.iter().any(|i| i.defs().any(|d| d.index() == v)))
        .unwrap_or_else(|| panic!("nothing defines {name}"))
}

/// Runs kernel `k(in, out)` of `module` on one CTA of [`THREADS`] threads under the
/// interpreter; `in` holds 16 bytes per thread, `out` 8.
fn run(module: &Module) -> (Vec<u8>, LaunchStats) {
    let mem = GlobalMemory::new(1 << 20).unwrap();
    let program = Program::new(module.clone(), vec![None]);
    let kernel = program.module.function_by_name("k").unwrap();
    let input: Vec<u8> = (0..THREADS * 16)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 7) as u8)
        .collect();
    let din = mem.alloc(input.len() as u64).unwrap();
    mem.write(din, &input).unwrap();
    let dout = mem.alloc(u64::from(THREADS) * 8).unwrap();
    let mut params = din.to_le_bytes().to_vec();
    params.extend_from_slice(&dout.to_le_bytes());
    let cfg = LaunchConfig {
        engine: Engine::Interpreter,
        grid: [1, 1, 1],
        block: [THREADS, 1, 1],
        dynamic_shared: 0,
        host_threads: 1,
        warp_budget: 1 << 20,
        wall_clock: Default::default(),
    };
    let stats = emulator::launch(&program, kernel, &mem, &params, &cfg).expect("runs");
    let mut out = vec![0u8; THREADS as usize * 8];
    mem.read(dout, &mut out).unwrap();
    (out, stats)
}

/// Both modules compute the same outputs with the same instruction counts.
fn assert_same_execution(a: &Module, b: &Module) {
    let ((out_a, stats_a), (out_b, stats_b)) = (run(a), run(b));
    assert_eq!(out_a, out_b, "outputs differ");
    assert_eq!(
        (stats_a.warp_insts, stats_a.thread_insts),
        (stats_b.warp_insts, stats_b.thread_insts),
        "instruction counts differ"
    );
}

const HEADER: &str = ".version 8.0\n.target sm_70\n.address_size 64\n";

/// The shape of the corpus's `setp_int`: twelve comparison flags of two loaded values, each
/// scaled, all summed at the end.
fn flags_kernel() -> String {
    let mut body = String::new();
    for i in 0..12 {
        let cmp = ["eq", "ne", "lt", "le", "gt", "ge"][i % 6];
        let ty = if i < 6 { "s32" } else { "u32" };
        body += &format!(
            "\tsetp.{cmp}.{ty} %p{i}, %r1, %r2;\n\tselp.u32 %r{a}, {w}, 0, %p{i};\n",
            a = 10 + i,
            w = 1 << i
        );
    }
    body += "\tmov.u32 %r30, 0;\n";
    for i in 0..12 {
        body += &format!(
            "\tadd.s32 %r{d}, %r{s}, %r{a};\n",
            d = 31 + i,
            s = 30 + i,
            a = 10 + i
        );
    }
    format!(
        "{HEADER}.visible .entry k(.param .u64 in, .param .u64 out)\n{{\n\
         \t.reg .pred %p<12>;\n\t.reg .b32 %r<50>;\n\t.reg .b64 %rd<8>;\n\
         \tld.param.u64 %rd1, [in];\n\tld.param.u64 %rd2, [out];\n\
         \tmov.u32 %r0, %tid.x;\n\tmul.wide.u32 %rd3, %r0, 16;\n\tadd.s64 %rd4, %rd1, %rd3;\n\
         \tld.global.u32 %r1, [%rd4];\n\tld.global.u32 %r2, [%rd4+4];\n\
         {body}\
         \tmul.wide.u32 %rd5, %r0, 8;\n\tadd.s64 %rd6, %rd2, %rd5;\n\
         \tst.global.u32 [%rd6], %r42;\n\tst.global.u32 [%rd6+4], %r1;\n\tret;\n}}\n"
    )
}

#[test]
fn flags_are_summed_as_they_are_made() {
    let (lowered, compiled) = lowered_and_compiled(&flags_kernel());
    let (before, after) = (&lowered.functions[0], &compiled.functions[0]);
    assert_eq!(
        regs(before),
        14,
        "in PTX order the twelve flags are live together, with %tid and one loaded value"
    );
    assert!(
        regs(after).div_ceil(REGISTER_UNIT) < regs(before).div_ceil(REGISTER_UNIT),
        "the front end keeps the new order only when it saves a unit: {} -> {}",
        regs(before),
        regs(after)
    );
    assert!(
        regs(after) <= 8,
        "each flag is added as it is made: {}",
        regs(after)
    );

    // The same instructions, memory accesses in the same order, the terminator last.
    let (mut a, mut b) = (listing(before), listing(after));
    let memory = |l: &[String]| -> Vec<String> {
        l.iter()
            .filter(|s| s.contains("Ld {") || s.contains("St {"))
            .cloned()
            .collect()
    };
    assert_eq!(memory(&a), memory(&b));
    assert!(b.last().unwrap().contains("Ret"));
    a.sort();
    b.sort();
    assert_eq!(a, b, "only the order changes");
    assert_same_execution(&lowered, &compiled);
}

/// Two `f64` values, `%fd2` and `%fd3`, and a loaded `%f7`, computed before a divergent
/// branch; `after` (following the join) converts them to `f32` and leaves the result in `%f4`. A conversion can move up to
/// the computation of its operand when `arm` (the branch's taken side) is empty, so that one
/// register is live across the branch instead of two.
fn diamond_kernel(arm: &str, after: &str) -> String {
    format!(
        "{HEADER}.visible .entry k(.param .u64 in, .param .u64 out)\n{{\n\
         \t.reg .pred %p<2>;\n\t.reg .b32 %r<8>;\n\t.reg .f32 %f<12>;\n\t.reg .f64 %fd<4>;\n\
         \t.reg .b64 %rd<8>;\n\
         \tld.param.u64 %rd1, [in];\n\tld.param.u64 %rd2, [out];\n\
         \tmov.u32 %r0, %tid.x;\n\tmul.wide.u32 %rd3, %r0, 16;\n\tadd.s64 %rd4, %rd1, %rd3;\n\
         \tld.global.f64 %fd1, [%rd4];\n\tld.global.f32 %f1, [%rd4+8];\n\
         \tld.global.f32 %f7, [%rd4+12];\n\
         \tfma.rn.f64 %fd2, %fd1, 0d3FD45F306DC9C889, 0d3FE0000000000000;\n\
         \tfma.rn.f64 %fd3, %fd1, 0d3FE0000000000000, 0d3FD45F306DC9C889;\n\
         \tand.b32 %r1, %r0, 1;\n\tsetp.eq.u32 %p1, %r1, 0;\n\
         \tmov.f32 %f2, %f1;\n\
         \t@%p1 bra $SKIP;\n\
         {arm}\
         \tmul.f32 %f2, %f1, %f1;\n\
         $SKIP:\n\
         {after}\
         \tmul.wide.u32 %rd5, %r0, 8;\n\tadd.s64 %rd6, %rd2, %rd5;\n\
         \tst.global.f32 [%rd6], %f4;\n\tret;\n}}\n"
    )
}

const CONVERT_AFTER: &str = "\tcvt.rn.f32.f64 %f3, %fd2;\n\tcvt.rn.f32.f64 %f5, %fd3;\n\
                             \tadd.f32 %f6, %f2, %f3;\n\tadd.f32 %f4, %f6, %f5;\n";

#[test]
fn a_narrowing_conversion_moves_up_to_its_operand_across_a_branch() {
    let (lowered, _) = lowered_and_compiled(&diamond_kernel("", CONVERT_AFTER));
    let f = &lowered.functions[0];
    let g = reorder_for_pressure(f).expect("the conversion moves");
    let (fma, cvt) = (position(&g, "Fma"), position(&g, "Cvt"));
    assert_eq!(
        cvt,
        (fma.0, fma.1 + 1),
        "the conversion now follows the fma that computes its operand"
    );
    assert_ne!(position(f, "Cvt").0, fma.0, "it was after the branch");
    assert!(regs(&g) < regs(f), "{} -> {}", regs(f), regs(&g));
    let mut moved = lowered.clone();
    moved.functions[0] = g;
    assert_same_execution(&lowered, &moved);
}

#[test]
fn a_chain_follows_its_operands_up() {
    // Round by round: the conversions move up to their fmas, then the product to the first
    // conversion (its operands `%f7` and `%f3` end there), then the sum to the second. The
    // last add reads `%f2`, which the branch may redefine, so it stays.
    let after = "\tcvt.rn.f32.f64 %f3, %fd2;\n\tcvt.rn.f32.f64 %f5, %fd3;\n\
                 \tmul.f32 %f8, %f7, %f3;\n\tadd.f32 %f9, %f8, %f5;\n\tadd.f32 %f4, %f9, %f2;\n";
    let (lowered, _) = lowered_and_compiled(&diamond_kernel("", after));
    let f = &lowered.functions[0];
    let g = reorder_for_pressure(f).expect("the chain moves");
    let entry = position(&g, "Fma").0;
    for step in ["%f3", "%f5", "%f8", "%f9"] {
        assert_eq!(
            def_block(&g, step),
            entry,
            "{step} moved up to the entry block"
        );
    }
    assert_ne!(
        def_block(&g, "%f4"),
        entry,
        "the add reading %f2 stays after the join"
    );
    let mut moved = lowered.clone();
    moved.functions[0] = g;
    assert_same_execution(&lowered, &moved);
}

#[test]
fn a_conversion_on_one_side_of_a_branch_stays_there() {
    // Converting inside the taken side runs for some threads only: hoisting it above the
    // branch would run it for all of them.
    let arm = "\tcvt.rn.f32.f64 %f3, %fd2;\n\tcvt.rn.f32.f64 %f5, %fd3;\n\
               \tadd.f32 %f6, %f1, %f3;\n\tadd.f32 %f4, %f6, %f5;\n\tbra $END;\n";
    let after = "\tmov.f32 %f4, %f2;\n$END:\n";
    assert_conversions_stay(&diamond_kernel(arm, after));
}

#[test]
fn a_wide_value_read_twice_is_not_narrowed_early() {
    // Each of `%fd2` and `%fd3` is read twice, so converting either early frees nothing.
    let after = "\tcvt.rn.f32.f64 %f3, %fd2;\n\tcvt.rn.f32.f64 %f5, %fd3;\n\
                 \tadd.f32 %f6, %f2, %f3;\n\tadd.f32 %f4, %f6, %f5;\n\
                 \tcvt.rz.f32.f64 %f7, %fd2;\n\tadd.f32 %f4, %f4, %f7;\n\
                 \tcvt.rz.f32.f64 %f7, %fd3;\n\tadd.f32 %f4, %f4, %f7;\n";
    assert_conversions_stay(&diamond_kernel("", after));
}

/// The scheduler leaves the first conversion of `text`'s kernel in its block.
fn assert_conversions_stay(text: &str) {
    let (lowered, _) = lowered_and_compiled(text);
    let f = &lowered.functions[0];
    if let Some(g) = reorder_for_pressure(f) {
        assert_eq!(
            position(&g, "Cvt").0,
            position(f, "Cvt").0,
            "a conversion moved"
        );
    }
}

#[test]
fn nothing_moves_across_a_clock_read() {
    // Twelve flags made, the clock read, then the flags summed: the sum cannot move up past the
    // read, so the flags stay live across it.
    let text = flags_kernel().replacen(
        "\tmov.u32 %r30, 0;\n",
        "\tmov.u32 %r30, %clock;\n\tand.b32 %r30, %r30, 0;\n",
        1,
    );
    let (lowered, _) = lowered_and_compiled(&text);
    let f = &lowered.functions[0];
    let clock = position(f, "Clock");
    if let Some(g) = reorder_for_pressure(f) {
        let selps_before = |f: &Function| {
            f.blocks[0].insts[..position(f, "Clock").1]
                .iter()
                .filter(|i| matches!(i.op, Op::Selp { .. }))
                .count()
        };
        assert_eq!(selps_before(&g), selps_before(f));
        assert_eq!(position(&g, "Clock"), clock, "the read keeps its place");
    }
}

#[test]
fn an_order_that_saves_no_unit_of_registers_is_not_kept() {
    // backprop's bpnn_layerforward_CUDA: the scheduler saves one register (10 -> 9), which
    // changes no occupancy, so the kernel runs as written.
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../samples/rodinia/backprop/backprop.ptx"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let (lowered, compiled) = lowered_and_compiled(&text);
    let name = |m: &Module| {
        m.functions
            .iter()
            .position(|f| f.name == "bpnn_layerforward_CUDA")
            .unwrap()
    };
    let (f, kept) = (
        &lowered.functions[name(&lowered)],
        &compiled.functions[name(&compiled)],
    );
    let g = reorder_for_pressure(f).expect("the scheduler reorders it");
    assert_eq!((regs(f), regs(&g)), (10, 9));
    assert_eq!(listing(kept), listing(f), "the front end keeps PTX order");
}
