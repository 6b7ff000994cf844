//! The sections of `server/src`, top to bottom, as the module map in
//! `lib.rs` draws them: an import never runs from a lower section up to a
//! higher one. This test reads the sources and names every `crate::` path
//! that does.

#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

/// The sections, top to bottom, with their rank (sections of one rank sit
/// side by side).
const SECTIONS: [(&str, u8); 10] = [
    ("edge", 1),
    ("session", 2),
    ("modes", 3),
    ("fair_play", 3),
    ("cluster", 4),
    ("config", 5),
    ("rooms", 6),
    ("scores", 7),
    ("db", 8),
    ("ops", 9),
];

/// The one exception, written down: the connection layers (and the modes'
/// request handlers, which answer a session's requests) are handed the
/// server's shared state, which `lib.rs` (the top, where every section is
/// wired together) defines.
const ALLOWED_FROM_THE_TOP: [(&str, &str); 3] = [
    ("edge", "Shared"),
    ("session", "Shared"),
    ("modes", "Shared"),
];

fn rank(name: &str) -> Option<u8> {
    SECTIONS.iter().find(|(s, _)| *s == name).map(|&(_, r)| r)
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The source without its comments (doc links are not imports).
fn code_of(text: &str) -> String {
    text.lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The first segment of every path that follows `crate::`, with braces
/// (`crate::{a::b, c}`) opened.
fn crate_roots(code: &str) -> Vec<String> {
    let mut roots = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        rest = &rest[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // Only the group's top-level names: nested braces belong to them.
            let mut depth = 0usize;
            let mut name = String::new();
            let mut at_start = true;
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => at_start = true,
                    c if at_start && (c.is_alphanumeric() || c == '_') => name.push(c),
                    _ => {
                        if at_start && !name.is_empty() {
                            roots.push(std::mem::take(&mut name));
                            at_start = false;
                        }
                    }
                }
            }
            if !name.is_empty() {
                roots.push(name);
            }
        } else {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            roots.push(name);
        }
    }
    roots
}

/// Every upward import in the sources under `src`, as `file: name`.
fn upward_imports(src: &Path) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut found = Vec::new();
    for file in files {
        let relative = file.strip_prefix(src).unwrap();
        let first = relative.components().next().unwrap().as_os_str();
        let section = first.to_string_lossy().trim_end_matches(".rs").to_owned();
        let Some(own) = rank(&section) else {
            continue; // lib.rs, main.rs, the binaries: the top.
        };
        let text = std::fs::read_to_string(&file).unwrap();
        for root in crate_roots(&code_of(&text)) {
            let upward = match rank(&root) {
                Some(theirs) => theirs < own,
                None => !ALLOWED_FROM_THE_TOP.contains(&(section.as_str(), root.as_str())),
            };
            if upward {
                found.push(format!("{}: crate::{root}", relative.display()));
            }
        }
    }
    found.sort();
    found.dedup();
    found
}

#[test]
fn no_import_runs_up_from_a_lower_section() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let upward = upward_imports(&src);
    assert!(
        upward.is_empty(),
        "imports from a lower section up to a higher one:\n{}",
        upward.join("\n")
    );
}

#[test]
fn the_reader_finds_paths_in_groups_and_skips_comments() {
    let code = code_of(
        "use crate::db::Db;\n\
         // see [`crate::edge::web`]\n\
         use crate::{rooms::lobby::{self, Lobby}, Shared};\n\
         let x = crate::scores::periods::now_ms();",
    );
    assert_eq!(crate_roots(&code), ["db", "rooms", "Shared", "scores"]);
}
