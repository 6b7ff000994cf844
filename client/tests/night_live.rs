//! A game night in the terminal, end to end against the real server, as it
//! was played by hand in tmux: Ann hosts in `krypto play --plain`, adds one
//! of the server's bots from the terminal, Ben joins, Ann wins a round and
//! sends `/challenge`; Ben opens the link with `krypto challenge` under his
//! own name (his `krypto play` gives way instead of fighting for the name),
//! comes back to his seat and wins the last round, Ann takes the bot out
//! by no name at all, and both ready up for a rematch.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::ann_hosts;

#[test]
fn a_terminal_game_night_with_a_bot_a_challenge_a_drop_and_a_rematch() {
    let (scratch, server, url, mut ann, code) = ann_hosts(Some("rounds=2 round_seconds=600"));

    // A bot from the terminal, named once (not "Ada (easy bot) (bot)").
    ann.send("/bot add easy");
    let joined = ann.expect_contains("(easy bot) joined");
    assert!(!joined.contains("(a bot)"), "{joined}");

    let mut ben = scratch.plain_player("Ben", &url);
    ben.send(&format!("/join {code}"));
    ann.expect_contains("Ben joined");

    ann.send("/start");
    for p in [&mut ann, &mut ben] {
        p.expect_contains("round 1: make 15 from 1 2 3 4 5");
    }
    ann.send("1+2+3+4+5");
    ann.expect_contains("round 1 won by Ann");
    ann.send("/challenge");
    let link = ann.expect_contains("Challenge a friend: http://");
    let link = link
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap()
        .to_owned();
    assert!(link.contains(&format!("{}/c/", server.addr)), "{link}");

    // Ben opens it under his own name: his room client gives way once.
    let mut challenge = scratch.as_player("Ben", &url, &["challenge", &link]);
    challenge.expect_contains("Ann challenges you");
    ben.expect_contains("Ben is playing on another connection now");
    assert!(!ben.finish().success());
    challenge.expect_contains("make 15 from 1 2 3 4 5");
    challenge.send("(1+2+3+4)+5");
    challenge.expect_contains("misses");
    assert!(challenge.finish().success());

    // Back in the room: the seat was kept.
    let mut ben = scratch.as_player("Ben", &url, &["play", "--plain"]);
    ben.expect_contains("welcome back, Ben: your seat was resumed");

    ben.expect_contains("round 2: make 15 from 1 2 3 4 5");
    ben.send("5+4+3+2+1");
    for p in [&mut ann, &mut ben] {
        p.expect_contains("round 2 won by Ben");
        p.expect_prefix("match over:");
    }

    // Between matches, one bot in the room: `/bot remove` needs no name.
    ann.send("/bot remove");
    ann.expect_contains("(easy bot) left");

    // The rematch: everyone ready, and it starts.
    ann.send("/start");
    ben.expect_contains("rematch: ready?");
    ben.send("/ready");
    for p in [&mut ann, &mut ben] {
        p.expect_contains("match started: 2 rounds");
    }
    ben.quit();
    ann.quit();
}
