//! Leaderboards on a seeded database: every metric and period, ties,
//! `around`, the rated-match minimum, and the HTTP API's answers to good
//! and bad queries. Rows are written through the db layer with chosen
//! timestamps, and the periods are computed for a chosen "now".

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[macro_use]
mod common;

use common::TestServer;
use krypto_core::protocol::{Metric, Period, PlayerId};
use krypto_server::db::scores::{
    AttemptRecord, FinalPlace, MatchEnd, NewMatch, RoundOutcome, RoundResult, RoundStart, Write,
};
use krypto_server::db::Db;
use krypto_server::scores::board_cache::BoardCache;
use krypto_server::scores::leaderboard::{self, Board, BoardError, BoardQuery, Ranking};
use serde_json::Value;
use uuid::Uuid;

/// Milliseconds of an RFC 3339 time.
fn ms(s: &str) -> i64 {
    chrono::DateTime::parse_from_rfc3339(s)
        .unwrap()
        .timestamp_millis()
}

/// Wednesday, 12 March 2025, noon UTC.
fn now() -> i64 {
    ms("2025-03-12T12:00:00Z")
}

/// Three rated matches, against anyone.
const RANK3: Ranking = Ranking {
    min_matches: 3,
    min_opponents: 1,
};

struct Seed {
    database: common::TestDatabase,
    db: Db,
    /// Rivals created so far, for their names.
    rivals: std::sync::atomic::AtomicU32,
}

impl Seed {
    async fn new() -> Seed {
        let database = common::fresh_database().await;
        let db = Db::open(&database.url).await.unwrap();
        Seed {
            database,
            db,
            rivals: Default::default(),
        }
    }

    async fn player(&self, name: &str) -> PlayerId {
        common::seed_player(&self.db, name, &format!("hash-{name}"), false).await
    }

    async fn start_match(&self, players: &[PlayerId], at_ms: i64) -> Uuid {
        let id = Uuid::now_v7();
        self.db
            .apply(&[Write::StartMatch(NewMatch {
                id,
                room_code: "SEED1".into(),
                settings: serde_json::json!({}),
                players: players.to_vec(),
                at_ms,
            })])
            .await
            .unwrap();
        id
    }

    /// Round wins `(winner, elapsed_ms, at_ms)`, each in a one-round match
    /// of its own, raced (and lost) by a rival of this call: only rated
    /// matches count on the rounds and fastest boards.
    async fn wins(&self, wins: &[(PlayerId, u64, i64)]) {
        let n = self
            .rivals
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let rival = self.player(&format!("Rival{n}")).await;
        for &(winner, elapsed_ms, at_ms) in wins {
            let match_id = self.start_match(&[winner, rival], at_ms).await;
            self.db
                .apply(&[Write::RoundResult(RoundResult {
                    start: RoundStart {
                        match_id,
                        round: 1,
                        objective: 15,
                        cards: vec![1, 2, 3, 4, 5],
                        at_ms: at_ms - i64::try_from(elapsed_ms).unwrap(),
                    },
                    outcome: RoundOutcome::Won {
                        winner,
                        formula: Some("1+2+3+4+5".into()),
                        elapsed_ms,
                        points: 1,
                    },
                    at_ms,
                })])
                .await
                .unwrap();
            self.finish(match_id, &[(winner, 1), (rival, 2)], at_ms)
                .await;
        }
    }

    /// A finished match with `(player, rank)` standings.
    async fn finished(&self, places: &[(PlayerId, u32)], at_ms: i64) {
        let players: Vec<PlayerId> = places.iter().map(|p| p.0).collect();
        let match_id = self.start_match(&players, at_ms).await;
        self.finish(match_id, places, at_ms).await;
    }

    /// Finishes `match_id` with `(player, rank)` standings, everyone having
    /// tried.
    async fn finish(&self, match_id: Uuid, places: &[(PlayerId, u32)], at_ms: i64) {
        self.db
            .apply(&[Write::FinishMatch(MatchEnd {
                match_id,
                rounds_played: 1,
                standings: places
                    .iter()
                    .map(|&(player, rank)| FinalPlace {
                        player,
                        score: 10 - i64::from(rank),
                        rank,
                        attempted: true,
                    })
                    .collect(),
                at_ms,
            })])
            .await
            .unwrap();
    }

    async fn board(
        &self,
        metric: Metric,
        period: Period,
        limit: u32,
        around: Option<&str>,
    ) -> Board {
        self.board_min(metric, period, limit, around, 3)
            .await
            .unwrap()
    }

    /// The first ten of the rating board of `period`, ranking players with
    /// at least `min_rated` rated matches.
    async fn rating_board(&self, period: Period, min_rated: u32) -> Board {
        self.board_min(Metric::Rating, period, 10, None, min_rated)
            .await
            .unwrap()
    }

    async fn board_min(
        &self,
        metric: Metric,
        period: Period,
        limit: u32,
        around: Option<&str>,
        min_rated: u32,
    ) -> Result<Board, BoardError> {
        let query = BoardQuery {
            metric,
            period,
            limit,
            around: around.map(str::to_owned),
        };
        let ranking = Ranking {
            min_matches: min_rated,
            min_opponents: 1,
        };
        let direct = leaderboard::read_board(&self.db, &query, ranking, now()).await;
        // The server serves pages from a copy of the board: the same pages.
        let cached = BoardCache::new()
            .board(&self.db, &query, ranking, now(), 0)
            .await;
        match (&direct, &cached) {
            (Ok(d), Ok(c)) => assert_eq!(d, c, "{query:?}"),
            (Err(d), Err(c)) => assert_eq!(d.to_string(), c.to_string()),
            _ => panic!("{query:?}: {direct:?} from the database, {cached:?} from the cache"),
        }
        direct
    }
}

/// `(rank, name, value)` of each row.
fn rows(board: &Board) -> Vec<(u32, String, f64)> {
    board
        .rows
        .iter()
        .map(|r| (r.rank, r.name.clone(), r.value))
        .collect()
}

fn row(rank: u32, name: &str, value: f64) -> (u32, String, f64) {
    (rank, name.to_owned(), value)
}

on_both! {
    #[tokio::test]
    async fn periods_are_utc_calendar_day_iso_week_and_month() {
        let seed = Seed::new().await;
        let ann = seed.player("Ann").await;
        let ben = seed.player("Ben").await;
        let cat = seed.player("Cat").await;
        let dan = seed.player("Dan").await;
        let eve = seed.player("Eve").await;
        seed.wins(&[
            // Today.
            (ann, 5_000, ms("2025-03-12T08:00:00Z")),
            // Monday 00:00: this week, not today.
            (ben, 4_000, ms("2025-03-10T00:00:00Z")),
            // The Sunday before, last instant: this month, last week.
            (eve, 3_500, ms("2025-03-09T23:59:59.999Z")),
            // Earlier this month.
            (cat, 3_000, ms("2025-03-03T10:00:00Z")),
            // Last month.
            (dan, 2_000, ms("2025-02-28T23:59:59.999Z")),
        ])
        .await;

        let day = seed.board(Metric::Rounds, Period::Day, 10, None).await;
        assert_eq!(rows(&day), vec![row(1, "Ann", 1.0)]);
        assert_eq!(
            day.period_start.as_deref(),
            Some("2025-03-12T00:00:00.000Z")
        );
        let week = seed.board(Metric::Rounds, Period::Week, 10, None).await;
        assert_eq!(rows(&week), vec![row(1, "Ann", 1.0), row(1, "Ben", 1.0)]);
        assert_eq!(
            week.period_start.as_deref(),
            Some("2025-03-10T00:00:00.000Z")
        );
        let month = seed.board(Metric::Rounds, Period::Month, 10, None).await;
        assert_eq!(month.total, 4);
        assert_eq!(
            month.period_start.as_deref(),
            Some("2025-03-01T00:00:00.000Z")
        );
        let all = seed.board(Metric::Rounds, Period::All, 10, None).await;
        assert_eq!(all.total, 5);
        assert_eq!(all.period_start, None);

        // Fastest: lowest first.
        let names = |b: &Board| b.rows.iter().map(|r| r.name.clone()).collect::<Vec<_>>();
        let fastest_week = seed.board(Metric::Fastest, Period::Week, 10, None).await;
        assert_eq!(
            rows(&fastest_week),
            vec![row(1, "Ben", 4000.0), row(2, "Ann", 5000.0)]
        );
        let fastest_month = seed.board(Metric::Fastest, Period::Month, 10, None).await;
        assert_eq!(names(&fastest_month), ["Cat", "Eve", "Ben", "Ann"]);
        let fastest_all = seed.board(Metric::Fastest, Period::All, 10, None).await;
        assert_eq!(names(&fastest_all), ["Dan", "Cat", "Eve", "Ben", "Ann"]);

        // Wins and ratings come from finished rated matches, by the day they
        // finished: Ann beat Ben last month, Ben beat Ann today. (On a
        // database of their own: the rounds above were raced and won too.)
        let seed = Seed::new().await;
        let ann = seed.player("Ann").await;
        let ben = seed.player("Ben").await;
        seed.finished(&[(ann, 1), (ben, 2)], ms("2025-02-15T12:00:00Z"))
            .await;
        seed.finished(&[(ben, 1), (ann, 2)], ms("2025-03-12T09:00:00Z"))
            .await;
        let wins_day = seed.board(Metric::Wins, Period::Day, 10, None).await;
        assert_eq!(rows(&wins_day), vec![row(1, "Ben", 1.0)]);
        assert_eq!(wins_day.rows[0].matches, 1);
        let wins_all = seed.board(Metric::Wins, Period::All, 10, None).await;
        assert_eq!(
            rows(&wins_all),
            vec![row(1, "Ann", 1.0), row(1, "Ben", 1.0)]
        );
        assert_eq!(wins_all.rows[0].matches, 2);
        let rating_day = seed.rating_board(Period::Day, 1).await;
        assert_eq!(rating_day.rows.len(), 2);
        let rating_month_ago = leaderboard::read_board(
            &seed.db,
            &BoardQuery {
                metric: Metric::Rating,
                period: Period::Month,
                ..BoardQuery::default()
            },
            Ranking {
                min_matches: 1,
                min_opponents: 1,
            },
            ms("2025-02-20T00:00:00Z"),
        )
        .await
        .unwrap();
        // In February Ann had just won: she led.
        assert_eq!(rating_month_ago.rows[0].name, "Ann");
    }

    #[tokio::test]
    async fn ties_share_a_rank_and_around_centres_on_a_player() {
        let seed = Seed::new().await;
        let counts = [9, 7, 7, 5, 5, 5, 4, 3, 2, 2, 1, 1];
        let mut ids = Vec::new();
        for (i, &n) in counts.iter().enumerate() {
            let id = seed.player(&format!("P{:02}", i + 1)).await;
            ids.push(id);
            let wins: Vec<(PlayerId, u64, i64)> =
                (0..n).map(|k| (id, 1000 + k, now() - 1000)).collect();
            seed.wins(&wins).await;
        }
        seed.player("Idle").await;

        // The rounds board, all time: `limit` rows (around a player).
        let rounds = async |limit: u32, around: Option<&str>| {
            seed.board(Metric::Rounds, Period::All, limit, around)
                .await
        };
        // The rows expected: (rank, player number), each valued at that
        // player's count.
        let expect = |ranked: &[(u32, usize)]| -> Vec<(u32, String, f64)> {
            ranked
                .iter()
                .map(|&(rank, n)| row(rank, &format!("P{n:02}"), counts[n - 1] as f64))
                .collect()
        };

        let top = rounds(5, None).await;
        assert_eq!(top.total, 12);
        assert_eq!(rows(&top), expect(&[(1, 1), (2, 2), (2, 3), (4, 4), (4, 5)]));
        // P06 is 6th in the list with rank 4; the page starts on a tie.
        let around = rounds(3, Some("p06")).await;
        assert_eq!(rows(&around), expect(&[(4, 5), (4, 6), (7, 7)]));
        // At the ends the window stays full.
        let first = rounds(5, Some("P01")).await;
        assert_eq!(first.rows[0].name, "P01");
        assert_eq!(first.rows.len(), 5);
        let last = rounds(5, Some("P12")).await;
        assert_eq!(
            rows(&last),
            expect(&[(8, 8), (9, 9), (9, 10), (11, 11), (11, 12)])
        );
        // Someone known but not on this board gets no rows; nobody is an error.
        let idle = rounds(5, Some("Idle")).await;
        assert!(idle.rows.is_empty());
        assert_eq!(idle.total, 12);
        let nobody = seed
            .board_min(Metric::Rounds, Period::All, 5, Some("Nobody"), 3)
            .await;
        assert!(matches!(nobody, Err(BoardError::PlayerNotFound(_))));

        // The summary the boards read agrees with the recorded rounds.
        let raw: Vec<(i64, i64)> = {
            let mut raw = common::Raw::connect(&seed.database.url).await;
            raw.rows(
                "SELECT winner_id, count(*) FROM rounds WHERE outcome = 'won'
                 GROUP BY winner_id ORDER BY winner_id",
            )
            .await
        };
        let all = rounds(100, None).await;
        let mut summary: Vec<(i64, i64)> = all
            .rows
            .iter()
            .map(|r| (r.player.0, r.value as i64))
            .collect();
        summary.sort();
        assert_eq!(raw, summary);
    }

    #[tokio::test]
    async fn the_rating_board_needs_the_minimum_of_rated_matches() {
        let seed = Seed::new().await;
        let (x, y, z) = (
            seed.player("Xia").await,
            seed.player("Yan").await,
            seed.player("Zoe").await,
        );
        let t = now() - 60_000;
        for _ in 0..3 {
            seed.finished(&[(x, 1), (y, 2)], t).await;
        }
        for _ in 0..2 {
            seed.finished(&[(z, 1), (y, 2)], t).await;
        }
        let names = |b: &Board| b.rows.iter().map(|r| r.name.clone()).collect::<Vec<_>>();
        let min3 = seed.board(Metric::Rating, Period::All, 10, None).await;
        assert_eq!(names(&min3), ["Xia", "Yan"]);
        assert_eq!(min3.rows[1].matches, 5);
        let min2 = seed.rating_board(Period::All, 2).await;
        assert_eq!(min2.rows.len(), 3);
        assert!(min2.rows.windows(2).all(|w| w[0].value >= w[1].value));
        // The board shows the conservative rating the profile shows.
        let profile = leaderboard::profile(&seed.db, "xia", RANK3).await.unwrap();
        assert_eq!(Some(min3.rows[0].value), profile.rating);
        assert!(profile.ranked);
        assert_eq!((profile.wins, profile.rated_matches), (3, 3));
        let zoe = leaderboard::profile(&seed.db, "Zoe", RANK3).await.unwrap();
        assert!(!zoe.ranked);
        // Wins have no minimum.
        let wins = seed.board(Metric::Wins, Period::All, 10, None).await;
        assert_eq!(rows(&wins), vec![row(1, "Xia", 3.0), row(2, "Zoe", 2.0)]);
    }

    #[tokio::test]
    async fn the_http_api_answers_json_and_refuses_bad_queries() {
        let seed = Seed::new().await;
        let ann = seed.player("Ann").await;
        let ben = seed.player("Ben").await;
        let t = krypto_server::scores::periods::now_ms();
        seed.wins(&[(ann, 3000, t), (ann, 2500, t), (ben, 4000, t)])
            .await;
        seed.finished(&[(ann, 1), (ben, 2)], t).await;
        seed.db.close().await;
        let server = TestServer::on_database(seed.database, |c| {
            c.min_rated_matches = 1;
            c.min_rated_opponents = 1;
        })
        .await;

        for metric in ["rating", "wins", "rounds", "fastest"] {
            for period in ["all", "month", "week", "day"] {
                let (status, body) = server
                    .get_json(&format!("/api/leaderboard?metric={metric}&period={period}"))
                    .await;
                assert_eq!(status, 200, "{metric} {period}: {body}");
                assert_eq!(body["metric"], metric);
                assert_eq!(body["period"], period);
                assert_eq!(body["rows"][0]["name"], "Ann", "{metric} {period}: {body}");
            }
        }
        let (_, body) = server.get_json("/api/leaderboard").await;
        assert_eq!(body["metric"], "rating");
        assert_eq!(body["period"], "all");
        let (_, body) = server
            .get_json("/api/leaderboard?metric=rounds&limit=1&around=BEN")
            .await;
        let only: Vec<&Value> = body["rows"].as_array().unwrap().iter().collect();
        assert_eq!(only.len(), 1);
        assert_eq!(only[0]["name"], "Ben");
        assert_eq!(only[0]["rank"], 2);

        for bad in [
            "metric=elo",
            "period=year",
            "limit=0",
            "limit=101",
            "limit=ten",
            "limit=-1",
            "around=ThisNameIsMuchTooLongToBeOne",
        ] {
            let (status, body) = server.get_json(&format!("/api/leaderboard?{bad}")).await;
            assert_eq!(status, 400, "{bad}: {body}");
            assert_eq!(body["error"]["code"], "bad_request", "{bad}: {body}");
            assert!(body["error"]["message"].as_str().unwrap().len() > 5);
        }
        let (status, body) = server.get_json("/api/leaderboard?around=Nobody").await;
        assert_eq!(status, 404, "{body}");
        assert_eq!(body["error"]["code"], "player_not_found");

        let (status, profile) = server.get_json("/api/players/Ann").await;
        assert_eq!(status, 200, "{profile}");
        assert_eq!(profile["rounds_won"], 2);
        assert_eq!(profile["fastest_ms"], 2500);
        // Her two rounds were raced against a rival and won: three wins.
        assert_eq!(profile["wins"], 3);
        assert_eq!(profile["recent_matches"].as_array().unwrap().len(), 3);
        for unknown in ["Nobody", "%F0%9F%98%80", "a%20%20"] {
            let (status, body) = server.get_json(&format!("/api/players/{unknown}")).await;
            assert_eq!(status, 404, "{unknown}: {body}");
            assert_eq!(body["error"]["code"], "player_not_found");
        }
        server.shutdown().await;
    }

    #[tokio::test]
    async fn migration_0011_recounts_rounds_and_fastest_from_races_only() {
        let seed = Seed::new().await;
        let (ann, ben) = (seed.player("Ann").await, seed.player("Ben").await);
        let (far, pup) = (seed.player("Farmer").await, seed.player("Puppet").await);
        let solo = seed.player("Solo").await;
        // The seed's today, at 08:00.
        let t = ms("2025-03-12T08:00:00Z");
        // As recorded before 0011: every match that ended with attempts
        // rated; the puppet's `1+1` was one.
        for (winner, loser, verdict, elapsed) in [
            (ann, Some(ben), "wrong_value", 4_000),
            (far, Some(pup), "card_reused", 1_000),
            (solo, None, "", 500),
        ] {
            let match_id = seed.start_match(&[winner], t).await;
            let start = RoundStart {
                match_id,
                round: 1,
                objective: 15,
                cards: vec![1, 2, 3, 4, 5],
                at_ms: t,
            };
            // A formula tried in round 1: accepted unless refused with a verdict.
            let attempt = |player, formula: &str, refused: Option<&str>, elapsed_ms, at_ms, seq| {
                Write::Attempt(AttemptRecord {
                    match_id,
                    round: 1,
                    player,
                    formula: Some(formula.into()),
                    accepted: refused.is_none(),
                    verdict: refused.map(Into::into),
                    elapsed_ms,
                    at_ms,
                    seq,
                })
            };
            let mut writes = vec![Write::StartRound(start.clone())];
            if let Some(loser) = loser {
                writes.push(attempt(loser, "1+1", Some(verdict), 100, t + 100, 1));
            }
            writes.push(attempt(winner, "1+2+3+4+5", None, elapsed, t + 200, 2));
            writes.push(Write::RoundResult(RoundResult {
                start,
                outcome: RoundOutcome::Won {
                    winner,
                    formula: Some("1+2+3+4+5".into()),
                    elapsed_ms: elapsed,
                    points: 1,
                },
                at_ms: t + 200,
            }));
            seed.db.apply(&writes).await.unwrap();
            let mut places = vec![(winner, 1)];
            places.extend(loser.map(|l| (l, 2)));
            seed.finish(match_id, &places, t + 300).await;
        }
        // ... and every round won counted at once, the solo one too.
        let mut raw = common::Raw::connect(&seed.database.url).await;
        raw.execute(&format!(
            "UPDATE player_stats SET rounds_won = 1, fastest_ms = 500 WHERE player_id = {}",
            solo.0
        ))
        .await;
        let names = |b: Board| b.rows.into_iter().map(|r| r.name).collect::<Vec<_>>();
        let before = seed.board(Metric::Fastest, Period::All, 10, None).await;
        assert_eq!(names(before), ["Solo", "Farmer", "Ann"]);

        let migration = match common::backend() {
            krypto_server::db::Backend::Sqlite => include_str!("../../migrations/sqlite/0011_boards_from_races.sql"),
            krypto_server::db::Backend::Postgres => include_str!("../../migrations/postgres/0011_boards_from_races.sql")
                .split("CREATE TABLE budgets")
                .next()
                .unwrap(),
        };
        raw.execute(migration).await;
        for period in [Period::All, Period::Month, Period::Week, Period::Day] {
            let fastest = seed.board(Metric::Fastest, period, 10, None).await;
            assert_eq!(rows(&fastest), vec![row(1, "Ann", 4000.0)], "{period:?}");
            let rounds = seed.board(Metric::Rounds, period, 10, None).await;
            assert_eq!(rows(&rounds), vec![row(1, "Ann", 1.0)], "{period:?}");
        }
    }

    #[tokio::test]
    async fn a_copy_of_a_board_is_read_again_once_a_result_is_committed() {
        let seed = Seed::new().await;
        let ann = seed.player("Ann").await;
        let ben = seed.player("Ben").await;
        seed.wins(&[(ann, 5_000, now() - 60_000)]).await;
        let cache = BoardCache::new();
        let query = BoardQuery {
            metric: Metric::Rounds,
            period: Period::All,
            limit: 10,
            around: None,
        };
        let ranking = Ranking {
            min_matches: 3,
            min_opponents: 1,
        };
        let names = |b: Board| b.rows.into_iter().map(|r| r.name).collect::<Vec<_>>();
        let board = |version| cache.board(&seed.db, &query, ranking, now(), version);
        assert_eq!(names(board(1).await.unwrap()), ["Ann"]);
        seed.wins(&[(ben, 4_000, now() - 30_000)]).await;
        // The recorder has committed no result since: the copy is current.
        assert_eq!(names(board(1).await.unwrap()), ["Ann"]);
        // It has: the next reader gets the board as it is now.
        assert_eq!(names(board(2).await.unwrap()), ["Ann", "Ben"]);
    }
}
