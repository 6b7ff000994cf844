//! The docs say what the code does: the settings table of
//! `docs/protocol.md` is the one krypto-core writes from its settings
//! table, and every repository path the docs cite exists.

use std::path::{Path, PathBuf};

use krypto_core::settings::docs_table;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn read(path: &str) -> String {
    match std::fs::read_to_string(repo().join(path)) {
        Ok(text) => text,
        Err(e) => panic!("reading {path}: {e}"),
    }
}

#[test]
fn the_protocol_docs_list_the_settings_as_the_code_declares_them() {
    let protocol = read("docs/protocol.md");
    let table = docs_table();
    assert!(
        protocol.contains(&table),
        "docs/protocol.md's settings table differs from the code's; it should read:\n\n{table}"
    );
}
