//! A sequence of driver-API calls with hostile arguments, drawn from the input; no call may
//! panic, abort or hang (`warpsim_cuda::fuzzing::calls`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    warpsim_cuda::fuzzing::calls(data);
});
