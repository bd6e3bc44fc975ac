//! The route table: every route the server answers, in one place. The router is built from it,
//! and a test checks it against the OpenAPI document kept in `src/server/openapi.json`.

use axum::extract::{MatchedPath, Request};
use axum::http::Uri;
use axum::middleware::Next;
use axum::response::Response;
use axum::routing::{self, MethodRouter};
use axum::Router;

use super::http::{self, RouteName};
use super::{
    artifacts, health, journal, keys, leases, mcp, pads, plans, scrape, surface, tickets, tlog, ui,
    AppState,
};
use crate::ops::{ErrorKind, OpError};

/// The OpenAPI 3.1 document of every route.
pub const OPENAPI_JSON: &str = include_str!("openapi.json");

/// One route: its method, its path (OpenAPI syntax, which is also axum's) and its handler.
pub struct Route {
    pub method: &'static str,
    pub path: &'static str,
    pub handler: MethodRouter<AppState>,
}

fn r(method: &'static str, path: &'static str, handler: MethodRouter<AppState>) -> Route {
    Route { method, path, handler }
}

/// Every route.
pub fn route_table() -> Vec<Route> {
    use routing::{get, post};
    vec![
        // Health: agent-locker's and questlock's.
        r("get", "/health", get(health::health)),
        r("get", "/healthz", get(health::healthz)),
        // Prometheus metrics.
        r("get", "/metrics", get(scrape::scrape)),
        // Pads: agent-locker's pad API, then locker's own routes.
        r("post", "/v1/pads", post(pads::create)),
        r("post", "/v1/pads/{pad_id}/append", post(pads::append)),
        r("post", "/v1/pads/{pad_id}/seal", post(pads::seal)),
        r("get", "/v1/pads/{pad_id}/manifest", get(pads::manifest)),
        r("get", "/v1/pads/{pad_id}/blocks", get(pads::blocks)),
        r("get", "/v1/pads", get(pads::list)),
        r("post", "/v1/deposit", post(pads::deposit)),
        r("get", "/v1/pads/{pad_id}/verify", get(pads::verify)),
        r("get", "/v1/pads/{pad_id}/export", get(pads::export)),
        r("get", "/v1/pads/{pad_id}/log-proofs", get(pads::log_proofs)),
        // A pad's read tickets.
        r("post", "/v1/pads/{pad_id}/tickets", post(tickets::mint)),
        r("post", "/v1/pads/{pad_id}/tickets/revoke", post(tickets::revoke)),
        // Artifacts: questlock's API, and locker's version log.
        r("get", "/v1/artifact", get(artifacts::get)),
        r("post", "/v1/artifact", post(artifacts::publish)),
        r("get", "/v1/artifacts", get(artifacts::list)),
        r("get", "/v1/audit", get(artifacts::audit)),
        r("get", "/v1/artifact/log", get(artifacts::log)),
        // Leases: agentstate's lease API, then locker's own routes.
        r("post", "/lease", post(leases::acquire)),
        r("post", "/heartbeat", post(leases::heartbeat)),
        r("post", "/complete", post(leases::complete)),
        r("get", "/ledger", get(leases::ledger)),
        r("post", "/v1/lease/release", post(leases::release)),
        r("get", "/v1/lease", get(leases::show)),
        r("get", "/v1/leases", get(leases::list)),
        r("post", "/v1/leases/reap", post(leases::reap)),
        // Plans and steps: agentstate's, then locker's own.
        r("post", "/manifest", post(plans::commit)),
        r("post", "/event", post(plans::step)),
        r("get", "/v1/manifest", get(plans::show)),
        r("get", "/v1/manifest/diff", get(plans::diff)),
        // The journal, verification and agent keys.
        r("get", "/v1/journal", get(journal::page)),
        r("get", "/v1/verify", get(journal::verify)),
        r("get", "/v1/keys", get(keys::list)),
        r("post", "/v1/keys", post(keys::register)),
        // The transparency log.
        r("get", "/v1/checkpoint", get(tlog::checkpoint)),
        r("get", "/v1/key", get(tlog::key)),
        r("get", "/v1/proof/inclusion", get(tlog::inclusion)),
        r("get", "/v1/proof/consistency", get(tlog::consistency)),
        // MCP over Streamable HTTP: the tools of `locker mcp`, for agents elsewhere.
        r("post", "/mcp", post(mcp::serve)),
        // MCP's 2024-11-05 transport (HTTP with SSE), for clients that speak nothing newer.
        r("get", "/mcp/sse", get(mcp::sse)),
        r("post", "/mcp/messages", post(mcp::messages)),
        // This API's own description.
        r("get", "/openapi.json", get(openapi)),
        // The read-only web view for people (HTML).
        r("get", "/ui", get(ui::root)),
        r("get", "/ui/", get(ui::overview)),
        r("get", "/ui/style.css", get(ui::style)),
        r("get", "/ui/favicon.svg", get(ui::favicon)),
        r("get", "/ui/login", get(ui::login_form)),
        r("post", "/ui/login", post(ui::login)),
        r("get", "/ui/logout", get(ui::logout)),
        r("get", "/ui/journal", get(ui::journal)),
        r("get", "/ui/pads", get(ui::pads)),
        r("get", "/ui/pads/{pad_id}", get(ui::pad)),
        r("get", "/ui/work", get(ui::work)),
        r("get", "/ui/work/{work}", get(ui::work_item)),
        r("get", "/ui/artifacts", get(ui::artifacts)),
        r("get", "/ui/artifacts/{key}", get(ui::artifact)),
        r("get", "/ui/log", get(ui::log)),
    ]
}

/// `GET /openapi.json`: the OpenAPI document of every route.
async fn openapi() -> Response {
    http::raw_json(200, OPENAPI_JSON.as_bytes().to_vec())
}

/// The parsed OpenAPI document.
pub fn openapi_document() -> serde_json::Value {
    serde_json::from_str(OPENAPI_JSON).expect("src/server/openapi.json is valid JSON (tested)")
}

async fn name_route(matched: Option<MatchedPath>, req: Request, next: Next) -> Response {
    let mut resp = next.run(req).await;
    if let Some(m) = matched {
        resp.extensions_mut().insert(RouteName(m.as_str().to_owned()));
    }
    resp
}

/// Unknown paths: 404 in the path's shape (`detail` stays FastAPI's "Not Found", which
/// agent-locker's clients show).
async fn not_found(uri: Uri) -> Response {
    if ui::is_ui(uri.path()) {
        return ui::not_found();
    }
    let e = if surface::questlock_path(uri.path()) {
        OpError::not_found("route not found")
    } else {
        OpError::not_found("Not Found").hint("`GET /openapi.json` lists every route.")
    };
    surface::error(&uri, &e)
}

/// A known path with another method: 405 with `Allow` (set by the router), in the path's shape.
async fn method_not_allowed(uri: Uri) -> Response {
    if ui::is_ui(uri.path()) {
        return ui::method_not_allowed();
    }
    let detail = if surface::questlock_path(uri.path()) {
        "method not allowed"
    } else {
        "Method Not Allowed"
    };
    surface::error(&uri, &OpError::new(ErrorKind::MethodNotAllowed, "method_not_allowed", detail))
}

/// The router of a `--metrics-listen` address: `GET /metrics` without a token, nothing else.
pub fn metrics_router(state: AppState) -> Router {
    Router::new()
        .route("/metrics", routing::get(scrape::scrape_open))
        .route_layer(axum::middleware::from_fn(name_route))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .with_state(state)
}

/// The router over [`route_table`].
pub fn router(state: AppState) -> Router {
    let mut router = Router::new();
    for route in route_table() {
        router = router.route(route.path, route.handler);
    }
    router
        .route_layer(axum::middleware::from_fn(name_route))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .with_state(state)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    fn documented() -> BTreeSet<(String, String)> {
        let doc = openapi_document();
        assert_eq!(doc["openapi"].as_str().map(|v| v.starts_with("3.1")), Some(true));
        let mut set = BTreeSet::new();
        for (path, item) in doc["paths"].as_object().expect("paths") {
            for method in item.as_object().expect("path item").keys() {
                if ["get", "head", "post", "put", "patch", "delete", "options"]
                    .contains(&method.as_str())
                {
                    set.insert((method.clone(), path.clone()));
                }
            }
        }
        set
    }

    #[test]
    fn every_route_is_in_the_openapi_document_and_nothing_else() {
        let routes: BTreeSet<(String, String)> =
            route_table().iter().map(|r| (r.method.to_owned(), r.path.to_owned())).collect();
        let docs = documented();
        let missing: Vec<_> = routes.difference(&docs).collect();
        let extra: Vec<_> = docs.difference(&routes).collect();
        assert!(missing.is_empty(), "routes missing from src/server/openapi.json: {missing:?}");
        assert!(extra.is_empty(), "documented routes the server lacks: {extra:?}");
    }

    #[test]
    fn every_documented_operation_has_an_id_and_responses() {
        let doc = openapi_document();
        let mut ids = BTreeSet::new();
        for (path, item) in doc["paths"].as_object().expect("paths") {
            for (method, op) in item.as_object().expect("path item") {
                let id = op["operationId"].as_str().unwrap_or_else(|| panic!("{method} {path}"));
                assert!(ids.insert(id.to_owned()), "duplicate operationId {id}");
                assert!(op["responses"].is_object(), "{method} {path} has no responses");
            }
        }
    }
}
