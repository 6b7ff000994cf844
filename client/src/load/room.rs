//! One simulated room: its players' sockets, driven by a single task.
//!
//! The task connects every player (each a real WebSocket), has the first
//! one create the room and the others join it by code (following a
//! `redirect` to the room's node: a new socket there, `hello` with the same
//! token, the join again), starts the match,
//! and then, in one `select!` loop over all its sockets and a timer, submits
//! each player's answers on schedule and reads everything the server sends.
//! Keeping a room in one task lets the room work out each hand's answers
//! once and see every player's `round_started` to measure their spread,
//! without locks.
//!
//! A player whose server restarts (close 1012) or whose room is handed to
//! another node (a `redirect` during play) moves as the other clients do:
//! a new socket (to the redirect's node, or back home after a 1012), `hello`
//! with the token, and the seat is resumed; meanwhile the rest of the room
//! plays on. Connecting, setting the room up and coming back are
//! [`super::connection`]'s, what a room is asked to do and the run's shared
//! state are [`super::plan`]'s; this file is the room's state during play.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use futures_util::future::BoxFuture;
use futures_util::stream::{self, FuturesUnordered, SelectAll, SplitStream};
use futures_util::{SinkExt, StreamExt};
use krypto_core::protocol::{
    close, parse_server_message, ClientEnvelope, ClientMessage, ErrorCode, RoomPhase,
    ServerEnvelope, ServerMessage,
};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use tokio::sync::{mpsc, watch};
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Message;

use super::answers::{self, Answers, Right};
use super::connection::{come_back, set_up, text, Conn, Incoming, SetupError, Sink, Ws};
use super::plan::{Phase, RoomPlan, RunContext};
use super::sim_player::{Pending, SimPlayer};
use super::stats::{record, Stats, WonRound};
use crate::redirect::Follow;

/// Runs one room until the run stops; returns what it saw. `ready` gets
/// `true` once the match is started, `false` if setting up failed.
pub async fn run(
    plan: RoomPlan,
    ctx: Arc<RunContext>,
    mut phase: watch::Receiver<Phase>,
    ready: mpsc::UnboundedSender<bool>,
) -> Stats {
    let mut stats = Stats::default();
    tokio::select! {
        () = tokio::time::sleep_until(plan.start_at) => {}
        _ = phase.wait_for(|p| *p == Phase::Stop) => {
            stats.tally.rooms_failed += 1;
            let _ = ready.send(false);
            return stats;
        }
    }
    let (players, code) = match set_up(&plan, &ctx, &mut stats).await {
        Ok(set) => set,
        Err(()) => {
            stats.tally.rooms_failed += 1;
            let _ = ready.send(false);
            return stats;
        }
    };
    let _ = ready.send(true);
    let mut room = Room::new(plan, ctx, players, code, stats);
    room.play(phase).await;
    room.stats
}

/// The hand being played in this room, as first seen by any player.
#[derive(Debug)]
struct Hand {
    match_no: u32,
    round: u32,
    objective: i64,
    cards: Vec<i64>,
    /// Worked out at the first submission, not on receipt, so solving does
    /// not delay reading the other players' `round_started` (and inflate
    /// the spread being measured).
    answers: Option<Answers>,
    first_seen: Instant,
    /// Players who have seen its `round_started`.
    seen: usize,
}

impl Hand {
    /// Round `key` (match, round) with its objective and cards, seen by one
    /// player at `now`; its answers are worked out when first needed.
    fn new(key: (u32, u32), objective: i64, cards: Vec<i64>, now: Instant) -> Hand {
        Hand {
            match_no: key.0,
            round: key.1,
            objective,
            cards,
            answers: None,
            first_seen: now,
            seen: 1,
        }
    }
}

struct Room {
    plan: RoomPlan,
    ctx: Arc<RunContext>,
    players: Vec<SimPlayer>,
    incoming: SelectAll<stream::BoxStream<'static, (usize, u32, Incoming)>>,
    /// Players on their way back to their seats.
    moves: FuturesUnordered<BoxFuture<'static, (usize, Result<Conn, SetupError>)>>,
    hand: Option<Hand>,
    /// The last round recorded as won, so each win is kept once.
    last_won: Option<(u32, u32)>,
    /// The round (match, round) of the first accepted answer whose win is
    /// not yet seen, with when that answer was sent after the deal.
    accepted: Option<((u32, u32), Duration)>,
    /// The room's code.
    code: String,
    rng: StdRng,
    stats: Stats,
    /// The steady window's start, once it has one.
    measure_from: Option<Instant>,
    stopping: bool,
}

impl Room {
    fn new(
        plan: RoomPlan,
        ctx: Arc<RunContext>,
        conns: Vec<Conn>,
        code: String,
        stats: Stats,
    ) -> Room {
        let mut rng = StdRng::from_os_rng();
        let every = plan.submit_every;
        let now = Instant::now();
        let mut players = Vec::with_capacity(conns.len());
        let mut incoming = SelectAll::new();
        for (i, conn) in conns.into_iter().enumerate() {
            let (sink, stream): (Sink, SplitStream<Ws>) = conn.ws.split();
            incoming.push(tagged(i, 0, stream));
            // A random phase so players do not all submit at the same instant.
            let phase = every.mul_f64(rng.random_range(0.0..1.0));
            let home = if i == 0 {
                plan.host_url.clone()
            } else {
                plan.guest_url.clone()
            };
            players.push(SimPlayer::new(
                sink,
                conn.name,
                conn.token,
                home,
                now + phase,
            ));
        }
        Room {
            plan,
            ctx,
            players,
            incoming,
            moves: FuturesUnordered::new(),
            hand: None,
            last_won: None,
            accepted: None,
            code,
            rng,
            stats,
            measure_from: None,
            stopping: false,
        }
    }

    async fn play(&mut self, mut phase: watch::Receiver<Phase>) {
        loop {
            match *phase.borrow_and_update() {
                Phase::Ramp => {}
                Phase::Steady { since } => self.measure_from = Some(since),
                Phase::Stop => break,
            }
            let due = self
                .players
                .iter()
                .filter(|b| !b.closed)
                .map(|b| b.next_submit)
                .min();
            tokio::select! {
                changed = phase.changed() => {
                    if changed.is_err() {
                        break;
                    }
                }
                Some((i, generation, incoming)) = self.incoming.next() => {
                    self.receive(i, generation, incoming).await;
                }
                Some((i, moved)) = self.moves.next() => self.moved(i, moved),
                () = crate::wait::sleep_until(due), if due.is_some() => self.submit_due().await,
                else => break,
            }
        }
        self.finish().await;
    }

    /// After the stop: wait (a bounded time) for outstanding verdicts, then
    /// close every connection and count what never got an answer.
    async fn finish(&mut self) {
        self.stopping = true;
        self.receive_while(self.ctx.drain_timeout, |b| {
            !b.closed && !b.pending.is_empty()
        })
        .await;
        for player in &mut self.players {
            self.stats.tally.unanswered += player.pending.len() as u64;
            player.pending.clear();
            if !player.closed {
                let _ = player.sink.send(Message::Close(None)).await;
            }
        }
        self.receive_while(self.ctx.close_timeout, |b| !b.closed)
            .await;
        for player in &mut self.players {
            if !player.closed {
                player.closed = true;
                self.ctx.counters.connection_closed();
            }
        }
    }

    /// Receives for at most `timeout`, while some player is `waiting`.
    async fn receive_while(&mut self, timeout: Duration, waiting: impl Fn(&SimPlayer) -> bool) {
        let until = Instant::now() + timeout;
        while self.players.iter().any(&waiting) {
            tokio::select! {
                Some((i, generation, incoming)) = self.incoming.next() => {
                    self.receive(i, generation, incoming).await;
                }
                () = tokio::time::sleep_until(until) => break,
                else => break,
            }
        }
    }

    /// Sends the submissions that are due.
    async fn submit_due(&mut self) {
        let now = Instant::now();
        let every = self.plan.submit_every;
        for i in 0..self.players.len() {
            let player = &mut self.players[i];
            if player.closed || player.next_submit > now {
                continue;
            }
            player.next_submit += every;
            if player.next_submit <= now {
                // Fell behind (a stalled loop): resume the schedule from now
                // rather than firing a burst that would trip the rate limit.
                player.next_submit = now + every;
            }
            let (Some(round), Some(hand)) = (player.round, &mut self.hand) else {
                continue;
            };
            if hand.match_no != player.match_no || hand.round != round {
                continue;
            }
            let rules = self.plan.rules;
            let answers = hand
                .answers
                .get_or_insert_with(|| answers::for_hand(&hand.cards, hand.objective, rules));
            let message = if self.rng.random_bool(self.plan.wrong_ratio) {
                ClientMessage::Submit {
                    round,
                    formula: answers.wrong.clone(),
                }
            } else {
                match &answers.right {
                    Right::Formula(f) => ClientMessage::Submit {
                        round,
                        formula: f.clone(),
                    },
                    Right::NoSolution => ClientMessage::ClaimNoSolution { round },
                }
            };
            player.seq += 1;
            let seq = player.seq;
            let envelope = ClientEnvelope {
                id: Some(format!("s{seq}")),
                message,
            };
            let Some(request) = text(&envelope) else {
                self.stats.error("unwritable_request");
                continue;
            };
            let sent_at = Instant::now();
            let measured = self.measure_from.is_some_and(|since| sent_at >= since);
            player.pending.insert(
                seq,
                Pending {
                    sent_at,
                    measured,
                    match_no: player.match_no,
                    round,
                },
            );
            self.stats.tally.submissions += 1;
            if measured {
                self.stats.measured_submissions += 1;
            }
            self.ctx.counters.sent.fetch_add(1, Ordering::Relaxed);
            if player.sink.send(request).await.is_err() {
                self.lost(i);
            }
        }
    }

    /// A connection ended: count it unless we were closing.
    fn lost(&mut self, i: usize) {
        let player = &mut self.players[i];
        if player.closed {
            return;
        }
        player.closed = true;
        self.ctx.counters.connection_closed();
        if !self.stopping {
            self.stats.tally.unexpected_disconnects += 1;
        }
    }

    /// A player's server restarts (`to`: none, go home) or sent their room
    /// elsewhere (`to`: that node): they go back to their seat while the
    /// others play on. Their pending submissions' answers are lost.
    fn start_move(&mut self, i: usize, to: Option<String>) {
        let player = &mut self.players[i];
        if self.stopping || player.moving || player.closed {
            return self.lost(i);
        }
        player.moving = true;
        player.closed = true;
        player.generation += 1;
        player.round = None;
        self.stats.tally.interrupted += player.pending.len() as u64;
        player.pending.clear();
        self.ctx.counters.connection_closed();
        let first = to.unwrap_or_else(|| player.home.clone());
        let back = come_back(
            self.ctx.clone(),
            first,
            player.home.clone(),
            player.name.clone(),
            player.token.clone(),
            self.code.clone(),
        );
        self.moves.push(Box::pin(async move { (i, back.await) }));
    }

    /// A player's move ended: back in their seat, or lost.
    fn moved(&mut self, i: usize, moved: Result<Conn, SetupError>) {
        let player = &mut self.players[i];
        player.moving = false;
        match moved {
            Ok(conn) if !self.stopping => {
                let (sink, stream) = conn.ws.split();
                self.incoming.push(tagged(i, player.generation, stream));
                player.sink = sink;
                player.token = conn.token;
                player.closed = false;
                self.ctx.counters.connection_opened();
                self.stats.tally.resumed += 1;
            }
            Ok(_) => {}
            Err(e) => {
                self.stats.tally.unexpected_disconnects += 1;
                self.stats.error(match e {
                    SetupError::Refused(code) => code.as_str(),
                    SetupError::Unwritable => "unwritable_request",
                    _ => "resume_failed",
                });
            }
        }
    }

    async fn receive(&mut self, i: usize, generation: u32, incoming: Incoming) {
        if generation != self.players[i].generation {
            return;
        }
        let text = match incoming {
            Some(Ok(Message::Text(text))) => text,
            Some(Ok(Message::Close(Some(frame))))
                if u16::from(frame.code) == close::SERVICE_RESTART =>
            {
                return self.start_move(i, None);
            }
            Some(Ok(Message::Close(_))) | Some(Err(_)) | None => return self.lost(i),
            Some(Ok(_)) => return,
        };
        let now = Instant::now();
        self.ctx.counters.received.fetch_add(1, Ordering::Relaxed);
        let Ok(envelope) = parse_server_message(text.as_str()) else {
            self.stats.error("unparsable");
            return;
        };
        let ServerEnvelope { id, message } = envelope;
        match message {
            ServerMessage::MatchStarted { .. } => {
                let player = &mut self.players[i];
                player.match_no += 1;
                player.round = None;
                if i == 0 {
                    self.stats.tally.matches_started += 1;
                }
            }
            ServerMessage::RoundStarted {
                round,
                objective,
                cards,
                ..
            } => {
                let player = &mut self.players[i];
                player.round = Some(round);
                let key = (player.match_no, round);
                let live = self.players.iter().filter(|b| !b.closed).count();
                match &mut self.hand {
                    Some(hand) if (hand.match_no, hand.round) == key => {
                        hand.seen += 1;
                        if hand.seen == live {
                            let spread = now.saturating_duration_since(hand.first_seen);
                            record(&mut self.stats.round_spread, micros(spread));
                        }
                    }
                    _ => {
                        self.stats.tally.rounds_started += 1;
                        self.hand = Some(Hand::new(key, objective, cards, now));
                    }
                }
            }
            ServerMessage::Verdict {
                accepted, error, ..
            } => {
                let Some(sent) = self.take_pending(i, id.as_deref()) else {
                    return;
                };
                self.stats.tally.verdicts += 1;
                if sent.measured {
                    let latency = now.saturating_duration_since(sent.sent_at);
                    record(&mut self.stats.verdict_latency, micros(latency));
                    let split = if accepted {
                        &mut self.stats.accepted_latency
                    } else {
                        &mut self.stats.refused_latency
                    };
                    record(split, micros(latency));
                }
                if accepted {
                    self.accepted_sent((sent.match_no, sent.round), sent.sent_at);
                }
                let kind = match (accepted, error) {
                    (true, _) => "accepted".to_owned(),
                    (false, Some(e)) => e.kind.as_str().to_owned(),
                    (false, None) => "refused".to_owned(),
                };
                *self.stats.verdict_kinds.entry(kind).or_default() += 1;
            }
            ServerMessage::RoundWon { win, .. } => {
                let player = &mut self.players[i];
                player.round = None;
                let key = (player.match_no, win.round);
                if self.last_won != Some(key) {
                    self.last_won = Some(key);
                    let seen = self.since_deal(key, now);
                    let sent = self.accepted.take().filter(|(k, _)| *k == key);
                    self.stats.rounds_won.push(WonRound {
                        room: self.code.clone(),
                        match_no: key.0,
                        round: win.round,
                        winner: win.winner,
                        formula: win.formula,
                        elapsed_ms: win.elapsed_ms,
                        sent_ms: sent.map(|(_, d)| millis(d)),
                        seen_ms: seen.map(millis),
                    });
                }
            }
            ServerMessage::RoundTimedOut { .. } => self.players[i].round = None,
            // Back in the seat (after a restart or a move): the hand being
            // played, as the room has it.
            ServerMessage::RoomState(snapshot) => {
                let playing = snapshot.state == RoomPhase::Playing;
                if let Some(r) = snapshot.round.filter(|_| playing) {
                    let player = &mut self.players[i];
                    player.round = Some(r.number);
                    let key = (player.match_no, r.number);
                    if self.hand.as_ref().map(|h| (h.match_no, h.round)) != Some(key) {
                        self.hand = Some(Hand::new(key, r.objective, r.cards, now));
                    }
                }
            }
            // The room was handed to another node: follow it there.
            ServerMessage::Redirect { url, .. } if id.is_none() => {
                let mut follow = Follow::default();
                match follow.redirect(&url) {
                    Ok(url) => self.start_move(i, Some(url)),
                    Err(_) => {
                        self.stats.error("bad_redirect");
                        self.lost(i);
                    }
                }
            }
            ServerMessage::MatchOver { .. } => {
                self.players[i].round = None;
                // The host starts a rematch, so the room keeps playing.
                if i == 0 && !self.stopping {
                    self.send(
                        0,
                        ClientEnvelope {
                            id: Some("start".to_owned()),
                            message: ClientMessage::Start,
                        },
                    )
                    .await;
                }
            }
            // Everyone is ready for the rematch at once: the load is the
            // rounds, not the wait.
            ServerMessage::ReadyCheck { .. } if i != 0 && !self.stopping => {
                self.send(i, ClientEnvelope::new(ClientMessage::Ready))
                    .await;
            }
            ServerMessage::Error { code, .. } => {
                let sent = self.take_pending(i, id.as_deref());
                if sent.is_some_and(|s| self.players[i].is_late(&s, code)) {
                    self.stats.tally.late_answers += 1;
                    return;
                }
                // The server is restarting (its rooms are saved): the 1012
                // that follows takes the player back to their seat.
                if code == ErrorCode::ShuttingDown {
                    self.stats.tally.interrupted += u64::from(sent.is_some());
                    return;
                }
                self.stats.error(code.as_str());
                if sent.is_some() {
                    self.stats.tally.refused_submissions += 1;
                }
            }
            _ => {}
        }
    }

    /// Removes and returns the pending submission a reply's id names.
    /// How long after the room first saw round `key` dealt `at` came.
    fn since_deal(&self, key: (u32, u32), at: Instant) -> Option<Duration> {
        let hand = self
            .hand
            .as_ref()
            .filter(|h| (h.match_no, h.round) == key)?;
        Some(at.saturating_duration_since(hand.first_seen))
    }

    /// An answer to round `key` sent at `sent_at` was accepted: the win it
    /// made is told its sending time, whether its `round_won` came first or
    /// comes next. Only the first accepted answer of a round counts.
    fn accepted_sent(&mut self, key: (u32, u32), sent_at: Instant) {
        let Some(after) = self.since_deal(key, sent_at) else {
            return;
        };
        if self.last_won == Some(key) {
            if let Some(won) = self.stats.rounds_won.last_mut() {
                if won.room == self.code && (won.match_no, won.round) == key {
                    won.sent_ms.get_or_insert(millis(after));
                }
            }
        } else if self.accepted.is_none_or(|(k, _)| k != key) {
            self.accepted = Some((key, after));
        }
    }

    fn take_pending(&mut self, i: usize, id: Option<&str>) -> Option<Pending> {
        let seq: u64 = id?.strip_prefix('s')?.parse().ok()?;
        self.players[i].pending.remove(&seq)
    }

    async fn send(&mut self, i: usize, envelope: ClientEnvelope) {
        let Some(request) = text(&envelope) else {
            self.stats.error("unwritable_request");
            return;
        };
        self.ctx.counters.sent.fetch_add(1, Ordering::Relaxed);
        if self.players[i].sink.send(request).await.is_err() {
            self.lost(i);
        }
    }
}

/// A connection's stream, each message tagged with the player and the
/// connection's generation, ending with a `None` marker so the loop learns
/// which connection ended.
fn tagged(
    i: usize,
    generation: u32,
    stream: SplitStream<Ws>,
) -> stream::BoxStream<'static, (usize, u32, Incoming)> {
    stream
        .map(move |m| (i, generation, Some(m)))
        .chain(stream::once(async move { (i, generation, None) }))
        .boxed()
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}
