//! The words of the feed: the lines each server message becomes, kept
//! apart from what it changes (`reducer.rs`) so the room's `recent` events,
//! replayed after a resume, read exactly like the live ones without
//! changing anything.
//!
//! Every string in here came from the network and has already been cleaned
//! of control characters by the connection task (see `untrusted.rs`).

use krypto_core::protocol::{DeviceInfo, LeaveReason, RoundWin, ServerMessage};

use super::app::{App, FeedKind};
use super::wording::{
    join_cards, kind_words, metric_value, phase_name, plural, rating_change, refusal, secs,
    time_taken, UNRATED_WHY,
};

/// Most devices a listing keeps and shows (the server keeps ten by
/// default; a hostile one cannot flood the feed).
pub(super) const MAX_DEVICES: usize = 64;

impl App {
    /// The feed lines a message becomes (none for most replies).
    pub(super) fn describe(&self, message: &ServerMessage) -> Vec<(FeedKind, String)> {
        let one = |kind, text: String| vec![(kind, text)];
        match message {
            ServerMessage::Welcome { name, resumed, .. } => {
                if *resumed {
                    Vec::new()
                } else {
                    one(
                        FeedKind::Event,
                        format!("connected to {} as {name}", self.server),
                    )
                }
            }
            ServerMessage::Rooms { rooms, next } => {
                if rooms.is_empty() {
                    return one(FeedKind::State, "no public rooms".to_owned());
                }
                let mut lines = vec![(FeedKind::State, "public rooms:".to_owned())];
                lines.extend(rooms.iter().map(|r| {
                    (
                        FeedKind::State,
                        format!(
                            "  {}  host {}  {}/{}  {}",
                            r.code,
                            r.host,
                            r.players,
                            r.max_players,
                            phase_name(r.state)
                        ),
                    )
                }));
                if next.is_some() {
                    let more = "  more: /rooms more (n in the lobby)".to_owned();
                    lines.push((FeedKind::State, more));
                }
                lines
            }
            ServerMessage::MatchStarted { rounds_total, .. } => one(
                FeedKind::Event,
                format!(
                    "match started: {rounds_total} round{}",
                    plural((*rounds_total).into())
                ),
            ),
            ServerMessage::RoundStarted {
                round,
                objective,
                cards,
                duration_ms,
            } => one(
                FeedKind::Event,
                format!(
                    "round {round}: make {objective} from {} ({})",
                    join_cards(cards),
                    secs((*duration_ms).into())
                ),
            ),
            ServerMessage::Verdict {
                round,
                accepted,
                error,
                locked_out_ms,
                ..
            } => {
                if *accepted {
                    return one(FeedKind::Event, format!("round {round}: correct!"));
                }
                let mut t = match error {
                    Some(e) => format!("wrong ({}): {}", kind_words(e.kind), e.message),
                    None => "wrong".to_owned(),
                };
                if let Some(ms) = locked_out_ms.filter(|ms| *ms > 0) {
                    t.push_str(&format!("; locked out for {}", secs(ms.into())));
                }
                one(FeedKind::Error, t)
            }
            ServerMessage::AttemptFailed { player, .. } if Some(*player) != self.me => one(
                FeedKind::Event,
                format!("{} tried and missed", self.name_of(*player)),
            ),
            ServerMessage::AttemptFailed { .. } => Vec::new(),
            ServerMessage::Solved {
                round,
                player,
                elapsed_ms,
                points,
                ..
            } => one(
                FeedKind::Event,
                format!(
                    "round {round}: {} solved it in {} (+{points})",
                    if Some(*player) == self.me {
                        "you".to_owned()
                    } else {
                        self.name_of(*player)
                    },
                    time_taken((*elapsed_ms).into())
                ),
            ),
            ServerMessage::RoundWon {
                win:
                    RoundWin {
                        round,
                        winner,
                        formula,
                        no_solution,
                        elapsed_ms,
                        points,
                    },
                ..
            } => {
                let how = match (formula, no_solution) {
                    (_, true) | (None, _) => "a right \"no solution\" claim".to_owned(),
                    (Some(f), false) => f.clone(),
                };
                one(
                    FeedKind::Event,
                    format!(
                        "round {round} won by {} in {}: {how} (+{points})",
                        self.name_of(*winner),
                        time_taken((*elapsed_ms).into())
                    ),
                )
            }
            ServerMessage::RoundTimedOut {
                round,
                solution,
                solutions,
            } => one(
                FeedKind::Event,
                match solution {
                    Some(s) => format!(
                        "round {round}: time is up; one of {solutions} solution{}: {s}",
                        plural(*solutions)
                    ),
                    None => format!("round {round}: time is up; the hand had no solution"),
                },
            ),
            ServerMessage::MatchOver {
                standings,
                match_id,
            } => {
                let mut lines = vec![(FeedKind::Event, "match over:".to_owned())];
                for s in standings {
                    let rating = match (s.rating_before, s.rating_after) {
                        (Some(b), Some(a)) => {
                            format!("  rating {}", rating_change(b, a, s.rating_provisional))
                        }
                        _ => "  unrated".to_owned(),
                    };
                    lines.push((
                        FeedKind::Event,
                        format!(
                            "  {}. {}  {} point{}{rating}",
                            s.rank,
                            s.name,
                            s.score,
                            plural(s.score.unsigned_abs())
                        ),
                    ));
                }
                if standings.iter().any(|s| s.rating_after.is_none()) {
                    lines.push((FeedKind::Event, format!("  ({UNRATED_WHY})")));
                }
                if let Some(id) = match_id {
                    lines.push((FeedKind::Event, format!("  recap: krypto match {id}")));
                }
                lines
            }
            ServerMessage::Chat { name, text, .. } => {
                one(FeedKind::Chat, format!("[chat] {name}: {text}"))
            }
            ServerMessage::Reaction {
                player,
                name,
                emoji,
            } => {
                let who = if Some(*player) == self.me {
                    "you"
                } else {
                    name
                };
                one(FeedKind::Chat, format!("{who} {emoji}"))
            }
            ServerMessage::ReadyCheck { ms, .. } => {
                let when = format!(
                    "it starts when everyone is ready, or in {} s",
                    ms.div_ceil(1000)
                );
                let text = if self.is_spectator() {
                    format!("rematch: {when}")
                } else {
                    format!("rematch: ready? press r (or /ready); {when}")
                };
                one(FeedKind::Event, text)
            }
            ServerMessage::PlayerReady { player } if Some(*player) == self.me => {
                one(FeedKind::Event, "you are ready".to_owned())
            }
            ServerMessage::PlayerReady { player } => one(
                FeedKind::Event,
                format!("{} is ready", self.name_of(*player)),
            ),
            ServerMessage::PlayerJoined {
                name,
                spectator,
                bot,
                ..
            } => {
                let what = match (spectator, bot) {
                    (true, _) => " to watch",
                    (false, true) if App::bot_mark_needed(name) => " (a bot)",
                    (false, _) => "",
                };
                one(FeedKind::Event, format!("{name} joined{what}"))
            }
            ServerMessage::PlayerLeft {
                player,
                name,
                reason,
            } => {
                if Some(*player) == self.me {
                    let text = match reason {
                        LeaveReason::Kicked => "you were removed from the room by the host",
                        LeaveReason::TimedOut => "you lost your seat (away too long)",
                        LeaveReason::Left => "you left the room",
                    };
                    return one(FeedKind::Event, text.to_owned());
                }
                let why = match reason {
                    LeaveReason::Left => "left",
                    LeaveReason::Kicked => "was removed by the host",
                    LeaveReason::TimedOut => "lost their seat (away too long)",
                };
                one(FeedKind::Event, format!("{name} {why}"))
            }
            ServerMessage::Leaderboard {
                metric,
                period,
                rows,
            } => {
                let head = format!("leaderboard {}, {}:", metric, period);
                if rows.is_empty() {
                    return one(FeedKind::State, format!("{head} no rows yet"));
                }
                let mut lines = vec![(FeedKind::State, head)];
                lines.extend(rows.iter().map(|r| {
                    (
                        FeedKind::State,
                        format!(
                            "  {}. {}  {}  ({} match{})",
                            r.rank,
                            r.name,
                            metric_value(*metric, r.value),
                            r.matches,
                            if r.matches == 1 { "" } else { "es" }
                        ),
                    )
                }));
                lines
            }
            ServerMessage::Devices { devices } => devices_lines(devices),
            ServerMessage::DeviceAdded { device } => one(
                FeedKind::Event,
                format!(
                    "a new device signed in as you: {}. Not you? /devices, then /revoke N",
                    device.label
                ),
            ),
            ServerMessage::Error { code, message } => {
                one(FeedKind::Refusal, refusal(*code, message))
            }
            // A redirect's line depends on whether it is followed.
            // A device code is only asked for by the browser.
            ServerMessage::RoomState(_)
            | ServerMessage::Pong
            | ServerMessage::Redirect { .. }
            | ServerMessage::DeviceCode { .. } => Vec::new(),
            // The daily, runs and challenges have commands of their own
            // (`krypto daily`, `krypto run`, `krypto challenge`), practice
            // the browser's page; a room's screen never asks for them.
            ServerMessage::Daily { .. }
            | ServerMessage::DailySolved { .. }
            | ServerMessage::Run { .. }
            | ServerMessage::RunHand { .. }
            | ServerMessage::RunOver { .. }
            | ServerMessage::ChallengeHand { .. }
            | ServerMessage::ChallengeResult { .. }
            | ServerMessage::Practice { .. }
            | ServerMessage::PracticeHint { .. }
            | ServerMessage::PracticeSolutions { .. } => Vec::new(),
            // Asked for by `/challenge` after a round this player solved.
            ServerMessage::Challenge { code } => vec![(
                FeedKind::Event,
                format!(
                    "Challenge a friend: {}/c/{code} in a browser, or krypto challenge {code}",
                    self.friends_base()
                ),
            )],
        }
    }

    /// The HTTP base a friend can reach: the server's first LAN address,
    /// else the address this client used (`http://192.168.1.20:7878`).
    pub(super) fn friends_base(&self) -> String {
        self.join_urls
            .first()
            .cloned()
            .or_else(|| super::config::http_base(&self.server).ok())
            .unwrap_or_default()
            .trim_end_matches('/')
            .to_owned()
    }

    /// Whether a bot's name needs the roster's "bot" mark: the server's
    /// own bots are named "Ada (easy bot)" (parentheses no person's name
    /// may hold), and "Ada (easy bot) (bot)" says it twice.
    pub(super) fn bot_mark_needed(name: &str) -> bool {
        !name.ends_with(" bot)")
    }
}

/// The `/devices` listing: one numbered line a device, for `/revoke N`.
fn devices_lines(devices: &[DeviceInfo]) -> Vec<(FeedKind, String)> {
    let mut lines = vec![(FeedKind::State, "your devices:".to_owned())];
    lines.extend(devices.iter().take(MAX_DEVICES).zip(1..).map(|(d, n)| {
        let this = if d.this_device { "  (this one)" } else { "" };
        (
            FeedKind::State,
            format!(
                "  {n}. {}  added {}  last used {}{this}",
                d.label,
                day(d.created_ms),
                day(d.last_used_ms)
            ),
        )
    }));
    lines.push((FeedKind::State, "revoke one with /revoke N".to_owned()));
    lines
}

/// A Unix time in milliseconds as its UTC day.
fn day(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .map_or_else(|| "?".to_owned(), |t| t.format("%Y-%m-%d").to_string())
}
