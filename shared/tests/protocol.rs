//! The wire shapes of protocol v1: every message serializes to the JSON the
//! docs show and parses back; bad input gives the right typed error.

#![allow(clippy::unwrap_used)]

use krypto_core::protocol::*;
use krypto_core::Rules;
use serde::de::DeserializeOwned;
use serde_json::{json, Value};
use std::cell::RefCell;
use std::collections::BTreeSet;
use std::fmt::Debug;
use strum::IntoEnumIterator;

thread_local! {
    /// The message types the round trips of the current test went through.
    static SEEN: RefCell<BTreeSet<&'static str>> = const { RefCell::new(BTreeSet::new()) };
}

/// Notes that `serde_type` (the `"type"` serde wrote) was seen, after
/// checking it is the name the protocol derives for the message.
fn saw(serde_type: &Value, derived: &'static str) {
    assert_eq!(
        serde_type,
        &json!(derived),
        "serde and strum name a message differently"
    );
    SEEN.with(|seen| seen.borrow_mut().insert(derived));
}

/// Fails unless this test's round trips went through every type in `all`: a
/// new message must come with its documented shape.
fn assert_every_type_seen(all: &[&'static str]) {
    let seen = SEEN.with(|seen| seen.take());
    let missing: Vec<_> = all.iter().filter(|t| !seen.contains(*t)).collect();
    assert!(missing.is_empty(), "no round trip for {missing:?}");
}

/// Asserts that `env`, sent as `text` with a message of type `message_type`,
/// is exactly `expected`, that `parse` gives `env` back from `expected`, and
/// that the derived Deserialize (through flatten) agrees with the parser.
fn round_trip<E: DeserializeOwned + PartialEq + Debug>(
    env: E,
    text: &str,
    message_type: &'static str,
    parse: fn(&str) -> Result<E, ProtocolError>,
    expected: Value,
) {
    let got: Value = serde_json::from_str(text).unwrap();
    assert_eq!(got, expected, "serialized {env:?}");
    saw(&got["type"], message_type);
    assert_eq!(parse(&expected.to_string()).unwrap(), env);
    assert_eq!(serde_json::from_value::<E>(expected).unwrap(), env);
}

/// [`round_trip`] of a client message with `id`.
fn client_round_trip(id: Option<&str>, msg: ClientMessage, expected: Value) {
    let env = ClientEnvelope {
        id: id.map(str::to_owned),
        message: msg,
    };
    let text = env.to_json().unwrap();
    let message_type = env.message.message_type();
    round_trip(env, &text, message_type, parse_client_message, expected);
}

/// [`round_trip`] of a server message with `id`.
fn server_round_trip(id: Option<&str>, msg: ServerMessage, expected: Value) {
    let env = ServerEnvelope::reply(id.map(str::to_owned), msg);
    let text = env.to_json().unwrap();
    let message_type = env.message.message_type();
    round_trip(env, &text, message_type, parse_server_message, expected);
}

fn date(text: &str) -> chrono::NaiveDate {
    text.parse().unwrap()
}

fn challenge_code() -> ChallengeCode {
    "K7QXM2PD".parse().unwrap()
}

fn default_settings_json() -> Value {
    json!({
        "variant": "krypto", "rules": "free", "rounds": 10, "target_score": null,
        "round_seconds": 90, "lockout_seconds": 5, "wrong_penalty": 0, "deal": "solvable",
        "difficulty": "any", "max_players": 8, "public": false, "scoring": "first"
    })
}

#[test]
fn client_messages_have_the_documented_shapes() {
    client_round_trip(
        Some("1"),
        ClientMessage::Hello {
            protocol: 1,
            name: Some("Ada".into()),
            token: None,
            ticket: None,
            bot: false,
            device: None,
        },
        json!({"id": "1", "type": "hello", "protocol": 1, "name": "Ada"}),
    );
    client_round_trip(
        None,
        ClientMessage::Hello {
            protocol: 1,
            name: Some("Ada".into()),
            token: Some("abc".into()),
            ticket: None,
            bot: true,
            device: Some("krypto terminal".into()),
        },
        json!({"type": "hello", "protocol": 1, "name": "Ada", "token": "abc", "bot": true, "device": "krypto terminal"}),
    );
    client_round_trip(
        None,
        ClientMessage::ListRooms { after: None },
        json!({"type": "list_rooms"}),
    );
    client_round_trip(
        Some("c"),
        ClientMessage::CreateRoom {
            settings: Some(SettingsPatch {
                rounds: Some(5),
                target_score: Some(None),
                variant: Some(Variant::TwentyFour),
                ..SettingsPatch::default()
            }),
            public: Some(true),
        },
        json!({"id": "c", "type": "create_room",
               "settings": {"rounds": 5, "target_score": null, "variant": "24"}, "public": true}),
    );
    client_round_trip(
        None,
        ClientMessage::CreateRoom {
            settings: None,
            public: None,
        },
        json!({"type": "create_room"}),
    );
    client_round_trip(
        None,
        ClientMessage::JoinRoom {
            code: "KXR7P".into(),
            spectator: true,
        },
        json!({"type": "join_room", "code": "KXR7P", "spectator": true}),
    );
    client_round_trip(
        None,
        ClientMessage::LeaveRoom,
        json!({"type": "leave_room"}),
    );
    client_round_trip(
        None,
        ClientMessage::UpdateSettings {
            settings: SettingsPatch {
                rules: Some(Rules::International),
                target_score: Some(Some(5)),
                deal: Some(DealMode::Any),
                difficulty: Some(Difficulty::Hard),
                ..SettingsPatch::default()
            },
        },
        json!({"type": "update_settings", "settings":
            {"rules": "international", "target_score": 5, "deal": "any", "difficulty": "hard"}}),
    );
    client_round_trip(None, ClientMessage::Start, json!({"type": "start"}));
    client_round_trip(
        Some("s1"),
        ClientMessage::Submit {
            round: 3,
            formula: "(8+2)*3-13".into(),
        },
        json!({"id": "s1", "type": "submit", "round": 3, "formula": "(8+2)*3-13"}),
    );
    client_round_trip(
        None,
        ClientMessage::ClaimNoSolution { round: 2 },
        json!({"type": "claim_no_solution", "round": 2}),
    );
    client_round_trip(
        None,
        ClientMessage::Chat { text: "gg".into() },
        json!({"type": "chat", "text": "gg"}),
    );
    client_round_trip(
        None,
        ClientMessage::Kick {
            player: PlayerId(42),
        },
        json!({"type": "kick", "player": 42}),
    );
    client_round_trip(
        None,
        ClientMessage::Lock { locked: true },
        json!({"type": "lock", "locked": true}),
    );
    client_round_trip(
        None,
        ClientMessage::TransferHost {
            player: PlayerId(7),
        },
        json!({"type": "transfer_host", "player": 7}),
    );
    client_round_trip(
        None,
        ClientMessage::React {
            emoji: "🎉".into()
        },
        json!({"type": "react", "emoji": "🎉"}),
    );
    client_round_trip(
        Some("r1"),
        ClientMessage::Ready,
        json!({"id": "r1", "type": "ready"}),
    );
    client_round_trip(
        None,
        ClientMessage::AddBot {
            skill: krypto_core::bot_pace::BotSkill::Medium,
        },
        json!({"type": "add_bot", "skill": "medium"}),
    );
    client_round_trip(
        None,
        ClientMessage::RemoveBot {
            player: PlayerId(41),
        },
        json!({"type": "remove_bot", "player": 41}),
    );
    client_round_trip(
        None,
        ClientMessage::Leaderboard {
            metric: Some(Metric::Fastest),
            period: Some(Period::Week),
            limit: Some(20),
            around: Some("Ada".into()),
        },
        json!({"type": "leaderboard", "metric": "fastest", "period": "week",
               "limit": 20, "around": "Ada"}),
    );
    client_round_trip(
        None,
        ClientMessage::Leaderboard {
            metric: None,
            period: None,
            limit: None,
            around: None,
        },
        json!({"type": "leaderboard"}),
    );
    client_round_trip(
        Some("p"),
        ClientMessage::Ping,
        json!({"id": "p", "type": "ping"}),
    );
    client_round_trip(
        Some("l"),
        ClientMessage::LinkDevice {
            base: Some("http://192.168.1.20:7878".into()),
        },
        json!({"id": "l", "type": "link_device", "base": "http://192.168.1.20:7878"}),
    );
    client_round_trip(
        Some("v"),
        ClientMessage::Devices,
        json!({"id": "v", "type": "devices"}),
    );
    client_round_trip(
        None,
        ClientMessage::RevokeDevice {
            device: "0123456789abcdef".into(),
        },
        json!({"type": "revoke_device", "device": "0123456789abcdef"}),
    );
    client_round_trip(
        None,
        ClientMessage::Hello {
            protocol: 1,
            name: None,
            token: None,
            ticket: Some("K7QX-M2PD".into()),
            bot: false,
            device: None,
        },
        json!({"type": "hello", "protocol": 1, "ticket": "K7QX-M2PD"}),
    );
    client_round_trip(
        None,
        ClientMessage::DailyStart { date: None },
        json!({"type": "daily_start"}),
    );
    client_round_trip(
        Some("d"),
        ClientMessage::DailyStart {
            date: Some(date("2026-11-20")),
        },
        json!({"id": "d", "type": "daily_start", "date": "2026-11-20"}),
    );
    client_round_trip(
        None,
        ClientMessage::DailySubmit {
            formula: "5×13−8×2×3".into(),
        },
        json!({"type": "daily_submit", "formula": "5×13−8×2×3"}),
    );
    client_round_trip(None, ClientMessage::RunStart, json!({"type": "run_start"}));
    client_round_trip(
        None,
        ClientMessage::RunResume,
        json!({"type": "run_resume"}),
    );
    client_round_trip(
        None,
        ClientMessage::RunSubmit {
            hand: 4,
            formula: "8+2+3+13-5".into(),
        },
        json!({"type": "run_submit", "hand": 4, "formula": "8+2+3+13-5"}),
    );
    client_round_trip(
        None,
        ClientMessage::ChallengeCreate { round: None },
        json!({"type": "challenge_create"}),
    );
    client_round_trip(
        None,
        ClientMessage::ChallengeCreate { round: Some(3) },
        json!({"type": "challenge_create", "round": 3}),
    );
    client_round_trip(
        None,
        ClientMessage::ChallengeStart {
            code: challenge_code(),
        },
        json!({"type": "challenge_start", "code": "K7QXM2PD"}),
    );
    client_round_trip(
        None,
        ClientMessage::ChallengeSubmit {
            formula: "1+2".into(),
        },
        json!({"type": "challenge_submit", "formula": "1+2"}),
    );
    client_round_trip(
        None,
        ClientMessage::PracticeStart {
            difficulty: Difficulty::Hard,
        },
        json!({"type": "practice_start", "difficulty": "hard"}),
    );
    let any: ClientEnvelope = serde_json::from_value(json!({"type": "practice_start"})).unwrap();
    assert_eq!(
        any.message,
        ClientMessage::PracticeStart {
            difficulty: Difficulty::Any
        }
    );
    client_round_trip(
        None,
        ClientMessage::PracticeHint,
        json!({"type": "practice_hint"}),
    );
    client_round_trip(
        None,
        ClientMessage::PracticeSubmit {
            hand: 2,
            formula: "8×3".into(),
        },
        json!({"type": "practice_submit", "hand": 2, "formula": "8×3"}),
    );
    client_round_trip(
        None,
        ClientMessage::PracticeSkip,
        json!({"type": "practice_skip"}),
    );
    assert_every_type_seen(ClientMessage::TYPES);
}

#[test]
fn message_type_lists_are_derived_from_the_enums() {
    let client: Vec<&str> = ClientMessageType::iter().map(<&str>::from).collect();
    assert_eq!(ClientMessage::TYPES, client.as_slice());
    let server: Vec<&str> = ServerMessageType::iter().map(<&str>::from).collect();
    assert_eq!(ServerMessage::TYPES, server.as_slice());
}

#[test]
fn every_client_type_is_listed() {
    for t in ClientMessage::TYPES {
        // A listed type never reports "unknown type".
        let err = parse_client_message(&json!({"type": t, "round": "x"}).to_string());
        if let Err(e) = err {
            assert!(
                !matches!(e.kind, ProtocolErrorKind::UnknownType(_)),
                "{t}: {e}"
            );
        }
    }
}

fn sample_snapshot() -> RoomSnapshot {
    RoomSnapshot {
        code: "KXR7P".into(),
        host: PlayerId(1),
        settings: RoomSettings::default(),
        state: RoomPhase::Playing,
        locked: false,
        players: vec![
            PlayerInfo {
                id: PlayerId(1),
                name: "Ada".into(),
                score: 2,
                connected: true,
                spectator: false,
                waiting: false,
                bot: false,
            },
            PlayerInfo {
                id: PlayerId(2),
                name: "Bob".into(),
                score: 0,
                connected: false,
                spectator: true,
                waiting: false,
                bot: true,
            },
        ],
        round: Some(RoundInfo {
            number: 3,
            objective: 17,
            cards: vec![8, 2, 3, 13, 5],
            remaining_ms: 41_250,
            duration_ms: 90_000,
            locked_out_ms: Some(1200),
            misses: vec![RoundMisses {
                player: PlayerId(2),
                count: 2,
                locked_out_ms: Some(1200),
            }],
        }),
        rounds_total: 10,
        next_ms: None,
        recent: vec![ServerMessage::Chat {
            from: PlayerId(2),
            name: "Bob".into(),
            text: "hi".into(),
        }],
        ready_check: None,
    }
}

#[test]
fn server_messages_have_the_documented_shapes() {
    server_round_trip(
        Some("1"),
        ServerMessage::Welcome {
            protocol: 1,
            player_id: PlayerId(1),
            name: "Ada".into(),
            token: "t0k".into(),
            server_version: "0.1.0".into(),
            resumed: false,
            join_urls: vec!["http://192.168.1.20:7878".into()],
        },
        json!({"id": "1", "type": "welcome", "protocol": 1, "player_id": 1, "name": "Ada",
               "token": "t0k", "server_version": "0.1.0", "resumed": false,
               "join_urls": ["http://192.168.1.20:7878"]}),
    );
    server_round_trip(
        None,
        ServerMessage::Rooms {
            rooms: vec![RoomSummary {
                code: "KXR7P".into(),
                host: "Ada".into(),
                players: 3,
                max_players: 8,
                state: RoomPhase::Lobby,
                settings: RoomSettings::default(),
            }],
            next: Some("KXR7P".into()),
        },
        json!({"type": "rooms", "rooms": [{"code": "KXR7P", "host": "Ada", "players": 3,
               "max_players": 8, "state": "lobby", "settings": default_settings_json()}],
               "next": "KXR7P"}),
    );
    server_round_trip(
        None,
        ServerMessage::RoomState(sample_snapshot()),
        json!({"type": "room_state", "code": "KXR7P", "host": 1,
               "settings": default_settings_json(), "state": "playing", "locked": false,
               "players": [
                   {"id": 1, "name": "Ada", "score": 2, "connected": true, "spectator": false, "waiting": false},
                   {"id": 2, "name": "Bob", "score": 0, "connected": false, "spectator": true, "waiting": false, "bot": true}],
               "round": {"number": 3, "objective": 17, "cards": [8, 2, 3, 13, 5],
                         "remaining_ms": 41250, "duration_ms": 90000, "locked_out_ms": 1200,
                         "misses": [{"player": 2, "count": 2, "locked_out_ms": 1200}]},
               "rounds_total": 10,
               "recent": [{"type": "chat", "from": 2, "name": "Bob", "text": "hi"}]}),
    );
    server_round_trip(
        None,
        ServerMessage::MatchStarted {
            rounds_total: 10,
            settings: RoomSettings::default(),
            countdown_ms: 3000,
        },
        json!({"type": "match_started", "rounds_total": 10, "settings": default_settings_json(),
               "countdown_ms": 3000}),
    );
    server_round_trip(
        None,
        ServerMessage::RoundStarted {
            round: 1,
            objective: 17,
            cards: vec![8, 2, 3, 13, 5],
            duration_ms: 90_000,
        },
        json!({"type": "round_started", "round": 1, "objective": 17, "cards": [8, 2, 3, 13, 5],
               "duration_ms": 90000}),
    );
    server_round_trip(
        Some("s1"),
        ServerMessage::Verdict {
            round: 1,
            accepted: true,
            value: Some("17".into()),
            error: None,
            locked_out_ms: None,
        },
        json!({"id": "s1", "type": "verdict", "round": 1, "accepted": true, "value": "17"}),
    );
    server_round_trip(
        Some("s2"),
        ServerMessage::Verdict {
            round: 1,
            accepted: false,
            value: Some("16".into()),
            error: Some(VerdictError {
                kind: VerdictKind::WrongValue,
                message: "the formula makes 16, not 17".into(),
                column: None,
            }),
            locked_out_ms: Some(5000),
        },
        json!({"id": "s2", "type": "verdict", "round": 1, "accepted": false, "value": "16",
               "error": {"kind": "wrong_value", "message": "the formula makes 16, not 17",
                         "column": null},
               "locked_out_ms": 5000}),
    );
    server_round_trip(
        None,
        ServerMessage::AttemptFailed {
            round: 1,
            player: PlayerId(2),
            score: -1,
        },
        json!({"type": "attempt_failed", "round": 1, "player": 2, "score": -1}),
    );
    server_round_trip(
        None,
        ServerMessage::RoundWon {
            win: RoundWin {
                round: 1,
                winner: PlayerId(1),
                formula: Some("(8+2)×3−13".into()),
                no_solution: false,
                elapsed_ms: 12_345,
                points: 1,
            },
            scores: vec![ScoreEntry {
                player: PlayerId(1),
                score: 1,
            }],
        },
        json!({"type": "round_won", "round": 1, "winner": 1, "formula": "(8+2)×3−13",
               "no_solution": false, "elapsed_ms": 12345, "points": 1,
               "scores": [{"player": 1, "score": 1}]}),
    );
    server_round_trip(
        None,
        ServerMessage::RoundWon {
            win: RoundWin {
                round: 2,
                winner: PlayerId(1),
                formula: None,
                no_solution: true,
                elapsed_ms: 5,
                points: 1,
            },
            scores: vec![],
        },
        json!({"type": "round_won", "round": 2, "winner": 1, "formula": null,
               "no_solution": true, "elapsed_ms": 5, "points": 1, "scores": []}),
    );
    // Under `scoring: everyone`: a right answer while others still solve
    // (no formula: it would give the hand away).
    server_round_trip(
        None,
        ServerMessage::Solved {
            round: 3,
            player: PlayerId(2),
            elapsed_ms: 6380,
            points: 2,
            score: 5,
        },
        json!({"type": "solved", "round": 3, "player": 2, "elapsed_ms": 6380, "points": 2,
               "score": 5}),
    );
    server_round_trip(
        None,
        ServerMessage::RoundTimedOut {
            round: 4,
            solution: None,
            solutions: 0,
        },
        json!({"type": "round_timed_out", "round": 4, "solution": null, "solutions": 0}),
    );
    server_round_trip(
        None,
        ServerMessage::MatchOver {
            standings: vec![
                Standing {
                    player: PlayerId(1),
                    name: "Ada".into(),
                    score: 5,
                    rank: 1,
                    rating_before: Some(0.0),
                    rating_after: Some(1.5),
                    rating_provisional: false,
                    solve_ms: None,
                },
                Standing {
                    player: PlayerId(2),
                    name: "Bob".into(),
                    score: 3,
                    rank: 2,
                    rating_before: None,
                    rating_after: None,
                    rating_provisional: false,
                    // The tiebreak under `everyone` scoring.
                    solve_ms: Some(41_200),
                },
            ],
            match_id: None,
        },
        json!({"type": "match_over", "standings": [
            {"player": 1, "name": "Ada", "score": 5, "rank": 1, "rating_before": 0.0, "rating_after": 1.5},
            {"player": 2, "name": "Bob", "score": 3, "rank": 2, "solve_ms": 41_200}]}),
    );
    server_round_trip(
        None,
        ServerMessage::MatchOver {
            standings: Vec::new(),
            match_id: Some("0192f0c4-0000-7000-8000-000000000001".into()),
        },
        json!({"type": "match_over", "standings": [],
               "match": "0192f0c4-0000-7000-8000-000000000001"}),
    );
    server_round_trip(
        None,
        ServerMessage::Chat {
            from: PlayerId(1),
            name: "Ada".into(),
            text: "gl".into(),
        },
        json!({"type": "chat", "from": 1, "name": "Ada", "text": "gl"}),
    );
    server_round_trip(
        None,
        ServerMessage::PlayerJoined {
            player: PlayerId(3),
            name: "Cy".into(),
            spectator: false,
            bot: false,
        },
        json!({"type": "player_joined", "player": 3, "name": "Cy", "spectator": false}),
    );
    server_round_trip(
        None,
        ServerMessage::PlayerLeft {
            player: PlayerId(3),
            name: "Cy".into(),
            reason: LeaveReason::Kicked,
        },
        json!({"type": "player_left", "player": 3, "name": "Cy", "reason": "kicked"}),
    );
    server_round_trip(
        None,
        ServerMessage::Reaction {
            player: PlayerId(3),
            name: "Cy".into(),
            emoji: "🔥".into(),
        },
        json!({"type": "reaction", "player": 3, "name": "Cy", "emoji": "🔥"}),
    );
    server_round_trip(
        None,
        ServerMessage::ReadyCheck {
            ms: 15_000,
            ready: vec![PlayerId(1)],
        },
        json!({"type": "ready_check", "ms": 15000, "ready": [1]}),
    );
    server_round_trip(
        None,
        ServerMessage::PlayerReady {
            player: PlayerId(3),
        },
        json!({"type": "player_ready", "player": 3}),
    );
    server_round_trip(
        None,
        ServerMessage::Leaderboard {
            metric: Metric::Rating,
            period: Period::All,
            rows: vec![LeaderboardRow {
                rank: 1,
                player: PlayerId(1),
                name: "Ada".into(),
                value: 25.5,
                matches: 12,
            }],
        },
        json!({"type": "leaderboard", "metric": "rating", "period": "all",
               "rows": [{"rank": 1, "player": 1, "name": "Ada", "value": 25.5, "matches": 12}]}),
    );
    server_round_trip(
        Some("p"),
        ServerMessage::Pong,
        json!({"id": "p", "type": "pong"}),
    );
    server_round_trip(
        Some("j"),
        ServerMessage::Redirect {
            url: "ws://host-b:7878/ws".into(),
            code: "KXR7P".into(),
            ticket: None,
        },
        json!({"id": "j", "type": "redirect", "url": "ws://host-b:7878/ws", "code": "KXR7P"}),
    );
    server_round_trip(
        None,
        ServerMessage::Redirect {
            url: "ws://host-b:7878/ws".into(),
            code: "KXR7P".into(),
            ticket: Some("0f".repeat(16)),
        },
        json!({"type": "redirect", "url": "ws://host-b:7878/ws", "code": "KXR7P", "ticket": "0f".repeat(16)}),
    );
    server_round_trip(
        Some("d"),
        ServerMessage::DeviceCode {
            code: "K7QX-M2PD".into(),
            expires_ms: 300_000,
            qr_svg: None,
        },
        json!({"id": "d", "type": "device_code", "code": "K7QX-M2PD", "expires_ms": 300_000}),
    );
    let phone = DeviceInfo {
        id: "0123456789abcdef".into(),
        label: "Firefox on Android".into(),
        created_ms: 1_764_300_000_000,
        last_used_ms: 1_764_300_060_000,
        this_device: true,
    };
    server_round_trip(
        Some("v"),
        ServerMessage::Devices {
            devices: vec![phone.clone()],
        },
        json!({"id": "v", "type": "devices", "devices": [{"id": "0123456789abcdef",
            "label": "Firefox on Android", "created_ms": 1_764_300_000_000_i64,
            "last_used_ms": 1_764_300_060_000_i64, "this_device": true}]}),
    );
    server_round_trip(
        None,
        ServerMessage::DeviceAdded {
            device: DeviceInfo {
                this_device: false,
                ..phone
            },
        },
        json!({"type": "device_added", "device": {"id": "0123456789abcdef",
            "label": "Firefox on Android", "created_ms": 1_764_300_000_000_i64,
            "last_used_ms": 1_764_300_060_000_i64}}),
    );
    server_round_trip(
        Some("j"),
        ServerMessage::error(ErrorCode::RoomNotFound, "no room KXR7P"),
        json!({"id": "j", "type": "error", "code": "room_not_found", "message": "no room KXR7P"}),
    );
    server_round_trip(
        Some("d"),
        ServerMessage::Daily {
            number: 312,
            date: date("2026-11-27"),
            objective: 17,
            cards: vec![8, 2, 3, 13, 5],
            elapsed_ms: 0,
            rated: true,
        },
        json!({"id": "d", "type": "daily", "number": 312, "date": "2026-11-27", "objective": 17,
               "cards": [8, 2, 3, 13, 5], "elapsed_ms": 0, "rated": true}),
    );
    server_round_trip(
        Some("s"),
        ServerMessage::DailySolved {
            number: 312,
            elapsed_ms: 42_250,
            misses: 1,
            streak: 5,
            rank: Some(3),
            share: "Krypto #312 ✓ 0:42 · 1 miss · 🔥5".into(),
            solutions: vec![
                SolutionEntry {
                    formula: "5 × 13 - 8 × 2 × 3".into(),
                    yours: true,
                },
                SolutionEntry {
                    formula: "13 + 8 ÷ 2 × (5 - 3)".into(),
                    yours: false,
                },
            ],
        },
        json!({"id": "s", "type": "daily_solved", "number": 312, "elapsed_ms": 42_250, "misses": 1,
               "streak": 5, "rank": 3, "share": "Krypto #312 ✓ 0:42 · 1 miss · 🔥5",
               "solutions": [{"formula": "5 × 13 - 8 × 2 × 3", "yours": true},
                             {"formula": "13 + 8 ÷ 2 × (5 - 3)"}]}),
    );
    server_round_trip(
        None,
        ServerMessage::DailySolved {
            number: 3,
            elapsed_ms: 61_000,
            misses: 0,
            streak: 0,
            rank: None,
            share: "Krypto #3 ✓ 1:01".into(),
            solutions: Vec::new(),
        },
        json!({"type": "daily_solved", "number": 3, "elapsed_ms": 61_000, "misses": 0,
               "streak": 0, "rank": null, "share": "Krypto #3 ✓ 1:01", "solutions": []}),
    );
    server_round_trip(
        Some("r"),
        ServerMessage::Run {
            hand: 1,
            objective: 9,
            cards: vec![4, 4, 10, 1, 6],
            duration_ms: 180_000,
            remaining_ms: 180_000,
            score: 0,
            combo: 0,
        },
        json!({"id": "r", "type": "run", "hand": 1, "objective": 9, "cards": [4, 4, 10, 1, 6],
               "duration_ms": 180_000, "remaining_ms": 180_000, "score": 0, "combo": 0}),
    );
    server_round_trip(
        None,
        ServerMessage::RunHand {
            hand: 6,
            objective: 12,
            cards: vec![3, 7, 7, 2, 9],
            remaining_ms: 151_200,
            score: 5,
            combo: 5,
            bonus_ms: 3_000,
        },
        json!({"type": "run_hand", "hand": 6, "objective": 12, "cards": [3, 7, 7, 2, 9],
               "remaining_ms": 151_200, "score": 5, "combo": 5, "bonus_ms": 3_000}),
    );
    server_round_trip(
        None,
        ServerMessage::RunHand {
            hand: 7,
            objective: 5,
            cards: vec![1, 2, 3, 4, 5],
            remaining_ms: 139_000,
            score: 5,
            combo: 0,
            bonus_ms: 0,
        },
        json!({"type": "run_hand", "hand": 7, "objective": 5, "cards": [1, 2, 3, 4, 5],
               "remaining_ms": 139_000, "score": 5, "combo": 0}),
    );
    server_round_trip(
        None,
        ServerMessage::RunOver {
            score: 14,
            misses: 2,
            best_combo: 9,
            duration_ms: 183_000,
        },
        json!({"type": "run_over", "score": 14, "misses": 2, "best_combo": 9, "duration_ms": 183_000}),
    );
    server_round_trip(
        Some("c"),
        ServerMessage::Challenge {
            code: challenge_code(),
        },
        json!({"id": "c", "type": "challenge", "code": "K7QXM2PD"}),
    );
    server_round_trip(
        None,
        ServerMessage::ChallengeHand {
            code: challenge_code(),
            by: "Ada".into(),
            objective: 17,
            cards: vec![8, 2, 3, 13, 5],
            rules: Rules::Free,
            elapsed_ms: 0,
            to_beat: Timed {
                elapsed_ms: 42_250,
                misses: 1,
            },
        },
        json!({"type": "challenge_hand", "code": "K7QXM2PD", "by": "Ada", "objective": 17,
               "cards": [8, 2, 3, 13, 5], "rules": "free", "elapsed_ms": 0,
               "to_beat": {"elapsed_ms": 42_250, "misses": 1}}),
    );
    server_round_trip(
        None,
        ServerMessage::ChallengeResult {
            code: challenge_code(),
            by: "Ada".into(),
            yours: Timed {
                elapsed_ms: 38_000,
                misses: 0,
            },
            theirs: Timed {
                elapsed_ms: 42_250,
                misses: 1,
            },
            outcome: ChallengeOutcome::Won,
        },
        json!({"type": "challenge_result", "code": "K7QXM2PD", "by": "Ada",
               "yours": {"elapsed_ms": 38_000, "misses": 0},
               "theirs": {"elapsed_ms": 42_250, "misses": 1}, "outcome": "won"}),
    );
    server_round_trip(
        None,
        ServerMessage::Practice {
            hand: 1,
            objective: 24,
            cards: vec![8, 3, 5, 5, 1],
            difficulty: Difficulty::Any,
            steps: 4,
        },
        json!({"type": "practice", "hand": 1, "objective": 24, "cards": [8, 3, 5, 5, 1],
               "difficulty": "any", "steps": 4}),
    );
    server_round_trip(
        None,
        ServerMessage::PracticeHint {
            hand: 1,
            step: "8 × 3 = 24".into(),
            steps_shown: 1,
            steps: 4,
        },
        json!({"type": "practice_hint", "hand": 1, "step": "8 × 3 = 24", "steps_shown": 1,
               "steps": 4}),
    );
    server_round_trip(
        None,
        ServerMessage::PracticeSolutions {
            hand: 1,
            objective: 24,
            cards: vec![8, 3, 5, 5, 1],
            solved: true,
            hints: 1,
            solutions: vec![SolutionEntry {
                formula: "8 × 3 × (5 - 5 + 1)".into(),
                yours: true,
            }],
        },
        json!({"type": "practice_solutions", "hand": 1, "objective": 24, "cards": [8, 3, 5, 5, 1],
               "solved": true, "hints": 1,
               "solutions": [{"formula": "8 × 3 × (5 - 5 + 1)", "yours": true}]}),
    );
    assert_every_type_seen(ServerMessage::TYPES);
}

#[test]
fn every_error_code_is_snake_case() {
    let codes = [
        (ErrorCode::BadMessage, "bad_message"),
        (ErrorCode::UnsupportedProtocol, "unsupported_protocol"),
        (ErrorCode::NotWelcomed, "not_welcomed"),
        (ErrorCode::InvalidName, "invalid_name"),
        (ErrorCode::NameTaken, "name_taken"),
        (ErrorCode::BadToken, "bad_token"),
        (ErrorCode::RoomNotFound, "room_not_found"),
        (ErrorCode::RoomFull, "room_full"),
        (ErrorCode::RoomLocked, "room_locked"),
        (ErrorCode::NotInRoom, "not_in_room"),
        (ErrorCode::AlreadyInRoom, "already_in_room"),
        (ErrorCode::NotHost, "not_host"),
        (ErrorCode::NotAPlayer, "not_a_player"),
        (ErrorCode::WrongState, "wrong_state"),
        (ErrorCode::WrongRound, "wrong_round"),
        (ErrorCode::RateLimited, "rate_limited"),
        (ErrorCode::TooLong, "too_long"),
        (ErrorCode::InvalidSettings, "invalid_settings"),
        (ErrorCode::PlayerNotFound, "player_not_found"),
        (ErrorCode::NoSuchDay, "no_such_day"),
        (ErrorCode::ChallengeNotFound, "challenge_not_found"),
    ];
    for (code, name) in codes {
        assert_eq!(serde_json::to_value(code).unwrap(), json!(name));
        assert_eq!(
            serde_json::from_value::<ErrorCode>(json!(name)).unwrap(),
            code
        );
    }
    // A newer server's code does not break an older client.
    assert_eq!(
        serde_json::from_value::<ErrorCode>(json!("brand_new")).unwrap(),
        ErrorCode::Unknown
    );
}

/// Every value of a wire enum: strum's name is serde's, and parses back.
fn assert_names_agree<T>()
where
    T: IntoEnumIterator + serde::Serialize + std::str::FromStr + PartialEq + std::fmt::Debug + Copy,
    &'static str: From<T>,
{
    for v in T::iter() {
        let name: &'static str = v.into();
        assert_eq!(serde_json::to_value(v).unwrap(), json!(name), "{v:?}");
        assert!(
            name.parse::<T>().ok() == Some(v),
            "{name} does not parse back"
        );
    }
}

#[test]
fn wire_names_are_serdes_names() {
    assert_names_agree::<Metric>();
    assert_names_agree::<Period>();
    assert_names_agree::<RoomPhase>();
    assert_names_agree::<LeaveReason>();
    assert_names_agree::<VerdictKind>();
    assert_names_agree::<ErrorCode>();
    assert_names_agree::<Variant>();
    assert_names_agree::<DealMode>();
    assert_names_agree::<Difficulty>();
    assert_names_agree::<ChallengeOutcome>();
    assert_eq!(Variant::TwentyFour.as_str(), "24");
    assert_eq!(ErrorCode::NotAPlayer.to_string(), "not_a_player");
    assert_eq!("WEEK".parse::<Period>(), Ok(Period::Week));
}

#[test]
fn checker_kinds_map_to_verdict_kinds_of_the_same_name() {
    use krypto_core::formula::{check, ErrorKind};
    for (formula, kind) in [
        ("8 +", ErrorKind::Syntax),
        ("9 + 19 + 14 + 2 + 21", ErrorKind::UnknownCard),
        ("8 + 8 + 19 + 14 + 2 + 21", ErrorKind::CardReused),
        ("8 + 19", ErrorKind::CardUnused),
        ("8 + 19 + 14 + 2 + 21", ErrorKind::WrongValue),
    ] {
        let e = check(formula, &[8, 19, 14, 2, 21], 17, Rules::Free).unwrap_err();
        assert_eq!(e.kind, kind, "{formula}");
    }
    for kind in ErrorKind::iter() {
        let verdict = VerdictKind::from(kind);
        assert_eq!(verdict.as_str(), kind.as_str(), "{kind:?}");
        assert_eq!(serde_json::to_value(kind).unwrap(), json!(kind.as_str()));
    }
}

#[test]
fn verdict_kinds_include_the_checkers_and_the_rooms() {
    for name in [
        "syntax",
        "too_long",
        "too_deep",
        "unknown_card",
        "card_reused",
        "card_unused",
        "division_by_zero",
        "rule_violation",
        "wrong_value",
        "overflow",
        "locked_out",
        "round_over",
        "has_solution",
    ] {
        let kind = VerdictKind::from_name(name);
        assert_ne!(kind, VerdictKind::Unknown, "{name}");
        assert_eq!(serde_json::to_value(kind).unwrap(), json!(name));
    }
    assert_eq!(VerdictKind::from_name("nope"), VerdictKind::Unknown);
}

#[test]
fn unknown_fields_are_ignored() {
    let env = parse_client_message(
        r#"{"type":"submit","round":1,"formula":"1+2","future":{"x":1},"id":"a"}"#,
    )
    .unwrap();
    assert_eq!(env.id.as_deref(), Some("a"));
    assert_eq!(
        env.message,
        ClientMessage::Submit {
            round: 1,
            formula: "1+2".into()
        }
    );
    let env = parse_client_message(r#"{"type":"ping","extra":true}"#).unwrap();
    assert_eq!(env.message, ClientMessage::Ping);
    let env =
        parse_client_message(r#"{"type":"create_room","settings":{"rounds":3,"colour":"red"}}"#)
            .unwrap();
    assert!(matches!(
        env.message,
        ClientMessage::CreateRoom {
            settings: Some(SettingsPatch {
                rounds: Some(3),
                ..
            }),
            ..
        }
    ));
    let env = parse_server_message(r#"{"type":"pong","server_time":1}"#).unwrap();
    assert_eq!(env.message, ServerMessage::Pong);
}

#[test]
fn bad_input_gives_typed_errors() {
    let kind = |s: &str| parse_client_message(s).unwrap_err().kind;
    assert!(matches!(
        kind("{not json"),
        ProtocolErrorKind::InvalidJson(_)
    ));
    assert!(matches!(kind(""), ProtocolErrorKind::InvalidJson(_)));
    assert_eq!(kind("[1,2]"), ProtocolErrorKind::NotAnObject);
    assert_eq!(kind("\"hello\""), ProtocolErrorKind::NotAnObject);
    assert_eq!(kind(r#"{"round":1}"#), ProtocolErrorKind::MissingType);
    assert_eq!(kind(r#"{"type":5}"#), ProtocolErrorKind::MissingType);
    assert_eq!(
        kind(r#"{"type":"dance"}"#),
        ProtocolErrorKind::UnknownType("dance".into())
    );
    assert_eq!(kind(r#"{"type":"ping","id":5}"#), ProtocolErrorKind::BadId);
    let long_id = "x".repeat(MAX_ID_LEN + 1);
    assert_eq!(
        kind(&json!({"type": "ping", "id": long_id}).to_string()),
        ProtocolErrorKind::BadId
    );

    let err = parse_client_message(r#"{"type":"submit","id":"q","formula":"1+2"}"#).unwrap_err();
    assert_eq!(err.id.as_deref(), Some("q"), "the id is echoed on errors");
    match &err.kind {
        ProtocolErrorKind::BadFields {
            message_type,
            detail,
        } => {
            assert_eq!(message_type, "submit");
            assert!(detail.contains("round"), "{detail}");
        }
        other => panic!("{other:?}"),
    }
    let reply: Value = serde_json::from_str(&err.to_envelope().to_json().unwrap()).unwrap();
    assert_eq!(reply["type"], "error");
    assert_eq!(reply["code"], "bad_message");
    assert_eq!(reply["id"], "q");
    assert!(reply["message"].as_str().unwrap().contains("round"));

    // Wrong kinds of values are bad fields too, never a panic.
    for text in [
        r#"{"type":"submit","round":-1,"formula":"1"}"#,
        r#"{"type":"submit","round":1,"formula":7}"#,
        r#"{"type":"kick","player":"bob"}"#,
        r#"{"type":"lock"}"#,
        r#"{"type":"hello","name":"Ada"}"#,
        r#"{"type":"update_settings","settings":{"variant":"chess"}}"#,
        r#"{"type":"update_settings","settings":{"rounds":1e9}}"#,
        r#"{"type":"leaderboard","metric":"karma"}"#,
        r#"{"type":"daily_start","date":"2026-02-30"}"#,
        r#"{"type":"daily_start","date":"27/11/2026"}"#,
        r#"{"type":"daily_start","date":20261127}"#,
        r#"{"type":"daily_submit"}"#,
        r#"{"type":"run_submit","formula":"1+2"}"#,
        r#"{"type":"run_submit","hand":-1,"formula":"1+2"}"#,
        r#"{"type":"challenge_start","code":"K7QXM2P0"}"#,
        r#"{"type":"challenge_start","code":"../../etc/passwd"}"#,
        r#"{"type":"challenge_start"}"#,
    ] {
        assert!(
            matches!(kind(text), ProtocolErrorKind::BadFields { .. }),
            "{text}"
        );
    }
}

#[test]
fn settings_validate_their_ranges() {
    let d = RoomSettings::default();
    assert_eq!(d.validate(), Ok(()));
    // Each patch sets one field out of its range.
    type SetField = fn(&mut SettingsPatch);
    let out_of_range: [(SetField, &str); 9] = [
        (|p| p.rounds = Some(0), "rounds"),
        (|p| p.rounds = Some(51), "rounds"),
        (|p| p.round_seconds = Some(9), "round_seconds"),
        (|p| p.lockout_seconds = Some(61), "lockout_seconds"),
        (|p| p.wrong_penalty = Some(11), "wrong_penalty"),
        (|p| p.max_players = Some(1), "max_players"),
        (|p| p.max_players = Some(33), "max_players"),
        (|p| p.target_score = Some(Some(0)), "target_score"),
        (|p| p.rules = Some(Rules::Positive), "rules"),
    ];
    for (set, field) in out_of_range {
        let mut patch = SettingsPatch::default();
        set(&mut patch);
        let err = d.patched(&patch).unwrap_err();
        assert_eq!(err.field, field);
    }

    let s = d
        .patched(&SettingsPatch {
            rounds: Some(50),
            target_score: Some(Some(3)),
            max_players: Some(32),
            ..Default::default()
        })
        .unwrap();
    assert_eq!((s.rounds, s.target_score, s.max_players), (50, Some(3), 32));
    // null clears the target; an absent field keeps it.
    let kept = s.patched(&SettingsPatch::default()).unwrap();
    assert_eq!(kept.target_score, Some(3));
    let patch: SettingsPatch = serde_json::from_value(json!({"target_score": null})).unwrap();
    assert_eq!(s.patched(&patch).unwrap().target_score, None);
    // Partial settings in a snapshot fill in defaults.
    let partial: RoomSettings = serde_json::from_value(json!({"rounds": 4})).unwrap();
    assert_eq!(partial.rounds, 4);
    assert_eq!(partial.max_players, 8);
}

#[test]
fn every_json_example_in_the_docs_parses() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/protocol.md");
    let doc = std::fs::read_to_string(path).unwrap();
    let mut seen = 0;
    for block in doc.split("```json\n").skip(1) {
        let block = block.split("```").next().unwrap().replace("{…}", "{}");
        for value in serde_json::Deserializer::from_str(&block).into_iter::<Value>() {
            let value = value.unwrap_or_else(|e| panic!("{e} in\n{block}"));
            let text = value.to_string();
            let client = parse_client_message(&text);
            let server = parse_server_message(&text);
            assert!(
                client.is_ok() || server.is_ok(),
                "{text}\nclient: {client:?}\nserver: {server:?}"
            );
            seen += 1;
        }
    }
    assert!(seen > 30, "only {seen} examples found");
}
