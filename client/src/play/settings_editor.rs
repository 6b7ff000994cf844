//! The host's settings editor: which setting is selected, the presets each
//! one steps through, and the presses not yet confirmed by the server.
//!
//! Presses accumulate locally: three quick → on "rounds" go 10 → 15 → 20 →
//! 30 even before the server has answered the first, because each press
//! steps from the value the player last saw, not from the last one the
//! server confirmed. Once the server's settings have caught up (or every
//! request has been answered), the server's values are shown again.

use krypto_core::protocol::{DealMode, Difficulty, RoomSettings, SettingsPatch, Variant};
use krypto_core::Rules;

/// One line of the editor, in the editor's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// Krypto or 24.
    Variant,
    /// Which intermediate results are allowed.
    Rules,
    /// Rounds in a match.
    Rounds,
    /// Points that end the match early (or none).
    TargetScore,
    /// A round's length.
    RoundSeconds,
    /// How long a wrong answer locks its player out.
    LockoutSeconds,
    /// Points lost for a wrong answer.
    WrongPenalty,
    /// Only solvable hands, or any.
    Deal,
    /// How hard the dealt hands are.
    Difficulty,
    /// Seats.
    MaxPlayers,
    /// Listed in the lobby.
    Public,
}

impl Field {
    /// Every field, in the editor's order.
    pub const ALL: [Field; 11] = [
        Field::Variant,
        Field::Rules,
        Field::Rounds,
        Field::TargetScore,
        Field::RoundSeconds,
        Field::LockoutSeconds,
        Field::WrongPenalty,
        Field::Deal,
        Field::Difficulty,
        Field::MaxPlayers,
        Field::Public,
    ];

    /// The setting's wire name (also the key of `/set key=value`).
    pub fn key(self) -> &'static str {
        match self {
            Field::Variant => "variant",
            Field::Rules => "rules",
            Field::Rounds => "rounds",
            Field::TargetScore => "target_score",
            Field::RoundSeconds => "round_seconds",
            Field::LockoutSeconds => "lockout_seconds",
            Field::WrongPenalty => "wrong_penalty",
            Field::Deal => "deal",
            Field::Difficulty => "difficulty",
            Field::MaxPlayers => "max_players",
            Field::Public => "public",
        }
    }

    /// The field a key names.
    pub fn from_key(key: &str) -> Option<Field> {
        Field::ALL.into_iter().find(|f| f.key() == key)
    }

    /// The field's value in `s`, as the editor shows it.
    pub fn show(self, s: &RoomSettings) -> String {
        match self {
            Field::Variant => match s.variant {
                Variant::Krypto => "krypto".into(),
                Variant::TwentyFour => "24".into(),
            },
            Field::Rules => s.rules.name().to_owned(),
            Field::Rounds => s.rounds.to_string(),
            Field::TargetScore => s
                .target_score
                .map_or_else(|| "none".to_owned(), |t| t.to_string()),
            Field::RoundSeconds => format!("{} s", s.round_seconds),
            Field::LockoutSeconds => format!("{} s", s.lockout_seconds),
            Field::WrongPenalty => s.wrong_penalty.to_string(),
            Field::Deal => match s.deal {
                DealMode::Solvable => "solvable".into(),
                DealMode::Any => "any".into(),
            },
            Field::Difficulty => format!("{:?}", s.difficulty).to_lowercase(),
            Field::MaxPlayers => s.max_players.to_string(),
            Field::Public => if s.public { "yes" } else { "no" }.into(),
        }
    }

    /// The patch that moves this field one step forward or back from `s`,
    /// and `s` with that step applied.
    pub fn step(self, s: &RoomSettings, forward: bool) -> (SettingsPatch, RoomSettings) {
        let mut p = SettingsPatch::default();
        let mut next = s.clone();
        match self {
            Field::Variant => {
                next.variant = cycle(&[Variant::Krypto, Variant::TwentyFour], s.variant, forward);
                p.variant = Some(next.variant);
            }
            Field::Rules => {
                let all = [Rules::Free, Rules::Integer, Rules::International];
                next.rules = cycle(&all, s.rules, forward);
                p.rules = Some(next.rules);
            }
            Field::Rounds => {
                next.rounds = step_in(&[1, 3, 5, 10, 15, 20, 30, 50], s.rounds, forward);
                p.rounds = Some(next.rounds);
            }
            Field::TargetScore => {
                let presets = [5i64, 10, 15, 20, 30, 50];
                next.target_score = match (s.target_score, forward) {
                    (None, true) => Some(presets[0]),
                    (None, false) => None,
                    (Some(t), true) => presets.iter().copied().find(|x| *x > t).or(Some(t)),
                    (Some(t), false) => presets.iter().rev().copied().find(|x| *x < t),
                };
                p.target_score = Some(next.target_score);
            }
            Field::RoundSeconds => {
                let presets = [10, 20, 30, 45, 60, 90, 120, 180, 300, 600];
                next.round_seconds = step_in(&presets, s.round_seconds, forward);
                p.round_seconds = Some(next.round_seconds);
            }
            Field::LockoutSeconds => {
                let presets = [0, 2, 3, 5, 10, 15, 30, 60];
                next.lockout_seconds = step_in(&presets, s.lockout_seconds, forward);
                p.lockout_seconds = Some(next.lockout_seconds);
            }
            Field::WrongPenalty => {
                let presets: Vec<u32> = (0..=10).collect();
                next.wrong_penalty = step_in(&presets, s.wrong_penalty, forward);
                p.wrong_penalty = Some(next.wrong_penalty);
            }
            Field::Deal => {
                next.deal = cycle(&[DealMode::Solvable, DealMode::Any], s.deal, forward);
                p.deal = Some(next.deal);
            }
            Field::Difficulty => {
                let all = [
                    Difficulty::Any,
                    Difficulty::Easy,
                    Difficulty::Medium,
                    Difficulty::Hard,
                ];
                next.difficulty = cycle(&all, s.difficulty, forward);
                p.difficulty = Some(next.difficulty);
            }
            Field::MaxPlayers => {
                let presets: Vec<u32> = (2..=32).collect();
                next.max_players = step_in(&presets, s.max_players, forward);
                p.max_players = Some(next.max_players);
            }
            Field::Public => {
                next.public = !s.public;
                p.public = Some(next.public);
            }
        }
        (p, next)
    }
}

fn step_in(presets: &[u32], v: u32, forward: bool) -> u32 {
    if forward {
        presets.iter().copied().find(|p| *p > v).unwrap_or(v)
    } else {
        presets.iter().rev().copied().find(|p| *p < v).unwrap_or(v)
    }
}

fn cycle<T: PartialEq + Copy>(all: &[T], v: T, forward: bool) -> T {
    let n = all.len();
    let i = all.iter().position(|x| *x == v).unwrap_or(0);
    all[if forward {
        (i + 1) % n
    } else {
        (i + n - 1) % n
    }]
}

/// The editor's state.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SettingsEditor {
    /// The selected line, an index into [`Field::ALL`].
    cursor: usize,
    /// The settings as the host's presses left them, until the server's
    /// settings catch up.
    local: Option<RoomSettings>,
    /// Changes sent and not yet answered (by a snapshot or a refusal).
    in_flight: u32,
}

impl SettingsEditor {
    /// The selected field.
    pub fn field(&self) -> Field {
        Field::ALL[self.cursor.min(Field::ALL.len() - 1)]
    }

    /// Moves the selection up or down.
    pub fn move_cursor(&mut self, down: bool) {
        self.cursor = if down {
            (self.cursor + 1).min(Field::ALL.len() - 1)
        } else {
            self.cursor.saturating_sub(1)
        };
    }

    /// What the editor shows: the local presses, else the server's.
    pub fn shown<'a>(&'a self, server: &'a RoomSettings) -> &'a RoomSettings {
        self.local.as_ref().unwrap_or(server)
    }

    /// One press on the selected field: returns the change to send.
    pub fn press(&mut self, server: &RoomSettings, forward: bool) -> SettingsPatch {
        let (patch, next) = self.field().step(self.shown(server), forward);
        self.local = Some(next);
        self.in_flight += 1;
        patch
    }

    /// The server's settings arrived (a snapshot after a change): once they
    /// match the local presses, or every change has been answered, the
    /// server's values are the truth again.
    pub fn reconcile(&mut self, server: &RoomSettings) {
        self.in_flight = self.in_flight.saturating_sub(1);
        if self.local.as_ref() == Some(server) || self.in_flight == 0 {
            self.local = None;
            self.in_flight = 0;
        }
    }

    /// The server refused a change: what it shows now is the truth.
    pub fn refused(&mut self) {
        if self.in_flight > 0 {
            self.local = None;
            self.in_flight = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_field_has_a_key_and_back_again() {
        for f in Field::ALL {
            assert_eq!(Field::from_key(f.key()), Some(f));
        }
    }

    #[test]
    fn quick_presses_accumulate_before_the_server_answers() {
        let server = RoomSettings::default();
        let mut editor = SettingsEditor::default();
        editor.move_cursor(true);
        editor.move_cursor(true);
        assert_eq!(editor.field(), Field::Rounds);
        let sent: Vec<Option<u32>> = (0..3).map(|_| editor.press(&server, true).rounds).collect();
        assert_eq!(sent, [Some(15), Some(20), Some(30)]);
        assert_eq!(editor.shown(&server).rounds, 30);
        // The server confirms the first two: the local value stays.
        let mut confirmed = server.clone();
        confirmed.rounds = 15;
        editor.reconcile(&confirmed);
        assert_eq!(editor.shown(&confirmed).rounds, 30);
        confirmed.rounds = 20;
        editor.reconcile(&confirmed);
        assert_eq!(editor.shown(&confirmed).rounds, 30);
        // The last one lands: the server's value is shown again.
        confirmed.rounds = 30;
        editor.reconcile(&confirmed);
        assert_eq!(editor.local, None);
        // A refusal gives up the local value at once.
        editor.press(&confirmed, true);
        editor.refused();
        assert_eq!(editor.shown(&confirmed).rounds, 30);
    }
}
