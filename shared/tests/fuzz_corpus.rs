//! The fuzz targets' committed inputs (seeds, and every input a fuzzing run
//! found a bug with) run through the same properties on stable Rust, so CI
//! without nightly still replays them. `shared/fuzz` holds the targets.

#[path = "../fuzz/src/properties.rs"]
mod properties;

use std::fs;
use std::path::{Path, PathBuf};

/// Every file under `shared/fuzz/{seeds,regressions}/<target>`.
fn inputs(target: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let mut files = Vec::new();
    for dir in ["seeds", "regressions"] {
        let Ok(entries) = fs::read_dir(root.join(dir).join(target)) else {
            continue;
        };
        files.extend(entries.filter_map(|e| e.ok()).map(|e| e.path()));
    }
    files.sort();
    files
}

fn replay(target: &str, property: fn(&[u8])) {
    let files = inputs(target);
    assert!(files.len() >= 10, "the {target} corpus is missing");
    for path in files {
        let data = match fs::read(&path) {
            Ok(data) => data,
            Err(e) => panic!("{}: {e}", path.display()),
        };
        if std::panic::catch_unwind(|| property(&data)).is_err() {
            panic!("{} fails", path.display());
        }
    }
}

#[test]
fn formula_corpus_holds() {
    replay("formula", properties::formula);
}

#[test]
fn client_message_corpus_holds() {
    replay("client_message", properties::client_message);
}

#[test]
fn ws_frames_corpus_holds() {
    replay("ws_frames", properties::ws_frames);
}
