//! Rated matches on a clock the test moves, each round won by one player
//! a chosen time after the deal while the others miss first: how the
//! fair-play tests play a person, a bot or a solver script.

use std::time::Duration;

use krypto_core::room::{BETWEEN_ROUNDS_MS, COUNTDOWN_MS};
use krypto_server::ManualClock;
use serde_json::{json, Value};

use super::Client;

/// Plays one match of `rounds` rounds in the room of `players` (the host
/// first; a rematch's ready check is answered): each round every player
/// but `answerer` sends a wrong attempt, then `answerer` answers right
/// `pace(round, round_started)` ms after the deal.
pub async fn paced_match<const N: usize>(
    players: &mut [(Client, Value); N],
    clock: &ManualClock,
    rounds: i64,
    answerer: usize,
    mut pace: impl FnMut(i64, &Value) -> u64,
) {
    let started = players[0].0.request(json!({"type": "start"})).await;
    assert_ne!(started["type"], "error", "{started}");
    if started["type"] == "ready_check" {
        // A rematch asks everyone first.
        for (c, _) in players[1..].iter_mut() {
            c.send(json!({"type": "ready"})).await;
        }
        // The countdown runs from the last `ready`: wait for it.
        for (c, _) in players.iter_mut() {
            c.recv_type("match_started").await;
        }
    }
    clock.advance(Duration::from_millis(COUNTDOWN_MS));
    for round in 1..=rounds {
        let mut dealt = Value::Null;
        for (c, _) in players.iter_mut() {
            dealt = c.recv_type("round_started").await;
            assert_eq!(dealt["round"], round);
        }
        for (i, (c, _)) in players.iter_mut().enumerate() {
            if i != answerer {
                let v = c.submit(round, &super::wrong(&dealt)).await;
                assert_eq!(v["accepted"], false, "{v}");
            }
        }
        clock.advance(Duration::from_millis(pace(round, &dealt)));
        let v = players[answerer]
            .0
            .submit(round, &super::solve(&dealt))
            .await;
        assert_eq!(v["accepted"], true, "{v}");
        for (c, _) in players.iter_mut() {
            c.recv_type("round_won").await;
        }
        if round < rounds {
            clock.advance(Duration::from_millis(BETWEEN_ROUNDS_MS));
        }
    }
    for (c, _) in players.iter_mut() {
        c.recv_type("match_over").await;
    }
}
