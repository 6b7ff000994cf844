//! Client → server: every request, and the envelope that carries its id.

use serde::{Deserialize, Serialize};
use strum::{EnumDiscriminants, EnumIter, EnumString, IntoStaticStr, VariantNames};

use chrono::NaiveDate;

use super::{ChallengeCode, Difficulty, PlayerId, SettingsPatch};
use crate::bot_pace::BotSkill;

wire_enum! {
    /// Which leaderboard to show.
    #[derive(Default)]
    pub enum Metric {
        /// Conservative rating (mu − 3·sigma).
        #[default]
        Rating,
        /// Matches won.
        Wins,
        /// Rounds won.
        Rounds,
        /// Best solve time.
        Fastest,
    }
}

wire_enum! {
    /// Which period a leaderboard covers (UTC calendar periods).
    #[derive(Default)]
    pub enum Period {
        /// Since the beginning.
        #[default]
        All,
        /// This calendar month.
        Month,
        /// This ISO week.
        Week,
        /// Today.
        Day,
    }
}

/// A request from a client. The doc of each variant says when it is allowed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, EnumDiscriminants)]
#[serde(tag = "type", rename_all = "snake_case")]
#[strum_discriminants(
    name(ClientMessageType),
    derive(IntoStaticStr, EnumString, EnumIter, VariantNames),
    strum(serialize_all = "snake_case")
)]
pub enum ClientMessage {
    /// First message of a connection; again with the token to resume.
    Hello {
        /// Must be [`PROTOCOL_VERSION`](super::PROTOCOL_VERSION).
        protocol: u32,
        /// The player's name; required when there is no token.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
        /// The secret from an earlier `welcome`, proving who the player is.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        token: Option<String>,
        /// Instead of a token: a single-use ticket (a `device_code` another
        /// device showed, or a `redirect`'s ticket); the `welcome` then
        /// carries a token of this device's own for the ticket's player.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ticket: Option<String>,
        /// Set by programs that play (bots): they are marked as bots in every
        /// roster and never rated. Absent means a person.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        bot: bool,
        /// A short description of this device ("Firefox on Android",
        /// "krypto terminal on linux"), shown in the player's list of
        /// devices; kept cleaned and cut to
        /// [`MAX_DEVICE_LABEL_CHARS`](super::MAX_DEVICE_LABEL_CHARS).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        device: Option<String>,
    },
    /// Lists the public rooms, by code, a page of at most [`super::ROOMS_PAGE`] at
    /// a time.
    ListRooms {
        /// The `next` of the previous page: the rooms after this code.
        /// Absent: the first page.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        after: Option<String>,
    },
    /// Creates a room with the sender as host; only when not in a room.
    CreateRoom {
        /// Settings differing from the defaults.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        settings: Option<SettingsPatch>,
        /// Shorthand for `settings.public`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        public: Option<bool>,
    },
    /// Joins a room by its code; only when not in a room.
    JoinRoom {
        /// The room's code (case-insensitive).
        code: String,
        /// Watch without playing.
        #[serde(default)]
        spectator: bool,
    },
    /// Leaves the current room.
    LeaveRoom,
    /// Changes settings; host only, between matches.
    UpdateSettings {
        /// The settings to change.
        settings: SettingsPatch,
    },
    /// Starts a match; host only, between matches.
    Start,
    /// A formula for the current round; players only.
    Submit {
        /// The round it answers, so a late answer cannot hit the next hand.
        round: u32,
        /// The formula as typed.
        formula: String,
    },
    /// Claims that the hand has no solution; only with `deal: any`.
    ClaimNoSolution {
        /// The round it answers.
        round: u32,
    },
    /// Says something to the room.
    Chat {
        /// At most [`MAX_CHAT_LEN`](super::MAX_CHAT_LEN) characters.
        text: String,
    },
    /// Removes a player from the room; host only.
    Kick {
        /// Who to remove.
        player: PlayerId,
    },
    /// Closes or opens the room to new joiners; host only.
    Lock {
        /// Whether new joiners are refused.
        locked: bool,
    },
    /// Hands the host role to another seated player; host only.
    TransferHost {
        /// The new host.
        player: PlayerId,
    },
    /// A quick reaction everyone in the room sees float by; any member.
    React {
        /// One of [`REACTIONS`](super::REACTIONS); never free text.
        emoji: String,
    },
    /// "Ready for the rematch"; a seated player, while a ready check is open.
    Ready,
    /// Seats one of the server's bots of `skill` as a player; host only,
    /// between matches, at most `MAX_BOTS` per room, counted against
    /// `max_players`. Everyone gets `player_joined` (with `bot: true`).
    AddBot {
        /// How well it plays.
        skill: BotSkill,
    },
    /// Takes a bot out of the room; host only, between matches. Everyone
    /// gets `player_left`.
    RemoveBot {
        /// The bot.
        player: PlayerId,
    },
    /// Asks for a leaderboard.
    Leaderboard {
        /// Defaults to `rating`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        metric: Option<Metric>,
        /// Defaults to `all`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        period: Option<Period>,
        /// How many rows (the server caps it).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        limit: Option<u32>,
        /// Centre the rows on this player's name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        around: Option<String>,
    },
    /// Keep-alive; answered by `pong`.
    Ping,
    /// Asks for a device code, to use this name on another device; answered
    /// by `device_code`. Any welcomed player.
    LinkDevice {
        /// This server's address as the asking page shows it to others
        /// (`http://192.168.1.20:7878`): the code's QR opens `BASE/link`.
        /// Without it, no QR.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        base: Option<String>,
    },
    /// Asks for the devices that sign in as this player; answered by
    /// `devices`. Any welcomed player.
    Devices,
    /// Revokes one of the player's devices (its token stops working; this
    /// device itself included, whose connection then closes); answered by
    /// `devices`, the list after.
    RevokeDevice {
        /// The device's `id` from `devices`.
        device: String,
    },
    /// Asks for a daily hand: today's (rated), or a past day's from the
    /// archive (unrated); answered by `daily`. Any welcomed player, in a
    /// room or not. Asking again resumes the same clock.
    DailyStart {
        /// A past UTC day, `YYYY-MM-DD`; absent: today. A day before `#1`
        /// or still to come is refused (`no_such_day`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        date: Option<NaiveDate>,
    },
    /// An answer to the daily last asked for on this connection; answered
    /// by a `verdict` (`round` 0), and `daily_solved` when right.
    DailySubmit {
        /// The formula as typed.
        formula: String,
    },
    /// Starts a solo run (three minutes, hands getting harder); answered by
    /// `run`. Starting again abandons the run in play.
    RunStart,
    /// Takes up the sender's run in play again after a dropped connection:
    /// answered by `run` with the hand on the table and the time left (the
    /// run's clock never stopped), or by `run_over` when it ended while the
    /// player was away; `wrong_state` when there is none (a run is kept by
    /// the node it started on, for 5 minutes after its end).
    RunResume,
    /// An answer to the run's current hand; answered by a `verdict`
    /// (`round` is the hand), then `run_hand` or `run_over`.
    RunSubmit {
        /// The hand it answers (`run_hand.hand`), so an answer that crosses
        /// the next deal cannot hit the wrong hand.
        hand: u32,
        /// The formula as typed.
        formula: String,
    },
    /// Makes a challenge of a hand the sender solved; answered by
    /// `challenge`. Without `round`: the last hand solved on this
    /// connection (the daily, a run's hand, a challenge). With `round`: that
    /// round of the sender's room, which they must have solved there (won,
    /// or answered right under `everyone` scoring) — the hand, rules and time
    /// are the server's record of it, never the client's.
    ChallengeCreate {
        /// The room's round, as `round_started` numbered it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        round: Option<u32>,
    },
    /// Takes a challenge: its hand, timed like the daily; answered by
    /// `challenge_hand`. Asking again resumes the same clock.
    ChallengeStart {
        /// The challenge's code (from its link `/c/CODE`), any case.
        code: ChallengeCode,
    },
    /// An answer to the challenge last started on this connection; answered
    /// by a `verdict` (`round` 0), and `challenge_result` when right.
    ChallengeSubmit {
        /// The formula as typed.
        formula: String,
    },
    /// Sits down at a practice table (alone, unrated, nothing recorded):
    /// answered by `practice`, its first hand. One table per connection;
    /// starting again replaces it.
    PracticeStart {
        /// The band of the hands dealt, by their number of distinct
        /// solutions; absent: `any`.
        #[serde(default)]
        difficulty: Difficulty,
    },
    /// The next step of a solution of the practice hand on the table;
    /// answered by `practice_hint`, or `wrong_state` when every step is
    /// shown or there is no table.
    PracticeHint,
    /// An answer to the practice hand on the table; answered by a `verdict`
    /// (`round` is the hand); when right, `practice_solutions` and the next
    /// `practice` follow. A wrong answer costs nothing.
    PracticeSubmit {
        /// The hand it answers (`practice.hand`), so an answer that crosses
        /// the next deal cannot hit the wrong hand.
        hand: u32,
        /// The formula as typed.
        formula: String,
    },
    /// Gives up on the practice hand on the table: answered by
    /// `practice_solutions` (every solution) and the next `practice`.
    PracticeSkip,
}

impl ClientMessage {
    /// Every client message `type`, for telling an unknown type from bad fields.
    pub const TYPES: &'static [&'static str] = <ClientMessageType as VariantNames>::VARIANTS;

    /// This message's `type` on the wire.
    pub fn message_type(&self) -> &'static str {
        ClientMessageType::from(self).into()
    }
}

/// A client message with its optional request id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientEnvelope {
    /// Echoed on every reply and error this request causes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The request itself.
    #[serde(flatten)]
    pub message: ClientMessage,
}

impl ClientEnvelope {
    /// A request without an id.
    pub fn new(message: ClientMessage) -> Self {
        ClientEnvelope { id: None, message }
    }

    /// The JSON text to send. Serializing fails only on a bug (a map with
    /// keys that are not strings); the sender decides what that ends.
    pub fn to_json(&self) -> Result<String, serde_json::Error> {
        serde_json::to_string(self)
    }
}
