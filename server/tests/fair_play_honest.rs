//! Honest play through the server is never flagged: the project's bots at
//! every skill (with the bots' own pace, `krypto_core::bot_pace`), playing
//! as people would (their `hello` says nothing of a bot, so they are rated
//! and assessed), and a fast person's answer times
//! (`krypto_core::fair_play::fast_human`), each winning every round of
//! rated matches on the server's clock at the default thresholds. A solver
//! script played last in the same harness is flagged: it is also the
//! sentinel that every earlier match was assessed (the signals take rated
//! matches in order).
//!
//! The normal suite plays 100 of a fast person's rounds per room;
//! `KRYPTO_HONEST_ROUNDS=1000` plays the full thousand.

#![allow(clippy::unwrap_used, clippy::expect_used)]
#[macro_use]
mod common;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use common::paced::paced_match;
use common::{Client, TestServer, PATIENCE};
use krypto_core::bot_pace::{self, BotSkill};
use krypto_core::fair_play::{count_tokens, fast_human};
use krypto_core::room::{difficulty_of, RandomDealer};
use krypto_core::rules::Rules;
use krypto_core::settings::{Difficulty, Variant};
use krypto_core::solver::count_solutions;
use krypto_server::{DealerFactory, ManualClock};
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};

/// Rounds in each match (the most a room plays): more than the
/// regularity's window of 40, so every signal sees a full window.
const ROUNDS: i64 = 50;

/// The hand a `round_started` deals: its band, and the token count of the
/// formula the answerer sends ([`common::solve`]'s).
struct Dealt {
    band: Difficulty,
    solutions: u64,
    tokens: u32,
}

fn dealt(started: &Value) -> Dealt {
    let cards: Vec<i64> = serde_json::from_value(started["cards"].clone()).unwrap();
    let objective = started["objective"].as_i64().unwrap();
    let solutions = count_solutions(&cards, objective, Rules::Free).unwrap() as u64;
    Dealt {
        band: difficulty_of(Variant::Krypto, solutions),
        solutions,
        tokens: count_tokens(&common::solve(started)).unwrap(),
    }
}

/// Plays `matches` matches of [`ROUNDS`] rounds in one room: each round
/// the two others (`players[1..]`) make a wrong attempt, then the answerer
/// (`players[0]`) answers right `pace(hand)` ms after the deal.
async fn paced_matches(
    players: &mut [(Client, Value); 3],
    clock: &ManualClock,
    matches: usize,
    mut pace: impl FnMut(&Dealt) -> u64,
) {
    for _ in 0..matches {
        paced_match(players, clock, ROUNDS, 0, |_, started| {
            let after = pace(&dealt(started));
            assert!(after < 590_000, "a time within the round: {after} ms");
            after
        })
        .await;
    }
}

/// A room whose first player answers, with `difficulty` hands.
async fn room(server: &TestServer, n: usize, difficulty: &str) -> [(Client, Value); 3] {
    let names = [format!("Who{n}"), format!("Ann{n}"), format!("Ben{n}")];
    let settings = json!({
        "rounds": ROUNDS, "round_seconds": 600, "lockout_seconds": 1, "difficulty": difficulty,
    });
    server
        .seated(
            [&names[0], &names[1], &names[2]].map(String::as_str),
            settings,
        )
        .await
        .0
}

/// Names of every player flagged, once the `sentinel` is (the signals
/// assess rated matches in order: every match before its is assessed).
async fn flagged_after(server: &TestServer, sentinel: &str) -> Vec<String> {
    let mut raw = server.raw().await;
    tokio::time::timeout(PATIENCE * 4, async {
        loop {
            let names: Vec<(String,)> = raw
                .rows("SELECT p.name FROM fair_play_flags f JOIN players p ON p.id = f.player_id ORDER BY p.name")
                .await;
            let names: Vec<String> = names.into_iter().map(|(n,)| n).collect();
            if names.iter().any(|n| n == sentinel) {
                return names;
            }
            tokio::task::yield_now().await;
        }
    })
    .await
    .expect("the sentinel script is flagged in time")
}

/// A server at the default thresholds whose rooms run on `clock`.
async fn server(clock: ManualClock) -> TestServer {
    TestServer::with_config(move |cfg| {
        cfg.manual_clock = Some(clock);
        cfg.message_burst = 100_000;
        cfg.frame_burst = 100_000;
        cfg.max_new_accounts = 1_000;
        common::assessed(cfg);
        // Seeded deals, room after room (the rooms open in order): the
        // same hands and times on every run.
        let rooms = Arc::new(AtomicU64::new(0));
        cfg.dealer = DealerFactory(Arc::new(move || {
            Box::new(RandomDealer::seeded(rooms.fetch_add(1, Ordering::Relaxed)))
        }));
    })
    .await
}

/// The solver script of server/tests/fair_play.rs, as the sentinel.
async fn sentinel(server: &TestServer, clock: &ManualClock, n: usize) -> String {
    let mut players = room(server, n, "any").await;
    let mut k = 0u64;
    paced_matches(&mut players, clock, 1, |_| {
        k += 1;
        200 + k * 97 % 800
    })
    .await;
    format!("Who{n}")
}

on_both! {
    #[tokio::test]
    async fn the_projects_bots_at_every_skill_playing_as_people_are_never_flagged() {
        let clock = ManualClock::new();
        let server = server(clock.clone()).await;
        let mut n = 0;
        for skill in BotSkill::ALL {
            // Any hand, and hard hands only: one band is where a bot's
            // times are most even.
            for difficulty in ["any", "hard"] {
                n += 1;
                let mut players = room(&server, n, difficulty).await;
                let mut rng = rand::rngs::StdRng::seed_from_u64(n as u64);
                paced_matches(&mut players, &clock, 1, |hand| {
                    // The bots' own pace at 100 % (their default); a
                    // wrong first answer only makes a bot slower, so none.
                    let median = bot_pace::think_ms(skill, Variant::Krypto, hand.solutions);
                    median * u64::from(rng.random_range(bot_pace::JITTER_PERCENT)) / 100
                })
                .await;
            }
        }
        let script = sentinel(&server, &clock, n + 1).await;
        assert_eq!(flagged_after(&server, &script).await, [script]);
        server.shutdown().await;
    }

    #[tokio::test]
    async fn a_fast_persons_answer_times_are_never_flagged() {
        let rounds: usize = std::env::var("KRYPTO_HONEST_ROUNDS")
            .ok()
            .and_then(|r| r.parse().ok())
            .unwrap_or(100);
        let matches = rounds.div_ceil(ROUNDS as usize).max(1);
        let clock = ManualClock::new();
        let server = server(clock.clone()).await;
        for (n, difficulty) in [(1, "any"), (2, "hard")] {
            let mut players = room(&server, n, difficulty).await;
            let mut rng = rand::rngs::StdRng::seed_from_u64(n as u64);
            let mut fastest = u64::MAX;
            paced_matches(&mut players, &clock, matches, |hand| {
                let t = fast_human::answer_ms(hand.band, hand.tokens, &mut rng);
                fastest = fastest.min(t);
                t
            })
            .await;
            eprintln!("{difficulty} hands: {} rounds, fastest {fastest} ms", matches * ROUNDS as usize);
        }
        let script = sentinel(&server, &clock, 3).await;
        assert_eq!(flagged_after(&server, &script).await, [script]);
        server.shutdown().await;
    }
}
