//! The one integration-test binary: every test runs the real `locker` binary.

mod artifact;
mod blob;
mod common;
mod concurrency;
mod crash;
mod deposit;
mod docs;
mod fuzz_corpus;
mod hashes;
mod init;
mod interop;
mod lease;
mod log;
mod manifest;
mod pad;
mod serve;
mod serve_artifacts;
mod serve_group;
mod serve_leases;
mod smoke;
mod step;
mod tamper;
mod token;
mod torture;
