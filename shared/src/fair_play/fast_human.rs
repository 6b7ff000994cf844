//! A fast honest person's answer times: the reference play the signals must
//! never flag, at every threshold's default. Tests of the signals (pure, in
//! krypto-core) and of the server (answers sent through real sockets) draw
//! from this one model; docs/design.md ("Fair play: the signals") says where
//! its numbers come from.

use rand::Rng;

use crate::bot_pace::band_column;
use crate::settings::Difficulty;

/// Median thinking time, in milliseconds, of a fast person on a hand of
/// each band (easy, medium, hard): half the hard bot's.
pub const THINK_MEDIAN_MS: [f64; 3] = [4500.0, 7000.0, 10_000.0];

/// The spread of the thinking time: σ of its logarithm.
pub const THINK_SIGMA: f64 = 0.6;

/// Fast human-like thinking time, in milliseconds: log-normal around
/// [`THINK_MEDIAN_MS`] for the band.
pub fn think_ms(band: Difficulty, rng: &mut dyn rand::RngCore) -> f64 {
    let median = THINK_MEDIAN_MS[band_column(band)];
    // Box–Muller: one standard normal from two uniforms.
    let u1: f64 = 1.0 - rng.random::<f64>();
    let u2: f64 = rng.random::<f64>();
    let z = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
    median * (THINK_SIGMA * z).exp()
}

/// The fastest humans' reading and entry, in milliseconds: a 150 ms
/// reaction, two 150 ms fixations to read the hand, and 57 ms a token (212
/// words a minute, the fastest typing peak recorded).
pub fn entry_ms(tokens: u32) -> f64 {
    150.0 + 300.0 + 57.0 * f64::from(tokens)
}

/// One answer's time from the deal, in whole milliseconds: reading and
/// entering `tokens` tokens plus thinking about a hand of `band`.
pub fn answer_ms(band: Difficulty, tokens: u32, rng: &mut dyn rand::RngCore) -> u64 {
    // Both parts are positive and far below u64::MAX: the cast only drops
    // the fraction.
    (entry_ms(tokens) + think_ms(band, rng)) as u64
}
