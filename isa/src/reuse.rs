//! The reuse bits of the operand (register-file) cache of recent NVIDIA cores, set the way
//! NVIDIA's compiler sets them (docs/modern-rf.md has the hardware and the evidence): per source
//! register read, whether the value should stay in the cache for the warp's next instruction.
//!
//! The hardware (Turing to Blackwell, Huerta et al., MICRO 2025 §5.3.1) keeps, per sub-core,
//! one cache entry per register bank and per *operand slot*; an instruction whose operand has
//! the reuse bit set leaves the value in that entry, and a later instruction of the same warp
//! reading the same register in the same slot finds it there. warpsim's compiler sets a bit
//! only where the hit is certain whatever the bank mapping: on the very next instruction.
//!
//! Definitions (per instruction, over the 32-bit registers of [`FunctionHints::reads`]):
//! - **Operand slot**: the index of the source operand in the instruction's source list
//!   ([`Inst::srcs`], guard excluded), immediates and constants counted, so `fma d, a, 2.0, c`
//!   reads `c` in slot 2. Every 32-bit register of a multi-register operand is read in the
//!   operand's slot: both halves of a 64-bit value, all elements of a vector (`{a, b}` of a
//!   pack), the halves of an address base. A register named by several operands is read once
//!   ([`FunctionHints::reads`]) and takes the slot of the first operand naming it.
//! - **Operand-cache instruction** ([`reads_through_operand_cache`]): a fixed-latency ALU
//!   operation, the only kind the hardware lets read or fill the cache (the authors' model:
//!   integer, FP32, FP64, half, tensor and predicate pipelines; memory, special-function,
//!   warp-wide and control instructions read the banks directly). Here: the register
//!   computations of [`Op::is_register_computation`] and the carry chain, except divisions,
//!   remainders, reciprocals, square roots and transcendentals (the SFU, or subroutines of
//!   several instructions in SASS). So an address base is never marked (memory instructions
//!   do not use the cache), and vector elements only as a pack's or unpack's operand.
//! - **Reuse bit** of register `R` read in slot `s` at `pc`: set when
//!   1. the warp's next instruction is `pc + 1` in straight-line code: `pc` does not end a run
//!      ([`FunctionHints::ends_run`]: not the last of its block, which covers branches, exits
//!      and block boundaries, and not a call); barriers and other synchronisation are not
//!      operand-cache instructions, so nothing crosses them either;
//!   2. both `pc` and `pc + 1` are operand-cache instructions;
//!   3. `pc + 1` reads `R` in slot `s` (its own first slot naming `R`);
//!   4. `pc` does not write `R`, guarded or not. In Huerta et al.'s model writes neither
//!      update nor invalidate the cache (entries change only at operand reads; the paper is
//!      silent), so a compiler must not keep a value the instruction itself replaces:
//!      `add r, r, 1` followed by `add s, r, 2` reads the new `r` and leaves `r`'s bit clear.
//!
//! The hardware would also hit further away (an entry survives until the next read of its
//! bank in its slot, by any instruction that uses the cache, of this warp or another, a hit
//! included unless that read sets the bit again), and NVIDIA's compiler may exploit that;
//! warpsim's bits are the bank-independent subset, and the timing model decides what an
//! entry holds at run time.
//!
//! [`FunctionHints::reads`]: crate::hints::FunctionHints::reads
//! [`FunctionHints::ends_run`]: crate::hints::FunctionHints::ends_run

use crate::hints::FunctionHints;
use crate::inst::{Inst, Op};
use std::ops::Range;

/// The slot recorded for a register read that no source operand names (none: only a guard,
/// a predicate, is read outside the sources, and predicates have no 32-bit registers).
pub const NO_SLOT: u8 = u8::MAX;

/// Whether instructions of operation `op` read their source registers through the operand
/// cache (and so may carry reuse bits and hit): the fixed-latency ALU operations (see the
/// module docs).
pub fn reads_through_operand_cache(op: &Op) -> bool {
    match op {
        Op::IAdd { .. }
        | Op::ISub { .. }
        | Op::IMul { .. }
        | Op::IMad { .. }
        | Op::Mul24 { .. }
        | Op::Mad24 { .. }
        | Op::IAbs { .. }
        | Op::INeg { .. }
        | Op::IMin { .. }
        | Op::IMax { .. }
        | Op::IPacked { .. }
        | Op::FMixed { .. }
        | Op::Createpolicy { .. }
        | Op::Sad { .. }
        | Op::Carry { .. }
        | Op::Popc { .. }
        | Op::Clz { .. }
        | Op::Bfind { .. }
        | Op::Brev { .. }
        | Op::Bfe { .. }
        | Op::Bfi { .. }
        | Op::Prmt { .. }
        | Op::Shf { .. }
        | Op::Bmsk { .. }
        | Op::Fns
        | Op::Lop3 { .. }
        | Op::Video(_)
        | Op::VideoSimd(_)
        | Op::Szext { .. }
        | Op::CvtPack { .. }
        | Op::Dp4a { .. }
        | Op::Dp2a { .. }
        | Op::And { .. }
        | Op::Or { .. }
        | Op::Xor { .. }
        | Op::Not { .. }
        | Op::CNot { .. }
        | Op::Shl { .. }
        | Op::Shr { .. }
        | Op::FAdd { .. }
        | Op::FSub { .. }
        | Op::FMul { .. }
        | Op::Fma { .. }
        | Op::FAbs { .. }
        | Op::FNeg { .. }
        | Op::FMin { .. }
        | Op::FMax { .. }
        | Op::Copysign { .. }
        | Op::Testp { .. }
        | Op::Setp { .. }
        | Op::Set { .. }
        | Op::Selp { .. }
        | Op::Slct { .. }
        | Op::Mov { .. }
        | Op::Pack { .. }
        | Op::Unpack { .. }
        | Op::Cvt { .. }
        | Op::Cvta { .. } => true,
        Op::IDiv { .. }
        | Op::IRem { .. }
        | Op::FDiv { .. }
        | Op::Rcp { .. }
        | Op::Sqrt { .. }
        | Op::Transc { .. }
        | Op::Ld { .. }
        | Op::St { .. }
        | Op::Ldu { .. }
        | Op::Atom { .. }
        | Op::Red { .. }
        | Op::CpAsync { .. }
        | Op::Prefetch { .. }
        | Op::CpAsyncCommit
        | Op::CpAsyncWait { .. }
        | Op::WmmaLoad { .. }
        | Op::WmmaStore { .. }
        | Op::WmmaMma { .. }
        | Op::Mbarrier { .. }
        | Op::Movmatrix
        | Op::Tex(_)
        | Op::Tld4(_)
        | Op::Txq { .. }
        | Op::Suld(_)
        | Op::Sust(_)
        | Op::Sured { .. }
        | Op::Suq { .. }
        | Op::Mma { .. }
        | Op::Ldmatrix { .. }
        | Op::Stmatrix { .. }
        | Op::Bar { .. }
        | Op::BarWarpSync
        | Op::Membar { .. }
        | Op::Fence { .. }
        | Op::Nanosleep
        | Op::Vote { .. }
        | Op::Shfl { .. }
        | Op::Match { .. }
        | Op::Activemask
        | Op::Isspacep { .. }
        | Op::Redux { .. }
        | Op::Elect
        | Op::Bra { .. }
        | Op::Call { .. }
        | Op::Ret { .. }
        | Op::Exit
        | Op::Trap
        | Op::Unsupported { .. } => false,
    }
}

/// The operand slot of each register of `reads` (the registers `inst` reads, as
/// [`FunctionHints::reads`] lists them), into `out`: the index of the first source operand
/// naming it, or [`NO_SLOT`]. `gprs` maps a virtual register to its 32-bit registers.
pub(crate) fn operand_slots(
    inst: &Inst,
    reads: &[u32],
    gprs: &impl Fn(usize) -> Range<u32>,
    out: &mut Vec<u8>,
) {
    out.clear();
    out.extend(reads.iter().map(|&r| {
        inst.srcs
            .iter()
            .position(|src| src.regs().any(|v| gprs(v.index()).contains(&r)))
            .map_or(NO_SLOT, |slot| u8::try_from(slot).unwrap_or(NO_SLOT))
    }));
}

/// The reuse bit of every register read in the function of `h` (whose read slots are set),
/// in `reads` order; `cached[pc]` says whether the instruction at `pc` reads through the
/// operand cache ([`reads_through_operand_cache`]).
pub(crate) fn reuse_bits(h: &FunctionHints, cached: &[bool]) -> Vec<bool> {
    let mut bits = Vec::new();
    for pc in 0..h.len() as u32 {
        // Not the end of a run, so `pc + 1` is the next instruction of the same block.
        let next =
            (!h.ends_run(pc) && cached[pc as usize] && cached[pc as usize + 1]).then_some(pc + 1);
        for (&reg, &slot) in h.reads(pc).iter().zip(h.read_slots(pc)) {
            bits.push(next.is_some_and(|next| {
                slot != NO_SLOT && !h.writes(pc).contains(&reg) && reads_in_slot(h, next, reg, slot)
            }));
        }
    }
    bits
}

/// Whether the instruction at `pc` reads `reg` in operand slot `slot`.
fn reads_in_slot(h: &FunctionHints, pc: u32, reg: u32, slot: u8) -> bool {
    h.reads(pc)
        .iter()
        .zip(h.read_slots(pc))
        .any(|(&r, &s)| r == reg && s == slot)
}
