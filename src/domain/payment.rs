//! Pay-per-pad rules (no I/O): what a payment proof looks like, what a challenge says, and
//! whether a transaction receipt pays a wallet enough.
//!
//! A proof is the hash of a token transfer the client already mined. A receipt pays when its
//! `status` is `0x1` and the amounts of ALL its `Transfer(address,address,uint256)` logs that
//! come from the token contract, go to the wallet and are not `removed` add up to at least the
//! price (a payment split over several transfers in one transaction counts; the peer looked at
//! the first matching log only).

use serde_json::Value;

/// `keccak256("Transfer(address,address,uint256)")`.
pub const TRANSFER_TOPIC: &str =
    "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";
/// USDC on Base mainnet.
pub const USDC_BASE: &str = "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913";
/// Base mainnet's chain id.
pub const BASE_CHAIN_ID: u64 = 8453;
/// USDC's decimals.
pub const USDC_DECIMALS: u32 = 6;

/// A 20-byte address as `0x` + 40 lower-case hex digits, or `None`.
pub fn parse_address(s: &str) -> Option<String> {
    let hex = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X"))?;
    (hex.len() == 40 && hex.bytes().all(|b| b.is_ascii_hexdigit()))
        .then(|| format!("0x{}", hex.to_ascii_lowercase()))
}

/// A transaction hash (`^0x[0-9a-fA-F]{64}$`) in lower case, or `None`.
pub fn parse_tx_hash(s: &str) -> Option<String> {
    let hex = s.strip_prefix("0x")?;
    (hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_hexdigit()))
        .then(|| format!("0x{}", hex.to_ascii_lowercase()))
}

/// A JSON-RPC quantity (`0x…`) as a number.
pub fn parse_quantity(v: &Value) -> Option<u64> {
    let hex = v.as_str()?.strip_prefix("0x")?;
    if hex.is_empty() || hex.len() > 16 {
        return None;
    }
    u64::from_str_radix(hex, 16).ok()
}

/// `units` of a 6-decimal token as the peer writes it: `2000` → `"0.002"`.
pub fn format_units(units: u128) -> String {
    let scale = 10u128.pow(USDC_DECIMALS);
    let whole = units / scale;
    let frac = units % scale;
    if frac == 0 {
        return whole.to_string();
    }
    let f = format!("{frac:06}");
    format!("{whole}.{}", f.trim_end_matches('0'))
}

/// A 32-byte word (`0x` + 64 hex digits) as an amount; `None` if it does not fit in u128.
fn word_amount(data: &str) -> Option<u128> {
    let hex = data.strip_prefix("0x")?;
    if hex.len() != 64 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let (high, low) = hex.split_at(32);
    if high.bytes().any(|b| b != b'0') {
        return None;
    }
    u128::from_str_radix(low, 16).ok()
}

/// The address in a 32-byte topic, or `None` if the topic is not a left-padded address.
fn topic_address(topic: &str) -> Option<String> {
    let hex = topic.strip_prefix("0x")?;
    if hex.len() != 64 || !hex[..24].bytes().all(|b| b == b'0') {
        return None;
    }
    parse_address(&format!("0x{}", &hex[24..]))
}

/// What a successful receipt paid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Paid {
    /// The sender of the first matching transfer.
    pub payer: String,
    /// The sum of the matching transfers.
    pub amount: u128,
    /// The block the transaction is in.
    pub block: u64,
}

/// Why a receipt does not pay.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unpaid {
    /// The node knows no such transaction (or it is pending).
    NotFound,
    /// The transaction failed (`status != 0x1`).
    Reverted,
    /// No transfer from the token to the wallet.
    NoTransfer,
    /// Transfers to the wallet, but too little.
    Underpaid { paid: u128, need: u128 },
    /// The receipt is not a receipt (missing or malformed fields).
    Malformed,
}

impl Unpaid {
    /// The peer's wording, after `payment verification failed: `.
    pub fn reason(&self) -> String {
        match self {
            Self::NotFound => "transaction not found".into(),
            Self::Reverted => "transaction reverted".into(),
            Self::NoTransfer => "no USDC transfer to the payment wallet found".into(),
            Self::Underpaid { paid, need } => format!("underpaid: {paid} units < {need} required"),
            Self::Malformed => "malformed transaction receipt".into(),
        }
    }
}

/// Checks an `eth_getTransactionReceipt` result (`null` when unknown) against the token, the
/// wallet (both lower-case `0x` addresses) and the price.
pub fn check_receipt(
    receipt: &Value,
    token: &str,
    wallet: &str,
    need: u128,
) -> Result<Paid, Unpaid> {
    if receipt.is_null() {
        return Err(Unpaid::NotFound);
    }
    let status = receipt.get("status").and_then(Value::as_str).ok_or(Unpaid::Malformed)?;
    if status != "0x1" {
        return Err(Unpaid::Reverted);
    }
    let block = receipt.get("blockNumber").and_then(parse_quantity).ok_or(Unpaid::Malformed)?;
    let logs = receipt.get("logs").and_then(Value::as_array).ok_or(Unpaid::Malformed)?;
    let mut payer = None;
    let mut amount: u128 = 0;
    for log in logs {
        if log.get("removed").and_then(Value::as_bool) == Some(true) {
            continue;
        }
        let address = log.get("address").and_then(Value::as_str).and_then(parse_address);
        if address.as_deref() != Some(token) {
            continue;
        }
        let Some(topics) = log.get("topics").and_then(Value::as_array) else { continue };
        let topic = |i: usize| topics.get(i).and_then(Value::as_str);
        if topics.len() != 3 || !topic(0).is_some_and(|t| t.eq_ignore_ascii_case(TRANSFER_TOPIC)) {
            continue;
        }
        if topic(2).and_then(topic_address).as_deref() != Some(wallet) {
            continue;
        }
        let Some(value) = log.get("data").and_then(Value::as_str).and_then(word_amount) else {
            continue;
        };
        amount = amount.saturating_add(value);
        if payer.is_none() {
            payer = topic(1).and_then(topic_address);
        }
    }
    let Some(payer) = payer else { return Err(Unpaid::NoTransfer) };
    if amount < need {
        return Err(Unpaid::Underpaid { paid: amount, need });
    }
    Ok(Paid { payer, amount, block })
}

/// How many confirmations a transaction in `block` has when the chain's head is `head`.
pub fn confirmations(head: u64, block: u64) -> u64 {
    head.checked_sub(block).map_or(0, |d| d + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const WALLET: &str = "0x1111111111111111111111111111111111111111";

    fn log(token: &str, to: &str, amount: u128) -> Value {
        json!({
            "address": token,
            "topics": [TRANSFER_TOPIC,
                format!("0x000000000000000000000000{}", "22".repeat(20)),
                format!("0x000000000000000000000000{}", &to[2..])],
            "data": format!("0x{amount:064x}"),
            "removed": false,
        })
    }

    fn receipt(logs: Vec<Value>) -> Value {
        json!({"status": "0x1", "blockNumber": "0x10", "logs": logs})
    }

    #[test]
    fn any_matching_log_counts_and_amounts_add_up() {
        let other = "0x3333333333333333333333333333333333333333";
        let r = receipt(vec![
            log(USDC_BASE, other, 5000),
            log(USDC_BASE, WALLET, 1000),
            log(USDC_BASE, WALLET, 1000),
        ]);
        let paid = check_receipt(&r, USDC_BASE, WALLET, 2000).expect("pays");
        assert_eq!(paid.amount, 2000);
        assert_eq!(paid.block, 16);
        assert_eq!(paid.payer, format!("0x{}", "22".repeat(20)));
        assert_eq!(
            check_receipt(&r, USDC_BASE, WALLET, 2001),
            Err(Unpaid::Underpaid { paid: 2000, need: 2001 })
        );
    }

    #[test]
    fn removed_logs_other_tokens_and_reverts_do_not_pay() {
        let mut removed = log(USDC_BASE, WALLET, 9000);
        removed["removed"] = json!(true);
        let other_token = log("0x4444444444444444444444444444444444444444", WALLET, 9000);
        let r = receipt(vec![removed, other_token]);
        assert_eq!(check_receipt(&r, USDC_BASE, WALLET, 1), Err(Unpaid::NoTransfer));
        let mut rev = receipt(vec![log(USDC_BASE, WALLET, 9000)]);
        rev["status"] = json!("0x0");
        assert_eq!(check_receipt(&rev, USDC_BASE, WALLET, 1), Err(Unpaid::Reverted));
        assert_eq!(check_receipt(&Value::Null, USDC_BASE, WALLET, 1), Err(Unpaid::NotFound));
        assert_eq!(check_receipt(&json!({}), USDC_BASE, WALLET, 1), Err(Unpaid::Malformed));
    }

    #[test]
    fn formats_and_parses() {
        assert_eq!(format_units(2000), "0.002");
        assert_eq!(format_units(1_000_000), "1");
        assert_eq!(format_units(1_500_000), "1.5");
        assert!(parse_tx_hash(&format!("0x{}", "ab".repeat(32))).is_some());
        assert!(parse_tx_hash("0x1234").is_none());
        assert_eq!(
            parse_address("0xABCDEF0123456789abcdef0123456789ABCDEF01").as_deref(),
            Some("0xabcdef0123456789abcdef0123456789abcdef01")
        );
        assert!(parse_address("0x12").is_none());
        assert_eq!(confirmations(10, 10), 1);
        assert_eq!(confirmations(9, 10), 0);
    }
}
