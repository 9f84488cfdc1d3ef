//! The cycle-level timing model (SM pipeline, schedulers, scoreboard, operand collector,
//! register-file banks, memory hierarchy, statistics), driven by the functional engine.

pub mod config;
pub mod memory;

pub use config::{ConfigError, GpuConfig};
