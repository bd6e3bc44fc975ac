#![no_main]
//! See `locker_fuzz::envelope`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| locker_fuzz::envelope(data));
