//! Functional execution of the internal ISA: the interpreter (the executable specification of
//! every instruction), warps with their SIMT reconvergence stacks, memory spaces, barriers and
//! kernel launches.
//!
//! ```text
//! isa::Module ──Program::new──► Program (flat code, reconvergence PCs, variable layout)
//! launch(Program, kernel, GlobalMemory, params, LaunchConfig)
//!     └─ CTAs over host threads ─► run_cta: warps round-robin ─► exec::step ─► alu::eval
//! ```
//!
//! The Cranelift JIT (issue 4) will compile the same `Program`; the interpreter stays as the
//! reference it is tested against.

pub mod alu;
pub mod cta;
pub mod error;
pub mod exec;
pub mod gpr_operands;
pub mod jit;
pub mod launch;
pub mod memory;
pub mod memory_map;
pub mod program;
pub mod simt;
pub mod stepper;
pub mod texture;
pub mod warp;
pub mod watch;
pub mod widths;

pub use error::{Fault, FaultKind};
pub use launch::{DEFAULT_WARP_BUDGET, Engine, LaunchConfig, LaunchStats, launch};
pub use memory::{GlobalMemory, MemoryCheck};
pub use memory_map::MemoryMap;
pub use program::Program;
