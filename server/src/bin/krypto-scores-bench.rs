//! `krypto-scores-bench`: leaderboard query latency on a seeded database
//! (see `krypto-seed`), for every metric × period, top rows and `around` a
//! player: straight from the database (`leaderboard::read_board`), and as the
//! server serves them (`BoardCache`, a copy of each board in memory), with
//! the cost of reading a whole board into that copy.
//!
//! ```text
//! cargo run --release -p krypto-server --bin krypto-scores-bench -- \
//!     --database sqlite://bench.db --iterations 2000
//! ```

use std::time::{Duration, Instant};

use anyhow::Context;
use clap::Parser;
use krypto_core::protocol::{Metric, Period};
use krypto_server::db::boards::BoardKey;
use krypto_server::db::Db;
use krypto_server::scores::board_cache::BoardCache;
use krypto_server::scores::leaderboard::{self, BoardQuery, Ranking};
use krypto_server::scores::periods::now_ms;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Measures leaderboard latency.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Args {
    /// Database URL of a seeded database (sqlite://… or postgres://…).
    #[arg(long, default_value = "sqlite://bench.db")]
    database: String,
    /// Queries per case.
    #[arg(long, default_value_t = 2000)]
    iterations: u32,
    /// Rows per query.
    #[arg(long, default_value_t = 10)]
    limit: u32,
    /// The rated-match minimum of the rating board.
    #[arg(long, default_value_t = 3)]
    min_rated_matches: u32,
    /// The different-opponents minimum of the rating board.
    #[arg(long, default_value_t = krypto_server::scores::ratings::MIN_OPPONENTS)]
    min_rated_opponents: u32,
}

const METRICS: [(Metric, &str); 4] = [
    (Metric::Rating, "rating"),
    (Metric::Wins, "wins"),
    (Metric::Rounds, "rounds"),
    (Metric::Fastest, "fastest"),
];
const PERIODS: [(Period, &str); 4] = [
    (Period::All, "all"),
    (Period::Month, "month"),
    (Period::Week, "week"),
    (Period::Day, "day"),
];

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted.get(i).copied().unwrap_or_default()
}

fn micros(d: Duration) -> String {
    format!("{:.0}", d.as_secs_f64() * 1e6)
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let db = Db::open(&args.database)
        .await
        .with_context(|| format!("opening {}", args.database))?;
    let now = now_ms();
    let ranking = Ranking {
        min_matches: args.min_rated_matches,
        min_opponents: args.min_rated_opponents,
    };
    let mut rng = StdRng::seed_from_u64(7);
    println!(
        "| metric | period | players on board | top p50 µs | top p99 µs | around p50 µs | \
         around p99 µs | served top p50 / p99 µs | served around p50 / p99 µs | \
         whole board read p50 / p99 µs |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    let mut worst_served = Duration::ZERO;
    let mut worst = Duration::ZERO;
    for (metric, metric_name) in METRICS {
        for (period, period_name) in PERIODS {
            let top_query = BoardQuery {
                metric,
                period,
                limit: args.limit,
                around: None,
            };
            let key = BoardKey::of(&top_query, ranking, now);
            let total = db.board_total(key).await?;
            // Players to centre on: drawn from the whole board.
            let mut names = Vec::new();
            for _ in 0..64.min(total) {
                let offset = rng.random_range(0..total);
                if let Some(row) = db.board_page(key, 1, offset, None).await?.pop() {
                    names.push(row.name);
                }
            }
            let mut top = Vec::with_capacity(args.iterations as usize);
            let mut around = Vec::with_capacity(args.iterations as usize);
            for i in 0..args.iterations {
                let mut query = top_query.clone();
                let t = Instant::now();
                leaderboard::read_board(&db, &query, ranking, now).await?;
                top.push(t.elapsed());
                if !names.is_empty() {
                    query.around = Some(names[i as usize % names.len()].clone());
                    let t = Instant::now();
                    leaderboard::read_board(&db, &query, ranking, now).await?;
                    around.push(t.elapsed());
                }
            }
            top.sort();
            around.sort();
            worst = worst
                .max(percentile(&top, 0.99))
                .max(percentile(&around, 0.99));
            // As served: pages from the copy (the recorder's count does
            // not move here), and what reading the whole board costs.
            let cache = BoardCache::new();
            let mut served_top = Vec::with_capacity(args.iterations as usize);
            let mut served_around = Vec::with_capacity(args.iterations as usize);
            for i in 0..args.iterations {
                let mut query = top_query.clone();
                let t = Instant::now();
                cache.board(&db, &query, ranking, now, 0).await?;
                served_top.push(t.elapsed());
                if !names.is_empty() {
                    query.around = Some(names[i as usize % names.len()].clone());
                    let t = Instant::now();
                    cache.board(&db, &query, ranking, now, 0).await?;
                    served_around.push(t.elapsed());
                }
            }
            let mut whole = Vec::new();
            for _ in 0..(args.iterations / 10).max(10) {
                let t = Instant::now();
                db.board_all(key).await?;
                whole.push(t.elapsed());
            }
            served_top.sort();
            served_around.sort();
            whole.sort();
            worst_served = worst_served
                .max(percentile(&served_top, 0.99))
                .max(percentile(&served_around, 0.99));
            println!(
                "| {metric_name} | {period_name} | {total} | {} | {} | {} | {} | {} / {} | {} / {} | {} / {} |",
                micros(percentile(&top, 0.5)),
                micros(percentile(&top, 0.99)),
                micros(percentile(&around, 0.5)),
                micros(percentile(&around, 0.99)),
                micros(percentile(&served_top, 0.5)),
                micros(percentile(&served_top, 0.99)),
                micros(percentile(&served_around, 0.5)),
                micros(percentile(&served_around, 0.99)),
                micros(percentile(&whole, 0.5)),
                micros(percentile(&whole, 0.99)),
            );
        }
    }
    println!(
        "\nworst p99: {} µs from the database, {} µs as served",
        micros(worst),
        micros(worst_served)
    );
    db.close().await;
    Ok(())
}
