#![no_main]
//! See `locker_fuzz::wire`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| locker_fuzz::wire(data));
