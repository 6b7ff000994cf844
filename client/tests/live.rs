//! End to end: the real server and real `krypto` processes — two players in
//! line mode racing a round, a bot playing a whole match, and a client and
//! the load generator riding out a server restart in their seats.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{ann_hosts, room_code, Proc, Scratch, TestServer};
use serde_json::Value;

#[test]
fn two_plain_clients_race_a_round_with_lockout_and_chat() {
    let (scratch, server, url, mut ann, code) =
        ann_hosts(Some("rounds=1 round_seconds=600 lockout_seconds=60"));
    assert_eq!(code.len(), 5, "{code}");

    let mut ben = scratch.plain_player("Ben", &url);
    ben.send(&format!("/join {}", code.to_lowercase()));
    ben.expect(&format!("the room {code} with Ben"), |l| {
        l.starts_with(&format!("room {code}")) && l.contains("Ben")
    });
    ann.expect_contains("Ben joined");

    ann.send("/start");
    for p in [&mut ann, &mut ben] {
        p.expect_contains("match started: 1 round");
        p.expect_contains("round 1: make 15 from 1 2 3 4 5");
    }

    // A wrong answer: the precise reason, then a lockout the client enforces.
    ben.send("1+2+3+4-5");
    let verdict = ben.expect_prefix("wrong (wrong value)");
    assert!(verdict.contains("locked out for"), "{verdict}");
    ann.expect_contains("Ben tried and missed");
    ben.send("1+2+3+4+5");
    ben.expect_prefix("locked out for");

    ann.send("/chat good luck");
    ben.expect_contains("[chat] Ann: good luck");

    ann.send("(1+2+3+4)+5");
    ann.expect_contains("round 1: correct!");
    let mut recap = String::new();
    for p in [&mut ann, &mut ben] {
        p.expect_contains("round 1 won by Ann");
        p.expect_prefix("match over:");
        p.expect_prefix("  1. Ann  1 point");
        recap = p.expect_prefix("  recap: krypto match ");
    }
    ben.quit();
    assert!(ann.finish().success());

    // The match over names the match; `krypto match ID` tells it again.
    let id = recap.trim().rsplit(' ').next().unwrap().to_owned();
    let mut told = Proc::spawn(
        "match",
        &["match", &id, "--server", &url],
        &scratch.config("ann"),
    );
    told.expect_prefix(&format!("Match {id} in room {code}: 1 round, finished"));
    told.expect_prefix("Round 1: make 15 from 1 2 3 4 5");
    told.expect_prefix("  won by Ann in ");
    told.expect("Ben's miss", |l| l.contains("Ben  missed (wrong value)"));
    told.expect("Ann's answer", |l| {
        l.contains("Ann  right: 1 + 2 + 3 + 4 + 5")
    });
    told.expect_contains("distinct solutions:");
    told.expect_contains("the winner's");
    assert!(told.finish().success());
    let mut unknown = Proc::spawn(
        "match",
        &[
            "match",
            "0192f0c4-0000-7000-8000-000000000001",
            "--server",
            &url,
        ],
        &scratch.config("ann"),
    );
    unknown.expect_prefix("No match 0192f0c4-0000-7000-8000-000000000001");
    assert_eq!(unknown.finish().code(), Some(1));

    // The round is on the boards as soon as it was announced.
    let config = scratch.config("ann");
    let mut board = Proc::spawn(
        "leaderboard",
        &[
            "leaderboard",
            "--server",
            &url,
            "--metric",
            "rounds",
            "--json",
        ],
        &config,
    );
    let line = board.expect_contains("\"rows\"");
    let v: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(v["rows"][0]["name"], "Ann", "{v}");
    assert_eq!(v["rows"][0]["rank"], 1, "{v}");
    assert_eq!(v["rows"][0]["value"].as_f64(), Some(1.0), "{v}");
    assert!(board.finish().success());
    let mut profile = Proc::spawn(
        "profile",
        &["profile", "Ann", "--server", &url, "--json"],
        &config,
    );
    let line = profile.expect_contains("\"rounds_won\"");
    let v: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(v["rounds_won"], 1, "{v}");
    assert!(profile.finish().success());

    // Ben's one rated match leaves him provisional: the board says why he
    // is not on it rather than "no rows".
    let mut around = Proc::spawn(
        "leaderboard",
        &["leaderboard", "--server", &url, "--around", "ben"],
        &config,
    );
    around.expect_prefix("Leaderboard: rating, all");
    around.expect_prefix("ben is not on this board yet.");
    let why = around.expect_contains("is provisional");
    assert!(
        why.starts_with("Ben's rating ")
            && why.contains("after 3 rated matches")
            && why.ends_with("(1 so far)"),
        "{why}"
    );
    assert!(around.finish().success());
    server.stop();
}

#[test]
fn a_bot_plays_a_whole_match() {
    let (scratch, server, url, mut ann, code) = ann_hosts(Some("rounds=2 round_seconds=600"));
    let hard = ["--count", "2", "--skill", "hard", "--pace", "1"];
    let mut bots = Proc::bots(&scratch, &url, &code, &hard);
    // The bots join concurrently, in either order: wait for the roster.
    ann.expect("listing both bots", |l| {
        l.starts_with("room ") && l.contains("Ada-hard-bot") && l.contains("Alan-hard-bot")
    });
    bots.expect_contains(&format!("joined room {code}"));
    ann.send("/start");
    let bot_won = |l: &str| l.starts_with("round ") && l.contains("-bot in");
    ann.expect("round 1 won by a bot", bot_won);
    ann.expect("round 2 won by a bot", bot_won);
    ann.expect_prefix("match over:");
    let first = ann.expect_prefix("  1. ");
    assert!(first.contains("-bot") && first.contains("point"), "{first}");
    // The bots stay for a rematch and are ready for it at once: with the host who asked,
    // everyone is, so it starts without waiting out the ready step.
    ann.send("/start");
    ann.expect_prefix("rematch: ready? press r (or /ready)");
    ann.expect_contains("match started");
    ann.expect("a rematch round won by a bot", bot_won);
    drop(bots);
    ann.quit();
    server.stop();
}

#[cfg(unix)]
#[test]
fn a_bot_that_cannot_save_its_token_says_so_and_plays_on() {
    let (scratch, server, url, mut ann, code) = ann_hosts(None);
    // No file can grow past 0 bytes: the bot's name claim (an empty, locked
    // file) is made, its token is not saved.
    let mut bots = Proc::spawn_with_file_limit(
        "bots",
        &["bots", "--server", &url, "--room", &code, "--count", "1"],
        &scratch.config("bots"),
        0,
    );
    let said = bots.expect_contains("could not save its token");
    assert!(said.starts_with("stderr: "), "{said}");
    assert!(
        said.contains("started again, it will need another name"),
        "{said}"
    );
    // It plays on (its own stdout and stderr may arrive in either order).
    let joined = format!("joined room {code}");
    if !bots.seen.iter().any(|l| l.contains(&joined)) {
        bots.expect_contains(&joined);
    }
    ann.expect("the bot in the roster", |l| {
        l.starts_with("room ") && l.contains("-bot")
    });
    drop(bots);
    ann.quit();
    server.stop();
}

#[test]
fn the_client_rides_out_a_server_restart_in_its_seat() {
    let scratch = Scratch::new();
    let server = scratch.server();
    let addr = server.addr.to_string();
    let url = server.url();
    let mut ann = Proc::player("Ann", &url, &scratch.config("ann"), "--json");
    let json = |line: &str| serde_json::from_str::<Value>(line).unwrap();
    let is_type = |ty: &'static str| move |l: &str| l.contains(&format!("\"type\":\"{ty}\""));
    let first = json(&ann.expect("a welcome", is_type("welcome")));
    // `--json` goes to logs and screens: the secret token stays in tokens.toml.
    assert!(first.get("token").is_none(), "{first}");
    assert!(first["player_id"].is_u64(), "{first}");
    ann.send("/create");
    let state = json(&ann.expect("a room state", is_type("room_state")));
    let code = state["code"].as_str().unwrap().to_owned();
    ann.send("/start");
    ann.expect("the first hand", is_type("round_started"));

    // A graceful restart: the server saves the room, the next one restores
    // it, and the client's reconnect resumes the seat mid-round.
    server.stop();
    ann.expect_prefix("stderr: disconnected");
    let server = TestServer::start(&addr, &scratch.db());
    let second = json(&ann.expect("a second welcome", is_type("welcome")));
    assert_eq!(second["player_id"], first["player_id"]);
    assert_eq!(second["name"], "Ann");
    assert_eq!(second["resumed"], true, "{second}");
    let back = json(&ann.expect("the room again", is_type("room_state")));
    assert_eq!(back["code"], code.as_str());
    assert_eq!(back["state"], "playing", "{back}");
    assert_eq!(back["round"]["number"], 1, "{back}");
    ann.send("1 + 2 + 3 + 4 + 5");
    let verdict = json(&ann.expect("a verdict", is_type("verdict")));
    assert_eq!(verdict["accepted"], true, "{verdict}");
    ann.quit();
    server.stop();
}

#[test]
fn an_unreachable_server_is_reported_and_retried() {
    let scratch = Scratch::new();
    // Nothing listens on this port once the listener is dropped.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("127.0.0.1:{port}");
    let mut ann = Proc::player("Ann", &url, &scratch.config("ann"), "--plain");
    let line = ann.expect_prefix("disconnected: cannot reach ws://127.0.0.1");
    assert!(line.contains("reconnecting in 0."), "{line}");
    // The same failure again is not told twice: only when the next try is.
    let line = ann.expect_prefix("still down; next try in ");
    assert!(!line.contains("cannot reach"), "{line}");
}

#[test]
fn leaderboard_and_profile_commands_talk_to_the_server_and_create_nothing() {
    let scratch = Scratch::new();
    let server = scratch.server();
    let url = server.url();
    let config = scratch.config("zed");
    let mut board = Proc::spawn(
        "leaderboard",
        &[
            "leaderboard",
            "--server",
            &url,
            "--name",
            "Zed",
            "--metric",
            "wins",
        ],
        &config,
    );
    board.expect_prefix("Leaderboard: wins, all");
    assert!(board.finish().success());
    let mut json = Proc::spawn(
        "leaderboard",
        &["leaderboard", "--server", &url, "--json"],
        &config,
    );
    let line = json.expect_contains("\"rows\"");
    let v: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(v["metric"], "rating");
    assert!(json.finish().success());
    // Reading the board made no account and wrote no config.
    assert!(
        !config.exists(),
        "the leaderboard wrote {}",
        config.display()
    );
    let mut nobody = Proc::spawn("profile", &["profile", "Zed", "--server", &url], &config);
    nobody.expect_prefix("No player called \"Zed\"");
    assert_eq!(nobody.finish().code(), Some(1));
    assert!(!config.exists(), "the profile wrote {}", config.display());

    // Once Ann has played (said hello), her profile is served over HTTP.
    let ann = scratch.plain_player("Ann B", &url);
    ann.quit();
    let mut profile = Proc::spawn("profile", &["profile", "ann b", "--server", &url], &config);
    profile.expect("the profile's title", |l| l == "Ann B");
    profile.expect_prefix("  Rating");
    assert!(profile.finish().success());
    server.stop();
}

#[test]
fn two_bot_runs_from_one_config_directory_play_in_two_rooms() {
    let scratch = Scratch::new();
    let server = scratch.server();
    let url = server.url();
    let mut hosts = Vec::new();
    for name in ["Ann", "Ben"] {
        let mut host = Proc::player(name, &url, &scratch.config(name), "--plain");
        host.send("/create");
        let code = room_code(&host.expect_prefix("room "));
        host.send("/set rounds=1 round_seconds=600");
        hosts.push((host, code));
    }
    // The same user starts bots for each room, one run after the other,
    // from the same config directory (one tokens.toml).
    let hard = ["--count", "1", "--skill", "hard", "--pace", "1"];
    let mut runs = Vec::new();
    for (host, code) in &mut hosts {
        let mut run = Proc::bots(&scratch, &url, code, &hard);
        run.expect_contains(&format!("joined room {code}"));
        host.expect("a bot in the roster", |l| {
            l.starts_with("room ") && l.contains("(bot)")
        });
        runs.push(run);
    }
    // Each room's bot plays its own match: the second run took no seat
    // from the first.
    for (host, _) in &mut hosts {
        host.send("/start");
        host.expect("the round won by the bot", |l| {
            l.starts_with("round 1 won by ") && l.contains("-bot in")
        });
        host.expect_prefix("match over:");
    }
    for (i, run) in runs.iter_mut().enumerate() {
        let line = run.expect_contains(" won round 1");
        let name = if i == 0 {
            "Ada-hard-bot"
        } else {
            "Alan-hard-bot"
        };
        assert!(line.starts_with(name), "{line}");
    }
    drop(runs);
    for (host, _) in hosts {
        host.quit();
    }
    server.stop();
}

#[test]
fn a_bot_rides_out_a_server_restart_and_wins_the_round() {
    let (scratch, server, url, mut ann, code) = ann_hosts(Some("rounds=1 round_seconds=600"));
    // A hard bot at its normal pace thinks for seconds: the restart comes
    // first.
    let mut bots = Proc::bots(&scratch, &url, &code, &["--count", "1", "--skill", "hard"]);
    let joined = format!("joined room {code}");
    bots.expect_contains(&joined);
    ann.expect("the bot in the roster", |l| {
        l.starts_with("room ") && l.contains("Ada-hard-bot")
    });
    ann.send("/start");
    ann.expect_prefix("round 1: make 15");
    let server = server.restart(&scratch.db());
    bots.expect_contains(&joined);
    ann.expect_contains("your seat in room");
    ann.expect("round 1 won by the bot", |l| {
        l.starts_with("round 1 won by Ada-hard-bot")
    });
    drop(bots);
    ann.quit();
    server.stop();
}

#[test]
fn the_load_generator_rides_out_a_server_restart_in_its_seats() {
    let scratch = Scratch::new();
    let server = scratch.server();
    let mut config = krypto_client::load::LoadConfig::new(server.url());
    config.rooms = 3;
    config.players = 2;
    config.ramp = std::time::Duration::ZERO;
    config.duration = std::time::Duration::from_secs(4);
    config.submit_every = std::time::Duration::from_millis(200);
    config.name_prefix = "restart".into();
    let load = std::thread::spawn(move || {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap()
            .block_on(krypto_client::load::run(config))
            .unwrap()
    });
    // Mid-run, a graceful restart: the rooms are saved and restored, and
    // every player comes back to their seat and plays on.
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let server = server.restart(&scratch.db());
    let report = load.join().unwrap();
    assert_eq!(report.rooms_ready, 3, "{report}");
    assert_eq!(report.tally.resumed, 6, "{report}");
    assert_eq!(report.tally.unexpected_disconnects, 0, "{report}");
    assert_eq!(report.error_total, 0, "{report}");
    assert_eq!(report.tally.unanswered, 0, "{report}");
    assert!(
        report.to_string().contains("6 players back in their seat"),
        "{report}"
    );
    server.stop();
}
