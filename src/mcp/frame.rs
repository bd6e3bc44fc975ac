//! The stdio framing around rmcp: one JSON-RPC message per line. rmcp drops a line it cannot
//! parse without a word; JSON-RPC 2.0 wants an answer, so every line is looked at first: one
//! that is not JSON is answered `-32700 Parse error`, one that is JSON but no JSON-RPC 2.0
//! message `-32600 Invalid Request` (both with `id: null` unless the request's id could be
//! read), and only valid messages reach rmcp. Everything written to stdout goes through one
//! task, a whole line at a time, so an error never lands inside one of rmcp's messages.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use serde_json::{json, Value};
use tokio::io::{
    AsyncBufReadExt as _, AsyncReadExt as _, AsyncWrite, AsyncWriteExt as _, DuplexStream,
};
use tokio::sync::mpsc::UnboundedSender;

/// Longest line read (a tool call carries at most a few MiB of payload).
const MAX_LINE_BYTES: usize = 64 * 1024 * 1024;

/// The answer a line gets instead of reaching rmcp, if it is not a valid message.
pub fn refusal(line: &[u8]) -> Option<Value> {
    let error = |id: Value, code: i64, message: &str, data: String| json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message, "data": data}});
    let v: Value = match serde_json::from_slice(line) {
        Ok(v) => v,
        Err(e) => return Some(error(Value::Null, -32700, "Parse error", e.to_string())),
    };
    let Value::Object(m) = &v else {
        return Some(error(
            Value::Null,
            -32600,
            "Invalid Request",
            "a message is one JSON object".into(),
        ));
    };
    let id = match m.get("id") {
        Some(id @ (Value::String(_) | Value::Number(_))) => id.clone(),
        _ => Value::Null,
    };
    if m.get("jsonrpc") != Some(&json!("2.0")) {
        return Some(error(id, -32600, "Invalid Request", "`jsonrpc` must be \"2.0\"".into()));
    }
    let request = m.get("method").is_some_and(Value::is_string);
    let response = m.contains_key("id") && (m.contains_key("result") || m.contains_key("error"));
    if !request && !response {
        return Some(error(
            id,
            -32600,
            "Invalid Request",
            "a message has a string `method`, or an `id` with a `result` or an `error`".into(),
        ));
    }
    if m.get("id").is_some_and(|i| !(i.is_string() || i.is_number() || i.is_null())) {
        return Some(error(
            Value::Null,
            -32600,
            "Invalid Request",
            "`id` must be a string or a number".into(),
        ));
    }
    None
}

/// Reads stdin line by line: valid messages go on to rmcp through `to_rmcp`, refusals to
/// `out`. Ends (closing `to_rmcp`) at the end of stdin.
pub async fn filter_stdin(mut to_rmcp: DuplexStream, out: UnboundedSender<Vec<u8>>) {
    let mut stdin = tokio::io::BufReader::new(tokio::io::stdin());
    let mut line = Vec::new();
    loop {
        line.clear();
        let read = (&mut stdin).take(MAX_LINE_BYTES as u64).read_until(b'\n', &mut line).await;
        match read {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let text = line.trim_ascii();
        if text.is_empty() {
            continue;
        }
        match refusal(text) {
            Some(answer) => {
                let mut bytes = answer.to_string().into_bytes();
                bytes.push(b'\n');
                let _ = out.send(bytes);
            }
            None => {
                if to_rmcp.write_all(text).await.is_err() || to_rmcp.write_all(b"\n").await.is_err()
                {
                    break;
                }
            }
        }
    }
    let _ = to_rmcp.shutdown().await;
}

/// Writes every line sent on `lines` to stdout, whole, until every sender is gone.
pub async fn write_stdout(mut lines: tokio::sync::mpsc::UnboundedReceiver<Vec<u8>>) {
    let mut stdout = tokio::io::stdout();
    while let Some(line) = lines.recv().await {
        if stdout.write_all(&line).await.is_err() || stdout.flush().await.is_err() {
            break;
        }
    }
}

/// rmcp's side of stdout: bytes are passed on a whole line at a time.
pub struct Lines {
    out: UnboundedSender<Vec<u8>>,
    pending: Vec<u8>,
}

impl Lines {
    pub fn new(out: UnboundedSender<Vec<u8>>) -> Self {
        Self { out, pending: Vec::new() }
    }
}

impl AsyncWrite for Lines {
    fn poll_write(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.pending.extend_from_slice(buf);
        while let Some(end) = self.pending.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.pending.drain(..=end).collect();
            if self.out.send(line).is_err() {
                return Poll::Ready(Err(io::ErrorKind::BrokenPipe.into()));
            }
        }
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

#[cfg(test)]
mod tests {
    use super::refusal;

    fn code(line: &str) -> Option<(i64, serde_json::Value)> {
        refusal(line.as_bytes()).map(|v| (v["error"]["code"].as_i64().unwrap(), v["id"].clone()))
    }

    #[test]
    fn lines_that_are_no_message_are_answered() {
        assert_eq!(code("{not json"), Some((-32700, serde_json::Value::Null)));
        assert_eq!(code("\u{1}"), Some((-32700, serde_json::Value::Null)));
        assert_eq!(code("[]"), Some((-32600, serde_json::Value::Null)));
        assert_eq!(code("42"), Some((-32600, serde_json::Value::Null)));
        assert_eq!(code(r#"{"id":7,"method":"ping"}"#), Some((-32600, 7.into())));
        assert_eq!(code(r#"{"jsonrpc":"2.0","id":"a"}"#), Some((-32600, "a".into())));
        assert_eq!(code(r#"{"jsonrpc":"2.0","id":{},"method":"x"}"#).unwrap().0, -32600);
        assert_eq!(code(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#), None);
        assert_eq!(code(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#), None);
        assert_eq!(code(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#), None);
    }
}
