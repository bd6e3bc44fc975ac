//! Pure types and rules: no I/O, no clap, no printing.

pub mod artifact;
pub mod chain;
pub mod digest;
pub mod envelope;
pub mod journal;
pub mod limits;
pub mod pad;
pub mod secret;
pub mod token;
pub mod work;
