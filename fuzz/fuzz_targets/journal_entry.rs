#![no_main]
//! See `locker_fuzz::journal_entry`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| locker_fuzz::journal_entry(data));
