//! Functional execution of the internal ISA (interpreter and Cranelift JIT, warps, SIMT stack,
//! memory spaces).
//!
//! Not built yet: the interpreter and SIMT stack arrive with issue 3, the JIT with issue 4.
//! The crate exists now so that the workspace has its final shape and dependency direction
//! (`emulator → isa`).
