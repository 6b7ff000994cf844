//! What a run hands its room tasks: the plan of one room, the context every
//! room shares and the phase of the run. Kept apart from the room's play
//! ([`super::room`]) and from connecting ([`super::connection`]) so that both
//! import it and neither imports the other.

use std::sync::Arc;
use std::time::Duration;

use krypto_core::settings::SettingsPatch;
use krypto_core::Rules;
use tokio::time::Instant;

use super::stats::Counters;

/// Where the run as a whole is; the coordinator moves it forward and every
/// room task watches it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Rooms are still being set up; they already play once ready.
    Ramp,
    /// Every room is set up: latencies of submissions sent from `since` on
    /// are measured.
    Steady {
        /// When the steady window began.
        since: Instant,
    },
    /// Stop submitting, collect the last verdicts, close.
    Stop,
}

/// What every room task of a run shares.
#[derive(Debug)]
pub struct RunContext {
    /// Live counters for the progress line and message rates.
    pub counters: Arc<Counters>,
    /// Longest wait for any one step of connecting and setting up a room.
    pub setup_timeout: Duration,
    /// After the stop, longest wait for verdicts still outstanding.
    pub drain_timeout: Duration,
    /// Longest wait for the server to answer our close frames.
    pub close_timeout: Duration,
}

impl RunContext {
    /// The context of a run with fresh counters, waiting at most
    /// `setup_timeout` for a step of setting up and `drain_timeout` for the
    /// last verdicts; the server has 5 s to answer a close.
    pub fn new(setup_timeout: Duration, drain_timeout: Duration) -> RunContext {
        RunContext {
            counters: Arc::new(Counters::default()),
            setup_timeout,
            drain_timeout,
            close_timeout: Duration::from_secs(5),
        }
    }
}

/// What one room does.
#[derive(Debug, Clone)]
pub struct RoomPlan {
    /// The node the host connects to (and creates the room on).
    pub host_url: String,
    /// The node the other players connect to (and join through).
    pub guest_url: String,
    /// Player names; the first is the host.
    pub names: Vec<String>,
    /// The settings the host creates the room with.
    pub settings: SettingsPatch,
    /// The rule set those settings select, for working out answers.
    pub rules: Rules,
    /// Each player submits once per this interval while a round is on.
    pub submit_every: Duration,
    /// Chance that a submission is the wrong formula.
    pub wrong_ratio: f64,
    /// When the room starts connecting (spreads the ramp).
    pub start_at: Instant,
}
