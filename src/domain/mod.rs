//! Pure types and rules: no I/O, no clap, no printing.

pub mod artifact;
pub mod bundle;
pub mod bundle_signers;
pub mod chain;
pub mod check;
pub mod digest;
pub mod envelope;
pub mod event;
pub mod glob;
pub mod journal;
pub mod key;
pub mod limits;
pub mod merkle;
pub mod note;
pub mod pad;
pub mod payment;
pub mod proof;
pub mod secret;
pub mod sign;
pub mod time;
pub mod token;
pub mod witness;
pub mod work;
