//! The client against a server that cannot be trusted: a tiny WebSocket
//! server in the test says whatever it likes, byte for byte, and records
//! what the client says. No control character it sends reaches the
//! player's terminal in `--plain`; bots say they are bots; what `welcome`
//! brings cannot fill the disk or spoil the default name; a redirect leads
//! nowhere but to a krypto server; a flood of messages never keeps the
//! terminal UI from quitting, and the terminal is restored however it ends.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::net::SocketAddr;

use common::fake::{error, welcome, welcome_with, ws_server};
use common::terminal::{Key, Terminal};
use common::{Proc, Scratch};
use serde_json::{json, Value};

/// The answers to the first frame only.
fn once(script: Vec<String>) -> impl Fn(&Value) -> Vec<String> + Send + 'static {
    let script = std::sync::Mutex::new(Some(script));
    move |_| script.lock().unwrap().take().unwrap_or_default()
}

/// `krypto bots` for room ABCDE on the server at `addr`.
fn bots_for_abcde(addr: SocketAddr, config: &std::path::Path) -> Proc {
    let server = format!("ws://{addr}");
    Proc::spawn(
        "bots",
        &["bots", "--server", &server, "--room", "abcde"],
        config,
    )
}

fn chat(text: &str) -> String {
    json!({"type": "chat", "from": 2, "name": "Eve", "text": text}).to_string()
}

/// What a hostile player could get relayed by a server that does not filter:
/// a clipboard write, a screen clear, a forged line, a bidi override.
fn hostile_script() -> Vec<String> {
    let name = "Eve\u{1b}]52;c;cm0gLXJmIH4=\u{7}";
    let snapshot = room_of(
        "AB\u{1b}[2JCDE",
        name,
        json!([{"type": "chat", "from": 2, "name": name, "text": "hi\r\nSERVER: you won!"}]),
    );
    vec![
        welcome("Ann"),
        snapshot.to_string(),
        json!({"type": "chat", "from": 2, "name": name, "text": "\u{1b}[2J\u{9b}31mgg\u{202e}"})
            .to_string(),
        json!({"type": "player_joined", "player": 3, "name": "Mal\rlory", "spectator": false})
            .to_string(),
        error("room_not_found", "no\nSERVER: restart now"),
        json!({"type": "chat", "from": 2, "name": "Eve", "text": "the end"}).to_string(),
    ]
}

#[test]
fn plain_output_carries_no_control_characters_whatever_the_server_sends() {
    let scratch = Scratch::new();
    let (addr, _seen) = ws_server(once(hostile_script()));
    let mut ann = scratch.as_player("Ann", &format!("ws://{addr}/ws"), &["play", "--plain"]);
    ann.expect_contains("[chat] Eve: the end");
    let hidden = |c: char| c.is_control() || ('\u{202a}'..='\u{202e}').contains(&c);
    for line in &ann.seen {
        assert!(!line.contains(hidden), "a control character in {line:?}");
    }
    let seen = ann.seen.join("\n");
    // Each forged line stayed inside its own line.
    assert!(
        seen.contains("[chat] Eve]52;c;cm0gLXJmIH4=: hi  SERVER: you won!"),
        "{seen}"
    );
    assert!(!seen.lines().any(|l| l.starts_with("SERVER")), "{seen}");
    assert!(seen.contains("room AB[2JCDE: lobby"), "{seen}");
    assert!(seen.contains("Mal lory joined"), "{seen}");
}

#[test]
fn bots_say_they_are_bots_and_wait_for_a_room_that_is_not_there() {
    let scratch = Scratch::new();
    // No room has that code (the server restarted): the bot must keep asking.
    let (addr, seen) = ws_server(|frame| match frame["type"].as_str() {
        Some("hello") => vec![welcome("Ada-medium-bot")],
        Some("join_room") => vec![error("room_not_found", "no room has that code")],
        _ => Vec::new(),
    });
    let mut bots = bots_for_abcde(addr, &scratch.config("bots"));
    let next = || {
        seen.recv_timeout(common::PATIENCE)
            .expect("the bot went quiet")
    };
    let hello = next();
    assert_eq!(hello["type"], "hello", "{hello}");
    assert_eq!(hello["bot"], true, "{hello}");
    assert_eq!(hello["name"], "Ada-medium-bot", "{hello}");
    for _ in 0..2 {
        let join = next();
        assert_eq!(join["type"], "join_room", "{join}");
        assert_eq!(join["code"], "ABCDE", "{join}");
    }
    bots.expect_contains("asking again");
    assert!(bots.child.try_wait().unwrap().is_none(), "the bot gave up");
}

/// The config directory's `tokens.toml`.
fn tokens_file(config: &std::path::Path) -> std::path::PathBuf {
    config.join("tokens.toml")
}

#[test]
fn what_welcome_brings_cannot_fill_the_disk() {
    let scratch = Scratch::new();
    // Six welcomes with 256 KiB each of name and token (the report's 94 MB
    // came from six of a megabyte each, which the client now refuses at the
    // socket: a message is at most 1 MiB), a 4 KiB token, and more names
    // than are kept.
    let mut script: Vec<String> = (0..6)
        .map(|i| welcome_with(&format!("{i}{}", "n".repeat(1 << 18)), &"f".repeat(1 << 18)))
        .collect();
    script.push(welcome_with("Ann", &"a".repeat(4096)));
    script.extend((0..100).map(|i| welcome_with(&format!("Ann{i}"), &format!("{i:032x}"))));
    script.push(chat("the end"));
    let (addr, _seen) = ws_server(once(script));
    let config = scratch.config("ann");
    let mut ann = scratch.as_player("Ann", &format!("ws://{addr}/ws"), &["play", "--plain"]);
    ann.expect_contains("[chat] Eve: the end");
    let saved = std::fs::read_to_string(tokens_file(&config)).unwrap();
    assert!(saved.len() < 16 * 1024, "{} bytes", saved.len());
    assert!(
        !saved.contains(&"a".repeat(4096)),
        "the 4 KiB token was kept"
    );
    assert!(!saved.contains("nnnn"), "a long name was kept");
    // The newest names are kept, the oldest dropped.
    assert!(saved.contains("ann99"), "{saved}");
    assert!(!saved.contains("\"ann0\""), "{saved}");
    assert!(ann.count_seen(|l| l.contains("could not save the token")) >= 7);
}

#[cfg(unix)]
#[test]
fn tokens_toml_is_rewritten_only_when_a_token_changes() {
    use std::os::unix::fs::MetadataExt;

    let scratch = Scratch::new();
    let (addr, _seen) = ws_server(|frame| match frame["type"].as_str() {
        Some("hello") => vec![welcome("Ann"), chat("first")],
        Some("leaderboard") => {
            let mut again: Vec<String> = (0..20).map(|_| welcome("Ann")).collect();
            again.push(chat("the end"));
            again
        }
        _ => Vec::new(),
    });
    let config = scratch.config("ann");
    let mut ann = scratch.as_player("Ann", &format!("ws://{addr}/ws"), &["play", "--plain"]);
    ann.expect_contains("[chat] Eve: first");
    // Each write is a new file renamed over the old: a new inode.
    let before = std::fs::metadata(tokens_file(&config)).unwrap().ino();
    ann.send("/lb");
    ann.expect_contains("[chat] Eve: the end");
    let after = std::fs::metadata(tokens_file(&config)).unwrap().ino();
    assert_eq!(before, after, "the unchanged token was written again");
}

#[test]
fn the_servers_name_never_becomes_the_default() {
    let scratch = Scratch::new();
    let hostile = "Eve\u{1b}[2J!!".repeat(10);
    // A name no client may take, then one that is merely not ours.
    let (addr, _seen) = ws_server(once(vec![
        welcome(&hostile),
        welcome("Mallory"),
        chat("the end"),
    ]));
    let config = scratch.config("ann");
    // No --name: the client picks one, and the server answers with its own.
    let mut ann = Proc::spawn(
        "ann",
        &["play", "--plain", "--server", &format!("ws://{addr}/ws")],
        &config,
    );
    ann.expect_contains("[chat] Eve: the end");
    let settings: toml::Table =
        toml::from_str(&std::fs::read_to_string(config.join("config.toml")).unwrap()).unwrap();
    let name = settings["name"].as_str().unwrap();
    assert!(krypto_core::names::validate(name).is_ok(), "{name:?}");
    assert!(!name.contains("Eve") && name != "Mallory", "{name:?}");
}

/// A listener that counts the connections made to it.
fn counting_listener() -> (SocketAddr, std::net::TcpListener) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    (listener.local_addr().unwrap(), listener)
}

fn connections(listener: &std::net::TcpListener) -> usize {
    std::iter::from_fn(|| listener.accept().ok()).count()
}

#[test]
fn a_redirect_anywhere_but_a_krypto_server_is_refused_without_a_request() {
    let scratch = Scratch::new();
    let (device, listener) = counting_listener();
    let targets = [
        "http://192.168.1.1/cgi-bin/x?confirm=1".to_owned(),
        format!("http://{device}/cgi-bin/x?confirm=1"),
        format!("ws://{device}/cgi-bin/x?confirm=1"),
        format!("ws://{device}/ws?confirm=1"),
        format!("ws://{device}/ws#x"),
        format!("ws://admin:admin@{device}/ws"),
    ];
    let queue = std::sync::Mutex::new(targets.to_vec());
    let (addr, _seen) = ws_server(move |frame| match frame["type"].as_str() {
        Some("hello") => vec![welcome("Ann")],
        Some("join_room") => {
            let url = queue.lock().unwrap().pop().unwrap_or_default();
            vec![json!({"type": "redirect", "url": url, "code": "ABCDE"}).to_string()]
        }
        _ => Vec::new(),
    });
    let mut ann = scratch.plain_player("Ann", &format!("ws://{addr}/ws"));
    for _ in &targets {
        ann.send("/join ABCDE");
        ann.expect_contains("not a krypto server's address");
    }
    // Refused before connecting: each refusal was printed before a
    // connection could have been tried, and none was.
    assert_eq!(connections(&listener), 0);
}

/// `krypto play` without a server's help in a terminal of its own.
fn tui(server: &str, config: &std::path::Path) -> Terminal {
    Terminal::start(
        env!("CARGO_BIN_EXE_krypto"),
        &["play", "-s", server, "-n", "Ann"],
        &[("KRYPTO_CONFIG_DIR", config.as_os_str())],
    )
}

/// A room Ann (player 1) is in, hosted by Eve (player 2).
fn room_state() -> String {
    room_of("ABCDE", "Eve", json!([])).to_string()
}

/// A waiting room `code` of Ann (player 1) and its host, player 2 called
/// `host`, with `recent` events.
fn room_of(code: &str, host: &str, recent: Value) -> Value {
    json!({
        "type": "room_state", "code": code, "host": 2,
        "settings": {"variant": "krypto", "rules": "free", "rounds": 3,
            "target_score": null, "round_seconds": 90, "lockout_seconds": 5,
            "wrong_penalty": 0, "deal": "solvable", "difficulty": "any",
            "max_players": 8, "public": false},
        "state": "lobby", "locked": false, "rounds_total": 3,
        "players": [
            {"id": 1, "name": "Ann", "score": 0, "connected": true, "spectator": false},
            {"id": 2, "name": host, "score": 0, "connected": true, "spectator": false}
        ],
        "recent": recent
    })
}

#[test]
fn a_flood_of_arrivals_does_not_keep_the_terminal_ui_from_quitting() {
    let scratch = Scratch::new();
    // The report's 60,000 arrivals.
    let flood: Vec<String> = (0..60_000u32)
        .map(|i| {
            json!({"type": "player_joined", "player": 100 + i, "name": format!("p{i:0>19}"),
                "spectator": true})
            .to_string()
        })
        .collect();
    let flood = std::sync::Mutex::new(Some(flood));
    // The flood starts once the room is on the screen, when the player asks
    // for the leaderboard.
    let (addr, _seen) = ws_server(move |frame| match frame["type"].as_str() {
        Some("hello") => vec![welcome("Ann"), room_state()],
        Some("leaderboard") => flood.lock().unwrap().take().unwrap_or_default(),
        _ => Vec::new(),
    });
    let mut ann = tui(&format!("ws://{addr}/ws"), &scratch.config("ann"));
    ann.wait_for("the room", |s| s.contains("ABCDE"));
    ann.type_text("/lb");
    ann.key(Key::Enter);
    ann.wait_for("the leaderboard", |s| s.contains("Leaderboard"));
    ann.key(Key::Escape);
    ann.wait_for("the flood in the room", |s| {
        !s.contains("Leaderboard") && (s.contains("joined") || s.contains("p0"))
    });
    ann.type_text("q");
    assert!(ann.exited(), "q did not end the client");
    assert!(ann.restored(), "the terminal was left as the client had it");
}

#[cfg(unix)]
#[test]
fn sigterm_and_sighup_restore_the_terminal() {
    for signal in ["TERM", "HUP"] {
        let scratch = Scratch::new();
        let (addr, _seen) = ws_server(once(vec![welcome("Ann")]));
        let mut ann = tui(&format!("ws://{addr}/ws"), &scratch.config("ann"));
        ann.wait_for("the lobby", |s| s.contains("online"));
        let killed = std::process::Command::new("kill")
            .args([&format!("-{signal}"), &ann.pid().to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
        assert!(ann.exited(), "SIG{signal} did not end the client");
        assert!(
            ann.restored(),
            "SIG{signal} left the terminal as the client had it"
        );
    }
}

#[test]
fn bots_keep_no_token_a_server_could_not_have_issued() {
    let scratch = Scratch::new();
    let (addr, _seen) = ws_server(|frame| match frame["type"].as_str() {
        Some("hello") => vec![welcome_with("Ada-medium-bot", &"a".repeat(4096))],
        _ => Vec::new(),
    });
    let config = scratch.config("bots");
    let mut bots = bots_for_abcde(addr, &config);
    bots.expect_contains("could not save its token");
    assert!(!tokens_file(&config).exists());
}
