//! Pay-per-pad (`locker serve --payment-mode txid`): the configuration, the 402 challenge,
//! a verified payment and the peer's statuses and `{"detail": …}` texts for every refusal.
//!
//! The receipt rule itself is pure and lives in [`crate::domain::payment`]; the server asks the
//! chain node for the facts with `crate::rpc`. The spent-hash record is written by
//! [`crate::ops::pad::create_paid`], in the same transaction as the pad.

use std::time::Duration;

use serde::Serialize;
use serde_json::{json, Value};

use crate::domain::payment::{self as rule, Unpaid};
use crate::ops::{ErrorKind, OpError, OpResult};

/// The `detail` of every RPC failure; what went wrong is never sent to the client.
pub const RPC_UNREACHABLE: &str = "rpc provider unreachable";

/// A checked pay-per-pad configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaymentConfig {
    /// The receiving wallet, lower-case `0x` address.
    pub wallet: String,
    /// The JSON-RPC endpoint.
    pub rpc_url: String,
    /// The token contract, lower-case `0x` address.
    pub token: String,
    /// The price in token units.
    pub amount_units: u128,
    /// How many blocks (the transaction's included) must exist.
    pub confirmations: u64,
    /// The chain the node must be on.
    pub chain_id: u64,
    /// How long one RPC call may take.
    pub timeout: Duration,
}

impl PaymentConfig {
    /// Checks the operator's settings; every problem is a usage error (exit 2).
    pub fn new(
        wallet: Option<&str>,
        rpc_url: &str,
        token: &str,
        amount_units: &str,
        confirmations: u64,
        chain_id: u64,
    ) -> OpResult<Self> {
        let wallet = wallet.filter(|w| !w.trim().is_empty()).ok_or_else(|| {
            OpError::usage("--payment-mode txid needs the receiving wallet")
                .hint("Pass --payment-wallet 0x… or set LOCKER_PAYMENT_WALLET.")
        })?;
        let wallet = rule::parse_address(wallet.trim()).ok_or_else(|| {
            OpError::usage(format!(
                "--payment-wallet `{wallet}` is not a 0x address of 40 hex digits"
            ))
        })?;
        if wallet == format!("0x{}", "0".repeat(40)) {
            return Err(OpError::usage("--payment-wallet must not be the zero address"));
        }
        let token = rule::parse_address(token.trim()).ok_or_else(|| {
            OpError::usage(format!(
                "--payment-token `{token}` is not a 0x address of 40 hex digits"
            ))
        })?;
        let amount_units = amount_units
            .trim()
            .parse::<u128>()
            .ok()
            .filter(|n| *n > 0)
            .ok_or_else(|| {
                OpError::usage(format!(
                    "--payment-amount `{amount_units}` is not a positive whole number of token units"
                ))
                .hint("The amount is in the token's smallest units: 2000 is 0.002 USDC.")
            })?;
        let lower = rpc_url.to_ascii_lowercase();
        if !(lower.starts_with("http://") || lower.starts_with("https://"))
            || rpc_url.parse::<ureq::http::Uri>().is_err()
        {
            return Err(OpError::usage(format!(
                "--payment-rpc-url `{rpc_url}` is not an http:// or https:// URL"
            )));
        }
        if confirmations == 0 {
            return Err(OpError::usage("--payment-confirmations must be at least 1"));
        }
        Ok(Self {
            wallet,
            rpc_url: rpc_url.to_owned(),
            token,
            amount_units,
            confirmations,
            chain_id,
            timeout: Duration::from_secs(5),
        })
    }

    /// The RPC URL's host, for logs (its path or query may hold an API key).
    pub fn rpc_host(&self) -> String {
        self.rpc_url
            .parse::<ureq::http::Uri>()
            .ok()
            .and_then(|u| u.authority().map(|a| a.host().to_owned()))
            .unwrap_or_else(|| "?".into())
    }

    /// The network name the challenge gives.
    pub fn network(&self) -> &'static str {
        match self.chain_id {
            rule::BASE_CHAIN_ID => "base",
            84532 => "base-sepolia",
            _ => "evm",
        }
    }

    /// The 402 challenge: the peer's body, and its `WWW-Authenticate` value.
    pub fn challenge(&self) -> (Value, String) {
        let amount = rule::format_units(self.amount_units);
        let network = self.network();
        let body = json!({
            "error": "payment_required",
            "network": network,
            "chain_id": self.chain_id,
            "currency": "USDC",
            "token_contract": self.token,
            "amount": amount,
            "amount_units": u64::try_from(self.amount_units).map_or_else(|_| json!(self.amount_units.to_string()), Value::from),
            "recipient": self.wallet,
            "confirmations": self.confirmations,
            "instructions": format!(
                "Send {amount} USDC on Base to {}, then retry with the header X-Payment-Proof: <transaction_hash>.",
                self.wallet
            ),
        });
        let header = format!(
            "Locker-Txid network=\"{network}\", token=\"USDC\", amount=\"{amount}\", recipient=\"{}\"",
            self.wallet
        );
        (body, header)
    }
}

/// A payment that passed every check, ready to be redeemed with a pad.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Verified {
    pub tx_hash: String,
    pub payer: String,
    pub amount_units: String,
    pub token: String,
    pub recipient: String,
    pub chain_id: u64,
    pub block_number: u64,
}

/// The codes of refused payments: on the wire their body is the peer's `{"detail": …}` alone.
pub const REFUSAL_CODES: &[&str] = &[
    "payment_already_redeemed",
    "rpc_unreachable",
    "payment_verification_failed",
    "payment_proof_invalid",
    "payment_unconfirmed",
];

pub(crate) fn refused(kind: ErrorKind, code: &'static str, detail: impl Into<String>) -> OpError {
    OpError::new(kind, code, detail)
}

/// 402 without a proof.
pub fn required(cfg: &PaymentConfig) -> OpError {
    let (body, _) = cfg.challenge();
    let mut e = OpError::new(ErrorKind::PaymentRequired, "payment_required", "payment required");
    if let Value::Object(m) = body {
        for (k, v) in m {
            if k != "error" {
                e.fields.insert(k, v);
            }
        }
    }
    e
}

/// 409 for a spent hash.
pub fn already_redeemed() -> OpError {
    refused(ErrorKind::Conflict, "payment_already_redeemed", "payment already redeemed")
}

/// 502, with no detail of what failed.
pub fn rpc_unreachable() -> OpError {
    refused(ErrorKind::BadGateway, "rpc_unreachable", RPC_UNREACHABLE)
}

/// 402 for a receipt that does not pay.
pub(crate) fn unpaid(why: &Unpaid) -> OpError {
    refused(
        ErrorKind::PaymentRequired,
        "payment_verification_failed",
        format!("payment verification failed: {}", why.reason()),
    )
}

/// The proof header's hash, or 400 (the peer's text).
pub fn parse_proof(proof: &str) -> OpResult<String> {
    rule::parse_tx_hash(proof.trim()).ok_or_else(|| {
        refused(
            ErrorKind::BadRequest,
            "payment_proof_invalid",
            "payment verification failed: invalid transaction format",
        )
    })
}

/// 409 if `tx_hash` was already redeemed (checked before asking the node; the redeeming
/// transaction checks again).
pub fn check_unspent(ctx: &mut crate::ops::Ctx<'_>, tx_hash: &str) -> OpResult<()> {
    let tx = ctx.store.read()?;
    if tx.payment(tx_hash)?.is_some() {
        return Err(already_redeemed());
    }
    Ok(())
}
