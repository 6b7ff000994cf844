//! The terminal UI's key map, screen by screen.
//!
//! Order matters and is the point of this file: a pending question ("leave
//! the match?") takes the next key, then the overlays (help, leaderboard),
//! which Esc always closes, then the text field, then the screen's
//! shortcuts. A seated player in a match is always typing a formula, so
//! letters typed between rounds (`3 x 4`) stay in the field and never leave
//! or quit.

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use krypto_core::protocol::{ClientMessage, Metric, Period, MAX_CHAT_LEN};
use krypto_core::settings::Step;

use super::app::{Action, App, Confirm, InputMode, Screen};

impl App {
    pub(super) fn key(&mut self, key: KeyEvent) -> Vec<Action> {
        if key.kind == KeyEventKind::Release {
            return Vec::new();
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        if ctrl && matches!(key.code, KeyCode::Char('c') | KeyCode::Char('d')) {
            // A second Ctrl-C is the "yes".
            if self.confirm.take() == Some(Confirm::Quit) {
                return vec![Action::Quit];
            }
            return self.ask(Confirm::Quit);
        }
        if let Some(what) = self.confirm.take() {
            return match key.code {
                KeyCode::Char('y') | KeyCode::Char('Y') => self.confirmed(what),
                _ => Vec::new(),
            };
        }
        if key.code == KeyCode::F(1) {
            self.help = !self.help;
            return Vec::new();
        }
        // A reaction on every screen, a round too: Alt-1 to Alt-6.
        if let (true, KeyCode::Char(c @ '1'..='6')) =
            (key.modifiers.contains(KeyModifiers::ALT), key.code)
        {
            if self.room.is_some() {
                return self.react(&c.to_string());
            }
        }
        // The board on every screen, a round too, where `l` is text.
        if key.code == KeyCode::F(2) {
            self.help = false;
            self.show_qr = false;
            if self.show_board {
                self.show_board = false;
                return Vec::new();
            }
            return self.open_board();
        }
        if self.help || self.show_qr {
            // Any key closes an overlay (and is not typed anywhere).
            self.help = false;
            self.show_qr = false;
            return Vec::new();
        }
        if self.show_board {
            return self.board_key(key);
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

    /// Asks before `what` when it would cost something: leaving or quitting
    /// a match we play in, or the host quitting the room; else does it.
    pub(super) fn ask(&mut self, what: Confirm) -> Vec<Action> {
        let costly = match what {
            Confirm::Leave => self.playing_a_match(),
            Confirm::Quit => self.playing_a_match() || self.is_host(),
        };
        if costly {
            self.confirm = Some(what);
            Vec::new()
        } else {
            self.confirmed(what)
        }
    }

    fn confirmed(&mut self, what: Confirm) -> Vec<Action> {
        self.confirm = None;
        match what {
            Confirm::Leave => vec![Action::Send(ClientMessage::LeaveRoom)],
            Confirm::Quit => vec![Action::Quit],
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
            KeyCode::Char('q') => return self.ask(Confirm::Quit),
            KeyCode::Char('/') => {
                self.mode = InputMode::Command;
                self.input = "/".to_owned();
                return Vec::new();
            }
            KeyCode::Char('l') => return self.open_board(),
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
                KeyCode::Char('r') => vec![self.list_rooms()],
                KeyCode::Char('n') => self.more_rooms(),
                _ => Vec::new(),
            },
            Screen::Room | Screen::Podium => match key.code {
                KeyCode::Char('r') => self.ready(),
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
                KeyCode::Char('g') => {
                    self.show_qr = true;
                    Vec::new()
                }
                KeyCode::Char('x') => self.ask(Confirm::Leave),
                KeyCode::Char('o') => {
                    let locked = self.room.as_ref().is_some_and(|r| r.snapshot.locked);
                    send(ClientMessage::Lock { locked: !locked })
                }
                KeyCode::Up | KeyCode::Down => {
                    self.editor.move_cursor(key.code == KeyCode::Down);
                    Vec::new()
                }
                KeyCode::Left | KeyCode::Right | KeyCode::Char('-') | KeyCode::Char('+') => {
                    if !self.is_host() {
                        self.error("only the host changes the settings");
                        return Vec::new();
                    }
                    let step = if matches!(key.code, KeyCode::Right | KeyCode::Char('+')) {
                        Step::Forward
                    } else {
                        Step::Back
                    };
                    let Some(room) = &self.room else {
                        return Vec::new();
                    };
                    let settings = self.editor.press(&room.snapshot.settings, step);
                    send(ClientMessage::UpdateSettings { settings })
                }
                _ => Vec::new(),
            },
            // Seated players type a formula all match long; this is the
            // spectators' game screen.
            Screen::Game => match key.code {
                KeyCode::Char('c') | KeyCode::Enter | KeyCode::Tab => {
                    self.mode = InputMode::Chat;
                    self.input.clear();
                    Vec::new()
                }
                KeyCode::Char('x') => self.ask(Confirm::Leave),
                _ => Vec::new(),
            },
            Screen::Connecting | Screen::Leaderboard => Vec::new(),
        }
    }

    fn typing(&mut self, key: KeyEvent) -> Vec<Action> {
        // A shell's line keys: Ctrl-U empties the line, Ctrl-W takes its
        // last word; no other Ctrl key types its letter.
        if key.modifiers.contains(KeyModifiers::CONTROL) {
            match key.code {
                KeyCode::Char('u') => self.input.clear(),
                KeyCode::Char('w') => {
                    let separator = |c: char| c.is_whitespace() || "+-*/×÷()".contains(c);
                    let kept = self.input.trim_end().len();
                    self.input.truncate(kept);
                    match self.input.chars().last() {
                        Some(c) if separator(c) => {
                            self.input.pop();
                        }
                        Some(_) => {
                            let cut = self.input.rfind(separator).map_or(0, |at| {
                                at + self.input[at..].chars().next().map_or(1, char::len_utf8)
                            });
                            self.input.truncate(cut);
                        }
                        None => {}
                    }
                }
                _ => {}
            }
            return Vec::new();
        }
        match key.code {
            KeyCode::Esc => {
                self.input.clear();
                self.mode = self.resting_mode();
                Vec::new()
            }
            KeyCode::Tab => {
                // Between the formula and chat during a match.
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
                    return self.command(text, true);
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

    fn open_board(&mut self) -> Vec<Action> {
        self.show_board = true;
        let (metric, period) = self
            .board
            .as_ref()
            .map_or((Metric::Rating, Period::All), |b| (b.metric, b.period));
        self.ask_board(metric, period)
    }

    fn board_key(&mut self, key: KeyEvent) -> Vec<Action> {
        let (metric, period) = self
            .board
            .as_ref()
            .map_or((Metric::Rating, Period::All), |b| (b.metric, b.period));
        match key.code {
            KeyCode::Esc
            | KeyCode::Char('q')
            | KeyCode::Char('l')
            | KeyCode::Tab
            | KeyCode::Backspace
            | KeyCode::Enter => {
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
            KeyCode::Char('p') => {
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
                self.board = Some(super::app::Board {
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
