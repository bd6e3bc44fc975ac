//! The one integration-test binary: every test runs the real `locker` binary.

mod artifact;
mod backup;
mod blob;
mod common;
mod concurrency;
mod crash;
mod deposit;
mod docs;
mod gc;
mod hashes;
mod init;
mod lease;
mod log;
mod manifest;
mod pad;
mod smoke;
mod step;
mod tamper;
mod token;
