//! What the pipeline needs to know about each static instruction, decoded once per kernel:
//! the execution unit and its latency, the registers it reads and writes (physical numbers,
//! as the register file sees them), and what kind of memory access it makes.

use crate::config::{FamilyLatencies, GpuConfig, ReadDuplicates, Timing};
use crate::memory::AccessKind;
use emulator::Program;
use emulator::stepper::FrameBase;
use isa::{CacheOp, CarryOp, FuncId, Inst, Op, Operand, PhysReg, StateSpace, Type};
use std::borrow::Cow;

/// Execution unit classes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Unit {
    #[default]
    Sp,
    Sfu,
    Int,
    Dp,
    LdSt,
    /// Tensor cores (`wmma.mma`).
    Tensor,
}

impl Unit {
    pub const ALL: [Unit; 6] = [
        Unit::Sp,
        Unit::Sfu,
        Unit::Int,
        Unit::Dp,
        Unit::LdSt,
        Unit::Tensor,
    ];

    pub fn index(self) -> usize {
        self as usize
    }
}

/// Opcode classes for statistics.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OpClass {
    Int,
    Fp32,
    Fp64,
    Sfu,
    Move,
    Memory,
    Warp,
    Control,
    /// Matrix multiply-adds on the tensor cores.
    Tensor,
}

impl OpClass {
    pub const ALL: [OpClass; 9] = [
        OpClass::Int,
        OpClass::Fp32,
        OpClass::Fp64,
        OpClass::Sfu,
        OpClass::Move,
        OpClass::Memory,
        OpClass::Warp,
        OpClass::Control,
        OpClass::Tensor,
    ];

    pub fn index(self) -> usize {
        self as usize
    }

    pub fn name(self) -> &'static str {
        match self {
            OpClass::Int => "int",
            OpClass::Fp32 => "fp32",
            OpClass::Fp64 => "fp64",
            OpClass::Sfu => "sfu",
            OpClass::Move => "move",
            OpClass::Memory => "memory",
            OpClass::Warp => "warp",
            OpClass::Control => "control",
            OpClass::Tensor => "tensor",
        }
    }
}

/// The memory an instruction accesses, as the LD/ST unit routes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemOp {
    None,
    /// A load, store or atomic whose lanes' targets the functional engine resolves (global,
    /// local, shared, constant, parameter, generic).
    Access {
        kind: AccessKind,
        /// Bytes each lane accesses (element size × vector length).
        bytes: u32,
        /// `ld.const`: through the constant cache.
        constant: bool,
        /// Whether its global and local transactions go through the L1 data cache.
        l1: L1Route,
    },
}

/// Whether a memory instruction's global and local transactions use the L1 data cache, as
/// GPGPU-Sim's `ldst_unit::memory_cycle` decides: `.cg` accesses and atomics (whose cache
/// operator GPGPU-Sim makes `.cg`) go straight to the L2; with `gpgpu_gmem_skip_L1D`
/// (`mem.global_skips_l1d`) so do global accesses other than `ld.global.nc`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum L1Route {
    /// Through the L1.
    Cached,
    /// Straight to the L2, local lanes too.
    Bypass,
    /// Global lanes straight to the L2, local lanes through the L1.
    BypassGlobal,
}

impl L1Route {
    /// The route of an access of `kind` to `space` with cache operator `cache` (`nc`: a
    /// non-coherent `ld.global.nc`).
    fn of(
        cfg: &GpuConfig,
        kind: AccessKind,
        space: StateSpace,
        cache: Option<CacheOp>,
        nc: bool,
    ) -> L1Route {
        if kind == AccessKind::Atomic || cache == Some(CacheOp::Cg) {
            L1Route::Bypass
        } else if cfg.mem.global_skips_l1d
            && !nc
            && matches!(space, StateSpace::Global | StateSpace::Generic)
        {
            L1Route::BypassGlobal
        } else {
            L1Route::Cached
        }
    }
}

impl MemOp {
    /// Whether the instruction is a load (not a store or an atomic).
    pub fn is_load(self) -> bool {
        matches!(
            self,
            MemOp::Access {
                kind: AccessKind::Load,
                ..
            }
        )
    }
}

/// What an instruction is to the `cp.async` machinery.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AsyncCopyRole {
    None,
    /// `cp.async`: a copy in the open group.
    Copy,
    /// `cp.async.commit_group`.
    Commit,
    /// `cp.async.wait_group n`, or `cp.async.wait_all` (`all`).
    Wait {
        n: u32,
        all: bool,
    },
}

/// Control-flow roles the fetch stage and the statistics care about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Control {
    None,
    Branch,
    Barrier,
    Exit,
    Call,
    Return,
}

/// One decoded instruction.
#[derive(Clone, Debug)]
pub struct Decoded {
    pub unit: Unit,
    pub class: OpClass,
    pub timing: Timing,
    /// 32-bit registers read from the register file (each a bank access), in operand order;
    /// a register named by several operands appears once or each time, as
    /// `sm.rf.read_duplicates` says. The same reads as the width records the stepper makes
    /// (`Executed::reads`, those without `repeat` when read once).
    pub reads: Vec<u32>,
    /// Scoreboard identities read (registers, and predicates as [`PRED_BASE`] + p), guard
    /// included.
    pub sb_reads: Vec<u32>,
    /// Scoreboard identities written.
    pub sb_writes: Vec<u32>,
    pub mem: MemOp,
    pub control: Control,
    /// A result that comes from memory (global, local): the two-level scheduler demotes warps
    /// waiting on it.
    pub long_latency: bool,
    /// The instruction reads its registers through the operand cache of recent cores, and its
    /// reuse bits count ([`isa::reuse::reads_through_operand_cache`]).
    pub operand_cache: bool,
    /// Its part in `cp.async`'s groups.
    pub async_copy: AsyncCopyRole,
    /// How it may write global memory, which the timing model does when the cycle commits,
    /// after every SM's cycle, so that the loads of the cycle see global memory as it was
    /// when the cycle began and the writes land in SM order (docs/timing.md, "Parallel timing
    /// and memory semantics").
    pub global_write: GlobalWrite,
}

/// How an instruction may write global memory ([`Decoded::global_write`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GlobalWrite {
    None,
    /// Stores (`st`, `wmma.store` and `stmatrix` to global or generic addresses, `sust`): it
    /// executes at issue with its global stores held back until the commit.
    Store,
    /// Read-modify-writes (`atom`, `red` to global or generic addresses, `sured`), whose old
    /// values depend on the order: it executes at the commit.
    Atomic,
}

/// Scoreboard identities of predicates start here, above every 32-bit register of every call
/// frame's window (1024 frames deep of up to 2^20 registers each).
pub const PRED_BASE: u32 = 1 << 30;

impl Decoded {
    /// This instruction as it executes in a call frame whose registers start at `base`: its
    /// register numbers and scoreboard identities moved into the frame's register window
    /// (borrowed as decoded in the kernel's frame, which starts at 0).
    pub fn in_frame(&self, base: FrameBase) -> Cow<'_, Decoded> {
        if base == FrameBase::default() {
            return Cow::Borrowed(self);
        }
        let gpr = |r: &mut u32| *r += base.gpr;
        let id = |r: &mut u32| *r += if *r < PRED_BASE { base.gpr } else { base.pred };
        let mut d = self.clone();
        d.reads.iter_mut().for_each(gpr);
        d.sb_reads.iter_mut().for_each(id);
        d.sb_writes.iter_mut().for_each(id);
        Cow::Owned(d)
    }
}

/// The decoded instructions of every function of a program, by function and PC.
pub struct DecodedProgram {
    pub funcs: Vec<Vec<Decoded>>,
    /// Byte address of each function's first instruction in the instruction cache's view
    /// (8-byte instructions, functions aligned to 128 bytes).
    pub code_base: Vec<u64>,
}

/// Bytes per instruction in the instruction cache (SASS instructions are 8 bytes).
pub const INST_BYTES: u64 = 8;

impl DecodedProgram {
    pub fn new(program: &Program, cfg: &GpuConfig) -> DecodedProgram {
        let mut code_base = Vec::with_capacity(program.code.len());
        let mut at = 0u64;
        let funcs = program
            .code
            .iter()
            .map(|code| {
                code_base.push(at);
                at = (at + code.insts.len() as u64 * INST_BYTES).next_multiple_of(128);
                code.insts
                    .iter()
                    .map(|inst| decode(inst, &code.phys, cfg))
                    .collect()
            })
            .collect();
        DecodedProgram { funcs, code_base }
    }

    pub fn get(&self, func: FuncId, pc: u32) -> &Decoded {
        &self.funcs[func.index()][pc as usize]
    }
}

/// The latencies of float type `ty`'s family. Half-precision arithmetic (scalar or packed)
/// takes f32's: it runs on the same cores on every preset's GPU, and no preset documents a
/// latency of its own.
fn family(cfg: &GpuConfig, ty: Type) -> &FamilyLatencies {
    if ty == Type::F64 {
        &cfg.latency.dp
    } else if ty.is_float() {
        &cfg.latency.fp
    } else {
        &cfg.latency.int
    }
}

/// Unit, statistics class and timing of an operation.
///
/// The classification is GPGPU-Sim's (`ptx_instruction::set_opcode_and_latency`), whose
/// configurations the presets mirror: add, min/max, multiply, multiply-add and divide take
/// their family's configured timing; every other arithmetic, logic, move, comparison and
/// conversion is an ALU operation (`latency.alu`; GPGPU-Sim fixes it at 1 cycle); divisions and
/// remainders of every type, reciprocals, square roots and transcendentals run on the SFU.
fn classify(op: &Op, cfg: &GpuConfig) -> (Unit, OpClass, Timing) {
    let lat = &cfg.latency;
    let float_unit = |ty: Type| {
        if ty == Type::F64 {
            (Unit::Dp, OpClass::Fp64)
        } else {
            (Unit::Sp, OpClass::Fp32)
        }
    };
    let int = (Unit::Int, OpClass::Int);
    // ALU operations run where integer instructions run (the SP pipelines on Fermi).
    let alu = |class: OpClass| (Unit::Int, class, lat.alu);
    // `mul24`/`mad24` take the 32-bit multiplier one cycle longer (GPGPU-Sim: the extra
    // masking instruction of compute capability 2.0 and later).
    let plus_one = |t: Timing| Timing {
        latency: t.latency + 1,
        initiation: t.initiation + 1,
    };
    // `latency.tensor` times an m16n16k16 multiply-add (4096 of them); another shape's
    // initiation interval scales with the warp's multiply-adds (Volta's m8n8k4 `.f16`
    // `mma.sync` does four products of its shape, one per quad pair).
    let tensor = |macs: u32| {
        (
            Unit::Tensor,
            OpClass::Tensor,
            Timing {
                latency: lat.tensor.latency,
                initiation: (lat.tensor.initiation * macs).div_ceil(4096).max(1),
            },
        )
    };
    match op {
        Op::IAdd { .. } | Op::ISub { .. } => (int.0, int.1, lat.int.add),
        Op::Carry { op, .. } => match op {
            CarryOp::Add | CarryOp::Sub => (int.0, int.1, lat.int.add),
            CarryOp::MadLo | CarryOp::MadHi => (int.0, int.1, lat.int.mad),
        },
        Op::IAbs { .. }
        | Op::INeg { .. }
        | Op::And { .. }
        | Op::Or { .. }
        | Op::Xor { .. }
        | Op::Not { .. }
        | Op::CNot { .. }
        | Op::Shl { .. }
        | Op::Shr { .. }
        | Op::Shf { .. }
        | Op::Bmsk { .. }
        | Op::Fns
        | Op::Lop3 { .. }
        | Op::Video(_)
        | Op::VideoSimd(_)
        | Op::IPacked { .. }
        | Op::FMixed { .. }
        | Op::Createpolicy { .. }
        | Op::Szext { .. }
        | Op::CvtPack { .. }
        | Op::Popc { .. }
        | Op::Clz { .. }
        | Op::Bfind { .. }
        | Op::Brev { .. }
        | Op::Bfe { .. }
        | Op::Bfi { .. }
        | Op::Prmt { .. }
        | Op::Sad { .. } => alu(OpClass::Int),
        Op::IMin { .. } | Op::IMax { .. } => (int.0, int.1, lat.int.max),
        Op::IMul { .. } => (int.0, int.1, lat.int.mul),
        Op::Mul24 { .. } => (int.0, int.1, plus_one(lat.int.mul)),
        Op::IMad { .. } => (int.0, int.1, lat.int.mad),
        // Multiply-accumulates of bytes: an integer `mad`'s unit and latency (no preset
        // documents the dot-product unit apart).
        Op::Dp4a { .. } | Op::Dp2a { .. } => (int.0, int.1, lat.int.mad),
        Op::Mad24 { .. } => (int.0, int.1, plus_one(lat.int.mad)),
        Op::IDiv { .. } | Op::IRem { .. } => (Unit::Sfu, OpClass::Int, lat.int.div),
        Op::FAdd { ty, .. } | Op::FSub { ty, .. } => {
            let (u, c) = float_unit(*ty);
            (u, c, family(cfg, *ty).add)
        }
        Op::FAbs { ty, .. } | Op::FNeg { ty, .. } | Op::Copysign { ty } | Op::Testp { ty, .. } => {
            alu(float_unit(*ty).1)
        }
        Op::FMin { ty, .. } | Op::FMax { ty, .. } => {
            let (u, c) = float_unit(*ty);
            (u, c, family(cfg, *ty).max)
        }
        Op::FMul { ty, .. } => {
            let (u, c) = float_unit(*ty);
            (u, c, family(cfg, *ty).mul)
        }
        Op::Fma { ty, .. } => {
            let (u, c) = float_unit(*ty);
            (u, c, family(cfg, *ty).mad)
        }
        Op::FDiv { ty, .. } => (Unit::Sfu, float_unit(*ty).1, family(cfg, *ty).div),
        Op::Rcp { .. } | Op::Sqrt { .. } | Op::Transc { .. } => (Unit::Sfu, OpClass::Sfu, lat.sfu),
        Op::Setp { ty, .. } | Op::Set { sty: ty, .. } | Op::Slct { cty: ty, .. } => {
            alu(if ty.is_float() {
                float_unit(*ty).1
            } else {
                OpClass::Int
            })
        }
        Op::Cvt { dty, sty, .. } => alu(if *dty == Type::F64 || *sty == Type::F64 {
            OpClass::Fp64
        } else if dty.is_float() || sty.is_float() {
            OpClass::Fp32
        } else {
            OpClass::Move
        }),
        Op::Selp { .. }
        | Op::Mov { .. }
        | Op::Pack { .. }
        | Op::Unpack { .. }
        | Op::Cvta { .. } => alu(OpClass::Move),
        Op::Ld { .. }
        | Op::Ldu { .. }
        | Op::St { .. }
        | Op::Atom { .. }
        | Op::Red { .. }
        | Op::CpAsync { .. }
        | Op::Prefetch { .. }
        | Op::WmmaLoad { .. }
        | Op::WmmaStore { .. }
        | Op::Ldmatrix { .. }
        | Op::Stmatrix { .. }
        | Op::Mbarrier { .. }
        | Op::Tex(_)
        | Op::Tld4(_)
        | Op::Suld(_)
        | Op::Sust(_)
        | Op::Sured { .. }
        | Op::Membar { .. }
        | Op::Fence { .. } => (Unit::LdSt, OpClass::Memory, lat.branch),
        // A descriptor's fields: answered like a move.
        Op::Txq { .. } | Op::Suq { .. } => alu(OpClass::Move),
        Op::WmmaMma { shape, .. } => tensor(shape.macs()),
        Op::Mma { shape, a, .. } => tensor(shape.mma_macs(*a)),
        Op::Vote { .. }
        | Op::Shfl { .. }
        | Op::Match { .. }
        | Op::Redux { .. }
        | Op::Activemask
        | Op::Elect
        | Op::Isspacep { .. }
        | Op::Movmatrix
        | Op::BarWarpSync => (Unit::Sp, OpClass::Warp, lat.shfl),
        Op::Bra { .. }
        | Op::Call { .. }
        | Op::Ret { .. }
        | Op::Exit
        | Op::Trap
        | Op::Bar { .. }
        | Op::Nanosleep
        | Op::CpAsyncCommit
        | Op::CpAsyncWait { .. }
        | Op::Unsupported { .. } => (Unit::Sp, OpClass::Control, lat.branch),
    }
}

/// Where a unit class runs when the configuration has none of it, as in GPGPU-Sim (Fermi:
/// integer instructions on the SP pipelines, double precision on the SFU); tensor
/// instructions on a GPU without tensor cores run on the SP pipelines (with the tensor
/// timing).
pub fn effective_unit(unit: Unit, cfg: &GpuConfig) -> Unit {
    match unit {
        Unit::Int if cfg.sm.units.int == 0 => Unit::Sp,
        Unit::Dp if cfg.sm.units.dp == 0 => Unit::Sfu,
        Unit::Tensor if cfg.sm.units.tensor == 0 => Unit::Sp,
        u => u,
    }
}

fn decode(inst: &Inst, phys: &[Option<PhysReg>], cfg: &GpuConfig) -> Decoded {
    let (unit, class, timing) = classify(&inst.op, cfg);
    let unit = effective_unit(unit, cfg);
    let mut d = Decoded {
        unit,
        class,
        timing,
        reads: Vec::new(),
        sb_reads: Vec::new(),
        sb_writes: Vec::new(),
        mem: MemOp::None,
        operand_cache: isa::reuse::reads_through_operand_cache(&inst.op),
        async_copy: match inst.op {
            Op::CpAsync { .. } => AsyncCopyRole::Copy,
            Op::CpAsyncCommit => AsyncCopyRole::Commit,
            Op::CpAsyncWait { n, all } => AsyncCopyRole::Wait { n, all },
            _ => AsyncCopyRole::None,
        },
        control: match inst.op {
            Op::Bra { .. } => Control::Branch,
            Op::Bar { .. } => Control::Barrier,
            Op::Exit | Op::Trap => Control::Exit,
            Op::Call { .. } => Control::Call,
            Op::Ret { .. } => Control::Return,
            _ => Control::None,
        },
        long_latency: false,
        global_write: global_write(&inst.op),
    };
    let phys_of = |v: isa::VReg| phys.get(v.index()).copied().flatten();
    let each = cfg.sm.rf.read_duplicates == ReadDuplicates::Each;
    // The guard is a predicate (a scoreboard identity, not a register-file read); then the
    // register operands, as the stepper walks them for its read records.
    let guard = inst.guard.map(|g| g.pred);
    for v in guard
        .into_iter()
        .chain(inst.srcs.iter().flat_map(Operand::regs))
    {
        match phys_of(v) {
            Some(PhysReg::Gpr { first, count }) => {
                for r in first..first + count {
                    let again = d.reads.contains(&r);
                    if each || !again {
                        d.reads.push(r);
                    }
                    if !again {
                        d.sb_reads.push(r);
                    }
                }
            }
            Some(PhysReg::Pred(p)) => d.sb_reads.push(PRED_BASE + p),
            // An immediate or constant-bank operand: no register read, nothing to wait for.
            Some(PhysReg::Constant) | None => {}
        }
    }
    for v in inst.dsts.iter().flat_map(Operand::regs) {
        match phys_of(v) {
            Some(PhysReg::Gpr { first, count }) => d.sb_writes.extend(first..first + count),
            Some(PhysReg::Pred(p)) => d.sb_writes.push(PRED_BASE + p),
            Some(PhysReg::Constant) | None => {}
        }
    }
    let routed = |kind, ty: Type, vec: u8, space: StateSpace, cache, nc| MemOp::Access {
        kind,
        bytes: ty.bytes() * u32::from(vec.max(1)),
        constant: space == StateSpace::Const,
        l1: L1Route::of(cfg, kind, space, cache, nc),
    };
    let access =
        |kind, ty: Type, vec: u8, space: StateSpace| routed(kind, ty, vec, space, None, false);
    d.mem = match &inst.op {
        Op::Ld {
            space,
            ty,
            vec,
            cache,
            nc,
            ..
        } => routed(AccessKind::Load, *ty, *vec, *space, *cache, *nc),
        Op::Ldu { space, ty, vec } => access(AccessKind::Load, *ty, *vec, *space),
        Op::St {
            space,
            ty,
            vec,
            cache,
            ..
        } => routed(AccessKind::Store, *ty, *vec, *space, *cache, false),
        Op::Atom { space, ty, vec, .. } | Op::Red { space, ty, vec, .. } => {
            access(AccessKind::Atomic, *ty, *vec, *space)
        }
        Op::WmmaLoad {
            frag,
            layout,
            space,
        } => access(
            AccessKind::Load,
            Type::B8,
            frag.lane_segment(*layout, 0, 0).0 as u8,
            *space,
        ),
        Op::WmmaStore {
            frag,
            layout,
            space,
        } => access(
            AccessKind::Store,
            Type::B8,
            frag.lane_segment(*layout, 0, 0).0 as u8,
            *space,
        ),
        // A lookup is timed as a 16-byte global load at its first texel (the lane target): a
        // four-channel texel, or a bilinear pair of two-channel ones.
        Op::Tex(_) | Op::Tld4(_) => access(AccessKind::Load, Type::B32, 4, StateSpace::Global),
        // An arrival or a test reads (and may write) the 8-byte object, like a shared atomic.
        Op::Mbarrier { op, space } if *op != isa::MbarrierOp::PendingCount => {
            access(AccessKind::Atomic, Type::B64, 1, *space)
        }
        Op::Suld(a) => access(AccessKind::Load, a.ty, a.vec, StateSpace::Global),
        Op::Sust(a) => access(AccessKind::Store, a.ty, a.vec, StateSpace::Global),
        Op::Sured { access: a, .. } => access(AccessKind::Atomic, a.ty, 1, StateSpace::Global),
        // Each lane one 16-byte row of a matrix.
        Op::Ldmatrix { space, .. } => access(AccessKind::Load, Type::B128, 1, *space),
        Op::Stmatrix { space, .. } => access(AccessKind::Store, Type::B128, 1, *space),
        // Timed as its global read (`sm::async_copies`).
        Op::CpAsync { size, .. } => MemOp::Access {
            kind: AccessKind::Load,
            bytes: u32::from(*size),
            constant: false,
            l1: L1Route::Cached,
        },
        _ => MemOp::None,
    };
    d.long_latency = matches!(
        &inst.op,
        Op::Ld { space, .. } | Op::Ldu { space, .. } | Op::Atom { space, .. } | Op::WmmaLoad { space, .. }
            if matches!(space, StateSpace::Global | StateSpace::Local | StateSpace::Generic)
    ) || matches!(
        &inst.op,
        Op::Tex(_) | Op::Tld4(_) | Op::Suld(_) | Op::Sured { .. }
    );
    d
}

/// How executing `op` may write global memory ([`Decoded::global_write`]).
fn global_write(op: &Op) -> GlobalWrite {
    let global = |space: &StateSpace, kind| match space {
        StateSpace::Global | StateSpace::Generic => kind,
        _ => GlobalWrite::None,
    };
    match op {
        Op::St { space, .. } | Op::WmmaStore { space, .. } | Op::Stmatrix { space, .. } => {
            global(space, GlobalWrite::Store)
        }
        Op::Atom { space, .. } | Op::Red { space, .. } => global(space, GlobalWrite::Atomic),
        Op::Sust(_) => GlobalWrite::Store,
        Op::Sured { .. } => GlobalWrite::Atomic,
        _ => GlobalWrite::None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use isa::{Guard, SrcLoc, VReg};

    /// `add r0, r1, r1` guarded by p0, r1 a 64-bit register in R[2:3], r0 in R0.
    fn add_twice(cfg: &GpuConfig) -> Decoded {
        let inst = Inst {
            guard: Some(Guard {
                pred: VReg(2),
                negated: false,
            }),
            op: Op::IAdd {
                ty: Type::U64,
                sat: false,
            },
            dsts: vec![Operand::Reg(VReg(0))],
            srcs: vec![Operand::Reg(VReg(1)), Operand::Reg(VReg(1))],
            loc: SrcLoc::default(),
        };
        let phys = [
            Some(PhysReg::Gpr { first: 0, count: 2 }),
            Some(PhysReg::Gpr { first: 2, count: 2 }),
            Some(PhysReg::Pred(0)),
        ];
        decode(&inst, &phys, cfg)
    }

    #[test]
    fn a_register_named_twice_is_read_as_configured_and_checked_once() {
        let once = add_twice(&GpuConfig::preset("gtx480"));
        assert_eq!(once.reads, [2, 3]);
        assert_eq!(once.sb_reads, [PRED_BASE, 2, 3]);
        assert_eq!(once.sb_writes, [0, 1]);
        let mut cfg = GpuConfig::preset("gtx480");
        cfg.sm.rf.read_duplicates = ReadDuplicates::Each;
        let each = add_twice(&cfg);
        assert_eq!(each.reads, [2, 3, 2, 3]);
        assert_eq!(each.sb_reads, once.sb_reads);
    }

    /// v100 times an m16n16k16 (4096 multiply-adds) every 32 cycles; an `mma.sync`'s
    /// interval scales with its warp's multiply-adds: 2048 for m16n8k16, 256 for the `.f64`
    /// m8n8k4, and 4 × 256 for the `.f16` m8n8k4, whose quad pairs compute a product each.
    #[test]
    fn tensor_intervals_scale_with_the_warps_multiply_adds() {
        use isa::Layout::{Col, Row};
        let cfg = GpuConfig::preset("v100");
        let mma = |shape: &str, (a_layout, b_layout), ab: Type, cd: Type| {
            let op = Op::Mma {
                shape: isa::MatrixShape::from_name(shape).unwrap(),
                a_layout,
                b_layout,
                d: cd,
                a: ab,
                b: ab,
                c: cd,
                satfinite: false,
            };
            let (unit, class, timing) = classify(&op, &cfg);
            assert_eq!((unit, class), (Unit::Tensor, OpClass::Tensor));
            assert_eq!(timing.latency, cfg.latency.tensor.latency);
            timing.initiation
        };
        assert_eq!(cfg.latency.tensor.initiation, 32);
        assert_eq!(mma("m16n8k16", (Row, Col), Type::F16, Type::F32), 16);
        assert_eq!(mma("m8n8k4", (Row, Col), Type::F64, Type::F64), 2);
        assert_eq!(mma("m8n8k4", (Col, Row), Type::F16, Type::F32), 8);
        assert_eq!(mma("m8n8k4", (Row, Row), Type::F16, Type::F16), 8);
    }

    #[test]
    fn a_call_frame_moves_registers_and_predicates_into_its_window() {
        let d = add_twice(&GpuConfig::preset("gtx480"));
        assert!(matches!(d.in_frame(FrameBase::default()), Cow::Borrowed(_)));
        let f = d.in_frame(FrameBase { gpr: 12, pred: 3 });
        assert_eq!(f.reads, [14, 15]);
        assert_eq!(f.sb_reads, [PRED_BASE + 3, 14, 15]);
        assert_eq!(f.sb_writes, [12, 13]);
    }
}
