//! The cycle-level timing model (SM pipeline, schedulers, scoreboard, operand collector,
//! register-file banks, memory hierarchy, statistics), driven by the functional engine.

pub mod characterize;
pub mod collector;
pub mod config;
pub mod cta_scheduler;
pub mod decode;
pub mod energy;
mod events;
pub mod gpu;
pub mod memory;
pub mod occupancy;
mod parallel;
pub mod paver;
pub mod rf;
pub mod scheduler;
pub mod scoreboard;
pub mod sm;
pub mod stats;
pub mod trace;

pub use config::{ConfigError, GpuConfig};
pub use gpu::{Gpu, SimError, TimedCtas, TimedLaunch};
pub use stats::{TimingStats, Untimed};
