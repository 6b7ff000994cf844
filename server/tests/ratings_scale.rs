//! Migration 0008 puts the ratings a database already holds on the scale
//! players read (1500 + 60·(mu − 25)): a database written before it, with
//! conservative ratings (mu − 3·sigma, 0 for a new player), reads like one
//! written after it.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[macro_use]
mod common;

use common::Raw;
use krypto_core::protocol::PlayerId;
use krypto_server::db::scores::{FinalPlace, MatchEnd, NewMatch, Write};
use krypto_server::db::Db;
use serde_json::json;
use uuid::Uuid;

async fn person(db: &Db, name: &str) -> PlayerId {
    common::seed_player(db, name, &format!("hash-{name}"), false).await
}

/// Every stored rating: (player, period, stats rating) and (player, before,
/// after) of each match row, in a fixed order.
type Stored = (Vec<(i64, String, f64)>, Vec<(i64, f64, f64)>);

async fn stored(raw: &mut Raw) -> Stored {
    let stats = raw
        .rows(
            "SELECT player_id, period, rating FROM player_stats WHERE rating IS NOT NULL
               ORDER BY player_id, period",
        )
        .await;
    let places = raw
        .rows(
            "SELECT player_id, rating_before, rating_after FROM match_players
               WHERE rating_after IS NOT NULL ORDER BY player_id",
        )
        .await;
    (stats, places)
}

on_both! {
    #[tokio::test]
    async fn conservative_ratings_stored_before_0008_are_converted() {
        let database = common::fresh_database().await;
        let db = Db::open(&database.url).await.unwrap();
        let ann = person(&db, "Ann").await;
        let ben = person(&db, "Ben").await;
        let id = Uuid::now_v7();
        let at_ms = krypto_server::scores::periods::now_ms();
        let place = |player, rank| FinalPlace { player, score: 2 - i64::from(rank), rank, attempted: true };
        db.apply(&[
            Write::StartMatch(NewMatch {
                id,
                room_code: "RATE8".into(),
                settings: json!({"rounds": 1}),
                players: vec![ann, ben],
                at_ms,
            }),
            Write::FinishMatch(MatchEnd {
                match_id: id,
                rounds_played: 1,
                standings: vec![place(ann, 1), place(ben, 2)],
                at_ms: at_ms + 1_000,
            }),
        ])
        .await
        .unwrap();
        db.close().await;
        let mut raw = Raw::connect(&database.url).await;
        let now = stored(&mut raw).await;
        // Written on the new scale: 1500 before, ±158 after, in all periods.
        assert_eq!(now.1, vec![(ann.0, 1500.0, 1658.0), (ben.0, 1500.0, 1342.0)]);
        assert_eq!(now.0.len(), 8);
        assert!(now.0.iter().all(|(p, _, r)| *r == if *p == ann.0 { 1658.0 } else { 1342.0 }));

        // The same database as the server wrote it before 0008.
        let _: Vec<(i64,)> = raw
            .rows("UPDATE player_stats SET rating = (SELECT r.mu - 3 * r.sigma FROM ratings r
                   WHERE r.player_id = player_stats.player_id)
                   WHERE rating IS NOT NULL RETURNING player_id")
            .await;
        let _: Vec<(i64,)> = raw
            .rows("UPDATE match_players SET rating_before = 0, rating_after = (SELECT r.mu - 3 * r.sigma
                   FROM ratings r WHERE r.player_id = match_players.player_id)
                   WHERE rating_after IS NOT NULL RETURNING player_id")
            .await;
        let old = stored(&mut raw).await;
        assert!(old.1.iter().all(|(_, before, after)| *before == 0.0 && *after < 10.0), "{old:?}");
        let _: Vec<(i64,)> = raw
            .rows("DELETE FROM _sqlx_migrations WHERE version = 8 RETURNING version")
            .await;

        // Opening it runs 0008: everything reads as if written today.
        let db = Db::open(&database.url).await.unwrap();
        db.close().await;
        assert_eq!(stored(&mut raw).await, now);
    }
}
