//! The route table: every route the server answers, in one place. The router is built from it,
//! and a test checks it against the OpenAPI document kept in `src/server/openapi.json`.

use axum::extract::{MatchedPath, Request};
use axum::http::Uri;
use axum::middleware::Next;
use axum::response::Response;
use axum::routing::{self, MethodRouter};
use axum::Router;
use serde_json::json;

use super::http::{self, RouteName};
use super::{artifacts, leases, native, pads, tlog, AppState};

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
        // agent-locker's pad API.
        r("get", "/health", get(pads::health)),
        r("post", "/v1/pads", post(pads::create)),
        r("post", "/v1/pads/{pad_id}/append", post(pads::append)),
        r("post", "/v1/pads/{pad_id}/seal", post(pads::seal)),
        r("post", "/v1/pads/{pad_id}/tickets", post(pads::tickets)),
        r("get", "/v1/pads/{pad_id}/manifest", get(pads::manifest)),
        r("get", "/v1/pads/{pad_id}/blocks", get(pads::blocks)),
        // questlock's artifact API.
        r("get", "/healthz", get(artifacts::healthz)),
        r("get", "/v1/artifact", get(artifacts::get)),
        r("post", "/v1/artifact", post(artifacts::publish)),
        r("get", "/v1/artifacts", get(artifacts::list)),
        r("get", "/v1/audit", get(artifacts::audit)),
        // agentstate's lease API.
        r("post", "/lease", post(leases::acquire)),
        r("post", "/heartbeat", post(leases::heartbeat)),
        r("post", "/complete", post(leases::complete)),
        r("post", "/manifest", post(leases::manifest)),
        r("post", "/event", post(leases::event)),
        r("get", "/ledger", get(leases::ledger)),
        // locker's own routes.
        r("post", "/v1/lease/release", post(leases::release)),
        r("get", "/v1/lease", get(leases::show)),
        r("get", "/v1/leases", get(leases::list)),
        r("post", "/v1/leases/reap", post(leases::reap)),
        r("get", "/v1/manifest", get(leases::plan_show)),
        r("get", "/v1/manifest/diff", get(leases::plan_diff)),
        r("get", "/v1/artifact/log", get(artifacts::log)),
        r("get", "/v1/pads", get(native::list)),
        r("post", "/v1/deposit", post(native::deposit)),
        r("post", "/v1/pads/{pad_id}/tickets/revoke", post(native::revoke_ticket)),
        r("get", "/v1/pads/{pad_id}/verify", get(native::verify_pad)),
        r("get", "/v1/pads/{pad_id}/export", get(native::export)),
        r("get", "/v1/verify", get(native::verify_repository)),
        r("get", "/v1/journal", get(native::journal)),
        r("get", "/v1/keys", get(native::keys)),
        r("get", "/v1/checkpoint", get(tlog::checkpoint)),
        r("get", "/v1/key", get(tlog::key)),
        r("get", "/v1/proof/inclusion", get(tlog::inclusion)),
        r("get", "/v1/proof/consistency", get(tlog::consistency)),
        r("get", "/v1/pads/{pad_id}/log-proofs", get(tlog::pad_log_proofs)),
        r("get", "/openapi.json", get(native::openapi)),
    ]
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

/// Whether a path belongs to questlock's API (whose errors have their own shape).
fn questlock_path(path: &str) -> bool {
    path == "/healthz" || path.starts_with("/v1/artifact") || path.starts_with("/v1/audit")
}

/// Unknown paths: FastAPI's `{"detail": "Not Found"}` (questlock's shape on its paths).
async fn not_found(uri: Uri) -> Response {
    let mut resp = if questlock_path(uri.path()) {
        http::json(404, &json!({"code": "not_found", "message": "route not found"}))
    } else {
        http::json(404, &json!({"detail": "Not Found"}))
    };
    http::tag_error(&mut resp, "not_found");
    resp
}

/// A known path with another method: 405 with `Allow` (set by the router).
async fn method_not_allowed(uri: Uri) -> Response {
    let mut resp = if questlock_path(uri.path()) {
        http::json(405, &json!({"code": "method_not_allowed", "message": "method not allowed"}))
    } else {
        http::json(405, &json!({"detail": "Method Not Allowed"}))
    };
    http::tag_error(&mut resp, "method_not_allowed");
    resp
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
