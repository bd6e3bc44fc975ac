//! Which error shape a path speaks: the one error contract of the server.
//!
//! Every route answers errors with locker's flat `{"error", "detail", "hints"?}` (the CLI's
//! `--json` shape, which agent-locker's routes share), except questlock's artifact API
//! (`/healthz`, `/v1/artifact…`, `/v1/artifacts`, `/v1/audit`), which keeps questlock's
//! `{"code", "message", "current_version"?}` unless `?format=locker` asks for locker's own, and
//! the few bodies agent-locker's clients parse in FastAPI's shape (`{"detail": [...]}` for a
//! query integer that does not parse, `{"detail": "..."}` for a refused payment). The refusals
//! made before a request reaches its route (an unknown path, a method, the browser guard,
//! admission, malformed HTTP) take the shape of the path they were made on. `openapi.json`
//! names each route's surface (`x-locker-surface`) and error schema.

use axum::http::Uri;
use axum::response::Response;

use super::{artifacts, http};
use crate::ops::OpError;

/// Whether a path belongs to questlock's API (whose errors have their own shape).
pub fn questlock_path(path: &str) -> bool {
    path == "/healthz" || path.starts_with("/v1/artifact") || path.starts_with("/v1/audit")
}

/// Whether a request on questlock's paths asked for locker's own shapes (`?format=locker`).
fn native_form(query: Option<&str>) -> bool {
    http::Query::parse(query).get("format") == Some("locker")
}

/// An error answered on `uri` (before or outside its route's own handling), in its path's
/// shape.
pub fn error(uri: &Uri, e: &OpError) -> Response {
    let path = uri.path();
    if questlock_path(path) && path != "/v1/artifact/log" && !native_form(uri.query()) {
        artifacts::qerror(e)
    } else {
        http::error_response(e)
    }
}
