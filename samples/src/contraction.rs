//! Which `f32` products a kernel's PTX contracts into `fma.rn.f32`, read from the loaded kernel,
//! so that a bit-exact CPU reference can follow the contraction of the PTX actually run.
//!
//! NVRTC contracts `a * b + c` into one `fma` (a single rounding) where it sees fit, and
//! different NVRTC versions and architectures see fit differently: NVRTC 13 for compute_120
//! fuses products that NVRTC 12.9 for compute_70 leaves as a `mul.f32` and an `add.f32`
//! (samples/ptx-sets/README.md). A reference that reproduces one compiler's contraction bit for
//! bit fails on PTX that contracts otherwise even when the emulator is right. The samples whose
//! contraction differs between the PTX they run from therefore ask the kernel, through
//! [`FloatCode`], where the product in question is fused, and compute the reference that way;
//! the validation stays bit-exact. The question is always about one specific product of one
//! kernel (hotspot3D's `ct * above`, lbm's relaxation), never a general analysis: each sample's
//! detector also recognises when the kernel is neither of the forms its reference knows, and
//! says so instead of guessing. A wrong answer could only make an exact validation fail, never
//! pass.

use isa::{AddrBase, Function, Inst, Op, Operand, StateSpace, SymbolRef, Type, VReg};
use std::collections::HashMap;

/// An `f32` arithmetic instruction of the kinds contraction is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FloatOp {
    Add,
    Sub,
    Mul,
    /// `fma.rn.f32` (and a rounded `mad.f32`): sources `a, b, c` for `a * b + c`.
    Fma,
}

impl FloatOp {
    /// The operation of an `f32` `add`, `sub`, `mul` or `fma`; `None` for anything else.
    pub fn of(inst: &Inst) -> Option<FloatOp> {
        match inst.op {
            Op::FAdd { ty: Type::F32, .. } => Some(FloatOp::Add),
            Op::FSub { ty: Type::F32, .. } => Some(FloatOp::Sub),
            Op::FMul { ty: Type::F32, .. } => Some(FloatOp::Mul),
            Op::Fma { ty: Type::F32, .. } => Some(FloatOp::Fma),
            _ => None,
        }
    }
}

/// One function's instructions with, for every register, the instructions that write it (a PTX
/// register may be written in several places: the same value computed on two paths, or a value
/// carried round a loop).
pub struct FloatCode<'f> {
    func: &'f Function,
    writers: HashMap<VReg, Vec<&'f Inst>>,
}

impl<'f> FloatCode<'f> {
    pub fn of(func: &'f Function) -> FloatCode<'f> {
        let mut writers: HashMap<VReg, Vec<&'f Inst>> = HashMap::new();
        for inst in func.blocks.iter().flat_map(|b| &b.insts) {
            for r in inst.defs() {
                writers.entry(r).or_default().push(inst);
            }
        }
        FloatCode { func, writers }
    }

    /// Every instruction, in layout order.
    pub fn insts(&self) -> impl Iterator<Item = &'f Inst> + 'f {
        self.func.blocks.iter().flat_map(|b| &b.insts)
    }

    /// The instructions of operation `op`.
    pub fn ops(&self, op: FloatOp) -> impl Iterator<Item = &'f Inst> + 'f {
        self.insts().filter(move |i| FloatOp::of(i) == Some(op))
    }

    /// The registers that load the kernel parameter `index` (`ld.param [name_param_N]`).
    pub fn param_regs(&self, index: u32) -> Vec<VReg> {
        self.insts()
            .filter(|i| {
                matches!(
                    i.op,
                    Op::Ld {
                        space: StateSpace::Param,
                        ..
                    }
                ) && matches!(
                    i.srcs.first(),
                    Some(Operand::Address(a)) if a.base == AddrBase::Symbol(SymbolRef::Param(index))
                        && a.offset == 0
                )
            })
            .flat_map(Inst::defs)
            .collect()
    }

    /// Whether `operand` is a separately rounded product: a register that only `mul.f32`
    /// instructions write, each of whose two sources `factors` accepts.
    pub fn is_product(&self, operand: &Operand, factors: impl Fn(&[Operand]) -> bool) -> bool {
        let Operand::Reg(r) = operand else {
            return false;
        };
        self.writers.get(r).is_some_and(|ws| {
            ws.iter()
                .all(|w| FloatOp::of(w) == Some(FloatOp::Mul) && factors(&w.srcs))
        })
    }
}

/// Whether `operand` is the `f32` immediate `value`.
pub fn is_f32_imm(operand: &Operand, value: f32) -> bool {
    *operand == Operand::Imm(u64::from(value.to_bits()))
}
