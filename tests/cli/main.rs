//! The one integration-test binary: every test runs the real `locker` binary.

mod artifact;
mod blob;
mod common;
mod lease;
mod manifest;
mod mcp;
mod skill;
mod smoke;
mod step;
mod token;
