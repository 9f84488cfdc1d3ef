//! The SIMT stack example of "General-Purpose Graphics Processor Architectures" (Aamodt,
//! Fung, Rogers; Section 3.1.1, Figures 3.2–3.4, after Fung et al. 2007), on the emulator's
//! SIMT stack (`emulator/src/simt.rs`) stepped one warp instruction at a time, and through the
//! timing model's divergence statistics. (The operand-collector and scoreboard examples need
//! no PTX: they are in `timing/tests/book_examples.rs`.)
//!
//! The book's warp has four threads; here a CTA of four threads is one warp with lanes 0–3
//! valid. The book writes masks thread 1 first ("1110" = threads 1–3); below, bit i is lane i
//! (the book's 1110 is 0b0111). Data: data1 = [1, 1, 1, 0] sends threads 1–3 to B and thread
//! 4 to F; data2 = [1, 0, 0, 0] sends thread 1 to C and threads 2–3 to D; N = 1 iteration.

use emulator::exec::CtaEnv;
use emulator::program::EXIT_PC;
use emulator::simt::SimtEntry;
use emulator::stepper::{CtaStepper, Executed};
use runtime::{Arg, Device, DeviceConfig, Kernel};

/// Figure 3.3's code (`figure_3_3`, branch senses as in the book: `@p1 bra F`, `@p2 bra D`)
/// and the same CFG with both branch senses flipped (`figure_3_4_order`: `@p1 bra B`,
/// `@p2 bra C`, F and D laid out as the fall-through sides), so that the emulator, which runs
/// the taken side of a divergent branch first, runs the sides in the order Figure 3.4 shows.
const PTX: &str = r#"
.version 8.8
.target sm_70
.address_size 64

.visible .entry figure_3_3(.param .u64 data1, .param .u64 data2, .param .u64 out, .param .u32 n)
{
    .reg .pred %p<4>;
    .reg .b32 %r<16>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [data1];
    ld.param.u64 %rd2, [data2];
    ld.param.u32 %r10, [n];
    mov.u32 %r1, %tid.x;
    mov.u32 %r11, 0;
    mov.u32 %r12, 0;
    mov.u32 %r13, 0;
    mov.u32 %r14, 0;
$A:
    mul.lo.u32 %r2, %r1, %r10;
    add.u32 %r3, %r2, %r11;
    mul.wide.u32 %rd3, %r3, 4;
    add.s64 %rd4, %rd1, %rd3;
    ld.global.u32 %r4, [%rd4];
    mov.u32 %r5, 0;
    setp.eq.u32 %p1, %r4, %r5;
    @%p1 bra $F;
$B:
    add.s64 %rd5, %rd2, %rd3;
    ld.global.u32 %r6, [%rd5];
    setp.eq.u32 %p2, %r6, %r5;
    @%p2 bra $D;
$C:
    add.u32 %r12, %r12, 1;
    bra.uni $E;
$D:
    add.u32 %r13, %r13, 2;
$E:
    bra.uni $G;
$F:
    add.u32 %r14, %r14, 3;
$G:
    add.u32 %r11, %r11, 1;
    setp.lt.u32 %p3, %r11, %r10;
    @%p3 bra $A;
    ld.param.u64 %rd6, [out];
    mul.wide.u32 %rd7, %r1, 4;
    add.s64 %rd6, %rd6, %rd7;
    shl.b32 %r13, %r13, 8;
    shl.b32 %r14, %r14, 16;
    or.b32 %r12, %r12, %r13;
    or.b32 %r12, %r12, %r14;
    st.global.u32 [%rd6], %r12;
    ret;
}

.visible .entry figure_3_4_order(.param .u64 data1, .param .u64 data2, .param .u64 out, .param .u32 n)
{
    .reg .pred %p<4>;
    .reg .b32 %r<16>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [data1];
    ld.param.u64 %rd2, [data2];
    ld.param.u32 %r10, [n];
    mov.u32 %r1, %tid.x;
    mov.u32 %r11, 0;
    mov.u32 %r12, 0;
    mov.u32 %r13, 0;
    mov.u32 %r14, 0;
$A:
    mul.lo.u32 %r2, %r1, %r10;
    add.u32 %r3, %r2, %r11;
    mul.wide.u32 %rd3, %r3, 4;
    add.s64 %rd4, %rd1, %rd3;
    ld.global.u32 %r4, [%rd4];
    mov.u32 %r5, 0;
    setp.ne.u32 %p1, %r4, %r5;
    @%p1 bra $B;
$F:
    add.u32 %r14, %r14, 3;
    bra.uni $G;
$B:
    add.s64 %rd5, %rd2, %rd3;
    ld.global.u32 %r6, [%rd5];
    setp.ne.u32 %p2, %r6, %r5;
    @%p2 bra $C;
$D:
    add.u32 %r13, %r13, 2;
    bra.uni $E;
$C:
    add.u32 %r12, %r12, 1;
$E:
    bra.uni $G;
$G:
    add.u32 %r11, %r11, 1;
    setp.lt.u32 %p3, %r11, %r10;
    @%p3 bra $A;
    ld.param.u64 %rd6, [out];
    mul.wide.u32 %rd7, %r1, 4;
    add.s64 %rd6, %rd6, %rd7;
    shl.b32 %r13, %r13, 8;
    shl.b32 %r14, %r14, 16;
    or.b32 %r12, %r12, %r13;
    or.b32 %r12, %r12, %r14;
    st.global.u32 [%rd6], %r12;
    ret;
}
"#;

/// Per-thread results: x | y << 8 | z << 16 (thread 1 did C, threads 2–3 D, thread 4 F).
const RESULTS: [u32; 4] = [1, 2 << 8, 2 << 8, 3 << 16];

/// The book's basic blocks, by the PC each starts at.
struct Blocks(Vec<(char, u32)>);

impl Blocks {
    /// Finds the blocks from the branches: every `bra` target starts a block, and so does the
    /// instruction after each conditional branch of A and B.
    fn of(kernel: &Kernel, fallthroughs: [char; 2], targets: &[char]) -> Blocks {
        let code = &kernel.program().code[kernel.id().index()];
        let mut starts = Vec::new();
        let mut after = Vec::new();
        for pc in 0..code.insts.len() as u32 {
            if let isa::Op::Bra { .. } = code.insts[pc as usize].op {
                let target = code.target[pc as usize];
                if !starts.contains(&target) {
                    starts.push(target);
                }
                if code.insts[pc as usize].guard.is_some() && target > pc {
                    after.push(pc + 1);
                }
            }
        }
        starts.sort();
        after.sort();
        let mut blocks: Vec<(char, u32)> = fallthroughs.into_iter().zip(after).collect();
        blocks.extend(targets.iter().copied().zip(starts));
        blocks.sort_by_key(|b| b.1);
        Blocks(blocks)
    }

    fn pc(&self, name: char) -> u32 {
        self.0.iter().find(|b| b.0 == name).expect("a block").1
    }

    /// The block holding `pc` (instructions before A are the prologue, '-').
    fn name(&self, pc: u32) -> char {
        self.0.iter().rev().find(|b| b.1 <= pc).map_or('-', |b| b.0)
    }
}

/// A SIMT stack entry in the book's terms: (RPC, next PC as a block, mask).
fn entry(blocks: &Blocks, e: &SimtEntry) -> (char, char, u32) {
    let rpc = if e.rpc == EXIT_PC {
        '-'
    } else {
        blocks.name(e.rpc)
    };
    (rpc, blocks.name(e.pc), e.mask)
}

/// What stepping the warp shows: the blocks run with their masks (consecutive instructions of
/// one block merged), the stack after each divergent branch, and the thread instructions.
struct Trace {
    blocks: Vec<(char, u32)>,
    stacks: Vec<Vec<(char, char, u32)>>,
    thread_insts: u64,
    warp_insts: u64,
}

fn step_warp(dev: &Device, kernel: &Kernel, blocks: &Blocks, params: &[u8]) -> Trace {
    let program = kernel.program();
    let layout = program.layouts[kernel.id().index()].as_ref().unwrap();
    let mem = dev.memory();
    let env = CtaEnv {
        program,
        kernel: kernel.id(),
        layout,
        mem: &mem,
        params,
        shared: vec![0; layout.dynamic_offset as usize],
        dynamic_shared: 0,
        cta: [0; 3],
        grid: [1, 1, 1],
        block: [4, 1, 1],
        warps_per_cta: 1,
        held_stores: None,
        clock: None,
    };
    let mut cta = CtaStepper::new(env, Vec::new(), 10_000, None);
    let mut out = Executed::default();
    let mut trace = Trace {
        blocks: Vec::new(),
        stacks: Vec::new(),
        thread_insts: 0,
        warp_insts: 0,
    };
    while let Some((_, pc, mask)) = cta.next(0) {
        let name = blocks.name(pc);
        if name != '-' && trace.blocks.last() != Some(&(name, mask)) {
            trace.blocks.push((name, mask));
        }
        let before = cta.warps[0].frame().simt.stats.divergent_branches;
        cta.step(0, &mut out).unwrap();
        trace.thread_insts += u64::from(out.active.count_ones());
        trace.warp_insts += 1;
        let simt = &cta.warps[0].frame().simt;
        if simt.stats.divergent_branches > before {
            trace
                .stacks
                .push(simt.entries().iter().map(|e| entry(blocks, e)).collect());
        }
    }
    trace
}

/// Runs `kernel` on the timing model (gtx480, one SM) and checks its results.
fn timed(dev: &Device, kernel: &Kernel) -> timing::TimingStats {
    let data1 = dev.alloc_from(&[1u32, 1, 1, 0]).unwrap();
    let data2 = dev.alloc_from(&[1u32, 0, 0, 0]).unwrap();
    let out = dev.alloc_from(&[0u32; 4]).unwrap();
    dev.launch(
        kernel,
        1,
        4,
        0,
        &[(&data1).into(), (&data2).into(), (&out).into(), Arg::U32(1)],
    )
    .unwrap();
    assert_eq!(out.to_host().unwrap(), RESULTS);
    dev.take_timing().unwrap().kernels.pop().unwrap()
}

/// Figure 3.4 (b)–(d). The book's stack, TOS last, entries (RPC, next PC, mask):
///
/// ```text
///     (c) after A's branch:  (-, G, 1111) (G, F, 0001) (G, B, 1110)
///     (d) after B's branch:  (-, G, 1111) (G, F, 0001) (G, E, 1110) (E, D, 0110) (E, C, 1000)
/// ```
///
/// and the serialized execution A/1111, B/1110, C/1000, D/0110, E/1110, F/0001, G/1111. The
/// emulator pushes the fall-through side first and the taken side on top (GPGPU-Sim's order
/// for forward branches), so with the branch senses flipped (`figure_3_4_order`) it reproduces
/// the book exactly: the same two stacks, the same block order, the deepest stack 5.
///
/// With Figure 3.3's code as written (`@p1 bra F`, `@p2 bra D`) the taken sides F and D run
/// first. F finishes and is popped before B diverges, so the stack after B's branch is one
/// entry shorter: deepest 4 instead of 5 — the book's own point that the push order sets the
/// stack depth. Both run the same blocks with the same masks and the same instruction counts.
#[test]
fn figure_3_4_simt_stack() {
    let dev = Device::new(DeviceConfig {
        host_threads: 1,
        timing: Some(timing::GpuConfig::load("gtx480", &["gpu.sms=1".into()]).unwrap()),
        ..DeviceConfig::default()
    })
    .unwrap();
    let module = dev.load_ptx("figure_3_3.ptx", PTX).unwrap();
    let data1 = dev.alloc_from(&[1u32, 1, 1, 0]).unwrap();
    let data2 = dev.alloc_from(&[1u32, 0, 0, 0]).unwrap();
    let out = dev.alloc_from(&[0u32; 4]).unwrap();
    let mut params = Vec::new();
    for a in [data1.device_ptr(), data2.device_ptr(), out.device_ptr()] {
        params.extend_from_slice(&a.to_le_bytes());
    }
    params.extend_from_slice(&1u32.to_le_bytes());

    // Book masks, thread 1 first, to lane bits.
    let m = |s: &str| -> u32 {
        s.chars()
            .enumerate()
            .filter(|(_, c)| *c == '1')
            .fold(0, |m, (i, _)| m | 1 << i)
    };

    // The flipped senses: the book's figure exactly.
    let kernel = module.kernel("figure_3_4_order").unwrap();
    let blocks = Blocks::of(&kernel, ['F', 'D'], &['A', 'B', 'C', 'E', 'G']);
    assert_eq!(blocks.0.iter().map(|b| b.0).collect::<String>(), "AFBDCEG");
    let code = &kernel.program().code[kernel.id().index()];
    // The immediate post-dominators are the reconvergence points: G for A's branch, E for B's.
    assert_eq!(code.reconverge[blocks.pc('F') as usize - 1], blocks.pc('G'));
    assert_eq!(code.reconverge[blocks.pc('D') as usize - 1], blocks.pc('E'));
    let book = step_warp(&dev, &kernel, &blocks, &params);
    assert_eq!(
        book.blocks,
        [
            ('A', m("1111")),
            ('B', m("1110")),
            ('C', m("1000")),
            ('D', m("0110")),
            ('E', m("1110")),
            ('F', m("0001")),
            ('G', m("1111")),
        ]
    );
    assert_eq!(
        book.stacks,
        [
            vec![
                ('-', 'G', m("1111")),
                ('G', 'F', m("0001")),
                ('G', 'B', m("1110"))
            ],
            vec![
                ('-', 'G', m("1111")),
                ('G', 'F', m("0001")),
                ('G', 'E', m("1110")),
                ('E', 'D', m("0110")),
                ('E', 'C', m("1000")),
            ],
        ]
    );
    let s = timed(&dev, &kernel);
    eprintln!(
        "figure_3_4_order: {} warp instructions, {} thread instructions, {} cycles, {} divergent branches, {} reconvergences, depth {}",
        s.warp_insts,
        s.gpu_sim_insn,
        s.gpu_sim_cycle,
        s.divergent_branches,
        s.reconvergences,
        s.max_simt_depth
    );
    assert_eq!(
        (s.warp_insts, s.gpu_sim_insn),
        (book.warp_insts, book.thread_insts)
    );
    // Two divergent branches; four entries reach their reconvergence point (C and D at E,
    // then E's entry and F at G).
    assert_eq!(
        (s.divergent_branches, s.reconvergences, s.max_simt_depth),
        (2, 4, 5)
    );

    // Figure 3.3 as written: taken sides first.
    let kernel = module.kernel("figure_3_3").unwrap();
    let blocks = Blocks::of(&kernel, ['B', 'C'], &['A', 'D', 'E', 'F', 'G']);
    assert_eq!(blocks.0.iter().map(|b| b.0).collect::<String>(), "ABCDEFG");
    let code = &kernel.program().code[kernel.id().index()];
    assert_eq!(code.reconverge[blocks.pc('B') as usize - 1], blocks.pc('G'));
    assert_eq!(code.reconverge[blocks.pc('C') as usize - 1], blocks.pc('E'));
    let as_written = step_warp(&dev, &kernel, &blocks, &params);
    assert_eq!(
        as_written.blocks,
        [
            ('A', m("1111")),
            ('F', m("0001")),
            ('B', m("1110")),
            ('D', m("0110")),
            ('C', m("1000")),
            ('E', m("1110")),
            ('G', m("1111")),
        ]
    );
    assert_eq!(
        as_written.stacks,
        [
            vec![
                ('-', 'G', m("1111")),
                ('G', 'B', m("1110")),
                ('G', 'F', m("0001"))
            ],
            vec![
                ('-', 'G', m("1111")),
                ('G', 'E', m("1110")),
                ('E', 'C', m("1000")),
                ('E', 'D', m("0110")),
            ],
        ]
    );
    let s = timed(&dev, &kernel);
    eprintln!(
        "figure_3_3: {} warp instructions, {} thread instructions, {} cycles, {} divergent branches, {} reconvergences, depth {}",
        s.warp_insts,
        s.gpu_sim_insn,
        s.gpu_sim_cycle,
        s.divergent_branches,
        s.reconvergences,
        s.max_simt_depth
    );
    assert_eq!(
        (s.warp_insts, s.gpu_sim_insn),
        (as_written.warp_insts, as_written.thread_insts)
    );
    assert_eq!(
        (s.divergent_branches, s.reconvergences, s.max_simt_depth),
        (2, 4, 4)
    );
}
