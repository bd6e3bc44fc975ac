//! `locker`: durable, tamper-evident coordination state for agent fleets.
//!
//! # Architecture
//!
//! Dependencies point one way: `cli` (and later `server`, `mcp`) → `ops` → `domain` + `store`,
//! and `repo` → `store`.
//!
//! - [`domain`]: pure types and rules (hash chains, the handoff envelope, limits, journal
//!   framing and its typed events, secrets). No I/O, no printing. Every journal entry's kind,
//!   subject and body shape is [`domain::event`]'s, checked against the golden journal in
//!   `tests/fixtures/golden/`.
//! - [`store`]: the storage trait ([`store::Store`], [`store::Tx`]) and its SQLite
//!   implementation. Nothing above the trait knows it is SQLite.
//! - [`repo`]: finding and creating the `.locker/` directory, its config and modes.
//! - [`ops`]: the use cases every front end calls, returning `Serialize` outcomes whose JSON is
//!   the CLI's `--json`, the HTTP body and the MCP tool result. Errors carry one
//!   [`ops::ErrorKind`] that maps to the exit code and the HTTP status in one place.
//! - [`output`]: the only module that prints.
//! - [`cli`]: clap definitions, parse → ops → render → exit code.
//! - [`mcp`]: `locker mcp`, the same operations as MCP tools over stdio (a thin adapter).
//! - [`skill`]: `locker skill`, a SKILL.md generated from the CLI definition.
//! - [`server`]: `locker serve`, the same operations over HTTP (agent-locker's pad API and
//!   locker's own routes).
//! - [`client`]: the blocking HTTP client the CLI's remote mode (`--remote`) uses; it returns
//!   the same outcome types as [`ops`].
//! - [`quest`]: `locker quest`, the demo: the whole story with real processes of this binary.
//! - [`docs`]: man pages and shell completions rendered from the CLI definition.

pub mod api;
pub mod cli;
pub mod client;
pub mod domain;
pub mod mcp;
pub mod ops;
pub mod output;
pub mod quest;
pub mod repo;
pub mod rpc;
pub mod server;
pub mod store;
pub mod witness;

pub use cli::{docs, skill};
