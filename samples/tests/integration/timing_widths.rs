//! Register widths end to end: a kernel with known values (`fixtures/widths/widths.ptx`:
//! positive and negative constants, 64-bit values, 16-bit registers, a divergent write, a
//! predicated write to some lanes and one to none, a divergent reader, `bar.red` executed and
//! predicated off, a call, a 4-register vector load and registers named twice) run under the
//! timing model, with every read and write width class derived by hand below; and the
//! stepper's records themselves (register numbers in each call frame's window, reads taken
//! before execution, the same under the JIT and the interpreter).
//!
//! The kernel runs as one warp of 32 threads (lane l has `%tid.x` = l). Physical registers are
//! those `warpsim dis samples/tests/fixtures/widths/widths.ptx` prints (kernel: R0–R9, callee
//! `negate`: R0, which its frame window puts at R12, the kernel's 10 registers rounded up to a
//! multiple of 4). Two values are launch constants, read as operands and held in no register
//! (`isa::storage`): `%rs1` (an immediate) and `%rd3` (the kernel parameter `out`); their
//! definitions write nothing and their readers do not read them. Classes are written (all lanes, executing lanes); a value's class is the
//! fewest bytes whose sign extension gives it back (-200 and 0x80 need 2 bytes, 0x12345
//! needs 3). `[out]` is the device's first allocation, 0x7000_0000_0000 (asserted): low word
//! 0 (1 byte), high word 0x7000 (2 bytes).
//!
//! ```text
//! pc  instruction                       reads (class)                writes (class)
//!  0  mov r1 = tid                       -                            R0 = 0..31      (1,1)
//!  1  mov r2 = -200                      -                            R1 = -200       (2,2)
//!  2  add r3 = r2 + r2                   R1 (2,2), R1 again (2,2)     R2 = -400       (2,2)
//!  3  mov r4 = 100000                    -                            R3              (3,3)
//!  4  shl r5 = r1 << 16                  R0 (1,1)                     R4 = l<<16      (3,3)
//!  5  mov.s16 rs1 = -1                   -                            - (a constant)
//!  6  mov.s16 rs2 = -300                 -                            R5              (2,2)
//!  7  add.s16 rs3 = rs1 + rs2            R5 (2,2)                     R5 = -301       (2,2)
//!  8  mov.u64 rd1 = 0x1_0000_0080        -                            R6 = 0x80 (2,2), R7 = 1 (1,1)
//!  9  add.s64 rd2 = rd1 + rd1            R6 (2,2), R7 (1,1), again    R6 = 0x100 (2,2), R7 = 2 (1,1)
//! 10  mov.b64 {r6, r7} = rd2             R6 (2,2), R7 (1,1)           R6 (2,2), R7 (1,1)
//! 11  setp p1 = r1 == 0                  R0 (1,1)                     (predicate)
//! 12  @p1 add r4 = r5 + 7  [lane 0]      R4 (3,1): lane 0 holds 0     R3: 7 in lane 0, 100000 else (3,1)
//! 13  setp p2 = r1 > 99  [never]         R0 (1,1)                     (predicate)
//! 14  @p2 mov r3 = 0x12345678 [no lane]  -                            R2 keeps -400   (2,1)
//! 15  mov r11 = 0x12345                  -                            R4              (3,3)
//! 16  setp p3 = r1 < 8                   R0 (1,1)                     (predicate)
//! 17  @p3 bra JOIN                       -                            -
//! 18  mov r2 = 5  [lanes 8-31]           -                            R1: -200 in lanes 0-7 (2,1)
//! 19  bar.red.popc r10 = popc(p3)        -                            R8 = 8 at the release (1,1)
//! 20  @p2 bar.red.popc r11 [no lane]     -                            R4 keeps 0x12345 (3,1)
//! 21  st.param [param0] = r4             R3 (3,3)                     -
//! 22  call negate                        -                            -
//! c0    ld.param r1 = [x]                -                            R12 = 7 / 100000 (3,3)
//! c1    neg r2 = -r1                     R12 (3,3)                    R12 = -7 / -100000 (3,3)
//! c2    st.param [ret] = r2              R12 (3,3)                    -
//! c3    ret                              -                            -
//! 23  ld.param r12 = [retval0]           -                            R3              (3,3)
//! 24  st.shared.v4 {r6, r7, r6, r3}      R6 (2,2), R7 (1,1), R6 again, R2 (2,2)   -
//! 25  ld.shared.v4 {r13..r16}            -                            R2 = 0x100 (2,2), R6 = 2 (1,1),
//!                                                                     R7 = 0x100 (2,2), R9 = -400 (2,2)
//! 26  cvt.s32.s16 r8 = rs3               R5 (2,2)                     R2 = -301       (2,2)
//! 27  ld.param.u64 rd3 = [out]           -                            - (a constant)
//! 28  mul.wide rd4 = r1 * 4              R0 (1,1)                     R6 = 4l (1,1), R7 = 0 (1,1)
//! 29  add.s64 rd4 = rd3 + rd4            R6 (1,1), R7 (1,1)           R6 = 4l (1,1), R7 = 0x7000 (2,2)
//! 30  add r9 = r12 + r10                 R3 (3,3), R8 (1,1)           R0 = 1 / -99992 (3,3)
//! 31  add r9 = r9 + r11                  R0 (3,3), R4 (3,3)           R0 = 74566 / -25427 (3,3)
//! 32  add r9 = r9 + r2                   R0 (3,3), R1 (2,2)           R0              (3,3)
//! 33  add r9 = r9 + r8                   R0 (3,3), R2 (2,2)           R0              (3,3)
//! 34  st.global [rd4] = r9               R6 (1,1), R7 (2,2), R0 (3,3)   -
//! 35  ret
//! ```
//!
//! Results: lane 0 gets 74065, lanes 1–7 −25928, lanes 8–31 −25723.

use emulator::exec::CtaEnv;
use emulator::jit::Granularity;
use emulator::stepper::{CtaStepper, Executed, FrameBase, RegRead, RegWrite};
use runtime::{Device, DeviceConfig, Module};
use timing::{GpuConfig, TimingStats};

const PTX: &str = include_str!("../fixtures/widths/widths.ptx");

/// Where the device's first allocation lands (the derivation above depends on it).
const OUT: u64 = 0x7000_0000_0000;

fn device(overrides: &[&str]) -> Device {
    let overrides: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    Device::new(DeviceConfig {
        host_threads: 1,
        timing: Some(GpuConfig::load("gtx480", &overrides).unwrap()),
        ..DeviceConfig::default()
    })
    .unwrap()
}

/// Runs the kernel on one warp and checks its results; returns its statistics.
fn run(dev: &Device) -> TimingStats {
    let module = dev.load_ptx("widths.ptx", PTX).unwrap();
    let out = dev.alloc::<i32>(32).unwrap();
    assert_eq!(out.device_ptr(), OUT, "the derivation assumes this address");
    dev.launch(
        &module.kernel("widths").unwrap(),
        1,
        32,
        0,
        &[(&out).into()],
    )
    .unwrap();
    let mut want = vec![-25723i32; 32];
    want[0] = 74065;
    want[1..8].fill(-25928);
    assert_eq!(out.to_host().unwrap(), want);
    let mut report = dev.take_timing().unwrap();
    assert_eq!(report.kernels.len(), 1);
    report.kernels.pop().unwrap()
}

/// The per-class entry of `stats` named `name`.
fn class<'a>(stats: &'a TimingStats, name: &str) -> &'a timing::stats::ClassStats {
    stats.by_class.iter().find(|c| c.class == name).unwrap()
}

/// Histograms (index 0 = 1 byte ... 3 = 4 bytes) counted from the table in the module doc,
/// with a register named twice read once (the presets' `sm.rf.read_duplicates = "once"`).
#[test]
fn every_read_and_write_of_a_kernel_with_known_values_has_its_derived_width() {
    let s = run(&device(&[]));
    // 36 kernel instructions and the callee's 4, one warp instruction each.
    assert_eq!(s.warp_insts, 40);
    // Reads, all lanes: 1 byte: pcs 4, 9, 10, 11, 13, 16, 24, 28, 29 (two), 30, 34 = 12;
    // 2 bytes: 2, 7, 9, 10, 24 (two), 26, 32, 33, 34 = 10; 3 bytes: 12, 21, c1, c2, 30,
    // 31 (two), 32, 33, 34 = 10. Executing lanes: pc 12's read of R4 is 1 byte in lane 0.
    assert_eq!(s.widths.reads_all_lanes, [12, 10, 10, 0]);
    assert_eq!(s.widths.reads_active_lanes, [13, 10, 9, 0]);
    // Writes, all lanes: 1 byte: pcs 0, 8, 9, 10 (high words), 19, 25, 28 (two), 29 = 9;
    // 2 bytes: 1, 2, 6, 7, 8, 9, 10 (low words), 14, 18, 25 (three), 26, 29 = 14; 3 bytes:
    // 3, 4, 12, 15, 20, c0, c1, 23, 30, 31, 32, 33 = 12. Executing lanes: pcs 12 and 20
    // (3 bytes) and 14 and 18 (2 bytes) are 1 byte.
    assert_eq!(s.widths.writes_all_lanes, [9, 14, 12, 0]);
    assert_eq!(s.widths.writes_active_lanes, [13, 12, 10, 0]);
    // One register-file access per read and per written 32-bit register.
    assert_eq!(s.rf.reads, 32);
    assert_eq!(s.rf.writes, 35);
    assert_eq!(s.rf.reads_per_bank.iter().sum::<u64>(), 32);
    assert_eq!(s.rf.writes_per_bank.iter().sum::<u64>(), 35);

    // By opcode class. Moves (pcs 0, 1, 3, 5, 6, 8, 10, 14, 15, 18, 26): reads at 10 and 26.
    let mov = class(&s, "move");
    assert_eq!(mov.warp_insts, 11);
    assert_eq!(mov.widths.reads_all_lanes, [1, 2, 0, 0]);
    assert_eq!(mov.widths.reads_active_lanes, [1, 2, 0, 0]);
    assert_eq!(mov.widths.writes_all_lanes, [3, 7, 2, 0]);
    assert_eq!(mov.widths.writes_active_lanes, [5, 5, 2, 0]);
    // Integer (2, 4, 7, 9, 11, 12, 13, 16, 28-33, c1).
    let int = class(&s, "int");
    assert_eq!(int.warp_insts, 15);
    assert_eq!(int.widths.reads_all_lanes, [9, 5, 7, 0]);
    assert_eq!(int.widths.reads_active_lanes, [10, 5, 6, 0]);
    assert_eq!(int.widths.writes_all_lanes, [4, 4, 7, 0]);
    assert_eq!(int.widths.writes_active_lanes, [5, 4, 6, 0]);
    // Memory (21, 23, 24, 25, 27, 34, c0, c2).
    let memory = class(&s, "memory");
    assert_eq!(memory.warp_insts, 8);
    assert_eq!(memory.widths.reads_all_lanes, [2, 3, 3, 0]);
    assert_eq!(memory.widths.reads_active_lanes, [2, 3, 3, 0]);
    assert_eq!(memory.widths.writes_all_lanes, [1, 3, 2, 0]);
    assert_eq!(memory.widths.writes_active_lanes, [1, 3, 2, 0]);
    // Control (17, 19, 20, 22, 35, c3): the two `bar.red` destinations.
    let control = class(&s, "control");
    assert_eq!(control.warp_insts, 6);
    assert_eq!(control.widths.reads_all_lanes, [0; 4]);
    assert_eq!(control.widths.writes_all_lanes, [1, 0, 1, 0]);
    assert_eq!(control.widths.writes_active_lanes, [2, 0, 0, 0]);
}

/// With `sm.rf.read_duplicates = "each"`, the registers named twice (pc 2: R1; pc 9: R6 and
/// R7; pc 24: R6) are read again: 4 more reads, 3 of 2 bytes and 1 of 1 byte, in the
/// register file as in the width histograms. Writes do not change.
#[test]
fn a_register_named_twice_is_read_once_or_each_time_as_configured() {
    let s = run(&device(&["sm.rf.read_duplicates=each"]));
    assert_eq!(s.widths.reads_all_lanes, [13, 13, 10, 0]);
    assert_eq!(s.widths.reads_active_lanes, [14, 13, 9, 0]);
    assert_eq!(s.rf.reads, 36);
    assert_eq!(s.rf.reads_per_bank.iter().sum::<u64>(), 36);
    assert_eq!(s.widths.writes_all_lanes, [9, 14, 12, 0]);
    assert_eq!(s.rf.writes, 35);
    // Instructions by register sources (0, 1, 2, 3, 4+). Read once: none at pcs 0, 1, 3, 5,
    // 6, 8, 14, 15, 17-20, 22, 23, 25, 27, 35, c0 and c3 (19); one at 2, 4, 7, 11, 12, 13,
    // 16, 21, 26, 28, c1, c2 (12); two at 9, 10, 29, 30-33 (7); three at 24 and 34. Read each
    // time, pc 2 has two (one fewer with one, one more with two), and 9 (from two) and 24
    // (from three) four.
    assert_eq!(
        run(&device(&[])).insts_by_sources,
        [19, 12, 7, 2, 0],
        "read once"
    );
    assert_eq!(s.insts_by_sources, [19, 11, 7, 1, 2], "read each time");
}

/// One instruction's records: function, PC, frame base, reads, writes, released writes.
type Record = (
    u32,
    u32,
    FrameBase,
    Vec<RegRead>,
    Vec<RegWrite>,
    Vec<(u32, RegWrite)>,
);

/// Steps the kernel's one warp to the end, under compiled instructions or the interpreter.
fn step_records(dev: &Device, module: &Module, jit: bool) -> Vec<Record> {
    let kernel = module.kernel("widths").unwrap();
    let program = kernel.program();
    let layout = program.layouts[kernel.id().index()].as_ref().unwrap();
    let out = dev.alloc::<i32>(32).unwrap();
    let params = out.device_ptr().to_le_bytes();
    let mem = dev.memory();
    let env = CtaEnv {
        program,
        kernel: kernel.id(),
        layout,
        mem: &mem,
        params: &params,
        shared: vec![0; layout.dynamic_offset as usize],
        dynamic_shared: 0,
        cta: [0; 3],
        grid: [1, 1, 1],
        block: [32, 1, 1],
        warps_per_cta: 1,
        held_stores: None,
        clock: None,
    };
    let engine = if jit {
        emulator::Engine::Jit
    } else {
        emulator::Engine::Interpreter
    };
    let compiled = emulator::launch::compiled(
        program,
        kernel.id(),
        &mem,
        engine,
        Granularity::Instructions,
    )
    .unwrap();
    assert_eq!(compiled.is_some(), jit);
    let mut cta = CtaStepper::new(env, Vec::new(), 10_000, compiled);
    let mut out = Executed::default();
    let mut records = Vec::new();
    while cta.next(0).is_some() {
        let base = cta.frame_base(0);
        cta.step(0, &mut out).unwrap();
        assert_eq!(out.frame, base, "the frame base known before issue");
        records.push((
            out.func.0,
            out.pc,
            out.frame,
            out.reads.clone(),
            out.writes.clone(),
            out.released_writes.clone(),
        ));
    }
    records
}

fn read(reg: u32, class_all: u8, class_active: u8, repeat: bool) -> RegRead {
    RegRead {
        reg,
        class_all,
        class_active,
        repeat,
    }
}

fn write(reg: u32, class_all: u8, class_active: u8) -> RegWrite {
    RegWrite {
        reg,
        class_all,
        class_active,
    }
}

/// The records behind the histograms, instruction by instruction (rows of the module doc's
/// table), identical under compiled instructions and the interpreter.
#[test]
fn the_stepper_records_each_register_in_its_frame_window_before_and_after_execution() {
    let dev = Device::new(DeviceConfig::default()).unwrap();
    let module = dev.load_ptx("widths.ptx", PTX).unwrap();
    let jit = step_records(&dev, &module, true);
    let interpreted = step_records(&dev, &module, false);
    assert_eq!(jit, interpreted);
    assert_eq!(jit.len(), 40);
    let kernel = module.kernel("widths").unwrap().id().0;
    let at = |pc: u32| {
        jit.iter()
            .find(|r| r.0 == kernel && r.1 == pc)
            .unwrap_or_else(|| panic!("pc {pc} executed"))
    };
    let kernel_frame = FrameBase::default();
    // pc 2: R1 twice, the second a repeat.
    assert_eq!(at(2).3, [read(1, 2, 2, false), read(1, 2, 2, true)]);
    // pc 7 reads R5 = -300 (2 bytes; -1 is an immediate) before writing -301 into it.
    assert_eq!(at(7).3, [read(5, 2, 2, false)]);
    assert_eq!(at(7).4, [write(5, 2, 2)]);
    // pc 9: both words of rd1, twice.
    assert_eq!(
        at(9).3,
        [
            read(6, 2, 2, false),
            read(7, 1, 1, false),
            read(6, 2, 2, true),
            read(7, 1, 1, true)
        ]
    );
    // pc 12: the reader's lane (0) holds 0; the write leaves 100000 in the other lanes.
    assert_eq!(at(12).3, [read(4, 3, 1, false)]);
    assert_eq!(at(12).4, [write(3, 3, 1)]);
    // pc 14: no lane executes; the register keeps -400.
    assert_eq!(at(14).4, [write(2, 2, 1)]);
    // pc 18: lanes 8-31 write 5; lanes 0-7 keep -200.
    assert_eq!(at(18).4, [write(1, 2, 1)]);
    // pc 19: `bar.red` writes at the release, which its own arrival (the CTA's one warp)
    // causes; pc 20, executed by no lane, writes nothing and is recorded at issue.
    assert_eq!(
        (at(19).4.len(), &at(19).5[..]),
        (0, &[(0, write(8, 1, 1))][..])
    );
    assert_eq!((&at(20).4[..], at(20).5.len()), (&[write(4, 3, 1)][..], 0));
    // The callee's frame: registers from 12 up (the kernel's 10, rounded to a multiple of 4),
    // predicates from 2.
    let callee: Vec<&Record> = jit.iter().filter(|r| r.0 != kernel).collect();
    assert_eq!(callee.len(), 4);
    let window = FrameBase { gpr: 12, pred: 2 };
    assert!(callee.iter().all(|r| r.2 == window));
    assert_eq!(callee[0].4, [write(12, 3, 3)]);
    assert_eq!(callee[1].3, [read(12, 3, 3, false)]);
    assert_eq!(callee[1].4, [write(12, 3, 3)]);
    assert_eq!(callee[2].3, [read(12, 3, 3, false)]);
    assert!(
        jit.iter()
            .filter(|r| r.0 == kernel)
            .all(|r| r.2 == kernel_frame)
    );
    // pc 25: four registers from one vector load.
    assert_eq!(
        at(25).4,
        [
            write(2, 2, 2),
            write(6, 1, 1),
            write(7, 2, 2),
            write(9, 2, 2)
        ]
    );
    // pc 29: both words of the 64-bit source in registers (the other, `out`, is a
    // constant-bank operand), and the pc 27 that loads `out` writes no register.
    assert_eq!(at(29).3, [read(6, 1, 1, false), read(7, 1, 1, false)]);
    assert_eq!(at(29).4, [write(6, 1, 1), write(7, 2, 2)]);
    assert_eq!(at(27).4, []);
}

/// Characterization sees the same width records as the timing model, `bar.red` results
/// included (written when the barrier releases, counted as writes of the warp's `bar.red`).
#[test]
fn characterization_counts_the_same_widths_as_the_timing_model() {
    let timed = run(&device(&[]));
    let dev = Device::new(DeviceConfig {
        host_threads: 1,
        characterize: true,
        ..DeviceConfig::default()
    })
    .unwrap();
    let module = dev.load_ptx("widths.ptx", PTX).unwrap();
    let out = dev.alloc::<i32>(32).unwrap();
    dev.launch(
        &module.kernel("widths").unwrap(),
        1,
        32,
        0,
        &[(&out).into()],
    )
    .unwrap();
    let c = dev.take_characterization().unwrap().total;
    assert_eq!(c.warp_insts, timed.warp_insts);
    assert_eq!(c.widths.total.writes_all.0, timed.widths.writes_all_lanes);
    assert_eq!(
        c.widths.total.writes_active.0,
        timed.widths.writes_active_lanes
    );
    assert_eq!(c.widths.total.reads_all.0, timed.widths.reads_all_lanes);
    assert_eq!(
        c.widths.total.reads_active.0,
        timed.widths.reads_active_lanes
    );
    // Every value written ends exactly once, the `bar.red` result among them.
    assert_eq!(c.values.written(), c.sources.writes);
}
