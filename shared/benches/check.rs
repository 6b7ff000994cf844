//! How long the checker takes to judge a typical five-card formula: the
//! server judges every submission, and the client re-analyses on each key.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use krypto_core::formula::{analyze, check};
use krypto_core::Rules;

const HAND: [i64; 5] = [8, 19, 14, 2, 21];
const FORMULA: &str = "(21 + 14 ÷ 2) + 8 − 19";

fn bench_check(c: &mut Criterion) {
    c.bench_function("check 5-card formula", |b| {
        b.iter(|| {
            check(
                black_box(FORMULA),
                black_box(&HAND),
                black_box(17),
                Rules::International,
            )
        })
    });
    c.bench_function("analyze 5-card formula", |b| {
        b.iter(|| analyze(black_box(FORMULA), black_box(&HAND), Rules::International))
    });
}

criterion_group!(benches, bench_check);
criterion_main!(benches);
