//! The security suite: one file per class of attack, each reproduced from outside the process
//! (real sockets, curl, the CLI), both the attacks issue #18 found and those that held, so
//! that they keep holding.

mod glob;
mod housekeeping;
