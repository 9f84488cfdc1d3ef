//! PTX bytes through the front end and every analysis (`warpsim::fuzzing::parse_lower`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| warpsim::fuzzing::parse_lower(data));
