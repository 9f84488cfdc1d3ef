//! Build script: generates the parser of `src/grammar.lalrpop` with lalrpop into
//! `$OUT_DIR/grammar.rs` (generated code is not committed; `parser.rs` includes it with
//! `lalrpop_mod!`).
//!
//! lalrpop's default table-driven parser reports exactly which tokens were acceptable at an
//! error. Its recursive-ascent form parsed about 20% faster, but parsing is a small share of
//! loading a module (`warpsim check` of every committed PTX file, 2.6 MB, takes 0.2 s either
//! way) and that form's 2.2 MB of generated code tripled the crate's compile time.

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
    Ok(())
}
