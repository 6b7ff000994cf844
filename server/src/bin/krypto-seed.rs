//! `krypto-seed`: fills a database with realistic recorded play, through
//! the server's own group-commit recorder, and reports how fast it recorded.
//!
//! Matches of `--rounds-per-match` rounds between 2 and 6 players are
//! played by `--rooms` concurrent simulated rooms. Each player has a hidden
//! skill: stronger players win rounds more often and faster. Rounds are
//! spread evenly over the last `--days` days, ending now, so every
//! leaderboard period has data. Per round a room queues the deal and its
//! wrong attempts without waiting and waits for the commit of the round's
//! result, exactly as a room task does.
//!
//! ```text
//! cargo run --release -p krypto-server --bin krypto-seed -- \
//!     --database sqlite://bench.db --rounds 1000000 --players 5000
//! ```

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use anyhow::{bail, Context};
use clap::Parser;
use krypto_core::protocol::PlayerId;
use krypto_server::db::scores::{
    AttemptRecord, FinalPlace, MatchEnd, NewMatch, NewPlayer, RoundOutcome, RoundResult,
    RoundStart, Write,
};
use krypto_server::db::{Created, Db};
use krypto_server::scores::periods::now_ms;
use krypto_server::scores::recorder::Recorder;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Seeds a krypto database with recorded matches.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Args {
    /// Database URL: sqlite://… (created if missing) or postgres://….
    #[arg(long, default_value = "sqlite://bench.db")]
    database: String,
    /// Rounds to record.
    #[arg(long, default_value_t = 1_000_000)]
    rounds: u64,
    /// Players to create.
    #[arg(long, default_value_t = 5_000)]
    players: u32,
    /// Rounds per match.
    #[arg(long, default_value_t = 10)]
    rounds_per_match: u32,
    /// Days of history the rounds are spread over, ending now.
    #[arg(long, default_value_t = 365)]
    days: u32,
    /// Simulated rooms recording at once.
    #[arg(long, default_value_t = 256)]
    rooms: u32,
    /// Random seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// What every simulated room shares.
struct Plan {
    players: Vec<(PlayerId, f64)>,
    rounds_per_match: u32,
    matches: u64,
    first_ms: i64,
    ms_per_round: f64,
    next_match: AtomicU64,
    attempts: AtomicU64,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    if args.players < 2 || args.rounds_per_match == 0 || args.rooms == 0 {
        bail!("need at least 2 players, 1 round per match and 1 room");
    }
    let db = Db::open(&args.database)
        .await
        .with_context(|| format!("opening {}", args.database))?;
    let mut rng = StdRng::seed_from_u64(args.seed);

    let started = Instant::now();
    let mut players = Vec::with_capacity(args.players as usize);
    for i in 0..args.players {
        let name = format!("player{i:05}");
        let hash = format!("seed-{}-{i}", args.seed);
        let new = NewPlayer {
            name: name.clone(),
            name_key: name.clone(),
            token_hash: hash,
            bot: false,
        };
        let id = match db.create_player(new).await? {
            Created::Player(row) => row.player_id(),
            Created::NameTaken => match db.player_by_name_key(&name).await? {
                Some(row) => row.player_id(),
                None => bail!("{name} vanished"),
            },
        };
        // Skill 0.2 .. 5: a few strong players, many average ones.
        let skill: f64 = 0.2 + 4.8 * rng.random::<f64>().powi(3);
        players.push((id, skill));
    }
    println!(
        "{} players ready in {:.1} s",
        players.len(),
        started.elapsed().as_secs_f64()
    );

    let now = now_ms();
    let span_ms = i64::from(args.days) * 86_400_000;
    let matches = args.rounds.div_ceil(u64::from(args.rounds_per_match));
    let total_rounds = matches * u64::from(args.rounds_per_match);
    let plan = Arc::new(Plan {
        players,
        rounds_per_match: args.rounds_per_match,
        matches,
        first_ms: now - span_ms,
        ms_per_round: span_ms as f64 / total_rounds.max(1) as f64,
        next_match: AtomicU64::new(0),
        attempts: AtomicU64::new(0),
    });

    // The server's recorder, journal and all (beside the database, as the
    // server would put it).
    let journal = krypto_server::Config {
        database_url: args.database.clone(),
        ..krypto_server::Config::default()
    }
    .journal_options();
    let (recorder, task) = Recorder::start(&db, journal).await?;
    let started = Instant::now();
    let mut rooms = Vec::new();
    for room in 0..args.rooms {
        let plan = plan.clone();
        let recorder = recorder.clone();
        let seed = args
            .seed
            .wrapping_mul(1_000_003)
            .wrapping_add(u64::from(room));
        rooms.push(tokio::spawn(async move {
            play_room(plan, recorder, StdRng::seed_from_u64(seed)).await
        }));
    }
    for room in rooms {
        room.await??;
    }
    let elapsed = started.elapsed().as_secs_f64();
    recorder.close().await;
    task.await?;
    let attempts = plan.attempts.load(Ordering::Relaxed);
    println!(
        "recorded {total_rounds} rounds in {matches} matches (+{attempts} wrong attempts) \
         with {} rooms in {elapsed:.1} s: {:.0} rounds/s, {:.0} matches/s",
        args.rooms,
        total_rounds as f64 / elapsed,
        matches as f64 / elapsed,
    );
    db.close().await;
    Ok(())
}

/// Plays matches until the plan has none left.
async fn play_room(plan: Arc<Plan>, recorder: Recorder, mut rng: StdRng) -> anyhow::Result<()> {
    loop {
        let m = plan.next_match.fetch_add(1, Ordering::Relaxed);
        if m >= plan.matches {
            return Ok(());
        }
        let first_round = m * u64::from(plan.rounds_per_match);
        let at =
            |round: u64| plan.first_ms + ((first_round + round) as f64 * plan.ms_per_round) as i64;

        // 2 to 6 distinct players.
        let size = rng.random_range(2..=6usize);
        let mut seated: Vec<(PlayerId, f64)> = Vec::with_capacity(size);
        while seated.len() < size {
            let p = plan.players[rng.random_range(0..plan.players.len())];
            if !seated.iter().any(|s| s.0 == p.0) {
                seated.push(p);
            }
        }
        // As a room does: the match id is minted here, and the start is
        // queued without waiting.
        let match_id = uuid::Uuid::now_v7();
        recorder
            .submit(vec![Write::StartMatch(NewMatch {
                id: match_id,
                room_code: "SEED0".into(),
                settings: serde_json::json!({}),
                players: seated.iter().map(|p| p.0).collect(),
                at_ms: at(0),
            })])
            .await?;

        let mut scores = vec![0i64; seated.len()];
        for round in 1..=plan.rounds_per_match {
            let dealt = at(u64::from(round - 1));
            let start = RoundStart {
                match_id,
                round,
                objective: rng.random_range(1..=25),
                cards: (0..5).map(|_| rng.random_range(1..=25)).collect(),
                at_ms: dealt,
            };
            let mut queued = vec![Write::StartRound(start.clone())];
            // Someone tries and fails now and then.
            if rng.random_bool(0.5) {
                let who = seated[rng.random_range(0..seated.len())].0;
                queued.push(Write::Attempt(AttemptRecord {
                    match_id,
                    round,
                    player: who,
                    formula: Some("1+2+3+4+5".into()),
                    accepted: false,
                    verdict: Some("wrong_value".into()),
                    elapsed_ms: rng.random_range(2_000..60_000),
                    at_ms: dealt,
                    // At most one attempt a round.
                    seq: u64::from(round),
                }));
                plan.attempts.fetch_add(1, Ordering::Relaxed);
            }
            recorder.submit(queued).await?;
            let outcome = if rng.random_bool(0.85) {
                let total: f64 = seated.iter().map(|p| p.1).sum();
                let mut pick = rng.random::<f64>() * total;
                let mut winner = seated.len() - 1;
                for (i, p) in seated.iter().enumerate() {
                    if pick < p.1 {
                        winner = i;
                        break;
                    }
                    pick -= p.1;
                }
                scores[winner] += 1;
                let skill = seated[winner].1;
                let elapsed_ms = (rng.random_range(4_000.0..80_000.0) / skill.sqrt()) as u64;
                RoundOutcome::Won {
                    winner: seated[winner].0,
                    formula: Some("(1+2)×5".into()),
                    elapsed_ms,
                    points: 1,
                }
            } else {
                RoundOutcome::TimedOut {
                    solution: Some("(1+2)×5".into()),
                    solutions: rng.random_range(1..40),
                }
            };
            let ended = dealt + (plan.ms_per_round * 0.9) as i64;
            recorder
                .commit(vec![Write::RoundResult(RoundResult {
                    start,
                    outcome,
                    at_ms: ended,
                })])
                .await?;
        }
        let standings = seated
            .iter()
            .zip(&scores)
            .map(|(p, &score)| FinalPlace {
                player: p.0,
                score,
                rank: 1 + scores.iter().filter(|&&s| s > score).count() as u32,
                attempted: true,
            })
            .collect();
        recorder
            .commit(vec![Write::FinishMatch(MatchEnd {
                match_id,
                rounds_played: plan.rounds_per_match,
                standings,
                at_ms: at(u64::from(plan.rounds_per_match)),
            })])
            .await?;
    }
}
