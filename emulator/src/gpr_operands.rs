//! Each instruction's register operands as the register file sees them, resolved once per
//! function: the stepper records every register each warp instruction reads and writes, and
//! would otherwise walk the operands, their vectors and the allocation table every time.

use isa::{Inst, Operand, PhysReg, Type, VReg};

/// A register operand held in general-purpose registers: which virtual register holds its
/// lanes' values, and which 32-bit physical registers it occupies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GprOperand {
    /// The virtual register (its lanes are `regs[vreg * 32..][..32]` in a frame).
    pub vreg: u32,
    /// The lowest 32-bit physical register (the register allocator's number).
    pub first: u32,
    /// 32-bit registers it spans: 1, 2 (a 64-bit value) or 4 (a 128-bit value).
    pub count: u32,
    /// The register's declared width in bits.
    pub bits: u32,
}

impl GprOperand {
    /// Virtual register `v` as an operand, given the function's allocation and declared
    /// types; `None` for a predicate or a register without a physical one.
    pub fn of(phys: &[Option<PhysReg>], types: &[Type], v: VReg) -> Option<GprOperand> {
        let Some(PhysReg::Gpr { first, count }) = phys.get(v.index()).copied().flatten() else {
            return None;
        };
        Some(GprOperand {
            vreg: v.0,
            first,
            count,
            bits: types[v.index()].bits(),
        })
    }

    /// Its lanes' values in a frame's registers `regs`.
    #[inline]
    pub fn lanes(self, regs: &[u64]) -> &[u64; crate::warp::WARP_SIZE] {
        let at = self.vreg as usize * crate::warp::WARP_SIZE;
        regs[at..at + crate::warp::WARP_SIZE]
            .try_into()
            .expect("a register has one value per lane")
    }
}

/// The general-purpose register operands of every instruction of a function, by PC: sources
/// in operand order (vector elements and address bases included), then destinations.
#[derive(Debug, Default)]
pub struct GprOperands {
    operands: Vec<GprOperand>,
    /// Per PC: where its sources start in `operands`; its destinations start at `dsts_at`,
    /// and the next PC's sources where they end.
    srcs_at: Vec<u32>,
    dsts_at: Vec<u32>,
}

impl GprOperands {
    /// The operands of `insts` under the allocation `phys` of registers of types `types`.
    pub fn new(insts: &[Inst], phys: &[Option<PhysReg>], types: &[Type]) -> GprOperands {
        let mut table = GprOperands::default();
        let ops = &mut table.operands;
        for inst in insts {
            table.srcs_at.push(ops.len() as u32);
            each_reg(&inst.srcs, |v| ops.extend(GprOperand::of(phys, types, v)));
            table.dsts_at.push(ops.len() as u32);
            each_reg(&inst.dsts, |v| ops.extend(GprOperand::of(phys, types, v)));
        }
        table.srcs_at.push(ops.len() as u32);
        table
    }

    /// The register operands read by the instruction at `pc`.
    #[inline]
    pub fn srcs(&self, pc: u32) -> &[GprOperand] {
        let pc = pc as usize;
        &self.operands[self.srcs_at[pc] as usize..self.dsts_at[pc] as usize]
    }

    /// The register operands written by the instruction at `pc`.
    #[inline]
    pub fn dsts(&self, pc: u32) -> &[GprOperand] {
        let pc = pc as usize;
        &self.operands[self.dsts_at[pc] as usize..self.srcs_at[pc + 1] as usize]
    }
}

/// Calls `f` with every register `ops` mention (vector elements and address bases included),
/// in order.
fn each_reg(ops: &[Operand], mut f: impl FnMut(VReg)) {
    for op in ops {
        match op {
            Operand::Vector(elems) => elems.iter().filter_map(Operand::reg).for_each(&mut f),
            other => {
                if let Some(v) = other.reg() {
                    f(v)
                }
            }
        }
    }
}
