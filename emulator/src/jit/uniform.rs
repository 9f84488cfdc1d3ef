//! Which instructions of a segment compute the same value in every lane, so the segment can
//! execute them once, before its lane loop, instead of once per lane.
//!
//! Kernels begin by loading their parameters and combining them with `%ctaid`/`%ntid`: the
//! same work in all 32 lanes. An instruction is hoisted when it is unguarded, its operation is
//! a pure function of its operands (no carry flag, no lane number, no memory other than a
//! kernel parameter at a fixed address), and every operand is warp-uniform: an immediate, a
//! symbol's address, `%ntid`/`%ctaid`/`%nctaid`/`%warpid`, or a register a hoisted instruction
//! of the same segment wrote earlier.
//!
//! Hoisting moves the instruction before every other instruction of the segment, so it must
//! not change what any of them sees:
//! - each register it writes is written only by it in the segment and read by no earlier
//!   instruction (the lane passes then see exactly the value the instruction would have
//!   given them at its place);
//! - a parameter load, the one hoistable instruction that can fault, follows no memory access
//!   that stays in the lane loop, so a fault it raises (in the lowest active lane, as the
//!   interpreter reports it) is still the segment's first.

use crate::program::{KernelLayout, Location, Program};
use isa::{AddrBase, FuncId, Inst, Op, Operand, SpecialReg, StateSpace, VReg};
use std::collections::{BTreeSet, HashMap};

/// For each instruction of `insts` (a segment of `func`): whether it is hoisted, given the
/// registers `known` to be uniform on entry to the segment (see [`kernel_uniform`]).
pub(super) fn hoisted(
    program: &Program,
    layout: &KernelLayout,
    func: FuncId,
    insts: &[Inst],
    known: &[VReg],
) -> Vec<bool> {
    let is_entry = program.code[func.index()].kind == isa::FuncKind::Entry;
    let mut uniform: BTreeSet<VReg> = known.iter().copied().collect();
    let writers = writers(insts);
    // Where each register is first read: a hoisted instruction's registers are read by no
    // earlier one. (One pass, so a segment of many registers costs linear time.)
    let mut first_use: HashMap<VReg, usize> = HashMap::new();
    for (i, inst) in insts.iter().enumerate() {
        for r in inst.uses() {
            first_use.entry(r).or_insert(i);
        }
    }
    let mut hoisted = Vec::with_capacity(insts.len());
    // Whether a memory access that stays in the lane loop came before.
    let mut access_before = false;
    for (i, inst) in insts.iter().enumerate() {
        let param_load = is_entry && fixed_param_load(program, layout, func, inst);
        let pure = param_load || pure_op(&inst.op);
        let h = inst.guard.is_none()
            && pure
            && !(param_load && access_before)
            && inst.srcs.iter().all(|s| uniform_operand(s, &uniform))
            && inst
                .defs()
                .all(|r| writers.get(&r) == Some(&1) && first_use.get(&r).is_none_or(|&u| u >= i));
        if h {
            uniform.extend(inst.defs());
        } else if super::lower::is_memory(&inst.op) {
            access_before = true;
        }
        hoisted.push(h);
    }
    hoisted
}

/// The registers of kernel `func` that hold one value in every thread of a warp wherever
/// they are read: those written once in the whole kernel, by a uniform instruction (as
/// [`hoisted`] defines it) of the kernel's straight-line start, which every thread executes
/// together before any branch, call, barrier or warp-wide instruction. A segment reads such a
/// register once, from its lowest active lane, instead of once per lane.
pub(super) fn kernel_uniform(program: &Program, layout: &KernelLayout, func: FuncId) -> Vec<VReg> {
    let code = &program.code[func.index()];
    if code.kind != isa::FuncKind::Entry {
        return Vec::new();
    }
    let targets: BTreeSet<u32> = code
        .insts
        .iter()
        .zip(&code.target)
        .filter(|(i, _)| matches!(i.op, Op::Bra { .. }))
        .map(|(_, t)| *t)
        .collect();
    let writers = writers(&code.insts);
    let mut uniform: BTreeSet<VReg> = BTreeSet::new();
    for (pc, inst) in code.insts.iter().enumerate() {
        if targets.contains(&(pc as u32)) || super::placement(&inst.op) != super::Placement::Lane {
            break;
        }
        let pure = fixed_param_load(program, layout, func, inst) || pure_op(&inst.op);
        if inst.guard.is_none()
            && pure
            && inst.srcs.iter().all(|s| uniform_operand(s, &uniform))
            && inst.defs().all(|r| writers.get(&r) == Some(&1))
        {
            uniform.extend(inst.defs());
        }
    }
    uniform.into_iter().collect()
}

/// Operations whose result depends only on their operands (and not on the lane, the carry
/// flag or memory).
fn pure_op(op: &Op) -> bool {
    matches!(
        op,
        Op::Mov { .. }
            | Op::IAdd { .. }
            | Op::ISub { .. }
            | Op::IMul { .. }
            | Op::IMad { .. }
            | Op::Mul24 { .. }
            | Op::Mad24 { .. }
            | Op::IMin { .. }
            | Op::IMax { .. }
            | Op::IAbs { .. }
            | Op::INeg { .. }
            | Op::And { .. }
            | Op::Or { .. }
            | Op::Xor { .. }
            | Op::Not { .. }
            | Op::CNot { .. }
            | Op::Shl { .. }
            | Op::Shr { .. }
            | Op::Cvta { .. }
            | Op::Cvt { .. }
            | Op::Setp { .. }
            | Op::Selp { .. }
    )
}

/// `ld.param` of a kernel parameter at a fixed address (a parameter symbol plus an offset).
fn fixed_param_load(program: &Program, layout: &KernelLayout, func: FuncId, inst: &Inst) -> bool {
    let Op::Ld {
        space: StateSpace::Param,
        ..
    } = inst.op
    else {
        return false;
    };
    let Some(Operand::Address(a)) = inst.srcs.first() else {
        return false;
    };
    match a.base {
        AddrBase::Symbol(sym) => matches!(
            program.location(layout, func, sym),
            Location::KernelParam(_)
        ),
        _ => false,
    }
}

/// Whether the operand has the same value in every lane, given the registers known uniform.
fn uniform_operand(op: &Operand, uniform: &BTreeSet<VReg>) -> bool {
    match op {
        Operand::Reg(r) | Operand::NotPred(r) => uniform.contains(r),
        Operand::Imm(_) | Operand::SymbolAddr { .. } | Operand::FuncAddr(_) | Operand::Sink => true,
        Operand::Special(s) => matches!(
            s,
            SpecialReg::Ntid(_)
                | SpecialReg::Ctaid(_)
                | SpecialReg::Nctaid(_)
                | SpecialReg::WarpId
                | SpecialReg::ClusterId(_)
                | SpecialReg::NClusterId(_)
                | SpecialReg::ClusterCtaid(_)
                | SpecialReg::ClusterNctaid(_)
                | SpecialReg::ClusterCtarank
                | SpecialReg::ClusterNctarank
                | SpecialReg::IsExplicitCluster
        ),
        Operand::Address(a) => match a.base {
            AddrBase::Reg(r) => uniform.contains(&r),
            AddrBase::Symbol(_) | AddrBase::Absolute => true,
        },
        Operand::Vector(elems) => elems.iter().all(|e| uniform_operand(e, uniform)),
    }
}

/// How many instructions of `insts` write each register they write.
fn writers(insts: &[Inst]) -> HashMap<VReg, u32> {
    let mut count: HashMap<VReg, u32> = HashMap::new();
    for inst in insts {
        // An instruction naming a register twice among its destinations writes it once.
        let mut defs: Vec<VReg> = inst.defs().collect();
        defs.sort_unstable();
        defs.dedup();
        for r in defs {
            *count.entry(r).or_insert(0) += 1;
        }
    }
    count
}
