//! The integration tests of `frontend`, one binary: linking one test program instead of one per
//! file saves CI build time, and the test harness keeps every core busy across the files
//! (cargo runs test binaries one after another). Each module is one area;
//! `cargo test --release -p frontend --test integration MODULE` runs one of them.

mod corpus;
mod decode;
mod limits;
mod lower_errors;
mod lower_fuzz;
mod lower_module;
mod parse_ast;
mod parse_corpus;
mod parse_errors;
mod parse_fuzz;
mod scaling;
