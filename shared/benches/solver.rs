//! Solver benchmarks over a fixed list of seeded random Krypto deals:
//! `cargo bench -p krypto-core --bench solver`.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
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

criterion_group!(benches, bench);
criterion_main!(benches);
