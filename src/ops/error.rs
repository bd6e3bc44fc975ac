//! How an operation fails: one [`ErrorKind`] that decides the exit code and the HTTP status in
//! one place, and the [`OpError`] every operation returns (the wire `error` code, a detail,
//! extra fields and hints).

use std::borrow::Cow;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::repo::RepoError;
use crate::store::StoreError;

/// How an error counts: one `match` maps it to the exit code and the HTTP status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// Bad command-line usage (exit 2).
    Usage,
    /// A repository, pad, artifact, lease or version that does not exist (exit 3, 404).
    NotFound,
    /// A stale version, a used operation id, a sealed pad, a held lease, a full quota (exit 4, 409).
    Conflict,
    /// A bad or missing key, ticket or token (exit 5, 401).
    Unauthorized,
    /// A credential that is valid but not allowed this (exit 5, 403).
    Forbidden,
    /// Malformed input (exit 6, 400).
    BadRequest,
    /// Input that parses but is not acceptable (exit 6, 422).
    Unprocessable,
    /// Input over a size limit (exit 6, 413).
    TooLarge,
    /// An expired pad or lease (exit 7, 410).
    Gone,
    /// A busy or unreachable store or server, or an I/O failure (exit 8, 503).
    Unavailable,
    /// A bug or unexpected stored data (exit 8, 500).
    Internal,
    /// A pay-per-pad server wants a payment, or refused the proof (exit 5, 402).
    PaymentRequired,
    /// An upstream the server depends on (the payment RPC node) failed (exit 8, 502).
    BadGateway,
    /// A request body of a type the route does not take (exit 6, 415).
    UnsupportedMediaType,
    /// A request for a host name the server does not serve: DNS rebinding (exit 5, 421).
    Misdirected,
    /// A client over its share of the server: connections or requests at once (exit 8, 429).
    TooManyRequests,
    /// An HTTP method the route does not take (exit 2, 405).
    MethodNotAllowed,
    /// A request URI over the server's limit (exit 6, 414).
    UriTooLong,
}

impl ErrorKind {
    /// The process exit code (SPEC §8).
    pub fn exit_code(self) -> u8 {
        match self {
            Self::Usage | Self::MethodNotAllowed => 2,
            Self::NotFound => 3,
            Self::Conflict => 4,
            Self::Unauthorized | Self::Forbidden | Self::PaymentRequired | Self::Misdirected => 5,
            Self::BadRequest
            | Self::Unprocessable
            | Self::TooLarge
            | Self::UnsupportedMediaType
            | Self::UriTooLong => 6,
            Self::Gone => 7,
            Self::Unavailable | Self::Internal | Self::BadGateway | Self::TooManyRequests => 8,
        }
    }

    /// The HTTP status.
    pub fn http_status(self) -> u16 {
        match self {
            Self::Usage | Self::BadRequest => 400,
            Self::NotFound => 404,
            Self::Conflict => 409,
            Self::Unauthorized => 401,
            Self::Forbidden => 403,
            Self::Unprocessable => 422,
            Self::TooLarge => 413,
            Self::Gone => 410,
            Self::Unavailable => 503,
            Self::Internal => 500,
            Self::PaymentRequired => 402,
            Self::BadGateway => 502,
            Self::UnsupportedMediaType => 415,
            Self::Misdirected => 421,
            Self::TooManyRequests => 429,
            Self::MethodNotAllowed => 405,
            Self::UriTooLong => 414,
        }
    }

    /// The kind an HTTP status stands for (the inverse of [`Self::http_status`]), for the
    /// remote client.
    pub fn from_http_status(status: u16) -> Self {
        match status {
            404 => Self::NotFound,
            409 => Self::Conflict,
            401 => Self::Unauthorized,
            403 => Self::Forbidden,
            413 => Self::TooLarge,
            422 => Self::Unprocessable,
            410 => Self::Gone,
            402 => Self::PaymentRequired,
            415 => Self::UnsupportedMediaType,
            421 => Self::Misdirected,
            429 => Self::TooManyRequests,
            405 => Self::MethodNotAllowed,
            414 => Self::UriTooLong,
            400..=499 => Self::BadRequest,
            500 => Self::Internal,
            502 => Self::BadGateway,
            _ => Self::Unavailable,
        }
    }
}

/// A failed operation: its kind, the wire `error` code (the peer's, where one exists), a
/// human `detail`, extra fields such as `current_version` or `holder`, and hints.
#[derive(Debug, Clone, PartialEq)]
pub struct OpError {
    pub kind: ErrorKind,
    pub code: Cow<'static, str>,
    pub detail: String,
    pub fields: Map<String, Value>,
    pub hints: Vec<String>,
}

impl std::fmt::Display for OpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.detail)
    }
}

impl std::error::Error for OpError {}

impl OpError {
    pub fn new(
        kind: ErrorKind,
        code: impl Into<Cow<'static, str>>,
        detail: impl Into<String>,
    ) -> Self {
        Self {
            kind,
            code: code.into(),
            detail: detail.into(),
            fields: Map::new(),
            hints: Vec::new(),
        }
    }
    pub fn not_found(detail: impl Into<String>) -> Self {
        Self::new(ErrorKind::NotFound, "not_found", detail)
    }
    pub fn conflict(detail: impl Into<String>) -> Self {
        Self::new(ErrorKind::Conflict, "conflict", detail)
    }
    pub fn unauthorized(detail: impl Into<String>) -> Self {
        Self::new(ErrorKind::Unauthorized, "unauthorized", detail)
    }
    pub fn forbidden(detail: impl Into<String>) -> Self {
        Self::new(ErrorKind::Forbidden, "forbidden", detail)
    }
    pub fn bad_request(detail: impl Into<String>) -> Self {
        Self::new(ErrorKind::BadRequest, "bad_request", detail)
    }
    pub fn unprocessable(detail: impl Into<String>) -> Self {
        Self::new(ErrorKind::Unprocessable, "unprocessable", detail)
    }
    pub fn too_large(detail: impl Into<String>) -> Self {
        Self::new(ErrorKind::TooLarge, "payload_too_large", detail)
    }
    pub fn gone(detail: impl Into<String>) -> Self {
        Self::new(ErrorKind::Gone, "gone", detail)
    }
    pub fn unavailable(detail: impl Into<String>) -> Self {
        Self::new(ErrorKind::Unavailable, "unavailable", detail)
    }
    pub fn internal(detail: impl Into<String>) -> Self {
        Self::new(ErrorKind::Internal, "internal", detail)
    }
    pub fn usage(detail: impl Into<String>) -> Self {
        Self::new(ErrorKind::Usage, "usage", detail)
    }
    /// Stored data that does not match its digest (exit 8, 500); never returned as content.
    pub fn integrity(detail: impl Into<String>) -> Self {
        Self::new(ErrorKind::Internal, "integrity", detail)
            .hint("Run `locker verify` to check the repository's integrity.")
    }

    /// Adds a field to the JSON error object.
    #[must_use]
    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.fields.insert(key.to_owned(), value.into());
        self
    }

    /// Adds a hint for the user.
    #[must_use]
    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hints.push(hint.into());
        self
    }

    /// The flat JSON error object: `{"error", "detail", ...fields, "hints"?}` ([`ErrorObject`]).
    pub fn to_json(&self) -> Value {
        let body = ErrorObject {
            error: &self.code,
            detail: &self.detail,
            fields: &self.fields,
            hints: &self.hints,
        };
        serde_json::to_value(body).unwrap_or_else(|_| {
            // Strings and JSON values always serialise; keep the contract if they ever do not.
            serde_json::json!({"error": self.code, "detail": self.detail})
        })
    }
}

/// The one error object: what every command prints on stderr under `--json` (then exits with
/// the code of its class, 2–8), and the body of every error answer of `locker serve`.
#[derive(Debug, Serialize, schemars::JsonSchema)]
#[schemars(title = "Error")]
pub struct ErrorObject<'a> {
    /// The error's code, a short snake_case word for scripts to match (`usage`, `not_found`,
    /// `version_conflict`, `lease_held`, `unauthorized`, `invalid`, `gone`, `unavailable`, …);
    /// the exit code gives its class.
    pub error: &'a str,
    /// What went wrong, in one sentence for people.
    pub detail: &'a str,
    /// Fields some errors add, named in their documentation (`current_version` of a
    /// `version_conflict`, `holder` of a `lease_held`, …).
    #[serde(flatten)]
    pub fields: &'a Map<String, Value>,
    /// What to do about it, when locker knows (absent when there is no hint).
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    pub hints: &'a [String],
}

/// The error code of a store whose files are damaged, or one of whose rows cannot be read (see
/// [`StoreError::Damaged`] and [`StoreError::Unreadable`]).
pub const CORRUPT_STORE: &str = "corrupt_store";

/// The kind a store error is counted under in `locker_store_errors_total`.
pub fn store_error_kind(e: &StoreError) -> &'static str {
    match e {
        StoreError::Busy => "busy",
        StoreError::Io(_)
        | StoreError::Unreachable(_)
        | StoreError::DiskFull
        | StoreError::ReadOnly
        | StoreError::Backend { .. } => "storage",
        StoreError::Corrupt(_)
        | StoreError::Damaged(_)
        | StoreError::Unreadable(_)
        | StoreError::BlobMissing { .. }
        | StoreError::Duplicate(_) => "corrupt",
        StoreError::SchemaTooNew { .. }
        | StoreError::Uninitialized(_)
        | StoreError::Unsupported(_) => "schema",
    }
}

/// Every kind `store_error_kind` gives (their counters start at 0).
pub const STORE_ERROR_KINDS: &[&str] = &["busy", "storage", "corrupt", "schema"];

impl From<StoreError> for OpError {
    fn from(e: StoreError) -> Self {
        crate::obs::metrics::metrics().store_errors.inc(&[store_error_kind(&e)]);
        match e {
            StoreError::SchemaTooNew { .. } => {
                Self::new(ErrorKind::Unavailable, "schema_too_new", e.to_string())
            }
            StoreError::Busy => Self::new(ErrorKind::Unavailable, "busy", e.to_string())
                .hint("Another process held the repository's write lock for a long time; retry."),
            StoreError::DiskFull => Self::new(ErrorKind::Unavailable, "disk_full", e.to_string())
                .hint("Free some space; nothing was written."),
            StoreError::ReadOnly => Self::new(ErrorKind::Unavailable, "read_only", e.to_string()),
            StoreError::Io(_) => Self::new(ErrorKind::Unavailable, "io", e.to_string()),
            StoreError::Unreachable(_) => {
                Self::new(ErrorKind::Unavailable, "database_unavailable", e.to_string())
                    .with("retry", true)
                    .hint(
                        "Check that the database server is up and reachable from this host; \
                         locker connects again on its own once it is. A write refused with this \
                         error changed nothing unless it says it may have been committed.",
                    )
            }
            StoreError::BlobMissing { .. } => Self::integrity(e.to_string()),
            StoreError::Unsupported(_) => {
                Self::new(ErrorKind::Usage, "unsupported_store", e.to_string())
            }
            StoreError::Damaged(_) | StoreError::Unreadable(_) => Self::new(ErrorKind::Internal, CORRUPT_STORE, e.to_string())
                .hint("Run `locker verify` to check the repository; restore it from a backup (`locker restore`)."),
            StoreError::Uninitialized(_) => {
                Self::new(ErrorKind::Unprocessable, "empty_store", e.to_string()).hint(
                    "Only `locker init` creates a repository's schema; this one is refused rather \
                     than made anew. Run `locker doctor`, and restore the newest backup \
                     (`locker restore BACKUP --yes`).",
                )
            }
            StoreError::Corrupt(_) | StoreError::Duplicate(_) | StoreError::Backend { .. } => {
                Self::internal(e.to_string())
                    .hint("Run `locker verify` to check the repository's integrity.")
            }
        }
    }
}

impl From<RepoError> for OpError {
    fn from(e: RepoError) -> Self {
        match e {
            RepoError::NotFound(_) | RepoError::NotFoundAt(_) => {
                Self::new(ErrorKind::NotFound, "no_repository", e.to_string()).hint(
                    "Run `locker init` to create one, or pass `-R <path>` or set `LOCKER_DIR`.",
                )
            }
            RepoError::Symlink(_) => Self::new(ErrorKind::Forbidden, "symlink", e.to_string()),
            RepoError::Invalid { .. } | RepoError::FormatTooNew { .. } => {
                Self::new(ErrorKind::Unavailable, "bad_repository", e.to_string())
            }
            RepoError::Io { .. } => Self::new(ErrorKind::Unavailable, "io", e.to_string()),
            RepoError::RolledBack(rb) => rolled_back(&rb),
            RepoError::Store(s) => s.into(),
        }
    }
}

/// The refusal of a database that lost entries the log key already signed (exit 6).
pub fn rolled_back(rb: &crate::repo::mark::Rollback) -> OpError {
    OpError::new(ErrorKind::Unprocessable, "rolled_back", rb.to_string())
        .with("journal_entries", rb.journal_entries)
        .with("mark_size", rb.mark_size)
        .with("mark_root", rb.mark_root.to_hex())
        .hint("Run `locker doctor`: restore the newest backup (`locker restore BACKUP --yes`).")
        .hint(
            "If this state is a restore you made on purpose, accept it with `locker checkpoint \
             --accept-rollback` (journaled, and signed with the log key); readers who pinned a \
             later checkpoint will then see a fork.",
        )
}

pub type OpResult<T> = Result<T, OpError>;
