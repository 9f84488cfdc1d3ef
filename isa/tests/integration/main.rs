//! The integration tests of `isa`, one binary: linking one test program instead of one per
//! file saves CI build time, and the test harness keeps every core busy across the files
//! (cargo runs test binaries one after another). Each module is one area;
//! `cargo test --release -p isa --test integration MODULE` runs one of them.

mod control_flow;
mod hints;
mod liveness_regalloc;
mod print;
mod random;
mod reuse;
mod saxpy;
mod storage;
mod verify;
mod warp_live;
