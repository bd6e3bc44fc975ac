#![no_main]
//! See `locker_fuzz::http`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| locker_fuzz::http(data));
