//! The recorder commits in groups and isolates a failing request: the rest
//! of its batch is still recorded.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[macro_use]
mod common;

use krypto_core::protocol::PlayerId;
use krypto_server::db::scores::{
    Applied, AttemptRecord, NewMatch, NewPlayer, RoundOutcome, RoundResult, RoundStart, Write,
};
use krypto_server::db::{Created, Db};
use krypto_server::recorder::{RecordError, Recorder, RecorderMetrics};

on_both! {
    #[tokio::test]
    async fn a_failing_write_does_not_lose_the_rest_of_its_batch() {
        let database = common::fresh_database().await;
        let db = Db::open(&database.url).await.unwrap();
        let new = NewPlayer {
            name: "Ann".into(),
            name_key: "ann".into(),
            token_hash: "h".into(),
            bot: false,
        };
        let Created::Player(ann) = db.create_player(new).await.unwrap() else {
            panic!()
        };
        let ann = ann.player_id();
        let (recorder, task) = Recorder::start(&db, RecorderMetrics::none()).await.unwrap();
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
        let start = RoundStart {
            match_id,
            round: 1,
            objective: 15,
            cards: vec![1, 2, 3, 4, 5],
            at_ms: 2_000,
        };
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
        });
        let good = vec![
            Write::StartRound(start.clone()),
            Write::RoundResult(RoundResult {
                start,
                outcome: RoundOutcome::Won {
                    winner: ann,
                    formula: Some("1+2+3+4+5".into()),
                    elapsed_ms: 700,
                    points: 1,
                },
                at_ms: 2_700,
            }),
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
        let totals = db.player_totals(ann).await.unwrap();
        assert_eq!((totals.rounds_won, totals.fastest_ms), (1, Some(700)));
        assert_eq!(db.integrity_check().await.unwrap(), "ok");
    }
}
