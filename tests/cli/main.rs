//! The one integration-test binary: every test runs the real `locker` binary.

mod artifact;
mod blob;
mod common;
mod interop;
mod lease;
mod manifest;
mod serve;
mod serve_artifacts;
mod serve_leases;
mod smoke;
mod step;
mod token;
