//! The state of `krypto daily`, `krypto run` and `krypto challenge`, with
//! no socket and no clock in it: server messages, typed lines and clock
//! ticks in, [`Step`]s out (lines to print, requests to send, the token to
//! save, the end). The run loop in `mod.rs` carries the steps out; the
//! tests here feed it exact messages.
//!
//! The server keeps the only clock that counts; the one shown here is the
//! server's last figure moved on by the local time since it arrived, with
//! the penalty of a miss added at once (the same checker as the server's
//! tells a miss from a typo), so the player sees what the server will say.

use std::collections::VecDeque;
use std::time::Duration;

use chrono::NaiveDate;
use krypto_core::cards::Deal;
use krypto_core::modes::share::clock_text;
use krypto_core::modes::{judge, Judgement, PENALTY_MS};
use krypto_core::protocol::{
    ChallengeCode, ChallengeOutcome, ClientMessage, ErrorCode, ServerMessage, SolutionEntry, Timed,
};
use krypto_core::Rules;

/// How often the running clock is printed while the player thinks.
const CLOCK_EVERY: Duration = Duration::from_secs(30);

/// Formulas sent and not yet judged that are remembered; a player cannot
/// type faster than the server answers by more than this.
const UNJUDGED: usize = 32;

/// Which command this is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mode {
    /// `krypto daily [--date D]`: today's hand, or a past day's.
    Daily(Option<NaiveDate>),
    /// `krypto run`: three minutes of hands.
    Run,
    /// `krypto challenge CODE`.
    Challenge(ChallengeCode),
}

/// What the session hears.
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    /// A message from the server (its strings already cleaned).
    Server(Box<ServerMessage>),
    /// A line the player typed.
    Line(String),
    /// The local clock, from the command's start.
    Tick(Duration),
    /// The connection dropped; the connection task tries again. (When it
    /// ends for good, refused or replaced, the run loop ends the command.)
    Dropped(String),
    /// Standard input ended.
    Closed,
}

/// What the run loop must do.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Print a line for the player.
    Print(String),
    /// Send a request.
    Send(ClientMessage),
    /// Keep the token `welcome` brought.
    Save {
        /// The name as the server stored it.
        name: String,
        /// Its token.
        token: String,
    },
    /// The command is over; true when it ended as it should.
    Done(bool),
}

/// The clock the player sees.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shown {
    /// Counting up from `ms` at local time `at` (the daily, challenges).
    Up { ms: u64, at: Duration },
    /// Counting down from `ms` at local time `at` (a run).
    Down { ms: u64, at: Duration },
}

/// The hand in play.
#[derive(Debug, Clone)]
struct Hand {
    deal: Deal,
    rules: Rules,
    clock: Shown,
    /// A run's hand number (0 otherwise), for `run_submit`.
    number: u32,
}

/// The state of one of the three commands.
#[derive(Debug)]
pub struct Session {
    mode: Mode,
    /// The server's HTTP base, for the link of a challenge.
    base: String,
    now: Duration,
    /// The start request went out (on the first `welcome`).
    started: bool,
    /// A run's `run_resume` is out after a reconnect: its `run` is the
    /// same run taken up again.
    resuming: bool,
    hand: Option<Hand>,
    /// Lines typed before the hand arrived.
    early: Vec<String>,
    /// Formulas sent, oldest first, for telling a miss from a typo.
    unjudged: VecDeque<String>,
    /// When the clock was last printed.
    clock_printed: Duration,
    /// Waiting for the `challenge` reply before ending.
    creating: bool,
    /// Whether the command succeeded, once its result is in.
    result: Option<bool>,
    /// Ended: nothing more is done.
    over: bool,
    /// Standard input ended: stop once nothing typed is still on its way.
    input_closed: bool,
    /// Why the connection is down, once said.
    down: Option<String>,
}

impl Session {
    /// A session for `mode` on the server whose HTTP base is `base`.
    pub fn new(mode: Mode, base: &str) -> Session {
        Session {
            mode,
            base: base.trim_end_matches('/').to_owned(),
            now: Duration::ZERO,
            started: false,
            resuming: false,
            hand: None,
            early: Vec::new(),
            unjudged: VecDeque::new(),
            clock_printed: Duration::ZERO,
            creating: false,
            result: None,
            over: false,
            input_closed: false,
            down: None,
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
            Input::Line(line) => self.line(line, &mut out),
            Input::Tick(now) => self.tick(now, &mut out),
            // Every retry against a server that stays away fails alike: once.
            Input::Dropped(reason) if self.down.as_ref() == Some(&reason) => {}
            Input::Dropped(reason) => {
                self.down = Some(reason.clone());
                if self.mode == Mode::Run && self.hand.is_some() {
                    // What was sent and not judged may never have arrived:
                    // the run taken up again says which hand is on the table.
                    self.unjudged.clear();
                    say(
                        &mut out,
                        format!(
                            "Connection lost ({reason}); reconnecting… (the run's clock keeps running)"
                        ),
                    );
                } else {
                    say(
                        &mut out,
                        format!("Connection lost ({reason}); reconnecting…"),
                    );
                }
            }
            Input::Closed => self.input_closed = true,
        }
        self.check_closed(&mut out);
        out
    }

    /// With standard input closed, the command waits for what was typed
    /// to be judged (and a result's challenge link), then ends.
    fn check_closed(&mut self, out: &mut Vec<Step>) {
        let waiting = !self.early.is_empty() || !self.unjudged.is_empty() || self.creating;
        if self.input_closed
            && !self.over
            && !waiting
            && (self.hand.is_some() || self.result.is_some())
        {
            let ok = self.result.unwrap_or(false);
            self.finish(ok, out);
        }
    }

    fn finish(&mut self, ok: bool, out: &mut Vec<Step>) {
        self.over = true;
        out.push(Step::Done(ok));
    }

    fn start_request(&self) -> ClientMessage {
        match &self.mode {
            Mode::Daily(date) => ClientMessage::DailyStart { date: *date },
            Mode::Run => ClientMessage::RunStart,
            Mode::Challenge(code) => ClientMessage::ChallengeStart { code: code.clone() },
        }
    }

    fn server(&mut self, message: ServerMessage, out: &mut Vec<Step>) {
        match message {
            ServerMessage::Welcome { name, token, .. } => {
                out.push(Step::Save { name, token });
                self.down = None;
                // A daily or a challenge asked again resumes its clock; a
                // run is taken up with `run_resume` (a new `run_start`
                // would abandon it).
                if !self.started || (self.mode != Mode::Run && self.result.is_none()) {
                    self.started = true;
                    out.push(Step::Send(self.start_request()));
                } else if self.mode == Mode::Run && self.result.is_none() {
                    self.resuming = true;
                    out.push(Step::Send(ClientMessage::RunResume));
                }
            }
            ServerMessage::Daily {
                number,
                date,
                objective,
                cards,
                elapsed_ms,
                rated,
            } => {
                let kind = if rated {
                    "today's, rated"
                } else {
                    "from the archive, unrated"
                };
                say(out, format!("Krypto #{number}, {date} ({kind})"));
                self.deal(
                    objective,
                    cards,
                    Rules::Free,
                    0,
                    up(elapsed_ms, self.now),
                    out,
                );
            }
            ServerMessage::ChallengeHand {
                by,
                objective,
                cards,
                rules,
                elapsed_ms,
                to_beat,
                ..
            } => {
                say(
                    out,
                    format!("{by} challenges you. To beat: {}", timed(to_beat)),
                );
                self.deal(objective, cards, rules, 0, up(elapsed_ms, self.now), out);
            }
            ServerMessage::Run {
                hand,
                objective,
                cards,
                duration_ms,
                remaining_ms,
                score,
                ..
            } => {
                let line = if std::mem::take(&mut self.resuming) {
                    format!("Back in the run: score {score}, the clock kept running.")
                } else {
                    format!(
                        "A run: {} on the clock; the score is the hands you solve.",
                        clock_text(duration_ms)
                    )
                };
                say(out, line);
                let clock = Shown::Down {
                    ms: remaining_ms,
                    at: self.now,
                };
                self.deal(objective, cards, Rules::Free, hand, clock, out);
            }
            ServerMessage::RunHand {
                hand,
                objective,
                cards,
                remaining_ms,
                score,
                combo,
                bonus_ms,
            } => {
                let bonus = if bonus_ms > 0 {
                    format!(" (+{} s for the combo)", bonus_ms / 1000)
                } else {
                    String::new()
                };
                say(
                    out,
                    format!(
                        "Score {score} · combo {combo} · {} left{bonus}",
                        clock_text(remaining_ms)
                    ),
                );
                let clock = Shown::Down {
                    ms: remaining_ms,
                    at: self.now,
                };
                self.deal(objective, cards, Rules::Free, hand, clock, out);
            }
            ServerMessage::Verdict {
                accepted, error, ..
            } => self.verdict(accepted, error.map(|e| e.message), out),
            ServerMessage::DailySolved {
                number,
                elapsed_ms,
                misses,
                streak,
                rank,
                share,
                solutions,
            } => {
                self.hand = None;
                say(
                    out,
                    format!(
                        "Solved Krypto #{number} in {}",
                        timed(Timed { elapsed_ms, misses })
                    ),
                );
                let place = rank.map_or_else(
                    || "unrated (no streak, on no board)".to_owned(),
                    |r| format!("streak {streak} · place {r} on the day's board"),
                );
                say(out, place);
                solutions_lines(&solutions, out);
                say(out, "Share:".to_owned());
                for line in share_lines(&share) {
                    say(out, format!("  {line}"));
                }
                self.solved(out);
            }
            ServerMessage::RunOver {
                score,
                misses,
                best_combo,
                duration_ms,
            } => {
                let had_hand = self.hand.take().is_some();
                say(
                    out,
                    format!(
                        "Time! Score {score} · {} · best combo {best_combo} · {} played",
                        misses_text(misses),
                        clock_text(duration_ms)
                    ),
                );
                if score > 0 && had_hand {
                    self.solved(out);
                } else {
                    self.result = Some(true);
                    self.finish(true, out);
                }
            }
            ServerMessage::ChallengeResult {
                by,
                yours,
                theirs,
                outcome,
                ..
            } => {
                self.hand = None;
                for line in side_by_side(&by, yours, theirs, outcome) {
                    say(out, line);
                }
                self.solved(out);
            }
            ServerMessage::Challenge { code } if self.creating => {
                let code = code.as_str();
                say(
                    out,
                    format!(
                        "Challenge a friend: {}/c/{code}  (or: krypto challenge {code})",
                        self.base
                    ),
                );
                self.creating = false;
                self.finish(true, out);
            }
            ServerMessage::Error { code, message } => self.error(code, &message, out),
            _ => {}
        }
    }

    /// A hand is dealt: show it, then send what was typed early.
    fn deal(
        &mut self,
        objective: i64,
        cards: Vec<i64>,
        rules: Rules,
        number: u32,
        clock: Shown,
        out: &mut Vec<Step>,
    ) {
        let cards_text: Vec<String> = cards.iter().map(i64::to_string).collect();
        let label = if number > 0 {
            format!("Hand {number}: ")
        } else {
            String::new()
        };
        let rules_text = if rules == Rules::Free {
            String::new()
        } else {
            format!(" ({rules} rules)")
        };
        self.hand = Some(Hand {
            deal: Deal {
                objective,
                hand: cards,
            },
            rules,
            clock,
            number,
        });
        say(
            out,
            format!(
                "{label}make {objective} from {}{rules_text}",
                cards_text.join(" ")
            ),
        );
        if number <= 1 {
            say(
                out,
                format!(
                    "{}. Type a formula (Enter alone shows the clock; /quit to stop).",
                    self.clock_line()
                ),
            );
        }
        self.clock_printed = self.now;
        for line in std::mem::take(&mut self.early) {
            self.line(line, out);
        }
    }

    fn clock_line(&self) -> String {
        match self.hand.as_ref().map(|h| h.clock) {
            Some(Shown::Up { ms, at }) => {
                format!("Clock {}", clock_text(ms + millis(self.now - at)))
            }
            Some(Shown::Down { ms, at }) => format!(
                "{} left",
                clock_text(ms.saturating_sub(millis(self.now - at)))
            ),
            None => "No hand yet".to_owned(),
        }
    }

    fn line(&mut self, line: String, out: &mut Vec<Step>) {
        let text = line.trim();
        if matches!(text, "/quit" | "/q") {
            say(out, "Stopped.".to_owned());
            let ok = self.result.unwrap_or(true);
            self.finish(ok, out);
            return;
        }
        let Some(hand) = &self.hand else {
            if !text.is_empty() && self.result.is_none() && self.early.len() < UNJUDGED {
                self.early.push(text.to_owned());
            }
            return;
        };
        if text.is_empty() {
            say(out, self.clock_line());
            return;
        }
        if self.unjudged.len() >= UNJUDGED {
            say(
                out,
                "Wait for the verdicts of the formulas sent.".to_owned(),
            );
            return;
        }
        self.unjudged.push_back(text.to_owned());
        let formula = text.to_owned();
        out.push(Step::Send(match self.mode {
            Mode::Daily(_) => ClientMessage::DailySubmit { formula },
            Mode::Run => ClientMessage::RunSubmit {
                hand: hand.number,
                formula,
            },
            Mode::Challenge(_) => ClientMessage::ChallengeSubmit { formula },
        }));
    }

    fn verdict(&mut self, accepted: bool, why: Option<String>, out: &mut Vec<Step>) {
        let formula = self.unjudged.pop_front();
        if accepted {
            say(out, "✓ Right!".to_owned());
            return;
        }
        let why = why.unwrap_or_else(|| "not accepted".to_owned());
        let miss = match (&formula, &self.hand) {
            (Some(f), Some(h)) => matches!(judge(f, &h.deal, h.rules), Judgement::Wrong(_)),
            _ => false,
        };
        if !miss {
            say(out, format!("✗ {why} (not counted: try again)"));
            return;
        }
        if let Some(Hand {
            clock: Shown::Up { ms, .. },
            ..
        }) = &mut self.hand
        {
            *ms += PENALTY_MS;
        }
        let line = format!("✗ {why} (+{} s) · {}", PENALTY_MS / 1000, self.clock_line());
        say(out, line);
    }

    /// A hand is solved: ask for a challenge of it, to print its link.
    fn solved(&mut self, out: &mut Vec<Step>) {
        self.result = Some(true);
        self.creating = true;
        out.push(Step::Send(ClientMessage::ChallengeCreate { round: None }));
    }

    fn error(&mut self, code: ErrorCode, message: &str, out: &mut Vec<Step>) {
        say(out, format!("Error: {message}"));
        let fatal = matches!(
            code,
            ErrorCode::NoSuchDay | ErrorCode::ChallengeNotFound | ErrorCode::BadMessage
        ) && self.hand.is_none()
            && self.result.is_none();
        if std::mem::take(&mut self.resuming) && code == ErrorCode::WrongState {
            say(
                out,
                "The run could not be taken up again (a server keeps a run only where it started)."
                    .to_owned(),
            );
            self.finish(false, out);
        } else if self.creating {
            // No challenge link, but the result stands.
            self.creating = false;
            self.finish(true, out);
        } else if fatal {
            self.finish(false, out);
        } else if code == ErrorCode::WrongState && self.mode == Mode::Run {
            // The run ended while the answer was on its way; `run_over` follows.
            self.unjudged.pop_front();
        } else if matches!(code, ErrorCode::WrongRound | ErrorCode::RateLimited) {
            self.unjudged.pop_front();
        }
    }

    fn tick(&mut self, now: Duration, out: &mut Vec<Step>) {
        self.now = now;
        if self.hand.is_some() && now.saturating_sub(self.clock_printed) >= CLOCK_EVERY {
            self.clock_printed = now;
            say(out, self.clock_line());
        }
    }
}

/// Most solutions listed after a hand; a server that sends more gets a
/// count of the rest.
pub const MAX_SOLUTIONS_SHOWN: usize = 500;

/// Longest solution printed, in characters (a formula is never longer).
const MAX_FORMULA_SHOWN: usize = krypto_core::formula::MAX_LEN;

pub(super) fn say(out: &mut Vec<Step>, line: String) {
    out.push(Step::Print(line));
}

/// `text` cut to `max` characters (with `…` when cut): what a server sends
/// is printed at a bounded length.
pub fn bounded(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_owned(),
    }
}

fn up(ms: u64, at: Duration) -> Shown {
    Shown::Up { ms, at }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// `1 miss`, `2 misses`, `no misses`.
pub fn misses_text(misses: u32) -> String {
    match misses {
        0 => "no misses".to_owned(),
        1 => "1 miss".to_owned(),
        n => format!("{n} misses"),
    }
}

/// `0:42 · 1 miss`.
pub fn timed(t: Timed) -> String {
    format!("{} · {}", clock_text(t.elapsed_ms), misses_text(t.misses))
}

/// The share line as lines: the server sends the link on a line of its
/// own, which cleaning the message turned into a space.
pub fn share_lines(share: &str) -> Vec<String> {
    let split = ["https://", "http://"]
        .iter()
        .filter_map(|s| share.find(s))
        .min();
    match split {
        Some(i) if i > 0 => vec![share[..i].trim().to_owned(), share[i..].trim().to_owned()],
        _ => vec![share.trim().to_owned()],
    }
}

/// `N distinct solutions (› yours):` and one a line, at most
/// [`MAX_SOLUTIONS_SHOWN`] of them.
pub(super) fn solutions_lines(solutions: &[SolutionEntry], out: &mut Vec<Step>) {
    let n = solutions.len();
    let noun = if n == 1 { "solution" } else { "solutions" };
    say(out, format!("{n} distinct {noun} (› yours):"));
    for s in solutions.iter().take(MAX_SOLUTIONS_SHOWN) {
        let mark = if s.yours { "›" } else { " " };
        say(
            out,
            format!(" {mark} {}", bounded(&s.formula, MAX_FORMULA_SHOWN)),
        );
    }
    if n > MAX_SOLUTIONS_SHOWN {
        say(out, format!("   … and {} more", n - MAX_SOLUTIONS_SHOWN));
    }
}

/// Both results of a challenge, side by side, and who won.
pub fn side_by_side(
    by: &str,
    yours: Timed,
    theirs: Timed,
    outcome: ChallengeOutcome,
) -> Vec<String> {
    let verdict = match outcome {
        ChallengeOutcome::Won => format!("You beat {by}!"),
        ChallengeOutcome::Lost => format!("{by} wins this one."),
        ChallengeOutcome::Tied => "A tie, to the millisecond.".to_owned(),
    };
    vec![
        format!("{:<8} {:>10} {:>10}", "", "You", by),
        format!(
            "{:<8} {:>10} {:>10}",
            "time",
            clock_text(yours.elapsed_ms),
            clock_text(theirs.elapsed_ms)
        ),
        format!("{:<8} {:>10} {:>10}", "misses", yours.misses, theirs.misses),
        verdict,
    ]
}

#[cfg(test)]
#[path = "session_tests.rs"]
mod tests;
