//! Solver benchmarks over a fixed list of seeded random Krypto deals:
//! `cargo bench -p krypto-core --bench solver`.

use std::time::Instant;

use criterion::{black_box, criterion_group, Criterion};
use krypto_core::cards::Deal;
use krypto_core::solver::{chains, solve_all, solve_one};
use krypto_core::Rules;

fn deals() -> Vec<Deal> {
    (0..200).map(Deal::from_seed).collect()
}

fn bench(c: &mut Criterion) {
    let deals = deals();
    for rules in [Rules::Free, Rules::International] {
        // One iteration = one deal, cycling through the list, so the
        // per-iteration time is the mean over deals.
        let mut i = 0;
        c.bench_function(&format!("solve_one/{rules}"), |b| {
            b.iter(|| {
                let d = &deals[i % deals.len()];
                i += 1;
                black_box(solve_one(&d.hand, d.objective, rules))
            })
        });
        let mut i = 0;
        c.bench_function(&format!("solve_all/{rules}"), |b| {
            b.iter(|| {
                let d = &deals[i % deals.len()];
                i += 1;
                black_box(solve_all(&d.hand, d.objective, rules))
            })
        });
    }
    let mut i = 0;
    c.bench_function("chains/free", |b| {
        b.iter(|| {
            let d = &deals[i % deals.len()];
            i += 1;
            black_box(chains(&d.hand, d.objective, Rules::Free))
        })
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
