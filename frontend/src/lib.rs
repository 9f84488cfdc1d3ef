//! The PTX front end: text → tokens → AST → typed [`isa::Module`].
//!
//! ```text
//! PTX text ──lexer (logos)──► tokens ──grammar (lalrpop)──► ast::Module ──lower──► isa::Module
//! ```
//!
//! The grammar has one generic production for instructions; `lower` decodes opcode and modifiers
//! into typed [`isa::Op`]s, resolves names and reports what is invalid or unsupported with
//! file:line:col diagnostics ([`PtxError`]).

pub mod ast;
pub mod diag;
pub mod lexer;
pub mod parser;

pub use diag::{DiagKind, Diagnostic, PtxError};
pub use parser::parse;
pub mod lower;

/// Parses and lowers PTX text into an [`isa::Module`]. `file` names the text in diagnostics.
pub fn compile(file: &str, text: &str) -> Result<isa::Module, PtxError> {
    let ast = parse(file, text)?;
    lower::lower(file, text, &ast)
}
