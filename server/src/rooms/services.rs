//! What a room task needs of the server, and no more: the lobby it is
//! listed in, the recorder it records through, where it puts its state when
//! the server stops, the few settings it reads, and the signals and tracker
//! of a stopping server. Built once when the server starts.

use crate::scores::rated_play::RatedPlay;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use krypto_core::room::{Dealer, RandomDealer};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::rooms::bots::BotRoster;
use crate::rooms::clock::{ManualClock, RoomClock};
use crate::rooms::lobby::Lobby;
use crate::rooms::saving::SavedRooms;
use crate::scores::leaderboard::Ranking;
use crate::scores::recorder::Recorder;

/// Makes the dealer of each new room. Production deals from the operating
/// system's randomness; tests script the hands so they know the answers.
#[derive(Clone)]
pub struct DealerFactory(pub Arc<dyn Fn() -> Box<dyn Dealer> + Send + Sync>);

impl DealerFactory {
    /// A new dealer for a new room.
    pub fn make(&self) -> Box<dyn Dealer> {
        (self.0)()
    }
}

impl Default for DealerFactory {
    fn default() -> Self {
        DealerFactory(Arc::new(|| Box::new(RandomDealer::secure())))
    }
}

impl fmt::Debug for DealerFactory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("DealerFactory")
    }
}

/// The settings a room task reads (taken from the server's `Config`).
#[derive(Debug, Clone)]
pub(crate) struct RoomTaskSettings {
    /// Tests: the clock rooms run on instead of the wall clock.
    pub(crate) manual_clock: Option<ManualClock>,
    /// How much faster than the wall clock room clocks run.
    pub(crate) time_scale: u32,
    /// Deals the hands of new rooms.
    pub(crate) dealer: DealerFactory,
    /// How long a room nobody is connected to lives.
    pub(crate) empty_room_grace: Duration,
    /// Who is ranked: a rating change says whether it is provisional.
    pub(crate) ranking: Ranking,
}

impl RoomTaskSettings {
    /// The clock of a new room.
    pub(crate) fn clock(&self) -> RoomClock {
        RoomClock::new(self.manual_clock.as_ref(), self.time_scale)
    }
}

/// What every room task shares.
#[derive(Debug)]
pub(crate) struct RoomServices {
    /// The settings rooms read.
    pub(crate) settings: RoomTaskSettings,
    /// Rooms, seats and sessions.
    pub(crate) lobby: Arc<Lobby>,
    /// The one writer of scores.
    pub(crate) recorder: Recorder,
    /// Where rooms put their state when the server stops.
    pub(crate) saved_rooms: SavedRooms,
    /// Seconds from reading a `submit` to sending its verdict (a series
    /// of `/metrics`).
    pub(crate) verdict_seconds: metrics::Histogram,
    /// Cancelled when the server starts shutting down: rooms save their
    /// state and stop.
    pub(crate) shutdown: CancellationToken,
    /// Room tasks, so shutdown can wait until every room is saved.
    pub(crate) tasks: TaskTracker,
    /// Where rooms name their rated matches for the fair-play signals.
    pub(crate) rated_play: RatedPlay,
    /// The server's bots, which hosts seat with `add_bot`.
    pub(crate) bots: BotRoster,
    /// The last round each seated player solved (for challenges).
    pub(crate) solves: crate::rooms::solves::RoomSolves,
}
