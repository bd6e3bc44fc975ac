//! The one integration-test binary: every test runs the real `locker` binary.

mod artifact;
mod blob;
mod common;
mod docs;
mod lease;
mod manifest;
mod smoke;
mod step;
mod token;
