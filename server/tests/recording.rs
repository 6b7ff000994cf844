//! What is recorded is what was played: a match over real sockets, then the
//! database file and the HTTP API are read back.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::type_complexity)]

#[macro_use]
mod common;

use common::scripted::{missed_then_won, one_hand, round_started};
use common::{Client, TestServer};
use serde_json::{json, Value};

/// [`one_hand`] rooms, where one rated match against one opponent is
/// enough to be on the rating board.
fn scripted(c: &mut krypto_server::Config) {
    one_hand(c);
    c.min_rated_matches = 1;
    c.min_rated_opponents = 1;
}

/// One one-round match in a room of `players` (the first is the host):
/// everyone but `winner` sends a wrong formula (a real attempt), then
/// `winner` answers right. Every queue is read up to the `match_over`,
/// which is returned.
async fn one_round_match(players: &mut [&mut Client], winner: usize) -> Value {
    players[0].request(json!({"type": "start"})).await;
    for p in players.iter_mut() {
        round_started(p, 1).await;
    }
    for (i, p) in players.iter_mut().enumerate() {
        if i != winner {
            let v = p.submit(1, "1+2+3+4*5").await;
            assert_eq!(v["accepted"], false, "{v}");
        }
    }
    let v = players[winner].submit(1, "1+2+3+4+5").await;
    assert_eq!(v["accepted"], true, "{v}");
    let mut over = Value::Null;
    for p in players.iter_mut() {
        over = p.recv_type("match_over").await;
    }
    over
}

/// A room of one round a match, hosted by `host`, joined by `guests`.
async fn room(host: &mut Client, guests: &mut [&mut Client]) {
    let settings = json!({"rounds": 1, "round_seconds": 10});
    host.host_room(settings, guests).await;
}

/// The names on a board.
async fn board(server: &TestServer, metric: &str) -> Vec<String> {
    let (status, body) = server
        .get_json(&format!("/api/leaderboard?metric={metric}&limit=100"))
        .await;
    assert_eq!(status, 200, "{body}");
    body["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap().to_owned())
        .collect()
}

on_both! {
    #[tokio::test]
    async fn a_player_back_after_a_rated_match_is_shown_its_ratings() {
        let server = TestServer::with_config(scripted).await;
        let [(mut ann, _), (mut ben, ben_welcome)] = server.players(["Ann", "Ben"]).await;
        room(&mut ann, &mut [&mut ben]).await;
        let over = one_round_match(&mut [&mut ann, &mut ben], 0).await;
        assert!(over["standings"][0].get("rating_after").is_some(), "{over}");
        // Ben's page reloads: it resumes the seat, and the podium it is
        // shown again is the one everyone saw, ratings and all.
        drop(ben);
        let (mut back, resumed) = server
            .connect()
            .await
            .welcomed(common::hello_again(&ben_welcome))
            .await;
        assert_eq!(resumed["resumed"], true, "{resumed}");
        let state = back.recv_type("room_state").await;
        let kept = state["recent"]
            .as_array()
            .unwrap()
            .iter()
            .rev()
            .find(|m| m["type"] == "match_over")
            .unwrap_or_else(|| panic!("no match_over in {state}"));
        assert_eq!(kept["standings"], over["standings"], "{state}");
        server.shutdown().await;
    }

    #[tokio::test]
    async fn a_played_match_is_recorded_rated_and_served() {
        let server = TestServer::with_config(scripted).await;
        let [(mut ann, wa), (mut ben, wb)] = server.players(["Ann", "Ben"]).await;
        let (ann_id, ben_id) = (
            wa["player_id"].as_i64().unwrap(),
            wb["player_id"].as_i64().unwrap(),
        );
        ann.host_match(json!({"rounds": 3, "round_seconds": 10}), &mut [&mut ben])
            .await;

        // Round 1: Ann is wrong, then Ben wins.
        missed_then_won(&mut ann, &mut ben, 1, "1+2+3+4+5").await;
        let won1 = ann.recv_type("round_won").await;
        assert_eq!(won1["winner"], ben_id);
        assert_eq!(ben.recv_type("round_won").await, won1);
        // Rounds 2 and 3: Ann wins.
        let mut elapsed = vec![won1["elapsed_ms"].as_i64().unwrap()];
        for round in 2..=3i64 {
            round_started(&mut ann, round).await;
            let v = ann.submit(round, "(1+2+3+4)+5").await;
            assert_eq!(v["accepted"], true, "{v}");
            let won = ben.recv_type("round_won").await;
            assert_eq!(won["winner"], ann_id);
            elapsed.push(won["elapsed_ms"].as_i64().unwrap());
        }
        let over = ben.recv_type("match_over").await;
        let standings = over["standings"].as_array().unwrap();
        let ann_row = standings.iter().find(|s| s["player"] == ann_id).unwrap();
        let ben_row = standings.iter().find(|s| s["player"] == ben_id).unwrap();
        assert_eq!(
            (ann_row["rank"].as_i64(), ann_row["score"].as_i64()),
            (Some(1), Some(2))
        );
        assert_eq!(
            (ben_row["rank"].as_i64(), ben_row["score"].as_i64()),
            (Some(2), Some(1))
        );
        // New players start at 1500; the winner rises above the loser, by
        // as much as the loser falls, in whole points.
        assert_eq!(ann_row["rating_before"], 1500.0);
        assert_eq!(ben_row["rating_before"], 1500.0);
        let (ann_after, ben_after) = (
            ann_row["rating_after"].as_f64().unwrap(),
            ben_row["rating_after"].as_f64().unwrap(),
        );
        assert!(ann_after > ben_after, "{over}");
        assert_eq!(ann_after - 1500.0, 1500.0 - ben_after, "{over}");
        assert_eq!(ann_after.fract(), 0.0, "{over}");

        // The database holds exactly that.
        let mut db = server.raw().await;
        let (status, rounds_played, rated): (String, i64, bool) =
            db.one("SELECT status, rounds_played, rated FROM matches").await;
        assert_eq!(
            (status.as_str(), rounds_played, rated),
            ("finished", 3, true)
        );
        let rounds: Vec<(
            i64,
            String,
            Option<i64>,
            Option<String>,
            Option<i64>,
            String,
        )> = db.rows("SELECT number, outcome, winner_id, formula, elapsed_ms, cards FROM rounds
                 ORDER BY number").await;
        assert_eq!(rounds.len(), 3);
        let winners: Vec<Option<i64>> = rounds.iter().map(|r| r.2).collect();
        assert_eq!(winners, vec![Some(ben_id), Some(ann_id), Some(ann_id)]);
        // Winning formulas are recorded as the parser prints them.
        assert_eq!(rounds[0].3.as_deref(), Some("1 + 2 + 3 + 4 + 5"));
        assert_eq!(rounds[1].3.as_deref(), Some("1 + 2 + 3 + 4 + 5"));
        assert!(rounds.iter().all(|r| r.1 == "won" && r.5 == "[1,2,3,4,5]"));
        let recorded: Vec<i64> = rounds.iter().map(|r| r.4.unwrap()).collect();
        assert_eq!(recorded, elapsed);
        let attempts: Vec<(i64, i64, bool, Option<String>)> =
            db.rows("SELECT round, player_id, accepted, verdict FROM attempts ORDER BY id").await;
        assert_eq!(
            attempts,
            vec![
                (1, ann_id, false, Some("wrong_value".to_owned())),
                (1, ben_id, true, None),
                (2, ann_id, true, None),
                (3, ann_id, true, None),
            ]
        );
        let players: Vec<(i64, i64, i64, Option<f64>, Option<f64>)> = db.rows("SELECT player_id, score, rank, rating_before, rating_after FROM match_players
             ORDER BY rank").await;
        assert_eq!(
            players,
            vec![
                (ann_id, 2, 1, Some(1500.0), Some(ann_after)),
                (ben_id, 1, 2, Some(1500.0), Some(ben_after)),
            ]
        );
        let rated: Vec<(i64, i64)> =
            db.rows("SELECT player_id, matches FROM ratings ORDER BY player_id").await;
        assert_eq!(rated, vec![(ann_id, 1), (ben_id, 1)]);

        // The HTTP API and the WebSocket serve it.
        let (status, profile) = server.get_json("/api/players/ann").await;
        assert_eq!(status, 200, "{profile}");
        assert_eq!(profile["name"], "Ann");
        assert_eq!(profile["rating"], ann_after);
        // One rated match: still a wide margin, and what ranking takes.
        assert!(profile["min_rated_matches"].is_u64(), "{profile}");
        assert!(profile["min_opponents"].is_u64(), "{profile}");
        let deviation = profile["rating_deviation"].as_f64().unwrap();
        assert!((300.0..500.0).contains(&deviation), "{profile}");
        assert_eq!(profile["matches"], 1);
        assert_eq!(profile["wins"], 1);
        assert_eq!(profile["rounds_won"], 2);
        assert_eq!(profile["fastest_ms"], *elapsed[1..].iter().min().unwrap());
        let recent = &profile["recent_matches"][0];
        assert_eq!(recent["rank"], 1);
        assert_eq!(recent["players"], 2);
        assert_eq!(recent["rating_after"], ann_after);

        let (status, board) = server
            .get_json("/api/leaderboard?metric=rounds&period=all")
            .await;
        assert_eq!(status, 200, "{board}");
        let rows: Vec<(Value, Value, Value)> = board["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| (r["rank"].clone(), r["name"].clone(), r["value"].clone()))
            .collect();
        assert_eq!(
            rows,
            vec![
                (json!(1), json!("Ann"), json!(2.0)),
                (json!(2), json!("Ben"), json!(1.0))
            ]
        );

        let reply = ben
            .request(json!({"type": "leaderboard", "metric": "rating"}))
            .await;
        assert_eq!(reply["type"], "leaderboard", "{reply}");
        assert_eq!(reply["rows"][0]["player"], ann_id);
        assert_eq!(reply["rows"][0]["value"], ann_after);
        assert_eq!(reply["rows"][0]["matches"], 1);
        let reply = ben
            .request(json!({"type": "leaderboard", "metric": "wins", "around": "Nobody"}))
            .await;
        assert_eq!(reply["code"], "player_not_found", "{reply}");
        server.shutdown().await;
    }

    #[tokio::test]
    async fn timed_out_rounds_and_a_solo_match_are_recorded_unrated() {
        let server = TestServer::with_config(scripted).await;
        let (mut ann, wa) = server.player("Ann").await;
        let ann_id = wa["player_id"].as_i64().unwrap();
        ann.request(json!({"type": "create_room", "settings": {"rounds": 2, "round_seconds": 10}}))
            .await;
        ann.request(json!({"type": "start"})).await;
        for round in 1..=2u64 {
            let out = ann.recv_type("round_timed_out").await;
            assert_eq!(out["round"], round);
        }
        let over = ann.recv_type("match_over").await;
        assert!(over["standings"][0].get("rating_after").is_none(), "{over}");

        let mut db = server.raw().await;
        let rounds: Vec<(String, Option<String>, Option<i64>)> =
            db.rows("SELECT outcome, solution, solutions FROM rounds ORDER BY number").await;
        assert_eq!(rounds.len(), 2);
        for (outcome, solution, solutions) in rounds {
            assert_eq!(outcome, "timed_out");
            assert!(solution.is_some());
            assert!(solutions.unwrap() > 0);
        }
        let (rated,): (bool,) = db.one("SELECT rated FROM matches").await;
        assert!(!rated);
        let (n,): (i64,) = db.one("SELECT count(*) FROM ratings").await;
        assert_eq!(n, 0);
        let (_, profile) = server.get_json("/api/players/Ann").await;
        assert_eq!(profile["player"], ann_id);
        assert_eq!(profile["rating"], Value::Null);
        assert_eq!(profile["matches"], 1);
        assert_eq!(profile["rated_matches"], 0);
        server.shutdown().await;
    }

    #[tokio::test]
    async fn a_puppet_that_never_answers_lifts_nobody() {
        // Even with the loosest board (one rated match against one opponent).
        let server = TestServer::with_config(scripted).await;
        let [(mut farmer, _), (mut puppet, _)] = server.players(["Farmer", "Puppet"]).await;
        room(&mut farmer, &mut [&mut puppet]).await;
        // Four one-round matches; the puppet sits through them silently.
        for _ in 0..4 {
            farmer.request(json!({"type": "start"})).await;
            round_started(&mut farmer, 1).await;
            let v = farmer.submit(1, "1+2+3+4+5").await;
            assert_eq!(v["accepted"], true, "{v}");
            let over = puppet.recv_type("match_over").await;
            assert!(
                common::unrated(&over),
                "an unrated match shows no rating change: {over}"
            );
            farmer.recv_type("match_over").await;
        }
        assert!(board(&server, "rating").await.is_empty());
        assert!(board(&server, "wins").await.is_empty());
        // The rounds were won, but in no race: on no board either.
        assert!(board(&server, "rounds").await.is_empty());
        assert!(board(&server, "fastest").await.is_empty());
        let (_, profile) = server.get_json("/api/players/Farmer").await;
        assert_eq!(profile["rating"], Value::Null, "{profile}");
        assert_eq!(profile["matches"], 4);
        assert_eq!(profile["rated_matches"], 0);
        assert_eq!(profile["wins"], 0);
        server.shutdown().await;
    }

    #[tokio::test]
    async fn a_farm_of_two_answering_puppets_never_ranks_its_farmer() {
        // One rated match is enough, but it takes three different opponents.
        let server = TestServer::with_config(|c| {
            scripted(c);
            c.min_rated_opponents = 3;
        })
        .await;
        let [(mut farmer, _), (mut one, _), (mut two, _)] =
            server.players(["Farmer", "PuppetOne", "PuppetTwo"]).await;
        room(&mut farmer, &mut [&mut one, &mut two]).await;
        for _ in 0..4 {
            // The puppets answer wrong, then the farmer wins.
            let over = one_round_match(&mut [&mut farmer, &mut one, &mut two], 0).await;
            assert!(over["standings"][0].get("rating_after").is_some(), "{over}");
            // The podium says so: "1500 → 1658?".
            assert_eq!(over["standings"][0]["rating_provisional"], true, "{over}");
        }
        // Rated, and winning, but against two opponents only.
        let (_, profile) = server.get_json("/api/players/Farmer").await;
        assert_eq!(profile["rated_matches"], 4, "{profile}");
        assert_eq!(profile["ranked"], false);
        assert!(board(&server, "rating").await.is_empty());

        // A third, real opponent: now the farmer has earned a place.
        farmer.request(json!({"type": "leave_room"})).await;
        let (mut cat, _) = server.player("Cat").await;
        room(&mut cat, &mut [&mut farmer]).await;
        let over = one_round_match(&mut [&mut cat, &mut farmer], 1).await;
        let standing = |name: &str| {
            over["standings"]
                .as_array()
                .and_then(|s| s.iter().find(|s| s["name"] == name))
                .cloned()
                .unwrap_or_else(|| panic!("no {name} in {over}"))
        };
        // Ranked from this match on: no "?" on the podium (the field is
        // left out), while Cat's first rating is provisional.
        assert!(standing("Farmer").get("rating_provisional").is_none(), "{over}");
        assert_eq!(standing("Cat")["rating_provisional"], true, "{over}");
        let (_, profile) = server.get_json("/api/players/Farmer").await;
        assert_eq!(profile["ranked"], true, "{profile}");
        assert_eq!(board(&server, "rating").await, ["Farmer"]);
        server.shutdown().await;
    }

    #[tokio::test]
    async fn bots_are_stored_as_bots_never_rated_and_on_no_board() {
        let server = TestServer::with_config(scripted).await;
        let [(mut ann, _), (mut ben, _)] = server.players(["Ann", "Ben"]).await;
        let mut robo = server.connect().await;
        robo.send(json!({"type": "hello", "protocol": 1, "name": "Robo", "bot": true}))
            .await;
        let welcome = robo.recv().await;
        assert_eq!(welcome["type"], "welcome", "{welcome}");
        let robo_id = welcome["player_id"].clone();
        room(&mut ann, &mut [&mut ben, &mut robo]).await;
        // The bot wins; the two people each made an attempt: rated for them.
        let over = one_round_match(&mut [&mut ann, &mut ben, &mut robo], 2).await;
        let standings = over["standings"].as_array().unwrap();
        let bot_row = standings.iter().find(|s| s["player"] == robo_id).unwrap();
        assert_eq!(bot_row["rank"], 1, "{over}");
        assert!(bot_row.get("rating_after").is_none(), "{over}");
        assert!(standings
            .iter()
            .filter(|s| s["player"] != robo_id)
            .all(|s| s.get("rating_after").is_some()));
        for metric in ["rating", "wins", "rounds", "fastest"] {
            assert!(
                !board(&server, metric).await.contains(&"Robo".to_owned()),
                "{metric}"
            );
        }
        let (_, profile) = server.get_json("/api/players/Robo").await;
        assert_eq!(profile["rating"], Value::Null, "{profile}");
        assert_eq!(profile["rounds_won"], 0);
        // The match it won is counted where it is listed.
        assert_eq!(profile["matches"], 1, "{profile}");
        assert_eq!(profile["recent_matches"][0]["rank"], 1, "{profile}");
        let mut db = server.raw().await;
        let bots: Vec<(String,)> = db.rows("SELECT name FROM players WHERE bot").await;
        assert_eq!(bots, vec![("Robo".to_owned(),)]);
        server.shutdown().await;
    }
}
