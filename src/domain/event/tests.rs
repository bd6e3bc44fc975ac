//! Vectors for every body shape older releases wrote (each must decode and re-encode to the
//! same bytes), and for the readers' view of them. The shapes today's code writes are covered
//! by the golden fixture (`tests/fixtures/golden/`, `tests/cli/events.rs`).

use super::*;
use crate::domain::digest::Digest;

const D1: &str = "1111111111111111111111111111111111111111111111111111111111111111";
const D2: &str = "2222222222222222222222222222222222222222222222222222222222222222";

/// Decodes `body` as `kind` and checks that it re-encodes to the same bytes.
fn round_trip(kind: &str, body: &str) -> Event {
    let v: Value = serde_json::from_str(body).expect("a vector is JSON");
    let e = Event::decode(kind, &v).unwrap_or_else(|e| panic!("{kind}: {e}"));
    assert_eq!(e.kind(), kind);
    // Straight from the text (`locker verify`'s path): the same event.
    assert_eq!(Event::decode_json(kind, body).unwrap_or_else(|e| panic!("{kind}: {e}")), e);
    assert_eq!(serde_json::to_string(&e.body()).unwrap(), body, "{kind} re-encodes");
    e
}

#[test]
fn pads_created_before_their_write_key_and_byte_limit_were_recorded() {
    let body = format!(
        r#"{{"pad_id":"p1","ttl_seconds":3600,"max_blocks":32,"expires_at":1800003600,"ticket_id":"{D1}","ticket_type":"read_once"}}"#
    );
    let Event::PadCreate(c) = round_trip(kind::PAD_CREATE, &body) else { panic!() };
    assert_eq!((c.max_bytes, c.write_key_hash, c.payment), (None, None, None));
    let body = format!(
        r#"{{"pad_id":"p2","ttl_seconds":60,"max_blocks":2,"expires_at":1800000060,"ticket_id":"{D1}","ticket_type":"read_once","blocks":[{{"seq":0,"curr_hash":"{D2}","bytes":10,"content_type":"application/json"}}],"head_hash":"{D2}","total_bytes":10}}"#
    );
    let Event::PadDeposit(d) = round_trip(kind::PAD_DEPOSIT, &body) else { panic!() };
    assert!(!d.demo);
    assert_eq!((d.max_bytes, d.write_key_hash), (None, None));
    assert_eq!(d.ticket_id, Some(Digest::parse(D1).unwrap()));
}

#[test]
fn artifact_publishes_from_before_fences() {
    let old = format!(
        r#"{{"key":"k","op_id":"o","version":1,"expected_version":0,"sha256":"{D1}","size":3}}"#
    );
    let Event::ArtifactPublish(p) = round_trip(kind::ARTIFACT_PUBLISH, &old) else { panic!() };
    assert_eq!((&p.fence, p.fence()), (&None, None));
    // Today's: `null` without a fence; never confused with the absent field.
    let new = format!(
        r#"{{"key":"k","op_id":"o","version":1,"expected_version":0,"sha256":"{D1}","size":3,"fence":null}}"#
    );
    let Event::ArtifactPublish(p) = round_trip(kind::ARTIFACT_PUBLISH, &new) else { panic!() };
    assert_eq!((&p.fence, p.fence()), (&Some(None), None));
}

#[test]
fn heartbeats_that_recorded_their_details_as_text() {
    let old = r#"{"lease_id":"l","work":"w","fence":1,"expires_at":10,"details":"half way"}"#;
    let Event::LeaseHeartbeat(h) = round_trip(kind::LEASE_HEARTBEAT, old) else { panic!() };
    assert_eq!(h.details_digest(), Some(Digest::of(b"half way")));
    let old = r#"{"lease_id":"l","work":"w","fence":1,"expires_at":10,"details":null}"#;
    let Event::LeaseHeartbeat(h) = round_trip(kind::LEASE_HEARTBEAT, old) else { panic!() };
    assert_eq!((&h.details, h.details_digest()), (&Some(None), None));
    let new = format!(
        r#"{{"lease_id":"l","work":"w","fence":1,"expires_at":10,"details_sha256":"{D1}"}}"#
    );
    let Event::LeaseHeartbeat(h) = round_trip(kind::LEASE_HEARTBEAT, &new) else { panic!() };
    assert_eq!(h.details_digest(), Some(Digest::parse(D1).unwrap()));
}

#[test]
fn plans_that_recorded_their_steps() {
    let old = r#"{"work":"w","version":2,"lease_id":"l","fence":3,"steps":["a","b"]}"#;
    let Event::ManifestCommit(m) = round_trip(kind::MANIFEST_COMMIT, old) else { panic!() };
    assert_eq!(m.steps.as_deref(), Some(&["a".to_owned(), "b".to_owned()][..]));
    assert_eq!((m.steps_count, m.steps_sha256), (None, None));
    let new = format!(
        r#"{{"work":"w","version":2,"lease_id":"l","fence":3,"steps_count":2,"steps_sha256":"{D1}"}}"#
    );
    let Event::ManifestCommit(m) = round_trip(kind::MANIFEST_COMMIT, &new) else { panic!() };
    assert_eq!((m.steps, m.steps_count), (None, Some(2)));
}

#[test]
fn steps_that_recorded_their_texts() {
    let old = r#"{"work":"w","lease_id":"l","fence":1,"step":"s","planned":"p","executed":null,"gate":"agent"}"#;
    let Event::StepRecord(s) = round_trip(kind::STEP_RECORD, old) else { panic!() };
    assert_eq!(s.planned_digest(), Some(Digest::of(b"p")));
    assert_eq!(s.executed_digest(), None);
    // Signatures came before retention: an old step may carry one.
    let signed = r#"{"work":"w","lease_id":"l","fence":1,"step":"s","planned":null,"executed":"e","gate":"human","signed":{"signer":"a","key_id":"k","signature":"c2ln"}}"#;
    let e = round_trip(kind::STEP_RECORD, signed);
    assert_eq!(e.signed().map(|s| s.signer.as_str()), Some("a"));
    let Event::StepRecord(s) = e else { panic!() };
    assert_eq!(s.executed_digest(), Some(Digest::of(b"e")));
}

#[test]
fn gc_runs_from_before_the_abandoned_work_policy() {
    let old = format!(
        r#"{{"policy":{{"pads_older_than":60,"blobs":false}},"pads":[{{"pad_id":"p","scope":"default","reason":"expired","since":5,"blocks":1,"bytes":2}}],"blobs":[{{"sha256":"{D1}","size":3,"location":"inline"}}],"stray_files":[],"payload_bytes":2,"blob_bytes":3,"more":true}}"#
    );
    let Event::RepoGc(g) = round_trip(kind::REPO_GC, &old) else { panic!() };
    assert_eq!((g.leases, g.work_bytes, g.policy.abandoned_older_than), (None, None, None));
}

#[test]
fn kind_subject_and_body_come_from_one_event() {
    let e = Event::from(PadSeal {
        pad_id: "p".into(),
        head_hash: Digest::parse(D2).unwrap(),
        block_count: 2,
        total_bytes: 7,
    });
    assert_eq!((e.kind(), e.subject().as_str(), e.pad_id()), ("pad.seal", "pad:p", Some("p")));
    assert_eq!(
        serde_json::to_string(&e.body()).unwrap(),
        format!(r#"{{"pad_id":"p","head_hash":"{D2}","block_count":2,"total_bytes":7}}"#)
    );
    let subjects = [
        (Event::from(RepoSetting { name: "n".into(), value: "v".into() }), "repo"),
        (Event::from(KeyRevoke { agent: "alice".into(), key_ids: vec![] }), "key:alice"),
        (
            Event::from(TokenRevoke {
                agent: "bob".into(),
                scope: "s".into(),
                token_id: Digest::ZERO,
            }),
            "agent:bob",
        ),
        (Event::from(LeaseRelease { lease_id: "l".into(), work: "w".into(), fence: 1 }), "work:w"),
    ];
    for (e, subject) in subjects {
        assert_eq!(e.subject(), subject);
    }
    assert_eq!(kind::ALL.len(), 26);
}

#[test]
fn malformed_bodies_and_unknown_kinds_are_errors() {
    let v: Value = serde_json::from_str(r#"{"pad_id":"p"}"#).unwrap();
    assert!(matches!(
        Event::decode(kind::PAD_SEAL, &v),
        Err(DecodeError::Malformed { kind, .. }) if kind == "pad.seal"
    ));
    let bad_digest = serde_json::json!({"pad_id": "p", "ticket_id": "ABC"});
    assert!(Event::decode(kind::PAD_TICKET_REVOKE, &bad_digest).is_err());
    let negative = serde_json::json!({"lease_id": "l", "work": "w", "fence": -1});
    assert!(Event::decode(kind::LEASE_RELEASE, &negative).is_err());
    assert!(matches!(Event::decode("pad.frobnicate", &v), Err(DecodeError::UnknownKind(_))));
    // Every known kind is decoded (none falls through to "unknown").
    for k in kind::ALL {
        assert!(!matches!(Event::decode(k, &v), Err(DecodeError::UnknownKind(_))), "{k}");
        assert!(!matches!(Event::decode_json(k, "{}"), Err(DecodeError::UnknownKind(_))), "{k}");
    }
    // From the text, the same refusals.
    for (k, body) in [
        (kind::PAD_SEAL, v.to_string()),
        (kind::PAD_TICKET_REVOKE, bad_digest.to_string()),
        (kind::LEASE_RELEASE, negative.to_string()),
        (kind::PAD_SEAL, "[1, 2]".to_owned()),
    ] {
        assert!(
            matches!(Event::decode_json(k, &body), Err(DecodeError::Malformed { kind, .. }) if kind == k),
            "{k}: {body}"
        );
    }
    assert!(matches!(Event::decode_json("pad.frobnicate", "{}"), Err(DecodeError::UnknownKind(_))));
}

#[test]
fn kinds_and_fields_added_after_the_fixture() {
    // A registration without a rotation keeps the bytes it always had.
    let plain = r#"{"agent":"alice","key_id":"0a0b0c0d","vkey":"alice+0a0b0c0d+AQ"}"#;
    let Event::KeyRegister(k) = round_trip(kind::KEY_REGISTER, plain) else { panic!() };
    assert_eq!(k.rotates, None);
    let rotated = r#"{"agent":"alice","key_id":"0a0b0c0d","vkey":"alice+0a0b0c0d+AQ","rotates":{"key_id":"01020304","signature":"c2ln"}}"#;
    let Event::KeyRegister(k) = round_trip(kind::KEY_REGISTER, rotated) else { panic!() };
    assert_eq!(k.rotates.map(|r| r.key_id), Some("01020304".to_owned()));
    let rollback = format!(
        r#"{{"abandoned_size":9,"abandoned_root":"{D1}","abandoned_checkpoint":"o\n9\nx\n\n","restored_size":4,"restored_root":"{D2}"}}"#
    );
    let e = round_trip(kind::REPO_ROLLBACK, &rollback);
    assert_eq!(e.subject(), "repo");
}
