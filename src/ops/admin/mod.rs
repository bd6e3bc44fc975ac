//! The operator's operations on a local repository, none with a remote form: creating it
//! ([`init`]), retention ([`gc`]), [`backup`] and restore, copying it to another store
//! ([`store_copy`]), checking its surroundings ([`doctor`]), and reviewing a handed-off pad
//! against a checkout ([`review`]).

pub mod backup;
pub mod doctor;
pub mod gc;
pub mod init;
pub mod review;
pub mod scrape;
pub mod serving;
pub mod store_check;
pub mod store_copy;
