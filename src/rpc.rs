//! The JSON-RPC client of the chain node a pay-per-pad server checks payments on: whether the
//! node is on the configured chain ([`probe`]), and whether a transaction paid the wallet,
//! with enough confirmations ([`verify`]). The rules a receipt must meet are
//! [`crate::domain::payment`]'s; what a verified payment buys is [`crate::ops::pad::payment`]'s.

use std::time::Duration;

use serde_json::{json, Value};

use crate::domain::payment::{self as rule, Paid, Unpaid};
use crate::ops::pad::payment::{refused, rpc_unreachable, unpaid, PaymentConfig, Verified};
use crate::ops::{ErrorKind, OpResult};

/// The largest JSON-RPC answer read.
pub const MAX_RPC_BYTES: u64 = 1024 * 1024;

/// Why an RPC call failed (kept on the server; the client sees only [`crate::ops::pad::payment::RPC_UNREACHABLE`]).
#[derive(Debug, thiserror::Error)]
pub enum RpcError {
    #[error("transport: {0}")]
    Transport(String),
    #[error("HTTP status {0}")]
    Status(u16),
    #[error("malformed answer: {0}")]
    Malformed(String),
    #[error("JSON-RPC error: {0}")]
    Rpc(String),
}

/// A JSON-RPC endpoint.
pub struct Rpc {
    url: String,
    agent: ureq::Agent,
}

impl Rpc {
    /// A client for `url` whose calls each end after `timeout`.
    pub fn new(url: &str, timeout: Duration) -> Self {
        let config = ureq::Agent::config_builder()
            .proxy(None)
            .max_redirects(0)
            .http_status_as_error(false)
            .timeout_global(Some(timeout))
            .timeout_connect(Some(timeout.min(Duration::from_secs(5))))
            .user_agent(concat!("locker/", env!("CARGO_PKG_VERSION")))
            .build();
        Self { url: url.to_owned(), agent: config.into() }
    }

    /// Calls `method`; its `result` (possibly `null`).
    pub fn call(&self, method: &str, params: Value) -> Result<Value, RpcError> {
        let req = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let mut resp = self
            .agent
            .post(&self.url)
            .header("content-type", "application/json")
            .send(req.to_string().as_bytes())
            .map_err(|e| RpcError::Transport(e.to_string()))?;
        let status = resp.status().as_u16();
        if status != 200 {
            return Err(RpcError::Status(status));
        }
        let bytes = resp
            .body_mut()
            .with_config()
            .limit(MAX_RPC_BYTES)
            .read_to_vec()
            .map_err(|e| RpcError::Transport(e.to_string()))?;
        let mut v: Value =
            serde_json::from_slice(&bytes).map_err(|e| RpcError::Malformed(e.to_string()))?;
        if let Some(err) = v.get("error").filter(|e| !e.is_null()) {
            return Err(RpcError::Rpc(err.to_string()));
        }
        match v.get_mut("result") {
            Some(r) => Ok(r.take()),
            None => Err(RpcError::Malformed("no result".into())),
        }
    }

    /// `eth_chainId`.
    pub fn chain_id(&self) -> Result<u64, RpcError> {
        let v = self.call("eth_chainId", json!([]))?;
        rule::parse_quantity(&v).ok_or_else(|| RpcError::Malformed("eth_chainId".into()))
    }
}

/// Whether the node answers `eth_chainId` with the configured chain (the `/health` probe and
/// the start-up check); `Err` says why not, for the operator.
pub fn probe(cfg: &PaymentConfig, timeout: Duration) -> Result<(), String> {
    let rpc = Rpc::new(&cfg.rpc_url, timeout);
    match rpc.chain_id() {
        Ok(id) if id == cfg.chain_id => Ok(()),
        Ok(id) => Err(format!("the node is on chain {id}, not {}", cfg.chain_id)),
        Err(e) => Err(e.to_string()),
    }
}

/// Checks a proof (an already parsed hash) on chain: the node's chain, the receipt's success,
/// the transfers to the wallet and the confirmations. `log` receives what an RPC failure was,
/// for the server's log.
pub fn verify(cfg: &PaymentConfig, tx_hash: &str, log: &mut dyn FnMut(&str)) -> OpResult<Verified> {
    let rpc = Rpc::new(&cfg.rpc_url, cfg.timeout);
    let mut fail = |e: RpcError| {
        log(&format!("payment: {e}"));
        rpc_unreachable()
    };
    let chain = rpc.chain_id().map_err(&mut fail)?;
    if chain != cfg.chain_id {
        return Err(fail(RpcError::Malformed(format!(
            "the node is on chain {chain}, not {}",
            cfg.chain_id
        ))));
    }
    let receipt = rpc.call("eth_getTransactionReceipt", json!([tx_hash])).map_err(&mut fail)?;
    let paid: Paid = match rule::check_receipt(&receipt, &cfg.token, &cfg.wallet, cfg.amount_units)
    {
        Ok(p) => p,
        Err(Unpaid::Malformed) => {
            return Err(fail(RpcError::Malformed("eth_getTransactionReceipt".into())))
        }
        Err(why) => return Err(unpaid(&why)),
    };
    let head = rpc.call("eth_blockNumber", json!([])).map_err(&mut fail)?;
    let head = rule::parse_quantity(&head)
        .ok_or_else(|| fail(RpcError::Malformed("eth_blockNumber".into())))?;
    let have = rule::confirmations(head, paid.block);
    if have < cfg.confirmations {
        return Err(refused(
            ErrorKind::PaymentRequired,
            "payment_unconfirmed",
            format!(
                "payment verification failed: {have} confirmations < {} required; retry later",
                cfg.confirmations
            ),
        ));
    }
    Ok(Verified {
        tx_hash: tx_hash.to_owned(),
        payer: paid.payer,
        amount_units: paid.amount.to_string(),
        token: cfg.token.clone(),
        recipient: cfg.wallet.clone(),
        chain_id: cfg.chain_id,
        block_number: paid.block,
    })
}
