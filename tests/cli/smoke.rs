//! A first end-to-end pass: init, create, append, seal, read, verify.

use crate::common::{TestEnv, ENVELOPE};

#[test]
fn test_quick_start_round_trip() {
    let env = TestEnv::init();
    let pad = env.create_pad(&[]);
    let ack = env.append(&pad, ENVELOPE);
    assert_eq!(ack["seq"], 0);
    assert_eq!(
        ack["curr_hash"],
        "7a16e7c76df03bfa38933b2f586696278db332895450b653b59322eb56c036e9"
    );
    let sealed = env.json(&["seal", &pad.id, "--key", &pad.key]);
    assert_eq!(sealed["state"], "sealed");
    assert_eq!(sealed["head_hash"], ack["curr_hash"]);
    let read = env.json(&["pad", "read", &pad.id, "--ticket", &pad.ticket]);
    assert_eq!(read["blocks"][0]["payload_utf8"], ENVELOPE);
    let report = env.json(&["verify"]);
    assert_eq!(report["ok"], true);
}
