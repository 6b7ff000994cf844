//! Typed lines: a `/command`, or a formula for the round. Shared by line
//! mode (every line of standard input) and the terminal UI's input field.
//!
//! A formula the local checker already knows is broken (its syntax, or
//! cards that are not the hand's) is not sent: it would only cost a lockout.
//! A complete formula over the hand with a wrong value is a real attempt and
//! is sent.

use krypto_core::bot_pace::BotSkill;
use krypto_core::formula::{self, ErrorKind};
use krypto_core::protocol::{ClientMessage, Metric, Period, PlayerId, MAX_CHAT_LEN, REACTIONS};
use krypto_core::settings::{Field, SettingsPatch};

use super::app::{Action, App, Confirm, FeedKind, SITTING_OUT};
use super::help;
use super::wording::secs;

impl App {
    /// A line of standard input (`--plain`, `--json`).
    pub(super) fn line(&mut self, line: &str) -> Vec<Action> {
        let line = line.trim();
        if line.is_empty() {
            return Vec::new();
        }
        if line.starts_with('/') {
            return self.command(line, false);
        }
        self.submit(line)
    }

    /// Submits `text` to the current round, unless there is none, we are
    /// locked out, or it is not a formula over the hand (then says why).
    pub(super) fn submit(&mut self, text: &str) -> Vec<Action> {
        if self.is_spectator() {
            self.error("spectators cannot answer (use /chat to talk)");
            return Vec::new();
        }
        let text = as_formula(text);
        if text.chars().any(char::is_alphabetic) {
            self.error(
                "that is not a formula (it has letters): commands start with /, \
                 e.g. /chat hello; /help lists them",
            );
            return Vec::new();
        }
        let Some(round) = self.live_round() else {
            if self.in_match() {
                self.error("the next hand is not dealt yet");
            } else {
                self.error("no round is being played; type /help for commands");
            }
            return Vec::new();
        };
        if self.sitting_out() {
            self.error(SITTING_OUT);
            return Vec::new();
        }
        if let Some(until) = round.locked_until.filter(|u| *u > self.now) {
            let left = self.left(until);
            self.error(format!("locked out for {} more", secs(left.as_millis())));
            return Vec::new();
        }
        let number = round.number;
        if let Err(e) = formula::check(&text, &round.cards, round.objective, self.rules()) {
            if knowably_broken(e.kind) {
                let at = e
                    .column
                    .map_or(String::new(), |c| format!(" at column {c}"));
                self.error(format!("not sent{at}: {}", e.message));
                return Vec::new();
            }
        }
        vec![Action::Send(ClientMessage::Submit {
            round: number,
            formula: text,
        })]
    }

    /// Runs one `/command`. With `ask` (the terminal UI), leaving or quitting
    /// a match waits for a confirmation and `/help` opens the overlay; line
    /// mode acts at once and prints its own help.
    pub(super) fn command(&mut self, line: &str, ask: bool) -> Vec<Action> {
        let body = line.trim().trim_start_matches('/');
        let (cmd, rest) = match body.split_once(char::is_whitespace) {
            Some((c, r)) => (c, r.trim()),
            None => (body, ""),
        };
        let send = |m| vec![Action::Send(m)];
        match cmd.to_ascii_lowercase().as_str() {
            "quit" | "exit" | "q" if ask => self.ask(Confirm::Quit),
            "quit" | "exit" | "q" => vec![Action::Quit],
            "help" | "?" if ask => {
                self.help = true;
                Vec::new()
            }
            "help" | "?" => {
                for l in help::plain_lines() {
                    self.push(FeedKind::State, l);
                }
                Vec::new()
            }
            "rooms" => match rest.to_ascii_lowercase().as_str() {
                "" => vec![self.list_rooms()],
                "more" => self.more_rooms(),
                other => {
                    self.error(format!("/rooms takes \"more\" or nothing, not {other:?}"));
                    Vec::new()
                }
            },
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
            "leave" if ask => self.ask(Confirm::Leave),
            "leave" => send(ClientMessage::LeaveRoom),
            "set" => match parse_patch(rest) {
                Ok(settings) => send(ClientMessage::UpdateSettings { settings }),
                Err(e) => {
                    self.error(e);
                    Vec::new()
                }
            },
            "chat" | "say" => self.chat(rest),
            "react" => self.react(rest),
            "ready" => self.ready(),
            "nosolution" | "no-solution" | "none" => {
                if self.room.is_some() && !self.no_solution_possible() {
                    self.error(
                        "this room deals only solvable hands: every hand has a solution \
                         (the host can set deal=any)",
                    );
                    return Vec::new();
                }
                match self.live_round() {
                    Some(r) => send(ClientMessage::ClaimNoSolution { round: r.number }),
                    None => {
                        self.error("no round is being played");
                        Vec::new()
                    }
                }
            }
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
            "bot" | "bots" => self.bot(rest),
            "challenge" => match self.room.as_ref().and_then(|r| r.round.as_ref()) {
                // The server sends only a round this player solved, with
                // its own record of the hand and the time.
                Some(r) if self.live_round().is_none() => send(ClientMessage::ChallengeCreate {
                    round: Some(r.number),
                }),
                _ => {
                    self.error("/challenge sends the round you just solved, once it is over");
                    Vec::new()
                }
            },
            "practice" | "daily" | "run" => {
                let cmd = cmd.to_ascii_lowercase();
                self.error(format!(
                    "{cmd} is a command of its own: krypto {cmd}, in another terminal; under \
                     this name it takes this connection over (then krypto play again brings \
                     you back), so give it another --name to keep both"
                ));
                Vec::new()
            }
            "devices" => send(ClientMessage::Devices),
            "revoke" => self.revoke(rest),
            "leaderboard" | "lb" => {
                let mut metric = None;
                let mut period = None;
                let mut around = None;
                for word in rest.split_whitespace() {
                    if let Ok(m) = word.parse::<Metric>() {
                        metric = Some(m);
                    } else if let Ok(p) = word.parse::<Period>() {
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

    /// A reaction: one of the room's emoji, by itself or by its number
    /// (`/react 2` is the second); with nothing, the list.
    pub(super) fn react(&mut self, what: &str) -> Vec<Action> {
        let list = || {
            REACTIONS
                .iter()
                .enumerate()
                .map(|(i, e)| format!("{} {e}", i + 1))
                .collect::<Vec<_>>()
                .join("  ")
        };
        if self.room.is_none() {
            self.error("reactions need a room: /create or /join CODE first");
            return Vec::new();
        }
        let by_number = what
            .parse::<usize>()
            .ok()
            .and_then(|n| n.checked_sub(1))
            .and_then(|i| REACTIONS.get(i));
        let emoji = by_number.or_else(|| REACTIONS.iter().find(|e| **e == what));
        match emoji {
            Some(e) => vec![Action::Send(ClientMessage::React {
                emoji: (*e).to_owned(),
            })],
            None => {
                self.error(format!("react with one of: {}", list()));
                Vec::new()
            }
        }
    }

    /// `/bot add [easy|medium|hard]` (medium when unsaid): the host seats
    /// one of the server's bots; `/bot remove NAME` takes one out.
    pub(super) fn bot(&mut self, what: &str) -> Vec<Action> {
        const USAGE: &str = "usage: /bot add [easy|medium|hard] or /bot remove [NAME]";
        let (verb, rest) = match what.split_once(char::is_whitespace) {
            Some((v, r)) => (v, r.trim()),
            None => (what, ""),
        };
        if self.room.is_none() {
            self.error("bots join a room: /create one first");
            return Vec::new();
        }
        match verb.to_ascii_lowercase().as_str() {
            "add" => {
                let skill = if rest.is_empty() {
                    Ok(BotSkill::Medium)
                } else {
                    rest.parse::<BotSkill>()
                };
                match skill {
                    Ok(skill) => vec![Action::Send(ClientMessage::AddBot { skill })],
                    Err(_) => {
                        self.error(format!("a bot is easy, medium or hard, not {rest:?}"));
                        Vec::new()
                    }
                }
            }
            "remove" | "rm" => {
                let players = self.room.as_ref().map_or(&[][..], |r| &r.snapshot.players);
                let exact = players
                    .iter()
                    .find(|p| !rest.is_empty() && p.name.eq_ignore_ascii_case(rest))
                    .map(|p| (p.id, p.bot));
                // The server's bots are "Ada (easy bot)": "Ada" names one
                // too, and with one bot in the room no name is needed.
                let bots: Vec<(PlayerId, String)> = players
                    .iter()
                    .filter(|p| p.bot)
                    .filter(|p| {
                        rest.is_empty()
                            || p.name
                                .split(" (")
                                .next()
                                .is_some_and(|base| base.eq_ignore_ascii_case(rest))
                    })
                    .map(|p| (p.id, p.name.clone()))
                    .collect();
                let alone = match bots.as_slice() {
                    [(id, _)] => Some((*id, true)),
                    _ => None,
                };
                let found = exact.or(alone);
                match found {
                    Some((player, true)) => vec![Action::Send(ClientMessage::RemoveBot { player })],
                    Some((_, false)) => {
                        self.error(format!(
                            "{rest} is not a bot (the host removes people with /kick)"
                        ));
                        Vec::new()
                    }
                    None if bots.len() > 1 => {
                        let names: Vec<&str> = bots.iter().map(|(_, n)| n.as_str()).collect();
                        self.error(format!(
                            "which bot? /bot remove NAME, one of: {}",
                            names.join(", ")
                        ));
                        Vec::new()
                    }
                    None => {
                        self.error(format!("no bot called {rest:?} is in the room"));
                        Vec::new()
                    }
                }
            }
            _ => {
                self.error(USAGE);
                Vec::new()
            }
        }
    }

    /// `/revoke N`: the Nth device of the last `/devices` listing.
    pub(super) fn revoke(&mut self, what: &str) -> Vec<Action> {
        let device = what
            .parse::<usize>()
            .ok()
            .and_then(|n| n.checked_sub(1))
            .and_then(|i| self.devices.get(i));
        match device {
            Some(d) => vec![Action::Send(ClientMessage::RevokeDevice {
                device: d.id.clone(),
            })],
            None if self.devices.is_empty() => {
                self.error("list your devices with /devices first, then /revoke N");
                Vec::new()
            }
            None => {
                self.error(format!(
                    "/revoke takes a number from 1 to {} (see /devices)",
                    self.devices.len()
                ));
                Vec::new()
            }
        }
    }

    /// "Ready" for the rematch the host asked for.
    pub(super) fn ready(&mut self) -> Vec<Action> {
        if self.ready_asked() {
            return vec![Action::Send(ClientMessage::Ready)];
        }
        let open = self.room.as_ref().is_some_and(|r| r.ready_check.is_some());
        if open && self.is_spectator() {
            self.error("spectators watch the rematch: only players say they are ready");
        } else if open {
            self.error("you are ready already; the match starts soon");
        } else {
            self.error("nobody asked: the host starts a rematch with /start");
        }
        Vec::new()
    }

    pub(super) fn chat(&mut self, text: &str) -> Vec<Action> {
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
}

/// Checker refusals that do not depend on the value: the text is not a
/// formula, or not one over this hand. Sending them would only lock us out.
fn knowably_broken(kind: ErrorKind) -> bool {
    matches!(
        kind,
        ErrorKind::Syntax
            | ErrorKind::TooLong
            | ErrorKind::TooDeep
            | ErrorKind::UnknownCard
            | ErrorKind::CardReused
            | ErrorKind::CardUnused
    )
}

/// A typed formula with the client's shorthands: `x` for × (easier to type),
/// `:` for ÷.
pub fn as_formula(text: &str) -> String {
    text.trim()
        .chars()
        .map(|c| match c {
            'x' | 'X' => '*',
            ':' => '/',
            other => other,
        })
        .collect()
}

/// Builds a settings patch from `key=value` words (`/set rounds=5 public=yes
/// target_score=none`): the keys are the settings' wire names and the values
/// are read as krypto-core reads them ([`SettingsPatch::set`]).
pub fn parse_patch(text: &str) -> Result<SettingsPatch, String> {
    let keys = || {
        Field::ALL
            .iter()
            .map(|f| f.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut patch = SettingsPatch::default();
    let mut any = false;
    for word in text.split_whitespace() {
        let Some((k, v)) = word.split_once('=') else {
            return Err(format!("usage: /set key=value ... (keys: {})", keys()));
        };
        let key = k.trim();
        let Ok(field) = key.parse::<Field>() else {
            return Err(format!("unknown setting {key:?} (keys: {})", keys()));
        };
        patch.set(field, v).map_err(|e| e.to_string())?;
        any = true;
    }
    if !any {
        return Err("usage: /set key=value ...".to_owned());
    }
    Ok(patch)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_reads_values_as_core_does_and_names_the_bad_one() {
        let patch = parse_patch(
            "Rounds=5 rules=Integer deal=any target_score=none public=no scoring=everyone",
        );
        assert_eq!(
            patch,
            Ok(SettingsPatch {
                rounds: Some(5),
                rules: Some(krypto_core::Rules::Integer),
                deal: Some(krypto_core::settings::DealMode::Any),
                target_score: Some(None),
                public: Some(false),
                scoring: Some(krypto_core::settings::Scoring::Everyone),
                ..SettingsPatch::default()
            })
        );
        let err = parse_patch("rounds=lots").err().unwrap_or_default();
        assert!(
            err.contains("rounds") && err.contains("whole number"),
            "{err}"
        );
        let err = parse_patch("colour=blue").err().unwrap_or_default();
        assert!(err.contains("round_seconds"), "{err}");
        let err = parse_patch("scoring=fastest").err().unwrap_or_default();
        assert!(err.contains("scoring"), "{err}");
        assert!(parse_patch("").is_err());
    }
}
