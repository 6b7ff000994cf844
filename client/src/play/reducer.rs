//! What each server message does to the client's state; the feed lines it
//! becomes are worded apart, in `describe.rs`, so the room's `recent`
//! events, replayed after a resume, read exactly like the live ones
//! without changing anything.
//!
//! Every string in here came from the network and has already been cleaned
//! of control characters by the connection task (see `untrusted.rs`).

use std::time::Duration;

use krypto_core::protocol::{
    ClientMessage, ErrorCode, PlayerInfo, RoomPhase, RoomSnapshot, ServerEnvelope, ServerMessage,
};

use krypto_client::redirect;

use super::app::{
    Action, App, Board, CatchUp, Conn, FeedKind, InputMode, Move, ReadyView, RoomView, RoundView,
    VerdictView, MAX_ROSTER, SITTING_OUT,
};
use super::catch_up;
use super::describe::MAX_DEVICES;
use super::net::NetEvent;
use super::wording::{join_cards, phase_name, refusal, secs};

/// The most names the one-line roster of line mode spells out; the rest
/// are counted.
const ROSTER_LINE_NAMES: usize = 40;

impl App {
    pub(super) fn net(&mut self, event: NetEvent) -> Vec<Action> {
        match event {
            NetEvent::Message { envelope, .. } => self.message(*envelope),
            NetEvent::Disconnected { reason, retry_in } => {
                // Say why once; while the same failure repeats, only when
                // the next try is.
                let again = matches!(&self.conn, Conn::Down { reason: r, .. } if *r == reason);
                let when = secs(retry_in.as_millis());
                if again {
                    self.push(FeedKind::Error, format!("still down; next try in {when}"));
                } else {
                    self.push(
                        FeedKind::Error,
                        format!("disconnected: {reason}; reconnecting in {when}"),
                    );
                }
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
            NetEvent::Home { reason } => {
                self.node = None;
                self.error(format!("{reason}: going back to {}", self.server));
                Vec::new()
            }
            NetEvent::Replaced { reason } => {
                let why = if reason.is_empty() {
                    String::new()
                } else {
                    format!(" ({reason})")
                };
                let text = format!(
                    "stopped: {} is playing on another connection now{why}, a newer krypto \
                     or a browser under this name; run krypto play again to take it back here",
                    self.name
                );
                self.error(text.clone());
                self.conn = Conn::Refused(text.clone());
                self.exit_message = Some(text);
                vec![Action::Quit]
            }
            NetEvent::Refused { code, message } => {
                let text = format!(
                    "cannot play as {:?}: {}",
                    self.name,
                    refusal(code, &message)
                );
                self.error(text.clone());
                self.conn = Conn::Refused(text.clone());
                self.exit_message = Some(text);
                vec![Action::Quit]
            }
        }
    }

    fn message(&mut self, envelope: ServerEnvelope) -> Vec<Action> {
        let message = envelope.message;
        if self.room.is_some() {
            self.heard.note(&message);
        }
        let mut actions = Vec::new();
        let mut roster_changed = false;
        // The words first: they name players who may be about to leave.
        let mut lines = self.describe(&message);
        match message {
            ServerMessage::Welcome {
                player_id,
                name,
                token,
                resumed,
                join_urls,
                ..
            } => {
                let moving = self.moving.take();
                // "connected" before what follows from it; nothing when we
                // were only moved to another node of the same server.
                let said = std::mem::take(&mut lines);
                if moving.is_none() {
                    for (kind, text) in said {
                        self.push(kind, text);
                    }
                }
                self.me = Some(player_id);
                self.name.clone_from(&name);
                self.conn = Conn::Online;
                self.join_urls = join_urls;
                actions.push(Action::SaveIdentity { name, token });
                // Back in a seat, the room follows: a listing of public
                // rooms would only say "no public rooms" inside one.
                if !resumed {
                    actions.push(self.list_rooms());
                }
                if let Some(Move {
                    code, spectator, ..
                }) = moving
                {
                    self.rejoin = None;
                    if resumed {
                        // This node held our seat: its room follows.
                        self.catch_up = Some(CatchUp::Resumed);
                    } else {
                        self.catch_up = Some(CatchUp::Joined);
                        actions.push(Action::Send(ClientMessage::JoinRoom { code, spectator }));
                    }
                    return actions;
                }
                match self.rejoin.take() {
                    Some((code, _)) if resumed => {
                        self.push(
                            FeedKind::Event,
                            format!("reconnected: your seat in room {code} was resumed"),
                        );
                        self.catch_up = Some(CatchUp::Resumed);
                    }
                    Some((code, spectator)) => {
                        // The server forgot our seat (a restart, or we were
                        // away too long): ask for it again.
                        self.leave_room_locally();
                        self.push(
                            FeedKind::Event,
                            format!("reconnected: asking for room {code} again"),
                        );
                        self.rejoining = Some(code.clone());
                        self.catch_up = Some(CatchUp::Joined);
                        actions.push(Action::Send(ClientMessage::JoinRoom { code, spectator }));
                    }
                    None if resumed => {
                        // A new start of the client, and the server kept
                        // our seat: it sends the room next.
                        self.push(
                            FeedKind::Event,
                            format!("welcome back, {}: your seat was resumed", self.name),
                        );
                        self.catch_up = Some(CatchUp::Resumed);
                    }
                    None => {}
                }
            }
            ServerMessage::Rooms { rooms, next } => self.listed(rooms, next),
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
                    r.ready_check = None;
                    r.snapshot.rounds_total = rounds_total;
                    r.snapshot.settings = settings;
                    r.snapshot.state = RoomPhase::Countdown;
                    r.next_at = Some(self.now + Duration::from_millis(countdown_ms));
                    for p in &mut r.snapshot.players {
                        p.score = 0;
                        p.waiting = false;
                    }
                }
                // A chat being typed is kept; otherwise the formula field
                // opens for the countdown.
                if self.mode == InputMode::Off {
                    self.input.clear();
                    self.mode = self.resting_mode();
                }
            }
            ServerMessage::RoundStarted {
                round,
                objective,
                cards,
                duration_ms,
            } => {
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
                    for p in &mut r.snapshot.players {
                        p.waiting = false;
                    }
                }
                // A new hand is always seen: nothing stays over the cards.
                self.show_board = false;
                self.help = false;
                self.show_qr = false;
                self.confirm = None;
                // What was typed in the pause is carried into the round.
                if self.mode == InputMode::Off {
                    self.mode = self.resting_mode();
                }
            }
            ServerMessage::Verdict {
                round,
                accepted,
                locked_out_ms,
                ..
            } => {
                let now = self.now;
                let text = lines.first().map(|(_, t)| t.clone()).unwrap_or_default();
                if let Some(r) = &mut self.room {
                    if let Some(rv) = r.round.as_mut().filter(|rv| rv.number == round) {
                        if let Some(ms) = locked_out_ms {
                            rv.locked_until = Some(now + Duration::from_millis(ms));
                        }
                    }
                    r.verdict = Some(VerdictView { accepted, text });
                }
                if accepted {
                    self.input.clear();
                }
            }
            ServerMessage::AttemptFailed { player, score, .. }
            | ServerMessage::Solved { player, score, .. } => self.set_score(player, score),
            ServerMessage::RoundWon { win, scores } => {
                for s in &scores {
                    self.set_score(s.player, s.score);
                }
                let text = lines.first().map(|(_, t)| t.clone()).unwrap_or_default();
                self.end_round(win.round, &text);
            }
            ServerMessage::RoundTimedOut { round, .. } => {
                let text = lines.first().map(|(_, t)| t.clone()).unwrap_or_default();
                self.end_round(round, &text);
            }
            ServerMessage::MatchOver {
                standings,
                match_id,
            } => {
                if let Some(r) = &mut self.room {
                    r.snapshot.state = RoomPhase::Finished;
                    r.next_at = None;
                    r.podium = Some(standings);
                    // A server's text reaches the screen only as an id.
                    r.recap = match_id.filter(|id| {
                        id.len() == 36 && id.chars().all(|c| c.is_ascii_hexdigit() || c == '-')
                    });
                }
                self.confirm = None;
                if self.mode == InputMode::Formula {
                    self.mode = InputMode::Off;
                    self.input.clear();
                }
            }
            ServerMessage::Devices { mut devices } => {
                devices.truncate(MAX_DEVICES);
                self.devices = devices;
            }
            ServerMessage::Chat { .. }
            | ServerMessage::Pong
            | ServerMessage::DeviceCode { .. }
            | ServerMessage::DeviceAdded { .. }
            | ServerMessage::Reaction { .. } => {}
            // The daily, runs and challenges have commands of their own
            // (`krypto daily`, `krypto run`, `krypto challenge`), practice
            // the browser's page; a room's screen never asks for them.
            ServerMessage::Daily { .. }
            | ServerMessage::DailySolved { .. }
            | ServerMessage::Run { .. }
            | ServerMessage::RunHand { .. }
            | ServerMessage::RunOver { .. }
            | ServerMessage::Challenge { .. }
            | ServerMessage::ChallengeHand { .. }
            | ServerMessage::ChallengeResult { .. }
            | ServerMessage::PracticeHint { .. }
            | ServerMessage::Practice { .. }
            | ServerMessage::PracticeSolutions { .. } => {}
            ServerMessage::ReadyCheck { ms, ready } => {
                if let Some(r) = &mut self.room {
                    r.ready_check = Some(ReadyView {
                        ends_at: self.now + Duration::from_millis(ms),
                        ready,
                    });
                }
            }
            ServerMessage::PlayerReady { player } => {
                if let Some(c) = self.room.as_mut().and_then(|r| r.ready_check.as_mut()) {
                    if c.ready.len() < MAX_ROSTER && !c.ready.contains(&player) {
                        c.ready.push(player);
                    }
                }
            }
            ServerMessage::Redirect { url, code, .. } => {
                actions.extend(self.redirected(&url, code))
            }
            ServerMessage::PlayerJoined {
                player,
                name,
                spectator,
                bot,
            } => {
                roster_changed = true;
                if let Some(r) = &mut self.room {
                    let waiting = r.snapshot.state == RoomPhase::Playing && !spectator;
                    match r.member_mut(player) {
                        Some(p) => {
                            p.name = name;
                            p.connected = true;
                            p.spectator = spectator;
                            p.bot = bot;
                        }
                        None => r.add(PlayerInfo {
                            id: player,
                            name,
                            score: 0,
                            connected: true,
                            spectator,
                            waiting,
                            bot,
                        }),
                    }
                }
            }
            ServerMessage::PlayerLeft { player, .. } => {
                if Some(player) == self.me {
                    self.leave_room_locally();
                    actions.push(self.list_rooms());
                } else if let Some(r) = &mut self.room {
                    r.remove(player);
                    roster_changed = true;
                }
            }
            ServerMessage::Leaderboard {
                metric,
                period,
                rows,
            } => {
                self.board = Some(Board {
                    metric,
                    period,
                    rows,
                });
            }
            ServerMessage::Error { code, .. } => {
                let room_gone = matches!(
                    code,
                    ErrorCode::RoomNotFound | ErrorCode::RoomLocked | ErrorCode::RoomFull
                );
                if room_gone {
                    if let Some(code) = self.rejoining.take() {
                        self.leave_room_locally();
                        self.push(
                            FeedKind::Error,
                            format!(
                                "the server restarted and the match was lost (room {code} is gone); \
                                 create a room or join another"
                            ),
                        );
                        return actions;
                    }
                }
                if matches!(code, ErrorCode::InvalidSettings | ErrorCode::NotHost) {
                    self.editor.refused();
                }
            }
        }
        for (kind, text) in lines {
            self.push(kind, text);
        }
        if roster_changed {
            self.push_roster();
        }
        actions
    }

    /// The room we asked for (or whose seat we hold) lives on another node:
    /// move there, unless the URL is not a WebSocket's or we have been sent
    /// around too often.
    fn redirected(&mut self, url: &str, code: String) -> Vec<Action> {
        if self.moving.is_some() {
            // The node we are leaving answered a request sent before we
            // left (the join after its `welcome`): we are on our way already.
            return Vec::new();
        }
        let shown_code = redirect::shown(&code);
        let url = match self.redirects.redirect(url) {
            Ok(url) => url,
            Err(e) => {
                self.rejoining = None;
                self.error(format!("cannot join room {shown_code}: {e}"));
                return Vec::new();
            }
        };
        // Our own room moving (its node stopped and handed it over) or a
        // room we asked for living elsewhere.
        let ours = self
            .room
            .as_ref()
            .is_some_and(|r| r.snapshot.code.eq_ignore_ascii_case(&code));
        let line = if ours {
            format!("room {shown_code} moved to another server: following it")
        } else {
            format!("room {shown_code} is on another server: moving there")
        };
        self.push(FeedKind::Event, line);
        // Watch again if that is what we asked for (or held).
        let asked = [&self.last_join, &self.rejoin]
            .into_iter()
            .flatten()
            .find(|(c, _)| c.eq_ignore_ascii_case(&code));
        let spectator = asked.map_or_else(|| self.is_spectator(), |(_, s)| *s);
        self.node = (url != self.server).then(|| url.clone());
        self.conn = Conn::Connecting;
        self.moving = Some(Move {
            url: url.clone(),
            code,
            spectator,
        });
        vec![Action::Follow(url)]
    }

    fn room_state(&mut self, snapshot: RoomSnapshot) {
        self.redirects.seated();
        self.moving = None;
        let now = self.now;
        let fresh = self
            .room
            .as_ref()
            .is_none_or(|r| r.snapshot.code != snapshot.code);
        let previous = if fresh { None } else { self.room.take() };
        if fresh {
            self.editor = Default::default();
        } else {
            self.editor.reconcile(&snapshot.settings);
        }
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
        let recent = snapshot.recent.clone();
        self.heard.enter(&snapshot.code);
        let ready_check = snapshot.ready_check.as_ref().map(|c| ReadyView {
            ends_at: now + Duration::from_millis(c.ms),
            ready: c.ready.clone(),
        });
        let next_at = snapshot.next_ms.map(|ms| now + Duration::from_millis(ms));
        self.room = Some(RoomView {
            ready_check,
            next_at,
            round,
            podium,
            verdict,
            ..RoomView::new(snapshot)
        });
        self.rejoin = None;
        self.rejoining = None;
        self.push_roster();
        let catch_up = self.catch_up.take().or(fresh.then_some(CatchUp::Joined));
        if let Some(why) = catch_up {
            self.replay(why, &recent);
        }
        // Whatever `recent` holds has now been seen, replayed or not.
        self.heard.events.clear();
        for m in &recent {
            self.heard.note(m);
        }
        if self.playing_a_match() {
            if self.mode == InputMode::Off {
                self.mode = InputMode::Formula;
            }
        } else if self.mode == InputMode::Formula {
            self.mode = InputMode::Off;
            self.input.clear();
        }
    }

    /// After a join or a resume: what happened in the room (its `recent`
    /// events) and the hand on the table now.
    fn replay(&mut self, why: CatchUp, recent: &[ServerMessage]) {
        // A client started again has heard nothing: like a join, it gets
        // only the part of the story still going on.
        let fresh = why == CatchUp::Joined || self.heard.events.is_empty();
        let missed =
            catch_up::to_replay(recent, &self.heard.events, self.me, fresh, self.in_match());
        let lines: Vec<(FeedKind, String)> = missed.iter().flat_map(|m| self.describe(m)).collect();
        if why == CatchUp::Resumed && !lines.is_empty() {
            self.push(FeedKind::Event, "while you were away:");
        }
        for (kind, text) in lines {
            self.push(kind, text);
        }
        // A ready check we have not answered: ask now, as it was asked.
        if let Some(check) = self.room.as_ref().and_then(|r| r.ready_check.clone()) {
            if self.ready_asked() {
                let asked = ServerMessage::ReadyCheck {
                    ms: self.left(check.ends_at).as_millis() as u64,
                    ready: check.ready,
                };
                for (kind, text) in self.describe(&asked) {
                    self.push(kind, text);
                }
            }
        }
        let Some(round) = self.live_round() else {
            return;
        };
        let text = format!(
            "round {}: make {} from {} ({} left)",
            round.number,
            round.objective,
            join_cards(&round.cards),
            secs(self.left(round.ends_at).as_millis())
        );
        self.push(FeedKind::Event, text);
        if self.sitting_out() {
            self.push(FeedKind::Event, SITTING_OUT);
        }
    }

    /// The roster in one line, for line mode (the TUI draws it instead).
    fn push_roster(&mut self) {
        let Some(r) = &self.room else { return };
        let s = &r.snapshot;
        let mut players: Vec<String> = s
            .players
            .iter()
            .take(ROSTER_LINE_NAMES)
            .map(|p| {
                let mut tags = Vec::new();
                if p.id == s.host {
                    tags.push("host");
                }
                if p.bot && App::bot_mark_needed(&p.name) {
                    tags.push("bot");
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
        if s.players.len() > ROSTER_LINE_NAMES {
            players.push(format!("and {} more", s.players.len() - ROSTER_LINE_NAMES));
        }
        let text = format!(
            "room {}: {}{}; players: {}",
            s.code,
            phase_name(s.state),
            if s.locked { ", locked" } else { "" },
            players.join(", ")
        );
        self.push(FeedKind::State, text);
    }

    fn set_score(&mut self, player: krypto_core::protocol::PlayerId, score: i64) {
        if let Some(r) = &mut self.room {
            if let Some(p) = r.member_mut(player) {
                p.score = score;
            }
        }
    }

    fn end_round(&mut self, round: u32, text: &str) {
        // The formula for this hand is dead; what is typed during the pause
        // is kept for the next one.
        if self.mode == InputMode::Formula {
            self.input.clear();
        }
        if let Some(r) = &mut self.room {
            r.snapshot.state = RoomPhase::BetweenRounds;
            if let Some(rv) = r.round.as_mut().filter(|rv| rv.number == round) {
                rv.result = Some(text.to_owned());
            }
        }
    }
}
