//! The admin tools: an agent's own signing key.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{def, Def, Effect};
use crate::api::RegisterKey;
use crate::mcp::Call;
use crate::ops::keys::KeyRegistered;
use crate::ops::OpResult;

/// This toolset's tools, in the order `tools/list` shows them.
pub(super) fn tools() -> Vec<Def> {
    vec![def(
        "locker_key_register",
        "Register your own signing key",
        Effect::ReplacesOnce,
        KEY_REGISTER,
        key_register,
    )]
}

const KEY_REGISTER: &str = "Register the verifier key of an Ed25519 key pair you made yourself \
as your signing key (the private key never leaves you); appends, publishes and steps you sign with \
it are then checked against it. Acting as an agent (this server has its token), you register your \
own key only, and the journal records that you did; without a token the operator registers any \
agent's. An agent that has an active key replaces it only by a rotation: pass \
rotation_signature, the current key's signature over the hand-over, and the old key is revoked in \
the same journal entry. A key is registered once: the same key again is refused (key_exists) and \
changes nothing.";

/// `locker_key_register`'s arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct KeyRegisterIn {
    /// The verifier key: `<agent>+<key id>+<base64>`
    public_key: String,
    /// A rotation: the current key's signature (standard base64) over the hand-over
    #[serde(default)]
    rotation_signature: Option<String>,
}

fn key_register(call: &Call<'_>, a: KeyRegisterIn) -> OpResult<KeyRegistered> {
    call.run(|l| {
        l.key_register(RegisterKey {
            public_key: &a.public_key,
            rotation_signature: a.rotation_signature.as_deref(),
        })
    })
}
