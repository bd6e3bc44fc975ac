//! Everything a caller of the store needs in scope to use a transaction:
//! `use crate::store::prelude::*;`.

pub use super::tx::{
    AgentStore, ArtifactStore, JournalStore, PadStore, PaymentStore, RetentionStore, Tx, WorkStore,
};
pub use super::{Flow, Store};
