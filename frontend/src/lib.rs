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

/// Parses and lowers PTX text into an [`isa::Module`], the texture results nothing reads
/// masked off ([`isa::texture::mask_unread_results`]) and its instructions reordered where
/// that saves registers ([`isa::schedule`]). `file` names the text in diagnostics.
pub fn compile(file: &str, text: &str) -> Result<isa::Module, PtxError> {
    let ast = parse(file, text)?;
    let mut module = lower::lower(file, text, &ast)?;
    module
        .functions
        .iter_mut()
        .for_each(isa::texture::mask_unread_results);
    isa::schedule::schedule_module(&mut module);
    Ok(module)
}

/// Reads a PTX file as text (see [`decode_source`]).
pub fn read_source(path: &std::path::Path) -> Result<String, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    decode_source(&path.display().to_string(), bytes)
}

/// Takes PTX bytes as text. Bytes that are not UTF-8 are located by line and column (PTX itself
/// is ASCII), so a binary file or a stray Latin-1 byte in a comment is found quickly; `file`
/// names the text in that error.
pub fn decode_source(file: &str, bytes: Vec<u8>) -> Result<String, String> {
    String::from_utf8(bytes).map_err(|e| {
        let bytes = e.as_bytes();
        let at = e.utf8_error().valid_up_to();
        let before = &bytes[..at];
        let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        // Columns count characters, as the diagnostics of valid text do.
        let col = 1 + String::from_utf8_lossy(&before[line_start..])
            .chars()
            .count();
        format!(
            "{file}:{line}:{col}: not UTF-8 text (byte {:#04x}); PTX is ASCII",
            bytes[at]
        )
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_non_utf8_byte_is_located_by_line_and_column() {
        let dir = std::env::temp_dir().join(format!("warpsim-utf8-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("bad.ptx");
        std::fs::write(&path, b".version 7.0\n// caf\xc3\xa9 \xff\n").unwrap();
        let err = super::read_source(&path).unwrap_err();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(
            err,
            format!(
                "{}:2:9: not UTF-8 text (byte 0xff); PTX is ASCII",
                path.display()
            )
        );
    }
}
