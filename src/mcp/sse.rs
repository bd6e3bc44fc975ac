//! MCP's first HTTP transport (protocol 2024-11-05, "HTTP with SSE"), for the clients that
//! speak nothing newer: `GET` opens a stream of server-sent events whose first event names
//! where to `POST` the client's messages (`messages?session_id=ID`, relative to the stream's
//! URL); each POST is answered `202 Accepted`, and the answer to a request comes on the
//! stream. rmcp no longer ships this transport, so this module is it: a session is one MCP
//! server ([`McpServer::served`]) behind two channels, for as long as its stream is open.
//!
//! A session answers its opener only: a POST must come from the caller that opened the stream
//! (the server says who that is), or it is refused as if the session did not exist, so one
//! agent never reads another's answers. Each POST's tools still act as that POST's own caller.

use std::collections::HashMap;
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http_body::Frame;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt as _, Full};
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::service::RoleServer;
use rmcp::transport::Transport;
use rmcp::ServiceExt as _;
use tokio::sync::mpsc;

use super::{Caller, McpServer, ToolSelection};

/// How often an idle stream carries a comment, so that proxies keep it open.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// Messages waiting for the server or for the stream, per session.
const QUEUE: usize = 64;

type Response = ::http::Response<BoxBody<Bytes, Infallible>>;

/// The open sessions: their ids, who opened each, and where its messages go.
#[derive(Default)]
pub struct Sessions {
    open: Mutex<HashMap<String, Session>>,
}

struct Session {
    /// Who opened it (the server's name for the caller).
    owner: String,
    to_server: mpsc::Sender<ClientJsonRpcMessage>,
}

impl Sessions {
    /// Opens a session for `owner` offering the tools `selection` picks: the response is its
    /// event stream, whose first event is the endpoint to post to.
    pub fn open(self: &Arc<Self>, selection: ToolSelection, owner: String) -> Response {
        let id = crate::domain::secret::random_id();
        let (to_server, from_client) = mpsc::channel(QUEUE);
        let (to_client, from_server) = mpsc::channel(QUEUE);
        if let Ok(mut open) = self.open.lock() {
            open.insert(id.clone(), Session { owner, to_server });
        }
        tokio::spawn(async move {
            let Ok(server) = McpServer::served(selection) else { return };
            let transport = Channels { to_client, from_client };
            if let Ok(running) = server.serve(transport).await {
                let _ = running.waiting().await;
            }
        });
        let endpoint = format!("event: endpoint\ndata: messages?session_id={id}\n\n");
        let body = Stream {
            first: Some(Bytes::from(endpoint)),
            from_server,
            keep_alive: tokio::time::interval_at(
                tokio::time::Instant::now() + KEEP_ALIVE,
                KEEP_ALIVE,
            ),
            _open: OpenSession { sessions: Arc::clone(self), id },
        };
        let mut r = ::http::Response::new(body.boxed());
        let h = r.headers_mut();
        h.insert(
            ::http::header::CONTENT_TYPE,
            ::http::HeaderValue::from_static("text/event-stream"),
        );
        h.insert(::http::header::CACHE_CONTROL, ::http::HeaderValue::from_static("no-cache"));
        r
    }

    /// Delivers one message, posted by `owner` to session `id`, whose tools act as `caller`:
    /// 202, or 404 when no such session is open for `owner`, or 400 for what is no JSON-RPC
    /// message (with JSON-RPC's `-32700` or `-32600`, as `locker mcp` answers such a line).
    pub async fn post(&self, id: &str, owner: &str, body: &[u8], caller: Caller) -> Response {
        if let Some(refusal) = super::frame::refusal(body) {
            return json(400, refusal.to_string());
        }
        let to_server = self.open.lock().ok().and_then(|open| {
            open.get(id).filter(|s| s.owner == owner).map(|s| s.to_server.clone())
        });
        let Some(to_server) = to_server else {
            return json(
                404,
                r#"{"error":"not_found","detail":"no such MCP session is open for this caller","hints":["Open one with GET on the SSE endpoint, with the same token."]}"#
                    .to_owned(),
            );
        };
        let mut message: ClientJsonRpcMessage = match serde_json::from_slice(body) {
            Ok(m) => m,
            Err(e) => {
                let refusal = serde_json::json!({"jsonrpc": "2.0", "id": null,
                    "error": {"code": -32600, "message": "Invalid Request", "data": e.to_string()}});
                return json(400, refusal.to_string());
            }
        };
        message.insert_extension(caller);
        if to_server.send(message).await.is_err() {
            return json(
                404,
                r#"{"error":"not_found","detail":"the MCP session has ended"}"#.to_owned(),
            );
        }
        let mut r = ::http::Response::new(Full::new(Bytes::from_static(b"Accepted")).boxed());
        *r.status_mut() = ::http::StatusCode::ACCEPTED;
        r
    }

    /// Ends every session (the server is stopping): their streams end once their servers do.
    pub fn close_all(&self) {
        if let Ok(mut open) = self.open.lock() {
            open.clear();
        }
    }
}

fn json(status: u16, body: String) -> Response {
    let mut r = ::http::Response::new(Full::new(Bytes::from(body)).boxed());
    *r.status_mut() =
        ::http::StatusCode::from_u16(status).unwrap_or(::http::StatusCode::BAD_REQUEST);
    r.headers_mut()
        .insert(::http::header::CONTENT_TYPE, ::http::HeaderValue::from_static("application/json"));
    r
}

/// rmcp's side of a session: what it sends goes to the stream, what it receives was posted.
struct Channels {
    to_client: mpsc::Sender<ServerJsonRpcMessage>,
    from_client: mpsc::Receiver<ClientJsonRpcMessage>,
}

impl Transport<RoleServer> for Channels {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        let to_client = self.to_client.clone();
        async move {
            to_client
                .send(item)
                .await
                .map_err(|_| std::io::Error::other("the client's event stream is closed"))
        }
    }

    fn receive(
        &mut self,
    ) -> impl std::future::Future<Output = Option<ClientJsonRpcMessage>> + Send {
        self.from_client.recv()
    }

    fn close(&mut self) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send {
        self.from_client.close();
        std::future::ready(Ok(()))
    }
}

/// Removes its session when its stream goes (the client left, or the server stops), which
/// ends the session's server.
struct OpenSession {
    sessions: Arc<Sessions>,
    id: String,
}

impl Drop for OpenSession {
    fn drop(&mut self) {
        if let Ok(mut open) = self.sessions.open.lock() {
            open.remove(&self.id);
        }
    }
}

/// A session's event stream: the endpoint, then each message of its server, with a comment
/// when idle; it ends when the server does.
struct Stream {
    first: Option<Bytes>,
    from_server: mpsc::Receiver<ServerJsonRpcMessage>,
    keep_alive: tokio::time::Interval,
    _open: OpenSession,
}

impl http_body::Body for Stream {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        if let Some(first) = self.first.take() {
            return Poll::Ready(Some(Ok(Frame::data(first))));
        }
        match self.from_server.poll_recv(cx) {
            Poll::Ready(Some(message)) => {
                let data = serde_json::to_string(&message).unwrap_or_default();
                let event = format!("event: message\ndata: {data}\n\n");
                return Poll::Ready(Some(Ok(Frame::data(Bytes::from(event)))));
            }
            Poll::Ready(None) => return Poll::Ready(None),
            Poll::Pending => {}
        }
        match self.keep_alive.poll_tick(cx) {
            Poll::Ready(_) => Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(b": ping\n\n"))))),
            Poll::Pending => Poll::Pending,
        }
    }
}
