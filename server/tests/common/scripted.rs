//! Rooms whose every round deals the same hand, 1 2 3 4 5 → 15: for tests
//! that play whole matches (fast, or on a clock the test moves) and read
//! back what was recorded.

use std::sync::Arc;

use krypto_core::cards::Deal;
use krypto_core::room::ScriptedDealer;
use krypto_server::config::DealerFactory;
use krypto_server::{Config, ManualClock};

use super::{Client, TestServer};

/// Deals 1 2 3 4 5 → 15 every round.
pub fn one_hand_dealer() -> DealerFactory {
    DealerFactory(Arc::new(|| {
        Box::new(ScriptedDealer::new(vec![Deal {
            objective: 15,
            hand: vec![1, 2, 3, 4, 5],
        }]))
    }))
}

/// Rooms deal 1 2 3 4 5 → 15 every round, with clocks 100× fast.
pub fn one_hand(c: &mut Config) {
    c.room_time_scale = 100;
    c.dealer = one_hand_dealer();
}

/// A server whose rooms deal 1 2 3 4 5 → 15 every round on `clock`, which
/// moves only when the test advances it.
pub async fn one_hand_on(clock: &ManualClock) -> TestServer {
    let clock = clock.clone();
    TestServer::with_config(move |c| {
        c.manual_clock = Some(clock);
        c.dealer = one_hand_dealer();
    })
    .await
}

/// Waits for round `round` to start on `c`.
pub async fn round_started(c: &mut Client, round: i64) {
    let started = c.recv_type("round_started").await;
    assert_eq!(started["round"], round, "{started}");
}

/// Round `round` dealt to both; `misser` answers it wrong, then `winner`
/// right with `formula`.
pub async fn missed_then_won(misser: &mut Client, winner: &mut Client, round: i64, formula: &str) {
    round_started(misser, round).await;
    round_started(winner, round).await;
    let missed = misser.submit(round, "1+2+3+4*5").await;
    assert_eq!(missed["accepted"], false, "{missed}");
    let won = winner.submit(round, formula).await;
    assert_eq!(won["accepted"], true, "{won}");
}
