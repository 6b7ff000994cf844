//! The retention of attempts (`--attempts-retention-days`): wrong answers
//! past it are deleted in bounded batches and counted per player and round,
//! and a match's recap tells the counts where it told each answer. On both
//! backends; the cutoff follows the server's wall clock (a manual one).

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[macro_use]
mod common;

use std::time::Duration;

use common::scripted::{one_hand, round_started};
use common::{Client, TestServer};
use krypto_server::WallClock;
use serde_json::{json, Value};

/// 2026-03-10 12:00:00 UTC.
const NOON: u64 = 1_773_144_000_000;
const DAY: Duration = Duration::from_secs(24 * 3600);

/// One round: Ann misses twice and types a fragment, Ben misses once, then
/// wins. The match's id.
async fn missed_round(ann: &mut Client, ben: &mut Client) -> String {
    ann.host_match(json!({"rounds": 1, "lockout_seconds": 0}), &mut [&mut *ben])
        .await;
    round_started(ann, 1).await;
    round_started(ben, 1).await;
    for formula in ["1+2+3+4*5", "1*2+3+4+5", "1+1"] {
        assert_eq!(ann.submit(1, formula).await["accepted"], false);
    }
    assert_eq!(ben.submit(1, "1+2+3*4+5").await["accepted"], false);
    assert_eq!(ben.submit(1, "5+4+3+2+1").await["accepted"], true);
    let over = ann.recv_type("match_over").await;
    over["match"].as_str().unwrap().to_owned()
}

/// The first round of the match `id`'s recap.
async fn first_round(server: &TestServer, id: &str) -> Value {
    let (status, recap) = server.get_json(&format!("/api/matches/{id}")).await;
    assert_eq!(status, 200, "{recap}");
    recap["rounds"][0].clone()
}

on_both! {
    #[tokio::test]
    async fn old_wrong_answers_become_counts_and_the_recap_still_adds_up() {
        let database = common::fresh_database().await;
        let clock = WallClock::manual(NOON);
        let url = database.url.clone();
        let server = TestServer::on_wall_clock(&clock, move |c| {
            one_hand(c);
            c.database_url = url;
            c.retention.days = 1;
            // Never during the test: the batches below are called by hand.
            c.retention.every = Duration::from_secs(3600);
        })
        .await;
        let [(mut ann, _), (mut ben, _)] = server.players(["Ann", "Ben"]).await;
        let id = missed_round(&mut ann, &mut ben).await;
        let before = first_round(&server, &id).await;
        assert_eq!(before["attempts"].as_array().unwrap().len(), 5, "{before}");
        assert_eq!(before["attempts_total"], 5);
        assert!(before.get("pruned").is_none(), "{before}");

        // Within the retention nothing goes; past it, one batch of two at
        // a time, the oldest first.
        let db = krypto_server::Db::open(&database.url).await.unwrap();
        let now = i64::try_from(NOON).unwrap();
        let recorded_long_after = now + 10 * 365 * 24 * 3600 * 1000;
        let kept = db.prune_attempts(now - 24 * 3600 * 1000, 2).await.unwrap();
        assert_eq!(kept.deleted, 0);
        let mut batches = Vec::new();
        loop {
            let done = db.prune_attempts(recorded_long_after, 2).await.unwrap();
            batches.push((done.deleted, done.summarised));
            if done.deleted < 2 {
                break;
            }
        }
        assert_eq!(batches, [(2, 2), (2, 2), (0, 0)]);

        let after = first_round(&server, &id).await;
        let listed = after["attempts"].as_array().unwrap();
        assert_eq!(listed.len(), 1, "only the right answer is kept: {after}");
        assert_eq!((listed[0]["who"].as_str(), listed[0]["right"].as_bool()), (Some("Ben"), Some(true)));
        assert_eq!(after["attempts_total"], 5, "{after}");
        assert_eq!(after["pruned"], json!([{"who": "Ann", "wrong": 3}, {"who": "Ben", "wrong": 1}]));
        assert_eq!(after["winner"], before["winner"]);
        assert_eq!(after["solutions"], before["solutions"]);
        server.shutdown().await;
    }

    #[tokio::test]
    async fn the_server_prunes_on_its_timer_past_the_retention_of_its_clock() {
        let clock = WallClock::manual(NOON);
        let server = TestServer::on_wall_clock(&clock, |c| {
            one_hand(c);
            c.retention.days = 2;
            c.retention.every = Duration::from_millis(20);
        })
        .await;
        let [(mut ann, _), (mut ben, _)] = server.players(["Ann", "Ben"]).await;
        let id = missed_round(&mut ann, &mut ben).await;
        // The attempts were recorded at the machine's time; the server's
        // clock moves far enough past it that they are old.
        let since_recorded = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis();
        let ahead = u64::try_from(since_recorded).unwrap().saturating_sub(NOON);
        clock.advance(Duration::from_millis(ahead) + DAY);
        assert_eq!(first_round(&server, &id).await["attempts_total"], 5, "within the retention");
        clock.advance(2 * DAY);
        let pruned = tokio::time::timeout(common::PATIENCE, async {
            loop {
                let round = first_round(&server, &id).await;
                if round["attempts"].as_array().is_some_and(|a| a.len() == 1) {
                    return round;
                }
                tokio::task::yield_now().await;
            }
        })
        .await
        .expect("the pruner ran");
        assert_eq!(pruned["attempts_total"], 5, "{pruned}");
        assert_eq!(pruned["pruned"], json!([{"who": "Ann", "wrong": 3}, {"who": "Ben", "wrong": 1}]));
        server.shutdown().await;
    }
}
