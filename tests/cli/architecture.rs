//! The rules of ARCHITECTURE.md that a reading of the source can check: no file too long to
//! review, and no import pointing up a layer.

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("a readable source tree") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The code of a file without its comments' text (a doc comment may name any module) and
/// without its test module (tests may use any helper), which comes last by convention.
fn code(path: &Path) -> String {
    let text = std::fs::read_to_string(path).expect("UTF-8 source");
    let text = text.split("\n#[cfg(test)]").next().unwrap_or_default();
    text.lines().map(|l| l.split("//").next().unwrap_or_default()).collect::<Vec<_>>().join("\n")
}

#[test]
fn test_architecture_no_source_file_is_over_900_lines() {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    assert!(files.len() > 50, "the walk found the source tree");
    let long: Vec<String> = files
        .iter()
        .filter_map(|p| {
            let n = std::fs::read_to_string(p).ok()?.lines().count();
            (n > 900).then(|| format!("{} ({n} lines)", p.display()))
        })
        .collect();
    assert!(long.is_empty(), "split these by what they do: {long:?}");
}

#[test]
fn test_architecture_no_import_points_up_a_layer() {
    // (layer, the crate modules it must not name)
    let front = ["cli", "server", "mcp", "output", "client", "api", "quest", "witness", "rpc"];
    let rules: [(&str, Vec<&str>); 4] = [
        ("domain", [&front[..], &["ops", "store", "repo"]].concat()),
        ("store", [&front[..], &["ops", "repo"]].concat()),
        ("repo", [&front[..], &["ops"]].concat()),
        ("ops", front.to_vec()),
    ];
    let mut wrong = Vec::new();
    for (layer, banned) in &rules {
        let mut files = Vec::new();
        rust_files(&src().join(layer), &mut files);
        for f in files {
            let c = code(&f);
            for b in banned {
                if c.contains(&format!("crate::{b}::")) || c.contains(&format!("crate::{b};")) {
                    wrong.push(format!("{} names crate::{b}", f.display()));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "imports that point up a layer: {wrong:#?}");
}
