//! How an error reads to a model. An operation's hints are written for the command line
//! (`locker pad list` shows them, publish with `--expect 3`); a model calling tools is told the
//! tools and arguments instead. Which failure it is stays the operation's decision, made once
//! in `ops`; only the words differ by edge, and MCP's are here, in one table keyed by the
//! error's wire code: the same code whether the repository is local or behind a `locker
//! serve` (whose errors arrive as JSON, hints already worded). Where one code covers several
//! failures, the tool called or the fixed detail tells them apart (those details are
//! agent-locker's and questlock's messages, kept word for word for their clients).
//!
//! A hint the table does not replace is kept if it names no command and no flag, and dropped
//! otherwise: a model is never told to run a command it cannot run. The few hints about who
//! acts also depend on where the model's client reaches the tools ([`Via`]): `locker mcp` acts
//! with the token and key in its environment, `locker serve`'s `/mcp` with the bearer token
//! each request sends.

use serde_json::Value;

use crate::ops::OpError;

/// Where the model's client reaches the tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Via {
    /// `locker mcp`: who acts is the server's environment (`LOCKER_TOKEN`, `LOCKER_SIGN_KEY`).
    Stdio,
    /// `locker serve`'s `/mcp`: who acts is the bearer token of each request.
    Http,
}

/// `e` as a model should read it: the same error, code, detail and fields, with hints that
/// name tools and arguments.
pub fn for_model(mut e: OpError, tool: &str, via: Via) -> OpError {
    if let Some(hints) = advice(&e, tool, via) {
        e.hints = hints;
    }
    e.hints.retain(|h| !speaks_cli(h));
    e
}

/// Whether `text` names a `locker` command or a command-line flag.
fn speaks_cli(text: &str) -> bool {
    let b = text.as_bytes();
    let flag = b.windows(3).enumerate().any(|(i, w)| {
        w[0] == b'-'
            && w[1] == b'-'
            && w[2].is_ascii_lowercase()
            && (i == 0 || matches!(b[i - 1], b' ' | b'`' | b'(' | b'"' | b'\''))
    });
    flag || text.contains("`locker ") || text.contains("`-R") || text.contains(" -R ")
}

/// The hints that replace `e`'s, when the table has them.
fn advice(e: &OpError, tool: &str, via: Via) -> Option<Vec<String>> {
    let text = |k: &str| e.fields.get(k).and_then(Value::as_str).unwrap_or_default().to_owned();
    let one = |h: &str| Some(vec![h.to_owned()]);
    let toolset = |prefix: &str| tool.starts_with(prefix);
    let on_work = toolset("locker_lease_") || toolset("locker_plan_") || tool == "locker_step";
    match (e.code.as_ref(), e.detail.as_str()) {
        // Pads and tickets.
        ("not_found", "pad not found") => {
            one("Check pad_id: locker_pad_list lists the pads you can see.")
        }
        ("unauthorized", "invalid write key") => {
            one("Pass the pad's write_key: locker_create and locker_deposit return it, once.")
        }
        ("unauthorized", "missing read ticket") => one("Pass ticket: a read ticket for this pad."),
        ("unauthorized", "invalid read ticket") => one(
            "Pass this pad's read ticket (not its write key): locker_create and locker_deposit \
             return one, its writer mints more with locker_mint_ticket, and a revoked ticket \
             stops working.",
        ),
        ("forbidden", "read ticket lease expired") => one(
            "A read_once ticket reads only for a while after its first read, then never again: \
             ask the pad's writer for a new ticket (locker_mint_ticket).",
        ),
        ("conflict", "pad is sealed") => one(
            "A sealed pad takes no more blocks: start a new pad (locker_create, or locker_deposit \
             for finished work); the sealed one is read with its ticket.",
        ),
        ("gone", "pad is expired") => {
            one("A pad that is not sealed expires after its ttl_seconds (default 3600, at most \
             2592000) and can then be neither written nor read. Start a new pad and seal it \
             (locker_seal) once it is complete: sealed pads do not expire.")
        }
        ("conflict", "block quota exceeded") => one(
            "Seal this pad (locker_seal) and continue in a new one, or create pads with a larger \
             max_blocks (locker_create).",
        ),
        ("pruned", _) => {
            one("Its payloads were removed and cannot be read here; its hashes remain, and \
             locker_verify_pad still checks its chain.")
        }
        ("inconsistent_pad", _) => {
            one("Do not use this pad: locker_verify_pad names every problem it has.")
        }
        ("verification_failed", _) => match text("cause").as_str() {
            // Those hints say what to pass, in argument terms already.
            "expected_head_mismatch" | "malformed_expected_head" | "ticket_required" => None,
            _ => one("The stored pad was altered or damaged; do not use its contents. \
                 locker_verify_pad names what is broken."),
        },
        ("malformed_bundle", _) => {
            one("Pass the whole text of a locker.bundle.v1 file, as a pad's export wrote it.")
        }
        ("signature_required", _) if tool == "locker_deposit" => one(
            "A deposit's blocks cannot be signed: create the pad with locker_create, append each \
             block signed (locker_append with signer and signature), then locker_seal it.",
        ),
        ("signature_required", _) if via == Via::Http => {
            one("Pass signer and signature: your registered key's signature over the write.")
        }
        ("signature_required", _) => {
            one("Pass signer and signature (your registered key's signature over the write), or \
             give this server the agent's signing key (LOCKER_SIGN_KEY in its environment).")
        }

        // Artifacts.
        ("not_found", _) if toolset("locker_artifact_") => {
            one("Check key and version: locker_artifact_list lists the keys of your scope, \
             locker_artifact_log a key's versions.")
        }
        ("version_conflict", _) => {
            let current =
                e.fields.get("current_version").map_or_else(String::new, Value::to_string);
            Some(vec![format!(
                "Read version {current} with locker_artifact_get, reconcile, and publish again \
                 with expected_version {current} and a new operation_id."
            )])
        }

        // Leases, plans and steps.
        ("work_not_found", _) if tool == "locker_lease_history" => {
            one("If it should have a history, locker_verify checks the whole journal.")
        }
        ("work_not_found", _) => one("Acquire the work item with locker_lease_acquire first."),
        ("lease_not_found", _) => one(
            "Pass the lease_id locker_lease_acquire returned; locker_lease_show shows the work \
             item's newest lease.",
        ),
        ("plan_not_found", _) => {
            one("Commit a plan with locker_plan_commit under your current lease.")
        }
        ("work_completed", _) => one("Pass reopen: true to lease a completed work item again."),
        // A newer lease replaced it: the operation's hint names it and says to stop.
        ("gone" | "stale_lease", _) if e.fields.contains_key("current_fence") => None,
        ("gone" | "stale_lease", _) if e.fields.contains_key("lease_id") => Some(vec![format!(
            "Acquire a new lease on {} with locker_lease_acquire.",
            text("work")
        )]),
        ("forbidden", d) if on_work && d.contains("token") => one(
            "A lease held by a registered agent is used with that agent's token only: a server \
             acting with it.",
        ),

        // The journal.
        ("unprocessable", _) if tool == "locker_log" => one(
            "Page through a longer journal: newest first with before (the oldest seq shown), or \
             oldest first with reverse: true and after (the newest seq shown).",
        ),

        // Keys and signatures.
        ("unknown_signer", _) => one(
            "The signer has no registered key: register yours with locker_key_register (or ask \
             the operator to).",
        ),
        ("key_revoked", _) => one("Register a new key with locker_key_register."),
        ("invalid_key", _) => one(
            "public_key is the verifier line of a key pair you made: <agent>+<key id>+<base64>.",
        ),
        ("key_exists", d) if d.contains("already has an active") => Some(vec![
            "Rotate to the new key: pass rotation_signature, the current key's signature over \
             the hand-over."
                .to_owned(),
            "Or the operator revokes the current key first.".to_owned(),
        ]),
        ("key_exists", _) => {
            one("A key is registered once: make a new key pair to register another.")
        }
        ("bad_signature", _) if tool == "locker_key_register" => {
            one("Sign the rotation with the agent's current private key.")
        }
        ("forbidden", _) if tool == "locker_key_register" => {
            one("Register a key made for your own agent name.")
        }
        ("unauthorized", d) if d.starts_with("registering a key") && via == Via::Http => {
            one("Registering a key needs your agent's token: connect with it as a bearer token \
             (the Authorization header of every request).")
        }
        ("unauthorized", d) if d.starts_with("registering a key") => {
            one("This server acts without an agent token: registering a key needs the agent's \
             (LOCKER_TOKEN in the server's environment).")
        }

        // The transparency log.
        ("bad_key", _) => one(
            "A verifier key looks like name+1a2b3c4d+AQ…; locker_checkpoint returns the log's, \
             as key.",
        ),
        ("bad_proof", _) => {
            one("locker_proof_inclusion and locker_proof_consistency return proof files.")
        }
        ("inconsistent_tree", _) => one(
            "The journal or its tree was changed behind locker's back: locker_verify says what \
             is broken.",
        ),

        // Who acts, the repository and the server.
        ("unauthorized", "unknown token" | "the token has been revoked") if via == Via::Http => {
            one("Your bearer token is unknown or revoked: ask the operator for a new one.")
        }
        ("unauthorized", "unknown token" | "the token has been revoked") => {
            one("This server's agent token (LOCKER_TOKEN) is unknown or revoked: ask the operator \
             for a new one.")
        }
        ("unauthorized", d) if d.contains("bearer token") => {
            one("The locker server wants an agent's token: this server needs LOCKER_TOKEN in its \
             environment.")
        }
        ("payment_required", _) => one(
            "Pay as this error says, then call again with payment_tx_hash set to the payment's \
             transaction hash.",
        ),
        ("unavailable", d) if d.starts_with("cannot reach the server") => {
            one("Check that the locker server at LOCKER_URL is running and reachable.")
        }
        ("unavailable", d) if d.contains("redirect") => {
            one("Point this server's LOCKER_URL at the final URL.")
        }
        ("no_repository", _) => one(
            "This server found no .locker/ repository: its operator starts it in (or under) the \
             repository's directory, or sets LOCKER_DIR, or LOCKER_URL for a locker server.",
        ),
        ("integrity" | "corrupt_store", _) => one(
            "locker_verify checks the repository's integrity; if it fails, only the operator can \
             restore a backup.",
        ),
        ("empty_store" | "rolled_back", _) => {
            one("The repository's store is not the one its log signed for: only its operator can \
             resolve this (from a backup); stop writing.")
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::ErrorKind;

    #[test]
    fn commands_and_flags_are_spotted() {
        for cli in [
            "Check the pad id; `locker pad list` shows them.",
            "publish with `--expect 3`",
            "Pass --reopen to lease it again.",
            "or pass `-R <path>`",
            "(--max-blocks)",
        ] {
            assert!(speaks_cli(cli), "{cli}");
        }
        for fine in [
            "Pass reopen: true.",
            "a locker.handoff.v1 envelope",
            "locker records a step only under the current lease",
            "name+1a2b3c4d+AQ…",
            "16--20 of them",
        ] {
            assert!(!speaks_cli(fine), "{fine}");
        }
    }

    #[test]
    fn cli_hints_become_tool_hints_or_go() {
        let e = OpError::not_found("pad not found").hint("Check the pad id; `locker pad list`.");
        let m = for_model(e, "locker_seal", Via::Stdio);
        assert_eq!(m.hints, ["Check pad_id: locker_pad_list lists the pads you can see."]);
        let e = OpError::new(ErrorKind::Conflict, "version_conflict", "stale")
            .with("current_version", 3)
            .hint("publish with `--expect 3`");
        let m = for_model(e, "locker_artifact_publish", Via::Stdio);
        assert!(m.hints[0].contains("expected_version 3"), "{:?}", m.hints);
        // Not in the table: kept when clean, dropped when it speaks the command line.
        let e = OpError::conflict("x").hint("Wait, then retry.").hint("Run `locker verify`.");
        assert_eq!(for_model(e, "locker_seal", Via::Stdio).hints, ["Wait, then retry."]);
        // Code, detail and fields are the operation's.
        let e = OpError::new(ErrorKind::Conflict, "lease_held", "held").with("holder", "a");
        let m = for_model(e.clone(), "locker_lease_acquire", Via::Stdio);
        assert_eq!((m.code, m.detail, m.fields), (e.code, e.detail, e.fields));
    }

    #[test]
    fn who_acts_is_worded_for_the_edge() {
        let e = OpError::unauthorized("registering a key needs the agent's token");
        let stdio = for_model(e.clone(), "locker_key_register", Via::Stdio);
        assert!(stdio.hints[0].contains("LOCKER_TOKEN"), "{:?}", stdio.hints);
        let http = for_model(e, "locker_key_register", Via::Http);
        assert!(http.hints[0].contains("bearer token"), "{:?}", http.hints);
        let e = OpError::new(ErrorKind::Unauthorized, "signature_required", "unsigned");
        let http = for_model(e, "locker_append", Via::Http);
        assert!(!http.hints[0].contains("LOCKER_SIGN_KEY"), "{:?}", http.hints);
    }
}
