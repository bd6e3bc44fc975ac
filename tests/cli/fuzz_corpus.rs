//! Replays the committed fuzz corpus (`fuzz/corpus/TARGET/`) through the fuzz targets' own
//! bodies, so that every input a fuzzer kept (and every crash it found, once fixed) is checked
//! by the normal suite on stable Rust. `scripts/fuzz.sh` runs the fuzzers themselves.

use std::path::Path;

#[path = "../../fuzz/src/lib.rs"]
mod bodies;

fn replay(target: &str, body: fn(&[u8])) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus").join(target);
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        let data = std::fs::read(&path).unwrap();
        let outcome = std::panic::catch_unwind(|| body(&data));
        assert!(outcome.is_ok(), "{target}: {} fails", path.display());
        n += 1;
    }
    assert!(n > 0, "no corpus for {target}");
}

#[test]
fn test_fuzz_corpus_envelope() {
    replay("envelope", bodies::envelope);
}

#[test]
fn test_fuzz_corpus_journal_entry() {
    replay("journal_entry", bodies::journal_entry);
}

#[test]
fn test_fuzz_corpus_wire() {
    replay("wire", bodies::wire);
}

#[test]
fn test_fuzz_corpus_text() {
    replay("text", bodies::text);
}

#[test]
fn test_fuzz_corpus_http() {
    replay("http", bodies::http);
}
