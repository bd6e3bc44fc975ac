//! The connection below HTTP: hyper's own refusals (a request it cannot parse: two
//! `Content-Length`s, a `Transfer-Encoding` it does not take, headers over the buffer (431), a
//! URI too long (414)) are written by hyper with an empty body; [`JsonRefusals`] rewrites them
//! into the documented JSON error, and a peer over its connection share gets a 429 the same
//! way.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// The whole response for a request refused below HTTP routing: `status` with a flat JSON
/// error body, closing the connection.
pub fn refusal(status: u16, reason: &str, code: &str, detail: &str) -> Vec<u8> {
    let body = serde_json::json!({ "error": code, "detail": detail }).to_string();
    format!(
        "HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\nconnection: close\r\n\
         content-length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// What hyper's bodiless refusal of `status` becomes.
fn rewrite(head: &[u8]) -> Option<Vec<u8>> {
    let status = head.strip_prefix(b"HTTP/1.1 ")?.get(..3)?;
    let text = std::str::from_utf8(head).ok()?;
    let lower = text.to_ascii_lowercase();
    if !text.ends_with("\r\n\r\n") || !lower.contains("\r\ncontent-length: 0\r\n") {
        return None;
    }
    Some(match status {
        b"400" => refusal(
            400,
            "Bad Request",
            "bad_request",
            "malformed HTTP/1.1 request (a bad request line or header, two Content-Length \
             headers, or a Transfer-Encoding other than chunked); it was not read",
        ),
        b"414" => refusal(414, "URI Too Long", "uri_too_long", "the request's URI is too long"),
        b"431" => refusal(
            431,
            "Request Header Fields Too Large",
            "headers_too_large",
            "the request's headers are too large",
        ),
        b"505" => refusal(
            505,
            "HTTP Version Not Supported",
            "http_version_not_supported",
            "locker serves HTTP/1.1 (and 1.0)",
        ),
        _ => return None,
    })
}

/// An I/O stream whose writes of hyper's empty-bodied refusals are replaced by JSON ones.
pub struct JsonRefusals<T> {
    io: T,
    pending: Vec<u8>,
}

impl<T> JsonRefusals<T> {
    pub fn new(io: T) -> Self {
        Self { io, pending: Vec::new() }
    }
}

impl<T: AsyncWrite + Unpin> JsonRefusals<T> {
    /// Writes what is pending; ready once nothing is.
    fn drain(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while !self.pending.is_empty() {
            match Pin::new(&mut self.io).poll_write(cx, &self.pending) {
                Poll::Ready(Ok(0)) => return Poll::Ready(Err(io::ErrorKind::WriteZero.into())),
                Poll::Ready(Ok(n)) => {
                    self.pending.drain(..n);
                }
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Pending => return Poll::Pending,
            }
        }
        Poll::Ready(Ok(()))
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for JsonRefusals<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for JsonRefusals<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        if self.drain(cx)?.is_pending() {
            return Poll::Pending;
        }
        if let Some(json) = rewrite(buf) {
            self.pending = json;
            // Whatever is not written now is written by the flush hyper makes next.
            let _ = self.drain(cx)?;
            return Poll::Ready(Ok(buf.len()));
        }
        Pin::new(&mut self.io).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if self.drain(cx)?.is_pending() {
            return Poll::Pending;
        }
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if self.drain(cx)?.is_pending() {
            return Poll::Pending;
        }
        Pin::new(&mut self.io).poll_shutdown(cx)
    }

    fn is_write_vectored(&self) -> bool {
        // hyper then writes each response head in one buffer, which `rewrite` looks at whole.
        false
    }
}

#[cfg(test)]
mod tests {
    use super::rewrite;

    #[test]
    fn only_bodiless_refusals_are_rewritten() {
        let hyper = b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\ndate: x\r\n\r\n";
        let json = String::from_utf8(rewrite(hyper).unwrap()).unwrap();
        assert!(json.starts_with("HTTP/1.1 400 Bad Request\r\n"), "{json}");
        assert!(json.ends_with(r#"}"#) && json.contains(r#"{"error":"bad_request","detail":"#));
        assert!(rewrite(b"HTTP/1.1 431 x\r\ncontent-length: 0\r\n\r\n").is_some());
        // locker's own answers carry their bodies.
        assert!(rewrite(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 12\r\n\r\n").is_none());
        assert!(rewrite(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n").is_none());
        assert!(rewrite(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n{}").is_none());
    }
}
