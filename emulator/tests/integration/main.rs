//! The integration tests of `emulator`, one binary: linking one test program instead of one per
//! file saves CI build time, and the test harness keeps every core busy across the files
//! (cargo runs test binaries one after another). Each module is one area;
//! `cargo test --release -p emulator --test integration MODULE` runs one of them.

mod conformance_approx;
mod conformance_atomic;
mod conformance_bits;
mod conformance_compare;
mod conformance_cvt;
mod conformance_float;
mod conformance_half;
mod conformance_int;
mod conformance_round;
mod conformance_video;
mod differential;
mod eval_cases;
mod memory_map;
mod schedule;
