//! Build script: generates two parsers from `src/grammar.lalrpop` with lalrpop into `$OUT_DIR`
//! (generated code is not committed; `parser.rs` includes both with `lalrpop_mod!`):
//!
//! - `grammar.rs`: lalrpop's default table-driven parser. It is only run after a failed parse,
//!   because it reports exactly which tokens were acceptable at the error.
//! - `grammar_fast.rs`: the same grammar as a recursive-ascent parser, which parses about 20%
//!   faster but over-approximates the expected-token lists in its errors.

use std::path::PathBuf;

fn main() {
    if let Err(error) = generate() {
        eprintln!("error: generating the PTX parser failed: {error}");
        std::process::exit(1);
    }
}

fn generate() -> Result<(), Box<dyn std::error::Error>> {
    const GRAMMAR: &str = "src/grammar.lalrpop";
    println!("cargo:rerun-if-changed={GRAMMAR}");
    println!("cargo:rerun-if-changed=build.rs");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").ok_or("OUT_DIR is not set")?);

    lalrpop::Configuration::new()
        .set_out_dir(&out)
        .process_file(GRAMMAR)?;

    let text = std::fs::read_to_string(GRAMMAR)?;
    let header = "\ngrammar<";
    if !text.contains(header) {
        return Err(format!("{GRAMMAR}: no line starting with `grammar<` to annotate").into());
    }
    let fast = out.join("grammar_fast.lalrpop");
    // Only rewrite on change: lalrpop regenerates when the file's hash changes.
    let fast_text = text.replacen(header, "\n#[recursive_ascent]\ngrammar<", 1);
    if std::fs::read_to_string(&fast).ok().as_deref() != Some(fast_text.as_str()) {
        std::fs::write(&fast, fast_text)?;
    }
    lalrpop::Configuration::new()
        .set_out_dir(&out)
        .process_file(&fast)?;
    Ok(())
}
