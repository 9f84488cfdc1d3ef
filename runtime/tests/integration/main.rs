//! The integration tests of `runtime`, one binary: linking one test program instead of one per
//! file saves CI build time, and the test harness keeps every core busy across the files
//! (cargo runs test binaries one after another). Each module is one area;
//! `cargo test --release -p runtime --test integration MODULE` runs one of them.

mod addr32;
mod addr_width;
mod api;
mod big_kernels;
mod cluster;
mod engines;
mod faults;
mod forms;
mod member_masks;
mod movmatrix;
mod spaces;
mod textures;
