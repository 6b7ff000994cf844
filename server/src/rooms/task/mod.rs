//! One task per room: it owns the pure [`Room`], reads commands from its
//! inbox one at a time (so the first correct formula to *arrive* wins),
//! sleeps until the room's next deadline, and fans the room's messages out
//! to members' queues with `try_send` — a slow client is disconnected, the
//! room never waits for it.
//!
//! Before fanning out, the room records what happened through the
//! [`crate::scores::recorder::Recorder`]: a round's result and a match's end are
//! committed (and the ratings computed) *before* anyone is told, so an
//! announced result survives a crash; a match's start (under a UUIDv7 the
//! room mints itself) is queued without waiting; dealt hands and attempts
//! are [`held`] in the room and sent a few at a time, never waiting.

use std::collections::HashMap;
use std::sync::Arc;

use krypto_core::bot_pace::BotSkill;
use krypto_core::protocol::{
    ClientMessage, ErrorCode, PlayerId, RoomSettings, ServerEnvelope, ServerMessage,
};
use krypto_core::room::{Effects, Joiner, Recipient, Room, RoomError, RoomLimits, SavedRoom};
use serde::{Deserialize, Serialize};
use tokio::sync::{mpsc, watch};
use tokio::time::Instant;
use uuid::Uuid;

use crate::scores::rated_play::RatedMatch;

use self::absence::Absence;
use self::bots::{RoomBots, SeatedBot, Solved, SOLVED_QUEUE};
use self::held::Held;
use self::recording::MatchLog;
use crate::db::saved::StoredRoom;
use crate::db::scores::{Applied, Write};
use crate::rooms::clock::RoomClock;
use crate::rooms::lobby::{RegisterError, RoomCommand, RoomHandle};
use crate::rooms::outbox::Outbox;
use crate::rooms::services::RoomServices;
use crate::rooms::solves::RoundWatch;
use crate::scores::periods::now_ms;

mod absence;
mod bots;
mod held;
mod recording;

/// Why a match may not start while the recorder's journal is full.
const JOURNAL_FULL: &str =
    "the server cannot start new matches until its database is back; the match in play goes on";

/// Commands that may wait in a room's inbox; a connection sending to a
/// full inbox waits (back-pressure on that one client).
const INBOX: usize = 256;

/// Creates a room hosted by `joiner` under `reserved` (a code the cluster's
/// directory reserved; `None`: a fresh one), held by the address `holder`
/// (see [`crate::rooms::lobby::Lobby::register`]), registers it and starts its
/// task; the host gets the first `room_state` (carrying `id`).
pub fn create(
    services: &Arc<RoomServices>,
    reserved: Option<String>,
    holder: std::net::IpAddr,
    joiner: Joiner,
    settings: RoomSettings,
    client: Outbox,
    id: Option<String>,
) -> Result<Result<(), RoomError>, RegisterError> {
    let host = joiner.id;
    let clock = services.settings.clock();
    let dealer = services.settings.dealer.make();
    let registered = services.lobby.register(reserved, holder, |code| {
        let (room, fx) = Room::new(
            code.clone(),
            joiner,
            settings,
            dealer,
            RoomLimits::default(),
            clock.now(),
        )?;
        let (tx, rx) = mpsc::channel(INBOX);
        let (summary_tx, summary) = watch::channel(room.summary());
        let handle = RoomHandle { code, tx, summary };
        Ok::<_, RoomError>((handle, (room, fx, rx, summary_tx)))
    })?;
    let (room, fx, rx, summary_tx) = match registered {
        Ok(parts) => parts,
        Err(e) => return Ok(Err(e)),
    };
    let code = room.code().to_owned();
    services.lobby.seat(host, &code);
    let (solved_tx, solved_rx) = mpsc::channel(SOLVED_QUEUE);
    let mut task = RoomTask {
        services: services.clone(),
        room,
        clock,
        clients: HashMap::from([(host, client)]),
        summary: summary_tx,
        absence: Absence::default(),
        log: MatchLog::default(),
        held: Held::default(),
        watch: RoundWatch::default(),
        locked: false,
        last_now: 0,
        bots: RoomBots::new(solved_tx),
    };
    // A new room has nothing to record: deliver its first snapshot now.
    task.send_out(fx, id.as_deref());
    tracing::info!(room = %code, host = host.0, "room opened");
    services.tasks.spawn(task.run(rx, solved_rx));
    Ok(Ok(()))
}

/// What a stopping server stores of a room: the room itself and where its
/// recording stands, so the match carries on under the same id.
#[derive(Debug, Serialize, Deserialize)]
struct SavedTask {
    room: SavedRoom,
    log: MatchLog,
    /// The server's bots seated in it (they come back with the room).
    #[serde(default)]
    bots: Vec<SeatedBot>,
}

/// Why a saved room could not be brought back.
#[derive(Debug, thiserror::Error)]
pub(crate) enum RestoreError {
    /// The stored JSON is not a saved room.
    #[error("unreadable saved state: {0}")]
    Unreadable(#[from] serde_json::Error),
    /// The room refused its saved state (settings no longer valid).
    #[error(transparent)]
    Refused(#[from] RoomError),
    /// A room with that code is already open, or the server is full.
    #[error("its code is taken or the server is full")]
    NoPlace,
}

/// A room brought back.
#[derive(Debug, Clone)]
pub(crate) struct Restored {
    /// Its code.
    pub(crate) code: String,
    /// Whether it is listed.
    pub(crate) public: bool,
    /// Whether it is locked.
    pub(crate) locked: bool,
    /// Its members, each holding their seat.
    pub(crate) seats: Vec<PlayerId>,
}

/// Brings back a room a graceful stop saved: it carries on where it was,
/// every member holding their seat (as after a dropped connection) until
/// they come back with their token. A match whose room cannot come back is
/// recorded as abandoned.
pub(crate) async fn restore(
    services: &Arc<RoomServices>,
    stored: StoredRoom,
) -> Result<Restored, RestoreError> {
    let saved: SavedTask = serde_json::from_str(&stored.state)?;
    let SavedTask {
        room: saved,
        log,
        bots: saved_bots,
    } = saved;
    // The server's bots have no connection to wait for: they sit on.
    let seats: Vec<(PlayerId, bool)> = saved
        .members
        .iter()
        .filter(|m| !saved_bots.iter().any(|b| b.id == m.id))
        .map(|m| (m.id, m.spectator))
        .collect();
    let clock = services.settings.clock();
    let now = clock.now();
    let room = match Room::restore(
        saved,
        services.settings.dealer.make(),
        RoomLimits::default(),
        now,
    ) {
        Ok(room) => room,
        Err(e) => {
            abandon(services, &log).await;
            return Err(e.into());
        }
    };
    let (tx, rx) = mpsc::channel(INBOX);
    let (summary_tx, summary) = watch::channel(room.summary());
    let code = room.code().to_owned();
    let handle = RoomHandle {
        code: code.clone(),
        tx,
        summary,
    };
    if !services.lobby.register_code(handle) {
        abandon(services, &log).await;
        return Err(RestoreError::NoPlace);
    }
    for &(member, spectator) in &seats {
        services.lobby.seat(member, &code);
        if spectator {
            services.lobby.reserve_spectator(&code, member, usize::MAX);
        }
    }
    let (solved_tx, solved_rx) = mpsc::channel(SOLVED_QUEUE);
    let mut task = RoomTask {
        services: services.clone(),
        room,
        clock,
        clients: HashMap::new(),
        summary: summary_tx,
        absence: Absence::default(),
        log,
        held: Held::default(),
        watch: RoundWatch::default(),
        locked: false,
        last_now: 0,
        bots: RoomBots::new(solved_tx),
    };
    for bot in saved_bots {
        task.bots.seat(bot);
    }
    // Nobody is connected yet: everyone's seat is held from now.
    for &(member, _) in &seats {
        let fx = task.room.disconnect(member, now);
        task.deliver(fx, None).await;
    }
    task.send_out(Effects::default(), None);
    tracing::info!(room = %code, match_id = ?task.log.match_id(), "room restored");
    let public = task.room.summary().settings.public;
    let locked = task.room.is_locked();
    services.tasks.spawn(task.run(rx, solved_rx));
    Ok(Restored {
        code,
        public,
        locked,
        seats: seats.iter().map(|&(member, _)| member).collect(),
    })
}

/// Records the match of a room that could not come back as abandoned.
async fn abandon(services: &RoomServices, log: &MatchLog) {
    if let Some(match_id) = log.match_id() {
        let write = Write::AbandonMatch {
            match_id,
            at_ms: now_ms(),
        };
        if let Err(e) = services.recorder.submit(vec![write]).await {
            tracing::error!(%match_id, error = %e, "abandoned match not recorded");
        }
    }
}

struct RoomTask {
    services: Arc<RoomServices>,
    room: Room,
    clock: RoomClock,
    /// The connection of each connected member.
    clients: HashMap<PlayerId, Outbox>,
    /// The lobby listing entry.
    summary: watch::Sender<krypto_core::protocol::RoomSummary>,
    /// Since when nobody is connected; the room closes after the grace.
    absence: Absence,
    /// The match being recorded.
    log: MatchLog,
    /// Its dealt hands and attempts, on their way to the recorder.
    held: Held,
    /// The round in play, to tell who solved it (for challenges).
    watch: RoundWatch,
    /// Whether the room was locked when last told to the lobby.
    locked: bool,
    /// The room time of the last command or tick handled.
    last_now: u64,
    /// The server's bots seated here, and how they will answer.
    bots: RoomBots,
}

async fn sleep_until_opt(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

impl RoomTask {
    async fn run(
        mut self,
        mut inbox: mpsc::Receiver<RoomCommand>,
        mut solved: mpsc::Receiver<Solved>,
    ) {
        let shutdown = self.services.shutdown.clone();
        let grace = self.services.settings.empty_room_grace;
        loop {
            self.dismiss_bots_if_alone().await;
            let deadline = [self.room.next_deadline(), self.bots.next_at()]
                .into_iter()
                .flatten()
                .min();
            let clock = self.clock.clone();
            // A room its last member left closes at once (a player must not
            // leave rooms behind); one whose members only dropped waits,
            // once (`absence.rs`).
            let close_at = if self.room.members().is_empty() {
                Some(Instant::now())
            } else {
                self.absence.close_at(grace)
            };
            tokio::select! {
                biased;
                () = shutdown.cancelled() => {
                    self.save();
                    break;
                }
                command = inbox.recv() => match command {
                    Some(command) => self.handle(command).await,
                    None => break,
                },
                Some(hand) = solved.recv() => {
                    self.bots.solved(hand, self.room.round_in_play());
                }
                () = clock.sleep_until(deadline), if deadline.is_some() => {
                    let now = self.clock.now();
                    // The bots' answers due, each at the moment it was
                    // planned for (the room's own deadlines before it pass
                    // first, inside `handle`).
                    while let Some((bot, message, at)) = self.bots.take_due(now) {
                        self.last_now = at.max(self.last_now);
                        let fx = self.room.handle(bot, &message, self.last_now);
                        self.deliver(fx, None).await;
                    }
                    self.last_now = now.max(self.last_now);
                    let fx = self.room.tick(self.last_now);
                    self.deliver(fx, None).await;
                }
                () = sleep_until_opt(close_at), if close_at.is_some() => break,
            }
        }
        let code = self.room.code().to_owned();
        if let Err(e) = self.held.send(&self.services.recorder).await {
            tracing::error!(room = %code, error = %e, "not recorded");
        }
        self.services.lobby.unregister(&code);
        for player in self.room.members() {
            self.services.solves.forget(player, &code);
        }
        // Whoever was about to join learns the room is gone.
        inbox.close();
        while let Some(command) = inbox.recv().await {
            if let RoomCommand::Join { reply, .. } = command {
                let _ = reply.send(Err((
                    ErrorCode::RoomNotFound,
                    "that room just closed".into(),
                )));
            }
        }
        tracing::info!(room = %code, "room closed");
    }

    /// Hands the room's state to the stopping server, which stores it for
    /// the next start. Called between commands, with every effect
    /// delivered. A room nobody holds a seat in is not worth saving.
    fn save(&mut self) {
        if self.room.members().is_empty() {
            return;
        }
        let code = self.room.code().to_owned();
        let saved = SavedTask {
            room: self.room.save(self.clock.now()),
            log: std::mem::take(&mut self.log),
            bots: self.bots.seated().to_vec(),
        };
        match serde_json::to_string(&saved) {
            Ok(state) => {
                tracing::info!(room = %code, "room saved");
                self.services.saved_rooms.push(
                    StoredRoom {
                        code,
                        state,
                        saved_at: now_ms(),
                        for_node: None,
                    },
                    self.room.members(),
                );
            }
            Err(e) => tracing::error!(room = %code, error = %e, "room not saved"),
        }
    }

    async fn handle(&mut self, command: RoomCommand) {
        // A request is timed when it arrived (never before the room's last
        // event: time does not run backwards for the room).
        let now = match &command {
            RoomCommand::Request { received, .. } => self.clock.at(*received).max(self.last_now),
            _ => self.clock.now(),
        };
        self.last_now = now;
        match command {
            RoomCommand::Join {
                player,
                name,
                spectator,
                bot,
                client,
                id,
                reply,
            } => match self
                .room
                .join(Joiner::new(player, name).bot(bot), spectator, now)
            {
                Ok(fx) => {
                    self.clients.insert(player, client);
                    self.services.lobby.seat(player, self.room.code());
                    let _ = reply.send(Ok(()));
                    self.deliver(fx, id.as_deref()).await;
                }
                Err(e) => {
                    let _ = reply.send(Err((e.code(), e.to_string())));
                }
            },
            RoomCommand::Resume { player, client } => match self.room.reconnect(player, now) {
                Ok(fx) => {
                    self.clients.insert(player, client);
                    self.deliver(fx, None).await;
                }
                Err(_) => self.services.lobby.unseat(player, self.room.code()),
            },
            RoomCommand::Request {
                received,
                player,
                conn,
                id,
                message,
            } => {
                // A request from a connection that has since been replaced
                // is dropped: the player now speaks through the new one.
                if self.clients.get(&player).is_some_and(|c| c.conn == conn) {
                    if matches!(message, ClientMessage::Start) && self.journal_full() {
                        self.refuse(player, id, JOURNAL_FULL);
                        return;
                    }
                    let fx = match &message {
                        ClientMessage::AddBot { skill } => self.add_bot(player, *skill, now),
                        _ => self.room.handle(player, &message, now),
                    };
                    self.deliver(fx, id.as_deref()).await;
                    if matches!(message, ClientMessage::Submit { .. }) {
                        let seconds = received.elapsed().as_secs_f64();
                        self.services.verdict_seconds.record(seconds);
                    }
                }
            }
            RoomCommand::Disconnected { player, conn } => {
                if self.clients.get(&player).is_some_and(|c| c.conn == conn) {
                    self.clients.remove(&player);
                    let fx = self.room.disconnect(player, now);
                    self.deliver(fx, None).await;
                }
            }
        }
    }

    /// `host` asks for a bot of `skill`: the first of the server's not
    /// seated here yet (see `rooms/bots.rs`).
    fn add_bot(&mut self, host: PlayerId, skill: BotSkill, now: u64) -> Effects {
        let free = self
            .services
            .bots
            .of_skill(skill)
            .find(|b| !self.room.is_member(b.id))
            .cloned();
        let joiner = free
            .as_ref()
            .map(|b| Joiner::new(b.id, b.name.clone()).bot(true))
            .ok_or("the server has no bot to seat right now");
        let fx = self.room.add_bot(host, joiner, now);
        if let Some(bot) = free.filter(|b| self.room.is_member(b.id)) {
            self.bots.seat(SeatedBot { id: bot.id, skill });
        }
        fx
    }

    /// A room its people left closes: its server bots leave first, so a
    /// match they were playing is abandoned (and recorded so) rather than
    /// left open.
    async fn dismiss_bots_if_alone(&mut self) {
        if self.room.has_people() || self.bots.seated().is_empty() {
            return;
        }
        let bots: Vec<PlayerId> = self.bots.seated().iter().map(|b| b.id).collect();
        for bot in bots {
            if let Ok(fx) = self.room.leave(bot, self.last_now) {
                self.deliver(fx, None).await;
            }
        }
    }

    /// Whether the recorder's journal is at its bound (the database has
    /// been away too long): no new match may start.
    fn journal_full(&self) -> bool {
        self.services
            .recorder
            .state()
            .journal_full
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Answers `player`'s request `id` with an error.
    fn refuse(&self, player: PlayerId, id: Option<String>, message: &str) {
        if let Some(c) = self.clients.get(&player) {
            let error = ServerMessage::error(ErrorCode::Internal, message);
            c.send(&ServerEnvelope::reply(id, error));
        }
    }

    /// Records the events, then sends the messages; replies carry `id`.
    /// The room's clock stands still while it waits for the recorder.
    async fn deliver(&mut self, mut fx: Effects, id: Option<&str>) {
        self.bots.observe(&fx, self.last_now, self.room.settings());
        let held = Instant::now();
        self.record(&mut fx).await;
        self.clock.hold(held, Instant::now());
        self.send_out(fx, id);
    }

    /// Records the room's events (see [`recording`]). A round's result or
    /// a match's end is committed before this returns (and the match's
    /// rating changes are put into its `match_over`); everything else is
    /// queued.
    async fn record(&mut self, fx: &mut Effects) {
        let events = std::mem::take(&mut fx.events);
        for event in &events {
            tracing::debug!(room = %self.room.code(), ?event, "room event");
        }
        let code = self.room.code().to_owned();
        let rules = self.room.settings().rules;
        for (player, solve) in self.watch.observe(&code, rules, &events) {
            self.services.solves.solved(player, solve);
        }
        let batch = self
            .log
            .translate(&code, &events, now_ms(), &mut Uuid::now_v7);
        if batch.writes.is_empty() {
            return;
        }
        let recorder = &self.services.recorder;
        if !batch.must_commit {
            let sent = if batch.writes.iter().all(Held::may_hold) {
                self.held.hold(recorder, batch.writes).await
            } else {
                recorder.submit(self.held.before(batch.writes)).await
            };
            if let Err(e) = sent {
                tracing::error!(room = %code, error = %e, "not recorded");
            }
            return;
        }
        // What the room held goes first, in the same request: the database
        // sees the room's writes in the order they happened.
        let finished = batch.writes.iter().find_map(|w| match w {
            crate::db::scores::Write::FinishMatch(end) => Some(end.match_id),
            _ => None,
        });
        match recorder.commit(self.held.before(batch.writes)).await {
            Ok(applied) => {
                if let Some(match_id) = finished {
                    let id = match_id.to_string();
                    fx.set_match_id(&id);
                    self.room.recorded_as(&id);
                }
                let changes = applied.iter().find_map(|a| match a {
                    Applied::Ratings(changes) => Some(changes),
                    _ => None,
                });
                if let (Some(changes), Some(match_id)) = (changes, finished) {
                    if !changes.is_empty() {
                        self.services.rated_play.finished(RatedMatch {
                            match_id,
                            players: changes.iter().map(|c| c.player).collect(),
                        });
                    }
                }
                if let (Some(changes), Some(standings)) = (changes, fx.match_over_mut()) {
                    for standing in standings.iter_mut() {
                        if let Some(c) = changes.iter().find(|c| c.player == standing.player) {
                            standing.rating_before = Some(c.before);
                            standing.rating_after = Some(c.after);
                            standing.rating_provisional = !self
                                .services
                                .settings
                                .ranking
                                .admits(c.matches, c.opponents);
                        }
                    }
                    self.room.rated(standings);
                }
            }
            // Only a write the database refuses as such (a bug, never an
            // outage: the recorder journals or waits through those) or a
            // stopped recorder ends here. The game goes on, loudly.
            Err(e) => tracing::error!(room = %code, error = %e, "result not recorded"),
        }
    }

    /// Sends the messages; replies carry `id`.
    fn send_out(&mut self, fx: Effects, id: Option<&str>) {
        for out in fx.messages {
            let envelope = ServerEnvelope::reply(
                if out.reply {
                    id.map(str::to_owned)
                } else {
                    None
                },
                out.message,
            );
            let text = crate::rooms::outbox::frame(&envelope);
            match out.to {
                Recipient::Player(p) => {
                    if let Some(c) = self.clients.get(&p) {
                        c.send_frame(&text);
                    }
                }
                // "Everyone" means the room's members now: someone just
                // removed is still in `clients` until the end of this call
                // and gets only the notices addressed to them.
                Recipient::All => {
                    for (p, c) in &self.clients {
                        if self.room.is_member(*p) {
                            c.send_frame(&text);
                        }
                    }
                }
                Recipient::AllExcept(except) => {
                    for (p, c) in &self.clients {
                        if *p != except && self.room.is_member(*p) {
                            c.send_frame(&text);
                        }
                    }
                }
            }
        }
        for player in fx.removed {
            self.clients.remove(&player);
            self.services.lobby.unseat(player, self.room.code());
            self.services.solves.forget(player, self.room.code());
        }
        let grace = self.services.settings.empty_room_grace;
        self.absence
            .update(!self.clients.is_empty(), Instant::now(), grace);
        if self.room.is_locked() != self.locked {
            self.locked = self.room.is_locked();
            self.services.lobby.locked(self.room.code(), self.locked);
        }
        let summary = self.room.summary();
        self.summary.send_if_modified(|s| {
            let changed = *s != summary;
            *s = summary;
            changed
        });
    }
}
