//! Work items: leases with fencing tokens ([`lease`]), plans ([`plan`]), steps ([`step`]) and a
//! work item's verified history ([`history`]).

pub mod access;
pub mod history;
pub mod lease;
pub mod plan;
pub mod step;
