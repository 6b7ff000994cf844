//! Solver benchmarks over a fixed list of seeded random Krypto deals:
//! `cargo bench -p krypto-core --bench solver`.

use std::time::Instant;

use criterion::{black_box, criterion_group, Criterion};
use krypto_core::cards::{seeded_rng, Deal, Deck};
use krypto_core::solver::{chains, solve_all, solve_one, solve_subset};
use krypto_core::Rules;
use rand::Rng;

fn deals() -> Vec<Deal> {
    (0..200).map(Deal::from_seed).collect()
}

/// Seeded Countdown games: six of the 24 tiles and a target 101–999.
fn countdown_games() -> Vec<(Vec<i64>, i64)> {
    (0..200)
        .map(|seed| {
            let mut rng = seeded_rng(seed);
            let tiles = Deck::countdown().draw(6, &mut rng);
            (tiles, rng.random_range(101..=999))
        })
        .collect()
}

/// Benchmarks `solve` on `items`, one item per iteration, cycling through
/// the list, so the per-iteration time is the mean over the items.
fn bench_cycling<T, R>(c: &mut Criterion, name: &str, items: &[T], solve: impl Fn(&T) -> R) {
    let mut i = 0;
    c.bench_function(name, |b| {
        b.iter(|| {
            let item = &items[i % items.len()];
            i += 1;
            black_box(solve(item))
        })
    });
}

fn bench(c: &mut Criterion) {
    let deals = deals();
    for rules in [Rules::Free, Rules::International] {
        bench_cycling(c, &format!("solve_one/{rules}"), &deals, |d| {
            solve_one(&d.hand, d.objective, rules)
        });
        bench_cycling(c, &format!("solve_all/{rules}"), &deals, |d| {
            solve_all(&d.hand, d.objective, rules)
        });
    }
    bench_cycling(
        c,
        "solve_subset/countdown",
        &countdown_games(),
        |(tiles, target)| solve_subset(tiles, *target, Rules::Positive),
    );
    bench_cycling(c, "chains/free", &deals, |d| {
        chains(&d.hand, d.objective, Rules::Free)
    });
}

/// Criterion reports means; the goals are about medians over deals, so time
/// each deal on its own and print the distribution.
fn per_deal_report(deals: &[Deal]) {
    type Solver = fn(&Deal, Rules) -> bool;
    let solvers: [(&str, Solver); 3] = [
        ("solve_one", |d, r| {
            black_box(solve_one(&d.hand, d.objective, r)).is_ok()
        }),
        ("solve_all", |d, r| {
            black_box(solve_all(&d.hand, d.objective, r)).is_ok()
        }),
        ("chains", |d, r| {
            black_box(chains(&d.hand, d.objective, r)).is_ok()
        }),
    ];
    let games = countdown_games();
    let mut times: Vec<f64> = games
        .iter()
        .map(|(tiles, target)| {
            let start = Instant::now();
            for _ in 0..5 {
                black_box(solve_subset(tiles, *target, Rules::Positive)).ok();
            }
            start.elapsed().as_secs_f64() * 1e6 / 5.0
        })
        .collect();
    times.sort_by(f64::total_cmp);
    println!(
        "per game solve_subset/countdown: median {:.1} µs, p90 {:.1} µs, max {:.1} µs ({} games)",
        times[times.len() / 2],
        times[times.len() * 9 / 10],
        times[times.len() - 1],
        times.len()
    );
    for (name, f) in solvers {
        for rules in [Rules::Free, Rules::International] {
            let mut times: Vec<f64> = deals
                .iter()
                .map(|d| {
                    let reps = 20;
                    let start = Instant::now();
                    for _ in 0..reps {
                        f(d, rules);
                    }
                    start.elapsed().as_secs_f64() * 1e6 / f64::from(reps)
                })
                .collect();
            times.sort_by(f64::total_cmp);
            let at = |q: f64| times[((times.len() - 1) as f64 * q) as usize];
            println!(
                "per deal {name}/{rules}: median {:.1} µs, p90 {:.1} µs, max {:.1} µs ({} deals)",
                at(0.5),
                at(0.9),
                at(1.0),
                times.len()
            );
        }
    }
}

criterion_group!(benches, bench);

fn main() {
    per_deal_report(&deals());
    benches();
    Criterion::default().configure_from_args().final_summary();
}
