//! The one integration-test binary: every test runs the real `locker` binary.

mod artifact;
mod blob;
mod common;
mod concurrency;
mod crash;
mod deposit;
mod hashes;
mod init;
mod log;
mod pad;
mod smoke;
mod tamper;
mod token;
