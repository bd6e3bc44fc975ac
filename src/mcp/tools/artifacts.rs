//! The artifact tools: versioned, compare-and-swap publishes with idempotent retries
//! (questlock's names).

use base64::Engine as _;

use schemars::JsonSchema;
use serde::Deserialize;

use super::{def, Def, Effect, FENCE};
use crate::api::{ArtifactHistory, GetArtifact, ListArtifacts};
use crate::domain::artifact::{
    MAX_CONTENT_BYTES, MAX_EXPECTED_VERSION, MAX_KEY_BYTES, MAX_OP_ID_BYTES,
};
use crate::mcp::Call;
use crate::ops::artifact::{
    self, ArtifactList, ArtifactLog, ArtifactView, PublishRequest, Published,
};
use crate::ops::work::lease;
use crate::ops::{OpError, OpResult};

/// This toolset's tools, in the order `tools/list` shows them.
pub(super) fn tools() -> Vec<Def> {
    vec![
        def(
            "locker_artifact_publish",
            "Publish an artifact version",
            Effect::AddsOnce,
            ARTIFACT_PUBLISH,
            artifact_publish,
        ),
        def(
            "locker_artifact_get",
            "Read an artifact",
            Effect::ReadOnly,
            ARTIFACT_GET,
            artifact_get,
        ),
        def(
            "locker_artifact_log",
            "List an artifact's versions",
            Effect::ReadOnly,
            ARTIFACT_LOG,
            artifact_log,
        ),
        def(
            "locker_artifact_list",
            "List artifact keys",
            Effect::ReadOnly,
            ARTIFACT_LIST,
            artifact_list,
        ),
    ]
}

// ---------------------------------------------------------------------------------------------
// Artifacts.

const ARTIFACT_PUBLISH: &str = "Publish a new version of an artifact (a key in your scope, up to \
1 MiB of text or bytes) only if its current version is still expected_version, the one you read \
(0 to create the key). Choose a fresh operation_id per intended change and reuse it only to \
retry: a retry of the identical request returns the original result with replayed: true and \
writes nothing, even after newer versions exist. Conflicts come back as errors: \
version_conflict (carries current_version: read it, reconcile, publish against it), \
operation_conflict (the operation_id was used for a different request), stale_fence (a newer \
lease replaced yours: stop working on it).";

/// `locker_artifact_publish`'s arguments (questlock's names).
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ArtifactPublishIn {
    /// The artifact's key: a relative path such as notes/summary.md (1–512 bytes)
    #[schemars(length(min = 1, max = MAX_KEY_BYTES))]
    key: String,
    /// The version you read and are replacing: 0 to create the key
    #[schemars(range(min = 0, max = MAX_EXPECTED_VERSION))]
    expected_version: i64,
    /// This operation's id (1–128 bytes): reuse it only to retry the identical request
    #[schemars(length(min = 1, max = MAX_OP_ID_BYTES))]
    operation_id: String,
    /// The content as text (at most 1 MiB); give content_b64 instead for bytes that are not
    /// UTF-8
    #[serde(default)]
    #[schemars(length(max = MAX_CONTENT_BYTES))]
    content: Option<String>,
    /// The content in standard base64 (instead of content; at most 1 MiB decoded)
    #[serde(default)]
    #[schemars(length(max = MAX_CONTENT_B64))]
    content_b64: Option<String>,
    /// The fencing token of the lease you publish under, as WORK:TOKEN (from
    /// locker_lease_acquire's work and fence): refused (stale_fence) once a newer lease exists
    #[serde(default)]
    #[schemars(pattern(FENCE))]
    fence: Option<String>,
    /// locker's extension: the agent whose registered key signed this write (with signature)
    #[serde(default)]
    signer: Option<String>,
    /// locker's extension: the agent's Ed25519 signature (standard base64) over the write's
    /// canonical message (a bad_signature error carries the message to sign as
    /// signed_message); without it, the server's own key signs, if it has one
    #[serde(default)]
    signature: Option<String>,
}

/// The longest standard base64 of the largest content.
const MAX_CONTENT_B64: usize = MAX_CONTENT_BYTES.div_ceil(3) * 4;

fn artifact_publish(call: &Call<'_>, a: ArtifactPublishIn) -> OpResult<Published> {
    let content = match (&a.content, &a.content_b64) {
        (Some(text), None) => text.clone().into_bytes(),
        (None, Some(b64)) => base64::engine::general_purpose::STANDARD
            .decode(b64)
            .map_err(|e| OpError::bad_request(format!("content_b64 is not base64: {e}")))?,
        _ => {
            return Err(OpError::bad_request("give exactly one of content and content_b64"));
        }
    };
    let fence = a.fence.as_deref().map(lease::parse_fence).transpose()?;
    let signing = call.signing(a.signer.as_deref(), a.signature.as_deref())?;
    let req = PublishRequest {
        key: &a.key,
        expected_version: a.expected_version,
        op_id: &a.operation_id,
        content: &content,
        fence: fence.as_ref(),
        signing: signing.as_ref(),
    };
    call.run(|l| l.artifact_publish(req))
}

const ARTIFACT_GET: &str = "Read an artifact's current version, or one version, with its \
content: content as text, or content_b64 when it is not UTF-8. The content is re-hashed first \
and never returned when it does not match its sha256. Keep the version you read: it is the \
expected_version of your next publish.";

/// `locker_artifact_get`'s arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ArtifactGetIn {
    /// The artifact's key
    #[schemars(length(min = 1, max = MAX_KEY_BYTES))]
    key: String,
    /// Read this version instead of the current one
    #[serde(default)]
    #[schemars(range(min = 1))]
    version: Option<i64>,
}

fn artifact_get(call: &Call<'_>, a: ArtifactGetIn) -> OpResult<ArtifactView> {
    call.run(|l| l.artifact_get(GetArtifact { key: &a.key, version: a.version }))
}

const ARTIFACT_LOG: &str = "List every version of an artifact, oldest first: version, sha256, \
size, who published it under which operation_id, and when; current_version is the head.";

/// `locker_artifact_log`'s arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ArtifactLogIn {
    /// The artifact's key
    #[schemars(length(min = 1, max = MAX_KEY_BYTES))]
    key: String,
    /// Only versions after this one
    #[serde(default)]
    after: u64,
    /// Most versions to return (1–10000)
    #[serde(default = "default_artifact_limit")]
    #[schemars(range(min = 1, max = artifact::MAX_LIST_LIMIT))]
    limit: u64,
}

fn default_artifact_limit() -> u64 {
    artifact::MAX_LIST_LIMIT
}

fn artifact_log(call: &Call<'_>, a: ArtifactLogIn) -> OpResult<ArtifactLog> {
    call.run(|l| l.artifact_log(ArtifactHistory { key: &a.key, after: a.after, limit: a.limit }))
}

const ARTIFACT_LIST: &str = "List the artifact keys of your scope, sorted, with each one's \
current version, sha256, size, publisher and time. Page with after (the last key you got).";

/// `locker_artifact_list`'s arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ArtifactListIn {
    /// Only keys that sort after this one
    #[serde(default)]
    after: Option<String>,
    /// Most keys to return (1–10000)
    #[serde(default = "default_key_limit")]
    #[schemars(range(min = 1, max = artifact::MAX_LIST_LIMIT))]
    limit: u64,
}

fn default_key_limit() -> u64 {
    1000
}

fn artifact_list(call: &Call<'_>, a: ArtifactListIn) -> OpResult<ArtifactList> {
    call.run(|l| l.artifact_list(ListArtifacts { after: a.after.as_deref(), limit: a.limit }))
}
