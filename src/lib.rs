//! `locker`: durable, tamper-evident coordination state for agent fleets.
//!
//! # Architecture
//!
//! `ARCHITECTURE.md` at the top of the repository is the map. In short, dependencies point one
//! way: the front ends ([`cli`], [`server`], [`mcp`]) → the operations interface ([`api`]) →
//! the operations ([`ops`]) → [`domain`] + [`store`] (with [`repo`]).
//!
//! - [`domain`]: pure types and rules (hash chains, journal events, the handoff envelope,
//!   limits, signed notes and keys). No I/O, no printing.
//! - [`store`]: the storage traits ([`store::Store`], [`store::Tx`] by capability) and their
//!   SQLite and PostgreSQL implementations; SQLite's housekeeping apart.
//! - [`repo`]: finding and creating the `.locker/` directory, its config and modes.
//! - [`ops`]: the operations, each rule decided once, returning `Serialize` outcomes whose JSON
//!   is the CLI's `--json`, the HTTP body and the MCP tool result. Errors carry one
//!   [`ops::ErrorKind`] that maps to the exit code and the HTTP status in one place.
//! - [`api`]: the one interface every front end calls ([`api::Locker`]), local on [`ops`] or
//!   remote through [`client`], and the [`api::Session`] that picks which.
//! - [`client`]: the blocking HTTP client of a remote `locker serve`.
//! - [`output`]: the only module that prints.
//! - [`obs`]: logs (`tracing`, on stderr) and the server's Prometheus metrics.
//! - [`cli`]: clap definitions, parse → [`api::Locker`] → render → exit code; also the man
//!   pages, completions ([`docs`]) and SKILL.md ([`skill`]) rendered from them.
//! - [`mcp`]: `locker mcp`, the same operations as MCP tools over stdio.
//! - [`server`]: `locker serve`, the same operations over HTTP (the peers' APIs and locker's
//!   own routes).
//! - [`quest`]: `locker quest`, the demo: the whole story with real processes of this binary.
//! - [`witness`]: `locker witness`, a C2SP tlog-witness, and the client that asks witnesses to
//!   cosign.
//! - [`rpc`]: the chain node's JSON-RPC client for pay-per-pad.

pub mod api;
pub mod cli;
pub mod client;
pub mod domain;
pub mod mcp;
pub mod obs;
pub mod ops;
pub mod output;
pub mod quest;
pub mod repo;
pub mod rpc;
pub mod server;
pub mod store;
pub mod witness;

pub use cli::{docs, skill};
