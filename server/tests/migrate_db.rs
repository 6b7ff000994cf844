//! `krypto-server migrate-db` copies a SQLite database into an empty
//! PostgreSQL database: the same boards and profiles, the same players
//! (their tokens still work), and the server goes on recording there.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::process::Command;

use common::TestServer;
use krypto_core::protocol::{Metric, Period, PlayerId};
use krypto_server::db::scores::{
    AttemptRecord, FinalPlace, MatchEnd, NewMatch, RoundOutcome, RoundResult, RoundStart, Write,
};
use krypto_server::db::Db;
use krypto_server::scores::leaderboard::{self, BoardQuery, Ranking};
use krypto_server::{new_token, token_hash};
use serde_json::json;
use uuid::Uuid;

const ANYONE: Ranking = Ranking {
    min_matches: 1,
    min_opponents: 1,
};

async fn player(db: &Db, name: &str, token: &str, bot: bool) -> PlayerId {
    common::seed_player(db, name, &token_hash(token).unwrap(), bot).await
}

/// A finished two-round match: `winner` wins both rounds, everyone tried.
async fn a_match(db: &Db, players: &[PlayerId], winner: PlayerId, at_ms: i64) {
    let id = Uuid::now_v7();
    let mut writes = vec![Write::StartMatch(NewMatch {
        id,
        room_code: "MIGR8".into(),
        settings: json!({"rounds": 2}),
        players: players.to_vec(),
        at_ms,
    })];
    for round in 1..=2 {
        let start = RoundStart {
            match_id: id,
            round,
            objective: 15,
            cards: vec![1, 2, 3, 4, 5],
            at_ms: at_ms + i64::from(round) * 1_000,
        };
        writes.push(Write::StartRound(start.clone()));
        // A wrong answer first: pruned into a count before the copy.
        writes.push(Write::Attempt(AttemptRecord {
            match_id: id,
            round,
            player: players[0],
            formula: Some("1+2+3+4*5".into()),
            accepted: false,
            verdict: Some("wrong_value".into()),
            elapsed_ms: 300,
            at_ms: at_ms + i64::from(round) * 1_000 + 300,
            seq: u64::from(round),
        }));
        writes.push(Write::RoundResult(RoundResult {
            start,
            outcome: RoundOutcome::Won {
                winner,
                formula: Some("1+2+3+4+5".into()),
                elapsed_ms: 700 + u64::from(round),
                points: 1,
            },
            at_ms: at_ms + i64::from(round) * 1_000 + 700,
        }));
    }
    writes.push(Write::FinishMatch(MatchEnd {
        match_id: id,
        rounds_played: 2,
        standings: players
            .iter()
            .map(|&p| FinalPlace {
                player: p,
                score: if p == winner { 2 } else { 0 },
                rank: if p == winner { 1 } else { 2 },
                attempted: true,
            })
            .collect(),
        at_ms: at_ms + 5_000,
    }));
    db.apply(&writes).await.unwrap();
}

async fn boards_and_profiles(db: &Db, now: i64) -> Vec<String> {
    let mut seen = Vec::new();
    for metric in [
        Metric::Rating,
        Metric::Wins,
        Metric::Rounds,
        Metric::Fastest,
    ] {
        for period in [Period::All, Period::Month, Period::Week, Period::Day] {
            let query = BoardQuery {
                metric,
                period,
                ..BoardQuery::default()
            };
            let board = leaderboard::read_board(db, &query, ANYONE, now)
                .await
                .unwrap();
            seen.push(serde_json::to_string(&board).unwrap());
        }
    }
    for name in ["Ann", "Ben", "Cat", "Robo"] {
        let profile = leaderboard::profile(db, name, ANYONE).await.unwrap();
        seen.push(serde_json::to_string(&profile).unwrap());
    }
    seen
}

fn migrate_db(from: &str, to: &str) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_krypto-server"))
        .args(["migrate-db", "--from", from, "--to", to])
        .env("RUST_LOG", "warn")
        .output()
        .unwrap()
}

#[tokio::test]
async fn a_sqlite_database_moves_to_postgres_whole() {
    let Some(postgres) = common::postgres::fresh_database().await else {
        return;
    };
    let sqlite = common::fresh_database().await;
    let source = Db::open(&sqlite.url).await.unwrap();
    let ann_token = new_token().unwrap();
    let ann = player(&source, "Ann", &ann_token, false).await;
    let ben = player(&source, "Ben", &new_token().unwrap(), false).await;
    let cat = player(&source, "Cat", &new_token().unwrap(), false).await;
    let robo = player(&source, "Robo", &new_token().unwrap(), true).await;
    let now = krypto_server::scores::periods::now_ms();
    a_match(&source, &[ann, ben], ann, now - 60_000).await;
    a_match(&source, &[ann, cat, robo], cat, now - 50_000).await;
    a_match(&source, &[ben, cat], ben, now - 40_000).await;
    // The wrong answers past the retention are counts when the copy is made.
    let pruned = source.prune_attempts(now + 1, 100).await.unwrap();
    assert_eq!((pruned.deleted, pruned.summarised), (6, 6));
    let before = boards_and_profiles(&source, now).await;
    source.close().await;
    // Ann's room is open when the SQLite server stops: it is saved, and
    // carries on on PostgreSQL.
    let server =
        TestServer::on_database(common::TestDatabase::existing(sqlite.url.clone()), |_| {}).await;
    let mut c = server.connect().await;
    c.send(json!({"type": "hello", "protocol": 1, "token": ann_token}))
        .await;
    c.recv_type("welcome").await;
    let room = c.request(json!({"type": "create_room"})).await;
    // Ann's laptop signed in with a device code: its own token moves too.
    let code = c.request(json!({"type": "link_device"})).await;
    let (_laptop, laptop) = server
        .player_with(common::ticket_hello(&code["code"]))
        .await;
    server.shutdown().await;

    let out = migrate_db(&sqlite.url, &postgres);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(report.contains("players: 4 rows"), "{report}");
    assert!(report.contains("rounds: 6 rows"), "{report}");
    assert!(report.contains("saved_rooms: 1 rows"), "{report}");
    assert!(report.contains("attempt_summaries: 6 rows"), "{report}");
    // Ann's two devices: her first token's and the laptop's.
    assert!(report.contains("player_tokens: 2 rows"), "{report}");

    let dest = Db::open(&postgres).await.unwrap();
    assert_eq!(boards_and_profiles(&dest, now).await, before);
    dest.close().await;

    // A second copy into the same database is refused.
    let again = migrate_db(&sqlite.url, &postgres);
    assert!(!again.status.success());
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("already has 4 players"),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );

    // The server runs on the copy: Ann's token still proves her, and new
    // players get new ids.
    let server = TestServer::on_database(common::TestDatabase::existing(postgres), |_| {}).await;
    let mut c = server.connect().await;
    c.send(json!({"type": "hello", "protocol": 1, "token": ann_token}))
        .await;
    let welcome = c.recv().await;
    assert_eq!(welcome["player_id"], ann.0, "{welcome}");
    assert_eq!(welcome["resumed"], true, "{welcome}");
    let state = c.recv_type("room_state").await;
    assert_eq!(state["code"], room["code"]);
    let (_, dan) = server.player("Dan").await;
    assert_eq!(dan["player_id"], robo.0 + 1, "{dan}");
    let (_, again) = server
        .player_with(json!({"type": "hello", "protocol": 1, "token": laptop["token"]}))
        .await;
    assert_eq!(again["player_id"], ann.0, "{again}");
    server.shutdown().await;
}
