//! The recorder commits in groups and isolates a failing request: the rest
//! of its batch is still recorded.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[macro_use]
mod common;

use krypto_core::protocol::PlayerId;
use krypto_server::db::scores::{
    Applied, AttemptRecord, FinalPlace, MatchEnd, NewMatch, NewPlayer, RoundOutcome, RoundResult,
    RoundStart, Write,
};
use krypto_server::db::{Created, Db};
use krypto_server::scores::recorder::{JournalOptions, RecordError, Recorder};

on_both! {
    #[tokio::test]
    async fn a_failing_write_does_not_lose_the_rest_of_its_batch() {
        let database = common::fresh_database().await;
        let db = Db::open(&database.url).await.unwrap();
        let ann = common::seed_player(&db, "Ann", "h", false).await;
        let dir = tempfile::tempdir().unwrap();
        let journal = JournalOptions::at(dir.path().join("journal"));
        let (recorder, task) = Recorder::start(&db, journal).await.unwrap();
        let match_id = uuid::Uuid::now_v7();
        let applied = recorder
            .commit(vec![Write::StartMatch(NewMatch {
                id: match_id,
                room_code: "ABCDE".into(),
                settings: serde_json::json!({}),
                players: vec![ann],
                at_ms: 1_000,
            })])
            .await
            .unwrap();
        assert_eq!(applied, vec![Applied::Done]);
        let start = first_round(match_id);
        // An attempt in a round that was never dealt breaks a foreign key.
        let bad = Write::Attempt(AttemptRecord {
            match_id,
            round: 9,
            player: PlayerId(ann.0),
            formula: Some("1+2".into()),
            accepted: false,
            verdict: Some("wrong_value".into()),
            elapsed_ms: 5,
            at_ms: 2_005,
            seq: 1,
        });
        let good = vec![
            Write::StartRound(start.clone()),
            won_by(start, ann),
        ];
        let (bad, good) = tokio::join!(recorder.commit(vec![bad]), recorder.commit(good));
        assert!(matches!(bad, Err(RecordError::Failed(_))), "{bad:?}");
        assert_eq!(good.unwrap(), vec![Applied::Done, Applied::Done]);
        recorder.close().await;
        task.await.unwrap();
        assert!(matches!(
            recorder.commit(vec![]).await,
            Err(RecordError::Stopped)
        ));
        // The good request's round is recorded (it reaches the boards only
        // with its match's end, if that match is a race).
        let (won,): (i64,) = common::Raw::connect(&database.url)
            .await
            .one("SELECT count(*) FROM rounds WHERE outcome = 'won' AND elapsed_ms = 700")
            .await;
        assert_eq!(won, 1);
        assert_eq!(db.integrity_check().await.unwrap(), "ok");
    }

    /// A batch the recorder retries after losing its connection (its first
    /// commit may have landed) or replays from its journal again changes
    /// nothing the second time: no second match, attempt or win, no
    /// second rating update, leaderboard rows counted once.
    #[tokio::test]
    async fn a_batch_applied_twice_changes_nothing() {
        let database = common::fresh_database().await;
        let db = Db::open(&database.url).await.unwrap();
        let mut ids = Vec::new();
        for (name, token) in [("Ann", "ha"), ("Ben", "hb")] {
            ids.push(common::seed_player(&db, name, token, false).await);
        }
        let (ann, ben) = (ids[0], ids[1]);
        let match_id = uuid::Uuid::now_v7();
        let start = first_round(match_id);
        let attempt = |player: PlayerId, seq: u64, accepted: bool| {
            Write::Attempt(AttemptRecord {
                match_id,
                round: 1,
                player,
                formula: Some("1+2+3+4+5".into()),
                accepted,
                verdict: (!accepted).then(|| "wrong_value".into()),
                elapsed_ms: 600 + seq,
                at_ms: 2_600,
                seq,
            })
        };
        let batch = vec![
            Write::StartMatch(NewMatch {
                id: match_id,
                room_code: "ABCDE".into(),
                settings: serde_json::json!({}),
                players: vec![ann, ben],
                at_ms: 1_000,
            }),
            Write::StartRound(start.clone()),
            attempt(ben, 1, false),
            attempt(ann, 2, true),
            won_by(start, ann),
            Write::FinishMatch(MatchEnd {
                match_id,
                rounds_played: 1,
                standings: vec![
                    FinalPlace { player: ann, score: 1, rank: 1, attempted: true },
                    FinalPlace { player: ben, score: 0, rank: 2, attempted: true },
                ],
                at_ms: 3_000,
            }),
        ];
        let first = db.apply(&batch).await.unwrap();
        let Some(Applied::Ratings(changes)) = first.last() else {
            panic!("{first:?}")
        };
        assert_eq!(changes.len(), 2, "the match is rated the first time");
        let mut raw = common::Raw::connect(&database.url).await;
        let counts = "SELECT (SELECT count(*) FROM matches), (SELECT count(*) FROM rounds),
                             (SELECT count(*) FROM attempts), (SELECT count(*) FROM match_players)";
        let rated = "SELECT player_id, mu, matches FROM ratings ORDER BY player_id";
        let stats = "SELECT period, player_id, played, matches, wins, rounds_won FROM player_stats
                     ORDER BY period, player_id";
        let before: (i64, i64, i64, i64) = raw.one(counts).await;
        let ratings_before: Vec<(i64, f64, i64)> = raw.rows(rated).await;
        let stats_before: Vec<(String, i64, i64, i64, i64, i64)> = raw.rows(stats).await;
        assert_eq!(before, (1, 1, 2, 2));

        let again = db.apply(&batch).await.unwrap();
        assert_eq!(
            again.last(),
            Some(&Applied::Ratings(Vec::new())),
            "a match already finished is not rated again"
        );
        assert_eq!(raw.one::<(i64, i64, i64, i64)>(counts).await, before);
        assert_eq!(raw.rows::<(i64, f64, i64)>(rated).await, ratings_before);
        assert_eq!(
            raw.rows::<(String, i64, i64, i64, i64, i64)>(stats).await,
            stats_before
        );
    }

    /// A new player whose creation committed but whose answer was lost is
    /// given their row when the batch is tried again, not "name taken".
    #[tokio::test]
    async fn a_player_created_twice_by_the_same_hello_gets_their_row() {
        let database = common::fresh_database().await;
        let db = Db::open(&database.url).await.unwrap();
        let new = NewPlayer {
            name: "Ann".into(),
            name_key: krypto_core::names::key("Ann"),
            token_hash: "ha".into(),
            bot: false,
        };
        let first = db.create_player(new.clone()).await.unwrap();
        assert_eq!(db.create_player(new.clone()).await.unwrap(), first);
        let someone_else = NewPlayer {
            token_hash: "hx".into(),
            ..new
        };
        assert_eq!(db.create_player(someone_else).await.unwrap(), Created::NameTaken);
    }
}

/// Round 1 of match `match_id`: 15 from 1 2 3 4 5, dealt at 2 s.
fn first_round(match_id: uuid::Uuid) -> RoundStart {
    RoundStart {
        match_id,
        round: 1,
        objective: 15,
        cards: vec![1, 2, 3, 4, 5],
        at_ms: 2_000,
    }
}

/// The result of the round `start`: `winner` made it 0.7 s in with `1+2+3+4+5`.
fn won_by(start: RoundStart, winner: PlayerId) -> Write {
    Write::RoundResult(RoundResult {
        start,
        outcome: RoundOutcome::Won {
            winner,
            formula: Some("1+2+3+4+5".into()),
            elapsed_ms: 700,
            points: 1,
        },
        at_ms: 2_700,
    })
}
