//! The server's own bots, seated by a host from the waiting room
//! (`add_bot`, `remove_bot`), over real sockets on both databases: who may
//! add them and when, the room's caps, a bot answering on the room's clock
//! (a manual one here: no test waits on a real bot's thinking) and winning,
//! and never being rated or on a board.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[macro_use]
mod common;

use std::time::Duration;

use common::scripted::one_hand_on;
use common::{Client, TestServer};
use krypto_core::bot_pace::{self, BotSkill};
use krypto_core::room::{COUNTDOWN_MS, MAX_BOTS};
use krypto_core::settings::Variant;
use krypto_server::ManualClock;
use serde_json::{json, Value};

/// `host` adds a bot of `skill`; the `player_joined` everyone gets (what
/// `host` was sent before it, such as people joining, is skipped).
async fn add_bot(host: &mut Client, skill: &str) -> Value {
    host.send(json!({"type": "add_bot", "skill": skill})).await;
    loop {
        let joined = host.recv().await;
        assert_ne!(joined["type"], "error", "{joined}");
        if joined["type"] == "player_joined" && joined["bot"] == true {
            return joined;
        }
    }
}

/// The next `player_joined` of a bot `member` is sent.
async fn bot_joined(member: &mut Client) -> Value {
    loop {
        let joined = member.recv_type("player_joined").await;
        if joined["bot"] == true {
            return joined;
        }
    }
}

/// The longest a bot of `skill` thinks about any hand, jitter included.
fn longest_think(skill: BotSkill) -> Duration {
    let ms = bot_pace::think_ms(skill, Variant::Krypto, 1);
    Duration::from_millis(ms * u64::from(*bot_pace::JITTER_PERCENT.end()) / 100 + 1)
}

on_both! {
    #[tokio::test]
    async fn the_host_adds_and_removes_a_bot_and_everyone_sees_it() {
        let server = TestServer::start().await;
        let ([(mut ann, _), (mut ben, _)], code) =
            server.seated(["Ann", "Ben"], json!({})).await;
        let joined = add_bot(&mut ann, "medium").await;
        assert_eq!(joined["bot"], true);
        assert_eq!(joined["spectator"], false);
        assert!(joined["name"].as_str().unwrap().ends_with("(medium bot)"), "{joined}");
        assert_eq!(bot_joined(&mut ben).await, joined);
        let bot = joined["player"].clone();

        // It is a seated player in the snapshot of whoever comes in next,
        // marked as a bot.
        let (mut cy, _) = server.player("Cy").await;
        let state = cy.request(json!({"type": "join_room", "code": code})).await;
        for member in [&mut ann, &mut ben] {
            member.recv_type("player_joined").await;
        }
        let row = common::member(&state, &bot).unwrap();
        assert_eq!(row["bot"], true, "{row}");

        // A bot can never host.
        ann.refused(json!({"type": "transfer_host", "player": bot}), "not_a_player")
            .await;
        // A guest can neither add nor remove one.
        ben.refused(json!({"type": "add_bot", "skill": "hard"}), "not_host").await;
        ben.refused(json!({"type": "remove_bot", "player": bot}), "not_host").await;
    }

    #[tokio::test]
    async fn a_bot_leaves_when_removed_and_a_person_cannot_be_removed_as_one() {
        let server = TestServer::start().await;
        let ([(mut ann, _), (mut ben, ben_welcome)], _) =
            server.seated(["Ann", "Ben"], json!({})).await;
        let bot = add_bot(&mut ann, "easy").await["player"].clone();
        bot_joined(&mut ben).await;
        ann.refused(
            json!({"type": "remove_bot", "player": ben_welcome["player_id"]}),
            "not_a_player",
        )
        .await;
        ann.send(json!({"type": "remove_bot", "player": bot})).await;
        let left = ann.recv_type("player_left").await;
        assert_eq!(left["player"], bot);
        assert_eq!(ben.recv_type("player_left").await["player"], bot);
        ann.refused(json!({"type": "remove_bot", "player": bot}), "player_not_found")
            .await;
        // The same bot can come back.
        assert_eq!(add_bot(&mut ann, "easy").await["player"], bot);
    }

    #[tokio::test]
    async fn bots_are_capped_per_room_and_take_players_seats() {
        let server = TestServer::start().await;
        let (mut ann, _) = server.player("Ann").await;
        ann.host_room(json!({}), &mut []).await;
        let mut names = Vec::new();
        for skill in ["easy", "medium", "hard", "medium"] {
            names.push(add_bot(&mut ann, skill).await["name"].clone());
        }
        assert_eq!(names.len(), MAX_BOTS as usize);
        names.sort_by_key(ToString::to_string);
        names.dedup();
        assert_eq!(names.len(), MAX_BOTS as usize, "each bot of a room has its own name");
        let refused = ann
            .refused(json!({"type": "add_bot", "skill": "easy"}), "room_full")
            .await;
        assert!(refused["message"].as_str().unwrap().contains("bots"), "{refused}");

        // In a room of 2 players, one bot fills it.
        let (mut cy, _) = server.player("Cy").await;
        cy.host_room(json!({"max_players": 2}), &mut []).await;
        add_bot(&mut cy, "hard").await;
        cy.refused(json!({"type": "add_bot", "skill": "hard"}), "room_full")
            .await;
    }

    #[tokio::test]
    async fn a_bot_answers_on_the_rooms_clock_wins_and_is_never_rated_or_on_a_board() {
        let clock = ManualClock::new();
        let server = one_hand_on(&clock).await;
        let (mut ann, _) = server.player("Ann").await;
        ann.host_room(json!({"rounds": 1, "round_seconds": 120}), &mut [])
            .await;
        let bot = add_bot(&mut ann, "hard").await;
        let bot_id = bot["player"].clone();
        let started = ann.request(json!({"type": "start"})).await;
        assert_ne!(started["type"], "error", "{started}");
        // Not while a match is being played.
        ann.refused(json!({"type": "add_bot", "skill": "easy"}), "wrong_state")
            .await;
        ann.refused(json!({"type": "remove_bot", "player": bot_id}), "wrong_state")
            .await;
        clock.advance(Duration::from_millis(COUNTDOWN_MS));
        ann.recv_type("round_started").await;
        // Nothing before the bot has thought; Ann lets it win.
        clock.advance(longest_think(BotSkill::Hard));
        let won = ann.recv_type("round_won").await;
        assert_eq!(won["winner"], bot_id, "{won}");
        let formula = won["formula"].as_str().unwrap();
        assert!(
            krypto_core::formula::check(formula, &[1, 2, 3, 4, 5], 15, krypto_core::Rules::Free)
                .is_ok(),
            "{formula}"
        );
        assert!(won["elapsed_ms"].as_u64().unwrap() <= longest_think(BotSkill::Hard).as_millis() as u64);
        let over = ann.recv_type("match_over").await;
        let standings = over["standings"].as_array().unwrap();
        let first = &standings[0];
        assert_eq!(first["player"], bot_id, "{over}");
        assert!(first.get("rating_after").is_none_or(Value::is_null), "{over}");

        // Stored as a bot: no rating, no statistics, on no board.
        let mut raw = server.raw().await;
        let id = bot_id.as_i64().unwrap();
        let (is_bot,): (bool,) = raw
            .one(&format!("SELECT bot FROM players WHERE id = {id}"))
            .await;
        assert!(is_bot);
        let (ratings,): (i64,) = raw
            .one(&format!("SELECT COUNT(*) FROM ratings WHERE player_id = {id}"))
            .await;
        assert_eq!(ratings, 0);
        let (won_rounds,): (i64,) = raw
            .one(&format!("SELECT COUNT(*) FROM rounds WHERE winner_id = {id}"))
            .await;
        assert_eq!(won_rounds, 1, "the round is recorded as the bot's");
        for metric in ["rating", "wins", "rounds", "fastest"] {
            let (status, body) = server
                .get_json(&format!("/api/leaderboard?metric={metric}"))
                .await;
            assert_eq!(status, 200);
            assert!(!body.to_string().contains("bot)"), "{metric}: {body}");
        }
    }

    #[tokio::test]
    async fn a_medium_bot_wins_within_its_time_slip_or_not_and_leaves_with_the_last_person() {
        let clock = ManualClock::new();
        let server = one_hand_on(&clock).await;
        let (mut ann, _) = server.player("Ann").await;
        let code = ann
            .host_room(
                json!({"rounds": 1, "round_seconds": 120, "lockout_seconds": 10}),
                &mut [],
            )
            .await;
        add_bot(&mut ann, "medium").await;
        ann.request(json!({"type": "start"})).await;
        clock.advance(Duration::from_millis(COUNTDOWN_MS));
        ann.recv_type("round_started").await;
        // However the bot begins (a slip now and then at medium), it ends
        // with the round won, after a lockout if it slipped.
        // (10 s of lockout at most here, and a moment to fix the slip.)
        clock.advance(longest_think(BotSkill::Medium));
        clock.advance(Duration::from_secs(15));
        let won = ann.recv_type("round_won").await;
        assert!(won["winner"].is_i64(), "{won}");
        ann.recv_type("match_over").await;

        // Ann leaves: the bot does not keep the room open.
        ann.request(json!({"type": "leave_room"})).await;
        let (mut ben, _) = server.player("Ben").await;
        ben.refused(json!({"type": "join_room", "code": code}), "room_not_found")
            .await;
    }
}
