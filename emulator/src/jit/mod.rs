//! The Cranelift JIT (in progress).
pub mod ctx;

/// Decodes the special-register code compiled code passes to `helper_special`.
pub fn special_from_code(code: u32) -> isa::SpecialReg {
    SPECIALS[code as usize]
}

/// Every special register, indexed by the code generated code uses.
pub const SPECIALS: [isa::SpecialReg; 0] = [];
