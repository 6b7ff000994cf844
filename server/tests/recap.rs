//! A match's recap: `match_over` carries the match's id, and
//! `GET /api/matches/{id}` tells the match round by round — the hand, who
//! won in how long, who missed, and every distinct solution with the
//! winner's, the shortest and one nobody found pointed out. Hostile ids
//! get a typed 400 or 404.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[macro_use]
mod common;

use common::scripted::{missed_then_won, one_hand, round_started};
use common::TestServer;
use krypto_core::rules::Rules;
use krypto_core::solver;
use serde_json::{json, Value};

/// Two rounds: in the first Ann misses, then Ben wins; in the second Ann
/// wins. Both see the `match_over`, which is returned.
async fn two_rounds(server: &TestServer) -> Value {
    let [(mut ann, _), (mut ben, _)] = server.players(["Ann", "Ben"]).await;
    ann.host_match(json!({"rounds": 2, "round_seconds": 10}), &mut [&mut ben])
        .await;
    missed_then_won(&mut ann, &mut ben, 1, "5+4+3+2+1").await;
    round_started(&mut ann, 2).await;
    round_started(&mut ben, 2).await;
    let won = ann.submit(2, "(1+2)*5*(4-3)").await;
    assert_eq!(won["accepted"], true, "{won}");
    let over = ann.recv_type("match_over").await;
    assert_eq!(ben.recv_type("match_over").await, over);
    over
}

on_both! {
    #[tokio::test]
    async fn a_finished_match_is_told_round_by_round() {
        let server = TestServer::with_config(one_hand).await;
        let over = two_rounds(&server).await;
        let id = over["match"].as_str().unwrap_or_else(|| panic!("no match id in {over}"));
        let (status, recap) = server.get_json(&format!("/api/matches/{id}")).await;
        assert_eq!(status, 200, "{recap}");
        assert_eq!(recap["match"], id);
        assert_eq!(recap["status"], "finished");
        assert_eq!(recap["settings"]["rounds"], 2);
        assert_eq!(recap["standings"][0]["name"], "Ann");
        assert_eq!(recap["standings"][0]["rank"], 1);
        let rounds = recap["rounds"].as_array().unwrap();
        assert_eq!(rounds.len(), 2, "{recap}");

        let all: Vec<String> = solver::solve_all(&[1, 2, 3, 4, 5], 15, Rules::Free)
            .unwrap()
            .iter()
            .map(ToString::to_string)
            .collect();
        let first = &rounds[0];
        assert_eq!(first["number"], 1);
        assert_eq!(first["objective"], 15);
        assert_eq!(first["cards"], json!([1, 2, 3, 4, 5]));
        assert_eq!(first["winner"], "Ben");
        assert!(first["elapsed_ms"].as_u64().is_some(), "{first}");
        // Who missed, then who won, in order; a wrong formula's text is not
        // shown, a right one is, as the checker prints it.
        let attempts = first["attempts"].as_array().unwrap();
        assert_eq!(attempts.len(), 2, "{first}");
        assert_eq!(attempts[0]["who"], "Ann");
        assert_eq!(attempts[0]["right"], false);
        assert_eq!(attempts[0]["formula"], Value::Null);
        assert_eq!(attempts[0]["verdict"], "wrong_value");
        assert_eq!(attempts[1]["who"], "Ben");
        assert_eq!(attempts[1]["right"], true);
        assert_eq!(attempts[1]["formula"], "5 + 4 + 3 + 2 + 1");
        assert_eq!(first["attempts_total"], 2);
        // Every distinct solution, as `krypto solve --all` lists them.
        assert_eq!(first["solutions_total"], all.len());
        let listed: Vec<String> = first["solutions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap().to_owned())
            .collect();
        assert_eq!(listed, all[..listed.len()]);
        let marks = &first["marks"];
        let winner = marks["winner"].as_u64().unwrap() as usize;
        assert_eq!(listed[winner], "1 + 2 + 3 + 4 + 5", "the winner's is marked");
        assert_eq!(marks["shortest"], 0);
        let unfound = marks["unfound"].as_u64().unwrap() as usize;
        assert_ne!(unfound, winner);

        let second = &rounds[1];
        assert_eq!(second["winner"], "Ann");
        assert_eq!(second["attempts"][0]["who"], "Ann");
        server.shutdown().await;
    }

    #[tokio::test]
    async fn hostile_match_ids_are_refused_with_a_typed_error() {
        let server = TestServer::with_config(one_hand).await;
        for bad in ["not-a-uuid", "1", "%FF%FE", "..%2F..%2Fetc", &"a".repeat(1000)] {
            let (status, body) = server.get_json(&format!("/api/matches/{bad}")).await;
            assert_eq!(status, 400, "{bad}: {body}");
            assert_eq!(body["error"]["code"], "bad_request", "{body}");
            assert!(!body.to_string().contains(bad), "the id is not echoed: {body}");
        }
        let unknown = "0192f0c4-0000-7000-8000-000000000001";
        let (status, body) = server.get_json(&format!("/api/matches/{unknown}")).await;
        assert_eq!(status, 404, "{body}");
        assert_eq!(body["error"]["code"], "match_not_found", "{body}");
        server.shutdown().await;
    }
}
