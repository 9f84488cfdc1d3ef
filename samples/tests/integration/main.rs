//! The integration tests of the samples and the command line, one binary: linking one test
//! program instead of one per file saves minutes of CI build, and the test harness keeps every
//! core busy across the files (cargo runs test binaries one after another). Each module is
//! one area; `cargo test --release -p warpsim --test integration MODULE` runs one of them.

// Helpers shared by several modules.
mod common;
mod identities;
mod indirect_calls;
mod mbarrier_corpus;

// The tests, one area per module.
mod all_samples;
mod async_corpus;
mod capture;
mod cg_corpus;
mod characterize;
mod corpus_runs;
mod cta_schedulers;
mod dis_golden;
mod divergence;
mod dot_corpus;
mod fuzz_corpus;
mod golden_stats;
mod half_corpus;
mod hints_decode;
mod pictures;
mod ptx_sets;
mod registers;
mod rf_cli;
mod rf_larf;
mod rf_modern;
mod rf_power;
mod rf_residency;
mod rf_techniques;
mod run_cli;
mod run_cu;
mod run_ptx;
mod saxpy;
mod snooze;
mod sweep;
mod texture_corpus;
mod texture_variants;
mod timing_book;
mod timing_coalescing;
mod timing_invariants;
mod timing_micro;
mod timing_parallel;
mod timing_samples;
mod timing_sampling;
mod timing_widths;
mod wmma_corpus;
