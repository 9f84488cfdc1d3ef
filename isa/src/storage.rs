//! How much register storage each virtual register needs, before any is allocated: what a
//! back end such as ptxas would give the value, with the program's instructions unchanged.
//!
//! PTX spends registers that machine code does not: NVRTC loads every kernel parameter into a
//! register, materialises constants and symbol addresses with `mov`, and computes shared- and
//! local-memory addresses in 64 bits. ptxas reads parameters and launch constants straight
//! from the constant bank (`c[0x0][...]`) or the instruction's immediate field, and keeps
//! window offsets in one 32-bit register. So a virtual register is one of:
//!
//! - [`Storage::Constant`]: a **launch constant read as an operand**. Its only definition is
//!   unguarded and loads a parameter of the kernel (`ld.param` from the kernel's own
//!   `.param` space) or a `.const` variable at a fixed address (`ld.const [sym+offset]`),
//!   moves an immediate, a variable's or function's address, or a
//!   launch-wide special register (`%ntid`, `%nctaid`), or moves (or `cvta.to.global`, which
//!   is the identity in machine code) another launch constant; and every instruction reading
//!   it is an arithmetic, logic, comparison, selection, conversion or move instruction that
//!   takes it as a plain operand, at most one such operand per instruction (machine code
//!   encodes one immediate or constant-bank operand). It gets no register: its readers read
//!   no register for it, and its definition writes none (the instruction still issues, as in
//!   GPGPU-Sim, which runs the same PTX).
//! - [`Storage::Low32`]: a **64-bit integer whose high half nothing reads**: every reader is a
//!   `.shared` or `.local` access using it as its address (a window offset, below 2^32), or a
//!   truncating `cvt` to 32 bits or less, or an instruction whose low 32 result bits depend
//!   only on the low 32 bits of its operands (`add`, `sub`, `mul.lo`, `mad.lo`, `and`, `or`,
//!   `xor`, `not`, `neg`, `shl`, `mov`, `selp`) writing another such register. One 32-bit
//!   register holds it.
//! - [`Storage::Full`]: everything else, its class's registers.
//!
//! Execution is unaffected: the interpreter and the JIT keep every virtual register's full
//! value. Storage decides only what the register file and the timing model see (physical
//! registers, bank accesses, width classes, occupancy).
//!
//! Both sets are greatest fixpoints: every candidate starts in, and a candidate leaves when an
//! instruction reads it in a way the rules above do not allow (given the other candidates),
//! until nothing changes. `O(I · rounds)`; a round removes at least one candidate, and in
//! practice two or three rounds settle.

use crate::function::{FuncKind, Function, SymbolRef, VReg};
use crate::inst::{AddrBase, Inst, MulMode, Op, Operand};
use crate::special::SpecialReg;
use crate::types::{RegClass, StateSpace};

/// The register storage a virtual register needs (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Storage {
    /// Its class's registers.
    Full,
    /// A 64-bit value in one 32-bit register.
    Low32,
    /// No register: a launch constant every reader takes as an operand.
    Constant,
}

impl Storage {
    /// The 32-bit registers a value of class `class` stored this way occupies (0 for
    /// predicates, which live in their own file).
    pub fn gprs(self, class: RegClass) -> u32 {
        match self {
            Storage::Full => class.phys_regs(),
            Storage::Low32 => 1,
            Storage::Constant => 0,
        }
    }
}

/// The storage of every virtual register of `f`, indexed by [`VReg`].
pub fn storage(f: &Function) -> Vec<Storage> {
    let n = f.regs.len();
    let insts = || f.blocks.iter().flat_map(|b| &b.insts);
    let class = |v: VReg| f.regs[v.index()].class();

    // Each register's definitions: the only one, or none when there are several.
    let mut def_count = vec![0u32; n];
    let mut only_def: Vec<Option<&Inst>> = vec![None; n];
    for inst in insts() {
        for d in inst.defs().filter(|d| d.index() < n) {
            def_count[d.index()] += 1;
            only_def[d.index()] = Some(inst);
        }
    }
    let mut constant: Vec<bool> = (0..n)
        .map(|v| {
            def_count[v] == 1
                && class(VReg(v as u32)) != RegClass::Pred
                && only_def[v].is_some_and(|d| constant_source(f, d).is_some())
        })
        .collect();
    let mut low32: Vec<bool> = (0..n)
        .map(|v| class(VReg(v as u32)) == RegClass::B64)
        .collect();

    loop {
        let mut changed = false;
        let mut drop = |set: &mut Vec<bool>, v: VReg| {
            if set[v.index()] {
                set[v.index()] = false;
                changed = true;
            }
        };
        // A constant defined from another register stays one only while that one does.
        for v in 0..n {
            if constant[v]
                && let Some(Some(src)) = only_def[v].and_then(|d| constant_source(f, d))
                && (src.index() >= n || !constant[src.index()])
            {
                drop(&mut constant, VReg(v as u32));
            }
        }
        for inst in insts() {
            let dst_low32 = single_dst(inst).is_some_and(|d| d.index() < n && low32[d.index()]);
            let mut folded = 0;
            for (k, op) in inst.srcs.iter().enumerate() {
                let plain = match op {
                    Operand::Reg(v) => Some(*v),
                    _ => None,
                };
                for v in op.regs().filter(|v| v.index() < n) {
                    if constant[v.index()] {
                        if plain == Some(v) && reads_operand_constants(&inst.op) && folded == 0 {
                            folded += 1;
                        } else {
                            drop(&mut constant, v);
                        }
                    }
                    if low32[v.index()] && !reads_low32(inst, k, op, dst_low32) {
                        drop(&mut low32, v);
                    }
                }
            }
        }
        if !changed {
            break;
        }
    }
    (0..n)
        .map(|v| match (constant[v], low32[v]) {
            (true, _) => Storage::Constant,
            (false, true) => Storage::Low32,
            (false, false) => Storage::Full,
        })
        .collect()
}

/// The instruction's only destination, when it has exactly one register destination.
fn single_dst(inst: &Inst) -> Option<VReg> {
    match inst.dsts.as_slice() {
        [Operand::Reg(d)] => Some(*d),
        _ => None,
    }
}

/// Whether `inst`, if it is a register's only (unguarded) definition, makes it a launch
/// constant: `Some(None)` when it is one outright, `Some(Some(src))` when it is one if `src`
/// is, `None` when it is not one.
fn constant_source(f: &Function, inst: &Inst) -> Option<Option<VReg>> {
    if inst.guard.is_some() {
        return None;
    }
    single_dst(inst)?;
    match (&inst.op, inst.srcs.as_slice()) {
        (
            Op::Ld {
                space: StateSpace::Param,
                vec: 0 | 1,
                ..
            },
            [Operand::Address(a)],
        ) if f.kind == FuncKind::Entry
            && matches!(a.base, AddrBase::Symbol(SymbolRef::Param(_))) =>
        {
            Some(None)
        }
        // A module-scope `.const` variable at a fixed address: a constant-bank operand too.
        (
            Op::Ld {
                space: StateSpace::Const,
                vec: 0 | 1,
                ..
            },
            [Operand::Address(a)],
        ) if matches!(a.base, AddrBase::Symbol(SymbolRef::Global(_))) => Some(None),
        (Op::Mov { .. }, [src]) => match src {
            Operand::Imm(_) | Operand::SymbolAddr { .. } | Operand::FuncAddr(_) => Some(None),
            // The same in every CTA of a launch (the cluster shape too, implicit or explicit).
            Operand::Special(
                SpecialReg::Ntid(_)
                | SpecialReg::Nctaid(_)
                | SpecialReg::NClusterId(_)
                | SpecialReg::ClusterNctaid(_)
                | SpecialReg::ClusterNctarank,
            ) => Some(None),
            Operand::Reg(v) => Some(Some(*v)),
            _ => None,
        },
        (
            Op::Cvta {
                space: StateSpace::Global,
                to_generic: false,
                ..
            },
            [Operand::Reg(v)],
        ) => Some(Some(*v)),
        _ => None,
    }
}

/// Whether `op` may take one of its plain register sources as an immediate or
/// constant-bank operand instead: the register computations ([`Op::is_register_computation`])
/// but packing and unpacking, whose operands are vectors of registers, and the carry chain's
/// additions, which encode constants as any addition does.
fn reads_operand_constants(op: &Op) -> bool {
    let vector = matches!(op, Op::Pack { .. } | Op::Unpack { .. });
    (op.is_register_computation() && !vector) || matches!(op, Op::Carry { .. })
}

/// Whether source `k` of `inst`, the operand `op`, reads only the low 32 bits of the 64-bit
/// register it names, given whether the instruction's only destination keeps only its low
/// 32 bits (`dst_low32`).
fn reads_low32(inst: &Inst, k: usize, op: &Operand, dst_low32: bool) -> bool {
    if let Operand::Address(a) = op {
        // A window offset: the shared and local windows are far below 4 GiB.
        let window = |space: &StateSpace| {
            matches!(
                space,
                StateSpace::Shared | StateSpace::SharedCluster | StateSpace::Local
            )
        };
        return matches!(a.base, AddrBase::Reg(_))
            && match &inst.op {
                Op::Ld { space, .. }
                | Op::St { space, .. }
                | Op::Ldu { space, .. }
                | Op::Atom { space, .. }
                | Op::Red { space, .. }
                | Op::WmmaLoad { space, .. }
                | Op::WmmaStore { space, .. }
                | Op::Ldmatrix { space, .. }
                | Op::Stmatrix { space, .. }
                | Op::Mbarrier { space, .. } => window(space),
                // `cp.async`'s destination is in shared memory.
                Op::CpAsync { .. } => k == 0,
                _ => false,
            };
    }
    if !matches!(op, Operand::Reg(_)) {
        return false;
    }
    match &inst.op {
        // Truncation to 32 bits or fewer keeps only low bits.
        Op::Cvt { dty, sty, .. } => dty.is_integer() && sty.is_integer() && dty.bits() <= 32,
        // The low 32 bits of these results depend only on the low 32 bits of the operands
        // (for `shl`, the value shifted; the amount is a 32-bit operand).
        Op::IAdd { sat: false, .. }
        | Op::ISub { sat: false, .. }
        | Op::IMul {
            mode: MulMode::Lo, ..
        }
        | Op::IMad {
            mode: MulMode::Lo,
            sat: false,
            ..
        }
        | Op::And { .. }
        | Op::Or { .. }
        | Op::Xor { .. }
        | Op::Not { .. }
        | Op::INeg { .. }
        | Op::Mov { .. } => dst_low32,
        Op::Shl { .. } => dst_low32 && k == 0,
        // Selp's condition is a predicate; both values pass through.
        Op::Selp { .. } => dst_low32 && k < 2,
        _ => false,
    }
}
