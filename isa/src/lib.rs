//! warpsim's internal ISA.
//!
//! ```text
//! PTX text ──frontend──► isa::Module ──► interpreter / Cranelift JIT ──► timing model
//! ```
//!
//! A [`Module`] holds module-scope variables and [`Function`]s; a function holds typed virtual
//! registers, variables and basic blocks of [`Inst`]s. Each instruction's [`Op`] carries its
//! operation with every modifier typed, so later stages never look at PTX text.
//!
//! **Architecture invariant:** this crate knows nothing about PTX syntax, Cranelift or cycles.

pub mod function;
pub mod inst;
pub mod special;
pub mod types;

pub use function::{
    Block, BlockId, FuncId, FuncKind, Function, GlobalId, InitValue, Linkage, LocalId, Module,
    RegInfo, SymbolRef, Tuning, VReg, Variable,
};
pub use inst::*;
pub use special::SpecialReg;
pub use types::*;
