//! The docs say what the code does: the settings table of
//! `docs/protocol.md` is the one krypto-core writes from its settings
//! table, every repository path the docs cite exists, and ARCHITECTURE.md
//! maps every section of the server.

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

/// Every file and folder of the repository, as paths relative to its root.
fn repo_paths() -> Vec<String> {
    fn walk(dir: &Path, root: &Path, out: &mut Vec<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name();
            if matches!(
                name.to_str(),
                Some("target" | ".git" | "node_modules" | "corpus" | "artifacts")
            ) {
                continue;
            }
            if let Ok(relative) = path.strip_prefix(root) {
                out.push(relative.to_string_lossy().replace('\\', "/"));
            }
            if path.is_dir() {
                walk(&path, root, out);
            }
        }
    }
    let root = repo();
    let mut out = Vec::new();
    walk(&root, &root, &mut out);
    out
}

/// What the docs cite as a file of the repository: a backquoted word that
/// names a source, doc, script or migration (`server/src/web.rs`,
/// `cluster/heartbeat.rs`, `room.rs`, `migrations/sqlite/`).
fn cited_paths(text: &str) -> Vec<String> {
    // Not `.toml`: the docs name the player's `config.toml` and `tokens.toml`.
    const ENDINGS: [&str; 7] = [".rs", ".md", ".js", ".sql", ".yml", ".css", ".html"];
    const FOLDERS: [&str; 8] = [
        "shared/",
        "server/",
        "client/",
        "docs/",
        "migrations/",
        "bench/",
        "deploy/",
        ".ci/",
    ];
    text.split('`')
        .skip(1)
        .step_by(2)
        .map(|word| word.trim_end_matches([',', '.', ':']))
        .filter(|word| {
            !word.contains([' ', '*', '{', '<', '=', '(', '…'])
                && !word.starts_with(['/', '-', '.', '~', '$'])
                && !word.contains("://")
                && (ENDINGS.iter().any(|e| word.ends_with(e))
                    || FOLDERS.iter().any(|f| word.starts_with(f)))
        })
        .map(|word| word.trim_end_matches('/').to_owned())
        .collect()
}

#[test]
fn every_path_the_docs_cite_exists() {
    let paths = repo_paths();
    let mut docs: Vec<String> = paths
        .iter()
        .filter(|p| p.starts_with("docs/") && p.ends_with(".md"))
        .cloned()
        .collect();
    docs.push("README.md".to_owned());
    docs.push("ARCHITECTURE.md".to_owned());
    let mut missing = Vec::new();
    for doc in &docs {
        for cited in cited_paths(&read(doc)) {
            let found = paths
                .iter()
                .any(|p| *p == cited || p.ends_with(&format!("/{cited}")));
            if !found {
                missing.push(format!("{doc}: `{cited}`"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "the docs cite paths the repository does not have:\n{}",
        missing.join("\n")
    );
}

/// The map stays a map: the bird's-eye view, entry points, code map and
/// invariants in a page one reads in a sitting; details live in the code.
#[test]
fn the_architecture_page_is_short_and_names_every_server_section() {
    let architecture = read("ARCHITECTURE.md");
    let lines = architecture.lines().count();
    assert!(lines <= 250, "ARCHITECTURE.md has {lines} lines");
    let src = repo().join("server/src");
    let Ok(entries) = std::fs::read_dir(&src) else {
        panic!("reading {}", src.display());
    };
    for entry in entries.flatten() {
        if entry.path().is_dir() {
            let name = entry.file_name().to_string_lossy().into_owned();
            assert!(
                architecture.contains(&format!("`{name}/`")),
                "ARCHITECTURE.md does not map server/src/{name}/"
            );
        }
    }
}
