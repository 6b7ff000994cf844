//! One player of the rush: arrives at its moment, connects and says
//! `hello` as a new name, asks for the daily, thinks, answers (one wrong
//! answer first for some), waits for `daily_solved`, and leaves. What it
//! saw is its [`Visit`], merged by the coordinator.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use krypto_core::protocol::{ClientMessage, ServerMessage};
use krypto_core::Rules;
use tokio::time::Instant;

use super::super::answers::{self, Answers};
use super::super::connection::{self, SetupError};
use super::super::plan::RunContext;

/// How far through its visit a player got.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Reached {
    /// Never welcomed (the socket or `hello` failed).
    Nothing,
    /// Welcomed; no hand.
    Welcomed,
    /// Dealt the daily; not solved.
    Hand,
    /// `daily_solved` received.
    Solved,
}

/// What one player saw.
#[derive(Debug, Clone)]
pub struct Visit {
    /// How far it got.
    pub reached: Reached,
    /// Arrival (before the socket opens) → `welcome`.
    pub welcome: Option<Duration>,
    /// `daily_start` sent → `daily` received.
    pub hand: Option<Duration>,
    /// Arrival → `daily` received: what the player waited in all.
    pub arrival_to_hand: Option<Duration>,
    /// Each `daily_submit` sent → its `verdict`, and whether it was
    /// accepted.
    pub verdicts: Vec<(Duration, bool)>,
    /// The right answer sent → `daily_solved` received.
    pub solved: Option<Duration>,
    /// Why it stopped short, when it did: an error code, `broken` (the
    /// socket failed, closed or timed out) or `unexpected` (a reply that
    /// is not the protocol's).
    pub failure: Option<String>,
}

impl Visit {
    fn new() -> Visit {
        Visit {
            reached: Reached::Nothing,
            welcome: None,
            hand: None,
            arrival_to_hand: None,
            verdicts: Vec::new(),
            solved: None,
            failure: None,
        }
    }

    fn failed(mut self, why: SetupError) -> Visit {
        self.failure = Some(match why {
            SetupError::Refused(code) => code.as_str().to_owned(),
            SetupError::Unwritable => "unwritable_request".to_owned(),
            SetupError::Redirect(_) => "redirect".to_owned(),
            SetupError::Broken => "broken".to_owned(),
        });
        self
    }

    fn unexpected(mut self) -> Visit {
        self.failure = Some("unexpected".to_owned());
        self
    }
}

/// One player's part of the plan.
#[derive(Debug, Clone)]
pub struct Arrival {
    /// Its name (new to the server).
    pub name: String,
    /// When it arrives.
    pub at: Instant,
    /// From the hand to its first answer.
    pub think: Duration,
    /// Whether a wrong answer comes first (then the right one after
    /// another `think / 4`).
    pub misses_once: bool,
}

/// A hand: its objective and cards.
type Hand = (i64, Vec<i64>);

/// The answers to each hand seen, worked out once for every player.
#[derive(Debug, Default)]
pub struct AnswerBook {
    known: Mutex<HashMap<Hand, Arc<Answers>>>,
}

impl AnswerBook {
    /// The answers to `cards` and `objective` (the daily's rules).
    pub fn for_hand(&self, cards: &[i64], objective: i64) -> Arc<Answers> {
        let key = (objective, cards.to_vec());
        let mut known = match self.known.lock() {
            Ok(known) => known,
            Err(poisoned) => poisoned.into_inner(),
        };
        known
            .entry(key)
            .or_insert_with(|| Arc::new(answers::for_hand(cards, objective, Rules::Free)))
            .clone()
    }
}

/// Plays one arrival through; never fails, what went wrong is in the visit.
pub async fn visit(
    url: String,
    arrival: Arrival,
    ctx: Arc<RunContext>,
    book: Arc<AnswerBook>,
) -> Visit {
    tokio::time::sleep_until(arrival.at).await;
    let mut seen = Visit::new();
    let arrived = Instant::now();
    let mut conn = match connection::connect(&ctx, &url, &arrival.name, None).await {
        Ok(conn) => conn,
        Err(e) => return seen.failed(e),
    };
    ctx.counters.connection_opened();
    seen.reached = Reached::Welcomed;
    seen.welcome = Some(arrived.elapsed());
    seen = play(&mut conn.ws, &arrival, arrived, &ctx, &book, seen).await;
    let _ = tokio::time::timeout(ctx.close_timeout, conn.ws.close(None)).await;
    ctx.counters.connection_closed();
    seen
}

/// From `daily_start` to `daily_solved` on a welcomed socket.
async fn play(
    ws: &mut connection::Ws,
    arrival: &Arrival,
    arrived: Instant,
    ctx: &RunContext,
    book: &AnswerBook,
    mut seen: Visit,
) -> Visit {
    let asked = Instant::now();
    let dealt =
        match connection::request(ctx, ws, "d", ClientMessage::DailyStart { date: None }).await {
            Ok(reply) => reply,
            Err(e) => return seen.failed(e),
        };
    let ServerMessage::Daily {
        objective, cards, ..
    } = dealt.message
    else {
        return seen.unexpected();
    };
    seen.hand = Some(asked.elapsed());
    seen.arrival_to_hand = Some(arrived.elapsed());
    seen.reached = Reached::Hand;
    let answers = book.for_hand(&cards, objective);
    tokio::time::sleep(arrival.think).await;
    if arrival.misses_once {
        match submit(ctx, ws, "w", &answers.wrong).await {
            Ok(verdict) => seen.verdicts.push(verdict),
            Err(e) => return seen.failed(e),
        }
        tokio::time::sleep(arrival.think / 4).await;
    }
    let right = match &answers.right {
        answers::Right::Formula(f) => f.clone(),
        // The daily is always solvable: a hand the solver did not settle
        // is the server's bug, shown as a refused answer.
        answers::Right::NoSolution => "no solution".to_owned(),
    };
    let sent = Instant::now();
    match submit(ctx, ws, "r", &right).await {
        Ok(verdict) => seen.verdicts.push(verdict),
        Err(e) => return seen.failed(e),
    }
    if !seen.verdicts.last().is_some_and(|(_, accepted)| *accepted) {
        seen.failure = Some("right_answer_refused".to_owned());
        return seen;
    }
    match connection::reply(ctx, ws, "r").await {
        Ok(reply) if matches!(reply.message, ServerMessage::DailySolved { .. }) => {
            seen.solved = Some(sent.elapsed());
            seen.reached = Reached::Solved;
            seen
        }
        Ok(_) => seen.unexpected(),
        Err(e) => seen.failed(e),
    }
}

/// Sends `formula` as request `id`; its verdict's latency and acceptance.
async fn submit(
    ctx: &RunContext,
    ws: &mut connection::Ws,
    id: &str,
    formula: &str,
) -> Result<(Duration, bool), SetupError> {
    let sent = Instant::now();
    let message = ClientMessage::DailySubmit {
        formula: formula.to_owned(),
    };
    let reply = connection::request(ctx, ws, id, message).await?;
    match reply.message {
        ServerMessage::Verdict { accepted, .. } => Ok((sent.elapsed(), accepted)),
        _ => Err(SetupError::Broken),
    }
}
