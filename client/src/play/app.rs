//! The live client's state machine, with no I/O in it: keys, typed lines,
//! clock ticks and network events go in through [`App::handle`]; what to do
//! about them (send a request, save the token, quit) comes out as
//! [`Action`]s. Drawing reads this state (see `ui.rs`) and never changes it.
//!
//! Time is an input: every [`Event::Tick`] carries the time since the client
//! started, and countdowns are kept as deadlines on that clock.

use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use krypto_core::protocol::{
    ClientMessage, DealMode, Difficulty, ErrorCode, LeaderboardRow, LeaveReason, Metric, Period,
    PlayerId, RoomPhase, RoomSettings, RoomSnapshot, RoomSummary, ServerEnvelope, ServerMessage,
    SettingsPatch, Standing, Variant, MAX_CHAT_LEN,
};
use krypto_core::Rules;

use super::net::NetEvent;

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
    /// Typing a formula (the game screen's default).
    Formula,
}

/// How a feed line looks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FeedKind {
    /// Someone said something.
    Chat,
    /// Something happened in the game.
    Event,
    /// A refusal or a problem.
    Error,
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

/// The judgement of our last answer.
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
    /// The server's latest snapshot, with scores kept up to date by events.
    pub snapshot: RoomSnapshot,
    /// The current or last round.
    pub round: Option<RoundView>,
    /// When the countdown or the pause between rounds ends.
    pub next_at: Option<Duration>,
    /// The final standings, shown until dismissed or a new match starts.
    pub podium: Option<Vec<Standing>>,
    /// Our last verdict in this round.
    pub verdict: Option<VerdictView>,
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

/// The settings the host can edit, in the editor's order.
pub const SETTING_FIELDS: [&str; 11] = [
    "variant",
    "rules",
    "rounds",
    "target_score",
    "round_seconds",
    "lockout_seconds",
    "wrong_penalty",
    "deal",
    "difficulty",
    "max_players",
    "public",
];

/// The whole client state.
#[derive(Debug, Clone, PartialEq)]
pub struct App {
    /// The server's WebSocket URL.
    pub server: String,
    /// Our name (as the server stored it once welcomed).
    pub name: String,
    /// Our id, once welcomed.
    pub me: Option<PlayerId>,
    /// The clock: time since start.
    pub now: Duration,
    /// The connection.
    pub conn: Conn,
    /// The public rooms, as last listed.
    pub rooms: Vec<RoomSummary>,
    /// The selected public room.
    pub room_cursor: usize,
    /// The room we are in.
    pub room: Option<RoomView>,
    /// The code and seat to rejoin after the server forgot us (restart).
    pub rejoin: Option<(String, bool)>,
    /// The last leaderboard received.
    pub board: Option<Board>,
    /// Whether the leaderboard screen is open.
    pub show_board: bool,
    /// Whether the help overlay is open.
    pub help: bool,
    /// What the text input is for.
    pub mode: InputMode,
    /// The text being typed.
    pub input: String,
    /// The selected line of the settings editor.
    pub settings_cursor: usize,
    /// The event feed, oldest first.
    pub feed: Vec<FeedLine>,
    /// Lines ever added to the feed (so line mode prints each once).
    pub feed_total: usize,
    /// A message to print after the terminal is restored.
    pub exit_message: Option<String>,
}

impl App {
    /// A client about to connect to `server` as `name`.
    pub fn new(server: &str, name: &str) -> App {
        App {
            server: server.to_owned(),
            name: name.to_owned(),
            me: None,
            now: Duration::ZERO,
            conn: Conn::Connecting,
            rooms: Vec::new(),
            room_cursor: 0,
            room: None,
            rejoin: None,
            board: None,
            show_board: false,
            help: false,
            mode: InputMode::Off,
            input: String::new(),
            settings_cursor: 0,
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

    fn my_info(&self) -> Option<&krypto_core::protocol::PlayerInfo> {
        let me = self.me?;
        self.room
            .as_ref()?
            .snapshot
            .players
            .iter()
            .find(|p| p.id == me)
    }

    /// A player's name, from the roster (or the id when unknown).
    pub fn name_of(&self, id: PlayerId) -> String {
        self.room
            .as_ref()
            .and_then(|r| r.snapshot.players.iter().find(|p| p.id == id))
            .map(|p| p.name.clone())
            .unwrap_or_else(|| format!("player {id}"))
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

    /// The room's rule set (free outside a room).
    pub fn rules(&self) -> Rules {
        self.room
            .as_ref()
            .map_or(Rules::Free, |r| r.snapshot.settings.rules)
    }

    fn push(&mut self, kind: FeedKind, text: impl Into<String>) {
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

    fn error(&mut self, text: impl Into<String>) {
        self.push(FeedKind::Error, text);
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
        match event {
            Event::Tick(now) => {
                self.now = now;
                Vec::new()
            }
            Event::Resize => Vec::new(),
            Event::Key(key) => self.key(key),
            Event::Line(line) => self.line(&line),
            Event::InputClosed => vec![Action::Quit],
            Event::Net(net) => self.net(net),
        }
    }

    // -----------------------------------------------------------------------
    // Network
    // -----------------------------------------------------------------------

    fn net(&mut self, event: NetEvent) -> Vec<Action> {
        match event {
            NetEvent::Message { envelope, .. } => self.message(*envelope),
            NetEvent::Disconnected { reason, retry_in } => {
                self.push(
                    FeedKind::Error,
                    format!(
                        "disconnected: {reason}; reconnecting in {}",
                        secs(retry_in.as_millis())
                    ),
                );
                if let Some(r) = &self.room {
                    let spectator = self.is_spectator();
                    self.rejoin = Some((r.snapshot.code.clone(), spectator));
                }
                self.conn = Conn::Down {
                    reason,
                    retry_at: self.now + retry_in,
                };
                Vec::new()
            }
            NetEvent::Refused { code, message } => {
                let text = format!("the server refused {:?}: {message} ({code:?})", self.name);
                self.error(text.clone());
                self.conn = Conn::Refused(text.clone());
                self.exit_message = Some(text);
                vec![Action::Quit]
            }
        }
    }

    fn message(&mut self, envelope: ServerEnvelope) -> Vec<Action> {
        let mut actions = Vec::new();
        match envelope.message {
            ServerMessage::Welcome {
                player_id,
                name,
                token,
                resumed,
                ..
            } => {
                self.me = Some(player_id);
                self.name.clone_from(&name);
                self.conn = Conn::Online;
                self.push(
                    FeedKind::Event,
                    format!("connected to {} as {name}", self.server),
                );
                actions.push(Action::SaveIdentity { name, token });
                actions.push(Action::Send(ClientMessage::ListRooms));
                match self.rejoin.take() {
                    Some((code, spectator)) if !resumed => {
                        // The server forgot our seat (a restart, or we were
                        // away too long): ask for it again.
                        self.room = None;
                        self.push(FeedKind::Event, format!("rejoining room {code}"));
                        actions.push(Action::Send(ClientMessage::JoinRoom { code, spectator }));
                    }
                    _ => {}
                }
            }
            ServerMessage::Rooms { rooms } => {
                self.room_cursor = self.room_cursor.min(rooms.len().saturating_sub(1));
                if rooms.is_empty() {
                    self.push(FeedKind::State, "no public rooms");
                } else {
                    self.push(FeedKind::State, "public rooms:");
                    for r in &rooms {
                        self.push(
                            FeedKind::State,
                            format!(
                                "  {}  host {}  {}/{}  {}",
                                r.code,
                                r.host,
                                r.players,
                                r.max_players,
                                phase_name(r.state)
                            ),
                        );
                    }
                }
                self.rooms = rooms;
            }
            ServerMessage::RoomState(snapshot) => self.room_state(snapshot),
            ServerMessage::MatchStarted {
                rounds_total,
                settings,
                countdown_ms,
            } => {
                if let Some(r) = &mut self.room {
                    r.podium = None;
                    r.round = None;
                    r.verdict = None;
                    r.snapshot.rounds_total = rounds_total;
                    r.snapshot.settings = settings;
                    r.snapshot.state = RoomPhase::Countdown;
                    r.next_at = Some(self.now + Duration::from_millis(countdown_ms));
                    for p in &mut r.snapshot.players {
                        p.score = 0;
                    }
                }
                self.push(
                    FeedKind::Event,
                    format!(
                        "match started: {rounds_total} round{}",
                        plural(rounds_total.into())
                    ),
                );
            }
            ServerMessage::RoundStarted {
                round,
                objective,
                cards,
                duration_ms,
            } => {
                let text = format!(
                    "round {round}: make {objective} from {} ({})",
                    join_cards(&cards),
                    secs(duration_ms.into())
                );
                if let Some(r) = &mut self.room {
                    r.snapshot.state = RoomPhase::Playing;
                    r.next_at = None;
                    r.verdict = None;
                    r.round = Some(RoundView {
                        number: round,
                        objective,
                        cards,
                        duration_ms,
                        ends_at: self.now + Duration::from_millis(duration_ms),
                        locked_until: None,
                        result: None,
                    });
                }
                self.input.clear();
                if !self.is_spectator() {
                    self.mode = InputMode::Formula;
                }
                self.push(FeedKind::Event, text);
            }
            ServerMessage::Verdict {
                round,
                accepted,
                value,
                error,
                locked_out_ms,
            } => {
                let text = if accepted {
                    format!("round {round}: correct!")
                } else {
                    let mut t = match &error {
                        Some(e) => format!("wrong ({}): {}", kind_name(e.kind), e.message),
                        None => "wrong".to_owned(),
                    };
                    if let Some(v) = &value {
                        t.push_str(&format!(" [value {v}]"));
                    }
                    if let Some(ms) = locked_out_ms.filter(|ms| *ms > 0) {
                        t.push_str(&format!("; locked out for {}", secs(ms.into())));
                    }
                    t
                };
                let now = self.now;
                if let Some(r) = &mut self.room {
                    if let Some(rv) = r.round.as_mut().filter(|rv| rv.number == round) {
                        if let Some(ms) = locked_out_ms {
                            rv.locked_until = Some(now + Duration::from_millis(ms));
                        }
                    }
                    r.verdict = Some(VerdictView {
                        accepted,
                        text: text.clone(),
                    });
                }
                if accepted {
                    self.input.clear();
                }
                self.push(
                    if accepted {
                        FeedKind::Event
                    } else {
                        FeedKind::Error
                    },
                    text,
                );
            }
            ServerMessage::AttemptFailed {
                round: _,
                player,
                score,
            } => {
                let name = self.name_of(player);
                self.set_score(player, score);
                if Some(player) != self.me {
                    self.push(FeedKind::Event, format!("{name} tried and missed"));
                }
            }
            ServerMessage::RoundWon {
                round,
                winner,
                formula,
                no_solution,
                elapsed_ms,
                points,
                scores,
            } => {
                for s in &scores {
                    self.set_score(s.player, s.score);
                }
                let who = self.name_of(winner);
                let how = match (&formula, no_solution) {
                    (_, true) | (None, _) => "a right \"no solution\" claim".to_owned(),
                    (Some(f), false) => f.clone(),
                };
                let text = format!(
                    "round {round} won by {who} in {}: {how} (+{points})",
                    secs(elapsed_ms.into())
                );
                self.end_round(round, &text);
                self.push(FeedKind::Event, text);
            }
            ServerMessage::RoundTimedOut {
                round,
                solution,
                solutions,
            } => {
                let text = match solution {
                    Some(s) => format!(
                        "round {round}: time is up; one of {solutions} solution{}: {s}",
                        plural(solutions)
                    ),
                    None => format!("round {round}: time is up; the hand had no solution"),
                };
                self.end_round(round, &text);
                self.push(FeedKind::Event, text);
            }
            ServerMessage::MatchOver { standings } => {
                let mut lines = vec!["match over:".to_owned()];
                for s in &standings {
                    let rating = match (s.rating_before, s.rating_after) {
                        (Some(b), Some(a)) => format!("  rating {b:.1} -> {a:.1}"),
                        _ => String::new(),
                    };
                    lines.push(format!(
                        "  {}. {}  {} point{}{rating}",
                        s.rank,
                        s.name,
                        s.score,
                        plural(s.score.unsigned_abs())
                    ));
                }
                if let Some(r) = &mut self.room {
                    r.snapshot.state = RoomPhase::Finished;
                    r.next_at = None;
                    r.podium = Some(standings);
                }
                if self.mode == InputMode::Formula {
                    self.mode = InputMode::Off;
                    self.input.clear();
                }
                for l in lines {
                    self.push(FeedKind::Event, l);
                }
            }
            ServerMessage::Chat { name, text, .. } => {
                self.push(FeedKind::Chat, format!("[chat] {name}: {text}"));
            }
            ServerMessage::PlayerJoined {
                name, spectator, ..
            } => {
                let how = if spectator { " to watch" } else { "" };
                self.push(FeedKind::Event, format!("{name} joined{how}"));
            }
            ServerMessage::PlayerLeft {
                player,
                name,
                reason,
            } => {
                if Some(player) == self.me {
                    let text = match reason {
                        LeaveReason::Kicked => "you were removed from the room by the host",
                        _ => "you left the room",
                    };
                    self.room = None;
                    self.rejoin = None;
                    self.mode = InputMode::Off;
                    self.input.clear();
                    self.push(FeedKind::Event, text);
                    actions.push(Action::Send(ClientMessage::ListRooms));
                } else {
                    let why = match reason {
                        LeaveReason::Left => "left",
                        LeaveReason::Kicked => "was removed by the host",
                        LeaveReason::TimedOut => "lost their seat (away too long)",
                    };
                    self.push(FeedKind::Event, format!("{name} {why}"));
                }
            }
            ServerMessage::Leaderboard {
                metric,
                period,
                rows,
            } => {
                let head = format!(
                    "leaderboard {}, {}:",
                    metric_name(metric),
                    period_name(period)
                );
                if rows.is_empty() {
                    self.push(FeedKind::State, format!("{head} no rows yet"));
                } else {
                    self.push(FeedKind::State, head);
                    for r in &rows {
                        self.push(
                            FeedKind::State,
                            format!(
                                "  {}. {}  {}  ({} match{})",
                                r.rank,
                                r.name,
                                metric_value(metric, r.value),
                                r.matches,
                                if r.matches == 1 { "" } else { "es" }
                            ),
                        );
                    }
                }
                self.board = Some(Board {
                    metric,
                    period,
                    rows,
                });
            }
            ServerMessage::Pong => {}
            ServerMessage::Error { code, message } => {
                self.error(format!("error {}: {message}", code_name(code)));
            }
        }
        actions
    }

    fn room_state(&mut self, snapshot: RoomSnapshot) {
        let now = self.now;
        let fresh = self
            .room
            .as_ref()
            .map_or(true, |r| r.snapshot.code != snapshot.code);
        let previous = if fresh { None } else { self.room.take() };
        let round = snapshot.round.as_ref().map(|info| {
            let old = previous
                .as_ref()
                .and_then(|p| p.round.as_ref())
                .filter(|r| r.number == info.number);
            let over = snapshot.state != RoomPhase::Playing || info.remaining_ms == 0;
            RoundView {
                number: info.number,
                objective: info.objective,
                cards: info.cards.clone(),
                duration_ms: info.duration_ms,
                ends_at: now + Duration::from_millis(info.remaining_ms),
                locked_until: info
                    .locked_out_ms
                    .filter(|ms| *ms > 0)
                    .map(|ms| now + Duration::from_millis(ms)),
                result: old
                    .and_then(|o| o.result.clone())
                    .or_else(|| over.then(|| "round over".to_owned())),
            }
        });
        let in_match = matches!(
            snapshot.state,
            RoomPhase::Countdown | RoomPhase::Playing | RoomPhase::BetweenRounds
        );
        let podium = if in_match {
            None
        } else {
            previous.as_ref().and_then(|p| p.podium.clone())
        };
        let verdict = previous
            .as_ref()
            .filter(|p| p.round.as_ref().map(|r| r.number) == round.as_ref().map(|r| r.number))
            .and_then(|p| p.verdict.clone());
        let players: Vec<String> = snapshot
            .players
            .iter()
            .map(|p| {
                let mut tags = Vec::new();
                if p.id == snapshot.host {
                    tags.push("host");
                }
                if p.spectator {
                    tags.push("spectator");
                }
                if !p.connected {
                    tags.push("away");
                }
                if tags.is_empty() {
                    p.name.clone()
                } else {
                    format!("{} ({})", p.name, tags.join(", "))
                }
            })
            .collect();
        self.push(
            FeedKind::State,
            format!(
                "room {}: {}{}; players: {}",
                snapshot.code,
                phase_name(snapshot.state),
                if snapshot.locked { ", locked" } else { "" },
                players.join(", ")
            ),
        );
        if fresh {
            for m in &snapshot.recent {
                if let ServerMessage::Chat { name, text, .. } = m {
                    self.push(FeedKind::Chat, format!("[chat] {name}: {text}"));
                }
            }
        }
        let live = snapshot.state == RoomPhase::Playing
            && round.as_ref().is_some_and(|r| r.result.is_none());
        self.room = Some(RoomView {
            next_at: snapshot.next_ms.map(|ms| now + Duration::from_millis(ms)),
            snapshot,
            round,
            podium,
            verdict,
        });
        self.rejoin = None;
        if live && !self.is_spectator() && self.mode == InputMode::Off {
            self.mode = InputMode::Formula;
        }
        if !live && self.mode == InputMode::Formula {
            self.mode = InputMode::Off;
        }
    }

    fn set_score(&mut self, player: PlayerId, score: i64) {
        if let Some(r) = &mut self.room {
            if let Some(p) = r.snapshot.players.iter_mut().find(|p| p.id == player) {
                p.score = score;
            }
        }
    }

    fn end_round(&mut self, round: u32, text: &str) {
        if self.mode == InputMode::Formula {
            self.mode = InputMode::Off;
            self.input.clear();
        }
        if let Some(r) = &mut self.room {
            r.snapshot.state = RoomPhase::BetweenRounds;
            if let Some(rv) = r.round.as_mut().filter(|rv| rv.number == round) {
                rv.result = Some(text.to_owned());
            }
        }
    }

    // -----------------------------------------------------------------------
    // Typed lines and /commands (line mode and the TUI's input)
    // -----------------------------------------------------------------------

    fn line(&mut self, line: &str) -> Vec<Action> {
        let line = line.trim();
        if line.is_empty() {
            return Vec::new();
        }
        if line.starts_with('/') {
            return self.command(line);
        }
        self.submit(line)
    }

    /// Submits `formula` to the current round, unless there is none or we
    /// are locked out (then says why).
    fn submit(&mut self, formula: &str) -> Vec<Action> {
        if self.is_spectator() {
            self.error("spectators cannot answer (use /chat to talk)");
            return Vec::new();
        }
        let Some(round) = self.live_round() else {
            self.error("no round is being played; type /help for commands");
            return Vec::new();
        };
        if let Some(until) = round.locked_until.filter(|u| *u > self.now) {
            let left = self.left(until);
            self.error(format!("locked out for {} more", secs(left.as_millis())));
            return Vec::new();
        }
        vec![Action::Send(ClientMessage::Submit {
            round: round.number,
            formula: formula.to_owned(),
        })]
    }

    /// Runs one `/command`.
    pub fn command(&mut self, line: &str) -> Vec<Action> {
        let body = line.trim().trim_start_matches('/');
        let (cmd, rest) = match body.split_once(char::is_whitespace) {
            Some((c, r)) => (c, r.trim()),
            None => (body, ""),
        };
        let send = |m| vec![Action::Send(m)];
        match cmd.to_ascii_lowercase().as_str() {
            "quit" | "exit" | "q" => vec![Action::Quit],
            "help" | "?" => {
                self.help = true;
                for l in COMMAND_HELP.lines() {
                    self.push(FeedKind::State, l);
                }
                Vec::new()
            }
            "rooms" => send(ClientMessage::ListRooms),
            "create" => {
                let public = match rest.to_ascii_lowercase().as_str() {
                    "" | "private" => false,
                    "public" => true,
                    other => {
                        self.error(format!(
                            "/create takes \"public\" or nothing, not {other:?}"
                        ));
                        return Vec::new();
                    }
                };
                send(ClientMessage::CreateRoom {
                    settings: None,
                    public: Some(public),
                })
            }
            "join" | "spectate" | "watch" if rest.is_empty() => {
                self.error(format!("usage: /{cmd} CODE"));
                Vec::new()
            }
            "join" => send(ClientMessage::JoinRoom {
                code: rest.to_uppercase(),
                spectator: false,
            }),
            "spectate" | "watch" => send(ClientMessage::JoinRoom {
                code: rest.to_uppercase(),
                spectator: true,
            }),
            "start" => send(ClientMessage::Start),
            "leave" => send(ClientMessage::LeaveRoom),
            "set" => match parse_patch(rest) {
                Ok(settings) => send(ClientMessage::UpdateSettings { settings }),
                Err(e) => {
                    self.error(e);
                    Vec::new()
                }
            },
            "chat" | "say" => self.chat(rest),
            "nosolution" | "no-solution" | "none" => match self.live_round() {
                Some(r) => send(ClientMessage::ClaimNoSolution { round: r.number }),
                None => {
                    self.error("no round is being played");
                    Vec::new()
                }
            },
            "lock" => send(ClientMessage::Lock { locked: true }),
            "unlock" => send(ClientMessage::Lock { locked: false }),
            "kick" | "host" => {
                let Some(player) = self.find_player(rest) else {
                    self.error(format!("nobody called {rest:?} is in the room"));
                    return Vec::new();
                };
                if cmd.eq_ignore_ascii_case("kick") {
                    send(ClientMessage::Kick { player })
                } else {
                    send(ClientMessage::TransferHost { player })
                }
            }
            "leaderboard" | "lb" => {
                let mut metric = None;
                let mut period = None;
                let mut around = None;
                for word in rest.split_whitespace() {
                    if let Some(m) = parse_metric(word) {
                        metric = Some(m);
                    } else if let Some(p) = parse_period(word) {
                        period = Some(p);
                    } else {
                        around = Some(word.to_owned());
                    }
                }
                self.show_board = true;
                send(ClientMessage::Leaderboard {
                    metric,
                    period,
                    limit: Some(20),
                    around,
                })
            }
            _ => {
                self.error(format!("unknown command /{cmd}; type /help"));
                Vec::new()
            }
        }
    }

    fn chat(&mut self, text: &str) -> Vec<Action> {
        if text.is_empty() {
            return Vec::new();
        }
        if self.room.is_none() {
            self.error("chat needs a room: /create or /join CODE first");
            return Vec::new();
        }
        let text: String = text.chars().take(MAX_CHAT_LEN).collect();
        vec![Action::Send(ClientMessage::Chat { text })]
    }

    fn find_player(&self, name: &str) -> Option<PlayerId> {
        let name = name.trim();
        self.room
            .as_ref()?
            .snapshot
            .players
            .iter()
            .find(|p| p.name.eq_ignore_ascii_case(name))
            .map(|p| p.id)
    }

    // -----------------------------------------------------------------------
    // Keys (the TUI)
    // -----------------------------------------------------------------------

    fn key(&mut self, key: KeyEvent) -> Vec<Action> {
        if key.kind == KeyEventKind::Release {
            return Vec::new();
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        if ctrl && matches!(key.code, KeyCode::Char('c') | KeyCode::Char('d')) {
            return vec![Action::Quit];
        }
        if key.code == KeyCode::F(1) {
            self.help = !self.help;
            return Vec::new();
        }
        if self.help {
            // Any key closes the overlay.
            self.help = false;
            return Vec::new();
        }
        if self.mode != InputMode::Off {
            return self.typing(key);
        }
        match self.screen() {
            Screen::Connecting => match key.code {
                KeyCode::Char('q') | KeyCode::Esc => vec![Action::Quit],
                _ => Vec::new(),
            },
            Screen::Leaderboard => self.board_key(key),
            screen => self.shortcut(screen, key),
        }
    }

    fn shortcut(&mut self, screen: Screen, key: KeyEvent) -> Vec<Action> {
        let send = |m| vec![Action::Send(m)];
        // Keys every screen shares.
        match key.code {
            KeyCode::Char('?') => {
                self.help = true;
                return Vec::new();
            }
            KeyCode::Char('q') => return vec![Action::Quit],
            KeyCode::Char('/') => {
                self.mode = InputMode::Command;
                self.input = "/".to_owned();
                return Vec::new();
            }
            KeyCode::Char('l') => {
                self.show_board = true;
                let (metric, period) = self
                    .board
                    .as_ref()
                    .map_or((Metric::Rating, Period::All), |b| (b.metric, b.period));
                return self.ask_board(metric, period);
            }
            _ => {}
        }
        match screen {
            Screen::Lobby => match key.code {
                KeyCode::Up => {
                    self.room_cursor = self.room_cursor.saturating_sub(1);
                    Vec::new()
                }
                KeyCode::Down => {
                    if self.room_cursor + 1 < self.rooms.len() {
                        self.room_cursor += 1;
                    }
                    Vec::new()
                }
                KeyCode::Enter | KeyCode::Char('s') => {
                    let spectator = key.code != KeyCode::Enter;
                    match self.rooms.get(self.room_cursor) {
                        Some(r) => send(ClientMessage::JoinRoom {
                            code: r.code.clone(),
                            spectator,
                        }),
                        None => Vec::new(),
                    }
                }
                KeyCode::Char('c') | KeyCode::Char('p') => send(ClientMessage::CreateRoom {
                    settings: None,
                    public: Some(key.code == KeyCode::Char('p')),
                }),
                KeyCode::Char('j') | KeyCode::Char('w') => {
                    self.mode = InputMode::Code {
                        spectate: key.code == KeyCode::Char('w'),
                    };
                    self.input.clear();
                    Vec::new()
                }
                KeyCode::Char('r') => send(ClientMessage::ListRooms),
                _ => Vec::new(),
            },
            Screen::Room | Screen::Podium => match key.code {
                KeyCode::Esc | KeyCode::Enter if screen == Screen::Podium => {
                    if let Some(r) = &mut self.room {
                        r.podium = None;
                    }
                    Vec::new()
                }
                KeyCode::Char('s') => send(ClientMessage::Start),
                KeyCode::Char('c') | KeyCode::Enter | KeyCode::Tab => {
                    self.mode = InputMode::Chat;
                    self.input.clear();
                    Vec::new()
                }
                KeyCode::Char('x') => send(ClientMessage::LeaveRoom),
                KeyCode::Char('o') => {
                    let locked = self.room.as_ref().is_some_and(|r| r.snapshot.locked);
                    send(ClientMessage::Lock { locked: !locked })
                }
                KeyCode::Up => {
                    self.settings_cursor = self.settings_cursor.saturating_sub(1);
                    Vec::new()
                }
                KeyCode::Down => {
                    self.settings_cursor = (self.settings_cursor + 1).min(SETTING_FIELDS.len() - 1);
                    Vec::new()
                }
                KeyCode::Left | KeyCode::Right | KeyCode::Char('-') | KeyCode::Char('+') => {
                    if !self.is_host() {
                        self.error("only the host changes the settings");
                        return Vec::new();
                    }
                    let forward = matches!(key.code, KeyCode::Right | KeyCode::Char('+'));
                    let Some(room) = &self.room else {
                        return Vec::new();
                    };
                    let settings =
                        step_setting(&room.snapshot.settings, self.settings_cursor, forward);
                    send(ClientMessage::UpdateSettings { settings })
                }
                _ => Vec::new(),
            },
            // The game screen is always typing (a formula or chat); it only
            // gets here for spectators and between rounds.
            Screen::Game => match key.code {
                KeyCode::Char('c') | KeyCode::Enter | KeyCode::Tab => {
                    self.mode = InputMode::Chat;
                    self.input.clear();
                    Vec::new()
                }
                KeyCode::Char('x') => send(ClientMessage::LeaveRoom),
                _ => Vec::new(),
            },
            Screen::Connecting | Screen::Leaderboard => Vec::new(),
        }
    }

    fn typing(&mut self, key: KeyEvent) -> Vec<Action> {
        match key.code {
            KeyCode::Esc => {
                self.input.clear();
                if self.mode != InputMode::Formula {
                    self.mode = self.resting_mode();
                }
                Vec::new()
            }
            KeyCode::Tab => {
                // Between the formula and chat during a round.
                self.mode = match self.mode {
                    InputMode::Formula => InputMode::Chat,
                    _ => self.resting_mode(),
                };
                self.input.clear();
                Vec::new()
            }
            KeyCode::Backspace => {
                self.input.pop();
                if self.input.is_empty() && self.mode == InputMode::Command {
                    self.mode = self.resting_mode();
                }
                Vec::new()
            }
            KeyCode::Enter => {
                let text = std::mem::take(&mut self.input);
                let mode = self.mode;
                self.mode = self.resting_mode();
                let text = text.trim();
                if text.starts_with('/') {
                    return self.command(text);
                }
                match mode {
                    InputMode::Code { spectate } if !text.is_empty() => {
                        vec![Action::Send(ClientMessage::JoinRoom {
                            code: text.to_uppercase(),
                            spectator: spectate,
                        })]
                    }
                    InputMode::Chat => self.chat(text),
                    InputMode::Formula if !text.is_empty() => {
                        let actions = self.submit(text);
                        // Keep the formula on screen to fix it after a refusal.
                        self.input = text.to_owned();
                        actions
                    }
                    _ => Vec::new(),
                }
            }
            KeyCode::Char('?') if self.input.is_empty() && self.mode == InputMode::Formula => {
                self.help = true;
                Vec::new()
            }
            KeyCode::Char(c) => {
                if self.input.chars().count() < MAX_CHAT_LEN {
                    let c = match self.mode {
                        InputMode::Code { .. } => c.to_ascii_uppercase(),
                        InputMode::Formula => match c {
                            // Easier to type than × and ÷.
                            'x' | 'X' => '*',
                            ':' => '/',
                            other => other,
                        },
                        _ => c,
                    };
                    self.input.push(c);
                }
                Vec::new()
            }
            _ => Vec::new(),
        }
    }

    /// The input mode when not typing anything in particular.
    fn resting_mode(&self) -> InputMode {
        if self.live_round().is_some() && !self.is_spectator() {
            InputMode::Formula
        } else {
            InputMode::Off
        }
    }

    fn board_key(&mut self, key: KeyEvent) -> Vec<Action> {
        let (metric, period) = self
            .board
            .as_ref()
            .map_or((Metric::Rating, Period::All), |b| (b.metric, b.period));
        match key.code {
            KeyCode::Esc | KeyCode::Char('q') | KeyCode::Char('l') | KeyCode::Backspace => {
                self.show_board = false;
                Vec::new()
            }
            KeyCode::Char('?') => {
                self.help = true;
                Vec::new()
            }
            KeyCode::Char('m') | KeyCode::Right | KeyCode::Left => {
                let all = [
                    Metric::Rating,
                    Metric::Wins,
                    Metric::Rounds,
                    Metric::Fastest,
                ];
                let i = all.iter().position(|m| *m == metric).unwrap_or(0);
                let next = if key.code == KeyCode::Left {
                    (i + all.len() - 1) % all.len()
                } else {
                    (i + 1) % all.len()
                };
                self.ask_board(all[next], period)
            }
            KeyCode::Char('p') | KeyCode::Tab => {
                let all = [Period::All, Period::Month, Period::Week, Period::Day];
                let i = all.iter().position(|p| *p == period).unwrap_or(0);
                self.ask_board(metric, all[(i + 1) % all.len()])
            }
            KeyCode::Char('r') => self.ask_board(metric, period),
            _ => Vec::new(),
        }
    }

    fn ask_board(&mut self, metric: Metric, period: Period) -> Vec<Action> {
        // Show the choice at once; rows arrive with the reply.
        match &mut self.board {
            Some(b) if b.metric == metric && b.period == period => {}
            _ => {
                self.board = Some(Board {
                    metric,
                    period,
                    rows: Vec::new(),
                })
            }
        }
        vec![Action::Send(ClientMessage::Leaderboard {
            metric: Some(metric),
            period: Some(period),
            limit: Some(20),
            around: None,
        })]
    }
}

/// The `/commands`, for `/help` in line mode and the help overlay.
pub const COMMAND_HELP: &str = "\
commands: /create [public]  /join CODE  /spectate CODE  /rooms  /leave
          /start  /set key=value ...  /lock  /unlock  /kick NAME  /host NAME
          /chat TEXT  /nosolution  /leaderboard [metric] [period]  /quit
a line without / is a formula for the current round, e.g. 8*(19-14)/2+21";

/// Builds a settings patch from `key=value` words (`/set rounds=5 public=true
/// target_score=none`), through serde so every setting the server knows
/// works with its wire name and values.
pub fn parse_patch(text: &str) -> Result<SettingsPatch, String> {
    let mut map = serde_json::Map::new();
    for word in text.split_whitespace() {
        let Some((k, v)) = word.split_once('=') else {
            return Err(format!(
                "usage: /set key=value ... (keys: {})",
                SETTING_FIELDS.join(", ")
            ));
        };
        let key = k.trim().to_ascii_lowercase();
        if !SETTING_FIELDS.contains(&key.as_str()) {
            return Err(format!(
                "unknown setting {key:?} (keys: {})",
                SETTING_FIELDS.join(", ")
            ));
        }
        let v = v.trim();
        let value = if let Ok(n) = v.parse::<i64>() {
            if key == "variant" {
                serde_json::Value::String(v.to_owned())
            } else {
                serde_json::Value::from(n)
            }
        } else {
            match v.to_ascii_lowercase().as_str() {
                "true" | "yes" | "on" => serde_json::Value::Bool(true),
                "false" | "no" | "off" => serde_json::Value::Bool(false),
                "none" | "null" => serde_json::Value::Null,
                s => serde_json::Value::String(s.to_owned()),
            }
        };
        map.insert(key, value);
    }
    if map.is_empty() {
        return Err("usage: /set key=value ...".to_owned());
    }
    serde_json::from_value(serde_json::Value::Object(map)).map_err(|e| format!("bad setting: {e}"))
}

/// The patch that moves setting `field` (an index into [`SETTING_FIELDS`])
/// one step forward or back from `s`.
pub fn step_setting(s: &RoomSettings, field: usize, forward: bool) -> SettingsPatch {
    fn step_in(presets: &[u32], v: u32, forward: bool) -> u32 {
        if forward {
            presets.iter().copied().find(|p| *p > v).unwrap_or(v)
        } else {
            presets.iter().rev().copied().find(|p| *p < v).unwrap_or(v)
        }
    }
    fn cycle<T: PartialEq + Copy>(all: &[T], v: T, forward: bool) -> T {
        let i = all.iter().position(|x| *x == v).unwrap_or(0);
        let n = all.len();
        all[if forward {
            (i + 1) % n
        } else {
            (i + n - 1) % n
        }]
    }
    let mut p = SettingsPatch::default();
    match field {
        0 => {
            p.variant = Some(cycle(
                &[Variant::Krypto, Variant::TwentyFour],
                s.variant,
                forward,
            ))
        }
        1 => {
            p.rules = Some(cycle(
                &[Rules::Free, Rules::Integer, Rules::International],
                s.rules,
                forward,
            ))
        }
        2 => p.rounds = Some(step_in(&[1, 3, 5, 10, 15, 20, 30, 50], s.rounds, forward)),
        3 => {
            let presets = [5i64, 10, 15, 20, 30, 50];
            p.target_score = Some(match (s.target_score, forward) {
                (None, true) => Some(presets[0]),
                (None, false) => None,
                (Some(t), true) => presets.iter().copied().find(|x| *x > t).or(Some(t)),
                (Some(t), false) => presets.iter().rev().copied().find(|x| *x < t),
            });
        }
        4 => {
            p.round_seconds = Some(step_in(
                &[10, 20, 30, 45, 60, 90, 120, 180, 300, 600],
                s.round_seconds,
                forward,
            ))
        }
        5 => {
            p.lockout_seconds = Some(step_in(
                &[0, 2, 3, 5, 10, 15, 30, 60],
                s.lockout_seconds,
                forward,
            ))
        }
        6 => {
            p.wrong_penalty = Some(step_in(
                &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
                s.wrong_penalty,
                forward,
            ))
        }
        7 => p.deal = Some(cycle(&[DealMode::Solvable, DealMode::Any], s.deal, forward)),
        8 => {
            p.difficulty = Some(cycle(
                &[
                    Difficulty::Any,
                    Difficulty::Easy,
                    Difficulty::Medium,
                    Difficulty::Hard,
                ],
                s.difficulty,
                forward,
            ))
        }
        9 => {
            let range: Vec<u32> = (2..=32).collect();
            p.max_players = Some(step_in(&range, s.max_players, forward))
        }
        _ => p.public = Some(!s.public),
    }
    p
}

/// A setting's value as the editor shows it.
pub fn setting_value(s: &RoomSettings, field: usize) -> String {
    match field {
        0 => match s.variant {
            Variant::Krypto => "krypto".into(),
            Variant::TwentyFour => "24".into(),
        },
        1 => s.rules.name().to_owned(),
        2 => s.rounds.to_string(),
        3 => s
            .target_score
            .map_or_else(|| "none".to_owned(), |t| t.to_string()),
        4 => format!("{} s", s.round_seconds),
        5 => format!("{} s", s.lockout_seconds),
        6 => s.wrong_penalty.to_string(),
        7 => match s.deal {
            DealMode::Solvable => "solvable".into(),
            DealMode::Any => "any".into(),
        },
        8 => format!("{:?}", s.difficulty).to_lowercase(),
        9 => s.max_players.to_string(),
        _ => if s.public { "yes" } else { "no" }.into(),
    }
}

fn parse_metric(word: &str) -> Option<Metric> {
    word.parse().ok()
}

fn parse_period(word: &str) -> Option<Period> {
    word.parse().ok()
}

/// A wire enum's snake_case name.
fn wire_name<T: Copy + Into<&'static str>>(v: &T) -> String {
    (*v).into().to_owned()
}

/// The wire name of a room phase ("between_rounds" → "between rounds").
pub fn phase_name(p: RoomPhase) -> String {
    wire_name(&p).replace('_', " ")
}

/// The wire name of a metric.
pub fn metric_name(m: Metric) -> String {
    wire_name(&m)
}

/// The wire name of a period.
pub fn period_name(p: Period) -> String {
    wire_name(&p)
}

fn code_name(c: ErrorCode) -> String {
    wire_name(&c)
}

fn kind_name(k: krypto_core::protocol::VerdictKind) -> String {
    wire_name(&k)
}

/// A leaderboard value as people read it: ratings with one decimal, best
/// times in seconds, counts as whole numbers.
pub fn metric_value(metric: Metric, value: f64) -> String {
    match metric {
        Metric::Rating => format!("{value:.1}"),
        Metric::Fastest => format!("{:.2}s", value / 1000.0),
        Metric::Wins | Metric::Rounds => format!("{value:.0}"),
    }
}

/// Milliseconds as seconds, one decimal ("1.5s").
pub fn secs(ms: u128) -> String {
    format!("{}.{}s", ms / 1000, (ms % 1000) / 100)
}

fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

fn join_cards(cards: &[i64]) -> String {
    cards
        .iter()
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::time::Duration;

    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    use krypto_core::protocol::{
        ClientMessage, LeaderboardRow, LeaveReason, Metric, Period, RoomPhase, RoomSummary,
        ScoreEntry, ServerMessage, SettingsPatch, VerdictError, VerdictKind,
    };

    use super::super::net::NetEvent;
    use super::super::testkit::*;
    use super::{Action, App, Conn, Event, InputMode, Screen};

    fn sends(actions: &[Action]) -> Vec<ClientMessage> {
        actions
            .iter()
            .filter_map(|a| match a {
                Action::Send(m) => Some(m.clone()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn welcome_saves_the_token_and_lists_rooms() {
        let mut app = App::new("ws://h:1/ws", "ann");
        assert_eq!(app.screen(), Screen::Connecting);
        let actions = app.handle(welcome(false));
        assert_eq!(
            actions,
            vec![
                Action::SaveIdentity {
                    name: "Ann".into(),
                    token: "00ff".into()
                },
                Action::Send(ClientMessage::ListRooms)
            ]
        );
        assert_eq!(app.screen(), Screen::Lobby);
        assert_eq!(app.name, "Ann");
        assert_eq!(app.conn, Conn::Online);
    }

    #[test]
    fn lobby_keys_create_join_by_code_and_pick_a_listed_room() {
        let mut app = lobby();
        assert_eq!(
            sends(&app.handle(ch('p'))),
            [ClientMessage::CreateRoom {
                settings: None,
                public: Some(true)
            }]
        );
        assert!(app.handle(ch('j')).is_empty());
        typed(&mut app, "kx7rb");
        assert_eq!(app.input, "KX7RB");
        assert_eq!(
            sends(&app.handle(key(KeyCode::Enter))),
            [ClientMessage::JoinRoom {
                code: "KX7RB".into(),
                spectator: false
            }]
        );
        assert_eq!(app.mode, InputMode::Off);

        let summary = |code: &str| RoomSummary {
            code: code.into(),
            host: "Ben".into(),
            players: 2,
            max_players: 8,
            state: RoomPhase::Lobby,
            settings: Default::default(),
        };
        app.handle(msg(ServerMessage::Rooms {
            rooms: vec![summary("AAAAA"), summary("BBBBB")],
        }));
        app.handle(key(KeyCode::Down));
        app.handle(key(KeyCode::Down));
        assert_eq!(app.room_cursor, 1);
        assert_eq!(
            sends(&app.handle(ch('s'))),
            [ClientMessage::JoinRoom {
                code: "BBBBB".into(),
                spectator: true
            }]
        );
    }

    #[test]
    fn the_host_edits_settings_with_arrows_and_starts() {
        let mut app = room();
        assert_eq!(app.screen(), Screen::Room);
        assert!(app.is_host());
        app.handle(key(KeyCode::Down));
        app.handle(key(KeyCode::Down));
        assert_eq!(
            sends(&app.handle(key(KeyCode::Right))),
            [ClientMessage::UpdateSettings {
                settings: SettingsPatch {
                    rounds: Some(15),
                    ..Default::default()
                }
            }]
        );
        assert_eq!(
            sends(&app.handle(key(KeyCode::Left))),
            [ClientMessage::UpdateSettings {
                settings: SettingsPatch {
                    rounds: Some(5),
                    ..Default::default()
                }
            }]
        );
        assert_eq!(sends(&app.handle(ch('s'))), [ClientMessage::Start]);
        assert_eq!(
            sends(&app.handle(ch('o'))),
            [ClientMessage::Lock { locked: true }]
        );
    }

    #[test]
    fn someone_else_cannot_edit_settings() {
        let mut app = room();
        let mut snap = snapshot(RoomPhase::Lobby, None);
        snap.host = BEN;
        app.handle(msg(ServerMessage::RoomState(snap)));
        assert!(!app.is_host());
        assert!(sends(&app.handle(key(KeyCode::Right))).is_empty());
        assert!(app.feed.last().unwrap().text.contains("only the host"));
    }

    #[test]
    fn a_dealt_hand_opens_the_formula_input_and_enter_submits_it() {
        let mut app = game();
        assert_eq!(app.screen(), Screen::Game);
        assert_eq!(app.mode, InputMode::Formula);
        typed(&mut app, "(1+2)x3+4-5");
        assert_eq!(app.input, "(1+2)*3+4-5");
        assert_eq!(
            sends(&app.handle(key(KeyCode::Enter))),
            [ClientMessage::Submit {
                round: 3,
                formula: "(1+2)*3+4-5".into()
            }]
        );
        // The formula stays to be fixed if it was wrong.
        assert_eq!(app.input, "(1+2)*3+4-5");
        app.handle(key(KeyCode::Esc));
        assert_eq!(app.input, "");
        assert_eq!(app.mode, InputMode::Formula);
    }

    #[test]
    fn a_wrong_answer_locks_out_until_the_clock_passes() {
        let mut app = game();
        app.handle(msg(ServerMessage::Verdict {
            round: 3,
            accepted: false,
            value: Some("9".into()),
            error: Some(VerdictError {
                kind: VerdictKind::WrongValue,
                message: "comes to 9, not 15".into(),
                column: None,
            }),
            locked_out_ms: Some(5000),
        }));
        let verdict = app.room.as_ref().unwrap().verdict.clone().unwrap();
        assert!(!verdict.accepted);
        assert!(verdict.text.contains("wrong_value"), "{}", verdict.text);
        assert!(sends(&app.handle(Event::Line("1+2+3+4+5".into()))).is_empty());
        assert!(app.feed.last().unwrap().text.contains("locked out"));
        app.handle(Event::Tick(Duration::from_secs(26)));
        assert_eq!(
            sends(&app.handle(Event::Line("1+2+3+4+5".into()))),
            [ClientMessage::Submit {
                round: 3,
                formula: "1+2+3+4+5".into()
            }]
        );
    }

    #[test]
    fn a_won_round_updates_scores_and_ends_the_input() {
        let mut app = game();
        app.handle(msg(ServerMessage::RoundWon {
            round: 3,
            winner: BEN,
            formula: Some("1+2+3+4+5".into()),
            no_solution: false,
            elapsed_ms: 4200,
            points: 1,
            scores: vec![
                ScoreEntry {
                    player: ME,
                    score: 2,
                },
                ScoreEntry {
                    player: BEN,
                    score: 2,
                },
            ],
        }));
        assert_eq!(app.live_round(), None);
        let room = app.room.as_ref().unwrap();
        assert_eq!(room.snapshot.players[1].score, 2);
        assert_eq!(
            room.round.as_ref().unwrap().result.as_deref(),
            Some("round 3 won by Ben in 4.2s: 1+2+3+4+5 (+1)")
        );
        // Typing a formula now is refused locally.
        assert!(sends(&app.handle(Event::Line("1+2".into()))).is_empty());
    }

    #[test]
    fn tab_switches_to_chat_during_a_round() {
        let mut app = game();
        app.handle(key(KeyCode::Tab));
        assert_eq!(app.mode, InputMode::Chat);
        typed(&mut app, "so close");
        assert_eq!(
            sends(&app.handle(key(KeyCode::Enter))),
            [ClientMessage::Chat {
                text: "so close".into()
            }]
        );
        assert_eq!(app.mode, InputMode::Formula);
    }

    #[test]
    fn commands_map_to_requests() {
        let mut app = game();
        let line = |app: &mut App, l: &str| sends(&app.handle(Event::Line(l.into())));
        assert_eq!(
            line(&mut app, "/kick ben"),
            [ClientMessage::Kick { player: BEN }]
        );
        assert_eq!(
            line(&mut app, "/host Cat"),
            [ClientMessage::TransferHost { player: CAT }]
        );
        assert_eq!(
            line(
                &mut app,
                "/set rounds=5 target_score=none public=true variant=24"
            ),
            [ClientMessage::UpdateSettings {
                settings: SettingsPatch {
                    rounds: Some(5),
                    target_score: Some(None),
                    public: Some(true),
                    variant: Some(krypto_core::protocol::Variant::TwentyFour),
                    ..Default::default()
                }
            }]
        );
        assert!(line(&mut app, "/set colour=blue").is_empty());
        assert!(app.feed.last().unwrap().text.contains("unknown setting"));
        assert_eq!(
            line(&mut app, "/nosolution"),
            [ClientMessage::ClaimNoSolution { round: 3 }]
        );
        assert_eq!(
            line(&mut app, "/chat hi all"),
            [ClientMessage::Chat {
                text: "hi all".into()
            }]
        );
        assert_eq!(
            line(&mut app, "/join abcde"),
            [ClientMessage::JoinRoom {
                code: "ABCDE".into(),
                spectator: false
            }]
        );
        assert_eq!(
            line(&mut app, "/spectate abcde"),
            [ClientMessage::JoinRoom {
                code: "ABCDE".into(),
                spectator: true
            }]
        );
        assert_eq!(
            line(&mut app, "/unlock"),
            [ClientMessage::Lock { locked: false }]
        );
        assert_eq!(line(&mut app, "/leave"), [ClientMessage::LeaveRoom]);
        assert!(line(&mut app, "/kick nobody").is_empty());
        assert!(line(&mut app, "/frobnicate").is_empty());
        assert_eq!(app.handle(Event::Line("/quit".into())), [Action::Quit]);
    }

    #[test]
    fn the_leaderboard_is_asked_for_and_shown() {
        let mut app = lobby();
        assert_eq!(
            sends(&app.handle(Event::Line("/leaderboard wins week".into()))),
            [ClientMessage::Leaderboard {
                metric: Some(Metric::Wins),
                period: Some(Period::Week),
                limit: Some(20),
                around: None
            }]
        );
        assert_eq!(app.screen(), Screen::Leaderboard);
        app.handle(msg(ServerMessage::Leaderboard {
            metric: Metric::Wins,
            period: Period::Week,
            rows: vec![LeaderboardRow {
                rank: 1,
                player: BEN,
                name: "Ben".into(),
                value: 4.0,
                matches: 6,
            }],
        }));
        assert_eq!(app.board.as_ref().unwrap().rows.len(), 1);
        assert!(app
            .feed
            .iter()
            .any(|l| l.text == "  1. Ben  4  (6 matches)"));
        // m cycles the metric and asks again.
        assert_eq!(
            sends(&app.handle(ch('m'))),
            [ClientMessage::Leaderboard {
                metric: Some(Metric::Rounds),
                period: Some(Period::Week),
                limit: Some(20),
                around: None
            }]
        );
        app.handle(key(KeyCode::Esc));
        assert_eq!(app.screen(), Screen::Lobby);
    }

    #[test]
    fn match_over_shows_the_podium_until_dismissed() {
        let mut app = game();
        app.handle(msg(ServerMessage::MatchOver {
            standings: standings(),
        }));
        assert_eq!(app.screen(), Screen::Podium);
        assert!(app
            .feed
            .iter()
            .any(|l| l.text == "  1. Ann  5 points  rating 20.0 -> 22.5"));
        app.handle(key(KeyCode::Enter));
        assert_eq!(app.screen(), Screen::Room);
    }

    #[test]
    fn after_a_server_restart_the_client_rejoins_its_room() {
        let mut app = room();
        app.handle(Event::Net(NetEvent::Disconnected {
            reason: "the server closed the connection".into(),
            retry_in: Duration::from_millis(500),
        }));
        assert!(matches!(app.conn, Conn::Down { .. }));
        assert!(app
            .feed
            .last()
            .unwrap()
            .text
            .contains("reconnecting in 0.5s"));
        let actions = app.handle(welcome(false));
        assert_eq!(
            sends(&actions),
            [
                ClientMessage::ListRooms,
                ClientMessage::JoinRoom {
                    code: CODE.into(),
                    spectator: false
                }
            ]
        );
    }

    #[test]
    fn a_resumed_seat_is_not_rejoined() {
        let mut app = room();
        app.handle(Event::Net(NetEvent::Disconnected {
            reason: "x".into(),
            retry_in: Duration::from_millis(500),
        }));
        assert_eq!(
            sends(&app.handle(welcome(true))),
            [ClientMessage::ListRooms]
        );
    }

    #[test]
    fn being_kicked_returns_to_the_lobby() {
        let mut app = room();
        app.handle(msg(ServerMessage::PlayerLeft {
            player: ME,
            name: "Ann".into(),
            reason: LeaveReason::Kicked,
        }));
        assert_eq!(app.screen(), Screen::Lobby);
        assert!(app.feed.last().unwrap().text.contains("removed"));
    }

    #[test]
    fn a_refused_name_quits_with_a_message() {
        let mut app = App::new("ws://h:1/ws", "Ann");
        let actions = app.handle(Event::Net(NetEvent::Refused {
            code: krypto_core::protocol::ErrorCode::NameTaken,
            message: "\"Ann\" belongs to another player".into(),
        }));
        assert_eq!(actions, [Action::Quit]);
        assert!(app
            .exit_message
            .unwrap()
            .contains("belongs to another player"));
    }

    #[test]
    fn ctrl_c_quits_and_help_opens_and_closes() {
        let mut app = game();
        let ctrl_c = Event::Key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL));
        assert_eq!(app.handle(ctrl_c), [Action::Quit]);
        app.handle(ch('?'));
        assert!(app.help);
        app.handle(ch('x'));
        assert!(!app.help);
        assert_eq!(app.input, "");
        app.handle(key(KeyCode::F(1)));
        assert!(app.help);
    }

    #[test]
    fn a_formula_outside_a_round_says_why() {
        let mut app = room();
        assert!(sends(&app.handle(Event::Line("1+2".into()))).is_empty());
        assert!(app
            .feed
            .last()
            .unwrap()
            .text
            .contains("no round is being played"));
    }

    #[test]
    fn resuming_mid_round_restores_the_clock_and_lockout() {
        let mut app = lobby();
        app.handle(Event::Tick(Duration::from_secs(100)));
        let round = krypto_core::protocol::RoundInfo {
            number: 4,
            objective: 15,
            cards: vec![1, 2, 3, 4, 5],
            remaining_ms: 30_000,
            duration_ms: 90_000,
            locked_out_ms: Some(2000),
        };
        app.handle(msg(ServerMessage::RoomState(snapshot(
            RoomPhase::Playing,
            Some(round),
        ))));
        assert_eq!(app.screen(), Screen::Game);
        assert_eq!(app.mode, InputMode::Formula);
        let r = app.live_round().unwrap();
        assert_eq!(r.ends_at, Duration::from_secs(130));
        assert_eq!(r.locked_until, Some(Duration::from_secs(102)));
        assert!(app.feed.iter().any(|l| l.text == "[chat] Ben: good luck!"));
    }
}
