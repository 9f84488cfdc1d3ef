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
pub use special::{ImplicitCluster, SpecialReg};
pub use types::*;

pub mod affinity;
pub mod analysis;
pub mod bitset;
pub mod builder;
pub mod cfg;
pub mod dom;
pub mod hints;
pub mod liveness;
pub mod loops;
pub mod matrix;
pub mod pressure;
pub mod print;
pub mod regalloc;
pub mod reuse;
pub mod schedule;
pub mod storage;
pub mod texture;
pub mod verify;
pub mod warp_live;
pub mod writeback;

pub use analysis::{FunctionAnalysis, ModuleAnalysis};
pub use bitset::BitSet;
pub use cfg::Cfg;
pub use dom::{Dominators, PostDominators, Reconvergence};
pub use hints::{AffinityEdge, FunctionHints, RegSet};
pub use liveness::{LiveAfterIndex, Liveness};
pub use loops::{Loop, LoopForest};
pub use matrix::{Fragment, Layout, MatrixShape, MatrixUse};
pub use print::{FunctionText, Printer, disassemble};
pub use regalloc::{AllocError, Allocation, Interference, PhysReg};
pub use texture::{
    Opaque, ResourceQuery, SurfaceAccess, SurfaceClamp, Tex, TexGeom, TexLevel, Tld4,
};
pub use verify::{Violation, ViolationKind, verify_function, verify_module};
