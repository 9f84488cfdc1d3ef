//! A small PTX module run under the interpreter and the JIT, which must agree
//! (`warpsim::fuzzing::run_ptx`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = warpsim::fuzzing::run_ptx(data);
});
