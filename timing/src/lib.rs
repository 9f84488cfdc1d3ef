//! The cycle-level timing model (SM pipeline, schedulers, scoreboard, operand collector,
//! register-file banks, memory hierarchy, register-file techniques, statistics).
//!
//! Not built yet: it arrives with issue 5. The crate exists now so that the workspace has its
//! final shape and dependency direction (`timing → emulator, isa`).
