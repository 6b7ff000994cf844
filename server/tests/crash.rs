//! Crash safety with the real binary: results announced before a `kill -9`
//! are in the database after it, a SQLite file is sound, and the server
//! starts again on it.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[macro_use]
mod common;

use common::process::Process;
use serde_json::json;

on_both! {
    #[tokio::test]
    async fn announced_results_survive_kill_9() {
        let database = common::fresh_database().await;
        let mut server = Process::start(&database.url);
        let (mut ann, wa) = server
            .player(common::hello("Ann"))
            .await;
        let (mut ben, _) = server
            .player(common::hello("Ben"))
            .await;
        ann.host_match(json!({"rounds": 10, "round_seconds": 60}), &mut [&mut ben])
            .await;

        // Three rounds are won and announced; the match has seven to go.
        let mut announced = Vec::new();
        for round in 1..=3 {
            announced.push(common::win(&mut ann, &mut ben, round).await);
        }
        server.kill9();

        // Every announced round is there, and the file is sound.
        let mut db = common::Raw::connect(&database.url).await;
        if let common::Raw::Sqlite(_) = db {
            let (check,): (String,) = db.one("PRAGMA integrity_check").await;
            assert_eq!(check, "ok");
        }
        let recorded: Vec<(i64, i64, String, i64)> = db.rows("SELECT number, winner_id, formula, elapsed_ms FROM rounds
             WHERE outcome = 'won' ORDER BY number").await;
        assert_eq!(recorded, announced);
        let (status,): (String,) = db.one("SELECT status FROM matches").await;
        assert_eq!(status, "playing", "killed mid-match");
        drop(db);

        // The server starts again on the same file and knows its players.
        let server = Process::start(&database.url);
        assert!(server.healthz().await.contains(" 200 "));
        let (_, again) = server
            .player(json!({"type": "hello", "protocol": 1, "name": "Ann", "token": wa["token"]}))
            .await;
        assert_eq!(again["player_id"], wa["player_id"]);
        drop(server);
    }
}
