//! The state of `krypto practice`, with no socket and no clock in it: the
//! same [`Input`]s and [`Step`]s as the daily's session (`session.rs`), so
//! the same run loop (`mod.rs`) carries it out and the same lines are
//! typed: a formula and Enter, Enter alone for the hand again.
//!
//! A practice table is the server's (docs/protocol.md, "Practice"): one
//! hand at a time, unrated, nothing recorded; `?` asks for the next step
//! of a solution, `/skip` shows every solution and deals the next hand, a
//! right answer lists the solutions (the player's own marked) and deals the
//! next, a wrong one costs nothing. The time shown is the player's alone:
//! since the hand came, on the local clock.
//!
//! The table lives with its connection: after a reconnection the command
//! sits down at a new one (the old hand is gone with the old connection)
//! and says so. Everything the server sends is bounded before it is kept
//! or printed: a hand of more than [`MAX_CARDS`] cards is refused, at most
//! [`MAX_STEPS`] hints are kept, strings are cut to [`MAX_TEXT`]
//! characters and solution lists to [`session::MAX_SOLUTIONS_SHOWN`].

use std::collections::VecDeque;
use std::time::Duration;

use krypto_core::modes::share::clock_text;
use krypto_core::protocol::{ClientMessage, Difficulty, ErrorCode, ServerMessage, VerdictError};

use super::session::{self, bounded, say, Input, Step};

/// Most cards a practice hand may have to be played here; a server that
/// deals more is not a krypto server this client knows.
pub const MAX_CARDS: usize = 16;
/// Most hint steps kept for one hand (a hand has one fewer than its cards).
pub const MAX_STEPS: usize = MAX_CARDS;
/// Longest string from the server kept or printed, in characters.
pub const MAX_TEXT: usize = krypto_core::formula::MAX_LEN;
/// Formulas sent and not yet judged that are remembered (as in the daily).
const UNJUDGED: usize = 32;

/// What the keys do, printed at the first hand and by `/help`.
const KEYS: &str =
    "Type a formula and Enter · ? a hint (the next step) · /skip every solution, next hand · \
     Enter alone the hand again · /band easy|medium|hard|any · /quit";

/// The hand on the table.
#[derive(Debug, Clone)]
struct Hand {
    number: u32,
    objective: i64,
    cards: Vec<i64>,
    /// Hints the hand has in all.
    steps: u32,
    /// The hints shown so far, in order.
    hints: Vec<String>,
    /// Local time the hand came.
    dealt_at: Duration,
}

/// The state of `krypto practice`.
#[derive(Debug)]
pub struct Practice {
    band: Difficulty,
    now: Duration,
    /// A `welcome` was answered with `practice_start` once: a later one is
    /// a reconnection, and a new table.
    seated: bool,
    hand: Option<Hand>,
    /// Lines typed before the first hand came.
    early: Vec<String>,
    /// Formulas sent and not yet judged, oldest first.
    unjudged: VecDeque<String>,
    /// A `practice_hint` is out (one at a time: `?` twice is one hint).
    hint_out: bool,
    solved: u32,
    skipped: u32,
    /// The keys were printed (at the first hand only).
    keys_shown: bool,
    /// Why the connection is down, once said: a server that stays away
    /// fails every retry the same way, and one line says it.
    down: Option<String>,
    over: bool,
    input_closed: bool,
}

impl Practice {
    /// A table dealing from `band`.
    pub fn new(band: Difficulty) -> Practice {
        Practice {
            band,
            now: Duration::ZERO,
            seated: false,
            hand: None,
            early: Vec::new(),
            unjudged: VecDeque::new(),
            hint_out: false,
            solved: 0,
            skipped: 0,
            keys_shown: false,
            down: None,
            over: false,
            input_closed: false,
        }
    }

    /// Handles one input.
    pub fn handle(&mut self, input: Input) -> Vec<Step> {
        if self.over {
            return Vec::new();
        }
        let mut out = Vec::new();
        match input {
            Input::Server(message) => self.server(*message, &mut out),
            Input::Line(line) => self.line(&line, &mut out),
            Input::Tick(now) => self.now = now,
            Input::Dropped(reason) => {
                // The table ends with its connection: what was on it is gone.
                self.hand = None;
                self.unjudged.clear();
                self.hint_out = false;
                if self.down.as_ref() != Some(&reason) {
                    say(
                        &mut out,
                        format!("Connection lost ({reason}); reconnecting… (a new table then)"),
                    );
                    self.down = Some(reason);
                }
            }
            Input::Closed => self.input_closed = true,
        }
        if self.input_closed
            && !self.over
            && self.unjudged.is_empty()
            && self.early.is_empty()
            && self.hand.is_some()
        {
            self.quit(&mut out);
        }
        out
    }

    fn finish(&mut self, ok: bool, out: &mut Vec<Step>) {
        self.over = true;
        out.push(Step::Done(ok));
    }

    fn quit(&mut self, out: &mut Vec<Step>) {
        say(
            out,
            format!(
                "Stopped: {} solved, {} skipped (practice is unrated: nothing was recorded).",
                self.solved, self.skipped
            ),
        );
        self.finish(true, out);
    }

    fn start(&mut self, out: &mut Vec<Step>) {
        self.hand = None;
        self.hint_out = false;
        out.push(Step::Send(ClientMessage::PracticeStart {
            difficulty: self.band,
        }));
    }

    fn server(&mut self, message: ServerMessage, out: &mut Vec<Step>) {
        match message {
            ServerMessage::Welcome { name, token, .. } => {
                out.push(Step::Save { name, token });
                self.down = None;
                if std::mem::replace(&mut self.seated, true) {
                    say(
                        out,
                        "Back online: a new table (a table ends with its connection).".to_owned(),
                    );
                    // What was typed for the lost hand is not for the next.
                    self.early.clear();
                }
                self.start(out);
            }
            ServerMessage::Practice {
                hand,
                objective,
                cards,
                difficulty,
                steps,
            } => self.deal(hand, objective, cards, difficulty, steps, out),
            ServerMessage::PracticeHint {
                hand,
                step,
                steps_shown,
                steps,
            } => {
                self.hint_out = false;
                let Some(h) = self.hand.as_mut().filter(|h| h.number == hand) else {
                    return;
                };
                if h.hints.len() < MAX_STEPS {
                    h.hints.push(bounded(&step, MAX_TEXT));
                }
                let last = if steps_shown >= steps {
                    " (the last step: that makes it)"
                } else {
                    ""
                };
                say(
                    out,
                    format!(
                        "Hint {steps_shown}/{steps}: {}{last}",
                        bounded(&step, MAX_TEXT)
                    ),
                );
            }
            ServerMessage::Verdict {
                accepted, error, ..
            } => self.verdict(accepted, error, out),
            ServerMessage::PracticeSolutions {
                hand,
                solved,
                hints,
                solutions,
                ..
            } => {
                let took = match self.hand.as_ref().filter(|h| h.number == hand) {
                    Some(h) => format!(
                        " in {}",
                        clock_text(millis(self.now.saturating_sub(h.dealt_at)))
                    ),
                    None => String::new(),
                };
                let hints = match hints {
                    0 => "no hint".to_owned(),
                    1 => "1 hint".to_owned(),
                    n => format!("{n} hints"),
                };
                // The list first: an easy hand has a hundred solutions, and
                // the line that says how the hand went stays in sight just
                // above the next hand.
                session::solutions_lines(&solutions, out);
                if solved {
                    self.solved = self.solved.saturating_add(1);
                    let yours = solutions
                        .iter()
                        .find(|s| s.yours)
                        .map_or(String::new(), |s| {
                            format!(": {}", bounded(&s.formula, MAX_TEXT))
                        });
                    say(out, format!("✓ Hand {hand} solved{took} ({hints}){yours}"));
                } else {
                    self.skipped = self.skipped.saturating_add(1);
                    say(
                        out,
                        format!("Hand {hand} skipped ({hints}): its solutions above."),
                    );
                }
            }
            ServerMessage::Error { code, message } => {
                self.hint_out = false;
                let message = bounded(&message, MAX_TEXT);
                match code {
                    ErrorCode::WrongState if self.hand.is_some() && self.unjudged.is_empty() => {
                        say(
                            out,
                            format!(
                                "{message} (every step is shown above; /skip lists every solution)"
                            ),
                        );
                    }
                    ErrorCode::BadMessage if self.hand.is_none() => {
                        // A server without practice tables.
                        say(out, format!("Error: {message}"));
                        self.finish(false, out);
                    }
                    _ => {
                        if matches!(
                            code,
                            ErrorCode::WrongRound | ErrorCode::RateLimited | ErrorCode::WrongState
                        ) {
                            self.unjudged.pop_front();
                        }
                        say(out, format!("Error: {message}"));
                    }
                }
            }
            _ => {}
        }
    }

    fn deal(
        &mut self,
        number: u32,
        objective: i64,
        cards: Vec<i64>,
        difficulty: Difficulty,
        steps: u32,
        out: &mut Vec<Step>,
    ) {
        if cards.is_empty() || cards.len() > MAX_CARDS {
            say(
                out,
                format!(
                    "The server dealt a hand of {} cards; this client plays 1 to {MAX_CARDS}.",
                    cards.len()
                ),
            );
            return;
        }
        // Answers in flight were for the hand that just ended.
        self.unjudged.clear();
        self.hint_out = false;
        self.hand = Some(Hand {
            number,
            objective,
            cards,
            steps,
            hints: Vec::new(),
            dealt_at: self.now,
        });
        let band = match difficulty {
            Difficulty::Any => "any hand".to_owned(),
            other => format!("{other} hands"),
        };
        say(out, format!("{} ({band}, unrated)", self.hand_line()));
        if !std::mem::replace(&mut self.keys_shown, true) {
            say(out, KEYS.to_owned());
        }
        for line in std::mem::take(&mut self.early) {
            self.line(&line, out);
        }
    }

    /// `Hand 3: make 24 from 8 3 5 5 1`.
    fn hand_line(&self) -> String {
        match &self.hand {
            Some(h) => {
                let cards: Vec<String> = h.cards.iter().map(i64::to_string).collect();
                format!(
                    "Hand {}: make {} from {}",
                    h.number,
                    h.objective,
                    cards.join(" ")
                )
            }
            None => "No hand yet: the table is being dealt.".to_owned(),
        }
    }

    fn line(&mut self, line: &str, out: &mut Vec<Step>) {
        let text = line.trim();
        let command = text.to_ascii_lowercase();
        let (verb, rest) = command
            .split_once(char::is_whitespace)
            .map_or((command.as_str(), ""), |(v, r)| (v, r.trim()));
        match verb {
            "/quit" | "/q" | "/exit" => return self.quit(out),
            "/help" | "/h" => return say(out, KEYS.to_owned()),
            "/band" => {
                match rest.parse::<Difficulty>() {
                    Ok(band) => {
                        self.band = band;
                        say(out, format!("A new table: {band} hands."));
                        self.early.clear();
                        self.unjudged.clear();
                        self.start(out);
                    }
                    Err(_) => say(out, "usage: /band easy|medium|hard|any".to_owned()),
                }
                return;
            }
            _ => {}
        }
        let Some(hand) = &self.hand else {
            if !text.is_empty() && self.early.len() < UNJUDGED {
                self.early.push(text.to_owned());
            }
            return;
        };
        match verb {
            "" => {
                let took = clock_text(millis(self.now.saturating_sub(hand.dealt_at)));
                say(out, format!("{} · {took} on this hand", self.hand_line()));
                for (i, step) in hand.hints.iter().enumerate() {
                    say(out, format!("  hint {}: {step}", i + 1));
                }
            }
            "?" | "/hint" => {
                if usize::try_from(hand.steps).is_ok_and(|s| hand.hints.len() >= s) {
                    say(
                        out,
                        "Every step is shown (the last one makes it); /skip lists every solution."
                            .to_owned(),
                    );
                } else if !self.hint_out {
                    self.hint_out = true;
                    out.push(Step::Send(ClientMessage::PracticeHint));
                }
            }
            "/skip" | "/s" | "/solutions" => out.push(Step::Send(ClientMessage::PracticeSkip)),
            _ if text.starts_with('/') => say(
                out,
                format!("Unknown command {verb}. {KEYS}", verb = bounded(verb, 20)),
            ),
            _ => {
                if self.unjudged.len() >= UNJUDGED {
                    say(
                        out,
                        "Wait for the verdicts of the formulas sent.".to_owned(),
                    );
                    return;
                }
                let formula = bounded(text, MAX_TEXT);
                self.unjudged.push_back(formula.clone());
                out.push(Step::Send(ClientMessage::PracticeSubmit {
                    hand: hand.number,
                    formula,
                }));
            }
        }
    }

    fn verdict(&mut self, accepted: bool, error: Option<VerdictError>, out: &mut Vec<Step>) {
        self.unjudged.pop_front();
        if accepted {
            say(out, "✓ Right!".to_owned());
            return;
        }
        let why = error.map_or_else(
            || "not accepted".to_owned(),
            |e| {
                let at = e.column.map_or(String::new(), |c| format!(" (column {c})"));
                format!("{}{at}", bounded(&e.message, MAX_TEXT))
            },
        );
        say(
            out,
            format!("✗ {why} · it costs nothing: try again, or ? for a hint"),
        );
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
#[path = "practice_tests.rs"]
mod tests;
