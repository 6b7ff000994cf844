//! The live client's state, with no I/O in it: keys, typed lines, clock
//! ticks and network events go in through [`App::handle`]; what to do about
//! them (send a request, save the token, quit) comes out as [`Action`]s.
//! Drawing reads this state (see `ui/`) and never changes it.
//!
//! The state changes live beside it, one concern a file:
//! - `reducer.rs`: what each server message does to the state;
//! - `commands.rs`: typed lines and `/commands`;
//! - `keys.rs`: the key map of every screen;
//! - `settings_editor.rs`: the host's settings editor.
//!
//! Time is an input: every [`Event::Tick`] carries the time since the client
//! started, and countdowns are kept as deadlines on that clock.

use std::collections::HashMap;
use std::time::Duration;

use crossterm::event::KeyEvent;
use krypto_client::redirect::Follow;
use krypto_core::protocol::{
    ClientMessage, LeaderboardRow, Metric, Period, PlayerId, PlayerInfo, RoomPhase, RoomSnapshot,
    RoomSummary, Standing,
};
use krypto_core::settings::DealMode;
use krypto_core::Rules;

use super::catch_up::Heard;
use super::net::NetEvent;
use super::settings_editor::SettingsEditor;

/// What a player who joined mid-round is told, before they type anything.
pub const SITTING_OUT: &str = "you joined during this round; you play from the next one";

/// The most members a room's roster keeps (players and spectators): well
/// above what a server seats (32 players, 100 spectators by default), and
/// low enough that a hostile server's flood of arrivals costs nothing to
/// draw. Arrivals beyond it are not listed.
pub const MAX_ROSTER: usize = 1024;

/// The most feed lines kept; older ones scroll away.
const FEED_LIMIT: usize = 200;

/// Everything that can happen to the client, in one queue.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// A key press in the terminal UI.
    Key(KeyEvent),
    /// A line typed on standard input (`--plain`, `--json`).
    Line(String),
    /// The clock: time since the client started.
    Tick(Duration),
    /// The terminal changed size (redraw only).
    Resize,
    /// Something from the connection task.
    Net(NetEvent),
    /// Standard input ended (`--plain`): leave like `/quit`.
    InputClosed,
}

impl From<NetEvent> for Event {
    fn from(e: NetEvent) -> Self {
        Event::Net(e)
    }
}

/// What the run loop should do.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Send a request to the server.
    Send(ClientMessage),
    /// Remember the token the server gave `name`.
    SaveIdentity {
        /// The name as the server stored it.
        name: String,
        /// The secret to send in later `hello`s.
        token: String,
    },
    /// Move the connection to another node (a checked `ws://` or `wss://`
    /// URL): the room asked for lives there.
    Follow(String),
    /// Leave the program.
    Quit,
}

/// Where the connection stands.
#[derive(Debug, Clone, PartialEq)]
pub enum Conn {
    /// Before the first `welcome`.
    Connecting,
    /// Welcomed and connected.
    Online,
    /// Down; the connection task retries at `retry_at`.
    Down {
        /// Why, for the player.
        reason: String,
        /// When the next attempt is due.
        retry_at: Duration,
    },
    /// The server refused the name; nothing more will happen.
    Refused(String),
}

/// What the screen shows; derived from the state by [`App::screen`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Screen {
    /// Not yet welcomed by the server.
    Connecting,
    /// Public rooms; create or join one.
    Lobby,
    /// In a room between matches: code, roster, settings.
    Room,
    /// A match is running.
    Game,
    /// The match just ended.
    Podium,
    /// The leaderboard.
    Leaderboard,
}

/// What the text input is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputMode {
    /// Not typing: keys are shortcuts.
    Off,
    /// Typing a room code to join (or to watch, with `spectate`).
    Code {
        /// Join as a spectator.
        spectate: bool,
    },
    /// Typing a chat message.
    Chat,
    /// Typing a `/command`.
    Command,
    /// Typing a formula: a seated player's default from the countdown to the
    /// match's end, so keys typed between rounds are never shortcuts.
    Formula,
}

/// A step that needs a second "yes" because it would cost something.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Confirm {
    /// Leave the room (forfeits the match when one is on).
    Leave,
    /// Quit the program.
    Quit,
}

/// How a feed line looks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FeedKind {
    /// Someone said something.
    Chat,
    /// Something happened in the game.
    Event,
    /// A problem the client met or a request it did not send.
    Error,
    /// The server refused a request (its `error` message, in words).
    Refusal,
    /// A state summary for line mode (not shown in the TUI feed).
    State,
}

/// One line of the event feed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeedLine {
    /// How it looks.
    pub kind: FeedKind,
    /// What it says.
    pub text: String,
}

/// The hand being played, on the client's clock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoundView {
    /// 1-based round number.
    pub number: u32,
    /// The value to make.
    pub objective: i64,
    /// The cards.
    pub cards: Vec<i64>,
    /// The round's full length.
    pub duration_ms: u64,
    /// When the round's clock runs out.
    pub ends_at: Duration,
    /// Until when our answers are refused after a wrong one.
    pub locked_until: Option<Duration>,
    /// How the round ended, once it has.
    pub result: Option<String>,
}

/// The judgement of our last answer (or of a formula kept from the server).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerdictView {
    /// Whether it won the round.
    pub accepted: bool,
    /// The sentence to show.
    pub text: String,
}

/// The room we are in.
#[derive(Debug, Clone, PartialEq)]
pub struct RoomView {
    /// The server's latest snapshot, kept up to date by events (scores,
    /// arrivals and departures).
    pub snapshot: RoomSnapshot,
    /// The current or last round.
    pub round: Option<RoundView>,
    /// When the countdown or the pause between rounds ends.
    pub next_at: Option<Duration>,
    /// The final standings, shown until dismissed or a new match starts.
    pub podium: Option<Vec<Standing>>,
    /// The id of the match on the podium (`match_over`'s `match`), for
    /// `krypto match ID`; only ever a UUID's characters.
    pub recap: Option<String>,
    /// Our last verdict in this round.
    pub verdict: Option<VerdictView>,
    /// The rematch's ready check, while one is open.
    pub ready_check: Option<ReadyView>,
    /// Where each member is in `snapshot.players`: events find players by
    /// id, not by a scan, however many a server announces.
    pub(super) seats: HashMap<PlayerId, usize>,
    /// The names of members who left, so a result announced after they went
    /// (a win committed as its winner closed the tab) still names them;
    /// at most [`MAX_ROSTER`], forgotten when full.
    pub(super) departed: HashMap<PlayerId, String>,
}

impl RoomView {
    /// A view of `snapshot`, its roster cut to [`MAX_ROSTER`].
    pub(super) fn new(mut snapshot: RoomSnapshot) -> RoomView {
        snapshot.players.truncate(MAX_ROSTER);
        let mut view = RoomView {
            snapshot,
            round: None,
            next_at: None,
            podium: None,
            recap: None,
            verdict: None,
            ready_check: None,
            seats: HashMap::new(),
            departed: HashMap::new(),
        };
        view.reindex();
        view
    }

    /// A member, by id.
    pub fn member(&self, id: PlayerId) -> Option<&PlayerInfo> {
        let at = *self.seats.get(&id)?;
        self.snapshot.players.get(at)
    }

    /// The name of a member, or of one who left.
    pub fn name(&self, id: PlayerId) -> Option<&str> {
        self.member(id)
            .map(|p| p.name.as_str())
            .or_else(|| self.departed.get(&id).map(String::as_str))
    }

    /// A member, by id, to change.
    pub(super) fn member_mut(&mut self, id: PlayerId) -> Option<&mut PlayerInfo> {
        let at = *self.seats.get(&id)?;
        self.snapshot.players.get_mut(at)
    }

    /// Lists a newcomer; not when the roster is full.
    pub(super) fn add(&mut self, player: PlayerInfo) {
        if self.snapshot.players.len() < MAX_ROSTER {
            self.seats.insert(player.id, self.snapshot.players.len());
            self.snapshot.players.push(player);
        }
    }

    /// Takes a member off the roster.
    pub(super) fn remove(&mut self, id: PlayerId) {
        if let Some(at) = self.seats.remove(&id) {
            if at < self.snapshot.players.len() {
                let gone = self.snapshot.players.remove(at);
                if self.departed.len() >= MAX_ROSTER {
                    self.departed.clear();
                }
                self.departed.insert(gone.id, gone.name);
            }
            self.reindex();
        }
    }

    fn reindex(&mut self) {
        self.seats = self
            .snapshot
            .players
            .iter()
            .enumerate()
            .map(|(at, p)| (p.id, at))
            .collect();
    }
}

/// An open ready check before a rematch, on the client's clock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadyView {
    /// When the match starts anyway.
    pub ends_at: Duration,
    /// Who said they are ready.
    pub ready: Vec<PlayerId>,
}

/// A leaderboard as the server sent it.
#[derive(Debug, Clone, PartialEq)]
pub struct Board {
    /// Which metric.
    pub metric: Metric,
    /// Which period.
    pub period: Period,
    /// The rows, best first.
    pub rows: Vec<LeaderboardRow>,
}

/// A redirect being followed: where to, and what to ask that node for
/// unless its `welcome` resumes our seat.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Move {
    /// The node's WebSocket URL.
    pub url: String,
    /// The room's code.
    pub code: String,
    /// Whether we asked to watch rather than play.
    pub spectator: bool,
}

/// The whole client state.
#[derive(Debug, Clone, PartialEq)]
pub struct App {
    /// The home server's WebSocket URL: the one the player chose.
    pub server: String,
    /// The node of the home server's cluster we were sent to for our room
    /// (`None`: connected to the home server itself).
    pub node: Option<String>,
    /// A redirect being followed, until the node welcomes us.
    pub moving: Option<Move>,
    /// The loop guard: redirects followed since the last seat.
    pub redirects: Follow,
    /// The last room we asked to join (code, as a spectator), so a
    /// redirect of that join asks the next node for the same.
    pub last_join: Option<(String, bool)>,
    /// Our name (as the server stored it once welcomed).
    pub name: String,
    /// Our id, once welcomed.
    pub me: Option<PlayerId>,
    /// The clock: time since start.
    pub now: Duration,
    /// The connection.
    pub conn: Conn,
    /// The server's LAN base URLs (`http://192.168.1.20:7878`) that friends
    /// can use, from `welcome`; empty when the server knows none.
    pub join_urls: Vec<String>,
    /// The public rooms, as last listed: one page of at most `ROOMS_PAGE`.
    pub rooms: Vec<RoomSummary>,
    /// Which page `rooms` is (1 for the first).
    pub rooms_page: u32,
    /// Where the page after `rooms` starts (the listing's `next`), if
    /// there are more public rooms.
    pub rooms_next: Option<String>,
    /// The page the last `list_rooms` asked for: the next listing is it.
    rooms_asked: u32,
    /// The selected public room.
    pub room_cursor: usize,
    /// The room we are in.
    pub room: Option<RoomView>,
    /// The code and seat to rejoin after the server forgot us (restart).
    pub rejoin: Option<(String, bool)>,
    /// A rejoin is on its way: its refusal means the room is gone.
    pub rejoining: Option<String>,
    /// The next room snapshot follows a reconnect or a join: replay what
    /// happened in the room (its `recent` events) and the hand on the table.
    pub catch_up: Option<CatchUp>,
    /// The room events received live, so a catch-up replays only the rest.
    pub heard: Heard,
    /// The last leaderboard received.
    pub board: Option<Board>,
    /// Whether the leaderboard overlay is open.
    pub show_board: bool,
    /// The player's devices as last listed (`/devices`), for `/revoke N`.
    pub devices: Vec<krypto_core::protocol::DeviceInfo>,
    /// Whether the help overlay is open.
    pub help: bool,
    /// Whether the QR code of the room's browser link is shown large.
    pub show_qr: bool,
    /// A question waiting for "y" (leave or quit during a match).
    pub confirm: Option<Confirm>,
    /// What the text input is for.
    pub mode: InputMode,
    /// The text being typed.
    pub input: String,
    /// The host's settings editor.
    pub editor: SettingsEditor,
    /// The event feed, oldest first.
    pub feed: Vec<FeedLine>,
    /// Lines ever added to the feed (so line mode prints each once).
    pub feed_total: usize,
    /// A message to print after the terminal is restored.
    pub exit_message: Option<String>,
}

/// Why the next snapshot is a catch-up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CatchUp {
    /// We just entered the room.
    Joined,
    /// The server kept our seat while we were away.
    Resumed,
}

impl App {
    /// A client about to connect to `server` as `name`.
    pub fn new(server: &str, name: &str) -> App {
        App {
            server: server.to_owned(),
            node: None,
            moving: None,
            redirects: Follow::default(),
            last_join: None,
            name: name.to_owned(),
            me: None,
            now: Duration::ZERO,
            conn: Conn::Connecting,
            join_urls: Vec::new(),
            rooms: Vec::new(),
            rooms_page: 1,
            rooms_next: None,
            rooms_asked: 1,
            room_cursor: 0,
            room: None,
            rejoin: None,
            rejoining: None,
            catch_up: None,
            heard: Heard::default(),
            board: None,
            show_board: false,
            devices: Vec::new(),
            help: false,
            show_qr: false,
            confirm: None,
            mode: InputMode::Off,
            input: String::new(),
            editor: SettingsEditor::default(),
            feed: Vec::new(),
            feed_total: 0,
            exit_message: None,
        }
    }

    /// The screen to draw.
    pub fn screen(&self) -> Screen {
        if self.me.is_none() {
            return Screen::Connecting;
        }
        if self.show_board {
            return Screen::Leaderboard;
        }
        match &self.room {
            None => Screen::Lobby,
            Some(r) if r.podium.is_some() => Screen::Podium,
            Some(r) => match r.snapshot.state {
                RoomPhase::Lobby | RoomPhase::Finished => Screen::Room,
                RoomPhase::Countdown | RoomPhase::Playing | RoomPhase::BetweenRounds => {
                    Screen::Game
                }
            },
        }
    }

    /// Whether we host the room we are in.
    pub fn is_host(&self) -> bool {
        matches!((&self.room, self.me), (Some(r), Some(me)) if r.snapshot.host == me)
    }

    /// Whether we are a spectator in the room.
    pub fn is_spectator(&self) -> bool {
        self.my_info().is_some_and(|p| p.spectator)
    }

    fn my_info(&self) -> Option<&PlayerInfo> {
        let me = self.me?;
        self.player(me)
    }

    /// A member of our room.
    pub fn player(&self, id: PlayerId) -> Option<&PlayerInfo> {
        self.room.as_ref()?.member(id)
    }

    /// A player's name, from the roster or of one who left (or the id
    /// when unknown).
    pub fn name_of(&self, id: PlayerId) -> String {
        self.room
            .as_ref()
            .and_then(|r| r.name(id))
            .map_or_else(|| format!("player {id}"), str::to_owned)
    }

    /// Whether the roster marks this player as a bot.
    pub fn is_bot(&self, id: PlayerId) -> bool {
        self.player(id).is_some_and(|p| p.bot)
    }

    /// Time left until `deadline` on our clock.
    pub fn left(&self, deadline: Duration) -> Duration {
        deadline.saturating_sub(self.now)
    }

    /// The round being raced, if one is running and not over.
    pub fn live_round(&self) -> Option<&RoundView> {
        let room = self.room.as_ref()?;
        let round = room.round.as_ref()?;
        (room.snapshot.state == RoomPhase::Playing && round.result.is_none()).then_some(round)
    }

    /// Whether a match is on in our room (countdown, a round, or the pause
    /// between rounds): leaving now forfeits it.
    pub fn in_match(&self) -> bool {
        self.room.as_ref().is_some_and(|r| {
            matches!(
                r.snapshot.state,
                RoomPhase::Countdown | RoomPhase::Playing | RoomPhase::BetweenRounds
            )
        })
    }

    /// Whether we play (not watch) in a match that is on.
    pub fn playing_a_match(&self) -> bool {
        self.in_match() && !self.is_spectator()
    }

    /// Whether we joined during the round being played: the server takes
    /// our answers from the next hand on.
    pub fn sitting_out(&self) -> bool {
        self.live_round().is_some() && self.my_info().is_some_and(|p| p.waiting && !p.spectator)
    }

    /// Whether a ready check waits for our "ready": we are seated, and have
    /// not said it yet.
    pub fn ready_asked(&self) -> bool {
        let (Some(room), Some(me)) = (&self.room, self.me) else {
            return false;
        };
        room.ready_check
            .as_ref()
            .is_some_and(|c| !c.ready.contains(&me))
            && !self.is_spectator()
    }

    /// Whether the room may deal hands without a solution, so that claiming
    /// "no solution" can be right.
    pub fn no_solution_possible(&self) -> bool {
        self.room
            .as_ref()
            .is_some_and(|r| r.snapshot.settings.deal == DealMode::Any)
    }

    /// The room's rule set (free outside a room).
    pub fn rules(&self) -> Rules {
        self.room
            .as_ref()
            .map_or(Rules::Free, |r| r.snapshot.settings.rules)
    }

    /// Adds a line to the feed.
    pub(super) fn push(&mut self, kind: FeedKind, text: impl Into<String>) {
        self.feed.push(FeedLine {
            kind,
            text: text.into(),
        });
        self.feed_total += 1;
        if self.feed.len() > FEED_LIMIT {
            let extra = self.feed.len() - FEED_LIMIT;
            self.feed.drain(..extra);
        }
    }

    pub(super) fn error(&mut self, text: impl Into<String>) {
        self.push(FeedKind::Error, text);
    }

    /// Asks for the first page of public rooms.
    pub(super) fn list_rooms(&mut self) -> Action {
        self.rooms_asked = 1;
        Action::Send(ClientMessage::ListRooms { after: None })
    }

    /// Asks for the page of public rooms after the one shown, if any.
    pub(super) fn more_rooms(&mut self) -> Vec<Action> {
        let Some(after) = self.rooms_next.clone() else {
            self.error("no more public rooms: this is the last page (r: the first)");
            return Vec::new();
        };
        self.rooms_asked = self.rooms_page + 1;
        vec![Action::Send(ClientMessage::ListRooms {
            after: Some(after),
        })]
    }

    /// A listing arrived: the page asked for last, at its top if it is
    /// another page than the one shown.
    pub(super) fn listed(&mut self, rooms: Vec<RoomSummary>, next: Option<String>) {
        if self.rooms_asked != self.rooms_page {
            self.room_cursor = 0;
        }
        self.rooms_page = self.rooms_asked;
        self.room_cursor = self.room_cursor.min(rooms.len().saturating_sub(1));
        self.rooms = rooms;
        self.rooms_next = next;
    }

    /// Adds a problem the run loop met (a send while offline, a file that
    /// could not be written) to the feed.
    pub fn note_error(&mut self, text: impl Into<String>) {
        self.error(text);
    }

    /// Feed lines added since `seen` lines had been added in all.
    pub fn feed_since(&self, seen: usize) -> &[FeedLine] {
        let new = self.feed_total.saturating_sub(seen).min(self.feed.len());
        &self.feed[self.feed.len() - new..]
    }

    /// Takes one event; returns what to do.
    pub fn handle(&mut self, event: Event) -> Vec<Action> {
        let actions = match event {
            Event::Tick(now) => {
                self.now = now;
                Vec::new()
            }
            Event::Resize => Vec::new(),
            Event::Key(key) => self.key(key),
            Event::Line(line) => self.line(&line),
            Event::InputClosed => vec![Action::Quit],
            Event::Net(net) => self.net(net),
        };
        // The room last asked for, wherever the request came from, so a
        // redirect of it is followed as it was asked (to play or to watch).
        for action in &actions {
            if let Action::Send(ClientMessage::JoinRoom { code, spectator }) = action {
                self.last_join = Some((code.clone(), *spectator));
            }
        }
        actions
    }

    /// The server we are connected (or connecting) to: the node we were
    /// sent to, else the home server.
    pub fn current_server(&self) -> &str {
        self.node.as_deref().unwrap_or(&self.server)
    }

    /// Forgets the room (we left, were removed, or it is gone) and puts the
    /// lobby back in working order: no formula field, no overlays of the room.
    pub(super) fn leave_room_locally(&mut self) {
        self.room = None;
        self.rejoin = None;
        self.rejoining = None;
        self.catch_up = None;
        self.confirm = None;
        self.show_qr = false;
        self.editor = SettingsEditor::default();
        self.mode = InputMode::Off;
        self.input.clear();
    }

    /// The input mode when not typing anything in particular: a seated
    /// player in a match always types a formula.
    pub(super) fn resting_mode(&self) -> InputMode {
        if self.playing_a_match() {
            InputMode::Formula
        } else {
            InputMode::Off
        }
    }
}
