//! Rooms whose every round deals the same hand, fast: for tests that play
//! whole matches and read back what was recorded.

use std::sync::Arc;

use krypto_core::cards::Deal;
use krypto_core::room::ScriptedDealer;
use krypto_server::config::DealerFactory;

use super::Client;

/// Rooms deal 1 2 3 4 5 → 15 every round, with clocks 100× fast.
pub fn one_hand(c: &mut krypto_server::Config) {
    c.room_time_scale = 100;
    c.dealer = DealerFactory(Arc::new(|| {
        Box::new(ScriptedDealer::new(vec![Deal {
            objective: 15,
            hand: vec![1, 2, 3, 4, 5],
        }]))
    }));
}

/// Waits for round `round` to start on `c`.
pub async fn round_started(c: &mut Client, round: i64) {
    let started = c.recv_type("round_started").await;
    assert_eq!(started["round"], round, "{started}");
}
