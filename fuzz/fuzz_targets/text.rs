#![no_main]
//! See `locker_fuzz::text`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| locker_fuzz::text(data));
